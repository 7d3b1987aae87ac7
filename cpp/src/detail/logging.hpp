// Internal: progress lines for a Logger (verbose mode).
#pragma once

#include <cstdarg>
#include <cstdio>

#include "vcgmm/common.hpp"

namespace vcgmm {
namespace detail {

/// printf-style line for a Logger (no-op without one). Lines longer than 255
/// characters are cut.
inline void log_line(const Logger& log, const char* format, ...) {
  if (!log) return;
  char line[256];
  va_list args;
  va_start(args, format);
  std::vsnprintf(line, sizeof line, format, args);
  va_end(args);
  log(line);
}

/// Sends a ProgressRecord to run.progress (no-op without one); true when the
/// callback asks the loop to stop.
inline bool report_progress(const RunOptions& run, const char* algorithm, const char* phase,
                            int iteration, double objective, double seconds,
                            std::int64_t distance_evals) {
  if (!run.progress) return false;
  ProgressRecord record;
  record.algorithm = algorithm;
  record.phase = phase;
  record.iteration = iteration;
  record.objective = objective;
  record.seconds = seconds;
  record.distance_evals = distance_evals;
  return run.progress(record);
}

}  // namespace detail
}  // namespace vcgmm
