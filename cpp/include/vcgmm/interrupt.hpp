// vcgmm: cooperative interruption of long computations (Ctrl-C from Python).
//
// Model: faiss' InterruptCallback. Long loops call the registered callback
// from the calling thread about every 100 ms (never from worker threads and
// never concurrently); when it returns true the computation stops at the next
// safe point and throws vcgmm::Interrupted. The Python binding registers a
// callback that takes the GIL briefly and runs PyErr_CheckSignals().
//
// Cost: one call of the callback about every 100 ms of computation.
// Determinism: the callback only decides whether to stop; a computation that
// is not stopped returns the same result with or without it.
// Use when: a host (Python, a GUI) must be able to abort a running call.
// Do not use for: stopping a loop early with its result kept (return true
// from RunOptions::progress instead, see common.hpp).
#pragma once

namespace vcgmm {

/// Returns true when the running computation should stop.
using InterruptCallback = bool (*)();

/// Registers the process-wide callback (nullptr disables checking).
void set_interrupt_callback(InterruptCallback callback);

/// The registered callback, or nullptr.
InterruptCallback interrupt_callback();

}  // namespace vcgmm
