"""Records that no task of a network matches any more.

A record applies to a task by its workload key (op and params). When the network compiler
changes the tasks it makes (channel padding changed the convs of shufflenet, mobilenet_v3,
regnet and squeezenet), records tuned for the old tasks match nothing, and compile and
resume would ignore them silently: the user sees untuned kernels and a log full of records.
`find_stale` counts them by op so that the report can say so plainly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from tunefarm.tune.records import Record


@dataclass(frozen=True)
class StaleRecords:
    """How many records match no task, and of which ops ((op, records), most first)."""

    count: int
    kinds: tuple[tuple[str, int], ...]

    def line(self) -> str:
        kinds = ", ".join(f"{op} x{n}" for op, n in self.kinds)
        return (
            f"{self.count} record(s) match no task of this network ({kinds}): stale: the "
            "network's tasks changed since they were tuned (or they are another network's); "
            "they are not used: tune again to replace them"
        )

    def to_json(self) -> dict[str, Any]:
        return {"count": self.count, "kinds": dict(self.kinds)}


def find_stale(records: Iterable[Record], workload_keys: Collection[str]) -> StaleRecords | None:
    """The records whose workload is none of `workload_keys` (the network's tasks', every
    alternative included), or None when every record matches one."""
    ops = Counter(r.task.op for r in records if r.workload_key not in workload_keys)
    if not ops:
        return None
    kinds = tuple(sorted(ops.items(), key=lambda kv: (-kv[1], kv[0])))
    return StaleRecords(sum(ops.values()), kinds)
