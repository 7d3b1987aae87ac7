"""Import the compiled core built for the best instruction set this CPU has.

The package ships one extension module per instruction-set level the build
asked for (``_core``: the x86-64 baseline, ``_core_avx2``: AVX2 + FMA,
``_core_avx512``: AVX-512 F/DQ/VL/BW), the same code compiled with different
vector instructions (faiss does the same): a source install builds the widest
level of its CPU, a wheel for other machines all three. ``_cpu``, built for the
baseline, reports what the CPU supports; the widest supported level that was
built is used. Set the environment variable ``VCGMM_OPT_LEVEL`` to
``generic``, ``avx2`` or ``avx512`` to force a level (e.g. to compare them).
"""

from __future__ import annotations

import importlib
import os
import warnings
from types import ModuleType

__all__ = ["core", "opt_level", "forced_level", "available_levels", "cpu_features"]

_LEVELS = ("avx512", "avx2", "generic")


# Compiled for the x86-64 baseline: importable on any CPU, unlike the levels.
_cpu = importlib.import_module("vcgmm._cpu")


def cpu_features() -> dict:
    """The instruction-set levels the running CPU (and OS) support:
    ``{"avx2": bool, "avx512": bool}``."""
    return dict(_cpu.cpu_features())


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
    elif not _runs(forced, features):
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


def _runs(level: str, features) -> bool:
    return level == "generic" or bool(features.get(level, False))


def _choose(features, importable=_importable, forced=None):
    """(level, module): the forced level, else the widest built level the CPU
    runs; ImportError naming the levels when the CPU runs none of them."""
    if forced is not None:
        return forced, importable(forced)
    for level in _LEVELS:
        if not _runs(level, features):
            continue
        module = importable(level)
        if module is not None:
            return level, module
    built = available_levels(importable)
    runs = [level for level in reversed(_LEVELS) if _runs(level, features)]
    raise ImportError(
        f"vcgmm was compiled for the instruction sets {', '.join(built) or 'none'}, and this "
        f"CPU runs only {', '.join(runs)}: the installation was built on another machine. "
        "Reinstall from source on this machine (pip install .), or build a wheel with every "
        "level: pip wheel . -Ccmake.define.VCGMM_PYTHON_LEVELS=all")


def available_levels(importable=_importable):
    """Instruction-set levels built into this installation."""
    return [level for level in reversed(_LEVELS) if importable(level) is not None]


#: the level VCGMM_OPT_LEVEL chose, or None (unset, or ignored with a warning)
_features = cpu_features()
forced_level = _forced_level(_features)
opt_level: str
core: ModuleType
opt_level, core = _choose(_features, forced=forced_level)


