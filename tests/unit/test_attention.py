"""Fused attention: the `fuse_attention` pass on hand-made ONNX graphs (what it takes, what it
leaves alone), the attention kernel against its numpy reference across shapes and ISAs, and
a compiled network with an attention node against the interpreter on masked inputs."""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
import pytest
from onnx import helper
from test_onnx_import import make_model

from tunefarm.backends import registry
from tunefarm.compiler import compile_graph
from tunefarm.frontend.onnx_import import load_onnx
from tunefarm.graph.interpret import run_graph
from tunefarm.graph.ir import Graph
from tunefarm.graph.passes import fold_constants, fuse_attention, optimize, unfuse_attention
from tunefarm.ir import reference as R
from tunefarm.ir.evaluate import evaluate
from tunefarm.measure import Config, MeasureErrorNo, MeasureInput, MeasureSettings
from tunefarm.runtime.executor import GraphExecutor
from tunefarm.schedule.sketch_state import realise, sample
from tunefarm.task import Task, TaskError

RNG = np.random.default_rng(11)
B, H, S, D = 2, 3, 11, 8


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def _const(name: str, value: float) -> dict[str, np.ndarray]:
    return {name: np.array(value, np.float32)}


def attention_model(
    *,
    mask: tuple[int, ...] | None = (B, 1, 1, S),
    split_scale: bool = True,
    guard: bool = False,
    transpose_k: bool = False,
    rank: int = 4,
    softmax_axis: int = -1,
    extra_output: str | None = None,
    fill: bool = False,
    projections: bool = False,
):
    """q, k^T (or k through a Transpose), v -> scores -> [mask] -> softmax -> [guard] -> @ v,
    spelled as the exporters do."""
    lead = [B, H] if rank == 4 else [B * H]
    inputs = {"q": [*lead, S, D], "v": [*lead, S, D]}
    inputs["k" if transpose_k else "kt"] = [*lead, S, D] if transpose_k else [*lead, D, S]
    inits: dict[str, np.ndarray] = {}
    nodes = []
    if projections:  # q, K^T, v as transposes of [B, S, H, D] projections (legacy BERT)
        inputs = {f"{x}p": [B, S, H, D] for x in "qkv"}
        for x, perm in (("q", [0, 2, 1, 3]), ("kt", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
            nodes.append(helper.make_node("Transpose", [f"{x[0]}p"], [x], perm=perm))
    kt = "kt"
    if transpose_k:
        perm = [*range(rank - 2), rank - 1, rank - 2]
        nodes.append(helper.make_node("Transpose", ["k"], ["kt"], perm=perm))
    if split_scale:  # sqrt of the scale on each side, as both exporters write it
        inits |= _const("c", D**-0.25)
        nodes += [
            helper.make_node("Mul", ["q", "c"], ["qs"]),
            helper.make_node("Mul", [kt, "c"], ["ks"]),
            helper.make_node("MatMul", ["qs", "ks"], ["s"]),
        ]
    else:
        inits |= _const("c", math.sqrt(D))
        nodes += [
            helper.make_node("MatMul", ["q", kt], ["s0"]),
            helper.make_node("Div", ["s0", "c"], ["s"]),
        ]
    logits = "s"
    if mask is not None and fill:  # a masked fill, as zoo bert's odd layers write it
        inputs["mask"] = list(mask)
        inits |= _const("lowest", float(np.finfo(np.float32).min)) | _const("zero", 0.0)
        nodes += [
            helper.make_node("Equal", ["mask", "zero"], ["cond"]),
            helper.make_node("Where", ["cond", "lowest", "s"], ["t"]),
        ]
        logits = "t"
    elif mask is not None:
        inputs["mask"] = list(mask)
        nodes.append(helper.make_node("Add", ["s", "mask"], ["t"]))
        logits = "t"
    nodes.append(helper.make_node("Softmax", [logits], ["p"], axis=softmax_axis))
    probs = "p"
    if guard:
        inits |= _const("zero", 0.0)
        nodes += [
            helper.make_node("IsNaN", ["p"], ["nan"]),
            helper.make_node("Where", ["nan", "zero", "p"], ["pg"]),
        ]
        probs = "pg"
    if projections:  # the output transposed back to [B, S, H, D]
        nodes.append(helper.make_node("MatMul", [probs, "v"], ["o"]))
        nodes.append(helper.make_node("Transpose", ["o"], ["y"], perm=[0, 2, 1, 3]))
    else:
        nodes.append(helper.make_node("MatMul", [probs, "v"], ["y"]))
    outputs = ["y", *([extra_output] if extra_output else [])]
    return load_onnx(make_model(nodes, inputs, outputs, inits, opset=17))


def feeds_of(graph: Graph, masked_rows: bool = False) -> dict[str, np.ndarray]:
    feeds = {v.name: rand(*v.shape) for v in graph.inputs}
    if "mask" in feeds:
        m = np.where(RNG.random(feeds["mask"].shape) < 0.3, -np.inf, 0.0).astype(np.float32)
        if masked_rows:
            m[..., :] = 0.0
            m[0, ..., :] = -np.inf  # every key of batch 0 masked: softmax is NaN there
        feeds["mask"] = m
    return feeds


def attention_nodes(graph: Graph) -> list:
    return [n for n in graph.nodes if n.op == "attention"]


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"split_scale": False, "mask": None},
        {"guard": True},
        {"transpose_k": True},
        {"rank": 3, "mask": (S, S)},
        {"mask": (1, H, S, S)},
        {"mask": (S,)},
        {"fill": True},
    ],
    ids=[
        "legacy",
        "div_scale",
        "nan_guard",
        "transposed_k",
        "3d_causal",
        "head_bias",
        "1d",
        "masked_fill",
    ],  # fmt: skip
)
def test_pass_replaces_attention_and_keeps_outputs(kw: dict[str, Any]) -> None:
    before = fold_constants(attention_model(**kw))
    after = fuse_attention(before)
    (node,) = attention_nodes(after)
    assert {n.op for n in after.nodes} <= {"attention", "reshape", "where", "equal"}
    assert node.attrs["scale"] == pytest.approx(1 / math.sqrt(D), rel=1e-6)
    assert node.attrs["k_layout"] == ("BHSD" if kw.get("transpose_k") else "BHDS")
    assert len(node.inputs) == (3 if kw.get("mask", 1) is None else 4)
    feeds = feeds_of(before)
    want, got = run_graph(before, feeds), run_graph(after, feeds)
    np.testing.assert_allclose(got["y"], want["y"], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "kw",
    [
        {"softmax_axis": 2},  # not the key axis
        {"extra_output": "p"},  # the probabilities are an output too
        {"extra_output": "s"},  # so are the scores
        {"mask": (B, 1, S, 1)},  # a mask broadcast along the keys
    ],
    ids=["axis", "probs_output", "scores_output", "mask_along_keys"],
)
def test_pass_leaves_other_graphs_alone(kw: dict[str, Any]) -> None:
    before = fold_constants(attention_model(**kw))
    assert fuse_attention(before) is before


def test_non_scalar_scale_is_left_alone() -> None:
    nodes = [
        helper.make_node("MatMul", ["q", "kt"], ["s"]),
        helper.make_node("Mul", ["s", "c"], ["t"]),
        helper.make_node("Softmax", ["t"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["y"]),
    ]
    inputs = {"q": [1, H, S, D], "kt": [1, H, D, S], "v": [1, H, S, D]}
    g = load_onnx(make_model(nodes, inputs, ["y"], {"c": rand(S)}, opset=17))
    assert not attention_nodes(optimize(g))


def test_pass_reads_the_projections_through_their_transposes() -> None:
    before = fold_constants(attention_model(projections=True))
    after = fuse_attention(before)
    (node,) = attention_nodes(after)
    assert [n.op for n in after.nodes] == ["attention"]
    assert {k: v for k, v in node.attrs.items() if k.endswith("_layout")} == {
        "q_layout": "BSHD", "k_layout": "BSHD", "v_layout": "BSHD", "out_layout": "BSHD"
    }  # fmt: skip
    feeds = feeds_of(before)
    np.testing.assert_allclose(run_graph(after, feeds)["y"], run_graph(before, feeds)["y"],
                               rtol=1e-5, atol=1e-5)  # fmt: skip
    back = unfuse_attention(after)
    np.testing.assert_allclose(run_graph(back, feeds)["y"], run_graph(before, feeds)["y"],
                               rtol=1e-5, atol=1e-5)  # fmt: skip


def test_optimize_can_leave_attention_out() -> None:
    g = attention_model()
    assert len(attention_nodes(optimize(g))) == 1
    assert not attention_nodes(optimize(g, attention=False))


def test_compiled_attention_matches_the_interpreter_with_masked_rows(tmp_path) -> None:
    """-inf masks, a batch whose every key is masked (the guard writes 0), both K layouts."""
    for i, kw in enumerate([{"guard": True}, {"guard": True, "transpose_k": True}]):
        g = attention_model(**kw)
        feeds = feeds_of(g, masked_rows=True)
        want = run_graph(g, feeds)["y"]
        assert np.all(want[0] == 0) and np.isfinite(want).all()
        compile_graph(g, "cpu").save(tmp_path / f"n{i}.tfa")
        got = GraphExecutor.load(tmp_path / f"n{i}.tfa").run(feeds)["y"]
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- the kernel
def task(q, k, v, mask=None, scale=0.3, layout="BHDS", target="cpu", **layouts) -> Task:
    extra = {"mask": mask} if mask is not None else {}
    return Task.make("attention", target=target, q=q, k=k, v=v, scale=scale, k_layout=layout,
                     **extra, **layouts)  # fmt: skip


KERNELS: dict[str, Task] = {
    "bert_like": task((1, 2, 16, 16), (1, 2, 16, 16), (1, 2, 16, 16), (1, 1, 1, 16)),
    "odd_seq": task((2, 3, 13, 8), (2, 3, 8, 13), (2, 3, 13, 8), (2, 1, 1, 13)),
    "vit_like_no_mask": task((1, 2, 37, 16), (1, 2, 16, 37), (1, 2, 37, 16)),
    "causal_full_mask": task(
        (1, 2, 7, 24), (1, 2, 7, 24), (1, 2, 7, 24), (1, 2, 7, 7), layout="BHSD"
    ),  # fmt: skip
    "cross_seq": task((1, 1, 5, 12), (1, 1, 12, 29), (1, 1, 29, 12), (1, 1, 5, 29)),
    # 71 keys: 9 vectors of 8 or 5 of 16; tiles of 4 end in a peeled tail tile of 1
    "tail_tile": task((1, 2, 21, 16), (1, 2, 16, 71), (1, 2, 71, 16), (1, 1, 21, 71)),
    "one_row": task((1, 1, 1, 20), (1, 1, 20, 3), (1, 1, 3, 20)),
    # the projections' own [B, S, H, D] layout in and out (what legacy BERT fuses to)
    "bshd": task(
        (2, 9, 3, 8),
        (2, 9, 3, 8),
        (2, 9, 3, 8),
        (2, 1, 1, 9),
        layout="BSHD",
        q_layout="BSHD",
        v_layout="BSHD",
        out_layout="BSHD",
    ),  # fmt: skip
    "bshd_q_out_only": task(
        (1, 19, 2, 16),
        (1, 2, 16, 19),
        (1, 2, 19, 16),
        (1, 1, 19, 19),
        q_layout="BSHD",
        out_layout="BSHD",
    ),  # fmt: skip
}
TARGETS = ("cpu -isa=avx2", "cpu")
CHECK = MeasureSettings(min_repeat_ms=1, repeat=1, number=1, timeout_s=30.0, rtol=0.0,
                        atol_rel=2e-5)  # fmt: skip


def _configs(t: Task) -> list[Config]:
    """The default and two corner configs (smallest and largest tiles)."""
    space = registry.config_space(t)
    corners = [Config.make({k: kn.entities[i] for k, kn in space.knobs.items()}) for i in (0, -1)]
    return [registry.default_config(t), *corners]


@pytest.fixture(scope="module")
def kernel_results(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Any]:
    inputs, keys = [], []
    for name, t in KERNELS.items():
        for target in TARGETS:
            tt = Task(t.op, t.params, target)
            for cfg in _configs(tt):
                inputs.append(MeasureInput(tt, cfg))
                keys.append((name, target))
    cache = tmp_path_factory.mktemp("attention-build")
    n = min(4, os.cpu_count() or 1)
    with registry.local_builder(n_parallel=n, timeout_s=120, cache_dir=cache) as b:
        builds = b.build(inputs)
    with registry.local_runner(CHECK) as runner:
        results = runner.run(inputs, builds)
    out: dict[tuple[str, str], list] = {}
    for key, inp, res in zip(keys, inputs, results, strict=True):
        out.setdefault(key, []).append((inp.config, res))
    return out


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", list(KERNELS))
def test_kernel_matches_reference(kernel_results, name: str, target: str) -> None:
    bad = [
        f"{cfg}: {res.error_no.name}: {res.error_msg[:300]}"
        for cfg, res in kernel_results[name, target]
        if res.error_no != MeasureErrorNo.NO_ERROR
    ]
    assert not bad, bad


def _oracle(q, k, v, mask, scale, layout) -> np.ndarray:
    kt = k if layout == "BHDS" else np.swapaxes(k, -1, -2)
    s = (q.astype(np.float64) @ kt) * scale + (0 if mask is None else mask)
    with np.errstate(invalid="ignore"):  # a fully masked row is NaN here
        e = np.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ v


@pytest.mark.parametrize("name", list(KERNELS))
def test_reference_and_compute_definition_match_an_oracle(name: str) -> None:
    t = KERNELS[name]
    tpl = registry.template(t)
    xs = registry.random_inputs(t, seed=2)
    a = t.args

    def bhsd(x: np.ndarray, what: str) -> np.ndarray:
        return np.swapaxes(x, 1, 2) if a.get(f"{what}_layout") == "BSHD" else x

    k = np.swapaxes(xs["k"], 1, 2) if a["k_layout"] == "BSHD" else xs["k"]
    layout = "BHSD" if a["k_layout"] == "BSHD" else a["k_layout"]
    want = _oracle(bhsd(xs["q"], "q"), k, bhsd(xs["v"], "v"), xs.get("mask"), a["scale"], layout)
    want = bhsd(want, "out")
    np.testing.assert_allclose(tpl.reference(t, xs), want, rtol=1e-5, atol=1e-6)
    kdef = registry.instantiate(t, registry.default_config(t))
    got = evaluate(kdef.outputs, {x.name: xs[x.name] for x in kdef.inputs})[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_reference_gives_zero_for_a_fully_masked_row() -> None:
    q, kt, v = rand(1, 1, 2, 4), rand(1, 1, 4, 3), rand(1, 1, 3, 4)
    mask = np.array([[[[-np.inf] * 3, [0, -np.inf, 0]]]], np.float32)
    out = R.attention(q, kt, v, mask, 0.5)
    assert np.all(out[0, 0, 0] == 0) and np.isfinite(out).all()
    np.testing.assert_allclose(out[0, 0, 1], _oracle(q, kt, v, mask, 0.5, "BHDS")[0, 0, 1],
                               rtol=1e-6)  # fmt: skip


def test_space_and_flops() -> None:
    t = KERNELS["odd_seq"]
    sp = registry.config_space(t)
    assert set(sp.knobs) == {"tile_n", "tile_o", "tile_d"}
    assert len(sp) > 1
    assert registry.flops(t) == 2 * 3 * 13 * 13 * (4 * 8 + 6)


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"q": (1, 2, 4, 8), "k": (1, 2, 8, 5), "v": (1, 2, 6, 8)}, ["v", "[1, 2, 5, 8]"]),
        (
            {"q": (1, 2, 4, 8), "k": (1, 2, 8, 5), "v": (1, 2, 5, 8), "mask": (1, 1, 1, 4)},
            ["mask", "Sk = 5"],
        ),  # fmt: skip
        (
            {"q": (1, 2, 4, 8), "k": (1, 2, 8, 5), "v": (1, 2, 5, 8), "k_layout": "SD"},
            ["k_layout"],
        ),  # fmt: skip
        ({"q": (1, 2, 4, 8), "v": (1, 2, 5, 8)}, ["missing", "'k'"]),
        ({"q": (1, 2, 4, 8), "k": (1, 2, 8, 5), "v": (1, 2, 5, 8), "scale": "x"}, ["scale"]),
    ],
)
def test_bad_params_name_the_param(params: dict[str, Any], words: list[str]) -> None:
    t = Task.make("attention", **params)
    with pytest.raises(TaskError) as err:
        registry.template(t).validate(t)
    for w in words:
        assert w in str(err.value)


@pytest.mark.parametrize("kw", [{"guard": True}, {"transpose_k": True, "mask": None}])
def test_unfused_attention_computes_the_same(kw: dict[str, Any]) -> None:
    """Targets without an attention kernel (GPUs) get the primitive ops back."""
    fused = optimize(attention_model(**kw))
    back = unfuse_attention(fused)
    assert attention_nodes(fused) and not attention_nodes(back)
    feeds = feeds_of(fused, masked_rows=True)
    want, got = run_graph(fused, feeds), run_graph(back, feeds)
    np.testing.assert_allclose(got["y"], want["y"], rtol=1e-5, atol=1e-6)
    plan = compile_graph(fused, "cuda", optimized=True).plan  # no cuda attention kernel
    assert not any("attention" in k.name for k in plan.kernels)


def test_sketch_policy_derives_correct_schedules(tmp_path) -> None:
    """The sketch policy derives schedules from the compute definition alone; samples of
    several sketches build and match the reference."""
    t = KERNELS["odd_seq"]
    t = Task(t.op, t.params, "cpu -isa=avx2")
    sketches, params = registry.sketches(t)
    assert len(sketches) >= 2
    rng = np.random.default_rng(0)
    inputs = [
        MeasureInput(t, registry.sketch_config(realise(s, sample(s, params, rng))))
        for s in sketches[:4]
    ]
    with registry.local_builder(n_parallel=2, timeout_s=120, cache_dir=tmp_path) as b:
        builds = b.build(inputs)
    with registry.local_runner(CHECK) as runner:
        results = runner.run(inputs, builds)
    bad = [f"{r.error_no.name}: {r.error_msg[:200]}" for r in results if not r.ok]
    assert not bad, bad
