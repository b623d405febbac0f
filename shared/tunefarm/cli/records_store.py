"""`tunefarm records migrate|import|export|stats|query`: the record store from the shell.

    tunefarm records import tune.jsonl other.jsonl --store farm.sqlite
    tunefarm records stats --store postgresql://tunefarm@db/tunefarm
    tunefarm records query zoo:resnet-18 --target "cpu -isa=avx2"
    tunefarm records export -o all.jsonl --target cpu
    tunefarm records migrate --store farm.sqlite

JSON lines stay the exchange format: import reads records files (a line of another format
is reported with its file and line and is not imported: exit 1), export writes one.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tunefarm.cli import CommandError
from tunefarm.cli._args import add_store_argument, checked_target

ACTIONS = ("migrate", "import", "export", "stats", "query")


def add_actions(sub: Any) -> None:
    """Add the store's actions to `tunefarm records`' subparsers."""
    parsers = {
        "migrate": sub.add_parser("migrate", help="upgrade the store's schema to this version"),
        "import": sub.add_parser("import", help="put the records of JSON-lines logs in the store"),
        "export": sub.add_parser("export", help="write the store's records as JSON lines"),
        "stats": sub.add_parser("stats", help="per target and workload: trials and best"),
        "query": sub.add_parser("query", help="the store's best per task of a workload or model"),
    }
    parsers["import"].add_argument("logs", nargs="+", metavar="LOG", help="records files")
    parsers["export"].add_argument("-o", "--output", required=True, metavar="OUT.jsonl")
    parsers["query"].add_argument(
        "what",
        metavar="WORKLOAD|MODEL",
        help="a workload key (conv2d:1a2b...) or a model (zoo:NAME, FILE.onnx)",
    )
    parsers["query"].add_argument("--top", type=int, default=1, metavar="K")
    parsers["query"].add_argument("--policy", default="template", help="task extraction")
    for name in ("export", "stats", "query"):
        parsers[name].add_argument(
            "--target",
            type=lambda text: str(checked_target(text)),
            required=name == "query",
            help="target string",
        )
        parsers[name].add_argument("--device-key", default=None, help="only this device key")
    for p in parsers.values():
        add_store_argument(p)
        p.add_argument("--json", action="store_true", help="print one JSON document")


def _open(args: argparse.Namespace) -> Any:
    from tunefarm.store import open_store

    store = open_store(args.store)
    if store is None:
        raise CommandError("--store none: this action needs a store")
    return store


def _emit(args: argparse.Namespace, doc: dict[str, Any], text: str) -> None:
    print(json.dumps(doc, indent=2, default=str) if args.json else text)


def _migrate(args: argparse.Namespace) -> int:
    from tunefarm.store import migrate_store, shown
    from tunefarm.store.url import sqlalchemy_url

    before, after = migrate_store(args.store)
    where = shown(sqlalchemy_url(args.store) or "none")
    _emit(
        args,
        {"store": where, "from": before, "to": after},
        f"store {where}: schema {before or 'none'} -> {after}",
    )
    return 0


def _import(args: argparse.Namespace) -> int:
    from tunefarm.tune.records import load_records

    bad = 0
    files = []
    with _open(args) as store:
        for path in args.logs:
            errors: list[str] = []
            try:
                records = load_records(path, errors)
            except OSError as exc:
                raise CommandError(str(exc)) from None
            new = store.put(records)
            for message in errors:
                print(f"{message} (not imported: not a tunefarm record line)", file=sys.stderr)
            bad += len(errors)
            files.append(
                {"path": path, "records": len(records), "new": new, "skipped_lines": len(errors)}
            )
            if not args.json:
                print(
                    f"{path}: {len(records)} record(s), {new} new in {store.where}"
                    + (f", {len(errors)} line(s) not imported" if errors else "")
                )
    if args.json:
        print(json.dumps({"files": files}, indent=2))
    return 1 if bad else 0


def _export(args: argparse.Namespace) -> int:
    from tunefarm.tune.records import append_records

    open(args.output, "w").close()
    n, batch = 0, []
    with _open(args) as store:
        for rec in store.iter_records(args.target, args.device_key):
            batch.append(rec)
            if len(batch) >= 5000:
                n += append_records(args.output, batch)
                batch = []
        n += append_records(args.output, batch)
        _emit(
            args,
            {"store": store.where, "out": args.output, "records": n},
            f"wrote {n} record(s) of {store.where} to {args.output}",
        )
    return 0


def _stats(args: argparse.Namespace) -> int:
    with _open(args) as store:
        totals, rows = store.totals(), store.stats(args.target)
        if args.json:
            doc = {"store": store.where, **totals, "by_workload": [r.to_json() for r in rows]}
            print(json.dumps(doc, indent=2))
            return 0
        print(
            f"store {store.where}: {totals['records']} record(s), {totals['workloads']} "
            f"workload(s), {totals['targets']} target(s), revision {totals['revision']}"
        )
        for r in rows:
            print(
                f"  {r.target:<24} {r.workload_key:<28} {r.trials:>7} trials  "
                f"best {r.best_gflops:9.2f} GFLOP/s"
            )
    return 0


def _query(args: argparse.Namespace) -> int:
    device_key = args.device_key or "local"
    with _open(args) as store:
        if ":" in args.what and not args.what.startswith("zoo:"):
            keys, names = [args.what], {args.what: args.what}
        else:
            keys, names = _model_keys(args)
        best = store.top_k(keys, args.target, device_key, max(1, args.top))
        counts = store.trials(keys, args.target, device_key)
    rows = []
    for key in keys:
        have = counts.get(key)
        recs = best.get(key, [])
        rows.append(
            {
                "workload_key": key,
                "task": names[key],
                "trials": have.trials if have else 0,
                "best_gflops": have.best_gflops if have else 0.0,
                "top": [{"latency_ms": r.cost * 1e3, "config": r.config.to_json()} for r in recs],
            }
        )
    if args.json:
        print(
            json.dumps({"target": args.target, "device_key": device_key, "tasks": rows}, indent=2)
        )
        return 0
    for r in rows:
        best_ms = f"{r['top'][0]['latency_ms']:.4g} ms" if r["top"] else "-"
        print(
            f"{r['workload_key']:<28} {r['trials']:>6} trials  best {best_ms:>12}  "
            f"{r['best_gflops']:8.2f} GFLOP/s  {r['task']}"
        )
    return 0


def _model_keys(args: argparse.Namespace) -> tuple[list[str], dict[str, str]]:
    from tunefarm.compiler.tasks import network_tasks
    from tunefarm.frontend.models import load_model

    try:
        _, graph = load_model(args.what)
    except (OSError, ValueError) as exc:
        raise CommandError(f"{args.what!r} is neither a workload key nor a model: {exc}") from None
    tasks = network_tasks(graph, args.target, args.policy)
    names = {t.task.workload_key: str(t.task) for t in tasks}
    return list(names), names


def run(args: argparse.Namespace) -> int:
    """Run one store action; a store that cannot be used is one line on stderr (exit 2)."""
    from tunefarm.store import StoreError

    actions = {
        "migrate": _migrate,
        "import": _import,
        "export": _export,
        "stats": _stats,
        "query": _query,
    }
    try:
        return actions[args.action](args)
    except StoreError as exc:
        raise CommandError(str(exc)) from None
    except OSError as exc:
        raise CommandError(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": ")) from None
