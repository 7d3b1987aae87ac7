"""vc-GMM (Hirschberger, Forster & Luecke) and var-GMM-S (Forster & Luecke):
truncated variational EM for isotropic Gaussian mixtures, on a lightweight
coreset (vc-GMM) or on all data (var-GMM-S)."""

from .._estimator.family import CliChoice, Family, chain_text, coreset_text
from .loop import VariationalLoop
from .functions import fit_vargmm, fit_vcgmm
from .result import VCGMMResult
from .vcgmm import VCGMM

__all__ = ["FAMILY", "VCGMM", "VCGMMResult", "VariationalLoop", "fit_vargmm", "fit_vcgmm"]


def _g_text(est):
    return f"G={est.G}{'+1' if est.plus1 else ''}"


FAMILY: Family = Family(
    name="vcgmm",
    paper="vc-GMM: Hirschberger, Forster & Luecke, TPAMI 2022; var-GMM-S: Forster & "
          "Luecke, AISTATS 2018",
    estimators=(VCGMM,),
    functions=(fit_vcgmm, fit_vargmm),
    cli={
        "vcgmm": CliChoice(
            VCGMM, {},
            "vc-GMM: lightweight coreset + AFK-MC^2 + truncated variational EM with "
            "neighbourhoods of G clusters, O(M G^2 D) per iteration (the headline)",
            lambda est, n: (f"vc-GMM: {coreset_text(est, n)} + {chain_text(est)} + truncated "
                            f"variational EM ({_g_text(est)})")),
        "vargmm": CliChoice(
            VCGMM, {"coreset_size": None},
            "var-GMM-S: the same EM on all data (no coreset)",
            lambda est, n: (f"var-GMM-S: {chain_text(est)} + truncated variational EM "
                            f"({_g_text(est)}) on all data")),
    },
    chunked=True,
    has_centers=True,
    objective="lower_bound_",
)
