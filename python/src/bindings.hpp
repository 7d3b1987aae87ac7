// The binding layer's shared helpers: conversion and validation only, no
// algorithm logic.
//
// Each algorithm family has one bind_<family>.cpp that binds its params and
// results as Python classes with fields by name (Python sets
// `params.em.G = 7`: a new field of a struct needs one .def_readwrite in its
// family's file and nothing in any call), its name tables and its functions.
// Every entry point takes C-contiguous float32/float64 arrays with
// .noconvert() (a wrong dtype or layout raises instead of being copied
// silently; the Python layer converts once, explicitly), allocates its
// outputs while holding the GIL, then releases the GIL for the C++ call.
// Classes are module_local: every instruction-set module (_core, _core_avx2,
// _core_avx512) registers its own copy, and the loader's module is used.
#pragma once

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
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

// The families, one file each; module.cpp calls them in this order (a class
// is registered before any signature names it).
void bind_common(py::module_& m);
void bind_blocks(py::module_& m);
void bind_approximate(py::module_& m);
void bind_kmeans(py::module_& m);
void bind_vcgmm(py::module_& m);
void bind_stochastic(py::module_& m);
void bind_kernel_kmeans(py::module_& m);

/// Module-wide hooks: vcgmm::InvalidArgument -> ValueError, and the core's
/// interrupt check (Ctrl-C, cancel_all()).
void install_module_hooks();

// ---------------------------------------------------------------------------
// Calls from the core back into Python

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

// ---------------------------------------------------------------------------
// Arrays

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

/// The number of rows of a (rows, n_features) array whose width must be X's.
template <typename T>
vcgmm::index_t rows_matching(const CArray<T>& X, const CArray<T>& a, const char* message) {
  if (a.ndim() != 2 || a.shape(1) != X.shape(1)) throw vcgmm::InvalidArgument(message);
  return static_cast<vcgmm::index_t>(a.shape(0));
}

/// A numpy copy of a vector (results are small: traces, per-iteration counts).
template <typename V>
CArray<V> to_numpy(const std::vector<V>& v) {
  return CArray<V>(static_cast<py::ssize_t>(v.size()), v.data());
}

/// An optional (n,) output: None, or an array whose data `*ptr` points to.
template <typename V>
py::object optional_output(bool wanted, py::ssize_t n, V** ptr) {
  *ptr = nullptr;
  if (!wanted) return py::none();
  CArray<V> a(n);
  *ptr = a.mutable_data();
  return std::move(a);
}

// ---------------------------------------------------------------------------
// The GIL and interruption

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

/// Runs f() with the GIL released; turns vcgmm::Interrupted into the
/// KeyboardInterrupt that the interrupt callback left pending (or raises one
/// when the call was cancelled by cancel_all()). A call that was running when
/// cancel_all() was called raises KeyboardInterrupt even if it returned
/// before its next interrupt check (the end of a call is not checked every
/// 100 ms: a cancellation landing there would otherwise be lost, and a loop of
/// calls in the cancelled thread would go on).
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

// ---------------------------------------------------------------------------
// Classes, fields and names

/// A params class: module_local, default-constructible from Python.
template <typename P, typename... Bases>
py::class_<P, Bases...> params_class(py::module_& m, const char* name) {
  return py::class_<P, Bases...>(m, name, py::module_local()).def(py::init<>());
}

/// A result class: module_local, made only by the core.
template <typename R, typename... Bases>
py::class_<R, Bases...> result_class(py::module_& m, const char* name) {
  return py::class_<R, Bases...>(m, name, py::module_local());
}

/// A read-only numpy property of a vector field.
template <typename R, typename... Bases, typename V>
void vector_property(py::class_<R, Bases...>& cls, const char* name, std::vector<V> R::*field) {
  cls.def_property_readonly(name, [field](const R& r) { return to_numpy(r.*field); });
}

/// The user-facing names of an enum's values: the one table of them.
template <typename E>
using NameTable = std::pair<const char*, E>;

template <typename E, std::size_t N>
std::string name_of(const NameTable<E> (&table)[N], E value) {
  for (const auto& entry : table) {
    if (entry.second == value) return entry.first;
  }
  return "?";
}

/// The value named `name`; an unknown name raises ValueError listing the
/// names, `what` naming the parameter.
template <typename E, std::size_t N>
E value_of(const NameTable<E> (&table)[N], const std::string& name, const char* what) {
  std::string names;
  for (const auto& entry : table) {
    if (name == entry.first) return entry.second;
    names += std::string(names.empty() ? "'" : ", '") + entry.first + "'";
  }
  throw vcgmm::InvalidArgument(std::string(what) + " must be one of " + names + ", got '" +
                               name + "'");
}

/// The mini-batch learning rates (vcgmm::LearningRate: mbatch, kernel k-means).
inline const NameTable<vcgmm::LearningRate> kLearningRates[] = {
    {"beta", vcgmm::LearningRate::beta},
    {"sklearn", vcgmm::LearningRate::sklearn},
};

/// Binds `name` = a function returning the names of `table` as a list.
template <typename E, std::size_t N>
void def_names(py::module_& m, const char* name, const NameTable<E> (&table)[N], const char* doc) {
  m.def(
      name,
      [&table] {
        py::list names;
        for (const auto& entry : table) names.append(entry.first);
        return names;
      },
      doc);
}

/// A property of an enum field E P::*field, read and set by the names of
/// `table`; errors name the parameter `what` (default: the property's name).
template <typename P, typename... Bases, typename E, std::size_t N>
void enum_property(py::class_<P, Bases...>& cls, const char* name, E P::*field,
                   const NameTable<E> (&table)[N], const char* what = nullptr) {
  if (what == nullptr) what = name;
  cls.def_property(
      name, [field, &table](const P& p) { return name_of(table, p.*field); },
      [field, &table, what](P& p, const std::string& value) {
        p.*field = value_of(table, value, what);
      });
}

/// A read-only property of an enum field, by the names of `table`.
template <typename R, typename... Bases, typename E, std::size_t N>
void enum_property_readonly(py::class_<R, Bases...>& cls, const char* name, E R::*field,
                            const NameTable<E> (&table)[N]) {
  cls.def_property_readonly(name,
                            [field, &table](const R& r) { return name_of(table, r.*field); });
}

// ---------------------------------------------------------------------------
// Pipelines

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
    labels = optional_output(want_labels, data.n, &buffers.labels);
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

/// Binds `name` = a one-call pipeline `fit(data, params, buffers)`
/// (fit_kmeans, fit_vcgmm, fit_mbatch, ...) for T: (X, sample_weight,
/// init_centers, params, return_labels) -> (result, centers, labels,
/// coreset_indices, coreset_weights).
template <typename T, typename Params, typename Result>
void def_pipeline(py::module_& m, const char* name,
                  Result (*fit)(const vcgmm::DataView<T>&, const Params&,
                                const vcgmm::FitBuffers<T>&)) {
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
