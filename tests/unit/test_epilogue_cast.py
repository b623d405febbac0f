"""The cast epilogue: a conv/dense whose output is stored in a narrower or wider dtype."""

from __future__ import annotations

import pytest

from tunefarm.backends import registry
from tunefarm.measure import MeasureSettings
from tunefarm.oprun import run_op
from tunefarm.task import Task, TaskError

QUICK = MeasureSettings(repeat=1, min_repeat_ms=1)


@pytest.mark.parametrize("dtype", ["float16", "int8", "uint8", "int32", "float64"])
def test_conv_with_cast_epilogue_is_correct(dtype: str) -> None:
    task = Task.make(
        "conv2d",
        data=(1, 8, 9, 9),
        weight=(16, 8, 3, 3),
        padding=1,
        epilogue=("bias", "relu", f"cast:{dtype}"),
    )
    kdef = registry.instantiate(task, registry.default_config(task))
    assert kdef.outputs[0].dtype == dtype
    run = run_op(task, settings=QUICK)[0]
    assert run.ok, run.error_msg


def test_dense_cast_to_half() -> None:
    task = Task.make("dense", data=(2, 64), weight=(48, 64), epilogue=("cast:float16",))
    run = run_op(task, settings=QUICK)[0]
    assert run.ok, run.error_msg


@pytest.mark.parametrize(
    "epilogue, message",
    [
        (("cast:float8",), "cast takes one dtype"),
        (("cast:int8", "relu"), "cast must be the last"),
    ],
)
def test_bad_cast_epilogues(epilogue: tuple[str, ...], message: str) -> None:
    task = Task.make("dense", data=(2, 64), weight=(48, 64), epilogue=epilogue)
    with pytest.raises(TaskError, match=message):
        registry.default_config(task)
