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
                            and a ``callback`` are stored as None)
``attr:<name>``             one fitted attribute each (``cluster_centers_`` in
                            the data's dtype, ``sigma2_``, ``n_features_in_``,
                            ...; scalars as 0-d arrays)
==========================  ===================================================

Per-sample training results (``labels_``, the coreset) are not saved: a model
is what ``predict``, ``transform`` and ``score`` need, of size O(C D).

``load_model`` trusts nothing in the file: it reads only the entries above
(``attr:`` only for ``SAVED_ATTRIBUTES``), checks each entry's .npy header
(dtype, shape against the centers' (C, D), no more data declared than stored:
``save`` writes uncompressed) before reading its data, then the values
(finite centers within ``fit``'s magnitude rule, finite scalars, parameters
the class accepts), and reports any failure as one ValueError naming the path.
"""

from __future__ import annotations

import json
import math
import os
import warnings
import zipfile

import numpy as np
from numpy.lib import format as npy_format
from sklearn.utils.validation import check_is_fitted

from .._base.loader import core
from .._base.validation import as_data, check_finite_magnitude

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
    if params.get("callback") is not None:
        params["callback"] = None  # code, not part of the model (the loaded one has none)
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
                # feature names as strings: an object array would need pickle to load
                arrays["attr:" + name] = np.asarray(
                    value, dtype=str if name == "feature_names_in_" else None)
    path = os.fspath(path)
    with open(path, "wb") as f:  # np.savez would append ".npz" to a str path
        np.savez(f, format=np.asarray(FORMAT), format_version=np.asarray(FORMAT_VERSION),
                 **{"class": np.asarray(type(est).__name__)},
                 vcgmm_version=np.asarray(_version()), params=np.asarray(params_json), **arrays)


class _Invalid(Exception):
    """What makes a file unloadable; ``load_model`` prefixes the path."""


def _damaged(what):
    return _Invalid(f"is not a valid saved vcgmm model: {what}")


def _finite(v):
    return bool(np.all(np.isfinite(v)))


def _attribute_rules(C, D):
    """``attr:<name>`` -> (shape, dtype kinds, value test, what the test asks):
    the shapes ``save`` writes for a model of C centers in D dimensions
    (``cluster_centers_`` itself is checked apart; a str: any length)."""
    count = ((), "iu", lambda v: v >= 0, ">= 0")
    real = ((), "iuf", _finite, "finite")
    history = (("n",), "f", None, "")  # one entry per iteration
    return {
        "n_features_in_": ((), "iu", lambda v: v == D,
                           f"equal to the {D} columns of cluster_centers_"),
        "feature_names_in_": ((D,), "U", None, ""),
        "n_iter_": count,
        "n_steps_": count,
        "converged_": ((), "b", None, ""),
        "inertia_": real,
        "lower_bound_": real,
        "sigma2_": ((), "iuf", lambda v: _finite(v) and v > 0, "finite and > 0"),
        "G_": ((), "iu", lambda v: 1 <= v <= C, f"between 1 and {C}"),
        "free_energy_": history,
        "objective_": history,
        "counts_": ((C,), "f", lambda v: _finite(v) and bool(np.all(v >= 0)),
                    "finite and >= 0"),
        "_variances": ((C,), "f", lambda v: _finite(v) and bool(np.all(v > 0)),
                       "finite and > 0"),
        "_mixing_weights": ((C,), "f", lambda v: _finite(v) and bool(np.all(v >= 0)),
                            "finite and >= 0"),
    }


class _Members:
    """The ``.npy`` members of a model file, each read only after its header
    (dtype, shape) passed the caller's check: no member can make ``load``
    allocate more than the file stores."""

    def __init__(self, archive):
        self.archive = archive
        names = archive.namelist()
        if len(set(names)) != len(names):
            raise _damaged("the archive lists a member twice")
        for n in names:
            if not n.endswith(".npy"):
                raise _damaged(f"member {n!r} is not a .npy array")
        self.keys = [n[:-4] for n in names]

    def header(self, key):
        """(shape, dtype) of member ``key``, from its .npy header alone."""
        with self.archive.open(key + ".npy") as f:
            version = npy_format.read_magic(f)
            if version == (1, 0):
                shape, _, dtype = npy_format.read_array_header_1_0(f)
            elif version == (2, 0):
                shape, _, dtype = npy_format.read_array_header_2_0(f)
            else:
                raise _damaged(f"{key!r} is a .npy array of version {version}, which "
                               "save does not write")
        if dtype.hasobject or dtype.fields is not None or dtype.subdtype is not None:
            raise _damaged(f"{key!r} has dtype {dtype}, not plain numbers or strings "
                           "(object arrays would need unpickling)")
        if any(n < 0 for n in shape):
            raise _damaged(f"{key!r} has the shape {shape}")
        size = math.prod(shape) * dtype.itemsize
        stored = self.archive.getinfo(key + ".npy").compress_size
        if size > stored:  # save stores arrays uncompressed
            raise _damaged(f"{key!r} declares {size} bytes of data but the file stores "
                           f"{stored}")
        return tuple(shape), dtype

    def read(self, key, shape, kinds):
        """Member ``key`` if it has ``shape`` (a str entry: any length of that
        name) and a dtype of one of ``kinds`` (numpy kind letters); else
        _Invalid naming it."""
        got, dtype = self.header(key)
        if (len(got) != len(shape) or dtype.kind not in kinds
                or any(isinstance(s, int) and s != g for s, g in zip(shape, got))):
            want = "scalar" if not shape else f"array of shape ({', '.join(map(str, shape))}" + (
                ",)" if len(shape) == 1 else ")")
            raise _damaged(f"{key!r} is a {dtype} array of shape {got}, not {_KINDS[kinds]} "
                           f"{want}")
        with self.archive.open(key + ".npy") as f:
            return npy_format.read_array(f, allow_pickle=False)

    def string(self, key):
        if key not in self.keys:
            raise _damaged(f"the entry {key!r} is missing")
        return str(self.read(key, (), "U"))


_KINDS = {"iu": "an integer", "iuf": "a real", "f": "a floating-point", "b": "a boolean",
          "U": "a string"}


def _read_model(path, classes):
    with open(path, "rb") as f:
        magic = f.read(4)
    if magic not in (b"PK\x03\x04", b"PK\x05\x06"):
        raise _Invalid("is not a saved vcgmm model: not a .npz archive written by save "
                       "(vcgmm.load reads only those; it never unpickles)")
    with zipfile.ZipFile(path) as archive:
        data = _Members(archive)
        form = data.header("format") if "format" in data.keys else None
        if form is None or form[0] != () or form[1].kind != "U" or data.string("format") != FORMAT:
            raise _Invalid("is a .npz file but not a saved vcgmm model (no 'format' = "
                           "'vcgmm-model' entry)")
        if "format_version" not in data.keys:
            raise _damaged("the entry 'format_version' is missing")
        version = int(data.read("format_version", (), "iu"))
        if version > FORMAT_VERSION:
            raise _Invalid(f"has model format {version}, newer than this vcgmm "
                           f"({_version()}) reads (format {FORMAT_VERSION}); upgrade vcgmm")
        if version < 1:
            raise _damaged(f"format_version {version} does not exist")
        known = {"format", "format_version", "class", "vcgmm_version", "params", "param:init",
                 *("attr:" + name for name in SAVED_ATTRIBUTES)}
        unknown = [key for key in data.keys if key not in known]
        if unknown:
            raise _damaged(f"unknown entry {unknown[0]!r} (model format {FORMAT_VERSION} has "
                           f"only {', '.join(sorted(known))})")
        name = data.string("class")
        if name not in classes:
            raise _Invalid(f"holds a {name!r}, not one of {sorted(classes)}")
        cls = classes[name]
        if "attr:cluster_centers_" not in data.keys:
            raise _damaged("the entry 'attr:cluster_centers_' is missing")
        centers = data.read("attr:cluster_centers_", ("C", "D"), "f")
        if centers.dtype.itemsize not in (4, 8) or 0 in centers.shape:
            raise _damaged(f"'attr:cluster_centers_' is a {centers.dtype} array of shape "
                           f"{centers.shape}, not a non-empty float32 or float64 (C, D) array")
        centers = np.ascontiguousarray(centers, dtype=centers.dtype.newbyteorder("="))
        if not np.all(np.isfinite(centers)):  # predict would give every sample one label
            raise _damaged("'attr:cluster_centers_' contains NaN or infinity")
        try:  # the rule fit applies to data: squared distances must not overflow
            check_finite_magnitude(centers, "'attr:cluster_centers_'")
        except ValueError as e:
            raise _damaged(str(e)) from None
        C, D = centers.shape
        est = _estimator(cls, data.string("params"), data, C, D)
        attributes = {"cluster_centers_": centers}
        for attr, (shape, kinds, test, condition) in _attribute_rules(C, D).items():
            key = "attr:" + attr
            if key not in data.keys:
                continue
            value = data.read(key, shape, kinds)
            if test is not None and not test(value):
                shown = value.item() if value.ndim == 0 else value
                raise _damaged(f"{key!r} is {shown!r}, not {condition}")
            attributes[attr] = value.item() if value.ndim == 0 else value
        if "attr:n_features_in_" not in data.keys:
            raise _damaged("the entry 'attr:n_features_in_' is missing")
        if ("_variances" in attributes) != ("_mixing_weights" in attributes):
            raise _damaged("'attr:_variances' and 'attr:_mixing_weights' come together")
        if "feature_names_in_" in attributes:  # scikit-learn keeps them as objects
            attributes["feature_names_in_"] = np.asarray(
                [str(s) for s in attributes["feature_names_in_"]], dtype=object)
    for attr, value in attributes.items():
        setattr(est, attr, value)
    return est


def _estimator(cls, params_json, data, C, D):
    """An unfitted ``cls`` with the saved parameters, checked by its table."""
    try:
        params = json.loads(params_json)
    except (ValueError, RecursionError) as e:
        raise _damaged(f"'params' is not valid JSON ({type(e).__name__}: {e})") from None
    if not isinstance(params, dict):
        raise _damaged(f"'params' is JSON of a {type(params).__name__}, not of an object")
    if isinstance(params.get("init"), dict):
        if params["init"] != {"array": "param:init"} or "param:init" not in data.keys:
            raise _damaged(f"'params' has init={params['init']!r}, but the only array "
                           "reference is {'array': 'param:init'}, with a 'param:init' entry")
        params["init"] = data.read("param:init", (C, D), "iuf")
    elif "param:init" in data.keys:
        raise _damaged("'param:init' is present but 'params' does not refer to it")
    try:
        est = cls(**params)
        check = getattr(est, "_checked_params", None)
        values = check() if check is not None else params
    except (TypeError, ValueError) as e:
        raise _damaged(f"'params' are not parameters {cls.__name__} accepts ({e})") from None
    count = getattr(cls, "_count_param", None)
    if count is not None and values.get(count) != C:
        raise _damaged(f"{count}={values.get(count)!r} in 'params' but cluster_centers_ has "
                       f"{C} rows")
    return est


def load_model(path, classes):
    """The model saved at ``path``, an instance of ``classes[<saved class name>]``
    (the public ``vcgmm.load`` passes the registry's estimator classes).

    Only what the format defines is read, each entry checked (dtype, shape
    against the saved centers' (C, D), finiteness) before its data are: a
    damaged or altered file raises one ValueError naming ``path``."""
    try:
        path = os.fspath(path)
    except TypeError:
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}") \
            from None
    try:
        return _read_model(path, classes)
    except _Invalid as e:
        raise ValueError(f"path: {path!r} {e}") from None
    except MemoryError:
        raise
    except Exception as e:  # zip and .npy readers fail in many ways on damaged bytes
        if isinstance(e, OSError) and not os.path.isfile(path):
            raise ValueError(f"path: {path!r} cannot be read ({e})") from None
        raise ValueError(f"path: {path!r} is not a valid saved vcgmm model: the archive is "
                         f"damaged ({type(e).__name__}: {e})") from e


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
