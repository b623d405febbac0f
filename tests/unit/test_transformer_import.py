"""Transformers end to end: the ONNX ops BERT exporters emit, imported with run-time
(non-constant) inputs, checked in the numpy interpreter and compiled against ONNX Runtime;
the layer-norm / GELU / reshape-hoisting passes; bad forms as FrontendErrors naming the node;
and bert-tiny from the zoo through import, compile and the CLI.

Models are built with onnx.helper (no torch): one node (or a few) per test.
"""

from __future__ import annotations

import json
import math

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from tunefarm.cli.main import main
from tunefarm.compiler import compile_graph
from tunefarm.frontend import zoo
from tunefarm.frontend.onnx_import import FrontendError, load_onnx
from tunefarm.graph.interpret import run_graph
from tunefarm.graph.ir import random_inputs
from tunefarm.graph.passes import optimize
from tunefarm.runtime.executor import GraphExecutor

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def model(nodes, inputs, outputs, inits=(), opset: int = 17) -> onnx.ModelProto:
    """inputs / outputs: (name, elem type, shape) triples; inits: name -> array."""
    graph = helper.make_graph(
        nodes,
        "t",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        initializer=[numpy_helper.from_array(np.asarray(a), n) for n, a in dict(inits).items()],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def feeds_for(m: onnx.ModelProto, seed: int = 0) -> dict[str, np.ndarray]:
    """Floats in [-2, 2), int64 in [-3, 3] for each graph input of `m`."""
    rng = np.random.default_rng(seed)
    out = {}
    for vi in m.graph.input:
        shape = [d.dim_value for d in vi.type.tensor_type.shape.dim]
        if vi.type.tensor_type.elem_type == I64:
            out[vi.name] = rng.integers(-3, 4, shape).astype(np.int64)
        else:
            out[vi.name] = rng.uniform(-2, 2, shape).astype(np.float32)
    return out


def ort_run(m: onnx.ModelProto, feeds: dict) -> dict[str, np.ndarray]:
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in m.graph.output]
    return dict(zip(names, sess.run(names, feeds), strict=True))


def check_interpreted(m: onnx.ModelProto, feeds=None, rtol: float = 1e-5) -> None:
    """Imported and optimised graphs, in the interpreter, against ONNX Runtime."""
    feeds = feeds or feeds_for(m)
    want = ort_run(m, feeds)
    g = load_onnx(m)
    for graph in (g, optimize(g)):
        got = run_graph(graph, feeds)
        for name, w in want.items():
            np.testing.assert_allclose(got[name], w, rtol=rtol, atol=rtol * max(1, abs(w).max()))


# ---------------------------------------------------------------- each handler
def _gelu_nodes(x: str, out: str, torch_order: bool) -> list[onnx.NodeProto]:
    d, e, a, h = (f"{out}_{k}" for k in "deah")
    if torch_order:  # (x * 0.5) * (1 + erf(x / sqrt2))
        return [
            helper.make_node("Div", [x, "sqrt2"], [d]),
            helper.make_node("Erf", [d], [e]),
            helper.make_node("Add", [e, "one"], [a]),
            helper.make_node("Mul", [x, "half"], [h]),
            helper.make_node("Mul", [h, a], [out]),
        ]
    return [  # (x * (1 + erf(x * (1/sqrt2)))) * 0.5
        helper.make_node("Mul", ["inv_sqrt2", x], [d]),
        helper.make_node("Erf", [d], [e]),
        helper.make_node("Add", ["one", e], [a]),
        helper.make_node("Mul", [x, a], [h]),
        helper.make_node("Mul", [h, "half"], [out]),
    ]


GELU_CONSTS = {
    "sqrt2": np.float32(math.sqrt(2)),
    "inv_sqrt2": np.float32(1 / math.sqrt(2)),
    "one": np.float32(1),
    "half": np.float32(0.5),
}


@pytest.mark.parametrize("torch_order", [True, False])
def test_erf_gelu_imports_and_fuses_into_one_op(torch_order: bool) -> None:
    m = model(
        _gelu_nodes("x", "y", torch_order), [("x", F, [3, 7])], [("y", F, [3, 7])], GELU_CONSTS
    )
    check_interpreted(m)
    assert optimize(load_onnx(m)).op_counts() == {"gelu": 1}


def test_unary_ops_tanh_sqrt_pow() -> None:
    nodes = [
        helper.make_node("Tanh", ["x"], ["t"]),
        helper.make_node("Pow", ["t", "two"], ["p"]),
        helper.make_node("Sqrt", ["p"], ["y"]),
        helper.make_node("Pow", ["x", "one"], ["z"]),
    ]
    m = model(
        nodes,
        [("x", F, [2, 5])],
        [("y", F, [2, 5]), ("z", F, [2, 5])],
        {"two": np.float32(2), "one": np.float32(1)},
    )
    check_interpreted(m)
    assert load_onnx(m).op_counts() == {"tanh": 1, "square": 1, "sqrt": 1, "reshape": 1}


@pytest.mark.parametrize(
    ("axis", "scale_shape", "bias"), [(-1, [6], True), (1, [1, 6], False), (1, [5, 6], True)]
)
def test_layer_normalization(axis: int, scale_shape: list[int], bias: bool) -> None:
    rng = np.random.default_rng(1)
    inits = {"g": rng.uniform(0.5, 1.5, scale_shape).astype(np.float32)}
    ins = ["x", "g"]
    if bias:
        inits["b"] = rng.uniform(-1, 1, [6]).astype(np.float32)
        ins.append("b")
    node = helper.make_node("LayerNormalization", ins, ["y"], axis=axis, epsilon=1e-3)
    m = model([node], [("x", F, [2, 5, 6])], [("y", F, [2, 5, 6])], inits)
    check_interpreted(m)
    assert load_onnx(m).op_counts() == {"layer_norm": 1}


def test_decomposed_layer_norm_fuses() -> None:
    """The ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add form of opsets below 17."""
    rng = np.random.default_rng(2)
    nodes = [
        helper.make_node("ReduceMean", ["x"], ["m"], axes=[-1]),
        helper.make_node("Sub", ["x", "m"], ["d"]),
        helper.make_node("Pow", ["d", "two"], ["p"]),
        helper.make_node("ReduceMean", ["p"], ["v"], axes=[-1]),
        helper.make_node("Add", ["v", "eps"], ["ve"]),
        helper.make_node("Sqrt", ["ve"], ["s"]),
        helper.make_node("Div", ["d", "s"], ["n"]),
        helper.make_node("Mul", ["n", "g"], ["ng"]),
        helper.make_node("Add", ["ng", "b"], ["y"]),
    ]
    inits = {
        "two": np.float32(2),
        "eps": np.float32(1e-5),
        "g": rng.uniform(0.5, 1.5, [9]).astype(np.float32),
        "b": rng.uniform(-1, 1, [9]).astype(np.float32),
    }
    m = model(nodes, [("x", F, [2, 3, 9])], [("y", F, [2, 3, 9])], inits, opset=13)
    check_interpreted(m)
    assert optimize(load_onnx(m)).op_counts() == {"layer_norm": 1}


def test_gather_embedding_and_pick_along_an_axis() -> None:
    """Run-time int64 ids into a constant table (negative ids count from the end), and a
    constant scalar index into a run-time tensor (BERT's pooler), and 1-D constant ones."""
    table = np.random.default_rng(3).standard_normal((11, 4)).astype(np.float32)
    nodes = [
        helper.make_node("Gather", ["table", "ids"], ["e"]),
        helper.make_node("Gather", ["e", "zero"], ["first"], axis=1),
        helper.make_node("Gather", ["e", "picks"], ["picked"], axis=-1),
    ]
    m = model(
        nodes,
        [("ids", I64, [2, 3])],
        [("e", F, [2, 3, 4]), ("first", F, [2, 4]), ("picked", F, [2, 3, 2])],
        {"table": table, "zero": np.int64(0), "picks": np.array([3, -4], np.int64)},
    )
    check_interpreted(m)


def test_slice_of_runtime_values() -> None:
    """Constant bounds, negative and clamped ones, several axes; a no-op slice is an alias."""
    nodes = [
        helper.make_node("Slice", ["x", "s", "e", "a"], ["y"]),
        helper.make_node("Slice", ["x", "s0", "e0"], ["z"]),
    ]
    inits = {
        "s": np.array([1, -3], np.int64),
        "e": np.array([100, -1], np.int64),
        "a": np.array([0, 2], np.int64),
        "s0": np.array([0], np.int64),
        "e0": np.array([9], np.int64),
    }
    m = model(nodes, [("x", F, [3, 4, 5])], [("y", F, [2, 4, 2]), ("z", F, [3, 4, 5])], inits)
    check_interpreted(m)
    assert load_onnx(m).op_counts() == {"slice": 2, "reshape": 1}


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_op_of_opset_20(approximate: str) -> None:
    node = helper.make_node("Gelu", ["x"], ["y"], approximate=approximate)
    m = model([node], [("x", F, [4, 6])], [("y", F, [4, 6])], opset=20)
    check_interpreted(m)


def test_mask_arithmetic_on_int64_inputs() -> None:
    """Unsqueeze/Cast/Sub/Mul and Equal/Not/Cast(bool)/Expand/Where on a run-time int64
    attention mask, both as exporters write them."""
    nodes = [
        helper.make_node("Unsqueeze", ["mask", "ax1"], ["m3"]),
        helper.make_node("Cast", ["m3"], ["mf"], to=F),
        helper.make_node("Sub", ["one", "mf"], ["inv"]),
        helper.make_node("Mul", ["inv", "neg"], ["additive"]),
        helper.make_node("Add", ["scores", "additive"], ["s1"]),
        helper.make_node("Equal", ["m3", "zero"], ["is0"]),
        helper.make_node("Not", ["is0"], ["keep"]),
        helper.make_node("Cast", ["keep"], ["keepf"], to=F),
        helper.make_node("Cast", ["mf"], ["mb"], to=TensorProto.BOOL),
        helper.make_node("Expand", ["is0", "full"], ["is0_full"]),
        helper.make_node("Where", ["is0_full", "low", "s1"], ["s2"]),
        helper.make_node("Where", ["mb", "s2", "low"], ["s3"]),
        helper.make_node("Mul", ["s3", "keepf"], ["y"]),
    ]
    inits = {
        "ax1": np.array([1], np.int64),
        "one": np.float32(1),
        "neg": np.float32(-10000),
        "zero": np.int64(0),
        "full": np.array([2, 5, 4], np.int64),
        "low": np.float32(np.finfo(np.float32).min),
    }
    m = model(
        nodes, [("mask", I64, [2, 4]), ("scores", F, [2, 5, 4])], [("y", F, [2, 5, 4])], inits
    )
    feeds = feeds_for(m)
    feeds["mask"] = np.random.default_rng(4).integers(0, 2, (2, 4)).astype(np.int64)
    check_interpreted(m, feeds)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ([2, 3, 5, 4], [2, 3, 4, 6]),
        ([2, 1, 5, 4], [1, 3, 4, 6]),
        ([5, 4], [2, 4, 3]),
        ([4], [2, 4, 3]),
        ([2, 5, 4], [4]),
    ],
)
def test_matmul_nd_broadcast_compiled(a: list[int], b: list[int], tmp_path) -> None:
    """N-D matmuls (1-D operands as numpy treats them) in the interpreter and compiled."""
    out = np.matmul(np.zeros(a), np.zeros(b)).shape
    m = model(
        [helper.make_node("MatMul", ["a", "b"], ["y"])],
        [("a", F, a), ("b", F, b)],
        [("y", F, list(out))],
    )
    check_interpreted(m)
    compile_graph(load_onnx(m), "cpu").save(tmp_path / "m.tfa")
    feeds = feeds_for(m, 1)
    got = GraphExecutor.load(tmp_path / "m.tfa").run(feeds)["y"]
    np.testing.assert_allclose(got, ort_run(m, feeds)["y"], rtol=1e-5, atol=1e-5)


def test_transformer_ops_compile_and_match_onnxruntime(tmp_path) -> None:
    """One network holding every new op on run-time values, compiled with default configs:
    embedding gather, mask arithmetic, 4-D matmul with a broadcast batch, softmax on the last
    axis, both layer norm forms, GELU after a 3-D MatMul by a weight, tanh."""
    rng = np.random.default_rng(5)
    w = rng.standard_normal((8, 8)).astype(np.float32) * 0.3
    nodes = [
        helper.make_node("Gather", ["table", "ids"], ["e"]),  # [2, 3, 8]
        helper.make_node("LayerNormalization", ["e", "g", "b"], ["n"], epsilon=1e-5),
        helper.make_node("MatMul", ["n", "w"], ["h0"]),
        helper.make_node("Add", ["h0", "b"], ["h1"]),
        *_gelu_nodes("h1", "h", True),
        helper.make_node("Reshape", ["h", "heads"], ["h4"]),  # [2, 3, 2, 4]
        helper.make_node("Transpose", ["h4"], ["q"], perm=[0, 2, 1, 3]),  # [2, 2, 3, 4]
        helper.make_node("Transpose", ["h4"], ["k"], perm=[0, 2, 3, 1]),  # [2, 2, 4, 3]
        helper.make_node("MatMul", ["q", "k"], ["s"]),  # [2, 2, 3, 3]
        helper.make_node("Unsqueeze", ["mask", "ax12"], ["m4"]),  # [2, 1, 1, 3]
        helper.make_node("Equal", ["m4", "zero"], ["is0"]),
        helper.make_node("Expand", ["is0", "sshape"], ["is0x"]),
        helper.make_node("Where", ["is0x", "low", "s"], ["sm"]),
        helper.make_node("Softmax", ["sm"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "shared_v"], ["c"]),  # [2,2,3,3] x [1,2,3,4]
        helper.make_node("ReduceMean", ["c"], ["mu"], axes=[-1]),
        helper.make_node("Sub", ["c", "mu"], ["dc"]),
        helper.make_node("Pow", ["dc", "two"], ["dc2"]),
        helper.make_node("ReduceMean", ["dc2"], ["var"], axes=[-1]),
        helper.make_node("Add", ["var", "eps"], ["ve"]),
        helper.make_node("Sqrt", ["ve"], ["sd"]),
        helper.make_node("Div", ["dc", "sd"], ["y0"]),
        helper.make_node("Tanh", ["y0"], ["y1"]),
        helper.make_node("Slice", ["y1", "one_i", "two_i", "three_i"], ["y"]),  # seq 1..2
    ]
    inits = {
        "table": rng.standard_normal((13, 8)).astype(np.float32),
        "g": rng.uniform(0.5, 1.5, [8]).astype(np.float32),
        "b": rng.uniform(-0.5, 0.5, [8]).astype(np.float32),
        "w": w,
        "heads": np.array([2, 3, 2, 4], np.int64),
        "ax12": np.array([1, 2], np.int64),
        "zero": np.int64(0),
        "sshape": np.array([2, 2, 3, 3], np.int64),
        "low": np.float32(np.finfo(np.float32).min),
        "shared_v": rng.standard_normal((1, 2, 3, 4)).astype(np.float32),
        "two": np.float32(2),
        "eps": np.float32(1e-5),
        "one_i": np.array([1], np.int64),
        "two_i": np.array([2], np.int64),
        "three_i": np.array([2], np.int64),
        **GELU_CONSTS,
    }
    m = model(nodes, [("ids", I64, [2, 3]), ("mask", I64, [2, 3])], [("y", F, [2, 2, 1, 4])], inits)
    g = load_onnx(m)
    counts = optimize(g).op_counts()
    assert counts["layer_norm"] == 2 and "erf" not in counts and "reduce_mean" not in counts
    feeds = {
        "ids": np.array([[0, 12, -1], [5, 5, 7]], np.int64),
        "mask": np.array([[1, 1, 0], [1, 0, 0]], np.int64),
    }
    compile_graph(g, "cpu").save(tmp_path / "t.tfa")
    got = GraphExecutor.load(tmp_path / "t.tfa").run(feeds)["y"]
    np.testing.assert_allclose(got, ort_run(m, feeds)["y"], rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------- bad forms
BAD = {
    "pow4": (
        [helper.make_node("Pow", ["x", "four"], ["y"], name="cube")],
        {"four": np.float32(4)},
        ["'cube' (Pow)", "exponent 4"],
        (F, [3, 4]),
    ),
    "ln_mean_output": (
        [helper.make_node("LayerNormalization", ["x", "g"], ["y", "mean"], name="ln")],
        {"g": np.ones(4, np.float32)},
        ["'ln' (LayerNormalization)", "Mean and InvStdDev"],
        (F, [3, 4]),
    ),
    "ln_bad_scale": (
        [helper.make_node("LayerNormalization", ["x", "g"], ["y"], name="ln2", axis=0)],
        {"g": np.ones(3, np.float32)},
        ["'ln2' (LayerNormalization)", "normalised shape [3, 4]"],
        (F, [3, 4]),
    ),
    "gather_out_of_range": (
        [helper.make_node("Gather", ["x", "i"], ["y"], name="pick", axis=1)],
        {"i": np.array([4], np.int64)},
        ["'pick' (Gather)", "index 4 is out of range"],
        (F, [3, 1]),
    ),
    "expand_bad": (
        [helper.make_node("Expand", ["x", "s"], ["y"], name="grow")],
        {"s": np.array([5, 4], np.int64)},
        ["'grow' (Expand)", "cannot expand"],
        (F, [5, 4]),
    ),
}


@pytest.mark.parametrize("case", list(BAD))
def test_unsupported_forms_name_the_node(case: str) -> None:
    nodes, inits, words, (dtype, shape) = BAD[case]
    m = model(nodes, [("x", F, [3, 4])], [("y", dtype, shape)], inits)
    with pytest.raises(FrontendError) as err:
        load_onnx(m)
    for word in words:
        assert word in str(err.value)


def test_random_ids_follow_reshapes_to_their_table() -> None:
    """Random token ids span the table a gather reads them through a reshape from."""
    nodes = [
        helper.make_node("Unsqueeze", ["ids", "ax"], ["ids2"]),
        helper.make_node("Gather", ["table", "ids2"], ["y"]),
    ]
    inits = {"table": np.zeros((50, 3), np.float32), "ax": np.array([0], np.int64)}
    m = model(nodes, [("ids", I64, [2, 64])], [("y", F, [1, 2, 64, 3])], inits)
    ids = random_inputs(load_onnx(m), 3)["ids"]
    assert ids.min() >= 0 and 2 < ids.max() < 50


def test_int32_ids_and_int_outputs() -> None:
    """int32 token ids work like int64 ones (the gather kernel takes their dtype); an
    integer graph output keeps its type."""
    table = np.random.default_rng(6).standard_normal((9, 3)).astype(np.float32)
    m = model(
        [helper.make_node("Gather", ["table", "ids"], ["y"])],
        [("ids", TensorProto.INT32, [4])],
        [("y", F, [4, 3])],
        {"table": table},
    )
    check_interpreted(m, {"ids": np.array([0, 8, -1, 3], np.int32)})
    net = compile_graph(load_onnx(m), "cpu")
    assert [b.dtype for b in net.plan.buffers if b.kind == "input"] == ["int32"]
    ids = helper.make_node("Unsqueeze", ["ids", "ax"], ["y"], name="keep_ids")
    m = model([ids], [("ids", I64, [4])], [("y", I64, [1, 4])], {"ax": np.array([0], np.int64)})
    ids = np.array([1, 5, 2, 0], np.int64)
    assert run_graph(load_onnx(m), {"ids": ids})["y"].tolist() == [ids.tolist()]


def test_int_input_arithmetic_gives_exact_int_output() -> None:
    """Integers computed at run time are float32 values; an int64 output is cast back."""
    node = helper.make_node("Add", ["ids", "ids"], ["y"], name="addids")
    m = model([node], [("ids", I64, [2])], [("y", I64, [2])])
    graph = load_onnx(m)
    got = run_graph(graph, {"ids": np.array([3, -7], np.int64)})["y"]
    assert got.dtype == np.int64 and got.tolist() == [6, -14]


# ---------------------------------------------------------------- bert-tiny
@pytest.fixture(scope="module")
def bert_tiny() -> onnx.ModelProto:
    return zoo.build("bert-tiny", batch=2, image_size=24)


def test_bert_tiny_imports_and_matches_onnxruntime_in_the_interpreter(bert_tiny) -> None:
    g = load_onnx(bert_tiny)
    assert [v.dtype for v in g.inputs] == ["int64"] * 3
    feeds = random_inputs(g, 0)
    assert 0 <= feeds["input_ids"].min() and feeds["input_ids"].max() < 30522
    assert set(np.unique(feeds["attention_mask"])) <= {0, 1}
    opt = optimize(g)
    counts = opt.op_counts()
    # 2 layers x 2 + embeddings, the odd layer's from the decomposed form; GELU in the dense
    assert counts["layer_norm"] == 5 and "reduce_mean" not in counts and "erf" not in counts
    epilogues = [n.attrs["epilogue"] for n in opt.nodes if n.op == "dense"]
    assert epilogues.count(["bias", "gelu"]) == 2 and epilogues.count(["bias", "residual"]) == 4
    want = ort_run(bert_tiny, feeds)
    for graph in (g, opt):
        got = run_graph(graph, feeds)
        for name, w in want.items():
            np.testing.assert_allclose(got[name], w, rtol=1e-4, atol=1e-4 * abs(w).max())


def test_named_dynamic_dims_fill_from_one_input_shape(bert_tiny) -> None:
    """An export with dynamic ("batch", "sequence") dims: one input's shape fixes every
    input that names its dims alike; a dim no given shape names still asks for one."""
    m = onnx.ModelProto()
    m.CopyFrom(bert_tiny)
    for vi in m.graph.input:
        for d, name in zip(vi.type.tensor_type.shape.dim, ("batch", "sequence"), strict=True):
            d.ClearField("dim_value")
            d.dim_param = name
    g = load_onnx(m, input_shapes={"input_ids": [2, 24]})
    assert [v.shape for v in g.inputs] == [(2, 24)] * 3
    m.graph.input[2].type.tensor_type.shape.dim[1].dim_param = "other"
    with pytest.raises(FrontendError, match=r"'token_type_ids' dim 0 \('batch'\) is dynamic"):
        load_onnx(m, input_shapes={"input_ids": [2, 24]})


def test_bert_tiny_compiles_and_matches_onnxruntime(bert_tiny, tmp_path) -> None:
    g = load_onnx(bert_tiny)
    compiled = compile_graph(g, "cpu")
    assert compiled.plan.manifest["input_ranges"]["input_ids"] == [0, 30522]
    compiled.save(tmp_path / "b.tfa")
    ex = GraphExecutor.load(tmp_path / "b.tfa")
    for seed in (0, 1):
        feeds = random_inputs(g, seed)
        got, want = ex.run(feeds), ort_run(bert_tiny, feeds)
        for name, w in want.items():
            np.testing.assert_allclose(got[name], w, rtol=1e-4, atol=1e-4 * abs(w).max())


def test_cli_tasks_compile_run_bert_tiny(tmp_path, capsys) -> None:
    assert main(["tasks", "zoo:bert-tiny", "--json"]) == 0
    tasks = json.loads(capsys.readouterr().out)["tasks"]
    weights = {
        op: sum(t["weight"] for t in tasks if t["op"] == op) for op in ("dense", "attention")
    }
    # 13 dense layers; both layers' attention fused (the additive and the Where mask)
    assert {t["op"] for t in tasks} == {"dense", "attention"}
    assert weights == {"dense": 13, "attention": 2}
    net = tmp_path / "b.tfa"
    assert main(["compile", "zoo:bert-tiny", "-o", str(net)]) == 0
    capsys.readouterr()
    assert main(["run", str(net), "--random-inputs", "0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["outputs"]
    assert out["last_hidden_state"]["shape"] == [1, 128, 128]
    assert out["pooler_output"]["shape"] == [1, 128]


def test_cli_zoo_writes_bert(tmp_path, capsys) -> None:
    path = tmp_path / "tiny.onnx"
    argv = ["zoo", "bert-tiny", "-o", str(path), "--image-size", "16", "--batch", "2", "--json"]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["inputs"] == ["input_ids", "attention_mask", "token_type_ids"]
    assert doc["input_shape"] == [2, 16] and doc["input_dtype"] == "int64"
    assert doc["output_shape"] == [2, 16, 128] and doc["opset"] == 17
    assert doc["params"] == zoo.describe("bert-tiny").params
    assert main(["zoo", "bert-tiny", "-o", str(path), "--opset", "13"]) == 2
    assert "opset 17" in capsys.readouterr().err


@pytest.mark.slow
def test_cli_tune_bert_tiny(tmp_path, capsys) -> None:
    log = tmp_path / "t.jsonl"
    argv = ["tune", "zoo:bert-tiny", "--trials", "16", "--log", str(log), "--json"]
    argv += ["--min-repeat-ms", "5", "--repeat", "1", "--bench-repeat", "2"]
    assert main(argv) == 0, capsys.readouterr().err
    doc = json.loads(capsys.readouterr().out)
    assert doc["relative_error"] < 1e-4
    assert doc["scheduler"]["trials"] == 16
