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


def test_without_algo_the_alias_chooses_by_size(data, capsys, monkeypatch):
    """--algo auto: exact k-means while N C (D + 16) is at most the threshold,
    vc-GMM above it, each the same fit as its subcommand's, the choice printed."""
    from vcgmm.cli import fit

    base = ["-C", 3, "--seed", SEED, "--threads", 1]
    n, d = np.load(data).shape
    work = n * 3 * (d + 16)
    for threshold, name in ((work, "kmeans++"), (work - 1, "vcgmm")):
        monkeypatch.setattr(fit, "AUTO_LLOYD_WORK", threshold)
        _, alias, _ = run_cli(["fit", data, *base], capsys)
        _, new, _ = run_cli(["fit", name, data, *base], capsys)
        assert f"algorithm   : {name}: " in alias
        assert "(chosen by --algo auto: N C (D + 16) = " in alias
        chosen = [line for line in steady(alias).splitlines() if "chosen by" not in line]
        assert chosen == steady(new).splitlines()


def test_auto_chooses_vcgmm_for_chunked_data(tmp_path, blobs32, capsys):
    parts = tmp_path / "parts"
    parts.mkdir()
    for i, block in enumerate(np.array_split(blobs32, 3)):
        np.save(parts / f"{i}.npy", block)
    status, out, err = run_cli(["fit", parts, "-C", 3, "--seed", SEED, "--coreset-size", 200],
                               capsys)
    assert status == 0, err
    assert "algorithm   : vcgmm: " in out and "chunked data are fitted on a coreset" in out


def test_auto_checks_the_flags_of_its_choice(data, capsys):
    status, _, err = run_cli(["fit", data, "-C", 3, "--tau", 5], capsys)
    assert status == 2
    assert err.startswith("vcgmm: error: --tau does not apply to --algo kmeans++ (chosen by "
                          "--algo auto: N C (D + 16) = ")
    assert err.endswith("; name another with --algo)\n")
    status, _, err = run_cli(["fit", data, "-C", 3, "--max-iter", 2, "--seed", SEED], capsys)
    assert status == 0, err


def test_progress_counts_phases_and_iterations(data, capsys):
    """No total (the limit is a cap, not a forecast): a line per phase before
    the iterations, EM and refinement counted apart, each objective named."""
    status, out, err = run_cli(["fit", "vcgmm", data, "-C", 3, "--seed", SEED, "--threads", 1,
                                "--coreset-size", 200, "--progress"], capsys)
    assert status == 0, err
    em = int(re.search(r"iterations  : (\d+)", out).group(1))  # EM's (n_iter_)
    lines = err.replace("\r", "\n").splitlines()
    assert re.search(r"(?m)^coreset     : done in \d+\.\d\d s$", "\n".join(lines))
    assert re.search(r"(?m)^seeding     : done in \d+\.\d\d s$", "\n".join(lines))
    assert f"iterations  : {em} done" in lines
    assert any(re.match(r"iterations: \d+it .*free energy=.*gain~=", line) for line in lines)
    # 3 refinement steps on the coreset and the data step on all points
    assert any(re.match(r"refinement: 4it .*error=.*change=", line) for line in lines)
    assert not any(re.search(r"\d+/\d+", line) for line in lines)  # no total, no ETA


def test_progress_of_mbatch_shows_the_batch_error_without_a_change(data, capsys):
    # mbatch's stop rule watches a smoothed error, not a change against tol:
    # the change between two random batches is noise and is not shown.
    status, _, err = run_cli(["fit", "mbatch", data, "-C", 3, "--seed", SEED, "--threads", 1,
                              "--max-iter", 5, "--progress"], capsys)
    assert status == 0, err
    lines = err.replace("\r", "\n").splitlines()
    assert any(re.match(r"iterations: \d+it .*batch error=", line) for line in lines)
    assert not any("change=" in line for line in lines)


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
    # --batch-size auto: each family's own default batch
    status, out, err = run_cli(["fit", "kernel-kmeans", *base, "--batch-size", "auto",
                                "--max-iter", 3], capsys)
    assert status == 0, err
    assert "batch 600 = min(1024, n)" in out
    status, _, err = run_cli(["fit", "mbatch", *base, "--batch-size", "auto",
                              "--max-iter", 3], capsys)
    assert status == 0, err
    assert "argument --batch-size" in usage_error(
        ["fit", "kernel-kmeans", *base, "--batch-size", "0"], capsys)


def test_another_algorithms_flag_is_unknown_to_a_subcommand(data, capsys):
    last = usage_error(["fit", "kmeans++", data, "-C", 3, "--tau", 5], capsys)
    assert "unrecognized arguments: --tau 5" in last
    # a fixed parameter is not a flag of the choice that fixes it
    last = usage_error(["fit", "kmeans++", data, "-C", 3, "--coreset-size", 50], capsys)
    assert "unrecognized arguments: --coreset-size 50" in last
    # ... while the --algo form keeps its message
    status, _, err = run_cli(["fit", data, "-C", 3, "--tau", 5], capsys)
    assert status == 2 and err.startswith("vcgmm: error: --tau does not apply to --algo kmeans++ ")


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
