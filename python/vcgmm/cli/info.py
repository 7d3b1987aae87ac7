"""``vcgmm info``: build information (instruction set, OpenMP)."""

from __future__ import annotations

import os
import platform

import numpy as np

import vcgmm

from .._base.loader import forced_level
from .._base.run import available_threads


def _cmd_info(args):
    build = vcgmm.show_build()
    features = build.get("cpu_features", {})
    yes = {True: "yes", False: "no"}
    asked = os.environ.get("VCGMM_OPT_LEVEL", "").strip()
    if forced_level is not None:
        why = f"forced by VCGMM_OPT_LEVEL={forced_level}"
    else:
        why = "widest built level this CPU supports" + (
            f"; VCGMM_OPT_LEVEL={asked} ignored" if asked else "")
    print(f"vcgmm {build['version']}")
    print(f"  instruction set in use : {build['opt_level']} ({why})")
    print(f"  levels built           : {', '.join(build.get('available_levels', []))}")
    print(f"  CPU supports           : "
          + ", ".join(f"{k} {yes.get(v, v)}" for k, v in features.items()))
    print(f"  OpenMP                 : {yes[bool(build['openmp'])]}"
          f" ({available_threads()} CPUs available to this process)")
    print(f"  Python {platform.python_version()}, numpy {np.__version__}, "
          f"location {os.path.dirname(vcgmm.__file__)}")
    return 0


def add_parser(sub):
    """Adds ``info`` to the subcommands ``sub``."""
    info = sub.add_parser("info", help="build information (instruction set, OpenMP)",
                          description="Show the version, the instruction-set level in use "
                                      "and whether OpenMP is enabled.")
    info.set_defaults(func=_cmd_info)
    return info
