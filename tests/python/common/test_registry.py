"""The family registry (``vcgmm._registry``) is complete, and the shared tables
follow it: a new family that is registered but missing from the bad-input
table, the thread-independence tests, persistence or the command line fails
here."""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest

import vcgmm
from vcgmm._registry import ALGORITHMS, FAMILIES, saved_classes

from _bad_inputs import ENTRY_POINTS

TESTS = Path(__file__).resolve().parents[1]
#: public names that are building blocks or helpers, not a family's
BLOCKS = {"lwcs", "default_coreset_size", "kmeans_plusplus", "afkmc2", "assign",
          "assign_approximate", "ApproximateIndex", "quantization_error", "cancel_all",
          "ProgressRecord", "load", "VersionMismatchWarning", "show_build",
          "VariationalLoop", "VCGMMResult", "StochasticKMeansResult", "KernelKMeansResult"}


def _family_names():
    return {obj.__name__ for f in FAMILIES for obj in f.estimators + f.functions}


def test_every_public_algorithm_belongs_to_one_family():
    owners = {}
    for family in FAMILIES:
        for obj in family.estimators + family.functions:
            assert obj.__name__ not in owners, f"{obj.__name__} in two families"
            owners[obj.__name__] = family.name
    public = set(vcgmm.__all__) - BLOCKS
    assert public == set(owners), (public ^ set(owners))
    for name in owners:
        assert getattr(vcgmm, name) is next(
            o for f in FAMILIES for o in f.estimators + f.functions if o.__name__ == name)


def test_every_estimator_and_function_is_in_the_bad_input_table():
    for family in FAMILIES:
        for est in family.estimators:
            assert f"{est.__name__}.fit" in ENTRY_POINTS, est.__name__
            assert f"{est.__name__}.predict" in ENTRY_POINTS, est.__name__
        for fn in family.functions:
            assert fn.__name__ in ENTRY_POINTS, fn.__name__


def test_every_family_has_a_thread_independence_test():
    # Each family's test folder uses the shared helper at least once.
    for family in FAMILIES:
        folder = TESTS / family.name
        assert folder.is_dir(), f"no tests/python/{family.name}/"
        text = "".join(p.read_text() for p in folder.glob("test_*.py"))
        assert "assert_thread_independent" in text, family.name


def test_command_line_algorithms_come_from_the_families():
    assert list(ALGORITHMS) == [name for f in FAMILIES for name in f.cli]
    for family in FAMILIES:
        for choice in family.cli.values():
            assert choice.estimator in family.estimators
            assert set(choice.fixed) <= set(inspect.signature(choice.estimator).parameters)


@pytest.mark.parametrize("cls", sorted(saved_classes().values(), key=lambda c: c.__name__),
                         ids=lambda c: c.__name__)
def test_saved_classes_round_trip(cls, tmp_path):
    X = np.random.default_rng(0).normal(size=(300, 3))
    count = "n_components" if "n_components" in inspect.signature(cls).parameters else "n_clusters"
    est = cls(**{count: 4, "random_state": 0}).fit(X)
    path = tmp_path / "model.npz"
    est.save(path)
    loaded = vcgmm.load(path)
    assert type(loaded) is cls
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))


def test_saved_classes_are_the_center_based_families():
    expected = {c.__name__ for f in FAMILIES if f.has_centers for c in f.estimators}
    assert set(saved_classes()) == expected
    assert all(hasattr(c, "save") for c in saved_classes().values())
