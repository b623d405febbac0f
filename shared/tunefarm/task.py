"""A tuning task: one operator workload (op name + shapes/attributes) on one target.

A task is plain JSON-able data so it can be logged in records, hashed into a workload
key and sent over a queue. What the op *means* lives in the op registry
(`tunefarm.backends.registry`, keyed by the target's kind and the op); a task only names it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any


def _freeze(value: Any) -> Any:
    """Turn lists into tuples recursively so that params are hashable and comparable."""
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    return value


def _thaw(value: Any) -> Any:
    """Inverse of `_freeze` for JSON output (tuples become lists)."""
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


class TaskError(ValueError):
    """A task whose params do not describe a valid workload for its op."""


@dataclass(frozen=True)
class Task:
    """One workload to tune.

    op: registered op name, e.g. "conv2d", "dense", "depthwise_conv2d", "pool2d".
    params: the op's shapes and attributes in its *logical* layout (e.g. NCHW), as a dict
        of JSON values; stored frozen.
    target: target string, e.g. "cpu -isa=avx512 -cores=2".
    """

    op: str
    params: tuple = field(default_factory=tuple)
    target: str = "cpu"

    @staticmethod
    def make(op: str, target: str = "cpu", **params: Any) -> Task:
        return Task(op=op, params=_freeze(params), target=target)

    @property
    def args(self) -> dict[str, Any]:
        """The params as a plain dict (values stay frozen: tuples, not lists)."""
        return dict(self.params)

    def to_json(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "params": {k: _thaw(v) for k, v in self.params},
            "target": self.target,
        }

    @staticmethod
    def from_json(obj: dict[str, Any]) -> Task:
        return Task(op=obj["op"], params=_freeze(obj["params"]), target=obj.get("target", "cpu"))

    @property
    def workload_key(self) -> str:
        """Target-independent identity of the workload: op name plus canonical params."""
        canon = json.dumps([self.op, {k: _thaw(v) for k, v in self.params}], sort_keys=True)
        return f"{self.op}:{hashlib.sha1(canon.encode()).hexdigest()[:16]}"

    def __str__(self) -> str:
        inner = ", ".join(f"{k}={_thaw(v)}" for k, v in self.params)
        return f"{self.op}({inner})"
