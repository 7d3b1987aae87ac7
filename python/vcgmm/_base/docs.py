"""Docstring text that several estimators and functions share, written once.

The model is scipy's ``scipy._lib.doccer``: a docstring names a shared entry
by a placeholder ``%(name)s`` alone on its line, and the decorator
:func:`fill_doc` replaces that line with the entry, indented as the
placeholder was (so the numpydoc sections stay well formed). Only such
whole-line placeholders are touched: the rest of a docstring, with its ``%``
and ``{}`` characters, is left as it is. An unknown name, or a ``%(name)s``
token anywhere but alone on a line, raises ValueError when the module
defining the object is imported.

Entries come in two kinds:

- a description (:class:`_Text`, or :class:`_FromHelp`): the text under a
  parameter's ``name : type`` line, wrapped to the placeholder's
  indentation. A :class:`_FromHelp` entry starts with the parameter's
  ``help`` in its family's :class:`~vcgmm._base.params.ParamTable` (the
  decorated class's own ``_params`` when it has the parameter, else the
  table named in the entry), so the table stays the one source of that
  sentence; the entry adds what the one-line help leaves out;
- whole entries (:class:`_Entries`): numpydoc entries with their name
  lines, for runs of parameters that several docstrings list alike.
"""

from __future__ import annotations

import importlib
import re
import textwrap

from .loader import core

__all__ = ["fill_doc", "fill", "DOCDICT"]

_PLACEHOLDER = re.compile(r"^(?P<indent>[ \t]*)%\((?P<name>\w+)\)s[ \t]*$", re.MULTILINE)
_TOKEN = re.compile(r"%\(\w+\)s")
#: Width of the wrapped descriptions, indentation included.
_WIDTH = 79


class _Text(str):
    """A description: one paragraph, wrapped where it is placed."""


class _FromHelp:
    """A description whose first sentence is a parameter's table ``help``.

    ``source`` is ``(module, attribute, *args)``: the module (relative to
    this package), the attribute holding the parameter (a ParamTable, a
    tuple of Params, a Param, or a function returning one, called with
    ``args``), used where the decorated object has no table with the
    parameter.
    """

    def __init__(self, param, source, details=""):
        self.param = param
        self.source = source
        self.details = details

    def text(self, table=None):
        if table is not None and self.param in table:
            help_text = table[self.param].help
        else:
            help_text = _lookup(self.param, *self.source).help
        return _Text(" ".join(s for s in (_sentence(help_text), self.details) if s))


class _Entries:
    """Whole numpydoc entries, placed line by line: ``(name line,
    description)`` pairs (a description is a text or the name of a
    description in :data:`DOCDICT`), or names of other :class:`_Entries`."""

    def __init__(self, *entries):
        self.entries = entries

    def lines(self, table, indent):
        for entry in self.entries:
            if isinstance(entry, str):
                yield from DOCDICT[entry].lines(table, indent)
                continue
            name_line, description = entry
            yield indent + name_line
            yield from _wrap(_description(description, table), indent + "    ").splitlines()


def _description(entry, table):
    """The text of a description entry (a text, or a name in DOCDICT)."""
    if not isinstance(entry, (_Text, _FromHelp)):
        entry = DOCDICT[entry]
    return entry.text(table) if isinstance(entry, _FromHelp) else entry


def _wrap(text, indent):
    return textwrap.fill(text, width=max(_WIDTH, len(indent) + 40), initial_indent=indent,
                         subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False)


def _lookup(name, module, attribute, *args):
    """The Param ``name`` held by ``module.attribute`` (see :class:`_FromHelp`)."""
    obj = getattr(importlib.import_module(module, __package__), attribute)
    if callable(obj) and not hasattr(obj, "help"):
        obj = obj(*args)
    if hasattr(obj, "help"):
        return obj
    for param in obj:
        if param.name == name:
            return param
    raise KeyError(f"no parameter {name!r} in {module}.{attribute}")


def _sentence(help_text):
    """A table's help (command-line style) as a docstring sentence: capital
    first letter, final period, ``'word'`` and ``attr_`` as literals."""
    text = re.sub(r"(?<![\w`])'([^'\s]+)'(?!\w)", r'``"\1"``', help_text.strip())
    text = re.sub(r"(?<![\w`])([A-Za-z]\w*_)(?=[\s,.;:)]|$)", r"``\1``", text)
    text = text[:1].upper() + text[1:]
    return text if text.endswith(".") else text + "."


_RUN_PARAMS = (".run", "RUN_PARAMS")
_SEEDING_PARAMS = (".._blocks.seeding", "SEEDING_PARAMS")
_ESTIMATOR = ".._estimator.base"
_RUN_0 = ("Run 0 is the ``n_init=1`` fit (the seeds are drawn in turn from "
          "``random_state``).")
_X_TRAIN = ("Training data. float32 stays float32, float16 and 8/16-bit integers become "
            "float32, other numbers float64; "
            "C-contiguous float arrays (and memory maps) are used without a copy.")

#: The shared entries, by placeholder name.
DOCDICT = {
    # -- descriptions whose first sentence is the table's help -----------------
    "n_init": _FromHelp("n_init", (_ESTIMATOR, "N_INIT_PARAM"), _RUN_0 + (
        " Each extra run costs a whole fit plus one exact pass over the "
        "training data.")),
    "n_init_stochastic": _FromHelp("n_init", (_ESTIMATOR, "N_INIT_PARAM"), _RUN_0 + (
        " Each extra run costs a whole fit plus one exact pass over the "
        "training data; runs differ even from the same initial centers.")),
    "n_init_mixture": _FromHelp("n_init", (_ESTIMATOR, "N_INIT_PARAM"), _RUN_0 + (
        " Runs are ranked by the exact log-likelihood (one O(n_samples "
        "n_components n_features) pass each), not by their coresets' free "
        "energies.")),
    "compute_labels": _FromHelp("compute_labels", (_ESTIMATOR, "COMPUTE_LABELS_PARAM"), (
        "The exact pass is the ``evaluation`` phase. False keeps a reference to "
        "the training data (no copy) until then (chunked data are read again, "
        "Dask gives lazy arrays); pickling or saving drops it. As "
        "scikit-learn's ``MiniBatchKMeans(compute_labels=...)``.")),
    "compute_labels_after": _FromHelp(
        "compute_labels", (".._stochastic.base", "STOCHASTIC_COMPUTE_LABELS"), (
            "One pass, reported as the ``evaluation`` phase; False: both are None "
            "(scikit-learn's ``MiniBatchKMeans`` convention).")),
    "labels": _FromHelp("labels", (_ESTIMATOR, "LABELS_PARAM"), (
        "``\"approx\"`` is faster than the exact scan at large C (see the "
        "performance page) and its ``inertia_`` never below the exact one; it "
        "needs X in memory (chunked and Dask data: ValueError). The fitted "
        "centers do not depend on it.")),
    "metric_spherical": _FromHelp("metric", (".metric", "metric_param"), (
        "``\"cosine\"`` is spherical k-means (Dhillon & Modha, 2001): rows of "
        "norm zero are refused, centers are rescaled to unit length after every "
        "update, the objectives (``inertia_``, ``objective_``, ``score``) are "
        "``sum_n w_n (1 - cos(x_n, c))`` and ``transform`` gives ``1 - cos``. "
        "Chunked and Dask data are scaled to unit rows chunk by chunk as they are "
        "read.")),
    "coreset_size": _FromHelp(
        "coreset_size", (".._blocks.coreset", "coreset_size_param", None), (
            "A lightweight coreset of N' weighted points, C <= N' <= 4 n_samples "
            "(see :func:`vcgmm.default_coreset_size`).")),
    "chain_length": _FromHelp("chain_length", _SEEDING_PARAMS,
                              "At most 10000; used when the seeding is AFK-MC^2."),
    "n_local_trials": _FromHelp("n_local_trials", _SEEDING_PARAMS,
                                "At most 1000; used when the seeding is k-means++."),
    "n_threads": _FromHelp("n_threads", _RUN_PARAMS, "None or -1 select that default."),
    "random_state": _FromHelp("random_state", _RUN_PARAMS, (
        "It seeds every random draw of the call; an integer gives the same "
        "result on every run.")),
    "verbose": _FromHelp("verbose", _RUN_PARAMS),
    "callback": _FromHelp("callback", _RUN_PARAMS, (
        "It receives a :class:`vcgmm.ProgressRecord` (phase, iteration, "
        "objective, seconds, distance evaluations), on the calling thread; after "
        "a True the fit completes with the iterations done (``converged_`` "
        "False). Exceptions it raises propagate out of ``fit``.")),
    # -- descriptions ------------------------------------------------------------
    "sample_weight": _Text(
        "Non-negative weights; None means all ones. A point of weight 0 does not "
        "exist for the fit (the result is that of the fit without it) but is "
        "still labelled with its nearest center; at least as many weights as "
        "clusters must be positive."),
    "sample_weight_score": _Text(
        "Non-negative weights; None means all ones (a point of weight 0 adds "
        "nothing)."),
    "sample_weight_draws": _Text(
        "Non-negative weights; None means all ones. A row of weight 0 is never "
        "chosen (the draws are those without it; indices are rows of X); at "
        "least n_clusters weights must be positive."),
    "return_labels": _Text(
        "Also compute the exact nearest center of every row of X and the "
        "quantization error on the full data (one O(n_samples C n_features) "
        "pass, reported as the ``evaluation`` phase)."),
    "X_train": _Text(_X_TRAIN),
    "init_auto": _Text(
        f'"auto": k-means++ up to {core.AUTO_SEEDING_MAX_CLUSTERS} clusters, AFK-MC^2 above.'),
    "X_chunked": _Text(
        _X_TRAIN + " Chunked data (lists of arrays or ``.npy`` paths, chunk "
        "functions, zarr or Dask arrays) are fitted on a coreset drawn in two "
        "passes and read once more for ``labels_`` and ``inertia_``."),
    # -- whole entries -------------------------------------------------------------
    "y": _Entries(("y : Ignored", _Text("Not used, present for API consistency."))),
    "run_params": _Entries(
        ("n_threads : int or None, default=None", "n_threads"),
        ("random_state : int, RandomState instance or None, default=None", "random_state"),
        ("verbose : bool, default=False", "verbose"),
        ("callback : callable or None, default=None", "callback")),
    "stochastic_params": _Entries(
        ("n_init : int, default=1", "n_init_stochastic"),
        ("compute_labels : bool, default=True", "compute_labels_after"),
        ('coreset_size : int, "auto" or None, default=None', "coreset_size"),
        ("chain_length : int, default=20", "chain_length"),
        ('n_local_trials : int or "auto", default="auto"', "n_local_trials"),
        "run_params"),
    "fit_params": _Entries(
        ("X : array-like of shape (n_samples, n_features), or chunked data", "X_chunked"),
        "y",
        ("sample_weight : array-like of shape (n_samples,), default=None", "sample_weight")),
    "fit_params_coreset": _Entries(
        ("X : array-like of shape (n_samples, n_features), or chunked data", _Text(
            _X_TRAIN + " Chunked data (lists of arrays or ``.npy`` paths, chunk "
            "functions, zarr or Dask arrays) need ``coreset_size``: they are "
            "fitted on a coreset drawn in two passes and read once more for "
            "``labels_`` and ``inertia_``.")),
        "y",
        ("sample_weight : array-like of shape (n_samples,), default=None", "sample_weight")),
    "fit_params_in_memory": _Entries(
        ("X : array-like of shape (n_samples, n_features)", "X_train"),
        "y",
        ("sample_weight : array-like of shape (n_samples,), default=None", "sample_weight")),
    "fit_function_params": _Entries(
        ("X : array-like of shape (n_samples, n_features)",
         _Text("Data. float32 stays float32, float16 and 8/16-bit integers become "
               "float32, other numbers float64.")),
        ("C : int", _Text("Number of clusters, 1 <= C <= n_samples.")),
        ("sample_weight : array-like of shape (n_samples,), default=None", "sample_weight"),
        ("return_labels : bool, default=False", "return_labels")),
    "X_centers": _Entries(
        ("X : array-like of shape (n_samples, n_features)", _Text("Data.")),
        ("centers : array-like of shape (n_clusters, n_features)",
         _Text("Cluster centers (converted to X's dtype)."))),
    "dask_X_centers": _Entries(
        ("X : dask.array.Array of shape (n_samples, n_features)", _Text("Data.")),
        ("centers : array-like of shape (n_clusters, n_features)",
         _Text("Cluster centers."))),
    "draw_params": _Entries(
        ("random_state : int, RandomState instance or None, default=None", "random_state"),
        ("n_threads : int, default=None", "n_threads")),
    "seeding_returns": _Entries(
        ("centers : ndarray of shape (n_clusters, n_features)",
         _Text("The chosen rows of X (X's dtype).")),
        ("indices : ndarray of shape (n_clusters,), dtype int64",
         _Text("Their row indices."))),
    "stochastic_attributes": _Entries(
        ("cluster_centers_ : ndarray of shape (n_clusters, n_features)",
         _Text("Final centers (the training data's dtype).")),
        ("labels_ : ndarray of shape (n_samples,), dtype int32, or None",
         _Text("Nearest center of every training sample (None without "
               "compute_labels).")),
        ("inertia_ : float or None",
         _Text("Quantization error of the training data with the final centers "
               "(None without compute_labels)."))),
    "cost_attributes": _Entries(
        ("n_distance_evals_, timings_ : dict",
         _Text("Distance evaluations and seconds per phase (``coreset``, "
               "``seeding``, ``iterations``, ``evaluation``), summed over the runs.")),
        ("coreset_indices_, coreset_weights_ : ndarray or None",
         _Text("The coreset's rows of the training data and their weights (None "
               "without a coreset).")),
        ("n_features_in_ : int", _Text("Number of features seen during fit."))),
}


def fill(doc, table=None):
    """``doc`` with every placeholder line replaced by its entry of
    :data:`DOCDICT`; ``table``: the ParamTable that help-based entries read
    first."""

    def place(match):
        name, indent = match["name"], match["indent"]
        if name not in DOCDICT:
            raise ValueError(f"unknown docstring placeholder %({name})s")
        entry = DOCDICT[name]
        if isinstance(entry, _Entries):
            return "\n".join(entry.lines(table, indent))
        return _wrap(_description(entry, table), indent)

    filled = _PLACEHOLDER.sub(place, doc)
    stray = _TOKEN.search(filled)
    if stray:
        raise ValueError(f"docstring placeholder {stray.group()} must stand alone on its line")
    return filled


def fill_doc(obj):
    """Decorator: fills the placeholders of ``obj.__doc__`` (see the module
    docstring); a class's help-based entries read its own ``_params`` first."""
    if obj.__doc__:
        obj.__doc__ = fill(obj.__doc__, getattr(obj, "_params", None))
    return obj
