"""Pipeline benchmark: measurements per second, embedded against the services, one run.

    python3 benchmarks/pipeline.py                 # = make bench-pipeline
    python3 benchmarks/pipeline.py --trials 128 --task 1

The same ResNet-18 conv task and the same candidates (random tuner, fixed seed) are built
and measured three ways, with equal resources (build parallelism = cores, one measuring
device):
- embedded: LocalBuilder (one process per core) and LocalRunner in this process;
- services, 1 build worker: a `tunefarm worker buildfarm --concurrency <cores>` and one
  `tunefarm agent`, driven through the Celery builder and runner;
- services, 2 build workers: two build workers with half the concurrency each.
It prints trials per second, the ratio to embedded (goal: within 10%), and the share of wall
time the agent spent measuring (from its own Prometheus histogram; goal: at least 80%).
Needs Redis at 127.0.0.1:6379 (uses database 11 and flushes it).
"""

from __future__ import annotations

if __name__ == "__main__":  # build worker processes re-import this file
    import argparse
    import json
    import os
    import re
    import sys
    import tempfile
    import time
    import urllib.request
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests/integration"))
    from stack_env import flush_db, free_port, stack_env, wait_for

    from _report import machine_info
    from tunefarm.frontend.models import load_model
    from tunefarm.graph.extract import extract_tasks
    from tunefarm.recipe import network_settings
    from tunefarm.tune.random_tuner import RandomTuner
    from tunefarm.tune.tuner import MeasureOption

    DB, KEY = 11, "bench-cpu"

    def parse() -> argparse.Namespace:
        p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
        p.add_argument("--trials", type=int, default=64)
        p.add_argument("--task", type=int, default=1, help="index among resnet-18's tasks")
        p.add_argument("--batch", type=int, default=16, help="candidates per tuner batch")
        p.add_argument("--json", default="benchmarks/results-pipeline.json")
        return p.parse_args()

    def run_trials(task, option: MeasureOption, trials: int, batch: int, seed: int = 0):
        """(seconds, trials) for `trials` random candidates. The warm-up uses another seed,
        so no timed candidate is a build-cache hit."""
        tuner = RandomTuner(task, seed=seed)
        start = time.perf_counter()
        summary = tuner.tune(trials, option, batch_size=batch)
        return time.perf_counter() - start, summary.trials

    def agent_busy_seconds(port: int) -> float:
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read()
        match = re.search(
            r"^tunefarm_measure_duration_seconds_sum\{[^}]*\} (\S+)$", text.decode(), re.M
        )
        return float(match.group(1)) if match else 0.0

    def services(task, args, build_workers: int, tmp: Path) -> dict:
        from tunefarm_services.stack import LocalStack, StackSpec

        from tunefarm.distributed.celery_app import make_app
        from tunefarm.distributed.config import ServiceConfig
        from tunefarm.distributed.remote import CeleryBuilder, CeleryRunner

        cores = os.cpu_count() or 1
        flush_db(DB)
        env = stack_env(tmp, DB, {"unused-read-token-0000": "read"})
        spec = StackSpec(
            agents=[(KEY, "cpu")],
            build_workers=build_workers,
            build_concurrency=max(1, cores // build_workers),
            metrics_base_port=free_port(),
        )
        stack = LocalStack(spec, env, tmp / "logs")
        stack.commands = {n: c for n, c in stack.plan().items() if n.startswith(("build", "agent"))}
        for name in stack.commands:
            stack.start_one(name)
        try:
            os.environ.update({k: v for k, v in env.items() if k.startswith("TUNEFARM_")})
            config = ServiceConfig.from_env()
            app = make_app(config)
            from tunefarm.distributed.tracker import Tracker

            wait_for(lambda: Tracker(config).agents(KEY), 60, "the agent")
            option = MeasureOption(CeleryBuilder(app), CeleryRunner(app, KEY, network_settings()))
            run_trials(task, option, args.batch, args.batch, seed=1)
            port = int(stack.commands["agent-0"][-1])
            busy0 = agent_busy_seconds(port)
            seconds, trials = run_trials(task, option, args.trials, args.batch)
            busy = agent_busy_seconds(port) - busy0
        finally:
            stack.stop()
            flush_db(DB)
        return {"seconds": seconds, "trials": trials, "agent_busy": busy / seconds}

    def embedded(task, args, tmp: Path) -> dict:
        from tunefarm.backends import registry

        option = MeasureOption(
            registry.local_builder(cache_dir=tmp / "embedded-cache"),
            registry.local_runner(network_settings()),
        )
        try:
            run_trials(task, option, args.batch, args.batch, seed=1)
            seconds, trials = run_trials(task, option, args.trials, args.batch)
        finally:
            option.close()
        return {"seconds": seconds, "trials": trials, "agent_busy": None}

    def main() -> None:
        args = parse()
        _, graph = load_model("zoo:resnet-18")
        net_task = extract_tasks(graph, "cpu")[args.task]
        print(machine_info())
        print(
            f"task {args.task}: {net_task.describe(graph)}; "
            f"{args.trials} trials, batch {args.batch}"
        )
        rows = {}
        with tempfile.TemporaryDirectory() as tmp:
            rows["embedded"] = embedded(net_task.task, args, Path(tmp))
            for n in (1, 2):
                sub = Path(tmp) / f"services-{n}"
                sub.mkdir()
                rows[f"services, {n} build worker{'s' * (n > 1)}"] = services(
                    net_task.task, args, n, sub
                )
        base = rows["embedded"]["trials"] / rows["embedded"]["seconds"]
        print(f"\n{'mode':<28}{'trials/s':>10}{'vs embedded':>13}{'agent busy':>12}")
        for name, row in rows.items():
            rate = row["trials"] / row["seconds"]
            row["trials_per_s"], row["vs_embedded"] = rate, rate / base
            busy = "-" if row["agent_busy"] is None else f"{100 * row['agent_busy']:.0f}%"
            print(f"{name:<28}{rate:>10.2f}{rate / base:>12.2f}x{busy:>12}")
        Path(args.json).write_text(json.dumps({"machine": machine_info(), "rows": rows}, indent=2))

    main()
