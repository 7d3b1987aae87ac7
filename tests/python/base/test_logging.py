"""verbose=True and the application's logging: progress lines reach stderr when
logging is unconfigured, and the application's own handlers, exactly once, when
it configures logging, even after a first verbose fit (the "vcgmm" logger is
never cut off from propagation)."""

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import logging, sys
    import numpy as np
    import vcgmm

    X = np.random.default_rng(0).normal(size=(500, 3))
    vcgmm.KMeans(4, random_state=0, n_threads=1, verbose=True).fit(X)   # unconfigured
    print("--- configured", file=sys.stderr, flush=True)
    logging.basicConfig(stream=sys.stdout, level=logging.WARNING,
                        format="APP %(name)s %(message)s")
    vcgmm.KMeans(4, random_state=0, n_threads=1, verbose=True).fit(X)   # configured after
    vcgmm.KMeans(4, random_state=0, n_threads=1).fit(X)                 # not verbose
""")


@pytest.fixture(scope="module")
def run():
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    before, after = proc.stderr.split("--- configured\n")
    return before, after, proc.stdout


def test_unconfigured_logging_prints_to_stderr(run):
    before, _, _ = run
    lines = [line for line in before.splitlines() if line.startswith("[vcgmm] ")]
    assert len(lines) >= 3, before
    assert lines[0].startswith("[vcgmm] k-means seeding")


def test_configured_logging_receives_every_record_once(run):
    before, after, stdout = run
    assert "[vcgmm]" not in after  # the fallback is silent once logging is configured
    app = [line[len("APP vcgmm "):] for line in stdout.splitlines() if line.startswith("APP vcgmm ")]
    first = [line[len("[vcgmm] "):] for line in before.splitlines() if line.startswith("[vcgmm] ")]
    # The same fit logs the same lines (timings aside), once each, to the application.
    assert len(app) == len(first)
    assert [line.split()[0] for line in app] == [line.split()[0] for line in first]
