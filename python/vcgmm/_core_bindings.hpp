// The binding layer's shared helpers: conversion only, no algorithm logic.
//
// Parameters and results are bound as Python classes with fields by name
// (_core_bind_params.cpp), so Python sets `params.em.G = 7` and a new field
// of a params struct needs one line there and none in any call. Every entry
// point takes C-contiguous float32/float64 arrays with .noconvert() (a wrong
// dtype or layout raises instead of being copied silently; the Python layer
// converts once, explicitly), allocates its outputs while holding the GIL,
// then releases the GIL for the C++ call.
#pragma once

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#if defined(__GLIBCXX__) || defined(_LIBCPP_VERSION)
#include <cxxabi.h>
#define VCGMM_HAVE_FORCED_UNWIND 1
#endif

#include "vcgmm/common.hpp"
#include "vcgmm/pipeline.hpp"

namespace vcgmm_python {

namespace py = pybind11;

template <typename T>
using CArray = py::array_t<T, py::array::c_style>;
using OptWeights = std::optional<CArray<double>>;

/// Registers every class and function of the extension module on `m`.
void bind_all(py::module_& m);
void bind_params(py::module_& m);
void bind_kmeans(py::module_& m);
void bind_vcgmm(py::module_& m);
void bind_minibatch(py::module_& m);
void bind_kernel_kmeans(py::module_& m);

inline bool interpreter_finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing() != 0;
#else
  return _Py_IsFinalizing() != 0;
#endif
}

// A thread still running C++ code when the interpreter shuts down (a daemon
// thread, or a pool worker abandoned after a second Ctrl-C) must never take
// the GIL again: Python would end it with pthread_exit, whose unwinding
// cannot cross an OpenMP region or the GIL guard's destructor (the process
// aborted). Such a thread waits here until the process exits, which is what
// CPython 3.14 itself does with threads that try to take the GIL at exit.
[[noreturn]] inline void park_until_exit() {
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

/// Runs `body` (code that takes the GIL) on a thread the core calls back
/// from; parks the thread instead when the interpreter is shutting down,
/// before or while the GIL is taken (see park_until_exit). Every callback into
/// Python (logger, progress, interrupt check) goes through here.
template <typename Body>
auto call_python_from_core(Body&& body) -> decltype(body()) {
  if (interpreter_finalizing()) park_until_exit();
#ifdef VCGMM_HAVE_FORCED_UNWIND
  try {
#endif
    return body();
#ifdef VCGMM_HAVE_FORCED_UNWIND
  } catch (abi::__forced_unwind&) {
    // Finalization began between the check above and taking the GIL.
    park_until_exit();
  }
#endif
}

/// A Logger calling a Python callable (pybind11's wrapper takes the GIL for
/// each call and for copies).
inline vcgmm::Logger python_logger(std::function<void(const std::string&)> f) {
  if (!f) return {};
  return [f](const std::string& line) { call_python_from_core([&] { f(line); }); };
}

/// A ProgressCallback calling a Python callable with a dict (algorithm,
/// phase, iteration, objective, seconds, distance_evals); a truthy return
/// value asks the loop to stop. The GIL is held while the dict and the
/// callable's result exist; a Python exception propagates out of the fit.
inline vcgmm::ProgressCallback python_progress(std::function<py::object(py::dict)> f) {
  if (!f) return {};
  return [f](const vcgmm::ProgressRecord& r) -> bool {
    return call_python_from_core([&]() -> bool {
      py::gil_scoped_acquire gil;
      py::dict d;
      d["algorithm"] = r.algorithm;
      d["phase"] = r.phase;
      d["iteration"] = r.iteration;
      d["objective"] = r.objective;
      d["seconds"] = r.seconds;
      d["distance_evals"] = r.distance_evals;
      py::object stop = f(std::move(d));
      return !stop.is_none() && PyObject_IsTrue(stop.ptr()) == 1;
    });
  };
}

/// A (n, d) view of a 2-D C-contiguous array plus optional weights.
template <typename T>
vcgmm::DataView<T> data_view(const CArray<T>& X, const OptWeights& w) {
  if (X.ndim() != 2) throw vcgmm::InvalidArgument("X must be a 2-D array");
  vcgmm::DataView<T> view;
  view.x = X.data();
  view.n = static_cast<vcgmm::index_t>(X.shape(0));
  view.d = static_cast<vcgmm::index_t>(X.shape(1));
  if (w) {
    if (w->ndim() != 1 || w->shape(0) != X.shape(0)) {
      throw vcgmm::InvalidArgument("sample_weight must have shape (n_samples,)");
    }
    view.w = w->data();
  }
  return view;
}

/// Checks that a (rows, cols) array has the given shape; `what` names it.
template <typename T>
void require_shape(const CArray<T>& a, vcgmm::index_t rows, vcgmm::index_t cols,
                   const char* what) {
  if (a.ndim() != 2 || a.shape(0) != rows || a.shape(1) != cols) {
    throw vcgmm::InvalidArgument(std::string(what) + " must have shape (" + std::to_string(rows) +
                                 ", " + std::to_string(cols) + ")");
  }
}

/// A numpy copy of a vector (results are small: traces, per-iteration counts).
template <typename V>
CArray<V> to_numpy(const std::vector<V>& v) {
  return CArray<V>(static_cast<py::ssize_t>(v.size()), v.data());
}

/// Runs f() with the GIL released; turns vcgmm::Interrupted into the
/// KeyboardInterrupt that the interrupt callback left pending (or raises one
/// when the call was cancelled by cancel_all()). A call that was running when
/// cancel_all() was called raises KeyboardInterrupt even if it returned
/// before its next interrupt check (the end of a call is not checked every
/// 100 ms: a cancellation landing there would otherwise be lost, and a loop of
/// calls in the cancelled thread would go on).
/// cancel_all() increments this; a call started before stops at its next
/// interrupt check (the value at the call's start is kept per thread).
extern std::atomic<std::uint64_t> g_cancel_generation;
extern thread_local std::uint64_t t_call_generation;

/// Raises KeyboardInterrupt when cancel_all() was called since `generation`
/// (call with the GIL held).
inline void raise_if_cancelled_since(std::uint64_t generation) {
  if (g_cancel_generation.load() != generation) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
}

template <typename F>
auto without_gil(F&& f) -> decltype(f()) {
  const std::uint64_t generation = g_cancel_generation.load();
  t_call_generation = generation;
  try {
    if constexpr (std::is_void_v<decltype(f())>) {
      {
        py::gil_scoped_release release;
        f();
      }
      raise_if_cancelled_since(generation);
    } else {
      auto result = [&] {
        py::gil_scoped_release release;
        return f();
      }();
      raise_if_cancelled_since(generation);
      return result;
    }
  } catch (const vcgmm::Interrupted&) {
    if (!PyErr_Occurred()) PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
}

/// The buffers of a pipeline (vcgmm::FitBuffers) as numpy arrays, allocated
/// while the GIL is held; the optional ones stay None when not asked for.
template <typename T>
struct PipelineArrays {
  CArray<T> centers;
  py::object labels = py::none();
  py::object coreset_indices = py::none();
  py::object coreset_weights = py::none();
  vcgmm::FitBuffers<T> buffers;

  PipelineArrays(const vcgmm::DataView<T>& data, const vcgmm::PipelineParams& p,
                 const std::optional<CArray<T>>& init_centers, bool want_labels)
      : centers(std::vector<py::ssize_t>{checked_count(p.n_clusters), data.d}) {
    buffers.centers = centers.mutable_data();
    if (p.seeding.method == vcgmm::SeedingMethod::given) {
      if (!init_centers) throw vcgmm::InvalidArgument("seeding 'given' needs init centers");
      require_shape(*init_centers, p.n_clusters, data.d, "init");
      buffers.init_centers = init_centers->data();
    }
    if (want_labels) {
      CArray<std::int32_t> a(data.n);
      buffers.labels = a.mutable_data();
      labels = a;
    }
    if (p.coreset_size > 0) {
      CArray<vcgmm::index_t> a(p.coreset_size);
      CArray<double> b(p.coreset_size);
      buffers.coreset_indices = a.mutable_data();
      buffers.coreset_weights = b.mutable_data();
      coreset_indices = a;
      coreset_weights = b;
    }
  }

  /// (result, centers, labels, coreset_indices, coreset_weights)
  template <typename Result>
  py::tuple with(Result&& result) const {
    return py::make_tuple(std::forward<Result>(result), centers, labels, coreset_indices,
                          coreset_weights);
  }

 private:
  static py::ssize_t checked_count(vcgmm::index_t n_clusters) {
    if (n_clusters < 1) throw vcgmm::InvalidArgument("n_clusters must be >= 1");
    return static_cast<py::ssize_t>(n_clusters);
  }
};

/// Binds `name` = a one-call pipeline `fit(data, params, buffers)` (fit_kmeans,
/// fit_vcgmm, ...) for T: (X, sample_weight, init_centers, params,
/// return_labels) -> (result, centers, labels, coreset_indices, coreset_weights).
template <typename T, typename Params, typename Fit>
void def_pipeline(py::module_& m, const char* name, Fit fit) {
  m.def(
      name,
      [fit](const CArray<T>& X, const OptWeights& w, const std::optional<CArray<T>>& init_centers,
            const Params& params, bool return_labels) {
        const auto data = data_view(X, w);
        const PipelineArrays<T> arrays(data, params, init_centers, return_labels);
        auto result = without_gil([&] { return fit(data, params, arrays.buffers); });
        return arrays.with(std::move(result));
      },
      py::arg("X").noconvert(), py::arg("sample_weight").noconvert(),
      py::arg("init_centers").noconvert(), py::arg("params"), py::arg("return_labels"));
}

}  // namespace vcgmm_python
