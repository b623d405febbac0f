"""A deterministic corpus of malformed ONNX models for the importer's fuzz test.

Every case is a serialized model (or plain bytes) with a name that says what was broken.
The corpus starts from valid models (onnx_bases.py) and breaks them one way at a time:
random bytes, truncation, byte flips, attributes of wrong values and types, zero and huge
shapes, cycles, missing and duplicate names, wrong inputs per op (onnx_mutations.py),
external data, unknown opsets and element types, constants that fold to gigabytes, deep
subgraphs and the models of issue 18. The same seed gives the same corpus.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx_bases import SEED, base_models, i64, make_model, node, small_cnn, zoo_model
from onnx_mutations import INITIALIZER, INPUT_SHAPE, MODEL, STRUCTURE, mutated, set_attr

FLOAT = TensorProto.FLOAT
BIG = 1 << 40


@dataclass(frozen=True)
class Case:
    """One model to import: `data` is what load_onnx gets; `compile` says whether a graph it
    imports is also compiled (small models only)."""

    name: str
    data: bytes
    compile: bool = True
    input_shapes: dict[str, list[int]] | None = field(default=None, hash=False)


def _case(name: str, model: onnx.ModelProto | None) -> Iterator[Case]:
    if model is not None:
        yield Case(name, model.SerializeToString())


# ---------------------------------------------------------------- families of cases
def random_bytes(rng: random.Random) -> Iterator[Case]:
    for n in (0, 1, 2, 7, 64, 512, 4096):
        yield Case(f"random_bytes/{n}", rng.randbytes(n))
    prefix = small_cnn().SerializeToString()[:16]
    for k in range(4):
        yield Case(f"random_bytes/header_then_garbage_{k}", prefix + rng.randbytes(200))
    yield Case("random_bytes/zeros", bytes(256))
    yield Case("random_bytes/ones", b"\xff" * 256)


def truncations(rng: random.Random, models: dict[str, onnx.ModelProto]) -> Iterator[Case]:
    for name, m in models.items():
        data = m.SerializeToString()
        cuts = sorted({1, len(data) - 1, *(rng.randrange(1, len(data)) for _ in range(6))})
        for cut in cuts:
            yield Case(f"truncated/{name}@{cut}", data[:cut], compile=name != "zoo")


def byte_flips(rng: random.Random, models: dict[str, onnx.ModelProto]) -> Iterator[Case]:
    for name, m in models.items():
        data = bytearray(m.SerializeToString())
        # structure (names, attributes, shapes) sits outside the large raw weights
        spots = [i for i in range(len(data)) if i < 4096 or i > len(data) - 4096]
        for k in range(10 if name != "zoo" else 6):
            flipped = bytearray(data)
            for i in rng.sample(spots, 1 + k % 3):
                flipped[i] ^= 1 << rng.randrange(8)
            yield Case(f"byte_flip/{name}#{k}", bytes(flipped), compile=name != "zoo")


BAD_VALUES: list[tuple[str, Any]] = [
    ("zero", 0),
    ("negative", -1),
    ("huge", 1 << 62),
    ("nan", float("nan")),
    ("inf", float("inf")),
    ("zeros", [0, 0]),
    ("negatives", [-3, -3, -3, -3]),
    ("huge_ints", [1 << 40, 1 << 40]),
    ("empty_ints", []),
    ("long_ints", list(range(9))),
    ("text", "SAME_UPPER"),
    ("bad_utf8", b"\xc3\x28\xff"),
]


def bad_attributes(rng: random.Random, models: dict[str, onnx.ModelProto]) -> Iterator[Case]:
    """Each attribute of each node set to wrong values and types (a few per attribute), and
    an attribute no op has."""
    for name, m in models.items():
        for ni, n in enumerate(m.graph.node):
            for attr in n.attribute:
                for label, value in rng.sample(BAD_VALUES, 3):

                    def bad(mm: onnx.ModelProto, ni=ni, key=attr.name, value=value) -> None:
                        set_attr(mm.graph.node[ni], key, value)

                    yield from _case(
                        f"bad_attr/{name}/{n.name}.{attr.name}={label}", mutated(m, bad)
                    )

            def bogus(mm: onnx.ModelProto, ni: int = ni) -> None:
                set_attr(mm.graph.node[ni], "bogus", 1)

            yield from _case(f"bad_attr/{name}/{n.name}.bogus", mutated(m, bogus))


def registered(models: dict[str, onnx.ModelProto]) -> Iterator[Case]:
    """Every mutation of onnx_mutations on every base model it applies to."""
    tables = {"input_shape": INPUT_SHAPE, "initializer": INITIALIZER, "structure": STRUCTURE}
    for family, table in tables.items():
        for name, m in models.items():
            for label, fn in table.items():
                yield from _case(f"{family}/{name}/{label}", mutated(m, fn))
    for name, m in models.items():
        given = {m.graph.input[0].name: [1 << 20, 1 << 20, 4, 4]}
        yield Case(f"input_shape/{name}/given_huge", m.SerializeToString(), input_shapes=given)


def bad_inputs(models: dict[str, onnx.ModelProto]) -> Iterator[Case]:
    """Each node's inputs swapped, or one replaced by a scalar, an empty, a 3-D or a
    run-time tensor: the checker does not look at shapes, so the handlers must."""
    replacements: dict[str, Callable[[np.dtype], np.ndarray | None]] = {
        "scalar": lambda dt: np.array(2, dt),
        "empty": lambda dt: np.zeros(0, dt),
        "rank3": lambda dt: np.ones((2, 1, 3), dt),
        "runtime": lambda dt: None,
    }
    for name, m in models.items():
        dtypes = {t.name: numpy_helper.to_array(t).dtype for t in m.graph.initializer}
        for ni, n in enumerate(m.graph.node):
            if len([i for i in n.input if i]) >= 2:

                def swap(mm: onnx.ModelProto, ni: int = ni) -> None:
                    ins = list(mm.graph.node[ni].input)
                    mm.graph.node[ni].input[0], mm.graph.node[ni].input[1] = ins[1], ins[0]

                yield from _case(f"inputs/{name}/{n.name}.swap", mutated(m, swap))
            k = len(n.input) - 1
            if k < 0 or not n.input[k]:
                continue
            dtype = dtypes.get(n.input[k], np.dtype(np.float32))
            for label, make in replacements.items():

                def replace(
                    mm: onnx.ModelProto, ni=ni, k=k, make=make, dtype=dtype, label=label
                ) -> None:
                    new = f"{label}_{ni}"
                    array = make(dtype)
                    if array is None:
                        code = helper.np_dtype_to_tensor_dtype(dtype)
                        vi = helper.make_tensor_value_info(new, code, [2, 2])
                        mm.graph.input.append(vi)
                    else:
                        mm.graph.initializer.append(numpy_helper.from_array(array, new))
                    mm.graph.node[ni].input[k] = new

                yield from _case(f"inputs/{name}/{n.name}.in{k}={label}", mutated(m, replace))


def bad_opsets_and_types() -> Iterator[Case]:
    m = small_cnn()
    for version in (0, 1, 6, 29, 99, (1 << 31) - 1, -1):

        def set_opset(mm: onnx.ModelProto, v: int = version) -> None:
            mm.opset_import[0].version = v

        yield from _case(f"opset/{version}", mutated(m, set_opset))
    for label, fn in MODEL.items():
        yield from _case(f"opset/{label}", mutated(m, fn))
    for code in (0, 7, 8, 10, 16, 999, -5):
        for where in ("input", "output"):

            def set_type(mm: onnx.ModelProto, c: int = code, w: str = where) -> None:
                getattr(mm.graph, w)[0].type.tensor_type.elem_type = c

            yield from _case(f"elem_type/{where}/{code}", mutated(m, set_type))
    for code in (999, 0, 8, 7, 1):
        cast = node("Cast", ["x"], ["y"], "cast", to=code)
        yield from _case(
            f"elem_type/cast_to/{code}", make_model([cast], {"x": (2, 2)}, {"y": None})
        )
        cast = node("Cast", ["c"], ["k"], "castc", to=code)
        add = node("Add", ["x", "k"], ["y"], "add")
        c = {"c": np.ones((2, 2), np.float32)}
        folded = make_model([cast, add], {"x": (2, 2)}, {"y": None}, c)
        yield from _case(f"elem_type/cast_folded_to/{code}", folded)


def external_data() -> Iterator[Case]:
    m = small_cnn()
    for location in ("w.bin", "../../../etc/passwd", "/etc/passwd", "", "pyproject.toml"):

        def external(mm: onnx.ModelProto, loc: str = location) -> None:
            t = mm.graph.initializer[0]
            t.ClearField("raw_data")
            t.data_location = TensorProto.EXTERNAL
            t.external_data.add(key="location", value=loc)

        yield from _case(f"external/{location or 'empty'}", mutated(m, external))
    const = helper.make_tensor("v", FLOAT, [2], [1.0, 2.0])
    const.ClearField("float_data")
    const.data_location = TensorProto.EXTERNAL
    const.external_data.add(key="location", value="pyproject.toml")
    nodes = [
        node("Constant", [], ["k"], "const", value=const),
        node("Add", ["x", "k"], ["y"], "add"),
    ]
    yield from _case("external/constant_attribute", make_model(nodes, {"x": (2,)}, {"y": None}))


def _folded(name: str, op: str, inits: dict[str, np.ndarray], **attrs: Any) -> Case:
    """`op` on the constants `inits` (folded at import), its result added to a small input."""
    producer = node(op, list(inits), ["c"], op.lower(), **attrs)
    add = node("Add", ["x", "c"], ["y"], "add")
    model = make_model([producer, add], {"x": (1,)}, {"y": None}, inits)
    return Case(f"blowup/{name}", model.SerializeToString())


def _scalars(start: float, limit: float, delta: float, dtype: type) -> dict[str, np.ndarray]:
    return {k: np.array(v, dtype) for k, v in zip("abd", (start, limit, delta), strict=True)}


def blowups() -> Iterator[Case]:
    """Constants that fold to far more than the budget, and graph values that are as big."""
    int64, f32 = np.int64, np.float32
    big2 = i64(1 << 16, 1 << 16)
    yield _folded("constant_of_shape", "ConstantOfShape", {"s": big2})
    yield _folded("constant_of_shape_negative", "ConstantOfShape", {"s": i64(-4, 4)})
    yield _folded("constant_of_shape_rank_100", "ConstantOfShape", {"s": np.ones(100, int64)})
    yield _folded("range", "Range", _scalars(0, BIG, 1, int64))
    yield _folded("range_float", "Range", _scalars(0.0, 1e30, 1e-30, f32))
    yield _folded("range_delta_zero", "Range", _scalars(0, 5, 0, int64))
    yield _folded("expand", "Expand", {"o": np.ones((1, 1), f32), "s": big2})
    yield _folded("tile", "Tile", {"o": np.ones((2, 2), f32), "s": big2})
    col, row = np.ones((1 << 14, 1), f32), np.ones((1, 1 << 14), f32)
    yield _folded("broadcast_add", "Add", {"p": col, "q": row})
    yield _folded("matmul", "MatMul", {"p": col[: 1 << 13], "q": row[:, : 1 << 13]})
    pads = i64(0, 0, 1 << 14, 1 << 14)
    yield _folded("pad_constant", "Pad", {"o": np.ones((2, 2), f32), "p": pads})
    indices = np.zeros((1 << 12, 1 << 10), int64)
    yield _folded("gather", "Gather", {"o": np.ones(1 << 10, f32), "i": indices})
    pads = {"p": i64(0, 0, 1 << 15, 1 << 15)}
    pad = make_model([node("Pad", ["x", "p"], ["y"], "padr")], {"x": (1, 1)}, {"y": None}, pads)
    yield Case("blowup/pad_runtime", pad.SerializeToString())
    conv = node("Conv", ["x", "w"], ["y"], "convr", pads=[1 << 14] * 4)
    w = {"w": np.ones((1, 1, 1, 1), f32)}
    yield Case(
        "blowup/conv_padding",
        make_model([conv], {"x": (1, 1, 1, 1)}, {"y": None}, w).SerializeToString(),
    )
    outs = [f"o{i}" for i in range(2000)]
    split = make_model(
        [node("Split", ["x"], outs, "split2000", axis=1)], {"x": (1, 2000)}, dict.fromkeys(outs)
    )
    yield Case("blowup/split_outputs", split.SerializeToString())


def _issue(
    name: str,
    nodes: list[onnx.NodeProto],
    inputs: dict | None = None,
    inits: dict | None = None,
    opset: int = 13,
) -> Case:
    model = make_model(nodes, inputs or {"x": (1, 2, 4, 4)}, {"y": None}, inits, opset=opset)
    return Case(f"issue18/{name}", model.SerializeToString())


def issue_18() -> Iterator[Case]:
    """The models of issue 18, as reported."""
    w = {"w": np.ones((2, 2, 1, 1), np.float32)}
    pool = node("MaxPool", ["x"], ["y"], "pool", kernel_shape=[2, 2], auto_pad=b"\xff")
    yield _issue("non_utf8_attribute", [pool])
    yield _issue("cast_to_999", [node("Cast", ["x"], ["y"], "cast", to=999)])
    for op, inputs in (("Clip", ["x", "e"]), ("Pad", ["x", "p", "e"]), ("Dropout", ["x", "e"])):
        inits = {"e": np.zeros(0, np.float32), "p": np.zeros(8, np.int64)}
        nodes = [node(op, inputs, ["y"], op.lower())]
        yield _issue(f"zero_size_scalar_{op}", nodes, inits={k: inits[k] for k in inputs[1:]})
    mean = node("ReduceMean", ["x", "a"], ["y"], "mean")
    yield _issue("scalar_axes_opset18", [mean], inits={"a": np.array(1, np.int64)}, opset=18)
    split = node("Split", ["x"], ["y"], "split", axis=1, num_outputs=0)
    yield _issue("split_num_outputs_0", [split], opset=18)
    conv = node("Conv", ["x", "w"], ["y"], "conv", auto_pad="SAME_UPPER", strides=[0, 0])
    yield _issue("same_upper_stride_0", [conv], inits=w)
    conv = node("Conv", ["x", "w"], ["y"], "conv")
    yield _issue("zero_size_conv_weight", [conv], inits={"w": np.zeros((0, 2, 1, 1), np.float32)})
    dup = make_model([conv], {"x": (1, 2, 4, 4)}, {"y": None}, w)
    dup.graph.output.append(dup.graph.output[0])
    yield Case("issue18/duplicate_graph_outputs", dup.SerializeToString())
    yield _issue("conv_weight_graph_input", [conv], {"x": (1, 2, 4, 4), "w": (2, 2, 1, 1)})
    relu = node("Relu", ["x"], ["y"], "relu")
    yield _issue("opset_99", [relu], opset=99)
    yield Case("issue18/empty_graph", make_model([], {}, {}).SerializeToString())
    yield _issue("zero_dim", [relu], {"x": (0, 3)})
    no_shape = make_model([relu], {"x": (1, 2, 4, 4)}, {"y": None})
    no_shape.graph.output[0].ClearField("type")
    yield Case("issue18/output_without_shape", no_shape.SerializeToString())
    yield _issue("declared_input_20_GiB", [relu], {"x": (5, 1024, 1024, 1024)})


def nested_subgraphs() -> Iterator[Case]:
    """If nodes nested deeper than protobuf's and the checker's recursion limits."""
    for depth in (3, 30):
        out = helper.make_tensor_value_info("y", FLOAT, [1])
        leaf = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "leaf", [], [out])
        body = leaf
        for level in range(depth):  # the else branch is a leaf: the size grows linearly
            node = helper.make_node(
                "If", ["cond"], ["y"], name=f"if{level}", then_branch=body, else_branch=leaf
            )
            body = helper.make_graph([node], f"level{level}", [], [out])
        m = helper.make_model(
            helper.make_graph(
                list(body.node),
                "nested",
                [helper.make_tensor_value_info("x", FLOAT, [1])],
                [out],
                [numpy_helper.from_array(np.array(True), "cond")],
            ),
            opset_imports=[helper.make_opsetid("", 13)],
        )
        m.ir_version = 8
        yield Case(f"nested_if/{depth}", m.SerializeToString())
    # deeper than protobuf can build: the bytes by hand (graph.node.attribute.g, repeated)
    graph = b""
    for _ in range(200):
        attr = _field(1, b"then_branch") + _field(6, graph) + _field(20, b"", wire=0)
        graph = _field(1, _field(4, b"If") + _field(5, attr))
    model = _field(1, b"", wire=0) + _field(7, graph) + _field(8, _field(2, b"", wire=0))
    yield Case("nested_if/200_raw", model)


def _field(number: int, payload: bytes, wire: int = 2) -> bytes:
    """One protobuf field: length-delimited `payload`, or (wire 0) the varint 5."""
    if wire == 0:
        return bytes([number << 3 | 0, 5]) if number < 16 else _varint(number << 3) + b"\x05"
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        out.append(n & 0x7F | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def corpus(seed: int = SEED) -> list[Case]:
    """The whole corpus, the same for the same seed."""
    rng = random.Random(seed)
    models = base_models()
    with_zoo = {**models, "zoo": zoo_model()}
    cases = [Case(f"valid/{name}", m.SerializeToString()) for name, m in models.items()]
    cases.append(Case("valid/zoo", with_zoo["zoo"].SerializeToString(), compile=False))
    for family in (
        random_bytes(rng),
        truncations(rng, with_zoo),
        byte_flips(rng, with_zoo),
        bad_attributes(rng, models),
        registered(models),
        bad_inputs(models),
        bad_opsets_and_types(),
        external_data(),
        blowups(),
        issue_18(),
        nested_subgraphs(),
    ):
        cases.extend(family)
    names = [c.name for c in cases]
    assert len(set(names)) == len(names), "case names must be unique"
    return cases
