"""``vcgmm fit ALGORITHM ...``: one subcommand per algorithm of the registry,
each with the flags of its own parameter table, and the older ``--algo`` form
as an alias with the same output and messages (test_cli.py pins those)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from vcgmm import cli
from vcgmm._registry import ALGORITHMS

SEED = 7

# Small settings that keep each fit short.
QUICK = {
    "kmeans++": [], "lwcs": ["--coreset-size", "200"], "vcgmm": ["--coreset-size", "200", "-G", "3"],
    "vargmm": ["-G", "3"], "mbatch": ["--batch-size", "100", "--max-iter", "5"],
    "nmbatch": ["--batch-size", "50"], "vrkm++": ["--max-epochs", "2"],
    "vrkm": ["--max-epochs", "2", "--learning-rate", "0.05"],
    "kernel-kmeans": ["--gamma", "0.5", "--batch-size", "64", "--tau", "30", "--max-iter", "5"],
}


def run_cli(args, capsys):
    status = cli.main([str(a) for a in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def usage_error(args, capsys):
    """argparse's exit: status 2 and the last line of stderr."""
    with pytest.raises(SystemExit) as exc:
        cli.main([str(a) for a in args])
    assert exc.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


def help_text(args, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(args)
    assert exc.value.code == 0
    return capsys.readouterr().out


def steady(out):
    """The report without its timings."""
    out = re.sub(r"read in \d+\.\d+ s", "read in - s", out)
    out = re.sub(r"wall time   : \S+ s", "wall time   : - s", out)
    return re.sub(r"(?m)^(  \S.*\s)\d+\.\d{3}$", r"\1-", out)


@pytest.fixture
def data(tmp_path, blobs32):
    path = tmp_path / "x.npy"
    np.save(path, blobs32)
    return path


def test_quick_settings_cover_the_registry():
    assert set(QUICK) == set(ALGORITHMS)


def test_fit_help_lists_the_algorithms_and_both_forms(capsys):
    text = help_text(["fit", "--help"], capsys)
    flat = " ".join(text.split())
    for name, spec in ALGORITHMS.items():
        assert re.search(rf"(?m)^\s+{re.escape(name)}\s", text), name
        assert " ".join(spec.summary.split()[:4]) in flat, name
    assert "vcgmm fit ALGORITHM DATA -C N" in flat
    assert "--algo ALGORITHM" in flat


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_subcommand_help_has_its_own_flags_only(capsys, name):
    text = help_text(["fit", name, "--help"], capsys)
    spec = ALGORITHMS[name]
    skip = set(spec.fixed) | set(spec.unused)
    own = {f for p in spec.estimator._params if p.name not in skip for f in p.flags}
    others = {f for other in ALGORITHMS.values() for p in other.estimator._params
              for f in p.flags} - own
    for flag in own:
        assert re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", text), (name, flag)
    for flag in others:
        assert not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", text), (name, flag)
    for flag in ("DATA", "-C", "--seed", "--threads", "--dtype", "--key", "--labels-out",
                 "--verbose", "--progress"):
        assert flag in text, (name, flag)
    assert ("--out" in text) == spec.writes_centers


def test_defaults_shown_are_the_choices(capsys):
    """lwcs's --coreset-size defaults to 'auto' (its choice), kmeans++ has none
    (fixed); vcgmm's -G shows its table's default."""
    lwcs = " ".join(help_text(["fit", "lwcs", "--help"], capsys).split())
    assert re.search(r"--coreset-size CORESET-SIZE .*?\(default: 'auto'\)", lwcs)
    assert "--coreset-size" not in help_text(["fit", "kmeans++", "--help"], capsys)
    assert re.search(r"-G G .*?\(default: \d+\)",
                     " ".join(help_text(["fit", "vcgmm", "--help"], capsys).split()))


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_both_forms_give_the_same_fit(tmp_path, data, capsys, name):
    common = ["-C", 4, *QUICK[name], "--seed", SEED, "--threads", 1]
    outputs = {}
    for form, args in {
        "subcommand": ["fit", name, data, *common],
        "alias": ["fit", data, "--algo", name, *common],
        "alias=": ["fit", f"--algo={name}", data, *common],
    }.items():
        labels = tmp_path / f"{form}.npy"
        status, out, err = run_cli([*args, "--labels-out", labels], capsys)
        assert status == 0, err
        outputs[form] = (steady(out.replace(str(labels), "LABELS")), np.load(labels))
    reference = outputs.pop("subcommand")
    assert f"algorithm   : {name}: " in reference[0]
    for out, labels in outputs.values():
        assert out == reference[0]
        np.testing.assert_array_equal(labels, reference[1])


def test_without_algo_the_alias_is_kmeans_plus_plus(data, capsys):
    base = ["-C", 3, "--seed", SEED, "--threads", 1]
    _, alias, _ = run_cli(["fit", data, *base], capsys)
    _, new, _ = run_cli(["fit", "kmeans++", data, *base], capsys)
    assert steady(alias) == steady(new) and "algorithm   : kmeans++: " in new


def test_a_flag_means_what_the_subcommand_says(data, capsys):
    base = [data, "-C", 3, "--seed", 1, "--threads", 1]
    # --learning-rate: a name for kernel k-means, a number for VRKM
    last = usage_error(["fit", "kernel-kmeans", *base, "--learning-rate", "0.05"], capsys)
    assert last.startswith("vcgmm fit kernel-kmeans: error: argument --learning-rate: ")
    assert "'beta'" in last
    last = usage_error(["fit", "vrkm", *base, "--learning-rate", "beta"], capsys)
    assert last.startswith("vcgmm fit vrkm: error: argument --learning-rate: ")
    status, out, err = run_cli(["fit", "kernel-kmeans", *base, "--learning-rate", "sklearn",
                                "--batch-size", 64, "--max-iter", 3], capsys)
    assert status == 0, err
    assert "sklearn learning rate" in out
    # --batch-size auto: mbatch's, not kernel k-means'
    assert "argument --batch-size" in usage_error(
        ["fit", "kernel-kmeans", *base, "--batch-size", "auto"], capsys)
    status, _, err = run_cli(["fit", "mbatch", *base, "--batch-size", "auto",
                              "--max-iter", 3], capsys)
    assert status == 0, err


def test_another_algorithms_flag_is_unknown_to_a_subcommand(data, capsys):
    last = usage_error(["fit", "kmeans++", data, "-C", 3, "--tau", 5], capsys)
    assert "unrecognized arguments: --tau 5" in last
    # a fixed parameter is not a flag of the choice that fixes it
    last = usage_error(["fit", "kmeans++", data, "-C", 3, "--coreset-size", 50], capsys)
    assert "unrecognized arguments: --coreset-size 50" in last
    # ... while the --algo form keeps its message
    status, _, err = run_cli(["fit", data, "-C", 3, "--tau", 5], capsys)
    assert status == 2 and err == "vcgmm: error: --tau does not apply to --algo kmeans++\n"


def test_subcommand_usage_errors(data, capsys):
    last = usage_error(["fit", "vcgmm"], capsys)
    assert last == ("vcgmm fit vcgmm: error: the following arguments are required: "
                    "DATA, -C/--clusters")
    last = usage_error(["fit", "vcgmm", data, "-C", 0], capsys)
    assert last.startswith("vcgmm fit vcgmm: error: argument -C/--clusters: -C must be an "
                           "integer in [1, ")
    last = usage_error(["fit", "vcgmm", data, "-C", 3, "-G", 2**31], capsys)
    assert last.startswith("vcgmm fit vcgmm: error: argument -G: ") and "2147483648" in last
    # the alias form's usage errors are those of 'vcgmm fit', as before
    last = usage_error(["fit", data, "-C", 3, "--algo", "vcgmm", "-G", 2**31], capsys)
    assert last.startswith("vcgmm fit: error: argument -G: ") and "2147483648" in last
    last = usage_error(["fit", data, "-C", 3, "--algo", "k-means"], capsys)
    assert last.startswith("vcgmm fit: error: argument --algo: invalid choice: 'k-means'")


def test_subcommand_messages_name_the_subcommand(data, tmp_path, capsys):
    status, _, err = run_cli(["fit", "kernel-kmeans", data, "-C", 3, "--out",
                              tmp_path / "c.npy"], capsys)
    assert status == 2
    assert err.startswith("vcgmm: error: --out does not apply to 'vcgmm fit kernel-kmeans': ")
    folder = tmp_path / "parts"
    folder.mkdir()
    np.save(folder / "part0.npy", np.load(data))
    status, _, err = run_cli(["fit", "vargmm", folder, "-C", 3], capsys)
    assert status == 2 and "'vcgmm fit vargmm' fits on all points" in err
    assert "'vcgmm fit vcgmm'" in err and "'vcgmm fit lwcs'" in err
    status, _, err = run_cli(["fit", folder, "-C", 3, "--algo", "vargmm"], capsys)
    assert status == 2 and "--algo vargmm fits on all points" in err


def test_alias_help_is_the_subcommands(capsys):
    assert (help_text(["fit", "--algo", "vcgmm", "--help"], capsys)
            == help_text(["fit", "vcgmm", "--help"], capsys))
    assert (help_text(["fit", "x.npy", "-h"], capsys)
            == help_text(["fit", "--help"], capsys))
