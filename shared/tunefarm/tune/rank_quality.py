"""How well a cost model orders states: Kendall tau on all of them and on the best ones.

A search only ever acts on the model's top candidates, so what counts at depth is whether the
model orders the *good* states among themselves, not whether it tells a slow state from a fast
one (which every model learns early and which keeps tau on all states high). `top_tau` is
tau restricted to the states whose measured throughput is in the top share.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

TOP_SHARE = 0.1


def kendall_tau(a: Sequence[float], b: Sequence[float]) -> float:
    """Kendall's tau-b of two equally long sequences (ties in either count as neither
    concordant nor discordant); nan with fewer than two items or when one side is constant."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"kendall_tau: sequences of shapes {x.shape} and {y.shape}")
    if len(x) < 2:
        return math.nan
    dx = np.sign(x[:, None] - x[None, :])
    dy = np.sign(y[:, None] - y[None, :])
    iu = np.triu_indices(len(x), 1)
    dx, dy = dx[iu], dy[iu]
    denom = math.sqrt(float(np.count_nonzero(dx)) * float(np.count_nonzero(dy)))
    return float(np.sum(dx * dy) / denom) if denom else math.nan


def top_tau(
    predicted: Sequence[float], measured: Sequence[float], share: float = TOP_SHARE
) -> float:
    """Kendall tau between predictions and measured throughputs (higher = better, both) on
    the states whose measured throughput is in the top `share` (at least two states)."""
    p, m = np.asarray(predicted, dtype=np.float64), np.asarray(measured, dtype=np.float64)
    if p.shape != m.shape:
        raise ValueError(f"top_tau: {p.shape} predictions for {m.shape} measurements")
    if not 0 < share <= 1:
        raise ValueError(f"top_tau: share must be in (0, 1], got {share}")
    n = max(2, int(math.ceil(share * len(m))))
    top = np.argsort(-m, kind="stable")[:n]
    return kendall_tau(p[top], m[top])


def rank_report(predicted: Sequence[float], measured: Sequence[float]) -> dict[str, float]:
    """{'tau': on all, 'tau_top10': on the top 10%, 'n': how many} for a log or a JSON."""
    return {
        "tau": kendall_tau(predicted, measured),
        "tau_top10": top_tau(predicted, measured, TOP_SHARE),
        "n": len(measured),
    }
