"""How well cost-model variants order held-out states, on all of them and on the top 10%,
offline, from the measured states a search dumped (`search_depth.py --dump DIR`).

Two splits per dump: random halves (repeated `--splits` times; tau on all and on the top
10%), and "prospective": trained on the first k states the search measured, scored on the
rest (what the search itself faces) by tau within each later batch of 16 and on its faster
half (states measured together, under the same host load: on a loaded host the timings of
batches far apart in time are not comparable).

    python benchmarks/model_ranking.py /tmp/dump/*.npz [--splits 8]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import xgboost as xgb

try:
    import tunefarm  # noqa: F401
except ImportError:  # run from a checkout without the editable install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))

from tunefarm.tune.cost_model import XGBoostCostModel
from tunefarm.tune.rank_quality import kendall_tau, top_tau


def fit_predict(variant: str, x: np.ndarray, y: np.ndarray, xt: np.ndarray) -> np.ndarray:
    """Train one variant on (x, y: throughput normalised to the best, in the order the
    search measured them) and score xt."""
    if variant == "pairwise":  # the model as it is
        model = XGBoostCostModel("rank", "statement", nthread=1)
        model.fit(x, y)
        return model.predict(xt)
    if variant.startswith("batch"):  # pairs only within each batch of n measured together
        n = int(variant[5:])
        model = XGBoostCostModel("rank", "statement", nthread=1)
        model.fit(x, y, [min(n, len(y) - k) for k in range(0, len(y), n)])
        return model.predict(xt)
    model = XGBoostCostModel("rank", "statement", nthread=1)
    params = model.params(len(y))
    labels = y
    if variant.startswith("topk"):  # pairs only with the current top k of the group
        k = max(2, int(float(variant[4:]) * len(y)))
        params.update(lambdarank_pair_method="topk", lambdarank_num_pair_per_sample=k)
    elif variant.startswith("ndcg"):  # graded relevance, gain 2^label - 1: the top counts most
        levels = int(variant[4:] or 31)
        labels = np.floor(y * levels)
        params.update(objective="rank:ndcg", lambdarank_pair_method="topk",
                      lambdarank_num_pair_per_sample=max(2, len(y) // 10))  # fmt: skip
    elif variant == "reg":
        params = {k: v for k, v in params.items() if not k.startswith("lambdarank")}
        params["objective"] = "reg:squarederror"
    elif variant == "reglog":
        params = {k: v for k, v in params.items() if not k.startswith("lambdarank")}
        params["objective"] = "reg:squarederror"
        labels = np.log2(np.maximum(y, 1e-3))
    else:
        raise ValueError(f"unknown variant {variant}")
    d = xgb.DMatrix(x, label=labels)
    if params.get("objective", "").startswith("rank"):
        d.set_group([len(y)])
    booster = xgb.train(params, d, num_boost_round=model.num_rounds)
    return np.asarray(booster.inplace_predict(xt))


BATCH = 16


def within_batches(pred: np.ndarray, g: np.ndarray, fn) -> list[float]:
    """fn(pred, g) on each run of BATCH consecutive states (measured at the same time, so
    under the same load: their order is what a loaded host can still tell apart)."""
    return [fn(pred[k : k + BATCH], g[k : k + BATCH]) for k in range(0, len(g) - 1, BATCH)]


def top_half_tau(pred: np.ndarray, g: np.ndarray) -> float:
    """Tau on the faster half of a batch (a batch's top 10% is one or two states)."""
    return top_tau(pred, g, 0.5)


def normalise(g: np.ndarray) -> np.ndarray:
    return g / g.max() if g.max() > 0 else g


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dumps", nargs="+")
    p.add_argument("--splits", type=int, default=8)
    p.add_argument("--variants", default="pairwise,batch16,topk0.1,ndcg31,reglog")
    args = p.parse_args(argv)
    variants = args.variants.split(",")
    print("| dump | split | " + " | ".join(f"{v} tau / top10" for v in variants) + " |")
    print("|" + "---|" * (2 + len(variants)))
    totals: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for path in args.dumps:
        data = np.load(path)
        x, g = data["x"], data["gflops"]
        rng = np.random.default_rng(0)
        splits = []
        for _ in range(args.splits):
            perm = rng.permutation(len(g))
            splits.append(("halves", perm[: len(g) // 2], perm[len(g) // 2 :]))
        for k in (128, 256):
            if len(g) > k + 64:
                splits.append((f"first {k}", np.arange(k), np.arange(k, len(g))))
        for kind in dict.fromkeys(s[0] for s in splits):
            cells = []
            for v in variants:
                taus, tops, secs = [], [], []
                for _, tr, te in (s for s in splits if s[0] == kind):
                    start = time.perf_counter()
                    pred = fit_predict(v, x[tr], normalise(g[tr]), x[te])
                    secs.append(time.perf_counter() - start)
                    if kind == "halves":
                        taus.append(kendall_tau(pred, g[te]))
                        tops.append(top_tau(pred, g[te]))
                    else:  # later batches, each measured together: tau within each
                        taus += within_batches(pred, g[te], kendall_tau)
                        tops += within_batches(pred, g[te], top_half_tau)
                t, tt = np.nanmean(taus), np.nanmean(tops)
                totals.setdefault((kind.split()[0], v), []).append((t, tt))
                cells.append(f"{t:.2f} / {tt:.2f} ({statistics.mean(secs):.1f} s)")
            print(f"| {Path(path).stem} | {kind} | " + " | ".join(cells) + " |")
    for kind in ("halves", "first"):
        means = [
            f"{v} {np.mean([a for a, _ in totals[(kind, v)]]):.2f} / "
            f"{np.mean([b for _, b in totals[(kind, v)]]):.2f}"
            for v in variants
            if (kind, v) in totals
        ]
        print(f"mean over dumps, {kind}: " + ", ".join(means))
    return 0


if __name__ == "__main__":
    sys.exit(main())
