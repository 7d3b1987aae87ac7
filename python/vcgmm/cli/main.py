"""The ``vcgmm`` command line: ``fit``, ``demo``, ``info``.

Usage errors and bad input end with one line ``vcgmm: error: ...`` on stderr
and exit status 2, like argparse's own errors; the messages of the library's
ValueError/TypeError are passed through unchanged. Each subcommand is one
module of this package (its ``add_parser`` and its run); the algorithms of
``vcgmm fit`` are the registry's (``vcgmm._registry``), one subcommand each
(``vcgmm fit vcgmm DATA -C N``); ``vcgmm fit DATA -C N --algo vcgmm``, the
older form, is kept as its alias (:mod:`.fit_alias`).
"""

from __future__ import annotations

import argparse
import os
import sys

from .._base.loader import core as _core
from . import demo, fit, fit_alias, info
from .common import PROG, CLIError

__all__ = ["main", "build_parser"]


def build_parser():
    """The argparse parser of the ``vcgmm`` command."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Cluster very large data into very many clusters.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {_core.version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    fit.add_parser(sub)
    demo.add_parser(sub)
    info.add_parser(sub)
    return parser


def _quiet_broken_pipe():
    """The reader went away (e.g. ``vcgmm ... | head``): stop quietly, and keep
    Python from complaining again when it flushes stdout at exit."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 141  # 128 + SIGPIPE, as a shell reports a process killed by it


def main(argv=None):
    """Run the command line; returns the exit status (argparse usage errors and
    ``--version`` raise SystemExit as usual)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    try:
        if fit_alias.applies(argv):
            args = fit_alias.parse_args(parser, argv)
        else:
            args = parser.parse_args(argv)
    except BrokenPipeError:  # --help piped into head
        return _quiet_broken_pipe()
    try:
        return args.func(args)
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except CLIError as exc:
        message = str(exc)
    except FileNotFoundError as exc:
        message = str(exc)
    except (ValueError, TypeError) as exc:
        message = str(exc)
    except OSError as exc:  # permission denied, disk full, ...
        message = f"{exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else "")
    except MemoryError:
        message = "out of memory (try --dtype float32, a memory-mapped .npy file or a coreset)"
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    sys.stdout.flush()
    # One line, like argparse: library messages may span lines (scikit-learn's do).
    print(f"{PROG}: error: {' '.join(message.split())}", file=sys.stderr)
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
