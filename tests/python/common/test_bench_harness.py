"""bench/_harness.py's result header says which vcgmm package a run measured.

A benchmark run from a checkout may import an installed copy of vcgmm built
from older code; the header names the package directory and warns when it is
not the checkout's ``python/vcgmm``. Skipped outside a checkout.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
HARNESS = REPO_ROOT / "bench" / "_harness.py"

pytestmark = pytest.mark.skipif(not HARNESS.is_file(), reason="bench/ is not next to the tests")


def _harness():
    spec = importlib.util.spec_from_file_location("bench_harness_under_test", HARNESS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _info(cwd, core_path):
    return {"cwd": str(cwd), "command": "python -m bench.x", "date": "2026-01-01T00:00:00+00:00",
            "cpu_model": "cpu", "cpus_available": 2, "git": {"commit": "abc", "dirty": False},
            "versions": {}, "vcgmm_core_file": {"path": str(core_path), "sha256": "0" * 64}}


@pytest.mark.parametrize("inside", [True, False])
def test_header_names_the_package_and_warns_outside_the_checkout(tmp_path, inside):
    harness = _harness()
    checkout = tmp_path / "repo"
    (checkout / "python" / "vcgmm").mkdir(parents=True)
    installed = tmp_path / "site-packages" / "vcgmm"
    installed.mkdir(parents=True)
    package = checkout / "python" / "vcgmm" if inside else installed
    md = harness.write_results("probe", [("a", "a", "d")], [{"a": 1}], title="t",
                               info=_info(checkout, package / "_core.so"),
                               out_dir=tmp_path / "out")
    assert f"from `{package}`" in md
    warned = "not from this checkout's `python/vcgmm`" in md
    assert warned is not inside
