// The binding layer's shared helpers: conversion only, no algorithm logic.
//
// Every entry point takes C-contiguous float32/float64 arrays with
// .noconvert() (a wrong dtype or layout raises instead of being copied
// silently; the Python layer converts once, explicitly), allocates its
// outputs while holding the GIL, then releases the GIL for the C++ call.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <string>

#include "vcgmm/common.hpp"
#include "vcgmm/kmeans.hpp"

namespace vcgmm_python {

namespace py = pybind11;

template <typename T>
using CArray = py::array_t<T, py::array::c_style>;

/// Registers every function of the extension module on `m`.
void bind_all(py::module_& m);
void bind_kmeans(py::module_& m);
void bind_vcgmm(py::module_& m);

/// A (n, d) view of a 2-D C-contiguous array plus optional weights.
template <typename T>
vcgmm::DataView<T> data_view(const CArray<T>& X, const std::optional<CArray<double>>& w) {
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

/// A Logger that forwards lines to a Python callable (taking the GIL for the
/// call). Holds a borrowed pointer: the callable must outlive the C++ call,
/// which it does, being an argument of the bound function.
inline vcgmm::Logger python_logger(const py::object& callback) {
  if (callback.is_none()) return {};
  PyObject* fn = callback.ptr();
  return [fn](const std::string& line) {
    py::gil_scoped_acquire gil;
    py::handle callable(fn);
    callable(line);
  };
}

/// Runs f() with the GIL released; turns vcgmm::Interrupted into the
/// KeyboardInterrupt that the interrupt callback left pending.
template <typename F>
auto without_gil(F&& f) -> decltype(f()) {
  try {
    py::gil_scoped_release release;
    return f();
  } catch (const vcgmm::Interrupted&) {
    if (!PyErr_Occurred()) PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
}

/// The optional outputs of a pipeline (labels of all points, the coreset),
/// allocated while the GIL is held; the pointers stay null when not asked.
struct PipelineOutputs {
  py::object labels = py::none();
  py::object coreset_indices = py::none();
  py::object coreset_weights = py::none();
  std::int32_t* labels_ptr = nullptr;
  vcgmm::index_t* indices_ptr = nullptr;
  double* weights_ptr = nullptr;

  PipelineOutputs(vcgmm::index_t n, bool want_labels, vcgmm::index_t coreset_size) {
    if (want_labels) {
      CArray<std::int32_t> a(n);
      labels_ptr = a.mutable_data();
      labels = a;
    }
    if (coreset_size > 0) {
      CArray<vcgmm::index_t> a(coreset_size);
      CArray<double> b(coreset_size);
      indices_ptr = a.mutable_data();
      weights_ptr = b.mutable_data();
      coreset_indices = a;
      coreset_weights = b;
    }
  }
};

/// The seeding named by the Python layer: "k-means++", "afk-mc2" or "given".
vcgmm::KMeansInit parse_init(const std::string& init);

/// The initial centers of init == given as a pointer (null otherwise),
/// after checking their shape (n_centers, n_features); `what` names them in
/// the error ("init centers", "init means").
template <typename T>
const T* given_init(vcgmm::KMeansInit init, const std::optional<CArray<T>>& centers,
                    vcgmm::index_t n_centers, py::ssize_t n_features, const char* what,
                    const char* count_name) {
  if (init != vcgmm::KMeansInit::given) return nullptr;
  if (!centers || centers->ndim() != 2 || centers->shape(0) != n_centers ||
      centers->shape(1) != n_features) {
    throw vcgmm::InvalidArgument(std::string(what) + " must have shape (" + count_name +
                                 ", n_features)");
  }
  return centers->data();
}

/// Per-phase counters as Python dicts.
py::dict to_dict(const vcgmm::DistanceCounts& counts);
py::dict to_dict(const vcgmm::PhaseTimes& times);

}  // namespace vcgmm_python
