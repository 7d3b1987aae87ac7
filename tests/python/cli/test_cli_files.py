"""The command line's file safety and its messages about files: one test per
rule.

Rules: an output never overwrites the input or another output, nor lands
where the next run on the same chunked input would read it as data; output paths
are checked before the fit; outputs are written atomically (a temporary file
renamed over the target); a UTF-8 byte-order mark is not data; a skipped
header row is always reported; integer flags out of the core's range get one
line; messages say what is wrong in the user's terms.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import numpy as np
import pytest

import vcgmm
from vcgmm import cli
from vcgmm._data.files import load_data, open_data


def run_cli(args, capsys):
    status = cli.main([str(a) for a in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def data_file(tmp_path, blobs32):
    path = tmp_path / "d.npy"
    np.save(path, blobs32)
    return path


def _fit(path, *extra):
    return ["fit", path, "-C", "3", "--threads", "1", "--seed", "0", *extra]


def _one_line_error(status, err, message):
    assert status == 2, err
    assert err.startswith("vcgmm: error: ") and err.count("\n") == 1, err
    assert message in err, err


# ------------------------------------------------------------- overwriting

@pytest.mark.parametrize("option", ["--out", "--labels-out"])
def test_an_output_may_not_be_the_input(data_file, capsys, option):
    before = data_file.read_bytes()
    status, _, err = run_cli(_fit(data_file, option, data_file), capsys)
    _one_line_error(status, err, "is the input file")
    assert data_file.read_bytes() == before


@pytest.mark.parametrize("as_glob", [False, True])
@pytest.mark.parametrize("option", ["--out", "--labels-out"])
def test_an_output_may_not_become_a_chunk_of_the_input(tmp_path, blobs32, capsys, option,
                                                       as_glob):
    parts = tmp_path / "parts"
    parts.mkdir()
    np.save(parts / "a.npy", blobs32[:100])
    np.save(parts / "b.npy", blobs32[100:])
    data = f"{parts}{os.sep}*.npy" if as_glob else parts
    status, _, err = run_cli(_fit(data, option, parts / "result.npy"), capsys)
    _one_line_error(status, err, "would be read as a chunk of the input")
    assert sorted(p.name for p in parts.iterdir()) == ["a.npy", "b.npy"]
    # a text file there is not read as a chunk, and an output beside the folder is fine
    status, _, err = run_cli(_fit(data, option, parts / "result.csv"), capsys)
    assert status == 0, err
    status, _, err = run_cli(_fit(data, option, tmp_path / "result.npy"), capsys)
    assert status == 0, err


def test_an_output_may_not_be_the_input_by_another_name(data_file, tmp_path, capsys):
    link = tmp_path / "alias.npy"
    os.symlink(data_file, link)
    before = data_file.read_bytes()
    for out in (link, tmp_path / "sub" / ".." / "d.npy"):
        (tmp_path / "sub").mkdir(exist_ok=True)
        status, _, err = run_cli(_fit(data_file, "--out", out), capsys)
        _one_line_error(status, err, "is the input file")
    assert data_file.read_bytes() == before


def test_csv_input_is_protected_too(tmp_path, blobs32, capsys):
    path = tmp_path / "d.csv"
    np.savetxt(path, blobs32, delimiter=",")
    before = path.read_bytes()
    status, _, err = run_cli(_fit(path, "--labels-out", path), capsys)
    _one_line_error(status, err, "is the input file")
    assert path.read_bytes() == before


def test_two_outputs_may_not_be_the_same_file(data_file, tmp_path, capsys):
    out = tmp_path / "o.npy"
    status, _, err = run_cli(_fit(data_file, "--out", out, "--labels-out", out), capsys)
    _one_line_error(status, err, "are the same file")
    assert not out.exists()


# ------------------------------------------------- checked before the fit

@pytest.mark.parametrize("make, message", [
    (lambda d: d / "missing" / "c.npy", "does not exist"),
    (lambda d: d / "c.bin", "must end in one of"),
    (lambda d: (d / "dir.npy").mkdir() or d / "dir.npy", "is a directory"),
])
def test_bad_output_paths_fail_before_the_fit(data_file, tmp_path, capsys, make, message):
    status, out, err = run_cli(_fit(data_file, "--out", make(tmp_path)), capsys)
    _one_line_error(status, err, message)
    assert "quantization error" not in out  # nothing was fitted


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="root may write anywhere")
def test_unwritable_output_fails_before_the_fit(data_file, tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        status, out, err = run_cli(_fit(data_file, "--out", locked / "c.npy"), capsys)
    finally:
        locked.chmod(stat.S_IRWXU)
    _one_line_error(status, err, "not writable")
    assert "quantization error" not in out


# ----------------------------------------------------------- atomic writes

def test_outputs_are_written_atomically(data_file, tmp_path, capsys, monkeypatch):
    out = tmp_path / "c.npy"
    np.save(out, np.arange(3.0))  # an older result the failed write must not destroy
    before = out.read_bytes()

    def failing_save(f, array, *args, **kwargs):
        f.write(b"\x93NUMPY partial")
        raise OSError("disk full")

    monkeypatch.setattr(np, "save", failing_save)
    status, _, err = run_cli(_fit(data_file, "--out", out), capsys)
    monkeypatch.undo()
    _one_line_error(status, err, "disk full")
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.npy", "d.npy"]  # no temp left


def test_outputs_keep_the_usual_permissions(data_file, tmp_path, capsys):
    out = tmp_path / "c.npy"
    status, _, err = run_cli(_fit(data_file, "--out", out), capsys)
    assert status == 0, err
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask
    assert np.load(out).shape == (3, data_file and np.load(data_file).shape[1])


def test_an_overwritten_output_keeps_its_permissions(data_file, tmp_path, capsys):
    out = tmp_path / "private.npy"
    np.save(out, np.arange(3.0))
    out.chmod(0o600)
    status, _, err = run_cli(_fit(data_file, "--out", out), capsys)
    assert status == 0, err
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert np.load(out).shape == (3, np.load(data_file).shape[1])


# ------------------------------------------------------------- text files

def test_byte_order_mark_is_not_data(tmp_path, blobs32):
    plain, marked = tmp_path / "plain.csv", tmp_path / "bom.csv"
    np.savetxt(plain, blobs32, delimiter=",", fmt="%.8g")
    marked.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    X, notes = open_data(str(marked))
    assert X.shape == blobs32.shape
    np.testing.assert_array_equal(X, load_data(str(plain)))
    assert not any("header" in n for n in notes), notes


def test_byte_order_mark_before_a_header(tmp_path, blobs32):
    path = tmp_path / "bom.csv"
    body = "a,b,c,d,e\n" + "\n".join(",".join(f"{v:.8g}" for v in row) for row in blobs32)
    path.write_bytes(b"\xef\xbb\xbf" + body.encode())
    X, notes = open_data(str(path))
    assert X.shape[0] == len(blobs32)
    assert any("skipped as a header" in n and "'a,b,c,d,e'" in n for n in notes), notes


def test_skipped_header_is_reported_by_the_cli(tmp_path, blobs32, capsys):
    path = tmp_path / "h.csv"
    path.write_text("x,y,z,u,v\n" + "\n".join(",".join(map(str, r)) for r in blobs32))
    status, out, err = run_cli(_fit(path), capsys)
    assert status == 0, err
    assert "skipped as a header" in out + err


def test_header_only_csv(tmp_path, capsys):
    path = tmp_path / "h.csv"
    path.write_text("x,y,z\n")
    status, out, err = run_cli(_fit(path), capsys)
    _one_line_error(status, err, "has a header row but no rows of numbers")
    assert "UserWarning" not in err + out


def test_garbage_npy_gets_no_pickle_advice(tmp_path, capsys):
    path = tmp_path / "g.npy"
    path.write_bytes(os.urandom(256))
    status, _, err = run_cli(_fit(path), capsys)
    _one_line_error(status, err, "is not a .npy file")
    assert "allow_pickle" not in err


def test_nan_error_has_no_supervised_learning_hint(tmp_path, blobs32, capsys):
    bad = blobs32.copy()
    bad[5, 1] = np.nan
    np.save(tmp_path / "n.npy", bad)
    status, _, err = run_cli(_fit(tmp_path / "n.npy"), capsys)
    _one_line_error(status, err, "row 5, column 1")
    assert "HistGradientBoosting" not in err and "supervised" not in err


# ------------------------------------------------------------- flags

@pytest.mark.parametrize("flag", ["-G", "--threads", "--max-iter", "--chain-length"])
def test_huge_integer_flags_get_one_line(data_file, capsys, flag):
    algo = ["--algo", "vcgmm"] if flag in ("-G",) else []
    with pytest.raises(SystemExit) as exc:
        cli.main([str(a) for a in _fit(data_file, *algo, flag, str(2**31))])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "incompatible function arguments" not in err
    last = err.strip().splitlines()[-1]  # argparse: the usage, then one error line
    assert last.startswith("vcgmm fit: error: argument ") and flag in last, err
    assert "must be an integer in [" in last and "2147483648" in last, err


@pytest.mark.parametrize("flag,algo", [("--batch-size", "mbatch"), ("--batch-size", "kernel-kmeans"),
                                       ("--epoch-size", "vrkm")])
def test_integer_flags_beyond_64_bits_get_one_line(data_file, capsys, flag, algo):
    with pytest.raises(SystemExit) as exc:
        cli.main([str(a) for a in _fit(data_file, "--algo", algo, flag, str(2**63))])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "incompatible function arguments" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("vcgmm fit: error: argument ") and flag in last, err
    assert "64-bit range" in last and str(2**63) in last, err


def _run_module(*args, **env):
    return subprocess.run([sys.executable, "-m", "vcgmm", *map(str, args)], capture_output=True,
                          text=True, timeout=120, env={**os.environ, **env})


def test_threads_text_follows_omp_num_threads(data_file):
    proc = _run_module(*["fit", data_file, "-C", "3", "--seed", "0"], OMP_NUM_THREADS="1")
    assert proc.returncode == 0, proc.stderr
    assert "default (1)" in proc.stdout, proc.stdout
    assert "all (" not in proc.stdout


def test_bad_opt_level_is_a_warning_not_a_traceback(data_file):
    proc = _run_module("fit", data_file, "-C", "3", "--threads", "1", VCGMM_OPT_LEVEL="avx9000")
    assert proc.returncode == 0, proc.stderr
    assert "VCGMM_OPT_LEVEL='avx9000'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_info_says_when_vcgmm_opt_level_was_ignored():
    proc = _run_module("info", VCGMM_OPT_LEVEL="avx9000")
    assert proc.returncode == 0, proc.stderr
    assert "; VCGMM_OPT_LEVEL=avx9000 ignored)" in proc.stdout
    assert "forced by" not in proc.stdout
    proc = _run_module("info", VCGMM_OPT_LEVEL="generic" if "generic" in
                       vcgmm.show_build()["available_levels"] else vcgmm.show_build()["opt_level"])
    assert proc.returncode == 0, proc.stderr
    assert "(forced by VCGMM_OPT_LEVEL=" in proc.stdout


@pytest.mark.skipif(os.name != "posix", reason="needs a shell pipe")
def test_closed_pipe_is_quiet(data_file):
    proc = subprocess.run(f"{sys.executable} -m vcgmm fit {data_file} -C 3 --threads 1 | head -c 1",
                          shell=True, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr
