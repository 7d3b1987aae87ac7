"""Import the compiled core built for the best instruction set this CPU has.

The package ships one extension module per instruction-set level the build
could target (``_core``: the x86-64 baseline, ``_core_avx2``: AVX2 + FMA,
``_core_avx512``: AVX-512 F/DQ/VL/BW), the same code compiled with different
vector instructions (faiss does the same). ``_core`` is always importable and
reports what the CPU supports; the widest supported level that was built is
used. Set the environment variable ``VCGMM_OPT_LEVEL`` to ``generic``,
``avx2`` or ``avx512`` to force a level (e.g. to compare them).
"""

from __future__ import annotations

import importlib
import os
import warnings
from types import ModuleType

from .. import _core as _generic

__all__ = ["core", "opt_level", "available_levels"]

_LEVELS = ("avx512", "avx2", "generic")


def _module_name(level: str) -> str:
    return "_core" if level == "generic" else f"_core_{level}"


def _importable(level: str):
    try:
        return importlib.import_module(f"vcgmm.{_module_name(level)}")
    except ImportError:
        return None


def _forced_level(features):
    """The level VCGMM_OPT_LEVEL asks for, or None (unset, or unusable: then
    a warning says why and the best level is used instead of failing the
    import)."""
    forced = os.environ.get("VCGMM_OPT_LEVEL", "").strip().lower()
    if not forced:
        return None
    problem = None
    if forced not in _LEVELS:
        problem = f"is not one of {', '.join(reversed(_LEVELS))}"
    elif forced != "generic" and not features.get(forced, False):
        problem = "is not supported by this CPU"
    elif _importable(forced) is None:
        problem = "was not built into this installation"
    if problem is None:
        return forced
    warnings.warn(
        f"VCGMM_OPT_LEVEL={forced!r} {problem}; using the best level this CPU supports "
        f"instead (unset VCGMM_OPT_LEVEL, or set it to one of {', '.join(available_levels())}).",
        RuntimeWarning, stacklevel=2)
    return None


def _choose():
    features = _generic.cpu_features()
    forced = _forced_level(features)
    if forced is not None:
        return forced, _importable(forced)
    for level in _LEVELS:
        if level != "generic" and not features.get(level, False):
            continue
        module = _importable(level)
        if module is not None:
            return level, module
    return "generic", _generic


def available_levels():
    """Instruction-set levels built into this installation."""
    return [level for level in reversed(_LEVELS) if _importable(level) is not None]


opt_level: str
core: ModuleType
opt_level, core = _choose()


