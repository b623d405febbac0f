"""Run one operator task: pick configs, build and measure them, report time and GFLOP/s.

This is the library side of `tunefarm op`: a quick way to see what one workload costs with
its default schedule, with hand-picked knob values, or with a few random ones, before (or
instead of) tuning it. Everything a user types is checked here, up front, and rejected with
a `ValueError` subclass that names the problem; once measuring starts nothing raises for a
bad candidate, it becomes an `OpRun` row with its error code (as the measure layer does).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import numpy as np

from tunefarm.backends import backend_of, get_backend, parse_target, registry
from tunefarm.measure import (
    Builder,
    BuildResult,
    Config,
    MeasureErrorNo,
    MeasureInput,
    MeasureResult,
    MeasureSettings,
    Runner,
)
from tunefarm.schedule.space import ConfigSpace, KnobBase, SpaceError, to_jsonable
from tunefarm.target import TargetError
from tunefarm.task import Task, TaskError

_MAX_SHOWN_VALUES = 24  # valid values listed in a bad-knob message before "... (N in all)"


class ConfigError(ValueError):
    """A user-given config (JSON text or knob values) that does not fit the task's space."""


def _finite_or_none(x: float) -> float | None:
    """Infinity marks 'no time' in MeasureResult; strict JSON has no Infinity, so use null."""
    return x if math.isfinite(x) else None


@dataclass(frozen=True)
class OpRun:
    """One measured config of a task: a row of `tunefarm op` and an item of its JSON output.

    Times are seconds per run (inf when the config failed); GFLOP/s are 0.0 on failure.
    `error` is the `MeasureErrorNo` name, "NO_ERROR" when the run is valid.
    """

    values: tuple[tuple[str, Any], ...]
    index: int | None
    error: str
    error_msg: str
    min_s: float
    median_s: float
    mean_s: float
    gflops_median: float
    gflops_best: float
    build_s: float

    @property
    def ok(self) -> bool:
        return self.error == MeasureErrorNo.NO_ERROR.name

    @property
    def config(self) -> Config:
        return Config(self.values, self.index)

    def to_json(self) -> dict[str, Any]:
        return {
            "config": self.config.to_json()["values"],
            "index": self.index,
            "error": self.error,
            "error_msg": self.error_msg,
            "min_s": _finite_or_none(self.min_s),
            "median_s": _finite_or_none(self.median_s),
            "mean_s": _finite_or_none(self.mean_s),
            "gflops_median": self.gflops_median,
            "gflops_best": self.gflops_best,
            "build_s": self.build_s,
        }

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> OpRun:
        def secs(key: str) -> float:
            return float("inf") if obj[key] is None else float(obj[key])

        config = Config.make(dict(obj["config"]), obj["index"])
        times = (secs("min_s"), secs("median_s"), secs("mean_s"))
        gflops = (float(obj["gflops_median"]), float(obj["gflops_best"]))
        return OpRun(
            config.values,
            config.index,
            obj["error"],
            obj["error_msg"],
            *times,
            *gflops,
            float(obj["build_s"]),
        )

    @staticmethod
    def from_result(config: Config, flops: float, build: BuildResult, res: MeasureResult) -> OpRun:
        """Combine a build and a measurement; GFLOP/s use the median (typical) and min (best)."""

        def gflops(seconds: float) -> float:
            return flops / seconds / 1e9 if res.ok and seconds > 0 else 0.0

        return OpRun(
            config.values,
            config.index,
            MeasureErrorNo(res.error_no).name,
            res.error_msg,
            res.min,
            res.median,
            res.mean,
            gflops(res.median),
            gflops(res.min),
            build.build_seconds,
        )


def sort_runs(runs: Iterable[OpRun]) -> list[OpRun]:
    """Fastest median first, failed configs last (in their original order)."""
    return sorted(runs, key=lambda r: (not r.ok, r.median_s if r.ok else 0.0))


def parse_config(text: str) -> dict[str, Any]:
    """Knob values from JSON text, e.g. '{"tile_ow": [4, 14], "unroll_kw": true}'."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"config {text!r} is not valid JSON ({exc.msg} at {exc.pos})") from None
    if not isinstance(obj, dict):
        raise ConfigError(
            f"config {text!r} must be a JSON object of knob values, e.g. "
            '\'{"tile_ow": [4, 14], "unroll_kw": true}\''
        )
    return obj


def check_task(task: Task) -> tuple[float, ConfigSpace]:
    """Validate a task before anything is built; return its FLOP count and config space.

    Templates raise TaskError for the problems they foresee; anything else they trip over
    while reading params (KeyError, TypeError...) is still bad input, so it is reported as a
    TaskError too instead of leaking a traceback to the user.
    """
    parse_target(task.target)
    try:
        flops = registry.flops(task)
        space = registry.config_space(task)
        registry.template(task).logical_inputs(task)
    except (TaskError, SpaceError, TargetError):
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise TaskError(
            f"{task.op}: bad params {dict(task.to_json()['params'])}: {type(exc).__name__}: {exc}"
        ) from None
    return flops, space


LOCAL_KINDS = ("cpu", "opencl", "cuda")  # devices a machine may have itself


def check_local_target(task: Task) -> str:
    """The target's kind if this machine can measure it: the host CPU, an OpenCL device
    (pocl runs on any CPU), a local GPU, or a backend whose device is a simulator on the
    host (`simulated`); other targets are measured by agents. A cuda target on a machine
    without a GPU fails each run with the reason (no libcuda); `--build-only` builds it
    anywhere nvcc is."""
    kind = parse_target(task.target).kind
    if kind not in LOCAL_KINDS and not getattr(get_backend(kind), "simulated", False):
        raise TargetError(
            f"target {task.target!r}: only {', '.join(LOCAL_KINDS)} and simulated targets "
            "can be built and measured locally"
        )
    return kind


@dataclass(frozen=True)
class BuildRow:
    """One config built, not run: its error if any, and what the backend reports about the
    artifact (a GPU backend: registers, shared memory, spills, compiler version)."""

    index: int
    config: Config
    ok: bool
    error: str
    error_msg: str
    info: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index, "config": self.config.to_json(), "ok": self.ok,
            "error": self.error, "error_msg": self.error_msg, "info": self.info,
        }  # fmt: skip


def build_only(
    task: Task, configs: list[dict[str, Any]] | None = None, sweep: int = 0, seed: int = 0
) -> list[BuildRow]:
    """Build configs of `task` without running them (for a target this machine lacks, such
    as a GPU), with the backend's `artifact_info` on each artifact's source where it has
    one. Raises like `run_op` for bad input."""
    _, space = check_task(task)
    if configs and all(registry.is_sketch(c) for c in configs):  # step lists: built as given
        plan = [Config.make(c) for c in configs]
    else:
        plan = plan_configs(task, space, configs, sweep, seed)
    inputs = [MeasureInput(task, c) for c in plan]
    n_parallel = min(len(inputs), os.cpu_count() or 1)
    with registry.local_builder(n_parallel=n_parallel) as builder:
        builds = builder.build(inputs)
    backend, target = backend_of(task), parse_target(task.target)
    describe = getattr(backend, "artifact_info", None)
    rows = []
    for i, (inp, b) in enumerate(zip(inputs, builds, strict=True)):
        info: dict[str, Any] = {}
        if b.ok and describe is not None:
            info = describe(registry.generate_source(inp).code, target)
        error = "" if b.ok else MeasureErrorNo(b.error_no).name
        rows.append(BuildRow(i, inp.config, b.ok, error, b.error_msg, info))
    return rows


def _shown(knob: KnobBase) -> str:
    values = [json.dumps(to_jsonable(e)) for e in knob.entities[:_MAX_SHOWN_VALUES]]
    more = f", ... ({len(knob)} in all)" if len(knob) > _MAX_SHOWN_VALUES else ""
    return ", ".join(values) + more


def resolve_config(space: ConfigSpace, base: Mapping[str, Any], given: Mapping[str, Any]) -> Config:
    """`given` knob values over `base` (the default config), checked knob by knob.

    Missing knobs keep their default value, so a user can change just one knob.
    """
    knobs = space.knobs
    unknown = [name for name in given if name not in knobs]
    if unknown:
        raise ConfigError(
            f"unknown knob(s) {', '.join(map(repr, unknown))}; "
            f"this task's knobs are: {', '.join(knobs)}"
        )
    for name, value in given.items():
        try:
            knobs[name].position(value)
        except SpaceError:
            raise ConfigError(
                f"knob {name!r}: {json.dumps(value)} is not a valid value; "
                f"valid values: {_shown(knobs[name])}"
            ) from None
    values = space.validate({**base, **given})
    return Config.make(values, index=space.index_of(values))


def plan_configs(
    task: Task,
    space: ConfigSpace,
    configs: Sequence[Mapping[str, Any]] | None = None,
    sweep: int = 0,
    seed: int = 0,
) -> list[Config]:
    """The configs to measure: the given ones (or the default), then `sweep` distinct random
    ones not among them. Fewer come back only when the space is smaller than asked for."""
    if isinstance(sweep, bool) or not isinstance(sweep, int) or sweep < 0:
        raise ConfigError(f"sweep must be an int >= 0, got {sweep!r}")
    default = registry.default_config(task)
    base = default.as_dict()
    chosen = [resolve_config(space, base, c) for c in configs] if configs else [default]
    if sweep:
        taken = {c.index for c in chosen if c.index is not None}
        for index in space.sample(np.random.default_rng(seed), sweep, exclude=taken):
            chosen.append(Config.make(space.get(index), index=index))
    return chosen


def run_op(
    task: Task,
    configs: list[dict[str, Any]] | None = None,
    sweep: int = 0,
    settings: MeasureSettings = MeasureSettings(),
    seed: int = 0,
    builder: Builder | None = None,
    runner: Runner | None = None,
) -> list[OpRun]:
    """Build and measure configs of `task`, one OpRun each, in plan order (default first).

    configs: knob-value dicts (partial ones are completed from the default config); None
        means the default config. sweep: that many distinct random configs (seeded) on top.
    settings / seed: for the default runner (a passed runner keeps its own); seed also
        picks the sweep.
    builder / runner: default to a LocalBuilder / LocalRunner made and closed here; passed
        ones are left open, so a caller can reuse them across tasks.
    Raises TaskError / TargetError / ConfigError (all ValueErrors) for bad input, before
    anything is built; a config that fails to build or run is an OpRun with its error.
    """
    flops, space = check_task(task)
    if configs and all(registry.is_sketch(c) for c in configs):  # step lists: run as given
        plan = [Config.make(dict(c)) for c in configs]
    else:
        plan = plan_configs(task, space, configs, sweep, seed)
    kind = parse_target(task.target).kind
    if builder is None:
        kind = check_local_target(task)
    inputs = [MeasureInput(task, c) for c in plan]
    with ExitStack() as stack:
        if builder is None:
            n_parallel = min(len(inputs), os.cpu_count() or 1)
            builder = stack.enter_context(registry.local_builder(n_parallel=n_parallel))
        if runner is None:
            runner = stack.enter_context(registry.local_runner(settings, kind, seed=seed))
        builds = builder.build(inputs)
        results = runner.run(inputs, builds)
    rows = zip(plan, builds, results, strict=True)
    return [OpRun.from_result(c, flops, b, r) for c, b, r in rows]
