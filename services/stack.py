"""The whole stack as local processes (`make serve`, and the integration tests): gateway,
converter, extractor, search, build farm and device agents, each a real `tunefarm` process
against the local Redis, with logs in one directory.

Processes can be killed and restarted one at a time, which is how the tests show that a dead
worker loses nothing.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class StackSpec:
    """What to start. agents: (key, target) per agent. Ports 0 turn metrics off."""

    port: int = 8080
    agents: list[tuple[str, str]] = field(default_factory=lambda: [("local", "cpu")])
    build_workers: int = 1
    build_concurrency: int = 1
    search_workers: int = 1
    metrics_base_port: int = 0  # workers get the first free ports from base on (0: off)


class LocalStack:
    def __init__(self, spec: StackSpec, env: dict[str, str], log_dir: str | os.PathLike):
        self.spec, self.env = spec, dict(env)
        self.log_dir = Path(log_dir)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.procs: dict[str, subprocess.Popen] = {}
        self.commands: dict[str, list[str]] = {}
        self._next_metrics = spec.metrics_base_port

    def _metrics_port(self) -> str:
        """The next port from the base on that nothing holds now: a worker whose port is
        taken exits at once, and its queue would silently go unserved."""
        if not self.spec.metrics_base_port:
            return "0"
        port = self._next_metrics
        while port == self.spec.port or not port_is_free(port):
            port += 1
        self._next_metrics = port + 1
        return str(port)

    def plan(self) -> dict[str, list[str]]:
        """Process name -> `tunefarm` arguments."""
        s, plan = self.spec, {}
        plan["gateway"] = ["serve", "gateway", "--port", str(s.port), "--workers", "1"]
        for name in ("converter", "extractor"):
            plan[name] = ["worker", name, "--metrics-port", self._metrics_port()]
        for i in range(s.search_workers):
            plan[f"search-{i}"] = ["worker", "search", "--metrics-port", self._metrics_port()]
        for i in range(s.build_workers):
            plan[f"buildfarm-{i}"] = [
                *("worker", "buildfarm", "--concurrency", str(s.build_concurrency)),
                *("--metrics-port", self._metrics_port()),
            ]
        for i, (key, target) in enumerate(s.agents):
            plan[f"agent-{i}"] = [
                *("agent", "--key", key, "--target", target),
                *("--metrics-port", self._metrics_port()),
            ]
        return plan

    def start(self) -> LocalStack:
        self.commands = self.plan()
        for name in self.commands:
            self.start_one(name)
        return self

    def start_one(self, name: str) -> subprocess.Popen:
        log = open(self.log_dir / f"{name}.log", "ab")  # noqa: SIM115 (the child owns it)
        cmd = [sys.executable, "-m", "tunefarm", *self.commands[name]]
        proc = subprocess.Popen(
            cmd, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        log.close()
        self.procs[name] = proc
        return proc

    def kill(self, name: str, sig: int = signal.SIGKILL) -> None:
        """Kill a process and all its children (a Celery worker's pool too) at once."""
        proc = self.procs[name]
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass
        proc.wait(timeout=30)

    def restart(self, name: str) -> subprocess.Popen:
        self.kill(name)
        return self.start_one(name)

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    continue
        deadline = time.monotonic() + 15
        for name in list(self.procs):
            proc = self.procs[name]
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.kill(name)

    def check_alive(self) -> None:
        """Raise naming each process that exited, with the end of its log."""
        dead = self.dead()
        if dead:
            tails = "\n".join(f"--- {n} (exit {rc})\n{self.logs(n, 10)}" for n, rc in dead.items())
            raise RuntimeError(f"stack processes exited: {sorted(dead)}\n{tails}")

    def dead(self) -> dict[str, int]:
        """Processes that exited, with their status."""
        return {n: p.returncode for n, p in self.procs.items() if p.poll() is not None}

    def logs(self, name: str, tail: int = 40) -> str:
        path = self.log_dir / f"{name}.log"
        lines = path.read_text(errors="replace").splitlines() if path.exists() else []
        return "\n".join(lines[-tail:])

    def __enter__(self) -> LocalStack:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def port_is_free(port: int) -> bool:
    """Whether a server could bind `port` on all interfaces now."""
    with socket.socket() as s:
        try:
            s.bind(("", port))
        except OSError:
            return False
    return True
