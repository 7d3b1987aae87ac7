"""The ``--algo`` form of ``vcgmm fit``, kept for existing command lines.

``vcgmm fit DATA -C N [--algo NAME] [flags]`` (``--algo`` may stand anywhere;
without it, kmeans++) runs as ``vcgmm fit NAME DATA -C N [flags]``: the same
flags, parsed by NAME's own parameters, and the same run (:func:`.fit.run`).

What stays of the form is its one namespace of flags, for its messages: a flag
of another algorithm is known, and reported as "--tau does not apply to --algo
kmeans++" (one line, exit status 2, when the fit is set up, as before); a value
that only another algorithm's parameter accepts is reported the same way by the
chosen algorithm's own check ("argument --learning-rate: ..."); a value that no
algorithm accepts is argparse's usage error of ``vcgmm fit``. ``--help`` shows
the help of ``vcgmm fit NAME`` (or of ``vcgmm fit`` without ``--algo``).
"""

from __future__ import annotations

import argparse

from .._base.params import Boolean
from .._registry import ALGORITHMS
from . import fit
from .common import PROG, CLIError, _flag_type

__all__ = ["applies", "parse_args"]


def applies(argv):
    """Whether ``argv`` (the words after ``vcgmm``) is ``fit`` in the --algo form:
    the word after ``fit`` is not an algorithm's name."""
    return bool(argv) and argv[0] == "fit" and (len(argv) < 2 or argv[1] not in ALGORITHMS)


def _algo_word(words):
    """The value of the last ``--algo X`` / ``--algo=X`` among ``words`` (None if none)."""
    found = None
    for i, word in enumerate(words):
        if word == "--":
            break
        if word == "--algo" and i + 1 < len(words):
            found = words[i + 1]
        elif word.startswith("--algo="):
            found = word[len("--algo="):]
    return found


def _all_flags():
    """Every algorithm's flags in one namespace: dest -> {algorithm: Param}, in
    the order of the registry."""
    flags = {}
    for name in ALGORITHMS:
        for param in fit.algorithm_params(name):
            flags.setdefault(param.name, {})[name] = param
    return flags


def _some_algorithm_accepts(params, flag):
    """argparse type of a flag in the one namespace: its text if one of the
    algorithms' parameters accepts it (the chosen one checks it later), else
    a usage error with each distinct rule's message."""
    checks = {}
    for param in params.values():
        checks.setdefault(param.constraint.describe(), _flag_type(param, flag))

    def parse(text):
        errors = []
        for check in checks.values():
            try:
                check(text)
                return text
            except argparse.ArgumentTypeError as exc:
                errors.append(str(exc))
        raise argparse.ArgumentTypeError(" / ".join(errors))

    return parse


class _Help(argparse.Action):
    """-h/--help: the help of the subcommand the command line stands for."""

    def __init__(self, option_strings, dest, show, **kwargs):
        super().__init__(option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                         nargs=0, help="show the help of --algo's subcommand and exit")
        self.show = show

    def __call__(self, parser, namespace, values, option_string=None):
        self.show()


def _parser(flags, show_help):
    parser = argparse.ArgumentParser(
        prog=f"{PROG} fit", add_help=False, usage=fit.USAGE)
    # the form's order of flags (argparse lists an ambiguous abbreviation's matches in it)
    parser.add_argument("-h", "--help", action=_Help, show=show_help)
    fit.add_input_flags(parser, fit.count_param(next(iter(ALGORITHMS))))
    parser.add_argument("--algo", choices=["auto", *ALGORITHMS], default=fit.DEFAULT_ALGORITHM)
    for dest, params in flags.items():
        first = next(iter(params.values()))
        if isinstance(first.constraint, Boolean):
            parser.add_argument(*first.flags, dest=dest, action="store_true", default=None)
        else:
            parser.add_argument(*first.flags, dest=dest, default=None,
                                metavar=fit.flag_metavar(dest),
                                type=_some_algorithm_accepts(params, first.flags[0]))
    fit.add_run_flags(parser)
    return parser


def _own_values(args, flags):
    """Parses the given flags by the chosen algorithm's own parameters, in
    place; returns the error to report when the fit is set up, or None."""
    unused = []
    for dest, params in flags.items():
        value, flag = getattr(args, dest), next(iter(params.values())).flags[0]
        if value is None:
            continue
        if args.algo not in params:
            unused.append(flag)
            setattr(args, dest, None)
        elif not isinstance(value, bool):
            constraint = params[args.algo].constraint
            try:
                setattr(args, dest, constraint.check(constraint.parse(value), flag))
            except (TypeError, ValueError) as exc:
                return CLIError(f"argument {flag}: {exc}")
    if unused:
        return CLIError(f"{', '.join(unused)} does not apply to --algo {args.algo}")
    return None


def parse_args(parser, argv):
    """The namespace of ``argv`` (``fit`` in the --algo form) for :func:`.fit.run`;
    ``parser`` is the ``vcgmm`` parser, whose help ``--help`` shows."""
    words = argv[1:]

    def show_help():
        name = _algo_word(words)
        parser.parse_args(["fit"] + ([name] if name in ALGORITHMS else []) + ["--help"])

    flags = _all_flags()
    args, extra = _parser(flags, show_help).parse_known_args(words)
    if extra:  # reported by the vcgmm parser, as before
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    # --algo auto chooses by the data's size: its flags are checked once chosen
    args.check_flags = lambda: _own_values(args, flags)
    args.late_error = None if args.algo == "auto" else args.check_flags()
    args.func, args.alias, args.command = fit.run, True, "fit"
    return args
