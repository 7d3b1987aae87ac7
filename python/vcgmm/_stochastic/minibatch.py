"""Mini-batch k-means (mbatch, Sculley 2010): :class:`MiniBatchKMeans` (with
``partial_fit``), :func:`fit_mbatch` and its parameter table."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from .._base.nearest import nearest_centers
from .._blocks.coreset import coreset_size_param
from .._base.docs import fill_doc
from .._base.loader import core as _core
from .._base.metric import is_cosine, metric_param, normalize_rows
from .._base.params import (CORE, INT32_MAX, Integer, Options, Param, ParamTable, Real,
                            make_init)
from .._base.run import RUN_PARAMS, check_n_threads
from .._blocks.seeding import SEEDING_PARAMS, afkmc2, init_param, kmeans_plusplus, seeding_to_core
from .base import (N_INIT_PARAM, STOCHASTIC_COMPUTE_LABELS, StochasticKMeans, batch_size_param, fit_function)
from .._base.validation import (check_n_clusters, check_sample_weight, check_weight_total,
                                positive_rows)
from .stream import fit_mbatch_stream
from .base import _MAX_ITER, _N_CLUSTERS, _check_batch_size

__all__ = ["MiniBatchKMeans", "fit_mbatch", "MBATCH_PARAMS"]


#: The parameters of mbatch, in MiniBatchKMeans' signature order.
MBATCH_PARAMS = ParamTable(
    [
        _N_CLUSTERS,
        init_param(_core.MbatchKMeansParams().seeding.method),
        batch_size_param(f"mini-batch size b; 'auto': min({_core.MBATCH_DEFAULT_BATCH}, n) "
                         "(the paper's b: 5000)", "mbatch.batch_size"),
        Param("max_iter", _MAX_ITER, CORE, "maximum number of iterations (mbatch: batches)",
              target="mbatch.max_iter", cli="--max-iter"),
        Param("reassignment_ratio", Real(0.0, 1.0), CORE,
              "centers updated less than this fraction of the most updated one move onto "
              "batch samples (0: never, the paper's mbatch)",
              target="mbatch.reassignment_ratio", cli="--reassignment-ratio"),
        Param("max_no_improvement", Integer(0, INT32_MAX), CORE,
              "stop when the smoothed batch objective has not improved for this many "
              "batches (scikit-learn's rule; 0: run max_iter batches, the paper's mbatch)",
              target="mbatch.max_no_improvement", cli="--max-no-improvement"),
        Param("learning_rate", Options(tuple(_core.learning_rates())), CORE,
              "the step of a center that won b_j of b batch samples: 'sklearn' the running "
              "mean (1 / count), 'beta' sqrt(b_j / b) (Schwartzman 2023)",
              target="mbatch.learning_rate", cli="--learning-rate"),
        metric_param(),
        N_INIT_PARAM,
        STOCHASTIC_COMPUTE_LABELS,
        coreset_size_param(None),
        *SEEDING_PARAMS,
        *RUN_PARAMS,
    ],
    core_params=_core.MbatchKMeansParams,
)


@fill_doc
class MiniBatchKMeans(StochasticKMeans):
    """Mini-batch k-means (Sculley, "Web-scale k-means clustering", 2010).

    Each iteration draws ``batch_size`` samples uniformly (with replacement),
    assigns each to its nearest center (exact, blocked matrix products) and
    moves every center to the running mean of all samples ever assigned to
    it (per-center learning rate 1 / count; the initial center counts as one
    sample). Runs at most ``max_iter`` batches and stops early as
    scikit-learn's MiniBatchKMeans does (``max_no_improvement``). ``partial_fit``
    runs one iteration on the batch it is given (``n_init`` does not apply).

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters C, 1 <= C <= n_samples.
    init : {"random", "k-means++", "afk-mc2", "auto"} or array-like of shape \
            (n_clusters, n_features), default="k-means++"
        k-means++ (greedy, see ``n_local_trials``) and AFK-MC^2 run on
        min(n, 3 * max(batch_size, n_clusters)) distinct random samples (as scikit-learn's
        init_size); "random": C distinct samples (Sculley's and the paper's);
        or the initial centers.
        %(init_auto)s
    batch_size : int or "auto", default="auto"
        Samples per batch, 1 to n_samples; "auto": min(2048, n_samples) (with the
        early stop, faster than scikit-learn's MiniBatchKMeans at a lower error on
        the data of bench/users_data.py; the paper's b is 5000).
    max_iter : int, default=100
        Largest number of batches.
    reassignment_ratio : float, default=0.01
        After every ``10 * n_clusters`` samples drawn, the centers whose count
        (the weight assigned to them so far) is below this fraction of the
        largest count move onto samples of the current batch (drawn by weight,
        at most half a batch) and take the smallest remaining count, as in
        scikit-learn's MiniBatchKMeans: centers seeded where the data are
        sparse would otherwise stay there and leave clusters empty. 0 turns it
        off (Sculley's and the paper's mbatch). ``partial_fit`` does not
        reassign.
    max_no_improvement : int, default=10
        Stop (``converged_=True``) once the exponentially weighted average of
        the batch objective per unit weight (smoothing ``2 * batch_size /
        (n_samples + 1)``, at most 1) has not reached a new minimum for this
        many batches in a row: scikit-learn's early stop. 0 runs all
        ``max_iter`` batches (Sculley's and the paper's mbatch).
    learning_rate : {"sklearn", "beta"}, default="sklearn"
        The step of a center that won b_j of a batch's b samples (weighted:
        their weights), ``c <- (1 - alpha) c + alpha * mean(its samples)``:
        "sklearn" is Sculley's running mean, alpha = b_j / (all samples
        assigned to it so far), as scikit-learn's; "beta" is alpha =
        sqrt(b_j / b) (Schwartzman, ICLR 2023), which does not decay, the rate
        the mini-batch kernel k-means paper also tests on plain mini-batch
        k-means (bench/results/kernel_kmeans). Applies to ``partial_fit`` too.
    metric : {"euclidean", "cosine"}, default="euclidean"
        %(metric_spherical)s
    %(stochastic_params)s

    Attributes
    ----------
    %(stochastic_attributes)s
    n_iter_ : int
        Batches processed (fit: this fit's; partial_fit: all calls').
    converged_ : bool
        Whether the fit stopped by ``max_no_improvement`` (False after
        ``partial_fit``).
    objective_ : ndarray of shape (n_iter,)
        Each batch's quantization error (before its update), scaled to the
        total sample weight: an estimate of the energy.
    objective_seconds_ : ndarray of shape (n_iter,)
        When each batch finished, in seconds since the iterations started.
    counts_ : ndarray of shape (n_clusters,)
        Weight of all assignments per center (+1 for the initial center):
        the state ``partial_fit`` continues from.
    batch_size_ : int
        The batch size used.
    %(cost_attributes)s

    Examples
    --------
    >>> import numpy as np, vcgmm
    >>> X = np.random.default_rng(0).normal(size=(20000, 4))
    >>> km = vcgmm.MiniBatchKMeans(8, batch_size=1000, random_state=0).fit(X)
    >>> km.cluster_centers_.shape
    (8, 4)
    """

    _in_memory_fit = None  # chunked and Dask data are streamed (stream.py)

    _params = MBATCH_PARAMS
    # Sculley's mbatch as paper 002 ran it: random samples as initial centers,
    # no reassignment of rare centers, no early stop
    paper_params = {"init": "random", "reassignment_ratio": 0.0, "max_no_improvement": 0}
    _core_fit = staticmethod(_core.fit_mbatch)
    __init__ = make_init(MBATCH_PARAMS)
    _spherical_centers = True

    @staticmethod
    def _set_spherical(params):
        params.mbatch.spherical = True

    def _check_sizes(self, values, n_fit, n_clusters):
        _check_batch_size(values, n_fit, 1, "1")

    def _check_weights(self, values, X, w, n_fit):
        # A center's count sums the weights of every row it receives, over all batches.
        b = values["batch_size"]
        b = min(_core.MBATCH_DEFAULT_BATCH if b == "auto" else b, n_fit)
        largest = float(np.max(w))
        _check_counts(values["max_iter"] * b * largest, X,
                      f"largest weight {largest:.3g}: the centers' counts sum the weights of up "
                      f"to max_iter * batch_size = {values['max_iter'] * b:,} rows")

    def _iteration_evals(self, fit_n, params):
        return min(params.mbatch.batch_size or _core.MBATCH_DEFAULT_BATCH, fit_n) * params.n_clusters

    def _empty_cluster_cause(self):
        return ("some centers ended where no sample is nearest to them, or the data have "
                f"fewer than n_clusters distinct points; with reassignment_ratio="
                f"{self.reassignment_ratio:g}, a larger value (centers updated rarely move "
                "onto samples), more batches (max_iter) or another init may help.")

    def _info(self, r):
        return {"batch_size": int(r.batch_size), "counts": r.counts, "n_steps": int(r.n_iter),
                "n_reassigned": int(r.n_reassigned)}

    @fill_doc
    def fit(self, X, y=None, sample_weight=None):
        """Compute the clustering.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or chunked data
            Training data. float32 stays float32, float16 and 8/16-bit integers
            become float32, other numbers float64; C-contiguous float arrays (and
            memory maps) are used without a copy. Chunked data (lists of arrays or
            ``.npy`` paths, chunk functions, zarr or Dask arrays) are streamed: one chunk in memory
            at a time, each batch drawn from one chunk chosen in proportion to
            its rows (so every row is equally likely, as in memory), the
            chunks read once to count their rows, once for the seeding rows,
            once per ``ceil(n / batch_size)`` batches (only those holding
            batches), and once more for ``labels_`` and ``inertia_``. One
            chunk gives the in-memory fit exactly. With ``coreset_size`` set,
            the fit runs on a coreset drawn in two passes instead.
        %(y)s
        sample_weight : array-like of shape (n_samples,), default=None
            %(sample_weight)s

        Returns
        -------
        self
            Fitted estimator.
        """
        return super().fit(X, y, sample_weight)

    _streams_chunks = True

    def _fit_stream(self, source):
        return fit_mbatch_stream(self, source)

    @fill_doc
    def partial_fit(self, X, y=None, sample_weight=None):
        """One mbatch iteration on the batch X (the first call also seeds).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The batch (at least n_clusters samples on the first call).
        %(y)s
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; None means all ones. Zero entries are ignored (the
            step sees the other rows; they are still labelled).

        Returns
        -------
        self
        """
        first = not hasattr(self, "cluster_centers_")
        X = self._validate_X(X, reset=first)  # later batches: normalised here if cosine
        values = self._checked_params()
        if first and is_cosine(values):
            X = normalize_rows(X, "X")
        w = check_sample_weight(sample_weight, X)
        # Rows of weight 0 do not exist: the step (and the first call's
        # seeding) sees X[w > 0]; they are still labelled below.
        Xp, wp, _ = positive_rows(X, w, values["n_clusters"] if first else 1)
        if first:
            self._seed_partial(Xp, wp, values)
        elif not hasattr(self, "counts_"):  # from_centers: go on from those centers
            self._start_counts(self.cluster_centers_.shape[0], Xp.shape[0])
        with np.errstate(over="ignore"):
            batch_weight = float(Xp.shape[0] if wp is None else np.sum(wp))
            largest = float(np.max(self.counts_))
        _check_counts(largest + batch_weight, X,
                      f"the largest center count {largest:.3g} plus this batch's weight "
                      f"{batch_weight:.3g}")
        centers = np.ascontiguousarray(self.cluster_centers_, dtype=X.dtype)
        centers, counts, _, _ = _core.mbatch_step(Xp, wp, centers, self.counts_, False,
                                                  check_n_threads(values["n_threads"]),
                                                  is_cosine(values), values["learning_rate"])
        self.cluster_centers_, self.counts_ = centers, counts
        self.n_steps_ += 1
        self.n_iter_ = self.n_steps_
        if values["compute_labels"]:
            self.labels_, inertia = nearest_centers(X, centers, w,
                                                    n_threads=values["n_threads"])
            self.inertia_ = self._objective_scale() * inertia
        return self

    def _seed_partial(self, X, w, values):
        """The initial centers from the first batch; counts one each (Alg. 2)."""
        C = check_n_clusters(values["n_clusters"], X)
        init, seed = values["init"], values["random_state"]
        if isinstance(init, str):
            init = _core.resolve_seeding(init, C)
        if not isinstance(init, str):
            centers = seeding_to_core(values, X, C, _core.MbatchKMeansParams())
        elif init == "random":
            centers = X[check_random_state(seed).permutation(X.shape[0])[:C]]
        elif init == "k-means++":
            centers = kmeans_plusplus(X, C, sample_weight=w, random_state=seed,
                                      n_local_trials=values["n_local_trials"],
                                      n_threads=values["n_threads"])[0]
        else:
            centers = afkmc2(X, C, sample_weight=w, random_state=seed,
                             chain_length=values["chain_length"], n_threads=values["n_threads"])[0]
        self.cluster_centers_ = np.ascontiguousarray(centers, dtype=X.dtype)
        self._start_counts(C, X.shape[0])

    def _start_counts(self, C, batch_size):
        """Counts one each (Alg. 2), no step taken yet."""
        self.counts_ = np.ones(C)
        self.n_steps_ = 0
        self.batch_size_ = batch_size
        self.converged_ = False


#: Largest center count the core's step takes (mbatch_step refuses more).
_COUNT_LIMIT = 1e300


def _check_counts(reach, X, detail):
    """Refuse weights whose sums in the centers' counts (up to ``reach``)
    would leave the core's range or overflow with X's values."""
    if not reach < _COUNT_LIMIT:
        raise ValueError(f"sample_weight is too large ({detail}, {reach:.3g} in all): the "
                         f"centers' counts must stay below {_COUNT_LIMIT:.0e}; weights are only "
                         "relative, divide all of them by a large factor.")
    check_weight_total(reach, X, "sample_weight", detail)


@fill_doc
def fit_mbatch(X, C, *, sample_weight=None, return_labels=False, **params):
    """Fit C centers by mini-batch k-means (Sculley's mbatch).

    Parameters
    ----------
    %(fit_function_params)s
    **params
        Every other parameter of :class:`MiniBatchKMeans`, by keyword.

    Returns
    -------
    StochasticKMeansResult
        ``info`` holds ``batch_size``, ``counts`` and ``n_steps``.

    Examples
    --------
    >>> import numpy as np, vcgmm
    >>> X = np.random.default_rng(0).normal(size=(20000, 4))
    >>> r = vcgmm.fit_mbatch(X, 8, batch_size=1000, random_state=0, return_labels=True)
    >>> r.centers.shape, r.labels.shape, int(r.info["counts"].sum()) > 0
    ((8, 4), (20000,), True)
    """
    return fit_function(MiniBatchKMeans, "fit_mbatch", X, C, sample_weight, return_labels,
                        params)


