"""The ``vcgmm`` command line (``vcgmm fit``, ``vcgmm demo``, ``vcgmm info``)."""

from .main import build_parser, main

__all__ = ["build_parser", "main"]
