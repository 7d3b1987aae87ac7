"""The command line (vcgmm.cli) and its file readers (vcgmm._data.files); the demo's
table is tested in test_table1.py.

Most tests call ``vcgmm.cli.main([...])`` in-process (fast, and an uncaught
exception fails the test, so "no traceback" is checked too); a few run
``python -m vcgmm`` in a subprocess to check exit statuses and stderr of the
real program. Fits use one thread: results do not depend on the thread count,
and on a busy 2-core machine tiny parallel fits only wait for the other core.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import vcgmm
from vcgmm import cli
from vcgmm._data.files import load_data, open_data

SEED = 7


def run_cli(args, capsys):
    status = cli.main([str(a) for a in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def printed_error(out):
    match = re.search(r"quantization error \(full data\): (\S+)", out)
    assert match, out
    return float(match.group(1))


# ------------------------------------------------------------------ readers

def test_npy_is_memory_mapped(tmp_path, blobs32):
    path = tmp_path / "x.npy"
    np.save(path, blobs32)
    X = load_data(path)
    assert isinstance(X, np.memmap)
    assert X.dtype == np.float32 and X.flags.c_contiguous
    np.testing.assert_array_equal(X, blobs32)


@pytest.mark.parametrize("array", [
    np.arange(24, dtype=np.float64).reshape(6, 4) / 7,
    np.asfortranarray(np.arange(24, dtype=np.float32).reshape(6, 4)),
    np.arange(24, dtype=np.int16).reshape(4, 6),
])
def test_uncompressed_npz_member_is_memory_mapped(tmp_path, array):
    path = tmp_path / "x.npz"
    # other members before and after, so the member's offset is not trivial
    np.savez(path, first=np.ones(3), X=array, last=np.zeros((2, 2)))
    X, notes = open_data(path, key="X")
    assert isinstance(X, np.memmap)
    assert X.dtype == array.dtype and X.shape == array.shape
    np.testing.assert_array_equal(X, array)
    assert any("memory-mapped" in n for n in notes)


def test_compressed_npz_is_loaded_and_noted(tmp_path, blobs32):
    path = tmp_path / "x.npz"
    np.savez_compressed(path, data=blobs32)
    with zipfile.ZipFile(path) as zf:  # the test's premise
        assert zf.getinfo("data.npy").compress_type == zipfile.ZIP_DEFLATED
    X, notes = open_data(path)
    assert not isinstance(X, np.memmap)
    np.testing.assert_array_equal(X, blobs32)
    assert any("compressed" in n for n in notes)


@pytest.mark.parametrize("delimiter", [",", ";", "\t", " "])
@pytest.mark.parametrize("header", [False, True])
def test_text_files(tmp_path, blobs32, delimiter, header):
    X64 = blobs32[:50].astype(np.float64)
    path = tmp_path / "x.csv"
    names = delimiter.join(f"feature{j}" for j in range(X64.shape[1]))
    np.savetxt(path, X64, fmt="%.17g", delimiter=delimiter,
               header=names if header else "", comments="")
    if not header:  # savetxt writes an empty first line for header=""
        path.write_text(path.read_text().lstrip("\n"))
    X, notes = open_data(path)
    assert X.dtype == np.float64 and X.shape == X64.shape
    np.testing.assert_array_equal(X, X64)
    assert any("skipped as a header" in n for n in notes) == header
    assert any("comma-separated" in n for n in notes) == (delimiter == ",")


def test_single_column_text_and_dtype(tmp_path):
    path = tmp_path / "one.txt"
    path.write_text("value\n1.5\n2.5\n-3\n")
    X = load_data(path, dtype=np.float32)
    assert X.shape == (3, 1) and X.dtype == np.float32
    np.testing.assert_array_equal(X[:, 0], [1.5, 2.5, -3.0])


def test_dtype_conversion_copies(tmp_path, blobs32):
    path = tmp_path / "x.npy"
    np.save(path, blobs32)
    X, notes = open_data(path, dtype="float64")
    assert X.dtype == np.float64 and not isinstance(X, np.memmap)
    np.testing.assert_array_equal(X, blobs32)
    assert any("converted float32 to float64" in n for n in notes)


@pytest.mark.parametrize("make, kwargs, message", [
    (lambda p: None, {}, "no such file"),
    (lambda p: p.with_suffix(".bin").write_bytes(b"123"), {}, "unsupported file type"),
    (lambda p: np.save(p.with_suffix(".npy"), np.arange(5.0)), {}, "expected a 2-D array"),
    (lambda p: np.save(p.with_suffix(".npy"), np.zeros((2, 3, 4))), {}, "expected a 2-D array"),
    (lambda p: np.save(p.with_suffix(".npy"), np.zeros((0, 3))), {}, "empty array"),
    (lambda p: np.save(p.with_suffix(".npy"), np.zeros((3, 2), complex)), {}, "real numbers"),
    (lambda p: np.savez(p.with_suffix(".npz"), a=np.ones((2, 2)), b=np.ones((2, 2))), {},
     "contains 2 arrays"),
    (lambda p: np.savez(p.with_suffix(".npz"), a=np.ones((2, 2))), {"key": "b"},
     "no array named 'b'"),
    (lambda p: np.save(p.with_suffix(".npy"), np.ones((2, 2))), {"key": "a"},
     "only applies to .npz"),
    (lambda p: p.with_suffix(".csv").write_text("1,2\n3,x\n"), {}, "table of numbers"),
    (lambda p: p.with_suffix(".csv").write_text("\n# nothing\n"), {}, "no data"),
    (lambda p: p.with_suffix(".npy").write_bytes(b"not numpy"), {}, "is not a .npy file"),
])
def test_reader_errors(tmp_path, make, kwargs, message):
    base = tmp_path / "data"
    make(base)
    written = [p for p in tmp_path.iterdir()]
    path = written[0] if written else base.with_suffix(".npy")
    with pytest.raises((ValueError, FileNotFoundError), match=re.escape(message)):
        load_data(path, **kwargs)


# ---------------------------------------------------------------------- fit

@pytest.mark.parametrize("algo", ["kmeans++", "lwcs"])
def test_fit_npy_matches_estimator(tmp_path, capsys, blobs32, algo):
    data, centers_path, labels_path = tmp_path / "x.npy", tmp_path / "c.npy", tmp_path / "l.npy"
    np.save(data, blobs32)
    status, out, err = run_cli(
        ["fit", data, "-C", 8, "--algo", algo, "--seed", SEED, "--threads", 1,
         "--out", centers_path, "--labels-out", labels_path], capsys)
    assert status == 0, err
    if algo == "kmeans++":
        ref = vcgmm.KMeans(8, random_state=SEED, n_threads=1).fit(blobs32)
    else:  # default coreset size min(n, max(4096, 64 C)) = n = 600
        assert "N'=600" in out
        ref = vcgmm.KMeans(8, init="afk-mc2", coreset_size=600, random_state=SEED,
                           n_threads=1).fit(blobs32)
    centers, labels = np.load(centers_path), np.load(labels_path)
    np.testing.assert_array_equal(centers, ref.cluster_centers_)
    np.testing.assert_array_equal(labels, ref.labels_)
    assert centers.dtype == np.float32 and labels.dtype == np.int32
    # the printed summary agrees with the files and the estimator
    assert printed_error(out) == pytest.approx(ref.inertia_, rel=1e-11)
    assert printed_error(out) == pytest.approx(
        vcgmm.quantization_error(blobs32, centers), rel=1e-6)
    np.testing.assert_array_equal(labels, vcgmm.assign(blobs32, centers))
    assert f"iterations  : {ref.n_iter_}" in out
    assert "memory-mapped" in out
    assert f"{ref.n_distance_evals_['iterations']:,}" in out
    assert "600 x 5 float32" in out


def test_fit_lwcs_coreset_size_and_chain(tmp_path, capsys, blobs32):
    data = tmp_path / "x.npy"
    np.save(data, blobs32)
    status, out, err = run_cli(["fit", data, "-C", 4, "--algo", "lwcs", "--coreset-size", 100,
                                "--chain-length", 3, "--seed", 1, "--threads", 1], capsys)
    assert status == 0, err
    ref = vcgmm.KMeans(4, init="afk-mc2", coreset_size=100, chain_length=3, random_state=1,
                       n_threads=1).fit(blobs32)
    assert printed_error(out) == pytest.approx(ref.inertia_, rel=1e-11)
    assert "N'=100" in out and "chain length 3" in out


@pytest.mark.parametrize("algo", ["vcgmm", "vargmm"])
def test_fit_vcgmm_matches_estimator(tmp_path, capsys, blobs32, algo):
    data, centers_path = tmp_path / "x.npy", tmp_path / "c.npy"
    np.save(data, blobs32)
    args = ["fit", data, "-C", 8, "--algo", algo, "-G", 3, "--stop-rule", "relative",
            "--seed", SEED, "--threads", 1, "--out", centers_path]
    coreset_size = None
    if algo == "vcgmm":
        coreset_size = 300
        args += ["--coreset-size", coreset_size]
    status, out, err = run_cli(args, capsys)
    assert status == 0, err
    ref = vcgmm.VCGMM(8, G=3, coreset_size=coreset_size, stop_rule="relative",
                      random_state=SEED, n_threads=1).fit(blobs32)
    np.testing.assert_array_equal(np.load(centers_path), ref.cluster_centers_)
    assert printed_error(out) == pytest.approx(ref.inertia_, rel=1e-11)
    assert f"iterations  : {ref.n_iter_}" in out
    assert f"{ref.n_distance_evals_['iterations']:,}" in out


@pytest.mark.parametrize("algo, flags, make", [
    ("mbatch", ["--batch-size", 100, "--max-iter", 7],
     lambda: vcgmm.MiniBatchKMeans(8, batch_size=100, max_iter=7, random_state=SEED, n_threads=1)),
    ("nmbatch", ["--batch-size", 50, "--rho", "inf", "--bounds", "yinyang"],
     lambda: vcgmm.NestedMiniBatchKMeans(8, batch_size=50, rho=np.inf, bounds="yinyang",
                                         random_state=SEED, n_threads=1)),
    ("vrkm", ["--learning-rate", 0.05, "--epoch-size", 300, "--update-rule", "label-change"],
     lambda: vcgmm.VRKMeans(8, variant="vrkm", learning_rate=0.05, epoch_size=300,
                            update_rule="label-change", random_state=SEED, n_threads=1)),
    ("vrkm++", ["--max-epochs", 3, "--block-size", 16],
     lambda: vcgmm.VRKMeans(8, max_epochs=3, block_size=16, random_state=SEED, n_threads=1)),
])
def test_fit_stochastic_matches_estimator(tmp_path, capsys, blobs32, algo, flags, make):
    data, centers_path = tmp_path / "x.npy", tmp_path / "c.npy"
    np.save(data, blobs32)
    status, out, err = run_cli(["fit", data, "-C", 8, "--algo", algo, *flags, "--seed", SEED,
                                "--threads", 1, "--out", centers_path], capsys)
    assert status == 0, err
    ref = make().fit(blobs32)
    np.testing.assert_array_equal(np.load(centers_path), ref.cluster_centers_)
    assert printed_error(out) == pytest.approx(ref.inertia_, rel=1e-11)
    assert f"iterations  : {ref.n_iter_}" in out
    assert f"{ref.n_distance_evals_['iterations']:,}" in out


@pytest.fixture(scope="module")
def circles():
    """300 points on two concentric rings (not linearly separable), float64."""
    from sklearn.datasets import make_circles

    X, y = make_circles(300, factor=0.3, noise=0.05, random_state=0)
    return X, y


def printed_kernel_inertia(out):
    match = re.search(r"feature-space inertia \(full data\): (\S+)", out)
    assert match, out
    return float(match.group(1))


@pytest.mark.parametrize("flags, params", [
    (["--gamma", 5.0, "--batch-size", 64, "--tau", 50, "--max-iter", 30],
     dict(gamma=5.0, batch_size=64, tau=50, max_iter=30)),
    (["--kappa", 0.2, "--batch-size", 32, "--tau", 40, "--learning-rate", "sklearn",
      "--max-iter", 25, "--tol", 1e-3],
     dict(kappa=0.2, batch_size=32, tau=40, learning_rate="sklearn", max_iter=25, tol=1e-3)),
    (["--kernel-algorithm", "minibatch", "--batch-size", 50, "--max-iter", 10],
     dict(algorithm="minibatch", batch_size=50, max_iter=10)),
    (["--kernel-algorithm", "full", "--kernel", "poly", "--degree", 2, "--coef0", 0.5],
     dict(algorithm="full", kernel="poly", degree=2, coef0=0.5)),
    (["--kernel", "knn", "--n-neighbors", 8, "--kernel-algorithm", "full"],
     dict(kernel="knn", n_neighbors=8, algorithm="full")),
])
def test_fit_kernel_kmeans_matches_estimator(tmp_path, capsys, circles, flags, params):
    X, _ = circles
    data, labels_path = tmp_path / "x.npy", tmp_path / "labels.npy"
    np.save(data, X)
    status, out, err = run_cli(["fit", data, "-C", 2, "--algo", "kernel-kmeans", *flags,
                                "--seed", SEED, "--threads", 1, "--labels-out", labels_path],
                               capsys)
    assert status == 0, err
    ref = vcgmm.KernelKMeans(2, random_state=SEED, n_threads=1, **params).fit(X)
    np.testing.assert_array_equal(np.load(labels_path), ref.labels_)
    assert printed_kernel_inertia(out) == pytest.approx(ref.inertia_, rel=1e-11)
    assert f"iterations  : {ref.n_iter_}" in out
    assert "kernel evaluations" in out
    assert f"{ref.n_kernel_evals_['iterations']:,}" in out
    if params.get("kernel") == "knn":
        assert f"{ref.n_kernel_evals_['graph']:,}" in out


def test_fit_kernel_kmeans_precomputed(tmp_path, capsys, circles):
    X, _ = circles
    from sklearn.metrics.pairwise import rbf_kernel

    K = rbf_kernel(X, gamma=5.0)
    data, labels_path = tmp_path / "k.npy", tmp_path / "labels.csv"
    np.save(data, K)
    status, out, err = run_cli(["fit", data, "-C", 2, "--algo", "kernel-kmeans", "--kernel",
                                "precomputed", "--batch-size", 64, "--seed", SEED, "--threads",
                                1, "--labels-out", labels_path], capsys)
    assert status == 0, err
    ref = vcgmm.KernelKMeans(2, kernel="precomputed", batch_size=64, random_state=SEED,
                             n_threads=1).fit(K)
    np.testing.assert_array_equal(np.loadtxt(labels_path, dtype=np.int64), ref.labels_)
    assert printed_kernel_inertia(out) == pytest.approx(ref.inertia_, rel=1e-11)


@pytest.mark.parametrize("args, message", [
    # --learning-rate is a number for VRKM and a name for kernel k-means: each its own
    (["--algo", "kernel-kmeans", "--learning-rate", "0.05"],
     "argument --learning-rate: --learning-rate must be one of"),
    (["--algo", "vrkm", "--learning-rate", "beta"], "argument --learning-rate: "),
    (["--algo", "kernel-kmeans", "--out", "{d}/c.npy"],
     "--out does not apply to --algo kernel-kmeans"),
    (["--algo", "kernel-kmeans", "--tau", "5", "--rho", "2"],
     "--rho does not apply to --algo kernel-kmeans"),
    (["--algo", "kmeans++", "--tau", "5"], "--tau does not apply to --algo kmeans++"),
    (["--algo", "kernel-kmeans", "--batch-size", "601"],
     "batch_size=601 must be <= n_samples=600"),  # the library's message
    (["--algo", "kernel-kmeans", "--gamma", "2", "--kappa", "0.5"],
     "Give gamma or kappa"),
])
def test_fit_kernel_kmeans_errors_one_line(tmp_path, capsys, blobs32, args, message):
    np.save(tmp_path / "x.npy", blobs32)
    status, out, err = run_cli(["fit", tmp_path / "x.npy", "-C", 3, "--seed", 1,
                                *[a.format(d=tmp_path) for a in args]], capsys)
    assert status == 2
    assert err.startswith("vcgmm: error: ") and err.count("\n") == 1, err
    assert message in err
    assert not (tmp_path / "c.npy").exists()


def test_each_subcommand_gives_its_own_meaning_of_a_shared_flag(capsys):
    with pytest.raises(SystemExit):
        cli.main(["fit", "vrkm", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "VRKM's constant learning rate" in text and "sqrt(b_j / b)" not in text
    with pytest.raises(SystemExit):
        cli.main(["fit", "kernel-kmeans", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "beta: sqrt(b_j / b)" in text and "VRKM's constant learning rate" not in text


def test_fit_kernel_kmeans_unknown_kernel_is_a_usage_error(tmp_path, blobs32):
    np.save(tmp_path / "x.npy", blobs32)
    proc = _run_module("fit", str(tmp_path / "x.npy"), "-C", "3", "--algo", "kernel-kmeans",
                       "--kernel", "gaussian")
    assert proc.returncode == 2
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    last = proc.stderr.rstrip("\n").split("\n")[-1]  # argparse: usage lines, then the error
    assert last.startswith("vcgmm fit: error: argument --kernel: "), proc.stderr
    assert "'gaussian'" in last and "rbf" in last and "precomputed" in last


@pytest.mark.parametrize("kind", ["npz", "npz_compressed", "csv", "csv_header"])
def test_fit_other_formats(tmp_path, capsys, blobs32, kind):
    X64 = blobs32.astype(np.float64)
    if kind == "npz":
        path = tmp_path / "x.npz"
        np.savez(path, X=X64)
    elif kind == "npz_compressed":
        path = tmp_path / "x.npz"
        np.savez_compressed(path, X=X64)
    else:
        path = tmp_path / "x.csv"
        np.savetxt(path, X64, fmt="%.17g", delimiter=",",
                   header="a,b,c,d,e" if kind == "csv_header" else "", comments="")
        if kind == "csv":
            path.write_text(path.read_text().lstrip("\n"))
    labels_path = tmp_path / "labels.csv"
    status, out, err = run_cli(["fit", path, "-C", 8, "--seed", SEED, "--threads", 1,
                                "--labels-out", labels_path, "-v"], capsys)
    assert status == 0, err
    ref = vcgmm.KMeans(8, random_state=SEED, n_threads=1).fit(X64)
    assert printed_error(out) == pytest.approx(ref.inertia_, rel=1e-11)
    np.testing.assert_array_equal(np.loadtxt(labels_path, dtype=np.int64), ref.labels_)
    expected_note = {"npz": "memory-mapped (uncompressed .npz member)",
                     "npz_compressed": "decompressed into memory",
                     "csv": "text file read into memory (comma-separated)",
                     "csv_header": "skipped as a header: 'a,b,c,d,e'"}[kind]
    assert expected_note in out
    assert ("skipped as a header" in out) == (kind == "csv_header")


def test_fit_dtype_and_text_centers(tmp_path, capsys, blobs32):
    data, centers_path = tmp_path / "x.npy", tmp_path / "c.csv"
    np.save(data, blobs32)
    status, out, err = run_cli(["fit", data, "-C", 3, "--dtype", "float64", "--seed", 3,
                                "--threads", 1, "--out", centers_path], capsys)
    assert status == 0, err
    ref = vcgmm.KMeans(3, random_state=3, n_threads=1).fit(blobs32.astype(np.float64))
    np.testing.assert_array_equal(np.loadtxt(centers_path, delimiter=","), ref.cluster_centers_)
    assert "float64" in out


def test_fit_without_seed_prints_a_reusable_seed(tmp_path, capsys, blobs32):
    data = tmp_path / "x.npy"
    np.save(data, blobs32)
    status, out, _ = run_cli(["fit", data, "-C", 5, "--threads", 1], capsys)
    assert status == 0
    seed = int(re.search(r"seed=(\d+) \(drawn at random", out).group(1))
    status, out2, _ = run_cli(["fit", data, "-C", 5, "--threads", 1, "--seed", seed], capsys)
    assert printed_error(out2) == printed_error(out)


@pytest.mark.parametrize("setup, args, message", [
    (None, ["fit", "{d}/missing.npy", "-C", "3"], "no such file"),
    ("bin", ["fit", "{d}/x.bin", "-C", "3"], "unsupported file type"),
    ("npy", ["fit", "{d}/x.npy", "-C", "601"], "exceeds the number of samples (600)"),
    ("two", ["fit", "{d}/two.npz", "-C", "3"], "choose one with --key"),
    ("npy", ["fit", "{d}/x.npy", "-C", "3", "--coreset-size", "50"],
     "--coreset-size does not apply to --algo kmeans++"),
    ("npy", ["fit", "{d}/x.npy", "-C", "30", "--algo", "lwcs", "--coreset-size", "10"],
     "coreset_size=10 must be >= the number of clusters (30)"),  # the library's message
    ("npy", ["fit", "{d}/x.npy", "-C", "3", "--out", "{d}/c.bin"], "must end in one of"),
    ("npy", ["fit", "{d}/x.npy", "-C", "3", "--out", "{d}/no/c.npy"], "does not exist"),
    ("nan", ["fit", "{d}/x.npy", "-C", "3"], "X contains NaN (first at row 3, column 2)"),
])
def test_fit_errors_exit_2_with_one_line(tmp_path, capsys, blobs32, setup, args, message):
    if setup == "bin":
        (tmp_path / "x.bin").write_bytes(b"\0" * 16)
    elif setup == "npy":
        np.save(tmp_path / "x.npy", blobs32)
    elif setup == "nan":
        bad = blobs32.copy()
        bad[3, 2] = np.nan
        np.save(tmp_path / "x.npy", bad)
    elif setup == "two":
        np.savez(tmp_path / "two.npz", a=blobs32, b=blobs32)
    status, out, err = run_cli([a.format(d=tmp_path) for a in args], capsys)
    assert status == 2
    assert err.startswith("vcgmm: error: ") and err.count("\n") == 1, err
    assert message in err
    assert "Traceback" not in err
    assert not (tmp_path / "c.npy").exists()


def test_usage_errors_are_argparse_errors(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["fit", "x.npy", "-C", "0"])
    assert exc.value.code == 2
    assert "argument -C/--clusters: -C must be an integer in [1, " in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        cli.main(["fit", "x.npy"])  # -C is required
    assert exc.value.code == 2


def _run_module(*args):
    return subprocess.run([sys.executable, "-m", "vcgmm", *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "OMP_NUM_THREADS": "1"})


def test_module_entry_point_errors_and_version(tmp_path):
    proc = _run_module("fit", str(tmp_path / "missing.npy"), "-C", "3")
    assert proc.returncode == 2
    assert proc.stderr == f"vcgmm: error: no such file: {tmp_path / 'missing.npy'}\n"
    assert proc.stdout == ""
    proc = _run_module("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"vcgmm {vcgmm.__version__}"


# ----------------------------------------------------------- version, info

def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"vcgmm {vcgmm.__version__}"


def test_info(capsys):
    status, out, _ = run_cli(["info"], capsys)
    build = vcgmm.show_build()
    assert status == 0
    assert out.startswith(f"vcgmm {build['version']}\n")
    assert re.search(rf"instruction set in use\s*: {build['opt_level']}\b", out)
    assert re.search(rf"OpenMP\s*: {'yes' if build['openmp'] else 'no'}\b", out)
    for level in build["available_levels"]:
        assert level in out
