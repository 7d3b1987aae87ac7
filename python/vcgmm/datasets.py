"""Real data sets that ship inside installed packages (nothing is downloaded).

``image_patches`` cuts small colour patches out of photographs, the kind of
data the nested mini-batch paper clusters (STL-10 patches) and a natural
large-N, large-C workload. The two photos of scikit-learn
(``sklearn.datasets.load_sample_images``: china, flower; 427 x 640 each) give
535,940 patches of 6 x 6 x 3 = 108 values at stride 1; the eight photos of
scikit-image (if installed) add more.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

__all__ = ["image_patches", "photos"]

_SKIMAGE_PHOTOS = (
    "astronaut",
    "chelsea",
    "coffee",
    "hubble_deep_field",
    "immunohistochemistry",
    "retina",
    "rocket",
    "stereo_motorcycle",
)


def photos(source="sklearn"):
    """The RGB photographs (uint8 arrays of shape (height, width, 3)).

    Parameters
    ----------
    source : {"sklearn", "all"}, default="sklearn"
        "sklearn": china and flower from scikit-learn. "all": those plus the
        eight colour photos of scikit-image (requires scikit-image).

    Returns
    -------
    list of (name, ndarray)
    """
    from sklearn.datasets import load_sample_images

    if source not in ("sklearn", "all"):
        raise ValueError(f"source must be 'sklearn' or 'all', got {source!r}.")
    bunch = load_sample_images()
    names = [name.rsplit("/", 1)[-1].split(".")[0] for name in bunch.filenames]
    out = list(zip(names, bunch.images))
    if source == "all":
        try:
            import skimage.data
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError(
                "image_patches(source='all') needs scikit-image (pip install scikit-image)."
            ) from exc
        for name in _SKIMAGE_PHOTOS:
            img = getattr(skimage.data, name)()
            if name == "stereo_motorcycle":  # (left, right, disparity)
                img = img[0]
            img = np.asarray(img)
            if img.ndim == 3 and img.shape[2] == 4:  # drop an alpha channel
                img = img[:, :, :3]
            out.append((name, img))
    return out


def image_patches(patch_size=6, *, stride=1, source="sklearn", dtype=np.float32, min_std=None):
    """Colour patches of photographs as rows of a data matrix.

    Parameters
    ----------
    patch_size : int, default=6
        Side length of the square patches; each row has
        ``patch_size * patch_size * 3`` values (0..255, RGB interleaved).
    stride : int, default=1
        Step between patch origins (stride 2 keeps about a quarter of the patches).
    source : {"sklearn", "all"}, default="sklearn"
        Which photographs to use, see :func:`photos`.
    dtype : numpy dtype, default=np.float32
        dtype of the result.
    min_std : float or None, default=None
        Drop patches whose values have a standard deviation below this
        (the black areas of "retina" and "hubble_deep_field"); None keeps all.

    Returns
    -------
    X : ndarray of shape (n_patches, patch_size * patch_size * 3)
        C-contiguous.

    Examples
    --------
    >>> X = image_patches()          # doctest: +SKIP
    >>> X.shape                      # doctest: +SKIP
    (535940, 108)
    """
    if int(patch_size) != patch_size or patch_size < 1:
        raise ValueError(f"patch_size must be a positive integer, got {patch_size!r}.")
    if int(stride) != stride or stride < 1:
        raise ValueError(f"stride must be a positive integer, got {stride!r}.")
    blocks = []
    for _, img in photos(source):
        windows = sliding_window_view(img, (patch_size, patch_size, 3))[::stride, ::stride, 0]
        rows = windows.reshape(-1, patch_size * patch_size * 3)
        if min_std is not None:
            rows = rows[rows.std(axis=1) >= min_std]
        blocks.append(np.asarray(rows, dtype=dtype))
    return np.ascontiguousarray(np.concatenate(blocks))
