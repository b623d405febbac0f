"""The ops without a specialised template are defined once (backends/op_specs.py) and both
the CPU's generic template and the GPUs' thread-per-output template use that definition:
the same params, the same one-line errors, the same numpy reference. (That the generated
code did not change when they were merged is the golden files' and lowering tests' job.)"""

from __future__ import annotations

import numpy as np
import pytest
from test_gpu_graph_ops import OPS

from tunefarm.backends import registry
from tunefarm.task import Task, TaskError

TARGETS = ("cpu -isa=avx2", "cuda -arch=sm_90", "opencl")


def _task(params: dict, target: str) -> Task:
    params = dict(params)
    return Task.make(params.pop("op"), target=target, **params)


@pytest.mark.parametrize("params", OPS, ids=lambda p: p["op"] + "-" + p.get("fn", ""))
def test_cpu_and_gpu_check_and_refer_alike(params):
    """Each op a GPU network uses has one flop count and one reference on every target."""
    tasks = [_task(params, t) for t in TARGETS]
    assert len({registry.flops(t) for t in tasks}) == 1
    inputs = registry.random_inputs(tasks[0], seed=3)
    refs = [np.asarray(registry.template(t).reference(t, inputs), np.float32) for t in tasks]
    for ref in refs[1:]:
        np.testing.assert_array_equal(ref, refs[0])


@pytest.mark.parametrize(
    ("params", "message"),
    [
        # a GPU used to compute a constant pad for any mode
        (dict(op="pad", shape=(2, 2), pads=[0, 1, 0, 1], mode="reflect"), "'mode' must be"),
        (dict(op="slice", shape=(4,), axis=0, begin=1.5, end=3), "'begin' must be an int"),
        (dict(op="elementwise", fn="clip", shapes=[(2,)], hi=True), "'hi' must be a number"),
        (dict(op="gather", data=(4, 3), indices=(2,)), None),  # fine everywhere
        (dict(op="layer_norm", shape=(2, 3), axis=2), "'axis' 2 is out of range"),
    ],
)
def test_a_bad_param_gets_the_same_error_on_every_target(params, message):
    for target in TARGETS:
        task = _task(params, target)
        if message is None:
            registry.flops(task)
            continue
        with pytest.raises(TaskError, match=message):
            registry.flops(task)


def test_gpu_elementwise_takes_fewer_fns_and_dtypes_than_the_cpu():
    bias = dict(op="elementwise", fn="bias_add", shapes=[(1, 4, 2, 2), (4,)])
    half = dict(op="elementwise", fn="cast", shapes=[(3,)], dtypes=["float16"])
    for params in (bias, half):
        registry.flops(_task(params, "cpu -isa=avx2"))
    with pytest.raises(TaskError, match="elementwise on a GPU: fn must be one of"):
        registry.flops(_task(bias, "cuda -arch=sm_90"))
    with pytest.raises(TaskError, match=r"dtypes\[0\] must be one of"):
        registry.flops(_task(half, "opencl"))


def test_dense_is_one_op_definition_on_every_target():
    """backends/anchor_ops.py: dense's params, reference and FLOPs, whatever the schedule."""
    from tunefarm.backends.anchor_ops import DenseOp

    for target in TARGETS:
        task = Task.make("dense", target=target, data=(2, 8), weight=(4, 8), epilogue=("bias",))
        assert isinstance(registry.template(task), DenseOp)
        assert registry.flops(task) == 2 * 2 * 8 * 4
        bad = Task.make("dense", target=target, data=(2, 3), weight=(4, 5))
        with pytest.raises(TaskError, match=r"K = 3 columns like data \(2, 3\)"):
            registry.config_space(bad)
