"""bench/results/README.md, the index of the recorded benchmark results, is up to date.

``bench/index.py`` generates it from the JSON files under ``bench/results/``;
these tests run its ``--check`` mode and follow the links it holds. The
repository is found from this file's path (the suite may run with its working
directory elsewhere); outside a checkout (an installed wheel's tests, no
``bench/`` next to them) they are skipped.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
INDEX_SCRIPT = REPO_ROOT / "bench" / "index.py"
RESULTS_DIR = REPO_ROOT / "bench" / "results"

pytestmark = pytest.mark.skipif(not INDEX_SCRIPT.is_file(),
                                reason="bench/ is not next to the tests")


def test_results_index_is_up_to_date():
    proc = subprocess.run([sys.executable, str(INDEX_SCRIPT), "--check"], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, (
        "bench/results/README.md is stale; regenerate it with `python -m bench.index` "
        f"from the repository root.\n{proc.stdout}{proc.stderr}")


def test_every_linked_result_exists():
    text = (RESULTS_DIR / "README.md").read_text(encoding="utf-8")
    links = [link for link in re.findall(r"\]\(([^)\s]+)\)", text)
             if not link.startswith(("#", "http://", "https://"))]
    tables = [link for link in links if link.endswith(".md")]
    assert tables, "the index links no result table"
    missing = [link for link in links if not (RESULTS_DIR / link).is_file()]
    assert not missing, f"bench/results/README.md links files that do not exist: {missing}"
