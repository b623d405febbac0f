"""Tuners by name, for the command line, the task scheduler and benchmarks.

The tuner modules are imported inside `make_tuner`, not at the top: the XGBoost tuner pulls in
xgboost, which costs a second of start-up that `tunefarm --help` and the random tuner should
not pay.
"""

from __future__ import annotations

from tunefarm.task import Task
from tunefarm.tune.tuner import Tuner

TUNER_NAMES = (
    "random",
    "gridsearch",
    "ga",
    "xgb",
    "xgb-rank",
    "xgb-reg",
    "sketch",
    "sketch-random",
)


def make_tuner(name: str, task: Task, seed: int = 0) -> Tuner:
    """A fresh tuner for `task`; "xgb" is the rank-loss XGBoost tuner (AutoTVM's default),
    "sketch" the template-free evolutionary search ("sketch-random": random sketch states).

    Raises ValueError naming the unknown name and the known ones. Each tuner's module is
    imported when first asked for: the XGBoost one pulls in xgboost, about a second, which
    a process that never uses it (a build worker, an agent) should not pay.
    """
    if name == "random":
        from tunefarm.tune.random_tuner import RandomTuner

        return RandomTuner(task, seed=seed)
    if name == "gridsearch":
        from tunefarm.tune.gridsearch_tuner import GridSearchTuner

        return GridSearchTuner(task, seed=seed)
    if name == "ga":
        from tunefarm.tune.ga_tuner import GATuner

        return GATuner(task, seed=seed)
    if name in ("xgb", "xgb-rank", "xgb-reg"):
        from tunefarm.tune.xgb_tuner import XGBTuner

        loss = "reg" if name == "xgb-reg" else "rank"
        return XGBTuner(task, seed=seed, loss=loss)
    if name in ("sketch", "sketch-random"):
        from tunefarm.tune.sketch_search import SketchTuner

        return SketchTuner(task, seed=seed, evolve=name == "sketch")
    raise ValueError(f"unknown tuner {name!r}; known tuners: {', '.join(TUNER_NAMES)}")
