"""The search policy: templates (knobs of a hand-written schedule), sketches (schedules
derived from the compute definition), or auto (sketches where an op has no specialised
template, that is where the backend falls back to its generic template)."""

from __future__ import annotations

from collections.abc import Callable

from tunefarm.backends import registry
from tunefarm.task import Task
from tunefarm.tune.factory import make_tuner
from tunefarm.tune.tuner import Tuner

POLICIES = ("template", "sketch", "auto")
SKETCH_TUNER = "sketch"


class PolicyError(ValueError):
    """An unknown policy name (the message names the allowed ones)."""


def check_policy(policy: str) -> str:
    if policy not in POLICIES:
        raise PolicyError(f"policy must be one of {', '.join(POLICIES)}; got {policy!r}")
    return policy


def uses_sketch(policy: str, task: Task) -> bool:
    """Whether a task is searched with sketches under `policy`."""
    check_policy(policy)
    if policy == "auto":
        return bool(getattr(registry.template(task), "generic", False))
    return policy == "sketch"


def tuner_name(policy: str, tuner: str, task: Task) -> str:
    return SKETCH_TUNER if uses_sketch(policy, task) else tuner


def tuner_factory(policy: str, tuner: str) -> Callable[[Task, int], Tuner]:
    """`f(task, seed)` for the task scheduler: the sketch search or the named template tuner.
    The sketch tuners of one factory (one job) share one cost model."""
    check_policy(policy)
    shared: list = []

    def make(task: Task, seed: int) -> Tuner:
        name = tuner_name(policy, tuner, task)
        if name != SKETCH_TUNER:
            return make_tuner(name, task, seed)
        from tunefarm.tune.sketch_search import SharedModel, SketchTuner

        if not shared:
            shared.append(SharedModel(seed))
        return SketchTuner(task, seed=seed, shared=shared[0])

    return make
