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

from . import _core as _generic

__all__ = ["core", "opt_level", "available_levels"]

_LEVELS = ("avx512", "avx2", "generic")


def _module_name(level: str) -> str:
    return "_core" if level == "generic" else f"_core_{level}"


def _importable(level: str):
    try:
        return importlib.import_module(f"{__package__}.{_module_name(level)}")
    except ImportError:
        return None


def _choose():
    features = _generic.cpu_features()
    forced = os.environ.get("VCGMM_OPT_LEVEL", "").strip().lower()
    if forced:
        if forced not in _LEVELS:
            raise ImportError(
                f"VCGMM_OPT_LEVEL={forced!r}: expected one of {', '.join(_LEVELS)}"
            )
        if forced != "generic" and not features.get(forced, False):
            raise ImportError(f"VCGMM_OPT_LEVEL={forced!r}: this CPU does not support it")
        module = _importable(forced)
        if module is None:
            raise ImportError(f"VCGMM_OPT_LEVEL={forced!r}: this build has no such module")
        return forced, module
    for level in _LEVELS:
        if level != "generic" and not features.get(level, False):
            continue
        module = _importable(level)
        if module is not None:
            return level, module
    return "generic", _generic


opt_level, core = _choose()


def available_levels():
    """Instruction-set levels built into this installation."""
    return [level for level in reversed(_LEVELS) if _importable(level) is not None]
