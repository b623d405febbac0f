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
    host: str = "127.0.0.1"
    agents: list[tuple[str, str]] = field(default_factory=lambda: [("local", "cpu")])
    build_workers: int = 1
    build_concurrency: int = 1
    search_workers: int = 1
    search_concurrency: int = 1  # search slots per search worker
    metrics_base_port: int = 0  # workers get the first free ports from base on (0: off)
    log_json: bool = False  # every process logs JSON lines (`--log-json`)


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
        plan["gateway"] = [
            *("serve", "gateway", "--host", s.host, "--port", str(s.port), "--workers", "1")
        ]
        for name in ("converter", "extractor"):
            plan[name] = ["worker", name, "--metrics-port", self._metrics_port()]
        for i in range(s.search_workers):
            plan[f"search-{i}"] = [
                *("worker", "search", "--concurrency", str(s.search_concurrency)),
                *("--metrics-port", self._metrics_port()),
            ]
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
        if s.log_json:
            plan = {name: [*argv, "--log-json"] for name, argv in plan.items()}
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


class RedisServer:
    """A private redis-server on its own port (`serve stack --redis-dir`, and the tests that
    restart Redis under a running stack). `appendonly` gives it the persistence the
    Kubernetes manifests give Redis: an append-only file in `data_dir`, fsynced every
    second, so a restart brings back the queues and every job's state."""

    def __init__(self, data_dir: str | os.PathLike, port: int, appendonly: bool = True):
        self.data_dir, self.port, self.appendonly = Path(data_dir), port, appendonly
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout_s: float = 10.0) -> RedisServer:
        cmd = [
            *("redis-server", "--port", str(self.port), "--bind", "127.0.0.1"),
            *("--dir", str(self.data_dir), "--save", ""),
            *("--appendonly", "yes" if self.appendonly else "no", "--appendfsync", "everysec"),
            *("--maxmemory-policy", "noeviction", "--logfile", "redis.log"),
        ]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"redis-server exited ({self.proc.returncode}); see "
                    f"{self.data_dir / 'redis.log'}"
                )
            if _answers(self.port):
                return self
            time.sleep(0.05)
        raise RuntimeError(f"redis-server on port {self.port} did not answer in {timeout_s} s")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """SIGTERM: a clean shutdown; SIGKILL: a crash (the AOF keeps what was fsynced)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=30)

    def restart(self, sig: int = signal.SIGKILL, down_s: float = 0.0) -> None:
        self.stop(sig)
        time.sleep(down_s)
        self.start()


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def persistence_warning(client) -> str | None:
    """None when this Redis keeps an append-only file (what the manifests configure), else
    what will be lost when it restarts, as one line to print at start-up."""
    try:
        aof = client.config_get("appendonly").get("appendonly")
    except Exception:  # CONFIG may be renamed or refused by a managed Redis
        return None
    if aof == "yes":
        return None
    return (
        "warning: this Redis keeps no append-only file (appendonly no): queued work and job "
        "state will not survive a restart of it (jobs are then rebuilt from the artifact "
        "store and resumed); use --redis-dir DIR for a private Redis with persistence"
    )


def port_is_free(port: int) -> bool:
    """Whether a server could bind `port` on all interfaces now."""
    with socket.socket() as s:
        try:
            s.bind(("", port))
        except OSError:
            return False
    return True
