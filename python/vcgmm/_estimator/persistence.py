"""Portable models: ``save``/``load`` to a documented ``.npz``, ``from_centers``
for centers computed elsewhere, and the vcgmm version carried by pickles.

The ``.npz`` format (``FORMAT_VERSION`` 1) holds only numbers and strings, so
it loads with ``np.load(path, allow_pickle=False)`` in any Python and any later
vcgmm version:

==========================  ===================================================
key                         content
==========================  ===================================================
``format``                  the string ``"vcgmm-model"``
``format_version``          integer, 1
``class``                   estimator class name (``"KMeans"``, ``"VCGMM"``, ...)
``vcgmm_version``           version that wrote the file
``params``                  JSON of ``get_params()`` (an ``init`` array is kept
                            apart as ``param:init``; a ``RandomState`` instance
                            is stored as None)
``attr:<name>``             one fitted attribute each (``cluster_centers_`` in
                            the data's dtype, ``sigma2_``, ``n_features_in_``,
                            ...; scalars as 0-d arrays)
==========================  ===================================================

Per-sample training results (``labels_``, the coreset) are not saved: a model
is what ``predict``, ``transform`` and ``score`` need, of size O(C D).
"""

from __future__ import annotations

import json
import os
import warnings

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._base.loader import core
from .._base.validation import as_data

FORMAT = "vcgmm-model"
FORMAT_VERSION = 1

#: Fitted attributes a saved model keeps, when the estimator has them.
SAVED_ATTRIBUTES = ("cluster_centers_", "n_features_in_", "feature_names_in_", "n_iter_",
                    "converged_", "inertia_", "sigma2_", "G_", "free_energy_", "lower_bound_",
                    "counts_", "n_steps_", "objective_",
                    # VCGMM(covariance_type="spherical"): per-component variances and weights
                    "_variances", "_mixing_weights")


class VersionMismatchWarning(UserWarning):
    """A pickled vcgmm estimator is loaded by another vcgmm version than the
    one that wrote it (as scikit-learn's ``InconsistentVersionWarning``): its
    behaviour is not guaranteed; re-fit, or use ``save``/``load``.

    Examples
    --------
    >>> import warnings, vcgmm
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", vcgmm.VersionMismatchWarning)
    ...     # unpickling a model written by another vcgmm version now raises
    ...     issubclass(vcgmm.VersionMismatchWarning, UserWarning)
    True
    """


def _version():
    return str(core.version())


def save_model(est, path):
    """Writes ``est`` (fitted) to ``path`` in the documented ``.npz`` format."""
    check_is_fitted(est, "cluster_centers_")
    params = dict(est.get_params(deep=False))
    arrays = {}
    if isinstance(params.get("init"), np.ndarray):
        arrays["param:init"] = params["init"]
        params["init"] = {"array": "param:init"}
    if params.get("random_state") is not None and not isinstance(
            params["random_state"], (int, np.integer)):
        params["random_state"] = None  # a RandomState instance has no portable form
    params = {k: (int(v) if isinstance(v, np.integer) else
                  float(v) if isinstance(v, np.floating) else v) for k, v in params.items()}
    try:
        params_json = json.dumps(params)
    except TypeError as e:
        raise TypeError(f"cannot save {type(est).__name__}: a parameter is not a number, "
                        f"string or None ({e})") from None
    for name in SAVED_ATTRIBUTES:
        if name in est.__dict__:
            value = est.__dict__[name]
            if value is not None and not (isinstance(value, float) and np.isnan(value)):
                arrays["attr:" + name] = np.asarray(value)
    path = os.fspath(path)
    with open(path, "wb") as f:  # np.savez would append ".npz" to a str path
        np.savez(f, format=np.asarray(FORMAT), format_version=np.asarray(FORMAT_VERSION),
                 **{"class": np.asarray(type(est).__name__)},
                 vcgmm_version=np.asarray(_version()), params=np.asarray(params_json), **arrays)


def load_model(path, classes):
    """The model saved at ``path``, an instance of ``classes[<saved class name>]``
    (the public ``vcgmm.load`` passes the registry's estimator classes)."""
    try:
        data = np.load(os.fspath(path), allow_pickle=False)
    except (ValueError, OSError) as e:
        raise ValueError(f"path: {path!r} is not a saved vcgmm model ({e})") from None
    with data:
        if "format" not in data.files or str(data["format"]) != FORMAT:
            raise ValueError(f"path: {path!r} is a .npz file but not a saved vcgmm model "
                             "(no 'format' = 'vcgmm-model' entry)")
        version = int(data["format_version"])
        if version > FORMAT_VERSION:
            raise ValueError(f"path: {path!r} has model format {version}, newer than this "
                             f"vcgmm ({_version()}) reads (format {FORMAT_VERSION}); upgrade "
                             "vcgmm")
        name = str(data["class"])
        if name not in classes:
            raise ValueError(f"path: {path!r} holds a {name!r}, not one of {sorted(classes)}")
        params = json.loads(str(data["params"]))
        if isinstance(params.get("init"), dict):
            params["init"] = data[params["init"]["array"]]
        est = classes[name](**params)
        for key in data.files:
            if key.startswith("attr:"):
                value = data[key]
                setattr(est, key[5:], value.item() if value.ndim == 0 else value)
    return est


def from_centers(cls, centers, count_param, **params):
    """A fitted ``cls`` whose model is ``centers`` (see ``from_centers``)."""
    centers = as_data(centers, "centers")
    if centers.shape[0] < 1:
        raise ValueError("centers: need at least one center")
    est = cls(**{count_param: centers.shape[0], **params})
    if getattr(est, count_param) != centers.shape[0]:
        raise ValueError(f"{count_param}={getattr(est, count_param)} does not match the "
                         f"{centers.shape[0]} rows of centers")
    est.cluster_centers_ = np.array(centers, copy=True)
    est.n_features_in_ = centers.shape[1]
    return est


def add_version(state):
    """The pickled state with the vcgmm version that wrote it."""
    state = dict(state)
    state["_vcgmm_version"] = _version()
    return state


def check_version(state, name):
    """Warns when a pickle of ``name`` was written by another vcgmm version."""
    written = state.pop("_vcgmm_version", None)
    if written is not None and written != _version():
        warnings.warn(
            f"Trying to unpickle {name} from vcgmm {written} when using version "
            f"{_version()}. This might lead to breaking code or invalid results; re-fit, or "
            "save models with est.save(path) / vcgmm.load(path), which is portable across "
            "versions.", VersionMismatchWarning, stacklevel=3)
    return state
