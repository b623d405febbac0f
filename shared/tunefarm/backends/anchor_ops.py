"""The anchor ops that every backend schedules its own way (today: dense), defined once:
their params, logical inputs, numpy reference and FLOP count. A backend's template subclasses
the op's base here and adds its own space and schedule, so that a dense task means the same
on every target.

Like `op_specs`, a helper of the backend packages only (the import contracts in pyproject.toml).
"""

from __future__ import annotations

from typing import Any

from tunefarm.ir import reference as R
from tunefarm.ir.ops.epilogue import epilogue_inputs, parse_epilogue, reference_epilogue
from tunefarm.schedule.template import Template, operand_shapes
from tunefarm.task import Task, TaskError


def dense_shape(task: Task, op: str = "dense") -> tuple[int, int, int]:
    """n, k, o of a dense-shaped task, data (N, K) and weight (O, K); a TaskError naming the
    bad param (the float dense and the int8 one, `cpu.qdense`, check their shapes here)."""
    (n, k), (o, k2) = operand_shapes(task, "N, K", "O, K", op)
    if k != k2:
        a = task.args
        raise TaskError(
            f"{op}: weight {a['weight']} must have K = {k} columns like data {a['data']}"
        )
    return n, k, o


def dense_params(task: Task) -> dict[str, Any]:
    """n, k, o and the epilogue of a dense task: data (N, K), weight (O, K)."""
    n, k, o = dense_shape(task)
    epilogue = tuple(task.args.get("epilogue", ()))
    parse_epilogue(epilogue)
    return dict(n=n, k=k, o=o, epilogue=epilogue)


class DenseOp(Template):
    """out[i, j] = sum_k data[i, k] * weight[j, k], then the epilogue (bias, residual, ...)."""

    op = "dense"

    def validate(self, task: Task) -> dict[str, Any]:
        return dense_params(task)

    def logical_inputs(self, task):
        p = self.validate(task)
        extra = epilogue_inputs(p["epilogue"], p["o"], (p["n"], p["o"]))
        return [("data", (p["n"], p["k"])), ("weight", (p["o"], p["k"])), *extra]

    def reference(self, task, inputs):
        p = self.validate(task)
        return reference_epilogue(R.dense(inputs["data"], inputs["weight"]), p["epilogue"], inputs)

    def flops(self, task):
        p = self.validate(task)
        return 2.0 * p["n"] * p["k"] * p["o"]
