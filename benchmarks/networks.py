"""Whole-network benchmark: ONNX Runtime against tunefarm untuned and tuned, in one run.

    python3 benchmarks/networks.py                      # = make bench-networks
    python3 benchmarks/networks.py --networks resnet-18 --trials 1000 --rounds 5
    python3 benchmarks/networks.py --networks bert-tiny,bert-base --trials 64 \
        --json benchmarks/results-networks-bert.json      # transformers: int64 token inputs

For each network (batch 1): tune its tasks with the task scheduler under `--trials` (the log
in --log-dir makes a rerun resume instead of re-measuring), compile untuned and tuned (each
task's --select-top best records timed inside the network, the fastest there kept), check
the tuned output against ONNX Runtime, then time ONNX Runtime (intra-op threads = cores),
untuned and tuned in interleaved rounds (so machine noise hits all three alike) and report
the median over rounds of each round's median, and the best min. Ratios are ORT / tunefarm
(above 1: tunefarm faster). BERT models (seq 128) run on random token ids below the vocab
size and 0/1 attention masks; their tasks are the dense layers (template policy).
"""

from __future__ import annotations

if __name__ == "__main__":  # the tuner's worker processes re-import this file
    import argparse
    import json
    import os
    import sys
    import time
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _report import machine_info
    from tunefarm.compiler import compile_graph
    from tunefarm.compiler.select import select_in_network
    from tunefarm.frontend.models import load_model
    from tunefarm.graph.extract import extract_tasks
    from tunefarm.recipe import end_to_end, tune_network
    from tunefarm.tune.dispatch import ApplyHistoryBest

    def parse() -> argparse.Namespace:
        p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
        p.add_argument("--networks", default="resnet-18,mobilenet-v2,resnet-50")
        p.add_argument("--trials", type=int, default=1000, help="tuning trials per network")
        p.add_argument("--tuner", default="xgb")
        p.add_argument("--log-dir", default="benchmarks/logs")
        p.add_argument("--select-top", type=int, default=3, help="in-network selection width")
        p.add_argument("--rounds", type=int, default=5, help="interleaved timing rounds")
        p.add_argument("--repeat", type=int, default=10, help="repeats per round")
        p.add_argument("--json", default="benchmarks/results-networks.json")
        return p.parse_args()

    def tune(name: str, graph, args) -> tuple[str, float, int]:
        log = Path(args.log_dir) / f"{name}.jsonl"
        log.parent.mkdir(parents=True, exist_ok=True)
        tasks = extract_tasks(graph, "cpu")
        start = time.perf_counter()
        summary = tune_network(tasks, args.trials, log, tuner=args.tuner, resume=True)
        return str(log), time.perf_counter() - start, summary.trials

    def measure(model, graph, log: str, args, workdir: Path) -> dict:
        history = ApplyHistoryBest(log)
        selection = select_in_network(graph, "cpu", history, top_k=args.select_top)
        selection.print()
        paths = {}
        for label, records, overrides in (
            ("untuned", None, None),
            ("tuned", history, selection.configs),
        ):
            paths[label] = str(workdir / f"{graph.name}-{label}.tfa")
            compiled = compile_graph(graph, "cpu", records, optimized=True, overrides=overrides)
            compiled.save(paths[label])
        result = end_to_end(model, graph, paths, "tuned", args.rounds, args.repeat)
        row = {k: result.median(k) for k in result.rounds}
        row.update({f"{k}_min": result.min(k) for k in result.rounds})
        row["relative_error"] = result.relative_error
        return row

    def table(rows: list[dict]) -> str:
        head = (
            "| network | ORT ms | untuned ms | tuned ms | ORT/untuned | ORT/tuned "
            "| trials | tuning s | rel. error |"
        )
        lines = [head, "|" + "---|" * 9]
        for r in rows:
            lines.append(
                f"| {r['network']} | {r['onnxruntime']:.2f} | {r['untuned']:.2f} | "
                f"{r['tuned']:.2f} | {r['onnxruntime'] / r['untuned']:.2f} | "
                f"{r['onnxruntime'] / r['tuned']:.2f} | {r['trials']} | "
                f"{r['tuning_s']:.0f} | {r['relative_error']:.1e} |"
            )
        return "\n".join(lines)

    def main() -> None:
        import tempfile

        args = parse()
        rows = []
        with tempfile.TemporaryDirectory() as tmp:
            for name in args.networks.split(","):
                model, graph = load_model(f"zoo:{name}")
                log, seconds, trials = tune(name, graph, args)
                row = measure(model, graph, log, args, Path(tmp))
                row.update(network=name, trials=trials, tuning_s=seconds, log=log)
                rows.append(row)
                print(table(rows[-1:]), flush=True)
        print("\nmedian of per-round medians, ms; ORT intra-op threads =", os.cpu_count())
        print(table(rows))
        doc = {"machine": machine_info(), "args": vars(args), "rows": rows}
        Path(args.json).write_text(json.dumps(doc, indent=2))

    main()
