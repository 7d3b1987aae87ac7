"""What the scikit-learn style estimators share.

:class:`CenterBasedEstimator`: input validation and the methods that need
only the fitted centers. :class:`PipelineEstimator`: the fit through the
core's one-call pipeline (coreset, seeding, iterations, evaluation);
``_fit`` is the one call of a family's core function, for the estimator's
``fit`` and the family's functions (``fit_vcgmm``, ...) alike.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from typing import Optional

import numpy as np
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.utils import check_random_state
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, validate_data

from .._base.nearest import nearest_centers
from .._blocks.approximate import ApproximateIndex, approximate_nearest_centers
from .._blocks.assignment import check_exact
from .._base.inputs import is_chunked, is_dask_array
from .._data.source import as_source
from .._blocks.coreset import resolve_coreset_size
from .._base.docs import fill_doc
from .._base.params import ParamTable
from .._base.logs import progress_callback
from .._base.metric import is_cosine, normalize_rows
from .paper import PaperSettings
from .persistence import add_version, check_version, from_centers, save_model
from .cost import seeding_work, user_stacklevel, warn_if_huge
from .._base.params import INT32_MAX, Boolean, Integer, Options, Param
from .._base.run import run_options, seed_from
from .._blocks.seeding import seeding_to_core
from .._base.validation import (
    check_finite_magnitude,
    check_n_clusters,
    check_sample_weight,
    expand_rows,
    positive_rows,
    friendly_array_errors,
    target_dtypes,
    reject_non_numeric,
)

__all__ = ["CenterBasedEstimator", "PipelineEstimator",
           "COMPUTE_LABELS_PARAM", "LABELS_PARAM", "N_INIT_PARAM", "run_seeds", "as_float"]

def as_float(value):
    """A float, unless the value is a lazy Dask scalar (kept lazy)."""
    return value if is_dask_array(value) else float(value)


class SourceFitResult:
    """The core's result of a fit on a coreset drawn from chunked data, with
    the costs of the chunked passes in its phases: ``coreset`` (both passes,
    reading included) and ``evaluation`` (the pass for labels and inertia, 0
    when lazy), and the inertia of the full data (None when not evaluated; a
    lazy 0-d dask array for Dask data)."""

    def __init__(self, result, draw, inertia, evaluation_evals, evaluation_seconds):
        self._result = result
        self._draw = draw
        self.inertia = inertia
        self._evaluation = (int(evaluation_evals), float(evaluation_seconds))

    def __getattr__(self, name):
        return getattr(self._result, name)

    @property
    def n_distance_evals(self):
        evals = dict(self._result.n_distance_evals)
        evals["coreset"] = self._draw.n_distance_evals
        evals["evaluation"] = self._evaluation[0]
        return evals

    @property
    def timings(self):
        timings = dict(self._result.timings)
        timings["coreset"] = self._draw.seconds
        timings["evaluation"] = self._evaluation[1]
        return timings


class CenterBasedEstimator(PaperSettings, ClassNamePrefixFeaturesOutMixin, TransformerMixin):
    """Mixin for estimators whose model is a set of centers ``cluster_centers_``.

    Input validation (``compute_dtype``: float32, float16 and 8/16-bit
    integers as float32, everything else as float64; C order, finite) and
    ``predict``, ``transform`` and the exact quantization error; these also take chunked data (one pass, results in
    memory) and Dask arrays (lazy). ``get_feature_names_out`` (``"kmeans0"``,
    ...) and ``set_output`` come from ``ClassNamePrefixFeaturesOutMixin``.
    """

    @property
    def _n_features_out(self):
        """Number of output features of ``transform``: one per center."""
        return self.cluster_centers_.shape[0]

    def save(self, path):
        """Save the fitted model to ``path`` as a portable ``.npz`` file.

        The file holds only numbers and strings (no pickle): the class, the
        parameters (JSON), the vcgmm version and the fitted attributes that
        ``predict``, ``transform`` and ``score`` need (centers in the data's
        dtype, ``sigma2_`` for VCGMM, ...), not per-sample results such as
        ``labels_``. It loads with :func:`vcgmm.load` in any Python and any
        later vcgmm version; the format is documented in
        ``vcgmm._estimator.persistence``.

        Parameters
        ----------
        path : str or os.PathLike
            File to write (the name is used as given; ``.npz`` is customary).

        Examples
        --------
        >>> import numpy as np, os, tempfile, vcgmm
        >>> X = np.random.default_rng(0).normal(size=(500, 3))
        >>> km = vcgmm.KMeans(4, random_state=0).fit(X)
        >>> path = os.path.join(tempfile.mkdtemp(), "model.npz")
        >>> km.save(path)
        >>> bool((vcgmm.load(path).predict(X) == km.predict(X)).all())
        True
        """
        save_model(self, path)

    @classmethod
    def from_centers(cls, centers, **params):
        """A fitted estimator whose model is ``centers`` (computed elsewhere).

        ``predict``, ``transform`` and ``score`` work at once; ``fit``
        re-fits as usual (``init`` is not set from ``centers``; pass
        ``init=centers`` for that).

        Parameters
        ----------
        centers : array-like of shape (n_clusters, n_features)
            Finite centers; float32 stays float32, others become float64.
        **params
            Other constructor parameters; the cluster count is the number of
            rows of ``centers``.

        Returns
        -------
        estimator
            Fitted (``cluster_centers_``, ``n_features_in_`` set).

        Examples
        --------
        >>> import numpy as np, vcgmm
        >>> km = vcgmm.KMeans.from_centers([[0.0, 0.0], [10.0, 10.0]])
        >>> km.predict(np.array([[1.0, 2.0], [9.0, 8.0]])).tolist()
        [0, 1]
        """
        return from_centers(cls, centers, cls._count_param, **params)

    def __getstate__(self):
        state = dict(super().__getstate__())
        state.pop("_kept_approximate_index", None)  # rebuilt on the first predict(exact=False)
        return add_version(state)

    def __setstate__(self, state):
        super().__setstate__(check_version(dict(state), type(self).__name__))

    #: why ``fit`` of this family refuses chunked data (None: its fit takes them)
    _in_memory_fit: Optional[str] = None

    def _validate_X(self, X, *, reset, fit=False):
        """X as one validated array; ``fit``: the caller is this estimator's fit."""
        if is_chunked(X):
            if fit and self._in_memory_fit:
                raise TypeError(f"{type(self).__name__}.fit needs X in memory as one array: "
                                f"{self._in_memory_fit} Pass np.asarray(X) (or X.compute()) if "
                                "it fits in memory.")
            raise TypeError(
                "this method needs X in memory as one array; it does not take chunked or "
                "Dask data (fit, predict and transform do). Pass np.asarray(X) (or "
                "X.compute()) if it fits in memory.")
        reject_non_numeric(X, "X")
        with friendly_array_errors("X"):
            X = validate_data(
                self,
                X,
                accept_sparse=False,
                dtype=target_dtypes(X),
                order="C",
                reset=reset,
                ensure_all_finite=False,
            )
        X = check_finite_magnitude(X, "X")
        # metric="cosine": new data are normalised here; training data in
        # PipelineEstimator._fit (the one path of fit and the functions).
        return normalize_rows(X, "X") if is_cosine(self) and not reset else X

    #: True for families whose centers are means that metric="cosine" keeps at
    #: unit length (spherical k-means): their objective is then reported as
    #: sum w (1 - cos), half the squared distance between unit vectors.
    _spherical_centers = False

    def _objective_scale(self):
        return 0.5 if self._spherical_centers and is_cosine(self) else 1.0

    @staticmethod
    def _set_spherical(params):
        """Turns on the family's spherical center updates in its core params
        (``metric="cosine"``); Lloyd's by default."""
        params.lloyd.spherical = True

    def _centers_like(self, X):
        """The fitted centers in X's dtype, C-contiguous."""
        return np.ascontiguousarray(self.cluster_centers_, dtype=X.dtype)

    @fill_doc
    def fit_predict(self, X, y=None, sample_weight=None):
        """Fit and return ``labels_`` (the nearest center of every training sample).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        %(y)s
        sample_weight : array-like of shape (n_samples,), default=None
            %(sample_weight)s

        Returns
        -------
        labels : ndarray of shape (n_samples,), dtype int32
        """
        return self.fit(X, sample_weight=sample_weight).labels_

    def predict(self, X, exact=True):
        """Index of the nearest center of each sample (exact, ties: lowest index).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data.
        exact : bool, default=True
            True: the exact blocked scan over all centers (O(n C d)). False:
            :func:`vcgmm.assign_approximate` with its defaults, faster at
            large C (see the performance page); a few labels may be a
            near-nearest center. X must then be one array; the index over the
            centers is kept between calls (rebuilt when the centers change).

        Returns
        -------
        labels : ndarray of shape (n_samples,), dtype int32
        """
        check_is_fitted(self, "cluster_centers_")
        exact = check_exact(exact)
        source = self._source(X)
        if source is not None:
            if not exact:
                raise ValueError("predict(exact=False) takes X as one array, not chunked or "
                                 "Dask data.")
            if is_dask_array(X):
                return source.labels(self.cluster_centers_)
            return source.nearest(self.cluster_centers_, labels=True, n_threads=self.n_threads)[0]
        X = self._validate_X(X, reset=False)
        if not exact:
            return approximate_nearest_centers(X, None, n_threads=self.n_threads,
                                               index=self._approximate_index())[0]
        return nearest_centers(X, self._centers_like(X), n_threads=self.n_threads)[0]

    def _approximate_index(self):
        """The ApproximateIndex over ``cluster_centers_`` that predict(X,
        exact=False) keeps between calls (rebuilt when the centers changed:
        a new fit, or centers set by hand; never pickled)."""
        index = self.__dict__.get("_kept_approximate_index")
        if index is None or not index.matches(self.cluster_centers_):
            index = ApproximateIndex(self.cluster_centers_, n_threads=self.n_threads)
            self.__dict__["_kept_approximate_index"] = index
        return index

    def transform(self, X):
        """Distances of each sample to every center: Euclidean, or with
        ``metric="cosine"`` (k-means) the cosine distance ``1 - cos``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data.

        Returns
        -------
        distances : ndarray of shape (n_samples, n_clusters)
        """
        check_is_fitted(self, "cluster_centers_")
        source = self._source(X)
        if source is not None:
            if is_dask_array(X):
                return source.transform(self.cluster_centers_)
            C = self.cluster_centers_.shape[0]
            return source.map_chunks(
                lambda chunk: euclidean_distances(chunk, self._centers_like(chunk))
                if chunk.shape[0] else np.empty((0, C), chunk.dtype))
        X = self._validate_X(X, reset=False)
        centers = self._centers_like(X)
        if self._objective_scale() != 1.0:  # unit rows and unit centers
            return np.clip(1.0 - X @ centers.T, 0.0, 2.0)
        return euclidean_distances(X, centers)

    def _training_input(self, X, sample_weight):
        """``(X, sample_weight, source)`` for ``fit``: chunked or Dask X becomes
        its chunk source (the weights travel inside it); one array is
        validated (``reset=True``) and ``source`` is None."""
        source = as_source(X, sample_weight)
        if source is None:
            return self._validate_X(X, reset=True), sample_weight, None
        return source, None, source

    def _source(self, X, sample_weight=None):
        """The chunk source of chunked/Dask X, checked against the fitted
        width; None for one array."""
        source = as_source(X, sample_weight)
        if source is not None:
            if is_cosine(self):
                source.use_unit_rows()
            expected = getattr(self, "n_features_in_", None)
            if source.n_features is None:
                source.n_features = expected  # checked chunk by chunk as they are read
                source.width_from = f"{type(self).__name__} was fitted on"
            elif expected is not None and source.n_features != expected:
                raise ValueError(f"X has {source.n_features} features, but "
                                 f"{type(self).__name__} is expecting {expected} features "
                                 "as input.")
        return source

    def _quantization_error(self, X, sample_weight):
        source = self._source(X, sample_weight)
        if source is not None:
            return source.nearest(self.cluster_centers_, labels=False,
                                  n_threads=self.n_threads)[1]
        return self._objective_scale() * nearest_centers(
            X, self._centers_like(X), sample_weight, n_threads=self.n_threads, labels=False)[1]


class _FromTrainingData:
    """``labels_`` / ``inertia_`` of a fit with ``compute_labels=False``,
    computed on first access. A non-data descriptor: the instance attribute
    set by ``fit`` or by the first access shadows it."""

    def __init__(self, doc):
        self.__doc__ = doc

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        obj._evaluate_training_data()
        return obj.__dict__[self.name]


#: The parameter ``compute_labels`` of every pipeline estimator.
COMPUTE_LABELS_PARAM: Param = Param(
    "compute_labels", Boolean(), True,
    "compute labels_ and inertia_ on the full training data at the end of fit "
    "(False: on first access)", target=None, cli=None)

#: The parameter ``labels`` of KMeans and VCGMM: how the fit's own labels_
#: and inertia_ are computed.
LABELS_PARAM: Param = Param(
    "labels", Options(("exact", "approx")), "exact",
    "how labels_ and inertia_ are computed: 'exact' (one scan over all centers) or 'approx' "
    "(assign_approximate; inertia_ is then the quantization error of those labels)",
    target=None, cli=None)

#: The parameter ``n_init`` of every pipeline estimator.
N_INIT_PARAM: Param = Param(
    "n_init", Integer(1, INT32_MAX), 1,
    "number of runs with different seeds; the best by the full-data objective is kept",
    target=None, cli=None)


def run_seeds(random_state, n_init):
    """The core seeds of ``n_init`` runs, drawn one after the other from
    ``random_state`` (the first is the seed of a single run, so run 0 of
    ``n_init`` runs is the fit ``n_init=1`` gives)."""
    rng = check_random_state(random_state)
    return [seed_from(rng) for _ in range(n_init)]


@dataclass
class _Run:
    """One run of a family's pipeline: the core's outputs, and the objective
    (lower is better) it is ranked by when there are several runs."""

    result: object
    centers: np.ndarray
    labels: Optional[np.ndarray]
    coreset_indices: Optional[np.ndarray]
    coreset_weights: Optional[np.ndarray]
    objective: float = float("nan")


@dataclass
class _TrainingData:
    """What a fit with ``compute_labels=False`` keeps for the first access:
    the training data by reference (array or chunk source), their weights,
    and the fit's ``metric="cosine"`` flag and objective scale."""

    X: object
    w: Optional[np.ndarray]
    cosine: bool
    scale: float
    approx: bool = False


class PipelineEstimator(CenterBasedEstimator):
    """Base of the estimators that run a core pipeline.

    Subclasses set ``_params`` (the family's ParamTable, whose names are the
    ``__init__`` parameters), ``_count_param`` (``"n_clusters"`` or
    ``"n_components"``), ``_core_fit`` (the family's core function,
    ``(X, sample_weight, init_centers, params, return_labels)`` ->
    ``(result, centers, labels, coreset_indices, coreset_weights)``) and
    ``_rank_run`` (the objective ``n_init`` runs are ranked by).
    """

    _params: ParamTable  # set by every subclass
    _count_param = "n_clusters"
    #: fit streams chunked data without a coreset (MiniBatchKMeans)
    _streams_chunks = False

    labels_ = _FromTrainingData("Nearest center of every training sample.")
    inertia_ = _FromTrainingData("Weighted quantization error of the training data.")

    @staticmethod
    def _core_fit(X, sample_weight, init_centers, params, return_labels):  # pragma: no cover
        raise NotImplementedError

    def _exact_labels_at_fit(self):
        """Whether the core computes the exact ``labels_`` and ``inertia_`` in
        ``fit`` (``compute_labels=True`` and ``labels="exact"``); otherwise
        ``_set_evaluation`` arranges them."""
        return (self._params.check("compute_labels", self.compute_labels)
                and self._params.check("labels", self.labels) == "exact")

    def _checked_params(self):
        """Every parameter of the estimator, validated by the family's table."""
        table = self._params
        return table.validate({name: getattr(self, name) for name in table.names()})

    def _fit(self, X, sample_weight=None, *, return_labels=True, evaluate=True):
        """Runs the family's pipeline ``n_init`` times on validated X
        (float32/float64, C order) and keeps the best run.

        Returns ``(values, run, w, n_distance_evals, timings)``: the validated
        parameters, the best :class:`_Run`, the validated weights and the
        costs summed over all runs (the ranking of several runs counted as
        ``evaluation``). X may also be a chunk source (chunked or Dask data,
        see ``_fit_source``; same return shape, ``w`` None).
        """
        if not isinstance(X, np.ndarray):
            return self._fit_source(X, return_labels=return_labels, evaluate=evaluate)
        values = self._checked_params()
        if is_cosine(values):
            X = normalize_rows(X, "X")
        n_clusters = check_n_clusters(values[self._count_param], X, self._count_param)
        # A point of weight 0 does not exist: the core fits the other rows.
        w = check_sample_weight(sample_weight, X)
        n_all = X.shape[0]
        X_all = X
        X, w_fit, keep = positive_rows(X, w, n_clusters, what=self._count_param)
        params = self._params.to_core(values)
        params.coreset_size = resolve_coreset_size(values["coreset_size"], X.shape[0], n_clusters)
        self._check_sizes(values, params.coreset_size or X.shape[0], n_clusters)
        if w_fit is not None:
            self._check_weights(values, X, w_fit, params.coreset_size or X.shape[0])
        init_centers = seeding_to_core(values, X, n_clusters, params)
        if self._spherical_centers and is_cosine(values):
            self._set_spherical(params)
        n_init = values.get("n_init", 1)
        if n_init > 1 and init_centers is not None and not self._runs_differ(params):
            warnings.warn(
                f"Explicit initial centers (init=array) and coreset_size=None: every run "
                f"would give the same result, so only one is performed instead of "
                f"n_init={n_init}.", RuntimeWarning, stacklevel=user_stacklevel())
            n_init = 1
        seeds = run_seeds(values["random_state"], n_init)
        params.run = run_options(values["n_threads"], 0, values["verbose"], values["callback"])
        self._warn_if_huge(X, params)
        costs = {"n_distance_evals": None, "timings": None}
        best = None
        if n_init > 1 and not self._rank_needs_evaluation:
            # Runs ranked without the core's evaluation: labels of the best
            # run only, afterwards (by the caller).
            return_labels = evaluate = False
        params.evaluate = bool(evaluate) or (n_init > 1 and self._rank_needs_evaluation)
        for seed in seeds:
            params.run.seed = seed
            run = _Run(*type(self)._core_fit(X, w_fit, init_centers, params,
                                              bool(return_labels)))
            _add_costs(costs, run.result.n_distance_evals, run.result.timings)
            if n_init > 1:
                start = time.perf_counter()
                run.objective = self._rank_run(X, w_fit, run, values)
                _add_costs(costs, {"evaluation": self._rank_evals(X, run)},
                           {"evaluation": time.perf_counter() - start})
                if best is None or run.objective < best.objective:
                    best = run
            else:
                best = run
        if keep is not None:
            self._expand_run(best, keep, X_all, n_all)
        return values, best, w, costs["n_distance_evals"], costs["timings"]

    def _expand_run(self, run, keep, X_all, n_all):
        """Maps a run on the positive-weight rows ``keep`` back to all n_all
        rows of X_all (as the core saw them, e.g. normalised): drawn rows
        become rows of X_all, and the zero-weight rows are labelled with
        their nearest center (as scikit-learn does; one pass over them, not
        counted in the objective)."""
        if run.coreset_indices is not None:
            run.coreset_indices = keep[run.coreset_indices]
        if run.labels is not None:
            mask = np.ones(n_all, dtype=bool)
            mask[keep] = False
            rows = np.ascontiguousarray(X_all[mask])
            fill, _ = nearest_centers(rows, run.centers.astype(rows.dtype, copy=False), None,
                                      n_threads=self.n_threads)
            run.labels = expand_rows(run.labels, keep, n_all, fill)

    # Ranking of n_init runs (lower objective is better); per family.
    _rank_needs_evaluation = False

    def _runs_differ(self, params):
        """Whether runs from the same given initial centers differ (they do
        with a coreset: each run draws its own)."""
        return params.coreset_size > 0

    def _rank_run(self, X, w, run, values):  # pragma: no cover - per family
        raise NotImplementedError

    def _rank_evals(self, X, run):
        """Distance evaluations of _rank_run beyond the core's own (0 when it
        reads the core's evaluation)."""
        return 0

    def _set_evaluation(self, X, w, run, values, n_distance_evals, timings):
        """Sets ``labels_`` and ``inertia_`` from the run (or, with
        ``compute_labels=False``, arranges their computation on first access),
        and the cost attributes. X is the training data as the caller passed
        them to ``_fit`` (before the rows are normalised for
        ``metric="cosine"``) or a chunk source; ``inertia_`` is in the
        family's objective (``_objective_scale``)."""
        for name in ("labels_", "inertia_"):
            self.__dict__.pop(name, None)
        self._training_data = None
        self.n_distance_evals_ = n_distance_evals
        self.timings_ = timings
        scale = self._objective_scale()
        inertia = run.result.inertia
        approx = values.get("labels") == "approx"
        # (with labels="approx", inertia_ is that of the approximate labels,
        # even when the core evaluated the runs exactly to rank them)
        known = not approx and inertia is not None and (
            is_dask_array(inertia) or not np.isnan(inertia))
        if not values["compute_labels"] or run.labels is None or approx:
            # Kept by reference (no copy): with metric="cosine" the rows are
            # normalised again on first access, not kept normalised.
            self._training_data = _TrainingData(X, w, is_cosine(values), scale, approx)
            if known:
                self.inertia_ = scale * self._inertia_now(inertia, None)
            if values["compute_labels"]:  # several runs ranked without labels: one pass now
                self._evaluate_training_data()
            return
        self.labels_ = run.labels
        self.inertia_ = scale * self._inertia_now(inertia, run.labels)

    def _inertia_now(self, inertia, labels):
        """``inertia_`` is a float, as scikit-learn's: the lazy 0-d result of
        Dask data is computed here (one pass over the blocks; its time and
        distance evaluations go to the ``evaluation`` phase), while
        ``labels_`` stays lazy."""
        if not is_dask_array(inertia):
            return float(inertia)
        start = time.perf_counter()
        value = float(inertia.compute())
        timings = dict(self.timings_)
        timings["evaluation"] = timings.get("evaluation", 0.0) + time.perf_counter() - start
        self.timings_ = timings
        if labels is not None and not np.isnan(labels.shape[0]):
            evals = dict(self.n_distance_evals_)
            evals["evaluation"] = (evals.get("evaluation", 0)
                                   + int(labels.shape[0]) * self.cluster_centers_.shape[0])
            self.n_distance_evals_ = evals
        return value

    def _evaluate_training_data(self):
        """Computes ``labels_`` and ``inertia_`` from the training data kept by
        a fit with ``compute_labels=False`` (first access) or ``labels="approx"``:
        one exact pass, over the chunks again for chunked data (lazy for Dask
        data), or with ``labels="approx"`` one approximate assignment (X in
        memory only; ``inertia_`` is then the quantization error of its labels)."""
        check_is_fitted(self, "cluster_centers_")
        data = self.__dict__.get("_training_data")
        if data is None:
            raise AttributeError(
                f"This {type(self).__name__} has no labels_ or inertia_: it was fitted with "
                "compute_labels=False and its training data are no longer available (a "
                "pickled, saved or from_centers model). Use predict(X) and score(X).")
        X, w, cosine, scale = data.X, data.w, data.cosine, data.scale
        C = self.cluster_centers_.shape[0]
        start = time.perf_counter()
        if isinstance(X, np.ndarray):
            rows = normalize_rows(X, "X") if cosine else X
            if data.approx:
                labels, _, info = approximate_nearest_centers(
                    rows, self._centers_like(rows), w, n_threads=self.n_threads)
                inertia, evals = info["objective"], info["n_distance_evals"]
            else:
                labels, inertia = nearest_centers(rows, self._centers_like(rows), w,
                                                  n_threads=self.n_threads)
                evals = X.shape[0] * C
        else:  # a chunk source: one more pass over the chunks (nothing computed for Dask)
            labels, inertia, _ = X.nearest(self.cluster_centers_, labels=True,
                                           n_threads=self.n_threads)
            evals = 0 if is_dask_array(inertia) else int(labels.shape[0]) * C
        seconds = time.perf_counter() - start
        self.__dict__["labels_"] = labels
        if "inertia_" not in self.__dict__:
            self.__dict__["inertia_"] = scale * self._inertia_now(inertia, labels)
        self._training_data = None
        evals_ = dict(self.n_distance_evals_)
        evals_["evaluation"] = evals_.get("evaluation", 0) + evals
        self.n_distance_evals_ = evals_
        timings = dict(self.timings_)
        timings["evaluation"] = timings.get("evaluation", 0.0) + seconds
        self.timings_ = timings
        if isinstance(labels, np.ndarray):  # not when lazy (Dask)
            self._after_evaluation(labels)

    def _after_evaluation(self, labels):
        """Hook: checks on the labels once they exist."""

    def __getstate__(self):
        state = dict(super().__getstate__())
        state.pop("_training_data", None)  # never pickle the training data
        return state

    def _check_sizes(self, values, n_fit, n_clusters):
        """Checks of parameters against the points fitted (``n_fit``: the
        samples, or the coreset size), raising ValueError naming the
        parameter; none by default (e.g. a batch size at most n_fit)."""

    def _check_weights(self, values, X, w, n_fit):
        """Checks of the positive weights ``w`` of X beyond
        ``check_sample_weight``'s (e.g. sums a fit repeats), raising
        ValueError naming sample_weight; none by default."""

    def _source_params(self, values, source):
        """The core params of a fit on chunked data (one run: ``n_init > 1`` is
        refused; ``metric="cosine"`` normalises each chunk as it is read)."""
        if values.get("n_init", 1) > 1:
            raise ValueError(
                f"n_init={values['n_init']}: chunked and Dask data are fitted once (every "
                "run would read the chunks again, and once more to be ranked); pass n_init=1, "
                "or X in memory as one array.")
        params = self._params.to_core(values)
        if is_cosine(values):  # each chunk normalised as it is read, as X is in memory
            source.use_unit_rows()
            if self._spherical_centers:
                self._set_spherical(params)
        params.run = run_options(values["n_threads"], values["random_state"], values["verbose"],
                                 values["callback"])
        return params

    def _fit_source(self, source, *, return_labels, evaluate):
        """The fit on chunked data: the chunked coreset (two passes), then the
        family's pipeline on the coreset in memory (seeded like the one-array
        pipeline after its coreset), then, when asked, one more pass for the
        labels and the quantization error of the full data (lazy for Dask).

        Returns what ``_fit`` returns (``w`` None: the source holds the
        weights). One run only: ``n_init > 1`` is refused (ValueError)."""
        values = self._checked_params()
        count = values[self._count_param]
        if values["coreset_size"] is None:
            raise ValueError(
                "coreset_size=None fits on all points, which needs X in memory as one array; "
                "chunked and Dask data are fitted on a coreset: pass coreset_size='auto' or an "
                "integer.")
        if values.get("labels") == "approx":
            raise ValueError(
                "labels='approx' labels X in memory as one array (as predict(X, exact=False) "
                "does); chunked and Dask data are labelled exactly: pass labels='exact'.")
        params = self._source_params(values, source)
        draw = source.coreset(
            values["coreset_size"], params.run, n_clusters=count, verbose=values["verbose"],
            resolve=lambda m, n: resolve_coreset_size(m, n, count))
        X = draw.points
        self._check_sizes(values, X.shape[0], count)
        log = progress_callback(values["verbose"])
        if log:
            log(f"fit on the coreset ({X.shape[0]:,} weighted points drawn from the chunks; "
                "below, the core reports it as a fit on given points)")
        params.coreset_size = 0  # the coreset is drawn: fit on it
        init_centers = seeding_to_core(values, X, count, params)
        params.evaluate = False
        r, centers = type(self)._core_fit(X, draw.weights, init_centers, params, False)[:2]
        labels, inertia, seconds, evals = None, None, 0.0, 0
        if evaluate or return_labels:
            labels, inertia, seconds = source.nearest(
                centers, labels=return_labels, n_threads=values["n_threads"],
                verbose=values["verbose"])
            evals = 0 if is_dask_array(inertia) else draw.n_samples * count
        result = SourceFitResult(r, draw, inertia, evals, seconds)
        self._source_n_features = draw.n_features
        run = _Run(result, centers, labels, draw.indices, draw.weights)
        return values, run, None, result.n_distance_evals, result.timings

    def _work_estimate(self, n_samples, n_features, params):
        """(distance evaluations before the first iteration, per iteration,
        hint, flops): the family's cost model, for the warning on absurd
        sizes; flops is a lower bound on their arithmetic."""
        m = params.coreset_size
        fit_n = m or n_samples
        coreset_pass = n_samples if m else 0
        seeding, seeding_flops = seeding_work(fit_n, n_features, params)
        per_iter = self._iteration_evals(fit_n, params)
        flops = 2.0 * n_features * (coreset_pass + per_iter) + seeding_flops
        return coreset_pass + seeding, per_iter, (
            "use a coreset (coreset_size='auto'), init='afk-mc2', or fewer clusters"), flops

    def _iteration_evals(self, fit_n, params):  # pragma: no cover - per family
        raise NotImplementedError

    def _warn_if_huge(self, X, params):
        """Warn before a fit that needs more than an hour (the family's cost
        model: seeding plus one iteration; more iterations only add)."""
        setup, per_iter, hint, flops = self._work_estimate(X.shape[0], X.shape[1], params)
        warn_if_huge("distance evaluations", setup, per_iter, X.shape[1], flops, hint)


@fill_doc
def kmeans_score(self, X, y=None, sample_weight=None):
    """Opposite of the quantization error of X (higher is better).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data.
    %(y)s
    sample_weight : array-like of shape (n_samples,), default=None
        %(sample_weight_score)s

    Returns
    -------
    score : float
        ``-sum_n w_n min_c ||x_n - c||^2``.
    """
    check_is_fitted(self, "cluster_centers_")
    if as_source(X) is None:
        X = self._validate_X(X, reset=False)
        sample_weight = check_sample_weight(sample_weight, X)
    q = self._quantization_error(X, sample_weight)
    return -float(q.compute() if is_dask_array(q) else q)  # Dask data: one pass now


#: Why an algorithm that moves empty clusters (Lloyd) ends with fewer clusters.
TOO_FEW_DISTINCT_POINTS = ("the data have too few distinct points, so some centers coincide "
                           "or hold no points.")


def warn_distinct_clusters(labels, n_clusters, cause=TOO_FEW_DISTINCT_POINTS):
    """ConvergenceWarning when fewer than n_clusters distinct labels were found;
    ``cause`` is the family's explanation."""
    n_distinct = np.unique(labels).shape[0]
    if n_distinct < n_clusters:
        warnings.warn(
            f"Number of distinct clusters ({n_distinct}) found smaller than "
            f"n_clusters ({n_clusters}): {cause}",
            ConvergenceWarning,
            stacklevel=user_stacklevel(),
        )


def _add_costs(costs, n_distance_evals, timings):
    """Adds one run's (or step's) costs per phase into ``costs`` (the phases
    are those of the family's core result, in its order)."""
    if costs["n_distance_evals"] is None:
        costs["n_distance_evals"] = {}
        costs["timings"] = {}
    for phase, v in n_distance_evals.items():
        costs["n_distance_evals"][phase] = costs["n_distance_evals"].get(phase, 0) + int(v)
    for phase, v in timings.items():
        costs["timings"][phase] = costs["timings"].get(phase, 0.0) + float(v)
