"""Invalid schedules, configs and tasks are diagnosed with messages that say what and where.

A ScheduleError names the step (its index and kind) and the problem; the same goes for
errors only found while lowering. Bad knob values are SpaceErrors naming the knob, bad task
params TaskErrors naming the param. Steps round-trip through JSON.
"""

from __future__ import annotations

import json
import re

import pytest

from tunefarm.backends import parse_target, registry
from tunefarm.backends.cpu.c_emitter import CodegenError, emit_c
from tunefarm.codegen.lower import lower
from tunefarm.ir import tensor as te
from tunefarm.ir.expr import const, max_
from tunefarm.schedule import steps as S
from tunefarm.schedule.schedule import Schedule, ScheduleError
from tunefarm.schedule.space import SpaceError
from tunefarm.target import Target
from tunefarm.task import Task, TaskError


def matmul_relu() -> Schedule:
    """P[i, j] = sum_k A[i, k] * B[k, j] (loops i, j, k); out = relu(P) (loops i, j)."""
    a, b = te.placeholder((8, 6), name="A"), te.placeholder((6, 10), name="B")
    k = te.reduce_axis(6, "k")
    p = te.compute((8, 10), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="P")
    out = te.compute((8, 10), lambda i, j: max_(p[i, j], const(0.0)), name="out")
    return Schedule([out], [a, b])


def diamond() -> Schedule:
    """X = A + 1 is read by both Y = X * 2 and the output Z = X + Y."""
    a = te.placeholder((4, 12), name="A")
    x = te.compute((4, 12), lambda i, j: a[i, j] + 1.0, name="X")
    y = te.compute((4, 12), lambda i, j: x[i, j] * 2.0, name="Y")
    z = te.compute((4, 12), lambda i, j: x[i, j] + y[i, j], name="Z")
    return Schedule([z], [a])


def expect_error(sch: Schedule, steps: list[S.Step], *fragments: str) -> str:
    """Apply steps; the last must fail with a message naming its index, kind and problem."""
    sch.apply_all(steps[:-1])
    bad = steps[-1]
    with pytest.raises(ScheduleError) as info:
        sch.apply(bad)
    msg = str(info.value)
    assert msg.startswith(f"step {len(steps) - 1} ({bad.kind} on stage {bad.stage!r}"), msg
    for frag in fragments:
        assert frag in msg, f"{frag!r} not in {msg!r}"
    assert len(sch.steps) == len(steps) - 1  # a failed step is not recorded
    return msg


# ---------------------------------------------------------------- errors when applying
def test_unknown_stage_lists_stages() -> None:
    expect_error(matmul_relu(), [S.Split("Q", "i", (2,))], "unknown stage", "['P', 'out']")


def test_unknown_axis_lists_the_loops() -> None:
    msg = expect_error(
        matmul_relu(), [S.Split("P", "i", (4,)), S.Vectorize("P", "i")], "unknown axis 'i'"
    )
    assert "['i.0', 'i.1', 'j', 'k']" in msg


@pytest.mark.parametrize(
    "step",
    [
        S.Reorder("P", ("j", "x")),
        S.Fuse("P", ("i", "jj")),
        S.Unroll("out", "k"),
        S.Pragma("P", "q", "ivdep"),
    ],
)
def test_unknown_axis_in_every_kind(step: S.Step) -> None:
    expect_error(matmul_relu(), [step], "unknown axis", "the loops of")


def test_vectorize_reduce_axis() -> None:
    expect_error(matmul_relu(), [S.Vectorize("P", "k")], "cannot vectorize reduce axis 'k'")


def test_vectorize_split_part_of_reduce_axis() -> None:
    expect_error(
        matmul_relu(),
        [S.Split("P", "k", (2,)), S.Vectorize("P", "k.1")],
        "cannot vectorize reduce axis 'k.1'",
    )


def test_parallel_reduce_axis() -> None:
    expect_error(matmul_relu(), [S.Parallel("P", "k")], "cannot parallelize reduce axis 'k'")


def test_fuse_non_adjacent_axes() -> None:
    sch = matmul_relu()
    msg = expect_error(sch, [S.Split("out", "i", (2,)), S.Fuse("out", ("i.0", "j"))], "adjacent")
    assert "['i.0', 'i.1', 'j']" in msg


def test_fuse_out_of_loop_order() -> None:
    expect_error(matmul_relu(), [S.Fuse("out", ("j", "i"))], "adjacent and in loop order")


def test_fuse_spatial_with_reduce() -> None:
    expect_error(matmul_relu(), [S.Fuse("P", ("j", "k"))], "cannot fuse spatial and reduce")


def test_fuse_one_axis() -> None:
    expect_error(matmul_relu(), [S.Fuse("P", ("j",))], "at least two axes")


@pytest.mark.parametrize(
    "second", [S.Unroll("out", "j"), S.Parallel("out", "j"), S.Vectorize("out", "j")]
)
def test_annotating_an_axis_twice(second: S.Step) -> None:
    steps = [S.Split("out", "i", (2,)), S.Vectorize("out", "j"), second]
    expect_error(matmul_relu(), steps, "axis 'j' is already annotated 'vectorize'")


def test_bind_unknown_thread_tag() -> None:
    expect_error(matmul_relu(), [S.Bind("out", "i", "warp.x")], "unknown thread tag 'warp.x'")


def test_bad_pragma_key() -> None:
    expect_error(matmul_relu(), [S.Pragma("out", "i", "unroll_all")], "pragma key")


def test_reorder_repeated_axis() -> None:
    expect_error(matmul_relu(), [S.Reorder("P", ("k", "k"))], "appears twice")


def test_compute_at_itself() -> None:
    expect_error(matmul_relu(), [S.ComputeAt("P", "P", "i")], "cannot be computed at itself")


def test_compute_at_unknown_target_and_axis() -> None:
    expect_error(matmul_relu(), [S.ComputeAt("P", "C", "i")], "unknown target stage")
    expect_error(matmul_relu(), [S.ComputeAt("P", "out", "k")], "unknown axis 'k'", "['i', 'j']")


def test_compute_at_of_an_output() -> None:
    expect_error(matmul_relu(), [S.ComputeAt("out", "P", "i")], "output stage")


def test_inline_an_output() -> None:
    expect_error(matmul_relu(), [S.ComputeInline("out")], "output stage cannot be inlined")


def test_inline_a_reduction() -> None:
    expect_error(matmul_relu(), [S.ComputeInline("P")], "reduction cannot be inlined")


def test_cache_write_after_other_steps() -> None:
    steps = [S.Split("P", "i", (2,)), S.Parallel("out", "i"), S.CacheWrite("P")]
    expect_error(matmul_relu(), steps, "cache_write must come before any other step")


def test_cache_write_first_is_fine() -> None:
    sch = matmul_relu().apply_all([S.CacheWrite("P"), S.Split("P", "i", (2,))])
    assert list(sch.stages) == ["P.local", "P", "out"]


def test_cache_read_errors() -> None:
    expect_error(matmul_relu(), [S.CacheRead("Z", "local", ("P",))], "unknown tensor")
    expect_error(matmul_relu(), [S.CacheRead("A", "local", ("nope",))], "readers must be")
    expect_error(matmul_relu(), [S.CacheRead("A", "local", ())], "readers must be")
    steps = [S.CacheRead("A", "local", ("P",)), S.CacheRead("A", "local", ("P",))]
    expect_error(matmul_relu(), steps, "'A.local' already exists")


@pytest.mark.parametrize("factors", [(0,), (-2,), (4, 0), (), (2.5,)])
def test_bad_split_factors(factors: tuple) -> None:
    expect_error(
        matmul_relu(), [S.Split("P", "j", factors)], "factors must be positive ints", str(factors)
    )


# ---------------------------------------------------------------- errors when lowering
def lower_error(sch: Schedule, steps: list[S.Step], index: int, *fragments: str) -> str:
    sch.apply_all(steps)
    with pytest.raises(ScheduleError) as info:
        lower(sch)
    msg = str(info.value)
    step = steps[index]
    assert msg.startswith(f"step {index} ({step.kind} on stage {step.stage!r}"), msg
    for frag in fragments:
        assert frag in msg, f"{frag!r} not in {msg!r}"
    return msg


def test_compute_at_an_axis_later_split_away() -> None:
    steps = [S.ComputeAt("P", "out", "i"), S.Split("out", "i", (4,))]
    msg = lower_error(matmul_relu(), steps, 0, "'i' is no longer a loop of 'out'")
    assert "['i.0', 'i.1', 'j']" in msg


def test_compute_at_an_axis_later_fused_away() -> None:
    steps = [S.ComputeAt("P", "out", "j"), S.Fuse("out", ("i", "j"))]
    lower_error(matmul_relu(), steps, 0, "'j' is no longer a loop of 'out'", "['i+j']")


def test_compute_at_a_stage_that_is_not_the_only_reader() -> None:
    steps = [S.Split("Z", "j", (4,)), S.ComputeAt("X", "Z", "i")]
    lower_error(diamond(), steps, 1, "read by ['Y', 'Z']", "computed at the same loop")


def chain() -> Schedule:
    """X = A + 1 is read by Y = X * 2 only, and Y by the output Z = Y + 1 only."""
    a = te.placeholder((4, 12), name="A")
    x = te.compute((4, 12), lambda i, j: a[i, j] + 1.0, name="X")
    y = te.compute((4, 12), lambda i, j: x[i, j] * 2.0, name="Y")
    z = te.compute((4, 12), lambda i, j: y[i, j] + 1.0, name="Z")
    return Schedule([z], [a])


def test_compute_at_a_loop_of_a_stage_that_does_not_read_it() -> None:
    steps = [S.ComputeAt("X", "Z", "i")]  # X's reader Y stays at root
    lower_error(chain(), steps, 0, "read by ['Y']", "computed at the same loop")
    # with Y computed there too, X is computed once per row of Z, as Y needs it
    sch = chain().apply_all([S.ComputeAt("Y", "Z", "i"), S.ComputeAt("X", "Z", "i")])
    func = lower(sch)
    assert not func.statics and len(func.body) == 1


def test_compute_at_an_inlined_stage() -> None:
    steps = [S.ComputeInline("Y"), S.ComputeAt("X", "Y", "i")]
    lower_error(diamond(), steps, 1, "target stage 'Y' is inlined")


def test_compute_at_the_only_reader_lowers() -> None:
    sch = diamond().apply_all([S.ComputeInline("Y"), S.ComputeAt("X", "Z", "i")])
    assert lower(sch).body  # Z is now X's only reader


def test_bind_is_refused_for_cpu_targets() -> None:
    sch = matmul_relu().apply_all([S.Bind("out", "i", "blockIdx.x")])
    func = lower(sch)  # lowering keeps the binding; only the CPU emitter cannot honour it
    with pytest.raises(CodegenError, match="bind is for GPU targets") as info:
        emit_c(func, parse_target("cpu -isa=avx2"))
    assert "blockIdx.x" in str(info.value) and "cpu -isa=avx2" in str(info.value)


def test_c_emitter_refuses_gpu_targets() -> None:
    with pytest.raises(CodegenError, match="CPU code"):
        emit_c(lower(matmul_relu()), Target("cuda", (("arch", "sm_90"),)))


# ---------------------------------------------------------------- knob values
CONV = Task.make("conv2d", data=(1, 8, 6, 6), weight=(16, 8, 3, 3), padding=1)
DENSE = Task.make("dense", data=(2, 24), weight=(16, 24))
SOFTMAX = Task.make("softmax", shape=(3, 7), axis=-1)


def with_knob(task: Task, **values) -> dict:
    cfg = registry.default_config(task).as_dict()
    cfg.update(values)
    return cfg


@pytest.mark.parametrize(
    ("task", "knob", "value"),
    [
        (CONV, "tile_ic", (3, 3)),
        (CONV, "tile_oc", (1, 128)),
        (CONV, "tile_oc", (2, 2, 2)),
        (CONV, "order", "random"),
        (DENSE, "tile_k", 5),
        (DENSE, "tile_o", (1, 16, 1)),
        (SOFTMAX, "parallel", "yes"),
        (Task.make("pool2d", data=(1, 16, 9, 9), kind="max", kernel=3), "tile_ow", (2, 4)),
        (Task.make("global_pool2d", data=(1, 16, 5, 5)), "tile_c", (4, 5)),
        (
            Task.make("conv2d", data=(1, 16, 9, 9), weight=(16, 1, 3, 3), groups=16),
            "tile_c",
            (1, 17),
        ),
    ],
)
def test_knob_value_outside_the_space(task: Task, knob: str, value) -> None:
    with pytest.raises(SpaceError) as info:
        registry.instantiate(task, with_knob(task, **{knob: value}))
    msg = str(info.value)
    assert isinstance(info.value, ValueError)
    assert f"knob {knob!r}" in msg and repr(value) in msg and "valid" in msg, msg


def test_unknown_and_missing_knobs() -> None:
    with pytest.raises(SpaceError, match=r"unknown knob\(s\) \['tile_q'\]"):
        registry.instantiate(CONV, with_knob(CONV, tile_q=4))
    cfg = with_knob(DENSE)
    del cfg["tile_o"]
    with pytest.raises(SpaceError, match=r"missing knob\(s\) \['tile_o'\]"):
        registry.instantiate(DENSE, cfg)


# ---------------------------------------------------------------- task params
def check(task: Task) -> None:
    registry.instantiate(task, registry.default_config(task))


@pytest.mark.parametrize(
    ("task", "pattern"),
    [
        (Task.make("conv2d", weight=(16, 8, 3, 3)), r"missing param 'data'"),
        (Task.make("conv2d", data=(1, 8, 6, 6)), r"missing param 'weight'"),
        (
            Task.make("conv2d", data=(1, 8, 6, 6), weight=(16, 4, 3, 3)),
            r"weight \(16, 4, 3, 3\) does not match data channels 8",
        ),
        (
            Task.make("conv2d", data=(1, 8, 6, 6), weight=(16, 3, 3, 3), groups=2),
            r"weight .* does not match data channels 8 with groups=2",
        ),
        (
            Task.make("conv2d", data=(1, 8, 6, 6), weight=(16, 8, 3, 3), epilogue=("mish",)),
            r"epilogue 'mish': unknown kind",
        ),
        (
            Task.make("conv2d", data=(1, 8, 6, 6), weight=(16, 8, 3, 3), epilogue=("clip:0",)),
            r"epilogue 'clip:0': clip takes 2",
        ),
        (Task.make("conv3d", data=(1, 8, 6, 6, 6)), r"unknown op 'conv3d'"),
        (Task.make("dense", data=(2, 24)), r"missing param 'weight'"),
        (Task.make("dense", data=(2, 24), weight=(16, 23)), r"weight .* must have K = 24"),
        (
            Task.make("dense", data=(2, 24), weight=(16, 24), epilogue=("swish",)),
            r"epilogue 'swish'",
        ),
        # the int8 dense and conv check their operands as the float ones do
        (Task.make("dense_int8", data=(2, 24)), r"dense_int8: missing param 'weight'"),
        (
            Task.make("dense_int8", data=(2, 24), weight=(16, 23)),
            r"dense_int8: weight \(16, 23\) must have K = 24 columns like data \(2, 24\)",
        ),
        (
            Task.make("dense_int8", data=(2, 24, 1), weight=(16, 24)),
            r"dense_int8: data must be \(N, K\) and weight \(O, K\)",
        ),
        (
            Task.make("conv2d", data=(1, 8, 6, 6), weight=(16, 8, 3)),
            r"conv2d: data must be \(N, C, H, W\) and weight \(O, I, KH, KW\)",
        ),
        (
            Task.make("conv2d_int8", data=(1, 8, 6), weight=(16, 8, 3, 3)),
            r"conv2d_int8: data must be \(N, C, H, W\) and weight \(O, I, KH, KW\)",
        ),
        (
            Task.make("conv2d_int8", data=(1, 8, 6, 6), weight=(16, 8, 3, 3), strides=0),
            r"conv2d_int8: strides and dilation must be >= 1",
        ),
        (Task.make("pool2d", kind="max"), r"missing param 'data'"),
        (Task.make("pool2d", data=(1, 8, 6, 6), kind="min"), r"kind must be 'max' or 'avg'"),
        (Task.make("global_pool2d", data=(1, 8, 6)), r"data must be \(N, C, H, W\)"),
        (Task.make("matmul", a=(4, 5)), r"missing param 'b'"),
        (Task.make("matmul", a=(4, 5), b=(6, 7)), r"a \(4, 5\) columns must equal b \(6, 7\)"),
        (Task.make("batch_matmul", a=(2, 4, 5), b=(2, 4, 5), transpose_b=False), r"K differs"),
        (Task.make("layout_transform", shape=(1, 16, 4, 4), dst="NCHW8c"), r"'src'"),
        (
            Task.make("layout_transform", shape=(1, 12, 4, 4), src="NCHW", dst="NCHW8c"),
            r"not divisible by block 8",
        ),
        (Task.make("elementwise", fn="add"), r"missing param 'shapes'"),
        (Task.make("elementwise", fn="mish", shapes=[(3,)]), r"fn must be one of"),
        (Task.make("elementwise", fn="add", shapes=[(3,)]), r"'add' takes 2 input shape"),
        (Task.make("softmax", x=(3, 4)), r"missing param 'shape'"),
    ],
)
def test_bad_task_params(task: Task, pattern: str) -> None:
    with pytest.raises(TaskError, match=pattern):
        check(task)


def test_kernel_larger_than_input_is_a_task_error() -> None:
    with pytest.raises(TaskError, match="does not fit input size 3"):
        check(Task.make("conv2d", data=(1, 8, 3, 3), weight=(16, 8, 5, 5)))


def test_task_error_is_a_value_error() -> None:
    assert issubclass(TaskError, ValueError) and issubclass(SpaceError, ValueError)
    assert issubclass(ScheduleError, ValueError)


# ---------------------------------------------------------------- JSON round trips
EVERY_KIND = [
    S.Split("P", "i", (2, 4)),
    S.Reorder("P", ("k", "i.0")),
    S.Fuse("out", ("i", "j")),
    S.Vectorize("out", "j"),
    S.Unroll("P", "k"),
    S.Parallel("out", "i+j"),
    S.Pragma("P", "k", "auto_unroll_max_step", 16),
    S.Bind("out", "i", "threadIdx.x"),
    S.ComputeAt("P", "out", "i"),
    S.ComputeInline("X"),
    S.ComputeRoot("X"),
    S.CacheWrite("P", "local"),
    S.CacheRead("A", "shared", ("P", "Q")),
    S.RFactor("P", "k", 4),
]


def test_every_step_kind_round_trips() -> None:
    assert {s.kind for s in EVERY_KIND} == set(S.STEP_TYPES)
    text = json.dumps(S.steps_to_json(EVERY_KIND))
    back = S.steps_from_json(json.loads(text))
    assert back == EVERY_KIND
    assert [type(s) for s in back] == [type(s) for s in EVERY_KIND]
    assert [S.step_from_list(S.step_to_list(s)) for s in EVERY_KIND] == EVERY_KIND


def test_template_steps_round_trip_to_the_same_code() -> None:
    kdef = registry.instantiate(CONV, registry.default_config(CONV))
    back = S.steps_from_json(json.loads(json.dumps(S.steps_to_json(kdef.steps))))
    assert back == kdef.steps
    again = registry.instantiate(CONV, registry.default_config(CONV))
    target = parse_target("cpu -isa=avx2")
    code = emit_c(lower(Schedule(kdef.outputs, kdef.inputs).apply_all(kdef.steps)), target)
    code2 = emit_c(lower(Schedule(again.outputs, again.inputs).apply_all(back)), target)
    assert code == code2


def test_unknown_step_kind() -> None:
    with pytest.raises(ValueError, match=re.escape("unknown schedule step kind 'tile'")):
        S.step_from_json({"kind": "tile", "stage": "P"})
    with pytest.raises(ValueError, match="unknown schedule step kind None"):
        S.step_from_json({"stage": "P"})


def test_step_with_missing_field() -> None:
    with pytest.raises(ValueError, match="bad split step"):
        S.step_from_json({"kind": "split", "stage": "P", "axis": "i"})
