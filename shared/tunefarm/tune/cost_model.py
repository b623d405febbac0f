"""A gradient-boosted-trees cost model: learn throughput from features, rank candidates.

The model only sees feature matrices and targets; which features (knob or loop, see
`tunefarm.tune.features`) is the tuner's business. Targets are throughputs normalised to
[0, 1] per workload (1 = the best measured, 0 = failed), so higher predictions are better.

Two losses, as in AutoTVM:

* "rank" (`rank:pairwise`): the tuner only needs an order, and pairwise ranking ignores the
  absolute scale, which differs between workloads; with `groups` each workload is its own
  query group, so pairs are never formed across workloads.
* "reg" (`reg:squarederror`): predicts the normalised throughput itself.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import xgboost as xgb

LOSSES = ("rank", "reg")
NUM_ROUNDS = 100
_PARAMS = {
    "max_depth": 6,
    "eta": 0.3,
    "gamma": 0.0001,
    "min_child_weight": 1,
    "subsample": 1.0,
    "lambda": 1.0,
    "alpha": 0.0,
    # Histogram bins: features are mostly log2 of small integers or knob positions, with
    # few distinct values; 64 bins instead of 256 fits ~35% faster on a thousand samples.
    "max_bin": 64,
    "verbosity": 0,
}
# Pairs for the rank loss. Every pair of a group (top-k with k = the group size) learns the
# best order, but costs O(n^2): fine up to a few hundred samples per group; beyond that a
# fixed number of random pairs per sample keeps a fit well under a second. (xgboost's own
# default, top-32, learns a much poorer order on one big group.)
ALL_PAIRS_LIMIT = 512
SAMPLED_PAIRS = 64


class XGBoostCostModel:
    """`fit(xs, ys)` then `predict(xs)`; before the first useful fit it predicts zeros.

    loss: "rank" or "reg". feature_type: the kind of features it is fed, for reports (the
    model itself only checks that `predict` gets as many features as `fit` did).
    nthread: xgboost threads (None = xgboost's default); tests and small machines pass 1.
    """

    def __init__(
        self,
        loss: str = "rank",
        feature_type: str = "knob",
        seed: int = 0,
        nthread: int | None = None,
        num_rounds: int = NUM_ROUNDS,
    ):
        if loss not in LOSSES:
            raise ValueError(f"unknown loss {loss!r}; known: {LOSSES}")
        self.loss = loss
        self.feature_type = feature_type
        self.seed = seed
        self.nthread = nthread
        self.num_rounds = num_rounds
        self.booster: xgb.Booster | None = None
        self.n_features: int | None = None
        self.fit_count = 0

    @property
    def trained(self) -> bool:
        return self.booster is not None

    def params(self, largest_group: int = 1) -> dict:
        """The xgboost parameters of one fit (seeded so that tuning runs replay);
        `largest_group` decides between all pairs and sampled pairs for the rank loss."""
        params = dict(_PARAMS, seed=self.seed)
        if self.loss == "reg":
            params["objective"] = "reg:squarederror"
        elif largest_group <= ALL_PAIRS_LIMIT:
            params.update(
                objective="rank:pairwise",
                lambdarank_pair_method="topk",
                lambdarank_num_pair_per_sample=max(1, largest_group),
            )
        else:
            params.update(
                objective="rank:pairwise",
                lambdarank_pair_method="mean",
                lambdarank_num_pair_per_sample=SAMPLED_PAIRS,
            )
        if self.nthread is not None:
            params["nthread"] = self.nthread
        return params

    def fit(self, xs: np.ndarray, ys: Sequence[float], groups: Sequence[int] | None = None) -> bool:
        """Train from scratch on (xs, ys); returns whether a model was trained.

        ys: normalised throughputs (failures 0). groups: sizes of consecutive query groups
        for the rank loss (e.g. one per workload); None = one group. With fewer than two
        distinct targets there is nothing to learn, so the previous model (if any) stays.
        """
        xs = np.asarray(xs, dtype=np.float64)
        ys = np.asarray(ys, dtype=np.float64)
        if xs.ndim != 2 or len(xs) != len(ys):
            raise ValueError(f"xs {xs.shape} and ys {ys.shape} do not match")
        if len(np.unique(ys)) < 2:
            return False
        groups = [len(ys)] if groups is None else [int(g) for g in groups]
        if sum(groups) != len(ys):
            raise ValueError(f"group sizes {groups} do not add up to {len(ys)} samples")
        dtrain = xgb.DMatrix(xs, label=ys)
        if self.loss == "rank":
            dtrain.set_group(groups)
        params = self.params(max(groups))
        self.booster = xgb.train(params, dtrain, num_boost_round=self.num_rounds)
        self.n_features = xs.shape[1]
        self.fit_count += 1
        return True

    def predict(self, xs: np.ndarray) -> np.ndarray:
        """Scores of candidates, higher = faster; zeros before the first fit."""
        xs = np.asarray(xs, dtype=np.float64)
        if self.booster is None or len(xs) == 0:
            return np.zeros(len(xs))
        if xs.shape[1] != self.n_features:
            raise ValueError(f"model was fit on {self.n_features} features, got {xs.shape[1]}")
        return np.asarray(self.booster.inplace_predict(xs), dtype=np.float64)
