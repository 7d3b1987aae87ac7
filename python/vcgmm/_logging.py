"""Progress output through :mod:`logging` (``verbose=True``), silent by default.

All progress lines go to the logger named ``"vcgmm"`` at INFO level. When a
caller asks for ``verbose=True`` and logging was never configured (neither
the ``vcgmm`` logger nor the root logger has a handler), a handler printing to
stderr is attached once, so verbose output is visible without any set-up; an
application that configures logging itself keeps full control.
"""

from __future__ import annotations

import logging
import sys

logger = logging.getLogger("vcgmm")

_default_handler = None


def progress_callback(verbose):
    """A callable taking one line of text, or None when not verbose."""
    if not verbose:
        return None
    _ensure_visible()
    return logger.info


def _ensure_visible():
    global _default_handler
    if _default_handler is not None:
        return
    if logger.handlers or logging.getLogger().handlers:
        if logger.getEffectiveLevel() > logging.INFO and not logger.level:
            logger.setLevel(logging.INFO)
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("[vcgmm] %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    _default_handler = handler
