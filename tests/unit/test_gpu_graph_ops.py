"""The light ops between a network's anchors on a GPU (gpu_common/graph_ops.py, softmax.py
and the elementwise fns a network uses): each op's default config runs on pocl and matches the numpy
oracle (checked in the measurement child), and compiles with nvcc for sm_90.
"""

from __future__ import annotations

import pytest
from test_gpu_kernels import need_nvcc, need_opencl

from tunefarm.backends import registry
from tunefarm.measure import Config, MeasureErrorNo, MeasureInput, MeasureSettings
from tunefarm.task import Task, TaskError

CHECK = MeasureSettings(min_repeat_ms=1, repeat=1, number=1, timeout_s=60.0)

OPS: list[dict] = [
    dict(op="copy", shape=(2, 3, 5)),
    dict(op="concat", shapes=[(1, 3, 4, 4), (1, 5, 4, 4)], axis=1),
    dict(op="slice", shape=(1, 8, 3, 3), axis=1, begin=2, end=7),
    dict(op="pad", shape=(1, 2, 3, 3), pads=[0, 0, 1, 2, 0, 0, 2, 1], value=-1.5),
    dict(op="transpose", shape=(2, 3, 4), perm=[2, 0, 1]),
    dict(op="softmax", shape=(3, 37), axis=-1),
    dict(op="softmax", shape=(2, 5, 4), axis=1),
    dict(op="reduce_mean", shape=(1, 6, 5, 5), axes=[2, 3], keepdims=True),
    dict(op="lrn", shape=(1, 7, 3, 3), size=5, alpha=1e-3, beta=0.75, bias=2.0),
    dict(op="elementwise", fn="hard_swish", shapes=[(2, 9)]),
    dict(op="elementwise", fn="clip", shapes=[(2, 9)], lo=-0.5, hi=0.25),
    dict(op="elementwise", fn="leaky_relu", shapes=[(2, 9)], alpha=0.2),
    dict(op="elementwise", fn="hard_sigmoid", shapes=[(2, 9)], alpha=0.3, beta=0.4),
    dict(op="elementwise", fn="divide", shapes=[(2, 3, 4), (1, 3, 1)]),
    # the transformer ops (bert): int64 ids, masks, layer norm, GELU's pieces
    dict(op="gather", data=(11, 6), indices=(2, 3), axis=0),
    dict(op="gather", data=(2, 7, 3), indices=(4,), axis=1, indices_dtype="int32"),
    dict(op="where", shapes=[(2, 1, 5), (2, 3, 5), (1,)]),
    dict(op="broadcast_to", shape=(3, 1), out=[2, 3, 4]),
    dict(op="layer_norm", shape=(2, 3, 10), axis=-1, epsilon=1e-6),
    dict(op="layer_norm", shape=(2, 3, 4), axis=1),
    dict(op="elementwise", fn="cast", shapes=[(2, 5)], dtypes=["int64"], dtype="float32"),
    dict(op="elementwise", fn="cast", shapes=[(2, 5)], dtype="int32"),
    dict(op="elementwise", fn="equal", shapes=[(2, 5), (1, 5)]),
    dict(op="elementwise", fn="erf", shapes=[(3, 7)]),
    dict(op="elementwise", fn="tanh", shapes=[(3, 7)]),
    dict(op="elementwise", fn="sqrt", shapes=[(3, 7)]),
    dict(op="elementwise", fn="square", shapes=[(3, 7)]),
    dict(op="elementwise", fn="gelu", shapes=[(3, 7)]),
]


def tasks(target: str) -> list[Task]:
    out = []
    for params in OPS:
        params = dict(params)
        out.append(Task.make(params.pop("op"), target=target, **params))
    return out


def test_every_graph_op_runs_correctly_on_opencl():
    need_opencl()
    inps = [MeasureInput(t, registry.default_config(t)) for t in tasks("opencl")]
    builds = registry.local_builder(n_parallel=2).build(inps)
    with registry.local_runner(CHECK, kind="opencl") as runner:
        results = runner.run(inps, builds)
    for inp, b, r in zip(inps, builds, results, strict=True):
        where = f"{inp.task.op} {dict(inp.task.args)}"
        assert b.ok, f"{where}: {b.error_msg}"
        assert r.ok, f"{where}: {MeasureErrorNo(r.error_no).name} {r.error_msg}"


def test_row_ops_run_correctly_one_thread_per_output_and_per_row():
    """softmax and layer_norm both ways (`rows`): per row, each thread loops over its row
    with the row's statistics computed once; 7 rows leave most of a 32-thread block idle."""
    need_opencl()
    specs = [
        dict(op="softmax", shape=(7, 37), axis=-1),
        dict(op="softmax", shape=(2, 5, 4), axis=1),
        dict(op="layer_norm", shape=(7, 3, 10), axis=1),
    ]
    inps = []
    for params in specs:
        params = dict(params)
        task = Task.make(params.pop("op"), target="opencl", **params)
        space = registry.config_space(task)
        default = registry.default_config(task).as_dict()
        assert default["rows"] is True  # pocl's default: a row's statistics once
        for rows in (False, True):
            values = space.validate({**default, "threads": 32, "rows": rows})
            inps.append(MeasureInput(task, Config.make(values, index=space.index_of(values))))
    builds = registry.local_builder(n_parallel=2).build(inps)
    with registry.local_runner(CHECK, kind="opencl") as runner:
        results = runner.run(inps, builds)
    for inp, r in zip(inps, results, strict=True):
        where = f"{inp.task.op} {dict(inp.task.args)} {inp.config.as_dict()}"
        assert r.ok, f"{where}: {MeasureErrorNo(r.error_no).name} {r.error_msg}"
    task = Task.make("softmax", target="cuda -arch=sm_90", shape=(7, 37))
    assert registry.default_config(task).as_dict()["rows"] is False


@pytest.mark.slow
def test_every_graph_op_compiles_with_nvcc():
    need_nvcc()
    inps = [MeasureInput(t, registry.default_config(t)) for t in tasks("cuda -arch=sm_90")]
    for task in tasks("cuda -arch=sm_90"):  # the per-row schedule too (not CUDA's default)
        space = registry.config_space(task)
        if "rows" in space.knobs:
            values = space.validate({**registry.default_config(task).as_dict(), "rows": True})
            inps.append(MeasureInput(task, Config.make(values, index=space.index_of(values))))
    builds = registry.local_builder(n_parallel=2, timeout_s=300).build(inps)
    for inp, b in zip(inps, builds, strict=True):
        assert b.ok, f"{inp.task.op} {inp.config.as_dict()}: {b.error_msg}"


def test_bad_params_name_the_op_and_param():
    with pytest.raises(TaskError, match="pad: param 'pads' must be >= 0"):
        registry.config_space(Task.make("pad", target="opencl", shape=(2, 2), pads=[0, -1, 0, 0]))
    with pytest.raises(TaskError, match="elementwise clip: param 'lo' must be a number"):
        registry.config_space(
            Task.make("elementwise", target="opencl", fn="clip", shapes=[(2,)], lo="x")
        )
    with pytest.raises(TaskError, match="gather: param 'axis' 2 is out of range"):
        registry.config_space(
            Task.make("gather", target="opencl", data=(4, 3), indices=(2,), axis=2)
        )
    with pytest.raises(TaskError, match="elementwise cast: param 'dtype' must be one of"):
        registry.config_space(
            Task.make("elementwise", target="opencl", fn="cast", shapes=[(2,)], dtype="float16")
        )
    with pytest.raises(TaskError, match="where: param 'shapes' must be the 3 shapes"):
        registry.config_space(Task.make("where", target="opencl", shapes=[(2,), (2,)]))
