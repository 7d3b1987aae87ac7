"""Type aliases of the public API (PEP 484; the package ships ``py.typed``)."""

from __future__ import annotations

from typing import Literal, Optional, Tuple, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["ArrayLike", "NDArray", "FloatArray", "IntArray", "RandomStateLike", "ThreadsLike",
           "CoresetSizeLike", "LocalTrialsLike", "Labels"]

#: Data and centers as returned: float32 or float64 arrays.
FloatArray = NDArray[np.floating]
#: Row indices and labels (int64).
IntArray = NDArray[np.int64]
#: scikit-learn's random_state: None, a seed, or a RandomState.
RandomStateLike = Union[None, int, np.random.RandomState]
#: n_threads: None or -1 (all available), or a positive count.
ThreadsLike = Optional[int]
#: coreset_size: "auto", a number of coreset points, or None (no coreset).
CoresetSizeLike = Union[Literal["auto"], int, None]
#: n_local_trials: a count or "auto" (scikit-learn's 2 + ln C).
LocalTrialsLike = Union[int, Literal["auto"]]
#: (centers, row indices) of the seedings.
Labels = IntArray
SeedingResult = Tuple[FloatArray, IntArray]
