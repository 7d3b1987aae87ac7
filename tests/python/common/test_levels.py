"""Every instruction-set level this installation built loads and clusters alike.

The package ships one extension module per level (generic, AVX2, AVX-512) and
imports the widest one the CPU supports; VCGMM_OPT_LEVEL forces another. A
level that is missing from a wheel, or miscompiled, would otherwise only show
on the machines that pick it.
"""

import json
import os
import subprocess
import sys

import pytest

from vcgmm import _core as _generic
from vcgmm._base.loader import available_levels

_FIT = """
import json, numpy as np, vcgmm
from vcgmm._base.loader import opt_level
rng = np.random.RandomState(0)
X = np.concatenate([rng.normal(10.0 * c, 1.0, (200, 6)) for c in range(4)])
km = vcgmm.KMeans(n_clusters=4, random_state=0, n_threads=1).fit(X)
print(json.dumps({"level": opt_level, "labels": km.labels_.tolist()}))
"""


def _cpu_has(level):
    return level == "generic" or _generic.cpu_features().get(level, False)


@pytest.mark.parametrize("level", available_levels())
def test_each_built_level_loads_and_gives_the_same_clusters(level):
    if not _cpu_has(level):
        pytest.skip(f"this CPU cannot run the {level} module")
    env = dict(os.environ, VCGMM_OPT_LEVEL=level)
    out = subprocess.run([sys.executable, "-c", _FIT], env=env, capture_output=True,
                         text=True, check=True).stdout
    got = json.loads(out.splitlines()[-1])
    assert got["level"] == level
    labels = got["labels"]
    # Four blobs 10 standard deviations apart: each is one cluster.
    assert [len(set(labels[i:i + 200])) for i in range(0, 800, 200)] == [1, 1, 1, 1]
    assert len(set(labels)) == 4
