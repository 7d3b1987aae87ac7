"""Every instruction-set level this installation built loads and clusters alike.

The package ships one extension module per level it was built for (generic,
AVX2, AVX-512; a source install only the building CPU's widest) and imports the
widest one the CPU supports; VCGMM_OPT_LEVEL forces another. A level that is
missing from a wheel, or miscompiled, would otherwise only show on the machines
that pick it; a CPU that runs none of the built levels must get an ImportError
that says so, not a crash on an illegal instruction.
"""

import json
import os
import subprocess
import sys

import pytest

from vcgmm._base import loader
from vcgmm._base.loader import available_levels, cpu_features

_FIT = """
import json, numpy as np, vcgmm
from vcgmm._base.loader import opt_level
rng = np.random.RandomState(0)
X = np.concatenate([rng.normal(10.0 * c, 1.0, (200, 6)) for c in range(4)])
km = vcgmm.KMeans(n_clusters=4, random_state=0, n_threads=1).fit(X)
print(json.dumps({"level": opt_level, "labels": km.labels_.tolist()}))
"""


def _cpu_has(level):
    return level == "generic" or cpu_features().get(level, False)


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


def _built(*levels):
    """An importer that finds exactly `levels` (stand-ins for the modules)."""
    return lambda level: f"module {level}" if level in levels else None


def test_the_widest_built_level_the_cpu_runs_is_chosen():
    avx2_cpu = {"avx2": True, "avx512": False}
    assert loader._choose(avx2_cpu, _built("generic", "avx2", "avx512")) == ("avx2", "module avx2")
    assert loader._choose(avx2_cpu, _built("generic", "avx512")) == ("generic", "module generic")
    assert loader._choose({"avx2": True, "avx512": True}, _built("avx512")) == \
        ("avx512", "module avx512")


def test_a_cpu_without_any_built_level_gets_an_import_error_naming_both():
    # A source install on an AVX-512 machine holds only _core_avx512; copied to
    # an AVX2 machine it must refuse to import, saying how to rebuild.
    with pytest.raises(ImportError, match=r"compiled for the instruction sets avx512, and this "
                                          r"CPU runs only generic, avx2.*LEVELS=all"):
        loader._choose({"avx2": True, "avx512": False}, _built("avx512"))


def test_the_cpu_module_reports_both_levels():
    features = cpu_features()
    assert set(features) == {"avx2", "avx512"}
    assert all(isinstance(v, bool) for v in features.values())
    assert not features["avx512"] or features["avx2"]
    assert loader.opt_level in available_levels()
    assert _cpu_has(loader.opt_level)
