"""What every ``vcgmm`` subcommand shares: the program name, the usage error,
--seed/--threads and the parsing of a flag by its parameter's constraint."""

from __future__ import annotations

import argparse

from .._base.run import RUN_PARAMS, available_threads

__all__ = ["PROG", "CLIError"]

PROG = "vcgmm"


class CLIError(Exception):
    """A user error reported as ``vcgmm: error: <message>`` with exit status 2."""


def _flag_type(param, flag):
    def parse(text):
        try:
            return param.constraint.check(param.constraint.parse(text), flag)
        except (TypeError, ValueError) as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def _add_run_flags(parser, seed_help, seed_default=None):
    """--seed and --threads, checked by the run parameters' constraints."""
    run = {p.name: p for p in RUN_PARAMS}
    parser.add_argument("--seed", type=_flag_type(run["random_state"], "--seed"),
                        default=seed_default, metavar="S", help=seed_help)
    parser.add_argument("--threads", type=_flag_type(run["n_threads"], "--threads"),
                        default=None, metavar="T",
                        help="threads (default: all available; OMP_NUM_THREADS limits "
                             "them); results do not depend on it")


def _threads_text(n_threads):
    if n_threads is None or n_threads == -1:
        return f"default ({available_threads()})"
    return str(n_threads)
