"""Hard steps on all the training data after the coreset fit (``data_steps``).

What is checked, against numpy references computed here:

- a data step labels every point by the cell index probing 4 cells in the
  first step and 2 in later ones (the labels of
  ``vcgmm.assign_approximate(n_probe=4)``, then ``n_probe=2``), keeping the
  previous step's label where it is nearer; a later step labels every point
  exactly instead (``vcgmm.assign``) where the walk from the previous labels
  costs less (blobs with a few means each; not with 25 means each: both
  cases, the other search's labels differing), and (``split_merge=False``)
  moves every cluster no point chose onto the points farthest from their
  labels' means (as ``vcgmm.lloyd``), then every mean to the weighted mean
  of its points, all on the full data, starting from the means the fit
  without data steps returns; ``data_step_objective`` is the labels'
  weighted error, non-increasing;
- with split-merge moves (the default) on blobs in many dimensions, where
  the seeding leaves some blobs with one or two means and others with six,
  the moves after each step end lower than the plain steps;
- with nearly as many clusters as points, the empty clusters no split was
  left for go onto points no mean sits on: every mean distinct, and an error
  near that of the plain steps' far-point relocation;
- on well-separated blobs with one mean per blob, where 2 cells mix means of
  unrelated blobs, the first step does not raise the error of the fit's means;
- the steps are part of the refinement phase's costs; sigma2 is refitted
  for the moved means; zero-weight rows take no part;
- 1, 2 and 3 threads give bit-identical results;
- the evaluation after the steps (``labels_``, ``inertia_``), which starts
  from the last step's labels, equals the exact scan bit for bit
  (``vcgmm.assign``, ``vcgmm.quantization_error``) for a fraction of its
  distances, also where split-merge moves merged clusters;
- bad values and chunked data are refused with a clear error.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist

import vcgmm


def _reference_step(X, w, means, hard_step, n_probe, previous):
    """One data step in numpy (without split-merge moves): (new means, labels'
    weighted error, relocated, labels, the other search's labels). n_probe
    None: the exact nearest means (later steps where the walk from the
    previous labels is the cheaper search); else the cell index's labels,
    the previous step's where nearer."""
    def d2_of(labels):
        diff = X.astype(np.float64) - means.astype(np.float64)[labels]
        return np.einsum("ij,ij->i", diff, diff)

    def index_labels(probes):
        labels = vcgmm.assign_approximate(X, means, n_probe=probes).astype(np.int64)
        if previous is None:
            return labels
        d2, d2_previous = d2_of(labels), d2_of(previous)  # ties: the lower index
        keep = (d2_previous < d2) | ((d2_previous == d2) & (previous < labels))
        return np.where(keep, previous, labels)

    exact = vcgmm.assign(X, means).astype(np.int64)
    labels, other = (exact, index_labels(2)) if n_probe is None else (index_labels(n_probe), exact)
    d2 = d2_of(labels)
    moved_labels, moved = hard_step.relocated(labels, d2, means.shape[0])
    return (hard_step.weighted_means(X, w, moved_labels, means), float(np.sum(w * d2)), moved,
            moved_labels, other)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n_blobs, seed, later", [(40, 3, "exact"), (6, 1, "index")])
def test_data_steps_are_lloyd_steps_on_all_points_from_the_fitted_means(dtype, n_blobs, seed,
                                                                       later, make_blobs,
                                                                       hard_step):
    # 40 blobs, about 4 means each: the walks from the previous labels are
    # short, so later steps label exactly; 6 blobs, about 25 means each: the
    # walks would cost more than the index's 2 cells
    X, _, _ = make_blobs(6000, n_blobs, 6, seed=seed, dtype=dtype)
    w = np.random.default_rng(5).uniform(0.5, 2.0, X.shape[0])
    C, kw = 150, dict(G=5, coreset_size=600, random_state=3, n_threads=2, sample_weight=w,
                      split_merge=False)
    base = vcgmm.fit_vcgmm(X, C, data_steps=0, **kw)
    assert base.data_step_objective.size == 0
    fit = vcgmm.fit_vcgmm(X, C, data_steps=3, **kw)
    means, labels, differ = base.centers, None, 0
    for k in range(3):
        probes = 4 if k == 0 else (None if later == "exact" else 2)
        new, objective, moved, labels, other = _reference_step(X, w, means, hard_step, probes,
                                                               labels)
        assert fit.data_step_objective[k] == pytest.approx(objective, rel=1e-6)
        assert fit.data_step_relocated[k] == moved
        differ += k > 0 and np.any(other != labels)
        means = new.astype(dtype)
    assert differ > 0  # the other search would have labelled some point differently
    assert not np.any(fit.data_step_split_merges)
    tol = 2e-4 if dtype == np.float32 else 1e-9
    np.testing.assert_allclose(fit.centers, means, rtol=tol, atol=tol)
    # the steps move the means to the data: the full data's error drops
    assert np.all(np.diff(fit.data_step_objective) <= 0)
    err_base = vcgmm.quantization_error(X, base.centers, sample_weight=w)
    err_fit = vcgmm.quantization_error(X, fit.centers, sample_weight=w)
    assert err_fit < 0.97 * err_base


def test_first_data_step_lowers_the_error_on_blobs_with_one_mean_each():
    # 400 blobs in 128 dimensions, C = 400: about 20 cells of 20 means that
    # belong to unrelated blobs. Labels from 2 cells raised this fit's error;
    # the first step's 4 cells lower it.
    from sklearn.datasets import make_blobs as sklearn_blobs

    X, _ = sklearn_blobs(40000, 128, centers=400, random_state=0)
    X = X.astype(np.float32)
    kw = dict(random_state=0, n_threads=2)
    base = vcgmm.fit_vcgmm(X, 400, data_steps=0, **kw)
    fit = vcgmm.fit_vcgmm(X, 400, data_steps=1, **kw)
    assert (vcgmm.quantization_error(X, fit.centers)
            < 0.995 * vcgmm.quantization_error(X, base.centers))


def test_split_merge_moves_after_data_steps_even_out_the_means_per_blob(make_blobs):
    # 50 blobs in 64 dimensions, C = 200: the seeding leaves some blobs with
    # one or two means and others with six; the coreset (16 points per
    # cluster) is too small for the refinement's moves to tell, all points
    # are not (the moves lowered the error on every seed tried).
    X, truth, centers = make_blobs(20000, 50, 64, seed=3, dtype=np.float32)
    kw = dict(coreset_size=3200, data_steps=2, random_state=0, n_threads=2)
    on = vcgmm.fit_vcgmm(X, 200, **kw)
    off = vcgmm.fit_vcgmm(X, 200, split_merge=False, **kw)
    assert on.data_step_split_merges[0] > 0
    assert not np.any(off.data_step_split_merges)
    assert np.all(np.diff(on.data_step_objective) <= 0)
    assert vcgmm.quantization_error(X, on.centers) < 0.998 * vcgmm.quantization_error(X, off.centers)

    def spread(r):  # the largest number of means in one blob minus the smallest
        counts = np.bincount(np.argmin(cdist(r.centers, centers, "sqeuclidean"), axis=1),
                             minlength=centers.shape[0])
        return counts.max() - counts.min()

    assert spread(on) < spread(off)


def test_empty_clusters_left_after_the_splits_go_to_points_no_mean_sits_on():
    # C = 1000 of 1200 points, from 3 EM iterations on a random start: about a
    # third of the clusters empty after the first step, more than there are
    # splits. The farthest points by their distances before the moves are,
    # mostly, one point of a two-point cluster whose split now puts a mean on
    # it: moving an empty cluster there duplicated a mean (84 duplicates,
    # error 1.5x that of the far-point relocation).
    X = np.random.default_rng(0).normal(size=(1200, 32))
    kw = dict(coreset_size=1000, init="random", max_iter=3, data_steps=1, refine=0,
              random_state=1, n_threads=2)
    on = vcgmm.fit_vcgmm(X, 1000, **kw)
    off = vcgmm.fit_vcgmm(X, 1000, split_merge=False, **kw)
    assert on.data_step_relocated[0] > 0
    assert np.unique(on.centers, axis=0).shape[0] == 1000
    assert vcgmm.quantization_error(X, on.centers) < 1.1 * vcgmm.quantization_error(X, off.centers)


def test_data_steps_costs_variance_and_zero_weight_rows(make_blobs):
    X, _, _ = make_blobs(4000, 30, 5, seed=2)
    C, kw = 100, dict(G=5, coreset_size=400, random_state=0, n_threads=2)
    base = vcgmm.fit_vcgmm(X, C, data_steps=0, **kw)
    fit = vcgmm.fit_vcgmm(X, C, data_steps=1, **kw)
    # the step's distance evaluations: at least one per point, far fewer than exact
    extra = fit.n_distance_evals["refinement"] - base.n_distance_evals["refinement"]
    assert X.shape[0] <= extra < X.shape[0] * C / 2
    assert fit.timings["refinement"] > 0.0
    # sigma2 refitted about the moved means (the coreset's soft spread)
    assert fit.sigma2 != base.sigma2 and np.isfinite(fit.sigma2) and fit.sigma2 > 0
    # rows of weight 0 take no part: the fit equals the fit without them
    w = np.ones(X.shape[0])
    w[::7] = 0.0
    with_zeros = vcgmm.fit_vcgmm(X, C, data_steps=1, sample_weight=w, **kw)
    without = vcgmm.fit_vcgmm(X[w > 0], C, data_steps=1, **kw)
    np.testing.assert_array_equal(with_zeros.centers, without.centers)
    np.testing.assert_array_equal(with_zeros.data_step_objective, without.data_step_objective)


def test_data_steps_one_two_three_threads_bit_identical(make_blobs):
    X, _, _ = make_blobs(20000, 24, 8, seed=7, dtype=np.float32)
    runs = [vcgmm.fit_vcgmm(X, 400, 5, 2000, data_steps=2, random_state=1, n_threads=t)
            for t in (1, 2, 3)]
    for r in runs[1:]:
        np.testing.assert_array_equal(r.centers, runs[0].centers)
        np.testing.assert_array_equal(r.data_step_objective, runs[0].data_step_objective)
        assert r.sigma2 == runs[0].sigma2


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_evaluation_from_the_last_steps_labels_equals_the_exact_scan(dtype, make_blobs):
    X, _, _ = make_blobs(20000, 50, 64, seed=3, dtype=dtype)
    w = np.random.default_rng(2).uniform(0.5, 2.0, X.shape[0])
    C = 200
    fits = [vcgmm.VCGMM(C, coreset_size=3200, data_steps=2, random_state=0, n_threads=t)
            .fit(X, sample_weight=w) for t in (1, 2, 3)]
    fit = fits[0]
    assert fit.n_distance_evals_["evaluation"] < X.shape[0] * C / 4  # the warm start ran
    np.testing.assert_array_equal(fit.labels_, vcgmm.assign(X, fit.cluster_centers_))
    assert fit.inertia_ == vcgmm.quantization_error(X, fit.cluster_centers_, sample_weight=w)
    # split-merge moves merged clusters in the last step: their points' labels
    # were remapped to the merged cluster, and the result is still the scan's
    assert vcgmm.fit_vcgmm(X, C, coreset_size=3200, data_steps=2, random_state=0,
                           sample_weight=w).data_step_split_merges[-1] > 0
    for other in fits[1:]:
        np.testing.assert_array_equal(other.labels_, fit.labels_)
        assert other.inertia_ == fit.inertia_


def test_default_is_one_step_on_arrays_and_none_without_a_coreset_or_in_chunks(make_blobs):
    X, _, _ = make_blobs(3000, 20, 4, seed=4)
    kw = dict(coreset_size=300, random_state=0)
    auto = vcgmm.VCGMM(60, **kw).fit(X)
    one = vcgmm.VCGMM(60, data_steps=1, **kw).fit(X)
    none = vcgmm.VCGMM(60, data_steps=0, **kw).fit(X)
    np.testing.assert_array_equal(auto.means_, one.means_)
    assert auto.inertia_ < none.inertia_
    assert vcgmm.VCGMM.paper_params["data_steps"] == 0
    r = vcgmm.fit_vcgmm(X, 60, 5, 300, random_state=0)
    assert r.data_step_objective.size == 1
    # var-GMM-S: its loop runs on all points; "auto" adds nothing
    vargmm = vcgmm.fit_vargmm(X, 60, 5, random_state=0)
    assert vargmm.data_step_objective.size == 0
    # chunked data are fitted on their coreset only: "auto" is 0 there
    chunked = vcgmm.VCGMM(60, **kw).fit([X[:1500], X[1500:]])
    assert chunked.means_.shape == (60, 4)


@pytest.mark.parametrize("value, error", [(-1, ValueError), (1.5, TypeError), ("1", ValueError),
                                          (None, TypeError)])
def test_bad_data_steps_is_refused(value, error, make_blobs):
    X, _, _ = make_blobs(500, 5, 3, seed=0)
    with pytest.raises(error, match="data_steps"):
        vcgmm.VCGMM(5, data_steps=value).fit(X)


def test_data_steps_refuse_chunked_data_and_var_gmm_s(make_blobs):
    X, _, _ = make_blobs(2000, 5, 3, seed=0)
    chunks = [X[:1000], X[1000:]]
    with pytest.raises(ValueError, match="data_steps=1 needs the training data as one array"):
        vcgmm.VCGMM(5, coreset_size=200, data_steps=1).fit(chunks)
    with pytest.raises(ValueError, match="data_steps=2 runs after a fit on a coreset"):
        vcgmm.VCGMM(5, coreset_size=None, data_steps=2).fit(X)
    # data_steps=0 and "auto" fit chunked data as before
    vcgmm.VCGMM(5, coreset_size=200, data_steps=0).fit(chunks)
