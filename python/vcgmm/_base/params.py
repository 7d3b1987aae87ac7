"""Declarative parameter tables: one owner for each parameter's name, type,
range, default, help text and place in the C++ core.

Each algorithm family (``_kmeans.py``, ``_vcgmm.py``, ...) declares one
:class:`ParamTable`; its estimator, its functions and the command line all
read it (the model is scikit-learn's ``_parameter_constraints``):

- validation: ``table.validate(values)`` checks every value by its
  constraint and raises TypeError/ValueError naming the parameter;
- the core's parameters: ``table.to_core(values, params)`` writes every value
  with a ``target`` (an attribute path such as ``"em.G"``) into the bound C++
  params object, so a new parameter is one C++ field plus one table entry;
- defaults: ``Param(..., default=CORE)`` reads the default from a
  default-constructed C++ params object (the C++ struct owns it);
- the command line: ``Param(..., cli="-G")`` makes a flag whose type, check,
  help text and default come from the table.

Adding a parameter to an algorithm: its field in the C++ params struct, one
``.def_readwrite`` in the family's ``python/src/bind_<family>.cpp``, one :class:`Param` in
the family's table, and its docstring entry (for a parameter several
families share, a placeholder of :mod:`vcgmm._base.docs`, whose text starts
with the ``help`` given here).
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

__all__ = [
    "CORE",
    "Integer",
    "Real",
    "Boolean",
    "Options",
    "AnyOf",
    "NoneValue",
    "Param",
    "ParamTable",
    "INT32_MAX",
]

#: Integers handed to the core as C ``int`` must fit in 32 bits.
INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


class _CoreDefault:
    """Marker: the default is the C++ params struct's own default, at the
    parameter's ``target`` (or at ``CORE.at(path)`` for parameters the family
    converts itself)."""

    def __init__(self, path=None):
        self.path = path

    def at(self, path):
        return _CoreDefault(path)

    def __repr__(self):
        return "CORE" if self.path is None else f"CORE.at({self.path!r})"


CORE = _CoreDefault()


class Constraint:
    """A set of admissible values. ``check`` returns the normalised value or
    raises; ``parse`` converts command-line text; ``describe`` is for help."""

    def accepts(self, value) -> bool:  # pragma: no cover - interface
        raise NotImplementedError

    def check(self, value, name):
        if not self.accepts(value):
            raise self.error(value, name)
        return self.normalise(value)

    def normalise(self, value):
        return value

    def error(self, value, name):
        return TypeError(f"{name} must be {self.describe()}, got {value!r}.")

    def parse(self, text):
        return text

    def describe(self) -> str:  # pragma: no cover - interface
        raise NotImplementedError


def _is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def _is_real(value):
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


@dataclass(frozen=True)
class Integer(Constraint):
    """An integer in [low, high] (None: up to the core's 64-bit range on that
    side, which every integer parameter reaches the C++ core in)."""

    low: Optional[int] = None
    high: Optional[int] = INT32_MAX

    def accepts(self, value):
        return _is_int(value) and self._in_range(int(value))

    def _in_range(self, v):
        low = INT64_MIN if self.low is None else self.low
        high = INT64_MAX if self.high is None else self.high
        return low <= v <= high

    def error(self, value, name):
        if _is_int(value) and not INT64_MIN <= int(value) <= INT64_MAX:
            return ValueError(f"{name} must be {self.describe()} and within the core's 64-bit "
                              f"range [{INT64_MIN}, {INT64_MAX}], got {int(value)}.")
        if _is_int(value):
            return ValueError(f"{name} must be {self.describe()}, got {int(value)}.")
        return TypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__}).")

    def normalise(self, value):
        return int(value)

    def parse(self, text):
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"expected an integer, got {text!r}") from None

    def describe(self):
        if self.low is not None and self.high is not None:
            return f"an integer in [{self.low}, {self.high}]"
        if self.low is not None:
            return f"an integer >= {self.low}"
        return f"an integer <= {self.high}"


@dataclass(frozen=True)
class Real(Constraint):
    """A finite real number in [low, high] (open ends when ``low_open``/``high_open``);
    with ``allow_inf``, +infinity too (a setting without limit, e.g. nmbatch's rho)."""

    low: Optional[float] = None
    high: Optional[float] = None
    low_open: bool = False
    high_open: bool = False
    allow_inf: bool = False

    def accepts(self, value):
        if not _is_real(value):
            return False
        v = float(value)
        if self.allow_inf and v == np.inf:
            return self.high is None
        if not np.isfinite(v):
            return False
        if self.low is not None and (v < self.low or (self.low_open and v == self.low)):
            return False
        if self.high is not None and (v > self.high or (self.high_open and v == self.high)):
            return False
        return True

    def error(self, value, name):
        if _is_real(value):
            return ValueError(f"{name} must be {self.describe()}, got {float(value)!r}.")
        return TypeError(f"{name} must be a real number, got {value!r} ({type(value).__name__}).")

    def normalise(self, value):
        return float(value)

    def parse(self, text):
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"expected a number, got {text!r}") from None

    def describe(self):
        parts = []
        if self.low is not None:
            parts.append(f"{'>' if self.low_open else '>='} {self.low:g}")
        if self.high is not None:
            parts.append(f"{'<' if self.high_open else '<='} {self.high:g}")
        kind = "a number (or infinity)" if self.allow_inf else "a finite number"
        return kind + (" " + " and ".join(parts) if parts else "")


@dataclass(frozen=True)
class Boolean(Constraint):
    def accepts(self, value):
        return isinstance(value, (bool, np.bool_))

    def normalise(self, value):
        return bool(value)

    def describe(self):
        return "True or False"


@dataclass(frozen=True)
class Options(Constraint):
    """One of the given strings; ``renamed``: (old, new) pairs of former names,
    still accepted with a FutureWarning (saved models and scripts keep working)."""

    values: tuple
    renamed: tuple = ()

    def accepts(self, value):
        return isinstance(value, str) and (value in self.values or value in dict(self.renamed))

    def check(self, value, name):
        value = super().check(value, name)
        new = dict(self.renamed).get(value)
        if new is not None:
            warnings.warn(f"{name}={value!r} is now named {new!r}; the old name will be "
                          "removed in a future version.", FutureWarning, stacklevel=4)
            return new
        return value

    def error(self, value, name):
        kind = ValueError if isinstance(value, str) else TypeError
        return kind(f"{name} must be {self.describe()}, got {value!r}.")

    def describe(self):
        return "one of " + ", ".join(repr(v) for v in self.values)


@dataclass(frozen=True)
class NoneValue(Constraint):
    def accepts(self, value):
        return value is None

    def describe(self):
        return "None"


@dataclass(frozen=True)
class AnyOf(Constraint):
    """The first of several constraints that accepts the value."""

    options: tuple

    def __init__(self, *options):
        object.__setattr__(self, "options", options)

    def accepts(self, value):
        return any(c.accepts(value) for c in self.options)

    def check(self, value, name):
        for c in self.options:
            if c.accepts(value):
                return c.normalise(value)
        # The message of the most specific option (an out-of-range integer
        # is a ValueError, not "must be one of ...").
        for c in self.options:
            if isinstance(c, (Integer, Real)) and _is_real(value):
                raise c.error(value, name)
            if isinstance(c, Options) and isinstance(value, str):
                raise c.error(value, name)
        return super().check(value, name)

    def parse(self, text):
        for c in self.options:
            if isinstance(c, Options) and text in c.values:
                return text
            if isinstance(c, NoneValue) and text.lower() == "none":
                return None
        for c in self.options:
            if isinstance(c, (Integer, Real)):
                return c.parse(text)
        return text

    def describe(self):
        return " or ".join(c.describe() for c in self.options)


@dataclass(frozen=True)
class Param:
    """One parameter of an algorithm family.

    Parameters
    ----------
    name : str
        The Python name (estimator attribute, function keyword).
    constraint : Constraint
        What values are allowed.
    default : object
        The default; ``CORE`` reads it from the C++ params struct at ``target``.
    help : str
        One line for the command line's help; also the first sentence of the
        parameter's shared docstring entry (:mod:`vcgmm._base.docs`).
    target : str or None
        Attribute path in the C++ params object, e.g. ``"em.G"``; None for
        parameters the family converts itself (see its ``to_core``).
    cli : str, tuple of str or None
        The command-line flag(s) (e.g. ``"-G"``, ``("-C", "--clusters")``);
        None: not on the command line.
    core_value : callable or None
        Converts the validated value into the core's at ``target`` (e.g.
        ``"auto"`` -> 0, the core's "automatic"); None: the value itself.
    """

    name: str
    constraint: Constraint
    default: Any
    help: str
    target: Optional[str] = None
    cli: Any = None
    core_value: Optional[Callable] = None

    @property
    def flags(self):
        """The command-line flags as a tuple (empty: not on the command line)."""
        if self.cli is None:
            return ()
        return (self.cli,) if isinstance(self.cli, str) else tuple(self.cli)


def _get_path(obj, path):
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _set_path(obj, path, value):
    *parents, last = path.split(".")
    for part in parents:
        obj = getattr(obj, part)
    setattr(obj, last, value)


class ParamTable:
    """The parameters of one algorithm family, in signature order.

    ``core_params`` is a factory of the family's C++ params object (e.g.
    ``_core.VcgmmParams``), the owner of the ``CORE`` defaults.
    """

    def __init__(self, params, core_params: Optional[Callable] = None):
        self._params = {p.name: p for p in params}
        self._core_params = core_params
        defaults = core_params() if core_params is not None else None
        self.defaults = {
            p.name: (_get_path(defaults, p.default.path or p.target)
                     if isinstance(p.default, _CoreDefault) else p.default)
            for p in params
        }

    def __iter__(self):
        return iter(self._params.values())

    def __getitem__(self, name):
        return self._params[name]

    def __contains__(self, name):
        return name in self._params

    def names(self):
        return list(self._params)

    def check(self, name, value):
        """One value, validated and normalised."""
        return self._params[name].constraint.check(value, name)

    def validate(self, values):
        """Every value of ``values`` (a dict by name), validated."""
        return {name: self.check(name, value) for name, value in values.items()}

    def to_core(self, values, params=None):
        """A C++ params object with every validated value that has a target."""
        if params is None:
            params = self._core_params()
        for name, value in values.items():
            p = self._params[name]
            if p.target is not None:
                _set_path(params, p.target, p.core_value(value) if p.core_value else value)
        return params


def make_init(table, n_positional=1):
    """An ``__init__`` for an estimator whose parameters are ``table``'s, in
    the table's order: the first ``n_positional`` may be given by position,
    the rest by keyword, each defaulting to the table's default; the body
    stores every argument unchanged (the scikit-learn convention: validation
    happens in ``fit``). The signature is a real one, so ``get_params``,
    ``help()`` and the documentation see every parameter and its default.
    """
    names = table.names()
    parts = [f"{n}=__defaults[{n!r}]" for n in names]
    parts.insert(n_positional, "*")
    body = "\n".join(f"    self.{n} = {n}" for n in names)
    source = f"def __init__(self, {', '.join(parts)}):\n{body}\n"
    namespace = {"__defaults": dict(table.defaults)}
    exec(compile(source, f"<{table.names()[0]} parameters>", "exec"), namespace)  # noqa: S102
    init = namespace["__init__"]
    init.__doc__ = "Store the parameters (see the class docstring); they are validated by fit."
    return init
