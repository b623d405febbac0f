"""`tunefarm op`: build and measure one operator with its default, given or random configs.

    tunefarm op conv2d --param data=1,64,56,56 --param weight=64,64,3,3 --param padding=1 \
        --param epilogue=bias,relu --target "cpu -isa=avx2" --sweep 8

Param values are typed from their text: `1,64,56,56` is a tuple of ints, `1` an int, `0.5` a
float, `true` a bool, `bias,relu` a tuple of strings, `max` a string; `a,b;c,d` is a list of
lists and anything starting with `[`, `{` or `"` is JSON (`shapes=[[1,3],[1,3]]`). A trailing
comma makes a one-item list (`epilogue=relu,`); shape and epilogue params always are lists.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from tunefarm.cli import CommandError
from tunefarm.cli._args import (
    add_measure_arguments,
    add_policy_argument,
    add_target_argument,
    checked_target,
    measure_settings,
    number,
)

NAME = "op"
HELP = "build and measure one operator with its default, given or random configs"

# Params that are always lists, so `epilogue=relu` or `shape=64` mean one-item lists.
_LIST_PARAMS = frozenset({"data", "weight", "shape", "a", "b", "epilogue"})
_NESTED_PARAMS = frozenset({"shapes"})  # a list of shapes: `shapes=1,64` means [[1, 64]]
_RESERVED = frozenset({"op", "target"})  # Task fields, not params
_MAX_MSG = 160  # characters of an error message shown under the table
_SHOWN_ENTITIES = 8  # knob values listed per knob by --show-space


# -- parsing ---------------------------------------------------------------------------------


def _scalar(text: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _items(text: str) -> tuple[Any, ...]:
    items = [t.strip() for t in text.split(",")]
    if items[-1] == "":
        items.pop()  # "relu," is a one-item list
    if not items or any(not t for t in items):
        raise ValueError(f"{text!r} has an empty list item")
    return tuple(_scalar(t) for t in items)


def parse_value(text: str) -> Any:
    """A param value from its command-line text (see the module docstring for the rules)."""
    text = text.strip()
    if not text:
        raise ValueError("the value is empty")
    if text[0] in '[{"':
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{text!r} is not valid JSON ({exc.msg})") from None
    if ";" in text:
        return tuple(_items(part) for part in text.split(";"))
    if "," in text:
        return _items(text)
    return _scalar(text)


def parse_params(items: list[str]) -> dict[str, Any]:
    """`KEY=VALUE` strings to a params dict; CommandError naming the bad item."""
    params: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise CommandError(f"bad --param {item!r}: expected KEY=VALUE, e.g. data=1,64,56,56")
        if key in _RESERVED:
            raise CommandError(f"bad --param {item!r}: use --{key} / the OP argument instead")
        if key in params:
            raise CommandError(f"--param {key} is given twice")
        try:
            value = parse_value(raw)
        except ValueError as exc:
            raise CommandError(f"bad --param {item!r}: {exc}") from None
        if key in _LIST_PARAMS and not isinstance(value, (tuple, list)):
            value = (value,)
        if key in _NESTED_PARAMS and isinstance(value, (tuple, list)):
            if value and not any(isinstance(v, (tuple, list)) for v in value):
                value = (value,)
        params[key] = value
    return params


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Options of `tunefarm op`."""
    p.add_argument("op", nargs="?", metavar="OP", help="op name (see --list-ops)")
    p.add_argument(
        "--param",
        "-p",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an op param, e.g. data=1,64,56,56 (repeat for each)",
    )
    add_target_argument(p)
    p.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="JSON",
        help="knob values as a JSON object; missing knobs keep their default "
        "(repeat to run several)",
    )
    p.add_argument(
        "--sweep",
        type=number(int, 0, False),
        default=0,
        metavar="N",
        help="also run N distinct random configs (after the default or --config)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of --sweep and the input data")
    add_policy_argument(p)
    add_measure_arguments(p)
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument(
        "--show-code",
        action="store_true",
        help="print the generated C of the first config, do not measure",
    )
    p.add_argument(
        "--show-space",
        action="store_true",
        help="print the knobs and the config space size, do not measure",
    )
    p.add_argument(
        "--build-only",
        action="store_true",
        help="build each config without running it; a GPU target reports registers, shared "
        "memory and spills (for machines without the device)",
    )
    p.add_argument("--list-ops", action="store_true", help="print the op names and exit")


# -- formatting ------------------------------------------------------------------------------
def _compact(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def _config_text(values: dict[str, Any]) -> str:
    return " ".join(f"{k}={_compact(v)}" for k, v in values.items())


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.4g}"


def _gflops(x: float) -> str:
    """Two decimals, but significant digits for tiny rates so they do not print as 0.00."""
    return f"{x:.2f}" if x >= 1 else f"{x:.3g}"


def _human_flops(flops: float) -> str:
    for scale, unit in ((1e9, "G"), (1e6, "M"), (1e3, "K")):
        if flops >= scale:
            return f"{flops / scale:.4g} {unit}"
    return f"{flops:g}"


def _table(rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]

    def line(row: list[str]) -> str:
        cells = zip(row, widths, strict=True)
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(cells))

    return [line(r).rstrip() for r in rows]


def _run_rows(runs: list[Any]) -> list[str]:
    head = [
        "#",
        "config",
        "status",
        "min(ms)",
        "median(ms)",
        "mean(ms)",
        "GFLOPS(med)",
        "GFLOPS(best)",
    ]
    rows = [head]
    for r in runs:
        times = [_ms(r.min_s), _ms(r.median_s), _ms(r.mean_s)] if r.ok else ["-"] * 3
        gflops = [_gflops(r.gflops_median), _gflops(r.gflops_best)] if r.ok else ["-"] * 2
        status = "OK" if r.ok else r.error
        rows.append(
            [str(r.index), _config_text(r.config.to_json()["values"]), status, *times, *gflops]
        )
    return _table(rows, right={0, 3, 4, 5, 6, 7})


def _best_line(runs: list[Any]) -> str:
    ok = [r for r in runs if r.ok]
    if not ok:
        return f"best: none ({len(runs)} config(s) measured, all failed)"
    b = ok[0]
    cfg = json.dumps(b.config.to_json()["values"])
    return (
        f"best: #{b.index} median {_ms(b.median_s)} ms, {_gflops(b.gflops_median)} GFLOPS "
        f"(best {_gflops(b.gflops_best)})  --config '{cfg}'"
    )


def print_runs(task: Any, flops: float, runs: list[Any]) -> None:
    """Header line, one row per run (already sorted), failure reasons, best line."""
    print(f"{task}  target={task.target}  FLOPs={_human_flops(flops)}")
    for line in _run_rows(runs):
        print(line)
    for r in runs:
        if not r.ok:
            msg = " ".join(r.error_msg.split())
            msg = msg if len(msg) <= _MAX_MSG else msg[: _MAX_MSG - 3] + "..."
            print(f"  #{r.index} {r.error}: {msg}")
    print(_best_line(runs))


def print_space(task: Any, space: Any, default: Any, as_json: bool) -> None:
    """Knob names, kinds, sizes and some values; the space size; the default config."""
    if as_json:
        doc = {
            "task": task.to_json(),
            "size": space.size,
            "space": space.to_json(),
            "default": default.to_json(),
        }
        print(json.dumps(doc, indent=2))
        return
    knobs = space.knobs
    print(f"{task}  target={task.target}: {len(knobs)} knob(s), {space.size} configs")
    rows = []
    for name, knob in knobs.items():
        shown = [
            _compact(list(e) if isinstance(e, tuple) else e)
            for e in knob.entities[:_SHOWN_ENTITIES]
        ]
        more = " ..." if len(knob) > _SHOWN_ENTITIES else ""
        rows.append([name, knob.kind, str(len(knob)), " ".join(shown) + more])
    for line in _table([["knob", "kind", "size", "values"], *rows], right={2}):
        print(line)
    print(f"default: #{default.index} {json.dumps(default.to_json()['values'])}")


# -- the command -----------------------------------------------------------------------------
def _prepare(args: argparse.Namespace) -> tuple[Any, float, Any, list[Any], Any]:
    """Everything checked before measuring: task, FLOPs, space, configs, settings.

    All bad input surfaces as a ValueError subclass (TaskError, TargetError, ConfigError,
    SpaceError), which becomes one CommandError line.
    """
    from tunefarm.backends import registry
    from tunefarm.oprun import check_local_target, check_task, parse_config, plan_configs
    from tunefarm.task import Task
    from tunefarm.tune.policy import uses_sketch
    from tunefarm.tune.sketch_search import random_states

    target = checked_target(args.target)
    ops = registry.ops(target.kind)
    if args.op not in ops:
        raise CommandError(f"unknown op {args.op!r}; {target.kind} ops: {', '.join(ops)}")
    params = parse_params(args.param)
    try:
        task = Task.make(args.op, target=str(target), **params)
        flops, space = check_task(task)
        if not (args.show_space or args.show_code or args.build_only):
            check_local_target(task)
        configs = [parse_config(text) for text in args.config]
        if uses_sketch(args.policy, task):
            if configs:
                raise CommandError(
                    "--config takes template knob values; with --policy sketch the configs are "
                    "random sketch states (--sweep N)"
                )
            plan = random_states(task, max(1, args.sweep), args.seed)
        else:
            plan = plan_configs(task, space, configs, args.sweep, args.seed)
        settings = measure_settings(args)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    return task, flops, space, plan, settings


def _show_code(task: Any, config: Any, as_json: bool) -> int:
    from tunefarm.backends import registry
    from tunefarm.measure import MeasureInput

    try:
        code = registry.generate_source(MeasureInput(task, config)).code
    except Exception as exc:  # a template bug for a valid config: report it, exit 1
        raise CommandError(
            f"code generation failed for config #{config.index}: {type(exc).__name__}: {exc}",
            code=1,
        ) from None
    if as_json:
        print(json.dumps({"task": task.to_json(), "config": config.to_json(), "code": code}))
    else:
        print(code)
    return 0


def _build_only(task: Any, plan: list[Any], as_json: bool) -> int:
    """Build each config, print a row per config; 0 if at least one built."""
    from tunefarm.oprun import build_only

    rows = build_only(task, [c.as_dict() for c in plan])
    if as_json:
        print(json.dumps({"task": task.to_json(), "builds": [r.to_json() for r in rows]}, indent=2))
        return 0 if any(r.ok for r in rows) else 1
    keys = sorted({k for r in rows for k in r.info})
    table = [["#", "config", "status", *keys]]
    for r in rows:
        cells = [str(r.info.get(k, "-")) for k in keys]
        values = _config_text(r.config.to_json()["values"])
        table.append([str(r.index), values, "built" if r.ok else r.error, *cells])
    print(f"{task}  target={task.target}  (built, not run)")
    for line in _table(table, right={0}):
        print(line)
    for r in rows:
        if not r.ok:
            msg = " ".join(r.error_msg.split())
            print(f"  #{r.index} {r.error}: {msg[:_MAX_MSG]}")
    return 0 if any(r.ok for r in rows) else 1


def run(args: argparse.Namespace) -> int:
    """Run `tunefarm op`; 0 if at least one config measured fine, 1 if all failed."""
    from tunefarm.backends import registry
    from tunefarm.oprun import run_op, sort_runs

    kind = checked_target(args.target).kind
    if args.list_ops:
        print("\n".join(registry.ops(kind)))
        return 0
    if not args.op:
        raise CommandError(f"missing OP, one of: {', '.join(registry.ops(kind))}")
    task, flops, space, plan, settings = _prepare(args)
    if args.show_space:
        print_space(task, space, registry.default_config(task), args.json)
        return 0
    if args.show_code:
        return _show_code(task, plan[0], args.json)
    if args.build_only:
        return _build_only(task, plan, args.json)
    configs = [c.as_dict() for c in plan]
    runs = sort_runs(run_op(task, configs, settings=settings, seed=args.seed))
    if args.json:
        doc = {
            "task": task.to_json(),
            "workload_key": task.workload_key,
            "flops": flops,
            "settings": settings.to_json(),
            "runs": [r.to_json() for r in runs],
            "best": next((r.to_json() for r in runs if r.ok), None),
        }
        print(json.dumps(doc, indent=2))
    else:
        print_runs(task, flops, runs)
    return 0 if any(r.ok for r in runs) else 1
