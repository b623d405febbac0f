"""Regression tests for the malformed models of issue 18: each one, which used to end in a
traceback, a hang or a memory blow-up, is now either imported and compiled correctly (where
ONNX Runtime runs it) or refused with one clear error naming the node or field and what was
expected. The generated corpus that found most of them is tests/fuzz/test_onnx_fuzz.py."""

from __future__ import annotations

import tracemalloc
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from tunefarm.compiler.network import CompileError, compile_graph
from tunefarm.frontend import limits
from tunefarm.frontend.onnx_import import MAX_OPSET, FrontendError, load_onnx
from tunefarm.graph.interpret import run_graph
from tunefarm.graph.ir import Graph, Node, Value
from tunefarm.graph.passes import fuse_epilogues
from tunefarm.graph.shapes import infer_shapes
from tunefarm.runtime.memory import check_plan

FLOAT = TensorProto.FLOAT
X4 = {"x": (1, 2, 4, 4)}


def model(
    nodes: list[onnx.NodeProto],
    inputs: dict[str, Sequence[Any]],
    outputs: Sequence[str],
    inits: dict[str, np.ndarray] | None = None,
    opset: int = 13,
) -> onnx.ModelProto:
    """A one-graph model; outputs are declared with an empty shape (the checker wants one,
    the importer infers the real one)."""
    ins = [helper.make_tensor_value_info(n, FLOAT, s) for n, s in inputs.items()]
    outs = [helper.make_tensor_value_info(n, FLOAT, []) for n in outputs]
    tensors = [numpy_helper.from_array(a, n) for n, a in (inits or {}).items()]
    m = helper.make_model(
        helper.make_graph(nodes, "g", ins, outs, tensors),
        opset_imports=[helper.make_opsetid("", opset)],
    )
    m.ir_version = 8 if opset <= 17 else 10
    return m


def node(op: str, ins: Sequence[str], outs: Sequence[str] = ("y",), **attrs: Any):
    return helper.make_node(op, list(ins), list(outs), name="n", **attrs)


def refused(m: Any, pattern: str, **kwargs: Any) -> str:
    """The one-line FrontendError `m` is refused with, checked against `pattern`."""
    with pytest.raises(FrontendError, match=pattern) as info:
        load_onnx(m, **kwargs)
    assert "\n" not in str(info.value)
    return str(info.value)


def same_as_ort(m: onnx.ModelProto) -> Graph:
    """Import `m`, compile it, and check the interpreter's outputs against ONNX Runtime's."""
    graph = load_onnx(m)
    check_plan(compile_graph(graph).plan)
    feeds = {
        v.name: np.linspace(-1, 1, np.prod(v.shape), dtype=np.float32).reshape(v.shape)
        for v in graph.inputs
    }
    got = run_graph(graph, feeds)
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    for out, want in zip(sess.get_outputs(), sess.run(None, feeds), strict=True):
        np.testing.assert_allclose(got[out.name], want, rtol=1e-5, atol=1e-6)
    return graph


# ---------------------------------------------------------------- attributes and types
def test_non_utf8_string_attribute() -> None:
    m = model([node("MaxPool", ["x"], kernel_shape=[2, 2], auto_pad=b"\xff\xfe")], X4, ["y"])
    refused(m, r"^node 'n' \(MaxPool\): attribute 'auto_pad' is not valid UTF-8 text$")


def test_cast_to_unknown_type() -> None:
    refused(model([node("Cast", ["x"], to=999)], X4, ["y"]), r"node 'n' \(Cast\): .*to=999")
    folded = model([node("Cast", ["c"], to=999)], {}, ["y"], {"c": np.ones(2, np.float32)})
    refused(folded, r"node 'n' \(Cast\): attribute to=999 is no ONNX element type")


@pytest.mark.parametrize("where", ["input", "initializer", "output"])
def test_unknown_element_type(where: str) -> None:
    m = model([node("Add", ["x", "c"])], X4, ["y"], {"c": np.ones(1, np.float32)})
    if where == "input":
        m.graph.input[0].type.tensor_type.elem_type = 999
    elif where == "initializer":
        m.graph.initializer[0].data_type = 999
    else:
        m.graph.output[0].type.tensor_type.elem_type = 999
    name = {"input": "x", "initializer": "c", "output": "y"}[where]
    refused(m, rf"^g: {where} '{name}' has element type 999, which is no ONNX element type$")


# ---------------------------------------------------------------- scalar inputs and axes
@pytest.mark.parametrize(
    "op,inputs,what",
    [
        ("Clip", {"lo": np.zeros(0, np.float32)}, "input 1 \\(min\\) 'lo'"),
        ("Clip", {"": None, "hi": np.zeros((2, 1), np.float32)}, "input 2 \\(max\\) 'hi'"),
        (
            "Pad",
            {"p": np.zeros(8, np.int64), "v": np.zeros(0, np.float32)},
            "input 2 \\(constant_value\\)",
        ),
        ("Dropout", {"r": np.zeros(0, np.float32)}, "input 1 \\(ratio\\)"),
        ("Dropout", {"r": np.float32(0.5), "t": np.zeros(0, bool)}, "input 2 \\(training_mode\\)"),
    ],
)
def test_zero_size_scalar_inputs(op: str, inputs: dict, what: str) -> None:
    inits = {k: np.asarray(v) for k, v in inputs.items() if k}
    m = model([node(op, ["x", *inputs])], X4, ["y"], inits)
    refused(m, rf"^node 'n' \({op}\): {what}.* must hold one value \(a scalar\), got shape")


def test_scalar_axes_opset18() -> None:
    """ONNX Runtime refuses a 0-d axes for ReduceMean and Squeeze (and runs Unsqueeze's)."""
    axes = {"a": np.array(1, np.int64)}
    m = model([node("ReduceMean", ["x", "a"])], X4, ["y"], axes, opset=18)
    refused(m, r"^node 'n' \(ReduceMean\): input 1 \(axes\) 'a' must be a 1-D tensor of ints")
    m = model([node("Squeeze", ["x", "a"])], {"x": (1, 1, 3)}, ["y"], axes, opset=18)
    refused(m, r"node 'n' \(Squeeze\): input 1 \(axes\) 'a' must be a 1-D tensor")
    m = model([node("Unsqueeze", ["x", "a"])], {"x": (2, 3)}, ["y"], axes, opset=18)
    assert same_as_ort(m).shape("y") == (2, 1, 3)


def test_split_num_outputs_zero() -> None:
    m = model([node("Split", ["x"], axis=1, num_outputs=0)], X4, ["y"], opset=18)
    refused(m, r"^node 'n' \(Split\): num_outputs=0 must be >= 1$")


@pytest.mark.parametrize("op", ["Conv", "MaxPool"])
def test_same_upper_with_stride_zero(op: str) -> None:
    attrs: dict[str, Any] = {"strides": [0, 1], "auto_pad": "SAME_UPPER"}
    inits = {"w": np.ones((2, 2, 3, 3), np.float32)} if op == "Conv" else {}
    ins = ["x", "w"] if op == "Conv" else ["x"]
    if op == "MaxPool":
        attrs["kernel_shape"] = [3, 3]
    refused(
        model([node(op, ins, **attrs)], X4, ["y"], inits),
        rf"^node 'n' \({op}\): attribute strides=\[0, 1\] must be >= 1$",
    )


# ---------------------------------------------------------------- sizes and the budget
@pytest.mark.parametrize(
    "nodes,inits,output",
    [
        ([node("ConstantOfShape", ["s"], ["c"])], {"s": np.array([1 << 15] * 2, np.int64)}, "c"),
        (
            [node("Range", ["a", "b", "d"], ["c"])],
            {
                "a": np.array(0, np.int64),
                "b": np.array(1 << 40, np.int64),
                "d": np.array(1, np.int64),
            },
            "c",
        ),
        (
            [node("Expand", ["o", "s"], ["c"])],
            {"o": np.ones((1, 1), np.float32), "s": np.array([1 << 16] * 2, np.int64)},
            "c",
        ),
        (
            [node("Tile", ["o", "s"], ["c"])],
            {"o": np.ones((4, 4), np.float32), "s": np.array([1 << 14] * 2, np.int64)},
            "c",
        ),
    ],
)
def test_folded_generators_are_sized_before_evaluation(nodes, inits, output) -> None:
    """Gigabyte constants are refused before the reference evaluator allocates them."""
    m = model([*nodes, helper.make_node("Add", ["x", output], ["y"])], {"x": (1,)}, ["y"], inits)
    tracemalloc.start()
    try:
        msg = refused(m, rf"^node 'n' \({nodes[0].op_type}\): folded output '{output}' of shape")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "iB, above the tensor size limit of 1.0 GiB" in msg
    assert peak < 64 << 20


def test_declared_input_shape_above_budget() -> None:
    m = model([node("Relu", ["x"])], {"x": (5, 1024, 1024, 1024)}, ["y"])
    msg = refused(m, r"^g: input 'x' of shape \[5, 1024, 1024, 1024\] \(float32\) would need")
    assert "20.0 GiB, above the tensor size limit of 1.0 GiB" in msg
    small = model([node("Relu", ["x"])], {"x": (1, 1024)}, ["y"])
    refused(small, r"4.0 KiB, above the tensor size limit of 1.0 KiB", max_tensor_bytes=1024)
    assert load_onnx(small, max_tensor_bytes=4096).shape("y") == (1, 1024)


def test_budget_from_environment(monkeypatch) -> None:
    env = limits.ENV_MAX_TENSOR_BYTES
    assert limits.max_tensor_bytes_from({}) == limits.DEFAULT_MAX_TENSOR_BYTES == 1 << 30
    assert limits.max_tensor_bytes_from({env: " 4096 "}) == 4096
    for bad in ("0", "-1", "1GB"):
        with pytest.raises(ValueError, match=f"{env}='{bad}' must be a positive number"):
            limits.max_tensor_bytes_from({env: bad})
    m = model([node("Relu", ["x"])], {"x": (1, 1024)}, ["y"])
    limits.default_max_tensor_bytes.cache_clear()  # read once per process: read it again
    try:
        monkeypatch.setenv(env, "1024")
        refused(m, r"^g: input 'x' .* 4.0 KiB, above the tensor size limit of 1.0 KiB")
        monkeypatch.setenv(env, "lots")  # still the value read first
        refused(m, r"above the tensor size limit of 1.0 KiB")
        limits.default_max_tensor_bytes.cache_clear()
        refused(m, rf"^{env}='lots' must be a positive number of bytes$")
        assert load_onnx(m, max_tensor_bytes=4096).shape("y") == (1, 1024)
    finally:
        limits.default_max_tensor_bytes.cache_clear()


def test_graph_values_and_initializers_are_budgeted() -> None:
    pads = {"p": np.array([0, 0, 0, 0, 0, 0, 1 << 14, 1 << 14], np.int64)}
    m = model([node("Pad", ["x", "p"])], X4, ["y"], pads)
    refused(m, r"^node 'n' \(Pad\): output 'y' of shape \[1, 2, 16388, 16388\] .* would need")
    big = numpy_helper.from_array(np.ones(4, np.float32), "c")
    del big.dims[:]
    big.dims.extend([1 << 20, 1 << 20])
    m = model([node("Add", ["x", "c"])], X4, ["y"])
    m.graph.initializer.append(big)
    refused(m, r"^g: initializer 'c' of shape \[1048576, 1048576\] \(float32\) would need 4.0 TiB")


def test_zero_dimension_is_not_called_dynamic() -> None:
    m = model([node("Relu", ["x"])], {"x": (0, 3)}, ["y"])
    msg = refused(m, r"^g: input 'x' dim 0 is 0 in shape \[0, 3\]; dims must be >= 1")
    assert "dynamic" not in msg


# ---------------------------------------------------------------- conv weights
def test_zero_size_conv_weight() -> None:
    m = model([node("Conv", ["x", "w"])], X4, ["y"], {"w": np.zeros((0, 2, 1, 1), np.float32)})
    refused(m, r"^node 'n' \(Conv\): weight 'w' must be a non-empty 4-D OIHW tensor")


def test_conv_weight_that_is_a_graph_input() -> None:
    m = model([node("Conv", ["x", "w"])], {**X4, "w": (2, 2, 1, 1)}, ["y"])
    refused(
        m,
        r"^node 'n' \(Conv\): input 1 \(weight\) 'w' is computed at run time; "
        r"convolution weights must be constant initializers$",
    )


def _conv_graph(weight: Value | np.ndarray) -> Graph:
    x = Value("x", (1, 2, 4, 4))
    inputs = [x] + ([weight] if isinstance(weight, Value) else [])
    params = {} if isinstance(weight, Value) else {"w": weight}
    conv = Node("c", "conv2d", ["x", "w"], ["y"], {"epilogue": []})
    return infer_shapes(Graph("g", inputs, ["y"], [conv], params, {v.name: v for v in inputs}))


def test_compiler_names_the_node_for_bad_weights() -> None:
    """Graphs built without the importer get the same clear errors from the compiler."""
    with pytest.raises(CompileError, match=r"^node 'c' \(conv2d\): weight 'w' is computed at"):
        compile_graph(_conv_graph(Value("w", (2, 2, 1, 1))))
    with pytest.raises(CompileError, match=r"^node 'c' \(conv2d\): weight 'w' is empty"):
        compile_graph(_conv_graph(np.zeros((0, 2, 1, 1), np.float32)))


# ---------------------------------------------------------------- outputs, opsets, empty graphs
def test_duplicate_graph_outputs_compile() -> None:
    """ONNX Runtime runs a model listing an output twice; it is one output by name here."""
    m = model([node("Relu", ["x"])], X4, ["y"])
    m.graph.output.append(m.graph.output[0])
    graph = same_as_ort(m)
    assert graph.outputs == ["y"]
    plan = compile_graph(graph).plan
    assert [name for name, _ in plan.outputs] == ["y"]


@pytest.mark.parametrize("declared", ["no shape", "no type"])
def test_output_without_shape_is_inferred(declared: str) -> None:
    m = model([node("Conv", ["x", "w"])], X4, ["y"], {"w": np.ones((3, 2, 1, 1), np.float32)})
    m.graph.output[0].type.tensor_type.ClearField("shape")
    if declared == "no type":
        m.graph.output[0].ClearField("type")
    assert same_as_ort(m).shape("y") == (1, 3, 4, 4)


def test_opset_above_supported_and_empty_graph() -> None:
    assert MAX_OPSET >= 21
    m = model([node("Relu", ["x"])], X4, ["y"], opset=99)
    refused(m, rf"^g: opset 99 is not supported; the newest supported opset is {MAX_OPSET}$")
    refused(model([], {}, []), r"^g: the graph is empty \(it has no nodes\)$")


# ---------------------------------------------------------------- external data
def _external(location: str) -> onnx.ModelProto:
    m = model([node("Add", ["x", "w"])], {"x": (2,)}, ["y"], {"w": np.ones(2, np.float32)})
    w = m.graph.initializer[0]
    w.ClearField("raw_data")
    w.data_location = TensorProto.EXTERNAL
    w.external_data.add(key="location", value=location)
    return m


def test_external_data_with_bytes_is_never_read_from_the_cwd(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "w.bin").write_bytes(np.full(2, 7, np.float32).tobytes())
    monkeypatch.chdir(tmp_path)
    m = _external("w.bin")
    for given in (m.SerializeToString(), m):
        refused(
            given,
            r"initializer 'w' keeps its data in an external file \('w.bin'\); "
            r"external data is read only for a model given as a file path",
        )
    sub = tmp_path / "model"
    sub.mkdir()
    onnx.save(m, str(sub / "m.onnx"))
    refused(sub / "m.onnx", "not a valid ONNX model: .*model/w.bin, but it is not regular file")
    (sub / "w.bin").write_bytes(np.full(2, 3, np.float32).tobytes())
    np.testing.assert_array_equal(load_onnx(sub / "m.onnx").params["w"], [3, 3])


def test_external_data_outside_the_model_directory_or_too_large(tmp_path: Path) -> None:
    sub = tmp_path / "model"
    sub.mkdir()
    (tmp_path / "w.bin").write_bytes(b"\0" * 8)
    onnx.save(_external("../w.bin"), str(sub / "m.onnx"))
    refused(sub / "m.onnx", "points outside the directory")
    (sub / "big.bin").write_bytes(b"\0" * 4096)
    onnx.save(_external("big.bin"), str(sub / "m.onnx"))
    refused(
        sub / "m.onnx",
        r"initializer 'w': its external data in 'big.bin' is 4.0 KiB, "
        r"above the tensor size limit of 1.0 KiB",
        max_tensor_bytes=1024,
    )


# ---------------------------------------------------------------- long chains
def test_fusion_caps_the_epilogue() -> None:
    """A conv followed by 20 activations fuses 8 steps; the rest stay elementwise nodes."""
    x = Value("x", (1, 2, 4, 4))
    nodes = [Node("c", "conv2d", ["x", "w"], ["t0"], {"epilogue": []})]
    nodes += [Node(f"r{i}", "relu", [f"t{i}"], [f"t{i + 1}"]) for i in range(20)]
    g = Graph("g", [x], ["t20"], nodes, {"w": np.ones((2, 2, 1, 1), np.float32)}, {"x": x})
    fused = fuse_epilogues(infer_shapes(g))
    assert fused.nodes[0].attrs["epilogue"] == ["relu"] * 8
    assert fused.op_counts() == {"conv2d": 1, "relu": 12}


def test_unique_name_is_unique_across_calls() -> None:
    g = Graph("g", [], [], [Node("a", "relu", [], [])], {}, {"b": Value("b", (1,))})
    assert [g.unique_name(n) for n in ("a", "a", "b", "c", "c")] == [
        "a_1",
        "a_2",
        "b_1",
        "c",
        "c_1",
    ]


# ---------------------------------------------------------------- found by tests/fuzz
def test_checker_errors_are_one_line_naming_the_node() -> None:
    m = model([node("Relu", ["x"], bogus=1)], X4, ["y"])
    refused(m, r"^g: node 'n' \(Relu\): not a valid ONNX node: Unrecognized attribute: bogus")


def test_split_num_outputs_must_match_the_outputs() -> None:
    m = model([node("Split", ["x"], ["a", "b"], axis=1, num_outputs=1 << 62)], X4, ["a"], opset=18)
    refused(m, r"^node 'n' \(Split\): num_outputs=4611686018427387904 differs from the node's 2")


def test_split_with_an_unread_output_compiles() -> None:
    """Dead-code elimination kept the split but dropped its unread output's value."""
    m = model([node("Split", ["x"], ["a", "b"], axis=1)], X4, ["a"])
    assert same_as_ort(m).outputs == ["a"]


def test_no_outputs_and_zero_size_outputs_are_refused() -> None:
    m = model([node("Relu", ["x"])], X4, [])
    refused(m, r"^g: the graph has no outputs \(it would compute nothing\)$")
    empty = {"e": np.zeros((0, 3), np.float32)}
    m = model([node("Relu", ["e"])], {}, ["y"], empty)
    refused(m, r"^g: output 'y' would be a zero-size tensor \(shape \[0, 3\]\)")


def test_run_time_ops_on_non_float32_constants_are_refused() -> None:
    cast = helper.make_node("Cast", ["c"], ["k"], name="cast", to=TensorProto.INT64)
    m = model([cast, node("Add", ["x", "k"])], X4, ["y"], {"c": np.ones(1, np.float32)})
    refused(
        m, r"^node 'n' \(Add\): inputs 0 and 1 \('x', 'k'\) differ in element type \(float32 and"
    )


def test_range_length_is_exact() -> None:
    """ONNX shape inference wraps Range's length (1e60 elements became 0)."""
    inits = {k: np.array(v, np.float32) for k, v in zip("abd", (0.0, 1e30, 1e-30), strict=True)}
    m = model(
        [node("Range", ["a", "b", "d"], ["c"]), helper.make_node("Add", ["x", "c"], ["y"])],
        {"x": (1,)},
        ["y"],
        inits,
    )
    refused(m, r"^node 'n' \(Range\): folded output 'c' of shape \[10000000\d+\] \(float32\)")
    zero = {k: np.array(v, np.int64) for k, v in zip("abd", (0, 5, 0), strict=True)}
    m.graph.ClearField("initializer")
    m.graph.initializer.extend(numpy_helper.from_array(a, k) for k, a in zero.items())
    refused(m, r"^node 'n' \(Range\): constant folding failed: delta is 0$")


def test_input_without_shape_takes_input_shapes() -> None:
    m = model([node("Relu", ["x"])], X4, ["y"])
    m.graph.input[0].type.tensor_type.ClearField("shape")
    refused(m, r"^g: input 'x' has no static shape \(rank unknown\); pass --input-shape")
    assert load_onnx(m, {"x": [2, 3]}).shape("y") == (2, 3)
