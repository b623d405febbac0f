"""`tunefarm records`: summarise tuning-record files, or keep only the best record per workload.

    tunefarm records show tune.jsonl --top 3 [--workload conv2d:1a2b...]
    tunefarm records best tune.jsonl -o best.jsonl        # AutoTVM pick_best: a new file
    tunefarm records distill tune.jsonl -o best.jsonl     # auto_scheduler distill: merge in

Corrupt or truncated lines are skipped with one "<path>:<line>: <problem>" message each on
stderr (a killed tuning job leaves one), so a damaged file is still usable; a wrong path is
an error (exit 2). Every action takes `--json` for one JSON document on stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tunefarm.cli import CommandError, records_store

NAME = "records"
HELP = "show tuning records, keep the best per workload, or use the record store"
_MAX_LISTED = 10  # workload keys listed when --workload matches none


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an int, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text!r}")
    return value


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The three actions; each takes IN and --json."""
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    show = sub.add_parser("show", help="a table of the best record per workload and target")
    show.add_argument(
        "--top", type=_count, default=0, metavar="K", help="also list each workload's K fastest"
    )
    show.add_argument(
        "--workload", metavar="KEY", help="only workloads whose key is or starts with KEY"
    )
    best = sub.add_parser("best", help="write the best record per workload+target to a new OUT")
    distill = sub.add_parser(
        "distill", help="merge the best records per workload+target of IN into OUT"
    )
    for action in (show, best, distill):
        action.add_argument("path", metavar="IN", help="a records file (JSON lines)")
        if action is not show:
            action.add_argument("-o", "--output", required=True, metavar="OUT", help="output file")
        action.add_argument("--json", action="store_true", help="print one JSON document")
    records_store.add_actions(sub)


# -- formatting ------------------------------------------------------------------------------
def _table(rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]


def _config_text(config: Any) -> str:
    values = config.to_json()["values"]
    inner = " ".join(f"{k}={json.dumps(v, separators=(',', ':'))}" for k, v in values.items())
    return f"#{config.index} {inner}" if config.index is not None else inner


def _num(x: float | None, fmt: str) -> str:
    return "-" if x is None else format(x, fmt)


# -- show ------------------------------------------------------------------------------------
def _flops(task: Any) -> float | None:
    """FLOPs of a task, or None when today's registry cannot say (e.g. an op since removed)."""
    from tunefarm.backends import registry

    try:
        return registry.flops(task)
    except ValueError:
        return None


def _entry(rec: Any, flops: float | None) -> dict[str, Any]:
    """One valid record as latency, GFLOP/s and config."""
    gflops = flops / rec.cost / 1e9 if flops and rec.cost > 0 else None
    return {
        "latency_ms": rec.cost * 1e3,
        "gflops": gflops,
        "device_key": rec.device_key,
        "config": rec.config.to_json(),
        "config_text": _config_text(rec.config),
    }


def _groups(records: list[Any], workload: str | None) -> dict[tuple[str, str], list[Any]]:
    """Records by (workload key, target) in order of first appearance, filtered by --workload."""
    groups: dict[tuple[str, str], list[Any]] = {}
    for r in records:
        groups.setdefault((r.workload_key, r.target), []).append(r)
    if workload is None:
        return groups
    chosen = {k: v for k, v in groups.items() if k[0] == workload or k[0].startswith(workload)}
    if not chosen:
        keys = sorted({k[0] for k in groups})
        shown = ", ".join(keys[:_MAX_LISTED]) + (" ..." if len(keys) > _MAX_LISTED else "")
        raise CommandError(f"no workload matches {workload!r}; the file has: {shown or 'none'}")
    return chosen


def _summaries(records: list[Any], workload: str | None, top: int) -> list[dict[str, Any]]:
    out = []
    for (key, target), recs in _groups(records, workload).items():
        task = recs[0].task
        ok = sum(r.ok for r in recs)
        ranked = sorted((r for r in recs if r.ranked), key=lambda r: r.cost)  # refuted: no best
        flops = _flops(task)
        entries = [_entry(r, flops) for r in ranked[: max(top, 1)]]
        out.append(
            {
                "workload_key": key,
                "op": task.op,
                "task": task.to_json(),
                "task_text": str(task),
                "target": target,
                "records": len(recs),
                "ok": ok,
                "flops": flops,
                "best": entries[0] if entries else None,
                "top": entries[:top],
            }
        )
    return out


def _print_show(path: str, total: int, summaries: list[dict[str, Any]]) -> None:
    print(f"{path}: {total} record(s), {len(summaries)} workload+target group(s)")
    if not summaries:
        return
    head = ["workload", "op", "target", "records", "ok", "best GFLOPS", "best ms", "best config"]
    rows = [head]
    for s in summaries:
        b = s["best"] or {}
        cells = [_num(b.get("gflops"), ".2f"), _num(b.get("latency_ms"), ".4g")]
        cfg = b.get("config_text", "- (all failed)")
        rows.append([s["workload_key"], s["op"], s["target"], str(s["records"]), str(s["ok"])])
        rows[-1] += [*cells, cfg]
    for line in _table(rows, right={3, 4, 5, 6}):
        print(line)
    for s in summaries:
        if s["top"]:
            print(f"\n{s['workload_key']} on {s['target']}: {s['task_text']}")
            rows = [["rank", "ms", "GFLOPS", "device", "config"]]
            for rank, e in enumerate(s["top"], 1):
                rows.append([str(rank), _num(e["latency_ms"], ".4g"), _num(e["gflops"], ".2f")])
                rows[-1] += [e["device_key"], e["config_text"]]
            for line in _table(rows, right={0, 1, 2}):
                print("  " + line)


def _show(args: argparse.Namespace, errors: list[str]) -> int:
    from tunefarm.tune.records import load_records

    records = load_records(args.path, errors)
    summaries = _summaries(records, args.workload, args.top)
    if args.json:
        doc = {"path": args.path, "records": len(records), "skipped_lines": errors}
        print(json.dumps({**doc, "workloads": summaries}, indent=2))
    else:
        _print_show(args.path, len(records), summaries)
    return 0


# -- best / distill --------------------------------------------------------------------------
def _write_best(args: argparse.Namespace, errors: list[str]) -> int:
    from tunefarm.tune.records import distill, pick_best

    action = pick_best if args.action == "best" else distill
    written = action(args.path, args.output, errors)
    if args.json:
        doc = {"action": args.action, "in": args.path, "out": args.output, "written": written}
        print(json.dumps({**doc, "skipped_lines": errors}, indent=2))
    else:
        print(f"wrote {written} record(s), the best per workload+target, to {args.output}")
    return 0


def _os_message(exc: OSError) -> str:
    """Our own OSErrors carry a full sentence; the system's get their path appended."""
    if exc.filename is not None and exc.strerror:
        return f"{exc.strerror}: {exc.filename}"
    return str(exc)


def run(args: argparse.Namespace) -> int:
    """Run one action; skipped-line messages go to stderr whatever happens."""
    if args.action in records_store.ACTIONS:
        return records_store.run(args)
    errors: list[str] = []
    try:
        return _show(args, errors) if args.action == "show" else _write_best(args, errors)
    except OSError as exc:
        raise CommandError(_os_message(exc)) from None
    finally:
        for message in errors:
            print(f"{message} (line skipped)", file=sys.stderr)
