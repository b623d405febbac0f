"""`tunefarm tune-tasks`: tune the tasks of a network under one trial budget, with a log.

    tunefarm tune-tasks examples/resnet18_tasks.json --target "cpu -isa=avx512" \
        --trials 2000 --tuner xgb --log resnet18.jsonl [--resume] [--json]

TASKS.json is `{"tasks": [{"op": "conv2d", "params": {...}, "weight": 4, "name": "..."}]}`
or just the list; weight (default 1) is how often the task occurs in the network. The task
scheduler spends the budget where it cuts the weighted latency sum most (or round robin),
prints its table after every round, and appends every measurement to the log, so that an
interrupted run continues with `--resume` without measuring anything twice.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from tunefarm.cli import CommandError
from tunefarm.cli._args import (
    add_measure_arguments,
    add_output_arguments,
    add_scheduler_arguments,
    add_target_argument,
    checked_target,
    measure_settings,
    number,
    reporter,
)

NAME = "tune-tasks"
HELP = "tune the tasks of a network (TASKS.json) under one trial budget, with a resumable log"

_TASK_KEYS = frozenset({"op", "params", "weight", "name"})
_INFO_KEYS = frozenset({"workload_key", "flops", "nodes", "dtype", "group"})  # `tasks --json`


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Options of `tunefarm tune-tasks`."""
    pos_int = number(int, 1)
    p.add_argument("tasks_file", metavar="TASKS.json", help="the tasks and their weights")
    add_target_argument(p)
    p.add_argument("--trials", type=pos_int, required=True, metavar="N", help="total trials")
    add_scheduler_arguments(p)
    p.add_argument(
        "--trials-per-round", type=pos_int, default=64, metavar="R", help="trials per round"
    )
    p.add_argument("--batch-size", type=pos_int, default=16, help="candidates built at once")
    add_measure_arguments(p)
    add_output_arguments(p)
    p.add_argument("--seed", type=int, default=0, help="seed of the tuners (task i: seed + i)")
    p.add_argument(
        "--json", action="store_true", help="print the summary as JSON (the table goes to stderr)"
    )


# -- TASKS.json ------------------------------------------------------------------------------
def _read_json(path: str) -> Any:
    p = Path(path)
    if not p.is_file():
        raise CommandError(
            f"tasks file {path!r} " + ("is a directory" if p.is_dir() else "not found")
        )
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise CommandError(f"tasks file {path!r} is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise CommandError(
            f"tasks file {path!r} is not valid JSON: {exc.msg} at line {exc.lineno} "
            f"column {exc.colno}"
        ) from None


def _entry(i: int, item: Any, target: str) -> tuple[Any, float, str]:
    """One task entry to (Task, weight, name); ValueError saying what is wrong with it."""
    from tunefarm.oprun import check_task
    from tunefarm.task import Task

    if not isinstance(item, dict):
        raise ValueError(f"must be an object with 'op' and 'params', got {type(item).__name__}")
    unknown = sorted(set(item) - _TASK_KEYS - _INFO_KEYS)
    if unknown:
        raise ValueError(f"unknown key(s) {unknown}; allowed: {sorted(_TASK_KEYS)}")
    op, params = item.get("op"), item.get("params", {})
    if not isinstance(op, str) or not op:
        raise ValueError(f"'op' must be an op name, got {op!r}")
    if not isinstance(params, dict):
        raise ValueError(f"'params' must be an object, got {params!r}")
    weight = item.get("weight", 1)
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 < weight < 1e300:
        raise ValueError(f"'weight' must be a number > 0, got {weight!r}")
    name = item.get("name", "")
    if not isinstance(name, str):
        raise ValueError(f"'name' must be a string, got {name!r}")
    task = Task.make(op, target=target, **params)
    check_task(task)
    return task, float(weight), name


def load_tasks(path: str, target: str) -> tuple[list[Any], list[float], list[str]]:
    """Tasks, weights and names of a TASKS.json; CommandError naming the task index."""
    from tunefarm.task import TaskError

    doc = _read_json(path)
    items = doc.get("tasks") if isinstance(doc, dict) else doc
    if not isinstance(items, list):
        raise CommandError(
            f"tasks file {path!r}: expected a list of tasks or an object with a 'tasks' list"
        )
    if not items:
        raise CommandError(f"tasks file {path!r} has no tasks")
    tasks, weights, names, seen = [], [], [], {}
    for i, item in enumerate(items):
        try:
            task, weight, name = _entry(i, item, target)
        except (TaskError, ValueError, TypeError) as exc:
            raise CommandError(f"tasks file {path!r}: task {i}: {exc}") from None
        if task.workload_key in seen:
            raise CommandError(
                f"tasks file {path!r}: task {i} repeats task {seen[task.workload_key]} (same op "
                "and params); list it once with the sum of their weights"
            )
        seen[task.workload_key] = i
        tasks.append(task)
        weights.append(weight)
        names.append(name)
    return tasks, weights, names


# -- the command -----------------------------------------------------------------------------
def _prepare(args: argparse.Namespace) -> tuple[list[Any], list[float], list[str], Any]:
    """Everything checked before anything is measured: target, tasks, settings, log."""
    from tunefarm.oprun import check_local_target
    from tunefarm.recipe import RecipeError, check_log

    target = str(checked_target(args.target))
    tasks, weights, names = load_tasks(args.tasks_file, target)
    try:
        args.kind = check_local_target(tasks[0])
        settings = measure_settings(args)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    try:
        check_log(args.log, args.resume)
    except RecipeError as exc:
        raise CommandError(str(exc)) from None
    return tasks, weights, names, settings


def _report(summary: Any, names: list[str], args: argparse.Namespace, loaded: int) -> None:
    """The summary as JSON on stdout, or the notes a person needs under the table."""
    if args.json:
        doc = summary.to_json()
        for entry, name in zip(doc["tasks"], names, strict=True):
            entry["name"] = name
        doc.update(tuner=args.tuner, policy=args.policy, log=args.log, loaded_trials=loaded)
        print(json.dumps(doc, indent=2))
        return
    for t in summary.tasks:
        if t.trials == 0:
            print(f"task {t.index}: not measured ({t.stop_reason})")
        elif not math.isfinite(t.best_latency_s):
            print(f"task {t.index}: no valid result ({t.stop_reason})")
            if t.diagnosis:
                print("  " + t.diagnosis.replace("\n", "\n  "))
    print(f"records appended to {args.log}")


def run(args: argparse.Namespace) -> int:
    """Run `tunefarm tune-tasks`; 0 if some task has a valid result, 1 if none has."""
    from tunefarm.recipe import LOCAL_DEVICE_KEY
    from tunefarm.tune.policy import tuner_factory
    from tunefarm.tune.task_scheduler import TaskScheduler
    from tunefarm.tune.tuner import MeasureOption

    tasks, weights, names, settings = _prepare(args)
    stream = sys.stderr if args.json else sys.stdout
    scheduler = TaskScheduler(
        tasks,
        weights,
        tuner_factory=tuner_factory(args.policy, args.tuner),
        strategy=args.strategy,
        seed=args.seed,
        early_stopping_per_task=args.early_stopping,
        stream=stream,
        reporter=reporter(args, stream),
    )
    loaded = 0
    if args.resume and Path(args.log).exists():
        errors: list[str] = []
        loaded = scheduler.load_log(args.log, device_key=LOCAL_DEVICE_KEY, errors=errors)
        if errors:
            print(
                f"skipped {len(errors)} bad line(s) of the log, e.g. {errors[0]}", file=sys.stderr
            )
        print(f"resumed: {loaded} trial(s) loaded from {args.log}", file=stream)
    if args.transfer_from:
        used = scheduler.transfer_from(args.transfer_from)
        print(f"transfer: the cost models learn from {used} record(s) of {args.transfer_from}")
    measure_option = MeasureOption.local(settings, kind=args.kind)
    try:
        summary = scheduler.tune(
            args.trials,
            measure_option,
            trials_per_round=args.trials_per_round,
            batch_size=args.batch_size,
            log_file=args.log,
            device_key=LOCAL_DEVICE_KEY,
        )
    finally:
        measure_option.close()
    _report(summary, names, args, loaded)
    return 0 if any(math.isfinite(t.best_latency_s) for t in summary.tasks) else 1
