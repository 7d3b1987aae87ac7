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

}  // namespace detail
}  // namespace vcgmm
