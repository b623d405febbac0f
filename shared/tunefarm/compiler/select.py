"""In-network selection: re-rank each task's best measured configs by how fast they run
inside the compiled network, on the device that will run it.

A task is tuned alone: its inputs come from a flushed cache and its weights are the only
ones in play. Inside the network a kernel reads what its producer has just written (often
still in L2) while the weights of its neighbours compete for the caches. The two regimes
rank close candidates differently, sometimes by 20-40% on the memory-bound layers of a
mobile network, so the config that won alone is not always the one to ship.

So: compile the network a few times, variant v giving every tuned task its v-th best
measured config (the last variant: the default config), time every call in place (the
executor's per-call profile, interleaved over rounds so machine noise hits all variants
alike) and keep, per task, the candidate whose calls were fastest -- when it wins clearly:
by more than `CLEAR_MARGIN` in its median and in most rounds; otherwise the best measured
record stays, so noise on a shared machine cannot swap it for a worse one. Channel blocks
are pinned per task (the backend's layout policy, `Backend.anchor_variants`), so a task's
candidates all read and write the same layouts and the per-task choices compose.

    selection = select_in_network(graph, "cpu", ApplyHistoryBest("r18.jsonl"))
    compiled = compile_graph(graph, "cpu", "r18.jsonl", overrides=selection.configs)
    # or both steps at once:
    compiled, selection = compile_selected(graph, "cpu", ApplyHistoryBest("r18.jsonl"))
"""

from __future__ import annotations

import math
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from tunefarm.backends import canonical, registry
from tunefarm.compiler.network import compile_graph
from tunefarm.graph.extract import choose_alternative, extract_tasks
from tunefarm.graph.ir import Graph, random_inputs
from tunefarm.measure.types import Config
from tunefarm.runtime.executor import GraphExecutor
from tunefarm.task import Task
from tunefarm.tune.dispatch import ApplyHistoryBest

DEFAULT_TOP_K = 3  # candidates per task: more rarely wins, and each costs a network compile
CLEAR_MARGIN = 0.03  # a candidate replaces the best record only when faster by more than this
CLEAR_ROUNDS = 0.8  # ... in its median and in this share of the interleaved rounds


@dataclass(frozen=True)
class TaskSelection:
    """One task's candidates (best measured first, the default last), their in-network time
    (ms per run, summed over the task's calls) and which one was chosen."""

    task: Task
    nodes: tuple[str, ...]
    candidates: tuple[Config, ...]
    network_ms: tuple[float, ...]
    chosen: int


@dataclass(frozen=True)
class Selection:
    tasks: tuple[TaskSelection, ...]

    @property
    def configs(self) -> dict[Task, Config]:
        """Task -> chosen config: pass as compile_graph(..., overrides=...)."""
        return {t.task: t.candidates[t.chosen] for t in self.tasks}

    def saved_ms(self) -> float:
        """In-network ms per run saved against taking every task's best isolated config."""
        return sum(t.network_ms[0] - t.network_ms[t.chosen] for t in self.tasks)

    @property
    def changed(self) -> list[TaskSelection]:
        """The tasks whose in-network choice is not their best isolated config."""
        return [t for t in self.tasks if t.chosen != 0]

    def to_json(self) -> dict[str, Any]:
        """The report a service stores in the job document."""
        return {
            "tasks": len(self.tasks),
            "changed": [
                {
                    "workload_key": t.task.workload_key,
                    "node": t.nodes[0],
                    "choice": _choice(t),
                    "network_ms": t.network_ms[t.chosen],
                    "instead_ms": t.network_ms[0],
                }
                for t in self.changed
            ],
            "saved_ms": self.saved_ms(),
        }

    def print(self, stream: TextIO | None = None) -> None:
        print(
            f"in-network selection: {len(self.changed)}/{len(self.tasks)} tasks changed their "
            f"config, {self.saved_ms():.3f} ms per run saved",
            file=stream,
        )
        for t in self.changed:
            print(
                f"  {t.task.workload_key} ({t.nodes[0]}): {_choice(t)} "
                f"{t.network_ms[t.chosen]:.3f} ms instead of {t.network_ms[0]:.3f} ms",
                file=stream,
            )


def _choice(t: TaskSelection) -> str:
    """The chosen candidate in words: "default", or its rank among the records ("#2")."""
    default = t.candidates[t.chosen].index == registry.default_config(t.task).index
    return "default" if default else f"#{t.chosen + 1}"


def candidates(
    task: Task, history: ApplyHistoryBest, device_key: str | None, top_k: int
) -> list[Config]:
    """The task's `top_k` fastest measured configs, then its default config if not among them."""
    found = [config for config, _ in history.ranked(task, device_key)[:top_k]]
    default = registry.default_config(task)
    if all(c.index != default.index for c in found):
        found.append(default)
    return found


def select_in_network(
    graph: Graph,
    target: str,
    history: ApplyHistoryBest,
    device_key: str | None = None,
    top_k: int = DEFAULT_TOP_K,
    rounds: int = 5,
    repeat: int = 10,
    seed: int = 0,
) -> Selection:
    """Choose each tuned task's config by its time inside the network (see the module doc).
    `graph` must be optimised. Tasks without records keep their default and are left out."""
    target = canonical(target)
    tuned = _running_tasks(graph, target, history, device_key)
    options = {t.task: candidates(t.task, history, device_key, top_k) for t in tuned}
    if not options:
        return Selection(())
    variants = max(len(cands) for cands in options.values())
    inputs = random_inputs(graph, seed)
    with tempfile.TemporaryDirectory(prefix="tunefarm-select-") as tmp:
        executors = []
        for v in range(variants):
            overrides = {task: cands[min(v, len(cands) - 1)] for task, cands in options.items()}
            path = Path(tmp) / f"variant{v}.tfa"
            compiled = compile_graph(
                graph, target, history, device_key, optimized=True, overrides=overrides
            )
            compiled.save(path)
            ex = GraphExecutor.load(path, cache_dir=tmp)
            for name, value in inputs.items():
                ex.set_input(name, value)
            executors.append(ex)
        samples = _profile(executors, rounds, repeat)
    owner = {node: t.task for t in tuned for node in t.nodes}
    rows = []
    for t in tuned:
        cands = options[t.task]
        per_round = [
            [_task_ms(round_, owner, t.task) for round_ in samples[v]] for v in range(len(cands))
        ]
        ms = tuple(statistics.median(r) for r in per_round)
        rows.append(TaskSelection(t.task, t.nodes, tuple(cands), ms, clear_winner(per_round)))
    return Selection(tuple(rows))


def clear_winner(per_round: list[list[float]], margin: float = CLEAR_MARGIN) -> int:
    """The candidate to ship: the best measured record (0) unless another beat it by more
    than `margin` in its median AND in at least `CLEAR_ROUNDS` of the interleaved rounds.
    On a busy machine a few noisy rounds must not swap a good config for a worse one."""
    rounds = len(per_round[0])
    need = max(1, math.ceil(CLEAR_ROUNDS * rounds))
    base = statistics.median(per_round[0])
    best, best_ms = 0, base
    for v, times in enumerate(per_round[1:], start=1):
        wins = sum(t < b * (1 - margin) for t, b in zip(times, per_round[0], strict=True))
        median = statistics.median(times)
        if wins >= need and median < base * (1 - margin) and median < best_ms:
            best, best_ms = v, median
    return best


def _running_tasks(graph: Graph, target: str, history: ApplyHistoryBest, device_key: str | None):
    """The network's tasks that run its nodes (of each node's alternatives, the one the
    compiler picks from the records) and have records."""
    tasks = extract_tasks(graph, target)
    groups: dict[int, list[Task]] = {}
    for t in tasks:
        groups.setdefault(t.group, []).append(t.task)
    running = {choose_alternative(alts, history, device_key) for alts in groups.values()}
    return [
        t for t in tasks if t.task in running and history.query(t.task, device_key)[1] == "record"
    ]


def _profile(executors: list[Any], rounds: int, repeat: int) -> list[list[list[Any]]]:
    """Per variant, per round: the executor's per-call profile. Rounds are interleaved."""
    samples: list[list[list[Any]]] = [[] for _ in executors]
    for _ in range(rounds):
        for v, ex in enumerate(executors):
            samples[v].append(ex.profile(repeat=repeat))
    return samples


def _task_ms(profile: list[Any], owner: dict[str, Task], task: Task) -> float:
    """ms of one run spent in `task`'s calls; a transform labelled `consumer:value->layout`
    counts for its consumer."""
    return sum(e.ms for e in profile if owner.get(e.node.split(":")[0]) == task)


def compile_selected(
    graph: Graph,
    target: str,
    history: ApplyHistoryBest | None,
    device_key: str | None = None,
    top_k: int = DEFAULT_TOP_K,
) -> tuple[Any, Selection | None]:
    """Compile `graph` (optimised) with the records, each tuned task's config chosen inside
    the network among its `top_k` best (0: the best record, no selection). Run it on the
    device that will run the network. Returns (CompiledNetwork, Selection or None)."""
    selection = None
    if history is not None and top_k > 0:
        selection = select_in_network(graph, target, history, device_key, top_k=top_k)
    overrides = selection.configs if selection is not None else None
    compiled = compile_graph(
        graph, target, history, device_key, optimized=True, overrides=overrides
    )
    return compiled, selection
