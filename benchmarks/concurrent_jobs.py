"""Real jobs at once on this machine: one job alone, then N jobs submitted together over REST
(tenants alternating, the last tenant submitting one job last), on a local stack with search
slots. Reports when each job started tuning and finished, the last finish against the job
alone, and whether the one-job tenant waited behind the others.

    .venv/bin/python benchmarks/concurrent_jobs.py --jobs 20 --slots 4 --trials 16

Needs a Redis (TUNEFARM_TEST_REDIS_PORT, default 6379; database 11 is flushed).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "integration"))
DB, KEY, TOKEN = 11, "bench-cpu", "bench-token-concurrent"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--jobs", type=int, default=20)
    p.add_argument("--slots", type=int, default=4, help="search slots")
    p.add_argument("--trials", type=int, default=16)
    p.add_argument("--agents", type=int, default=2)
    p.add_argument("--build-workers", type=int, default=2)
    p.add_argument("-o", "--out")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="tunefarm-concurrent-") as tmp:
        report = run(args, Path(tmp))
    print(json.dumps(report, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    return 0


def run(args, tmp: Path) -> dict:
    import requests
    from stack_env import flush_db, free_port, stack_env, wait_for
    from tiny_model import tiny_model_bytes
    from tunefarm_services.stack import LocalStack, StackSpec

    flush_db(DB)
    env = stack_env(tmp, DB, {})
    (tmp / "tokens.txt").write_text(  # one token per tenant
        "".join(f"{TOKEN}-{t} read,submit tenant=t{t}\n" for t in range(3))
    )
    spec = StackSpec(port=free_port(), agents=[(KEY, "cpu")] * args.agents,
                     build_workers=args.build_workers, search_concurrency=args.slots)  # fmt: skip
    url = f"http://127.0.0.1:{spec.port}/api/v1"
    model = tiny_model_bytes()

    def submit(tenant: int, name: str) -> str:
        reply = requests.post(
            f"{url}/jobs", headers={"Authorization": f"Bearer {TOKEN}-{tenant}"},
            data={"target": "cpu", "device_key": KEY, "trials": str(args.trials), "name": name},
            files={"model": ("tiny.onnx", model, "application/octet-stream")}, timeout=60,
        )  # fmt: skip
        assert reply.status_code == 202, reply.text
        return reply.json()["id"]

    def doc(job_id: str, tenant: int) -> dict:
        headers = {"Authorization": f"Bearer {TOKEN}-{tenant}"}
        return requests.get(f"{url}/jobs/{job_id}", headers=headers, timeout=30).json()

    def finish(jobs: dict[str, int], start: float) -> dict[str, dict]:
        out: dict[str, dict] = {}
        while len(out) < len(jobs):
            for job_id, tenant in jobs.items():
                if job_id in out:
                    continue
                d = doc(job_id, tenant)
                if d["state"] in ("done", "failed", "cancelled"):
                    out[job_id] = {"tenant": tenant, "state": d["state"],
                                   "finished_s": round(time.time() - start, 1)}  # fmt: skip
            time.sleep(1)
        return out

    with LocalStack(spec, env, tmp / "logs") as stack:
        wait_for(lambda: requests.get(url.rsplit("/api", 1)[0] + "/readyz", timeout=2).ok,
                 60, "the gateway")  # fmt: skip
        wait_for(lambda: requests.get(f"{url}/devices", timeout=5,
                 headers={"Authorization": f"Bearer {TOKEN}-0"}).json()["devices"], 60,
                 "the agents")  # fmt: skip
        start = time.time()
        alone = finish({submit(0, "alone"): 0}, start)
        alone_s = next(iter(alone.values()))["finished_s"]
        start = time.time()
        jobs = {submit(i % 2, f"job-{i}"): i % 2 for i in range(args.jobs - 1)}
        lone = submit(2, "one-job-tenant")  # submitted last, by a tenant with one job
        jobs[lone] = 2
        done = finish(jobs, start)
        stack.check_alive()
    last = max(d["finished_s"] for d in done.values())
    ranks = sorted(done, key=lambda j: done[j]["finished_s"])
    return {
        "jobs": args.jobs, "slots": args.slots, "trials": args.trials, "agents": args.agents,
        "build_workers": args.build_workers,
        "alone_s": alone_s, "last_s": last, "last_over_alone": round(last / alone_s, 2),
        "serial_estimate_s": round(alone_s * args.jobs, 1),
        "one_job_tenant_finished_s": done[lone]["finished_s"],
        "one_job_tenant_rank": ranks.index(lone) + 1,
        "states": sorted({d["state"] for d in done.values()}),
        "load_avg": os.getloadavg(), "cores": os.cpu_count(),
    }  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
