"""Shared machinery of the benchmarks: timing, peak memory, threads, results.

Benchmarks are run as modules from the repository root (``python -m
bench.<name>``), which makes ``bench`` an importable package without any
``sys.path`` tweak; this module is imported as ``from bench import _harness``.

Conventions every benchmark follows
-----------------------------------
- Wall time with :func:`time.perf_counter`; the reported number is the median
  of ``repeats`` timed calls after ``warmup`` untimed ones (the first call pays
  for thread-pool start-up and page faults on fresh buffers).
- Every library runs with the same number of threads (default 2, the size of
  the reference machine): vcgmm through its ``n_threads`` argument,
  scikit-learn through its ``n_threads`` argument and threadpoolctl, faiss
  through ``faiss.omp_set_num_threads`` (see :func:`thread_limits`).
- Results go to ``bench/results/<script>/<name>.json`` (numbers plus the
  machine, the library versions and the exact command line) and
  ``bench/results/<script>/<name>.md`` (the table), and the table is printed;
  ``<script>`` is the benchmark module that wrote them (``table1`` for
  ``python -m bench.table1``, see :func:`results_dir`). ``python -m
  bench.index`` lists every result set in ``bench/results/README.md``.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import importlib
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = [
    "DEFAULT_THREADS",
    "RESULTS_DIR",
    "REPO_ROOT",
    "capture_fd_output",
    "machine_info",
    "markdown_table",
    "OtherCpu",
    "measure_peak_rss",
    "peak_rss_report",
    "results_dir",
    "script_name",
    "thread_limits",
    "timeit",
    "timeit_interleaved",
    "write_results",
]

DEFAULT_THREADS = 2
BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
RESULTS_DIR = BENCH_DIR / "results"  # the root: each script writes to RESULTS_DIR / <script>


def script_name():
    """The benchmark module that is running: ``"table1"`` for ``python -m bench.table1``.

    The innermost caller on the stack that is a public module of the ``bench``
    package (``bench.<script>``, also when it runs as ``__main__``), so a helper
    (``bench._traces``) or this module never names the directory; failing
    that, the ``__main__`` module's name (or its file's stem)."""
    frame = sys._getframe(1)
    while frame is not None:
        module = frame.f_globals.get("__name__")
        if module == "__main__":
            spec = frame.f_globals.get("__spec__")
            module = spec.name if spec is not None else None
        if module and module.startswith("bench."):
            last = module.rpartition(".")[2]
            if not last.startswith("_"):
                return last
        frame = frame.f_back
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name:
        return spec.name.rpartition(".")[2]
    return Path(getattr(main, "__file__", None) or "interactive").stem


def results_dir(script=None):
    """``bench/results/<script>/``, created if missing.

    ``script`` defaults to :func:`script_name` (the calling benchmark module);
    pass it to write under another script's directory."""
    out = RESULTS_DIR / (script if script is not None else script_name())
    out.mkdir(parents=True, exist_ok=True)
    return out


# --------------------------------------------------------------------------- timing
def timeit(fn, repeats=5, warmup=1, setup=None):
    """Wall time of ``fn()``: median and minimum over ``repeats`` calls.

    Parameters
    ----------
    fn : callable
        Called with no arguments; its return value is ignored.
    repeats : int, default=5
        Number of timed calls (>= 1).
    warmup : int, default=1
        Untimed calls before the timed ones.
    setup : callable or None, default=None
        Called (untimed) before every call of ``fn``, e.g. to reset buffers
        that ``fn`` overwrites.

    Returns
    -------
    dict
        ``median``, ``min`` (seconds) and ``all`` (the list of timed calls).
    """
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}.")
    if warmup < 0:
        raise ValueError(f"warmup must be >= 0, got {warmup}.")
    for _ in range(warmup):
        if setup is not None:
            setup()
        fn()
    times = []
    for _ in range(repeats):
        if setup is not None:
            setup()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return {"median": statistics.median(times), "min": min(times), "all": times}


def timeit_interleaved(fns, repeats=5, warmup=1):
    """Like :func:`timeit` for several competitors, taking turns.

    Every competitor is warmed up, then the timed calls go round-robin
    (a, b, c, a, b, c, ...), so that a burst of load from another process on
    a shared machine hits every competitor alike instead of one of them; the
    ratios between medians are what the benchmarks report.

    Parameters
    ----------
    fns : dict of str -> callable
    repeats, warmup : int
        As in :func:`timeit`, per competitor.

    Returns
    -------
    dict of str -> dict
        ``median``, ``min``, ``all`` per competitor.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}.")
    if warmup < 0:
        raise ValueError(f"warmup must be >= 0, got {warmup}.")
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    times = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return {name: {"median": statistics.median(t), "min": min(t), "all": t}
            for name, t in times.items()}


# --------------------------------------------------------------------------- noise
def _cpu_busy_seconds():
    """CPU seconds spent busy by the whole machine since boot (/proc/stat)."""
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


class OtherCpu:
    """How busy the rest of the machine was while a block ran.

    ``with OtherCpu() as oc: ...`` then ``oc.cores``: CPU seconds used by
    other processes during the block divided by its wall time, i.e. the
    number of cores they kept busy on average (0 = quiet; on 2 cores, 1 means
    our threads had to share). The load average lags by a minute and counts
    our own threads; this does not.
    """

    def __enter__(self):
        self.cores = None
        try:
            self._busy = _cpu_busy_seconds()
        except (OSError, ValueError):  # not Linux
            self._busy = None
        t = os.times()
        self._own = t.user + t.system
        self._wall = time.perf_counter()
        return self

    def __exit__(self, *exc):
        if self._busy is None:
            return False
        wall = time.perf_counter() - self._wall
        t = os.times()
        own = t.user + t.system - self._own
        other = _cpu_busy_seconds() - self._busy - own
        self.cores = max(0.0, other) / wall if wall > 0 else None
        return False


# --------------------------------------------------------------------------- threads
def _import_thread_pools():
    """Load the libraries whose thread pools we limit.

    threadpoolctl only sees shared libraries already loaded, so the OpenMP
    runtimes and BLAS copies of scikit-learn, scipy and faiss must be imported
    before the limits are set.
    """
    loaded = {}
    for name in ("numpy", "scipy.linalg", "sklearn.cluster._k_means_lloyd", "faiss", "vcgmm"):
        try:
            loaded[name] = importlib.import_module(name)
        except ImportError:
            pass
    return loaded


@contextlib.contextmanager
def thread_limits(n_threads=DEFAULT_THREADS):
    """Limit every BLAS and OpenMP pool in the process to ``n_threads``.

    Inside the block: threadpoolctl caps every loaded BLAS (numpy's, scipy's,
    faiss' OpenBLAS) and OpenMP runtime (scikit-learn's, faiss', vcgmm's) and
    ``faiss.omp_set_num_threads`` caps faiss. vcgmm and scikit-learn's Lloyd
    also take ``n_threads`` explicitly; benchmarks pass the same number.
    Everything is restored on exit.

    Yields
    ------
    list of dict
        ``threadpoolctl.threadpool_info()`` inside the limits, for the record.
    """
    from threadpoolctl import threadpool_info, threadpool_limits

    if int(n_threads) != n_threads or n_threads < 1:
        raise ValueError(f"n_threads must be a positive integer, got {n_threads!r}.")
    loaded = _import_thread_pools()
    faiss = loaded.get("faiss")
    previous_faiss = faiss.omp_get_max_threads() if faiss is not None else None
    with threadpool_limits(limits=int(n_threads)):
        if faiss is not None:
            faiss.omp_set_num_threads(int(n_threads))
        try:
            yield threadpool_info()
        finally:
            if faiss is not None:
                faiss.omp_set_num_threads(previous_faiss)


# --------------------------------------------------------------------------- memory
_RSS_CHILD = r"""
import importlib, json, resource, sys, time
spec = json.loads(sys.argv[1])
n = spec["n_threads"]
if n is not None:
    from bench._harness import thread_limits
    limits = thread_limits(n)
    limits.__enter__()
def high_water_kib():
    # VmHWM belongs to this process image. getrusage's ru_maxrss would not do:
    # Linux carries it over fork + exec, so the child would report the
    # parent's peak whenever that is larger.
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
fn = getattr(importlib.import_module(spec["module"]), spec["function"])
before = high_water_kib()
t0 = time.perf_counter()
fn(*spec["args"], **spec["kwargs"])
seconds = time.perf_counter() - t0
peak = high_water_kib()
sys.stdout.write("\n@@RSS@@" + json.dumps({"before_call": before * 1024, "peak": peak * 1024,
                                          "seconds": seconds}) + "\n")
"""


def peak_rss_report(module, function, args=(), kwargs=None, *, n_threads=DEFAULT_THREADS,
                    timeout=3600):
    """Peak resident memory of ``module.function(*args, **kwargs)`` in a fresh process.

    A fresh interpreter (working directory: the repository root, so ``bench``
    imports) imports ``module``, records its peak RSS so far, calls the
    function and records the peak RSS again (``getrusage(RUSAGE_SELF)`` in the
    child, so no other process is counted).

    Parameters
    ----------
    module, function : str
        Where the callable lives, e.g. ``"bench.memory", "fit_vcgmm"``. It
        should load its own data so that the measurement covers it.
    args, kwargs : JSON-serialisable
        Arguments of the call.
    n_threads : int or None, default=DEFAULT_THREADS
        Thread limit applied in the child (None: no limit).
    timeout : float, default=3600
        Seconds before the child is killed (then RuntimeError).

    Returns
    -------
    dict
        ``peak`` (bytes, the high-water mark of the whole child process),
        ``before_call`` (bytes, the high-water mark after imports, before the
        call) and ``seconds`` (wall time of the call).
    """
    spec = json.dumps({"module": module, "function": function, "args": list(args),
                       "kwargs": dict(kwargs or {}), "n_threads": n_threads})
    proc = subprocess.run([sys.executable, "-c", _RSS_CHILD, spec], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"{module}.{function} failed in the child process "
                           f"(exit {proc.returncode}):\n{proc.stderr[-4000:]}")
    marker = proc.stdout.rfind("@@RSS@@")
    if marker < 0:
        raise RuntimeError(f"no measurement from the child process:\n{proc.stdout[-2000:]}")
    return json.loads(proc.stdout[marker + len("@@RSS@@"):])


def measure_peak_rss(module, function, args=(), kwargs=None, *, n_threads=DEFAULT_THREADS):
    """Peak resident memory in bytes of ``module.function(*args, **kwargs)``.

    Shorthand for ``peak_rss_report(...)["peak"]``; see :func:`peak_rss_report`.
    """
    return peak_rss_report(module, function, args, kwargs, n_threads=n_threads)["peak"]


# --------------------------------------------------------------------------- C-level output
@contextlib.contextmanager
def capture_fd_output(fd=1):
    """Capture what C/C++ code writes to a file descriptor (default stdout).

    Python's ``contextlib.redirect_stdout`` does not see ``printf`` from
    compiled libraries (faiss' verbose clustering log); this swaps the file
    descriptor itself. Yields a list that receives the text on exit.
    """
    out = []
    sys.stdout.flush()
    saved = os.dup(fd)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), fd)
        try:
            yield out
        finally:
            try:
                import ctypes

                ctypes.CDLL(None).fflush(None)  # flush C stdio buffers into the file
            except OSError:  # pragma: no cover - no libc handle
                pass
            os.dup2(saved, fd)
            os.close(saved)
            tmp.seek(0)
            out.append(tmp.read().decode(errors="replace"))


# --------------------------------------------------------------------------- records
def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _mem_total_bytes():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _git_state():
    def git(*argv):
        try:
            return subprocess.run(["git", *argv], cwd=REPO_ROOT, capture_output=True,
                                  text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    commit = git("rev-parse", "HEAD")
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit or None, "dirty": bool(dirty)}


def _versions():
    from importlib import metadata

    out = {"python": platform.python_version()}
    for dist in ("vcgmm", "numpy", "scipy", "scikit-learn", "threadpoolctl", "faiss-cpu",
                 "psutil", "scikit-image", "pandas"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def _vcgmm_core_fingerprint():
    """Path, size, mtime and sha256 of the compiled module actually loaded.

    The package is installed in editable mode and may be rebuilt while a
    benchmark runs; comparing this at the start and the end tells whether
    the numbers came from one build.
    """
    import hashlib

    try:
        import vcgmm

        path = Path(vcgmm._core.__file__)
        data = path.read_bytes()
        stat = path.stat()
    except (ImportError, AttributeError, OSError) as exc:
        return {"error": str(exc)}
    return {"path": str(path), "size": stat.st_size, "mtime": stat.st_mtime,
            "sha256": hashlib.sha256(data).hexdigest()}


def _package_dir(info):
    """The directory of the vcgmm package whose compiled module was loaded."""
    path = info.get("vcgmm_core_file", {}).get("path")
    return str(Path(path).parent) if path else None


def _outside_checkout_note(info):
    """A warning when the run imported vcgmm from somewhere other than the
    checkout it ran in (an installed copy may predate the checkout's code)."""
    package = _package_dir(info)
    checkout = Path(info["cwd"]) / "python" / "vcgmm"
    if package is None or not checkout.is_dir():
        return None
    if Path(package).resolve() == checkout.resolve():
        return None
    return (f"vcgmm was imported from `{package}`, not from this checkout's `python/vcgmm`: "
            "an installed copy measures the code it was installed from (run with "
            "PYTHONPATH=python after building in place to measure the checkout).")


def machine_info():
    """What the numbers depend on: CPU, cores, memory, build, versions, load, command."""
    info = {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join(getattr(sys, "orig_argv", [sys.executable, *sys.argv])),
        "cwd": os.getcwd(),
        "cpu_model": _cpu_model(),
        "logical_cpus": os.cpu_count(),
        "cpus_available": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "mem_total_bytes": _mem_total_bytes(),
        "platform": platform.platform(),
        "load_average_at_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "versions": _versions(),
        "git": _git_state(),
    }
    try:
        import vcgmm

        info["vcgmm_build"] = vcgmm.show_build()
    except ImportError as exc:  # pragma: no cover - the package is the point
        info["vcgmm_build"] = f"import failed: {exc}"
    info["vcgmm_core_file"] = _vcgmm_core_fingerprint()
    return info


def _narrow_build_note(build):
    """A warning when vcgmm ran a narrower instruction-set level than this CPU
    runs (e.g. a generic dev build on an AVX-512 machine): a source install
    builds and imports the widest, so vcgmm's times would understate it."""
    if not isinstance(build, dict):
        return None
    order = ["generic", "avx2", "avx512"]
    features = build.get("cpu_features") or {}
    widest = max((lv for lv in order[1:] if features.get(lv)), key=order.index, default="generic")
    used = build.get("opt_level")
    if used in order and order.index(used) < order.index(widest):
        return (f"**WARNING: vcgmm ran its {used} build on a CPU that runs {widest}; "
                f"`pip install .` builds and imports {widest} here, so vcgmm's times "
                "understate what users get.**")
    return None


def _fmt(value, fmt):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if callable(fmt):
        return fmt(value)
    return format(value, fmt) if fmt else str(value)


def markdown_table(columns, rows):
    """A GitHub markdown table.

    Parameters
    ----------
    columns : list of (key, header, fmt)
        ``fmt`` is a format spec (``".3f"``), a callable or ``""``.
    rows : list of dict
        Missing keys print as ``n/a``.
    """
    head = "| " + " | ".join(h for _, h, _ in columns) + " |"
    rule = "|" + "|".join("---" for _ in columns) + "|"
    body = ["| " + " | ".join(_fmt(r.get(k), f) for k, _, f in columns) + " |" for r in rows]
    return "\n".join([head, rule, *body])


def _jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if hasattr(obj, "item") and getattr(obj, "ndim", 1) == 0:  # numpy scalar
        return obj.item()
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def mean_sem(values):
    """Mean and standard error of the mean of ``values``, Nones dropped:
    (None, None) when none is left, (value, None) for a single one."""
    values = [v for v in values if v is not None]
    if not values:
        return None, None
    if len(values) == 1:
        return values[0], None
    return statistics.fmean(values), statistics.stdev(values) / math.sqrt(len(values))


class RunCheckpoint:
    """``<name>.runs.jsonl`` in ``bench/results/<script>/`` (:func:`results_dir`;
    ``script`` overrides the calling module's name): one JSON line per finished
    run, appended as it ends, so that a long benchmark interrupted part-way can
    go on where it stopped. With ``resume`` the lines already there are kept and
    returned by :attr:`records`; without, the file starts afresh. These files
    are not results and are not committed (``.gitignore``)."""

    def __init__(self, name, resume, script=None):
        self.path = results_dir(script) / f"{name}.runs.jsonl"
        self.records = []
        if resume and self.path.exists():
            self.records = [json.loads(line) for line in self.path.read_text().splitlines()]
        elif self.path.exists():
            self.path.unlink()

    def append(self, record):
        """Writes one finished run (made JSON-able as write_results does)."""
        with open(self.path, "a") as fh:
            fh.write(json.dumps(_jsonable(record)) + "\n")

    def reuse_note(self, n_reused, unit="runs"):
        """The results note saying how many ``unit`` were reused (none: [])."""
        if not n_reused:
            return []
        return [f"{n_reused} {unit} reused from {self.path.name} (--resume: measured by an "
                "earlier, interrupted invocation of the same command on this machine)."]


def _atomic_write(path, text):
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def write_results(name, columns, rows, *, title, params=None, notes=(), info=None,
                  extra=None, out_dir=None, script=None):
    """Write ``<name>.json`` and ``<name>.md`` and print the markdown.

    Parameters
    ----------
    name : str
        Benchmark name (file stem).
    columns : list of (key, header, fmt)
        Table columns, see :func:`markdown_table`.
    rows : list of dict
        One dict per measured configuration (all keys go to the JSON, the
        table shows ``columns``).
    title : str
        First line of the markdown.
    params : dict, optional
        The benchmark's parameters (repeats, threads, sizes, ...).
    notes : sequence of str
        Lines printed under the table (what exactly was timed, caveats).
    info : dict, optional
        :func:`machine_info` taken at the start; taken now if None.
    extra : dict, optional
        More JSON-only data (correctness checks, raw logs).
    out_dir : path-like, optional
        Defaults to ``bench/results/<script>`` (:func:`results_dir`).
    script : str, optional
        The directory under ``bench/results``; defaults to the calling
        benchmark module's name (:func:`script_name`). Ignored with ``out_dir``.

    Returns
    -------
    str
        The markdown text.
    """
    out_dir = Path(out_dir) if out_dir is not None else results_dir(script)
    out_dir.mkdir(parents=True, exist_ok=True)
    info = dict(info) if info is not None else machine_info()
    info["load_average_at_end"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    notes = list(notes)
    core_now = _vcgmm_core_fingerprint()
    info["vcgmm_core_file_at_end"] = core_now
    if info.get("vcgmm_core_file", {}).get("sha256") != core_now.get("sha256"):
        notes.insert(0, "**WARNING: vcgmm's compiled module changed on disk during the run "
                        "(the package was rebuilt); these numbers may mix two builds.**")
    table = markdown_table(columns, rows)
    build = info.get("vcgmm_build") or {}
    narrow = _narrow_build_note(build)
    if narrow:
        notes.insert(0, narrow)
    outside = _outside_checkout_note(info)
    if outside:
        notes.insert(0, outside)
    versions = info.get("versions", {})
    header = [
        f"# {title}",
        "",
        f"Command: `{info['command']}` (in `{info['cwd']}`)",
        "",
        f"Date {info['date']}; {info['cpu_model']}, {info['cpus_available']} CPUs available; "
        f"vcgmm {versions.get('vcgmm')} ({build.get('opt_level', '?')} build, module sha256 "
        f"{(info.get('vcgmm_core_file', {}).get('sha256') or '?')[:12]} from "
        f"`{_package_dir(info) or '?'}`, git "
        f"{(info['git'].get('commit') or '?')[:10]}{' dirty' if info['git'].get('dirty') else ''}), "
        f"numpy {versions.get('numpy')}, scikit-learn {versions.get('scikit-learn')}, "
        f"faiss-cpu {versions.get('faiss-cpu')}; load average at start "
        f"{_fmt_load(info.get('load_average_at_start'))}, at end "
        f"{_fmt_load(info.get('load_average_at_end'))}.",
        "",
    ]
    md = "\n".join(header + [table, ""] + [f"- {n}" for n in notes]) + "\n"
    record = {"name": name, "title": title, "machine": info, "params": params or {},
              "columns": [[k, h] for k, h, _ in columns], "rows": rows, "notes": list(notes),
              "extra": extra or {}}
    _atomic_write(out_dir / f"{name}.json", json.dumps(_jsonable(record), indent=1) + "\n")
    _atomic_write(out_dir / f"{name}.md", md)
    print(md)
    return md


def _fmt_load(load):
    return "/".join(f"{x:.2f}" for x in load) if load else "n/a"
