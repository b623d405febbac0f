"""The farm at fleet scale on loopback: simulated agents and build workers (the real agent and
build-worker code with compile and kernel run replaced by delays, `TUNEFARM_SIMULATE`), real
Redis, real Celery, the real gateway, and many jobs sending candidates at once through the
real `CeleryBuilder` / `CeleryRunner` (`tunefarm.distributed.simulate.SimulatedJob`).

    .venv/bin/python benchmarks/scale.py                     # 1,000 agents, 100 jobs, 64 builders
    .venv/bin/python benchmarks/scale.py --ci                # 50 agents, 10 jobs, 8 builders
    .venv/bin/python benchmarks/scale.py --builds-only --build-workers 8   # build scaling

Reports: dispatch latency p50/p99 (candidate queued -> measurement started, and for builds
queued -> build started), throughput in candidates/s against the ideal the delays allow
(min(agents / measure_s, build workers / build_s)) over the window where every job still
sends, Redis memory per job and per agent, the tracker's heartbeat load, gateway /healthz
p50/p99 during the run, and whether any candidate was lost or measured twice.
Needs a Redis (TUNEFARM_TEST_REDIS_PORT, default 6379; database 9 is flushed).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "integration"))
DB = 9  # flushed at the start of a run
KEY = "sim"
ADMIN_TOKEN = "scale-admin-token-0000"  # the gateway's only token (its /metrics too)


@dataclass
class ScaleSpec:
    agents: int = 1000
    jobs: int = 100
    tenants: int = 10
    build_workers: int = 64
    build_s: float = 0.5
    measure_s: float = 20.0
    batch: int = 16
    rounds: int = 4
    agents_per_process: int = 100
    builders_per_process: int = 16
    sender_processes: int = 4
    fail_every: int = 50  # every 50th candidate is a (simulated) build error
    builds_only: bool = False  # measure_s 0: the build farm alone is the bottleneck
    metrics: bool = False  # workers, agents and senders serve /metrics (for Prometheus)

    @staticmethod
    def ci() -> ScaleSpec:
        return ScaleSpec(agents=50, jobs=10, tenants=3, build_workers=8, build_s=0.1,
                         measure_s=0.5, batch=8, rounds=3, agents_per_process=25,
                         builders_per_process=8, sender_processes=1)  # fmt: skip

    @property
    def ideal_rate(self) -> float:
        build = self.build_workers / self.build_s if self.build_s > 0 else math.inf
        measure = math.inf if self.builds_only else self.agents / self.measure_s
        return min(build, measure)


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _senders(env: dict, spec: ScaleSpec, jobs: list[tuple[str, int]], out, port: int,
             release) -> None:  # fmt: skip
    """A sending process: one thread per simulated job (a search worker's sending side).
    It serves its metrics until `release` is set."""
    os.environ.update(env)
    from tunefarm import metrics
    from tunefarm.distributed.celery_app import make_app
    from tunefarm.distributed.config import ServiceConfig
    from tunefarm.distributed.simulate import SimulatedJob

    app = make_app(ServiceConfig.from_env())
    if port:
        metrics.serve(port)
    sims = [SimulatedJob(app, job_id, KEY, spec.batch, spec.rounds, index=i) for job_id, i in jobs]
    threads = [threading.Thread(target=s.run) for s in sims]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.put([(s.job_id, s.measured, s.errors, s.wall_s) for s in sims])
    release.wait(120)


def _probe(url: str, stop: threading.Event, samples: list[float]) -> None:
    while not stop.wait(0.2):
        start = time.perf_counter()
        try:
            urllib.request.urlopen(url + "/healthz", timeout=5).read()
            samples.append(time.perf_counter() - start)
        except Exception:
            samples.append(5.0)


def run(spec: ScaleSpec, tmp: Path, log=print, on_ready=None, before_stop=None) -> dict:
    """Start the simulated farm, run the jobs, stop everything; returns the report.
    With `spec.metrics`, `on_ready(targets)` is called once the farm is up, before the jobs
    start, with every host:port serving /metrics, and `before_stop()` after the jobs, while
    the farm still runs (its return value is the report's `checked`)."""
    from stack_env import flush_db, free_port, stack_env, wait_for
    from tunefarm_services.stack import LocalStack, StackSpec

    measure_s = 0.0 if spec.builds_only else spec.measure_s
    tmp.mkdir(parents=True, exist_ok=True)
    flush_db(DB)
    env = stack_env(tmp, DB, {ADMIN_TOKEN: "admin"},
                    TUNEFARM_SIMULATE=f"build_s={spec.build_s},measure_s={measure_s},"
                                      f"fail_every={spec.fail_every}",
                    TUNEFARM_HEARTBEAT_TTL="15")  # fmt: skip
    port = free_port()
    targets = [f"127.0.0.1:{port}"]

    def metrics_port() -> str:
        if not spec.metrics:
            return "0"
        targets.append(f"127.0.0.1:{free_port()}")
        return targets[-1].rsplit(":", 1)[1]

    stack = LocalStack(StackSpec(port=port), env, tmp / "logs")
    commands = {"gateway": ["serve", "gateway", "--host", "127.0.0.1", "--port", str(port),
                            "--workers", "1"]}  # fmt: skip
    for i in range(math.ceil(spec.build_workers / spec.builders_per_process)):
        n = min(spec.builders_per_process, spec.build_workers - i * spec.builders_per_process)
        commands[f"buildfarm-{i}"] = ["worker", "buildfarm", "--pool", "threads",
                                      "--concurrency", str(n), "--metrics-port", metrics_port(),
                                      "--loglevel", "WARNING"]  # fmt: skip
    for i in range(math.ceil(spec.agents / spec.agents_per_process)):
        n = min(spec.agents_per_process, spec.agents - i * spec.agents_per_process)
        commands[f"agent-{i}"] = [
            *("agent", "--key", KEY, "--target", "cpu", "--slots", str(n)),
            *("--metrics-port", metrics_port(), "--loglevel", "WARNING"),
        ]
    from tunefarm.distributed.config import ServiceConfig
    from tunefarm.distributed.jobs import JobStore
    from tunefarm.distributed.tracker import Tracker

    config = ServiceConfig.from_env(env)  # the farm's settings; this process's stay as they are
    r = config.redis()
    mem0 = r.info("memory")["used_memory"]
    stack.commands = commands
    try:
        t0 = time.monotonic()
        for name in commands:
            stack.start_one(name)
        wait_for(lambda: urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2),
                 60, "the gateway")  # fmt: skip
        tracker = Tracker(config)
        wait_for(lambda: len(tracker.agents(KEY)) >= spec.agents, 300,
                 f"{spec.agents} agents to register", every_s=1)  # fmt: skip
        started_s = time.monotonic() - t0
        log(f"farm up in {started_s:.1f} s")
        time.sleep(1)  # let the build workers' consumers attach
        mem_agents = r.info("memory")["used_memory"]
        t = time.perf_counter()
        listed = tracker.agents(KEY)
        scan_s = time.perf_counter() - t
        t = time.perf_counter()
        for _ in range(200):
            tracker.heartbeat(listed[0])
        heartbeat_s = (time.perf_counter() - t) / 200
        jobs = JobStore(config)
        ids = []
        for i in range(spec.jobs):
            doc = jobs.create({"name": f"sim-{i}", "model": "zoo:sim", "target": "cpu",
                               "device_key": KEY, "trials": spec.batch * spec.rounds,
                               "tenant": f"tenant-{i % spec.tenants}", "priority": 5},
                              job_id=f"j-sim-{i:04d}-{uuid.uuid4().hex[:6]}")  # fmt: skip
            ids.append((doc["id"], i))
        samples: list[float] = []
        stop = threading.Event()
        probe = threading.Thread(target=_probe, args=(f"http://127.0.0.1:{port}", stop, samples))
        ctx = multiprocessing.get_context("fork")
        out = ctx.Queue()
        shares = [ids[p :: spec.sender_processes] for p in range(spec.sender_processes)]
        shares = [s for s in shares if s]
        ports = [int(metrics_port()) for _ in shares]
        release = ctx.Event()
        procs = [ctx.Process(target=_senders, args=(env, spec, s, out, p, release))
                 for s, p in zip(shares, ports, strict=True)]  # fmt: skip
        if on_ready is not None:
            on_ready(list(targets))
        run_start = time.time()
        probe.start()
        for p in procs:
            p.start()
        peak_mem = 0
        results, replies = [], 0
        while replies < len(procs):
            try:
                results.extend(out.get(timeout=1))
                replies += 1
            except Exception:  # queue.Empty: nothing yet
                pass
            peak_mem = max(peak_mem, r.info("memory")["used_memory"])
            stack.check_alive()
        checked = before_stop() if before_stop is not None else None
        release.set()
        for p in procs:
            p.join(timeout=30)
        stop.set()
        probe.join()
        run_end = time.time()
        report = _report(spec, r, config, results, samples, run_start, run_end,
                         mem0, mem_agents, peak_mem)  # fmt: skip
        report["farm_start_s"] = round(started_s, 1)
        report["checked"] = checked
        report["tracker_list_agents_s"] = round(scan_s, 4)
        report["tracker_heartbeat_ms"] = round(heartbeat_s * 1e3, 3)
        return report
    finally:
        stack.stop()
        flush_db(DB)


def _report(spec, r, config, results, samples, run_start, run_end, mem0, mem_agents, peak_mem):
    measured = sum(m for _, m, _, _ in results)
    errors = sum(e for _, _, e, _ in results)
    expected = spec.jobs * spec.batch * spec.rounds
    step = "build" if spec.builds_only else "measure"
    starts, overheads = [], []
    for raw in r.lrange(config.key("simulate", "dispatch", step), 0, -1):
        when, waited, idle = (float(x) for x in raw.split())
        starts.append((when, waited))
        overheads.append(min(waited, idle))
    waits = [w for _, w in starts]
    runs = sorted(w for _, _, _, w in results)
    window_end = run_start + runs[0]  # every job sends until the first one finishes
    window_start = run_start + min(runs[0] * 0.2, 10.0)  # skip the ramp-up
    in_window = [t for t, _ in starts if window_start <= t <= window_end]
    # measurements (builds) started per second in the window, against what the simulated
    # delays allow with every agent (build worker) busy
    rate = len(in_window) / max(1e-9, window_end - window_start)
    agents_keys = r.dbsize()
    return {
        "spec": asdict(spec),
        "ideal_candidates_per_s": round(spec.ideal_rate, 2),
        "candidates_per_s": round(rate, 2),
        "efficiency": round(rate / spec.ideal_rate, 3),
        "makespan_s": round(run_end - run_start, 1),
        "window_s": round(window_end - window_start, 1),
        f"{step}_dispatch_p50_s": percentile(waits, 0.5),
        f"{step}_dispatch_p99_s": percentile(waits, 0.99),
        # of those waits, the part where a worker was free too (not queueing for a busy farm)
        f"{step}_dispatch_overhead_p50_s": percentile(overheads, 0.5),
        f"{step}_dispatch_overhead_p99_s": percentile(overheads, 0.99),
        "dispatched": len(starts),
        "measured_ok": measured,
        "errors": errors,
        "expected": expected,
        "lost": expected - measured - errors,
        # every start is one build (builds only) or one measured candidate, never two
        "duplicated": len(starts) - (expected if spec.builds_only else measured),
        "gateway_healthz_p50_s": percentile(samples, 0.5),
        "gateway_healthz_p99_s": percentile(samples, 0.99),
        "redis_bytes_per_agent": round((mem_agents - mem0) / spec.agents),
        "redis_bytes_per_job": round((peak_mem - mem_agents) / spec.jobs),
        "heartbeats_per_s": round(spec.agents / (15 / 3), 1),
        "redis_keys_at_end": agents_keys,
        "load_avg": os.getloadavg(),
        "cores": os.cpu_count(),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ci", action="store_true", help="the CI size (50 agents, 10 jobs, 8 builders)")
    p.add_argument("--builds-only", action="store_true", help="measure_s 0: build scaling")
    for name, value in asdict(ScaleSpec()).items():
        if name != "builds_only":
            p.add_argument(f"--{name.replace('_', '-')}", type=type(value), default=None)
    p.add_argument("-o", "--out", help="write the report (JSON) here")
    args = p.parse_args()
    spec = ScaleSpec.ci() if args.ci else ScaleSpec()
    for name in asdict(spec):
        value = getattr(args, name)
        if value is not None and value is not False:
            setattr(spec, name, value)
    with tempfile.TemporaryDirectory(prefix="tunefarm-scale-") as tmp:
        report = run(spec, Path(tmp))
    print(json.dumps(report, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
