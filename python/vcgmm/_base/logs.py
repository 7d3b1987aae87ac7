"""Progress output through :mod:`logging` (``verbose=True``), silent by default.

All progress lines go to the logger named ``"vcgmm"`` at INFO level and
propagate to the application's handlers like any library's records. So that
``verbose=True`` shows something without any set-up, a fallback handler
printing to stderr is attached to the ``"vcgmm"`` logger once; it prints only
while logging is unconfigured (no handler on the root logger). An application
that configures logging, before or after the first verbose fit, receives every
record through its own handlers, exactly once.
"""

from __future__ import annotations

import logging
import sys

logger = logging.getLogger("vcgmm")

_default_handler = None


class _FallbackHandler(logging.StreamHandler):
    """stderr output while the root logger has no handler (logging not
    configured); otherwise silent, the records reaching the application's
    handlers by propagation."""

    def emit(self, record):
        if logging.getLogger().handlers or any(h is not self for h in logger.handlers):
            return
        super().emit(record)


def progress_callback(verbose):
    """A callable taking one line of text, or None when not verbose."""
    if not verbose:
        return None
    _ensure_visible()
    return logger.info


def _ensure_visible():
    global _default_handler
    if logger.level == logging.NOTSET and logger.getEffectiveLevel() > logging.INFO:
        logger.setLevel(logging.INFO)  # verbose asks for INFO; an explicit level is kept
    if _default_handler is not None:
        return
    handler = _FallbackHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("[vcgmm] %(message)s"))
    logger.addHandler(handler)
    _default_handler = handler
