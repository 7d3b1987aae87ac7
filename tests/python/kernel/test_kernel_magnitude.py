"""Polynomial and linear kernel values are computed in the data's type: a
kernel whose values would overflow it, or whose K(x, x) spans more digits
than it resolves, is refused with a message naming the kernel's parameters,
never fitted into NaN or negative objectives."""

from __future__ import annotations

import numpy as np
import pytest

import vcgmm


def _pixels(dtype):
    rng = np.random.default_rng(0)
    return rng.integers(0, 256, size=(600, 64)).astype(dtype)


def test_polynomial_overflow_in_float32_is_refused():
    # (gamma <x, y> + 1)^10 with gamma = 1/64 reaches about 1e48: beyond float32
    X = _pixels(np.float32)
    km = vcgmm.KernelKMeans(3, kernel="poly", degree=10, batch_size=256, random_state=0)
    with pytest.raises(ValueError, match=r"polynomial kernel.*degree 10.*float32.*use float64"):
        km.fit(X)


def test_the_same_kernel_in_float64_fits_finite():
    X = _pixels(np.float64)
    km = vcgmm.KernelKMeans(3, kernel="poly", degree=10, batch_size=256, random_state=0).fit(X)
    assert np.isfinite(km.inertia_) and km.inertia_ > 0
    assert np.unique(km.labels_).size == 3


def test_predict_refuses_rows_that_overflow_the_fitted_kernel():
    X = _pixels(np.float32) / 255.0
    km = vcgmm.KernelKMeans(3, kernel="poly", degree=10, batch_size=256, random_state=0).fit(X)
    assert np.isfinite(km.inertia_)
    with pytest.raises(ValueError, match="polynomial kernel"):
        km.predict(X * 255.0)


def test_a_polynomial_kernel_beyond_the_precision_is_refused():
    # degree 200 on N(0, 1): K(x, x) from ~1e60 (median) to ~1e130: every
    # distance but the largest points' would be rounding (it gave a negative
    # inertia for this positive semidefinite kernel)
    X = np.random.default_rng(1).standard_normal((500, 8))
    km = vcgmm.KernelKMeans(3, kernel="poly", degree=200, batch_size=256, random_state=0)
    with pytest.raises(ValueError, match="rounding noise.*lower degree"):
        km.fit(X)
    # standardised to gamma ||x||^2 + coef0 ~ 1, the same degree is well posed
    km = vcgmm.KernelKMeans(3, kernel="poly", degree=200, gamma=1e-3, coef0=1.0,
                            batch_size=256, random_state=0).fit(X)
    assert np.isfinite(km.inertia_) and km.inertia_ >= 0


def test_kernels_in_range_are_not_refused():
    X = np.random.default_rng(2).standard_normal((400, 5)).astype(np.float32)
    for kw in ({"kernel": "poly", "degree": 3}, {"kernel": "linear"}, {"kernel": "rbf"}):
        km = vcgmm.KernelKMeans(4, batch_size=200, random_state=0, **kw).fit(X)
        assert np.isfinite(km.inertia_) and km.inertia_ >= 0
