"""The functions :func:`fit_vcgmm` and :func:`fit_vargmm`: thin wrappers over
:class:`VCGMM`'s private fit (as scikit-learn's ``k_means`` wraps ``KMeans``)."""

from __future__ import annotations



from .._data.source import as_source
from .._base.docs import fill_doc
from .._base.params import INT32_MAX, Boolean, Integer
from .._base.validation import as_data, check_function_count
from .params import VCGMM_PARAMS, _D
from .vcgmm import VCGMM


class _Unset:
    """Default of fit_vcgmm's n_prime: not given (coreset_size applies)."""

    def __repr__(self):
        return "<coreset_size>"


class _DefaultCoresetSize(str):
    """fit_vcgmm's default coreset_size: the string "auto", but recognisable
    as not given (so that coreset_size and its alias n_prime cannot both be)."""


_UNSET = _Unset()


_AUTO = _DefaultCoresetSize(_D["coreset_size"])


@fill_doc
def fit_vcgmm(X, C, G=_D["G"], coreset_size=_AUTO, *, sample_weight=None,
              return_labels=False, n_prime=_UNSET, **params):
    """Fit a Gaussian mixture by vc-GMM: coreset + AFK-MC^2 + truncated variational EM.

    The headline algorithm of Hirschberger, Forster & Luecke ("Accelerated
    training of large-scale Gaussian mixtures by a merger of sublinear
    approaches"): a lightweight coreset of ``n_prime`` weighted points,
    AFK-MC^2 seeding on it (by default k-means++ at a few hundred clusters:
    see :class:`VCGMM`'s ``init``), then the var-GMM-S variational loop on the coreset
    until the free energy converges. When the C means take 32 MiB or more, the
    coreset's rows are fitted in the order of their nearest of ceil(sqrt(C))
    evenly strided coreset rows, so that consecutive points reuse nearby means
    in cache (``coreset_indices`` and ``coreset_weights`` keep the coreset's
    own order). Each EM iteration costs
    O(n_prime G^2 n_features), independent of N and of C. The model is C
    isotropic Gaussians with equal weights and one shared variance (with
    ``covariance_type="spherical"``: a variance and a weight each); its means
    are good k-means centers.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features), or chunked data
        Data. float32 stays float32 (never copied when C-contiguous, e.g. a
        ``np.memmap``); float16 and 8/16-bit integers become float32, other
        numbers float64. Data larger than memory
        can come in chunks (a list of arrays or ``.npy`` paths, a chunk
        function, a zarr or Dask array; see :mod:`vcgmm.dask`): the coreset
        is drawn in two passes holding one chunk at a time (the same on any
        threads or workers); ``return_labels`` reads the chunks once more.
    C : int
        Number of clusters (Gaussians), 1 <= C <= n_samples.
    G : int, default=7
        Neighbourhood size: each point keeps its G nearest clusters found so
        far and searches the G neighbours of each (up to G^2 distances per
        point and iteration). Values larger than C are clamped to C with a
        warning (the loop is then exact EM, the slowest setting). The papers
        use 3 to 7.
    coreset_size : int, "auto" or None, default="auto"
        %(coreset_size)s
        None is var-GMM-S (:func:`fit_vargmm`).
    n_prime : int, "auto" or None
        Alias of ``coreset_size`` (the papers' name N'); give one of the two.
    sample_weight : array-like of shape (n_samples,), default=None
        %(sample_weight)s
    return_labels : bool, default=False
        %(return_labels)s
    **params
        Every other parameter of :class:`VCGMM`, by keyword, with the same
        meaning and default: ``plus1``, ``init``, ``chain_length``,
        ``n_local_trials``, ``n_init_estep``, ``tol``, ``stop_rule``,
        ``max_iter``, ``refine``, ``refine_search``, ``covariance_type``,
        ``variance_floor``, ``shared_m_steps``, ``metric``, ``n_init``,
        ``n_threads``, ``random_state``, ``verbose``, ``callback``.

    Returns
    -------
    VCGMMResult
        ``centers``, ``sigma2``, ``variances``, ``mixing_weights``,
        ``free_energy``, ``n_iter``, ``converged``, ``G``, ``coreset_indices``, ``coreset_weights``, ``labels``,
        ``inertia``, ``n_distance_evals``, ``timings``.

    See Also
    --------
    fit_vargmm : the same loop on all points (no coreset).
    VCGMM : the scikit-learn style estimator.

    Examples
    --------
    >>> import numpy as np, vcgmm
    >>> X = np.random.default_rng(0).normal(size=(20000, 8)).astype(np.float32)
    >>> result = vcgmm.fit_vcgmm(X, 100, 5, 8192, random_state=0)
    >>> result.centers.shape
    (100, 8)
    """
    if n_prime is not _UNSET:
        if coreset_size is not _AUTO:
            raise TypeError("fit_vcgmm got both coreset_size and its alias n_prime; give one.")
        coreset_size = n_prime
    for name in ("n_components", "G", "coreset_size"):
        if name in params:
            raise TypeError(f"fit_vcgmm got {name!r} twice (it is a positional argument).")
    for name in ("compute_labels", "labels"):
        if name in params:
            raise TypeError("fit_vcgmm takes return_labels (exact labels, part of the result), "
                            f"not {name}; for approximate labels call "
                            "vcgmm.assign_approximate(X, result.centers).")
    unknown = sorted(set(params) - set(VCGMM_PARAMS.names()))
    if unknown:
        raise TypeError(f"fit_vcgmm got unexpected keyword argument(s) {', '.join(unknown)}; "
                        f"it takes X, C, G, coreset_size, sample_weight, return_labels and "
                        f"the parameters of VCGMM.")
    source = as_source(X, sample_weight)
    if source is None:
        X = as_data(X)
        C, sample_weight = check_function_count(C, X, sample_weight)
    else:  # chunked or Dask data: C <= n_samples is checked after the first pass
        X, sample_weight = source, None
        C = Integer(1, INT32_MAX).check(C, "C")
    est = VCGMM(C, G=G, coreset_size=str(coreset_size) if coreset_size is _AUTO else coreset_size,
                **params)
    return_labels = Boolean().check(return_labels, "return_labels")
    return est._fit_result(X, sample_weight, return_labels=return_labels)


def fit_vargmm(X, C, G=_D["G"], *, sample_weight=None, return_labels=False, **params):
    """Fit a Gaussian mixture by var-GMM-S: truncated variational EM on all points.

    Forster & Luecke, "Can clustering scale sublinearly with its clusters?"
    (AISTATS 2018): the variational loop of :func:`fit_vcgmm` without a
    coreset, on every point with its sample weight. Each iteration costs
    O(N G^2 n_features), independent of C; the quality is close to k-means++
    (within about 1% in the papers).

    Parameters
    ----------
    X, C, G, sample_weight, return_labels, **params
        As in :func:`fit_vcgmm` (every parameter of :class:`VCGMM` but
        ``coreset_size``).

    Returns
    -------
    VCGMMResult
        With ``coreset_indices`` and ``coreset_weights`` set to None.

    Examples
    --------
    >>> import numpy as np, vcgmm
    >>> X = np.random.default_rng(0).normal(size=(500, 2))
    >>> r = vcgmm.fit_vargmm(X, 4, G=2, random_state=0)
    >>> r.centers.shape, r.coreset_indices is None
    ((4, 2), True)
    """
    if "coreset_size" in params or "n_prime" in params:
        raise TypeError("fit_vargmm fits on all points: use fit_vcgmm for a coreset.")
    return fit_vcgmm(X, C, G, None, sample_weight=sample_weight, return_labels=return_labels,
                     **params)
