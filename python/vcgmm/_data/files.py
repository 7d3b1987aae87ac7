"""Reading data matrices from files for the command line interface.

Supported formats (chosen by the file name's extension):

- ``.npy``: opened with ``np.load(mmap_mode="r")``, i.e. memory-mapped, so a
  data set larger than memory is paged in by the operating system as the
  algorithms stream over it and nothing is copied.
- ``.npz``: one array of the archive (``key``, or the only array). A member
  stored without compression (``np.savez``) is memory-mapped too: its data
  start at a fixed offset inside the zip file, found from the member's local
  file header and its ``.npy`` header. Compressed members
  (``np.savez_compressed``) have to be decompressed into memory.
- ``.csv``, ``.tsv``, ``.txt``: text, read with ``np.loadtxt``. The delimiter
  is guessed from the first line (comma, tab, semicolon, else whitespace);
  a first row that is not all numbers is taken as a header and skipped.

Chunked data (:func:`open_chunks`, data larger than memory): a folder of
``.npy`` files, a glob pattern matching ``.npy`` files (both in natural name
order: ``part2`` before ``part10``), or a zarr array store (a folder with
``zarr.json`` or ``.zarray``; needs the ``zarr`` package). Each file is a chunk
of rows; only the ``.npy`` headers are read here.

Errors are ``FileNotFoundError`` (missing file) or ``ValueError`` with a
message naming the file, so the command line can print them as one line.
"""

from __future__ import annotations

import glob
import os
import re
import struct
import warnings
import zipfile

import numpy as np

__all__ = ["load_data", "open_data", "open_chunks", "is_chunked_path", "SUPPORTED_EXTENSIONS",
           "IMPORTANT"]

#: Notes starting with this are shown even without --verbose.
IMPORTANT = "note: "

SUPPORTED_EXTENSIONS = (".npy", ".npz", ".csv", ".tsv", ".txt")

_TEXT_EXTENSIONS = (".csv", ".tsv", ".txt")

# Local file header of a zip member: signature, version, flags, method, time,
# date, crc32, compressed size, uncompressed size, name length, extra length.
_LOCAL_HEADER = struct.Struct("<IHHHHHIIIHH")
_LOCAL_HEADER_SIGNATURE = 0x04034B50


def load_data(path, key=None, dtype=None):
    """Load a 2-D data matrix from a ``.npy``, ``.npz`` or text file.

    Parameters
    ----------
    path : str or os.PathLike
        The file. The extension selects the reader (see the module docstring).
    key : str or None, default=None
        Name of the array inside an ``.npz`` archive; None takes the only
        array (an error if there are several). Not allowed for other formats.
    dtype : numpy dtype or None, default=None
        Convert to this dtype (one copy if it differs from the stored one).
        None keeps the stored dtype (text files are read as float64).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        A ``np.memmap`` for ``.npy`` files and uncompressed ``.npz`` members
        (unless ``dtype`` forced a conversion), an in-memory array otherwise.

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    ValueError
        Unsupported extension, unreadable content, a missing or ambiguous
        ``.npz`` key, an array that is not 2-D or has no rows.
    """
    return open_data(path, key=key, dtype=dtype)[0]


def open_data(path, key=None, dtype=None):
    """Like :func:`load_data`, also returning notes on how the data were read.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    notes : list of str
        Human-readable remarks ("memory-mapped", "decompressed into memory",
        "converted int64 to float64", ...), for verbose output.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such file: {path}")
    if os.path.isdir(path):
        raise ValueError(f"{path} is a directory, not a data file")
    ext = os.path.splitext(path)[1].lower()
    if ext not in SUPPORTED_EXTENSIONS:
        raise ValueError(
            f"unsupported file type {ext or '(no extension)'!r} of {path}; "
            f"expected one of {', '.join(SUPPORTED_EXTENSIONS)}"
        )
    if key is not None and ext != ".npz":
        raise ValueError(f"a key ({key!r}) only applies to .npz files, not {path}")
    notes = []
    if ext == ".npy":
        X = _read_npy(path, notes)
    elif ext == ".npz":
        X = _read_npz(path, key, notes)
    else:
        X = _read_text(path, dtype, notes)
    if X.ndim != 2:
        raise ValueError(
            f"{path} holds an array of shape {X.shape}; expected a 2-D array "
            "(n_samples, n_features)"
        )
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{path} holds an empty array of shape {X.shape}")
    if X.dtype.kind not in "biuf":
        raise ValueError(f"{path} holds an array of dtype {X.dtype}; expected real numbers")
    if dtype is not None:
        dtype = np.dtype(dtype)
        if X.dtype != dtype:
            notes.append(f"converted {X.dtype} to {dtype} (one copy in memory)")
            X = np.asarray(X, dtype=dtype)
    return X, notes


def _read_npy(path, notes):
    with open(path, "rb") as f:
        magic = f.read(6)
    if magic != b"\x93NUMPY":
        raise ValueError(f"{path} is not a .npy file (it lacks the .npy header); write such "
                         "files with numpy.save")
    try:
        X = np.load(path, mmap_mode="r", allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise ValueError(f"cannot read {path} as .npy: {exc}") from None
    if isinstance(X, np.memmap):
        notes.append("memory-mapped (.npy)")
    return X


def _read_npz(path, key, notes):
    try:
        archive = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueError(f"cannot read {path} as .npz: {exc}") from None
    with archive:
        names = list(archive.files)
        if not names:
            raise ValueError(f"{path} contains no arrays")
        if key is None:
            if len(names) > 1:
                raise ValueError(
                    f"{path} contains {len(names)} arrays ({', '.join(names)}); "
                    "choose one with --key"
                )
            key = names[0]
        elif key not in names:
            raise ValueError(
                f"{path} has no array named {key!r}; it contains: {', '.join(names)}"
            )
        X = _npz_member_memmap(path, key + ".npy", notes)
        if X is None:
            try:
                X = archive[key]
            except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
                raise ValueError(f"cannot read array {key!r} of {path}: {exc}") from None
    return X


def _npz_member_memmap(path, member, notes):
    """Memory-map an uncompressed ``.npz`` member, or return None (with a note)
    when that is impossible (compressed, encrypted, object dtype, ...)."""
    with zipfile.ZipFile(path) as zf:
        try:
            info = zf.getinfo(member)
        except KeyError:  # np.load also lists members that lack the .npy suffix
            notes.append(f"member {member!r} not found as a .npy file; loaded into memory")
            return None
    if info.compress_type != zipfile.ZIP_STORED:
        notes.append(
            "the array is stored compressed (np.savez_compressed), so it was "
            "decompressed into memory instead of memory-mapped; save it with "
            "np.savez or np.save to avoid the copy"
        )
        return None
    if info.flag_bits & 0x1:
        notes.append("the zip member is encrypted; loaded into memory")
        return None
    with open(path, "rb") as f:
        # The local header's name and extra field lengths may differ from the
        # central directory's (zip64 extras), so read them from the local header.
        f.seek(info.header_offset)
        raw = f.read(_LOCAL_HEADER.size)
        if len(raw) != _LOCAL_HEADER.size:
            raise ValueError(f"{path}: truncated zip member {member!r}")
        fields = _LOCAL_HEADER.unpack(raw)
        if fields[0] != _LOCAL_HEADER_SIGNATURE:
            raise ValueError(f"{path}: corrupt zip member {member!r} (bad local header)")
        start = info.header_offset + _LOCAL_HEADER.size + fields[9] + fields[10]
        f.seek(start)
        try:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                shape, fortran_order, dtype = np.lib.format.read_array_header_1_0(f)
            elif version == (2, 0):
                shape, fortran_order, dtype = np.lib.format.read_array_header_2_0(f)
            else:
                notes.append(f".npy format version {version} inside the archive; loaded into memory")
                return None
        except ValueError as exc:
            raise ValueError(f"{path}: member {member!r} is not a valid .npy file: {exc}") from None
        offset = f.tell()
    if dtype.hasobject:
        return None  # np.load (allow_pickle=False) raises the proper error
    n_bytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if offset - start + n_bytes > info.file_size:
        raise ValueError(f"{path}: member {member!r} is truncated")
    if n_bytes == 0:
        # mmap cannot map zero bytes; the caller reports the empty array.
        return np.empty(shape, dtype=dtype)
    X = np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=shape,
                  order="F" if fortran_order else "C")
    notes.append("memory-mapped (uncompressed .npz member)")
    return X


def _sniff_text(path):
    """(delimiter, rows to skip) from the first non-empty, non-comment line."""
    # utf-8-sig: spreadsheet programs start their CSV files with a byte-order mark.
    with open(path, encoding="utf-8-sig", errors="replace") as f:
        skip = 0
        for line in f:
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                skip += 1
                continue
            break
        else:
            raise ValueError(f"{path} contains no data")
    delimiter = None  # whitespace
    for candidate in (",", "\t", ";", "|"):
        if candidate in stripped:
            delimiter = candidate
            break
    fields = stripped.split(delimiter)
    try:
        for field in fields:
            float(field.strip().strip('"'))
        is_header = False
    except ValueError:
        is_header = True
    return delimiter, skip + (1 if is_header else 0), stripped if is_header else None


def _read_text(path, dtype, notes):
    delimiter, skiprows, header = _sniff_text(path)
    read_dtype = np.dtype(dtype if dtype is not None else np.float64)
    if read_dtype.kind != "f":
        read_dtype = np.float64
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "input contained no data": reported below
            X = np.loadtxt(path, delimiter=delimiter, skiprows=skiprows, dtype=read_dtype,
                           ndmin=2, comments="#", quotechar='"', encoding="utf-8-sig")
    except ValueError as exc:
        raise ValueError(f"cannot read {path} as a table of numbers: {exc}") from None
    if X.size == 0:
        raise ValueError(f"{path} has " + ("a header row but " if header else "")
                         + "no rows of numbers")
    name = {None: "whitespace", ",": "comma", "\t": "tab", ";": "semicolon", "|": "'|'"}[delimiter]
    notes.append(f"text file read into memory ({name}-separated)")
    if header is not None:
        shown = header if len(header) <= 60 else header[:57] + "..."
        notes.append(f"{IMPORTANT}the first row is not numbers and was skipped as a header: "
                     f"{shown!r}")
    return X


_GLOB_CHARS = re.compile(r"[*?\[]")


def _is_zarr_store(path):
    return os.path.isdir(path) and any(
        os.path.exists(os.path.join(path, name)) for name in ("zarr.json", ".zarray"))


def is_chunked_path(path):
    """True for a folder, a zarr store or a glob pattern (chunked data)."""
    path = os.fspath(path)
    return os.path.isdir(path) or (bool(_GLOB_CHARS.search(path)) and not os.path.exists(path))


def _natural_key(path):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", os.path.basename(path))]


def open_chunks(path):
    """Chunked data from a folder of ``.npy`` files, a glob pattern or a zarr store.

    Returns
    -------
    X : list of str or zarr array
        The chunk files in order (each memory-mapped when read), or the zarr array.
    notes : list of str
    shape : tuple (n_samples, n_features)
    dtype : numpy dtype
    """
    path = os.fspath(path)
    notes = []
    if _is_zarr_store(path):
        try:
            import zarr
        except ImportError:
            raise ValueError(f"{path} is a zarr store; reading it needs the zarr package "
                             "(pip install zarr)") from None
        try:
            X = zarr.open_array(path, mode="r")
        except Exception as exc:  # zarr raises its own error types
            raise ValueError(f"cannot open {path} as a zarr array: {exc}") from None
        if len(X.shape) != 2 or X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(f"{path} holds a zarr array of shape {X.shape}; expected a "
                             "non-empty 2-D array (n_samples, n_features)")
        notes.append(f"zarr array, read in blocks of {X.chunks[0]:,} rows")
        return X, notes, tuple(int(v) for v in X.shape), np.dtype(X.dtype)
    if os.path.isdir(path):
        files = [os.path.join(path, f) for f in os.listdir(path) if f.lower().endswith(".npy")]
        if not files:
            raise ValueError(f"{path} is a folder without .npy files (chunked data are a "
                             "folder of .npy files, a glob pattern or a zarr store)")
    else:
        files = [f for f in glob.glob(path) if os.path.isfile(f)]
        if not files:
            raise FileNotFoundError(f"no files match {path}")
        other = [f for f in files if not f.lower().endswith(".npy")]
        if other:
            raise ValueError(f"{path} matches {other[0]}, which is not a .npy file; chunked "
                             "data must be .npy files")
    files.sort(key=_natural_key)
    n, d, dtype = 0, None, None
    for f in files:
        X = _read_npy(f, [])
        if X.ndim != 2:
            raise ValueError(f"{f} holds an array of shape {X.shape}; every chunk must be "
                             "2-D (rows, features)")
        if d is None:
            d, dtype = X.shape[1], X.dtype
        elif X.shape[1] != d or X.dtype != dtype:
            raise ValueError(f"{f} holds {X.shape[1]} features of dtype {X.dtype}, but "
                             f"{files[0]} holds {d} of dtype {dtype}: all chunks must have the "
                             "same width and dtype")
        if X.dtype.kind not in "biuf":
            raise ValueError(f"{f} holds an array of dtype {X.dtype}; expected real numbers")
        n += X.shape[0]
        del X
    if n == 0 or d == 0:
        raise ValueError(f"{path}: the {len(files)} chunk files hold no data")
    notes.append(f"{len(files)} .npy chunk files, each memory-mapped while read")
    return files, notes, (n, d), np.dtype(dtype)
