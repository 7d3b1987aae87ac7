"""Brute-force numpy references of kernel k-means (tests only).

Centers are dense coefficient vectors over the n training points and every
inner product is read off the full kernel matrix, so nothing here shares code
or shortcuts with the C++ core: no windows of (point, coefficient) pairs, no
incremental <C, C>, no blocked passes. The random draws are the core's own
streams, ported below (xoshiro256** keyed by (seed, purpose, index), Lemire's
bounded integers), so a reference run sees the same mini-batches as the core.
"""

from __future__ import annotations

import numpy as np

M64 = (1 << 64) - 1
#: Stream purposes of cpp/src/detail/random.hpp.
STREAM_BATCH = 103
STREAM_PLUSPLUS = 102


def _mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def _rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & M64


class Rng:
    """The core's random stream (seed, purpose, index)."""

    def __init__(self, seed, stream, index=0):
        z = _mix64((seed + 0x9E3779B97F4A7C15) & M64)
        z = _mix64(z ^ ((stream * 0xD1B54A32D192ED03) & M64))
        z = _mix64(z ^ ((index + 0x8CB92BA72F3D8DD7) & M64))
        self.s = []
        for _ in range(4):
            z = (z + 0x9E3779B97F4A7C15) & M64
            self.s.append(_mix64(z))

    def next(self):
        s = self.s
        result = (_rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 45)
        return result

    def uniform(self):
        return (self.next() >> 11) * 2.0**-53

    def below(self, n):
        m = self.next() * n
        low = m & M64
        if low < n:
            threshold = ((1 << 64) - n) % n
            while low < threshold:
                m = self.next() * n
                low = m & M64
        return m >> 64


def batch(seed, iteration, n, b):
    """The core's mini-batch of an iteration."""
    rng = Rng(seed, STREAM_BATCH, iteration)
    return np.array([rng.below(n) for _ in range(b)], dtype=np.int64)


def distances(K, coef, diag=None):
    """(n, k) squared feature-space distances of every point to centers given
    by dense coefficients coef (k, n)."""
    diag = np.diag(K) if diag is None else diag
    ip = K @ coef.T
    sq = np.einsum("jn,nm,jm->j", coef, K, coef)
    return diag[:, None] - 2.0 * ip + sq[None, :], sq


def minibatch(K, init, seed, b, max_iter, *, tau=None, rate="beta", renormalize=True, w=None):
    """Alg. 1 (tau None) or Alg. 2 with the windows rescaled to sum 1
    (renormalize=False: the weights of Eq. (1) as they are). With sample
    weights w: each center's batch mean, rate and the objectives weighted
    (batches drawn uniformly).

    Returns dict: coef (k, n), sqnorm (k,), objective (per iteration weighted
    mean batch objective), labels (n,), inertia (weighted).
    """
    n, k = K.shape[0], len(init)
    w = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
    diag = np.diag(K)
    coef = np.zeros((k, n))
    coef[np.arange(k), init] = 1.0
    # Each center's segments, oldest first: (iteration, points, weight).
    segments = [[(0, np.array([init[j]]), 1.0)] for j in range(k)]
    counts = np.zeros(k)
    objective = []
    for it in range(1, max_iter + 1):
        B = batch(seed, it, n, b)
        ip = K[B] @ coef.T
        sq = np.einsum("jn,nm,jm->j", coef, K, coef)
        dist = diag[B][:, None] - 2.0 * ip + sq[None, :]
        lab = np.argmin(dist, axis=1)
        objective.append((w[B] * dist[np.arange(b), lab]).sum() / w[B].sum())
        for j in range(k):
            pts = B[lab == j]
            if pts.size == 0:
                continue
            if rate == "beta":
                a = np.sqrt(w[pts].sum() / w[B].sum())
            else:
                counts[j] += w[pts].sum()
                a = w[pts].sum() / counts[j]
            segs = [(s_it, p, share * (1.0 - a)) for s_it, p, share in segments[j]]
            segs.append((it, pts, a))
            if tau is not None:
                held, stop = 0, None
                for s in range(len(segs) - 1, -1, -1):
                    if segs[s][0] == 0:
                        break
                    held += segs[s][1].size
                    if held >= tau:
                        stop = s
                        break
                keep = []
                for s, seg in enumerate(segs):
                    if seg[2] == 0.0:
                        continue
                    if stop is not None and s < stop and not (seg[0] == 0 and segs[stop][0] == 1):
                        continue
                    keep.append(seg)
                total = sum(share for _, _, share in keep)
                if renormalize and len(keep) < sum(1 for seg in segs if seg[2] != 0.0):
                    keep = [(s_it, p, share / total) for s_it, p, share in keep]
                segs = keep
            else:
                segs = [seg for seg in segs if seg[2] != 0.0]
            segments[j] = segs
            c = np.zeros(n)
            for _, p, share in segs:
                np.add.at(c, p, share * w[p] / w[p].sum())
            coef[j] = c
    dist, sq = distances(K, coef, diag)
    labels = np.argmin(dist, axis=1)
    inertia = (w * dist[np.arange(n), labels]).sum()
    return dict(coef=coef, sqnorm=sq, objective=np.array(objective), labels=labels,
                inertia=inertia)


def full(K, init, max_iter, w=None):
    """Full-batch kernel k-means (Lloyd in feature space) from the points
    init, until no label changes; returns labels, coef, objective (means;
    with sample weights w: weighted means)."""
    n, k = K.shape[0], len(init)
    w = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
    diag = np.diag(K)
    coef = np.zeros((k, n))
    coef[np.arange(k), init] = 1.0
    dist, _ = distances(K, coef, diag)
    labels = np.argmin(dist, axis=1)
    objective = []
    for _ in range(max_iter):
        coef = np.zeros((k, n))
        for j in range(k):
            members = labels == j
            coef[j, members] = w[members] / w[members].sum()
        dist, _ = distances(K, coef, diag)
        new = np.argmin(dist, axis=1)
        objective.append((w * dist[np.arange(n), new]).sum() / w.sum())
        changed = np.any(new != labels)
        labels = new
        if not changed:
            break
    return dict(labels=labels, coef=coef, objective=np.array(objective))


def dense_coef(result_or_model, n):
    """(k, n) dense coefficients of a fitted model (support, indptr, index, coef)."""
    support, indptr, index, coef = result_or_model
    k = len(indptr) - 1
    out = np.zeros((k, n))
    for j in range(k):
        for t in range(indptr[j], indptr[j + 1]):
            out[j, support[index[t]]] += coef[t]
    return out
