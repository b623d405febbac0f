"""Ways to break a valid ONNX model, one each: every mutation changes a ModelProto in place.

They are grouped by what they break (the graph inputs' shapes, the first initializer, the
graph's structure, the model's opsets) and named after what they do; `mutated` applies one
to a copy and skips it (None) where it does not apply to that model.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import onnx
from onnx import TensorProto, helper

FLOAT = TensorProto.FLOAT
BIG = 1 << 40

Mutation = Callable[[onnx.ModelProto], None]
INPUT_SHAPE: dict[str, Mutation] = {}
INITIALIZER: dict[str, Mutation] = {}
STRUCTURE: dict[str, Mutation] = {}
MODEL: dict[str, Mutation] = {}


def _into(table: dict[str, Mutation]) -> Callable[[Mutation], Mutation]:
    def register(fn: Mutation) -> Mutation:
        table[fn.__name__] = fn
        return fn

    return register


def mutated(base: onnx.ModelProto, fn: Mutation) -> onnx.ModelProto | None:
    """A mutated copy of `base`, or None where the mutation does not apply to it."""
    m = onnx.ModelProto()
    m.CopyFrom(base)
    try:
        fn(m)
    except (ValueError, TypeError, IndexError):
        return None
    return m


def set_attr(node: onnx.NodeProto, name: str, value: Any) -> None:
    """Set (or add) attribute `name` of `node` to `value`, of whatever type it gives."""
    for i, a in enumerate(node.attribute):
        if a.name == name:
            del node.attribute[i]
            break
    node.attribute.append(helper.make_attribute(name, value))


# ---------------------------------------------------------------- input shapes
def _dims(m: onnx.ModelProto) -> Any:
    return m.graph.input[0].type.tensor_type.shape


@_into(INPUT_SHAPE)
def zero_dim(m: onnx.ModelProto) -> None:
    _dims(m).dim[0].dim_value = 0


@_into(INPUT_SHAPE)
def negative_dim(m: onnx.ModelProto) -> None:
    _dims(m).dim[0].dim_value = -1


@_into(INPUT_SHAPE)
def huge_dim(m: onnx.ModelProto) -> None:
    _dims(m).dim[0].dim_value = BIG


@_into(INPUT_SHAPE)
def scalar(m: onnx.ModelProto) -> None:
    _dims(m).ClearField("dim")


@_into(INPUT_SHAPE)
def extra_dim(m: onnx.ModelProto) -> None:
    _dims(m).dim.add().dim_value = 2


@_into(INPUT_SHAPE)
def symbolic(m: onnx.ModelProto) -> None:
    _dims(m).dim[0].dim_param = "N"


@_into(INPUT_SHAPE)
def no_shape(m: onnx.ModelProto) -> None:
    m.graph.input[0].type.tensor_type.ClearField("shape")


# ---------------------------------------------------------------- the first initializer
def _init(m: onnx.ModelProto) -> onnx.TensorProto:
    return m.graph.initializer[0]


@_into(INITIALIZER)
def dims_mismatch(m: onnx.ModelProto) -> None:
    _init(m).dims.append(3)


@_into(INITIALIZER)
def zero_dims(m: onnx.ModelProto) -> None:
    t = _init(m)
    t.ClearField("raw_data")
    del t.dims[:]
    t.dims.extend([0, 3])


@_into(INITIALIZER)
def huge_dims(m: onnx.ModelProto) -> None:
    del _init(m).dims[:]
    _init(m).dims.extend([BIG, BIG])


@_into(INITIALIZER)
def negative_dims(m: onnx.ModelProto) -> None:
    _init(m).dims[0] = -2


@_into(INITIALIZER)
def type_999(m: onnx.ModelProto) -> None:
    _init(m).data_type = 999


@_into(INITIALIZER)
def type_undefined(m: onnx.ModelProto) -> None:
    _init(m).data_type = 0


@_into(INITIALIZER)
def bad_utf8_string(m: onnx.ModelProto) -> None:
    t = _init(m)
    t.data_type = TensorProto.STRING
    t.ClearField("raw_data")
    del t.dims[:]
    t.dims.append(1)
    t.string_data.append(b"\xff\xfe")


@_into(INITIALIZER)
def as_int64(m: onnx.ModelProto) -> None:
    _init(m).data_type = TensorProto.INT64


@_into(INITIALIZER)
def as_float16(m: onnx.ModelProto) -> None:
    _init(m).data_type = TensorProto.FLOAT16


@_into(INITIALIZER)
def duplicated(m: onnx.ModelProto) -> None:
    m.graph.initializer.append(_init(m))


@_into(INITIALIZER)
def removed(m: onnx.ModelProto) -> None:
    del m.graph.initializer[0]


@_into(INITIALIZER)
def segment(m: onnx.ModelProto) -> None:
    _init(m).segment.begin = 0
    _init(m).segment.end = 1


# ---------------------------------------------------------------- graph structure
def _middle(m: onnx.ModelProto) -> onnx.NodeProto:
    return m.graph.node[len(m.graph.node) // 2]


@_into(STRUCTURE)
def cycle(m: onnx.ModelProto) -> None:
    m.graph.node[0].input[0] = m.graph.node[-1].output[0]


@_into(STRUCTURE)
def self_loop(m: onnx.ModelProto) -> None:
    _middle(m).input[0] = _middle(m).output[0]


@_into(STRUCTURE)
def reversed_order(m: onnx.ModelProto) -> None:
    nodes = list(m.graph.node)[::-1]
    del m.graph.node[:]
    m.graph.node.extend(nodes)


@_into(STRUCTURE)
def missing_input(m: onnx.ModelProto) -> None:
    _middle(m).input[0] = "nowhere"


@_into(STRUCTURE)
def empty_input_name(m: onnx.ModelProto) -> None:
    m.graph.node[0].input[0] = ""


@_into(STRUCTURE)
def duplicate_output(m: onnx.ModelProto) -> None:
    m.graph.node[1].output[0] = m.graph.node[0].output[0]


@_into(STRUCTURE)
def duplicate_node_names(m: onnx.ModelProto) -> None:
    for node in m.graph.node:
        node.name = "same"


@_into(STRUCTURE)
def unnamed_nodes(m: onnx.ModelProto) -> None:
    for node in m.graph.node:
        node.name = ""


@_into(STRUCTURE)
def very_long_names(m: onnx.ModelProto) -> None:
    for node in m.graph.node:
        node.name = node.name * 2000


@_into(STRUCTURE)
def duplicate_graph_output(m: onnx.ModelProto) -> None:
    m.graph.output.append(m.graph.output[0])


@_into(STRUCTURE)
def output_is_input(m: onnx.ModelProto) -> None:
    m.graph.output.append(m.graph.input[0])


@_into(STRUCTURE)
def undefined_output(m: onnx.ModelProto) -> None:
    m.graph.output.append(helper.make_tensor_value_info("ghost", FLOAT, [1]))


@_into(STRUCTURE)
def output_no_shape(m: onnx.ModelProto) -> None:
    m.graph.output[0].type.tensor_type.ClearField("shape")


@_into(STRUCTURE)
def output_no_type(m: onnx.ModelProto) -> None:
    m.graph.output[0].ClearField("type")


@_into(STRUCTURE)
def no_outputs(m: onnx.ModelProto) -> None:
    del m.graph.output[:]


@_into(STRUCTURE)
def no_inputs(m: onnx.ModelProto) -> None:
    del m.graph.input[:]


@_into(STRUCTURE)
def no_nodes(m: onnx.ModelProto) -> None:
    del m.graph.node[:]


@_into(STRUCTURE)
def extra_input(m: onnx.ModelProto) -> None:
    _middle(m).input.append(_middle(m).input[0])


@_into(STRUCTURE)
def dropped_input(m: onnx.ModelProto) -> None:
    _middle(m).input.pop()


@_into(STRUCTURE)
def extra_output(m: onnx.ModelProto) -> None:
    _middle(m).output.append("extra_out")


@_into(STRUCTURE)
def value_info_type_999(m: onnx.ModelProto) -> None:
    m.graph.value_info.append(helper.make_tensor_value_info(m.graph.node[0].output[0], 999, [1]))


# ---------------------------------------------------------------- opsets, domains, IR version
@_into(MODEL)
def no_default_domain(m: onnx.ModelProto) -> None:
    m.opset_import[0].domain = "com.example"


@_into(MODEL)
def two_default_opsets(m: onnx.ModelProto) -> None:
    m.opset_import.append(helper.make_opsetid("", 11))


@_into(MODEL)
def custom_domain_node(m: onnx.ModelProto) -> None:
    m.opset_import.append(helper.make_opsetid("com.example", 1))
    _middle(m).domain = "com.example"


@_into(MODEL)
def ir_version_huge(m: onnx.ModelProto) -> None:
    m.ir_version = BIG


@_into(MODEL)
def ir_version_zero(m: onnx.ModelProto) -> None:
    m.ir_version = 0
