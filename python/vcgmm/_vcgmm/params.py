"""vc-GMM's parameter table: types, ranges, defaults (from the core) and help."""

from __future__ import annotations



from .._base.metric import metric_param
from .._blocks.coreset import coreset_size_param
from .._estimator.base import (COMPUTE_LABELS_PARAM, LABELS_PARAM, N_INIT_PARAM)
from .._base.loader import core as _core
from .._base.params import (CORE, INT32_MAX, AnyOf, Boolean, Integer, Options, Param,
                             ParamTable, Real)
from .._base.run import RUN_PARAMS
from .._blocks.seeding import SEEDING_PARAMS, init_param


#: The parameters of the vc-GMM family, in VCGMM's signature order.
VCGMM_PARAMS: ParamTable = ParamTable(
    [
        Param("n_components", Integer(1, INT32_MAX), CORE, "number of Gaussians C",
              target="n_clusters", cli=("-C", "--clusters")),
        Param("G", Integer(1, INT32_MAX), CORE,
              "neighbourhood size: each point searches the G neighbours of its G nearest "
              "clusters (clamped to C)", target="em.G", cli="-G"),
        coreset_size_param("auto"),
        Param("plus1", Boolean(), CORE, "add one random cluster to every search space",
              target="em.plus1", cli="--plus1"),
        init_param(_core.VcgmmParams().seeding.method),
        N_INIT_PARAM,
        *SEEDING_PARAMS,
        Param("initial_sets", Options(tuple(_core.initial_sets())), CORE,
              "the truncation sets K(n) EM starts from: 'nearest' (each point's nearest "
              "initial mean first, found as refine_search says) or 'random' (the papers')",
              target="em.initial_sets", cli="--initial-sets"),
        Param("n_init_estep", Integer(0, INT32_MAX), CORE,
              "extra E-steps before the first M-step", target="em.n_init_estep"),
        Param("tol", Real(0.0), CORE,
              "convergence threshold (Lloyd: relative change of the quantization error; "
              "EM: see --stop-rule)",
              target="em.tol", cli="--tol"),
        Param("stop_rule", Options(tuple(_core.stop_rules())), CORE,
              "EM convergence: 'gain' = free energy gained per iteration, per point and "
              "feature, below tol (unit-free); 'relative' = relative change of the free "
              "energy below tol (the papers' rule; depends on the data's units)",
              target="em.stop_rule", cli="--stop-rule"),
        Param("max_iter", Integer(1, INT32_MAX), CORE, "maximum number of iterations (Lloyd or EM)",
              target="em.max_iter", cli="--max-iter"),
        metric_param(),
        Param("refine", Integer(0, INT32_MAX), CORE,
              "hard (Lloyd) steps on the coreset after EM, labels found as refine_search "
              "says (0: the papers' vc-GMM)",
              target="em.refine", cli="--refine"),
        Param("refine_search", Options(tuple(_core.refine_searches())), CORE,
              "the refinement's assignment: 'restricted' (the truncated search spaces), "
              "'approx' (all means, approximate cell index) or 'exact' (all means, exact scan)",
              target="em.refine_search", cli="--refine-search"),
        Param("split_merge", Boolean(), CORE,
              "split-merge moves after every refinement step: a cluster merged into a "
              "neighbour where splitting another gains more than 4 times the merge's "
              "cost; more steps follow while a round gains (refine_search 'approx' or "
              "'exact')",
              target="em.split_merge"),
        Param("data_steps", AnyOf(Options(("auto",)), Integer(0, INT32_MAX)), "auto",
              "hard (Lloyd) steps on all the training data after the fit on the coreset, "
              "labels by the approximate cell index, or exactly from the previous step's "
              "where that costs less (0: none, the papers' vc-GMM; 'auto': "
              "1 on data in memory, 0 on chunked or Dask data)",
              target="data_steps", cli="--data-steps",
              core_value=lambda v: _core.VcgmmParams().data_steps if v == "auto" else v),
        Param("covariance_type", Options(tuple(_core.covariance_types())), CORE,
              "'shared': one variance and equal weights (the papers' model); 'spherical': "
              "a variance and a mixing weight per component",
              target="em.covariance_type", cli="--covariance-type"),
        Param("variance_floor", Real(0.0), CORE,
              "covariance_type='spherical': smallest variance of a component, relative to "
              "the data's variance per feature",
              target="em.variance_floor", cli="--variance-floor"),
        Param("shared_m_steps", Integer(0, INT32_MAX), CORE,
              "covariance_type='spherical': the first M-steps fit one shared variance and "
              "equal weights before per-component ones (the authors' isoflex code: 2)",
              target="em.shared_m_steps", cli="--shared-m-steps"),
        COMPUTE_LABELS_PARAM,
        LABELS_PARAM,
        *RUN_PARAMS,
    ],
    core_params=_core.VcgmmParams,
)


_D = VCGMM_PARAMS.defaults
