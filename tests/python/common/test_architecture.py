"""ARCHITECTURE.md stays true and short: every path it cites exists, its
decision table's rows are short, and it fits about a screen and a half."""

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
DOC = REPO / "ARCHITECTURE.md"
# Folders a short path in the text is relative to, tried in order.
ROOTS = ("", "cpp/src", "cpp/include/vcgmm", "python/src", "python/vcgmm", "tests/python", "bench")


def _text():
    if not DOC.is_file():
        pytest.skip("ARCHITECTURE.md is not beside the tests (installed-wheel run)")
    return DOC.read_text()


def _cited_paths(text):
    for token in re.findall(r"`([^`\s]+)`", text):
        token = token.split("::")[0].rstrip(",")
        if "<" in token or not re.search(r"/|\.(py|cpp|hpp|md|toml|txt)$", token):
            continue
        yield token


def _exists(token):
    for root in ROOTS:
        base = REPO / root
        if "*" in token:
            if any(base.glob(token)):
                return True
        elif (base / token).exists():
            return True
    return False


def test_every_cited_path_exists():
    missing = sorted({t for t in _cited_paths(_text()) if not _exists(t)})
    assert not missing, f"ARCHITECTURE.md cites paths that do not exist: {missing}"


def test_short():
    text = _text()
    assert len(text.splitlines()) <= 160
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    long_rows = [r for r in rows if len(r) > 160]
    assert not long_rows, long_rows
