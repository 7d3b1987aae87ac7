"""k-means: k-means++ / AFK-MC^2 seeding + weighted Lloyd, on all data or on a
lightweight coreset (the LWCS baseline of the vc-GMM paper)."""

from .._estimator.family import CliChoice, Family, chain_text, coreset_text
from .kmeans import KMeans, lloyd

__all__ = ["FAMILY", "KMeans", "lloyd"]

FAMILY: Family = Family(
    name="kmeans",
    paper="Lloyd 1982; k-means++ (Arthur & Vassilvitskii 2007); LWCS (Bachem et al. 2018)",
    estimators=(KMeans,),
    functions=(lloyd,),
    cli={
        "kmeans++": CliChoice(
            KMeans, {"init": "k-means++", "coreset_size": None},
            "k-means++ seeding (D^2 sampling) + Lloyd iterations on all data (the papers' "
            "baseline; exact but O(N C D) per iteration)",
            lambda est, n: "k-means++ seeding (D^2 sampling) + Lloyd iterations on all data",
            unused=("chain_length",)),
        "lwcs": CliChoice(
            KMeans, {"init": "afk-mc2"},
            "lightweight coreset of M weighted points + AFK-MC^2 seeding + weighted Lloyd "
            "on the coreset",
            lambda est, n: (f"{coreset_text(est, n)} + {chain_text(est)} + weighted Lloyd "
                            "on the coreset"),
            defaults={"coreset_size": "auto"}),
    },
    chunked=True,
    has_centers=True,
    objective="inertia_",
)
