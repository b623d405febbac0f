"""Export of an int8 graph (from `graph.passes.quantize`) as a QDQ ONNX model, the format
`onnxruntime.quantization.quantize_static` writes, so other runtimes run our quantization:

    model = export_qdq(qgraph)          # an onnx.ModelProto that onnx.checker accepts

Each `qconv2d` becomes DequantizeLinear(x) -> Conv(DequantizeLinear(int8 weights, per output
channel), DequantizeLinear(int32 bias)) -> [Relu | Clip] -> QuantizeLinear(out), with our
scales and zero points; a fused residual add becomes QuantizeLinear(conv) ->
DequantizeLinear -> Add(DequantizeLinear(residual)) -> QuantizeLinear (a ReLU after it is
the uint8 saturation at zero point 0). `quantize` and
`dequantize` nodes are QuantizeLinear / DequantizeLinear, and the float ops around them
(first conv, pools, reshape, dense, elementwise) their ONNX ops. Re-imported, the Q/DQ pairs
fold back into `qconv2d` nodes of the same tasks (`graph.passes.qdq`); a residual add comes
back as a separate `qadd` (ONNX Runtime's QLinearAdd rounding), not a conv epilogue.

The scales come from the qconv2d's `data_scale`, `weight_scale` and `out_scale` attrs, which
the quantization pass and the QDQ fold record. An op with no export here is an ExportError
naming the node.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from tunefarm.graph.ir import Graph, GraphError, Node, fresh_name

OPSET = 13
BINARY = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div"}
UNARY = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh"}
ZERO_TYPES = {"uint8": np.uint8, "int8": np.int8}


class ExportError(GraphError):
    """A graph that has no QDQ ONNX form here (the message names the node)."""


class _Exporter:
    def __init__(self, graph: Graph):
        self.g = graph
        self.nodes: list[onnx.NodeProto] = []
        self.inits: dict[str, np.ndarray] = {}
        self.taken: set[str] = set(graph.values) | {n.name for n in graph.nodes}
        self.scale_of: dict[str, tuple[float, int]] = {}  # uint8 value -> (scale, zero)

    def fresh(self, base: str) -> str:
        return fresh_name(base, self.taken)

    def init(self, base: str, array: np.ndarray) -> str:
        name = self.fresh(base)
        self.inits[name] = np.asarray(array)
        return name

    def value(self, name: str) -> str:
        """A graph value used as an ONNX input: params become initializers (once)."""
        if self.g.is_param(name) and name not in self.inits:
            self.inits[name] = np.asarray(self.g.params[name])
        return name

    def add(self, op: str, ins: list[str], out: str | None = None, **attrs: Any) -> str:
        out = out or self.fresh(f"{op}_out")
        self.nodes.append(helper.make_node(op, ins, [out], name=self.fresh(op), **attrs))
        return out

    # -- Q/DQ
    def q(self, x: str, scale, zero, dtype: str, out: str | None = None, axis=None) -> str:
        s, z = self._qparams(x, scale, zero, dtype, axis is None)
        extra = {} if axis is None else {"axis": axis}
        return self.add("QuantizeLinear", [x, s, z], out, **extra)

    def dq(self, q: str, scale, zero, dtype: str, out: str | None = None, axis=None) -> str:
        s, z = self._qparams(q, scale, zero, dtype, axis is None)
        extra = {} if axis is None else {"axis": axis}
        return self.add("DequantizeLinear", [q, s, z], out, **extra)

    def _qparams(self, base: str, scale, zero, dtype: str, scalar: bool) -> tuple[str, str]:
        """Initializers of a scale and zero point: 0-D per tensor (ONNX Runtime's QDQ
        fusions want scalars), 1-D per channel."""
        zt = {"int32": np.int32, **ZERO_TYPES}[dtype]
        scale, zero = np.asarray(scale, np.float32), np.asarray(zero).astype(zt)
        if scalar:
            scale, zero = scale.reshape(()), zero.reshape(())
        s = self.init(f"{base}_scale", scale)
        z = self.init(f"{base}_zero_point", zero)
        return s, z

    # -- nodes
    def export(self, node: Node) -> None:
        a, op = node.attrs, node.op
        if op == "quantize":
            dtype = a.get("dtype", "uint8")
            axis = a.get("axis", 1) if isinstance(a["scale"], list) else None
            self.q(self.value(node.inputs[0]), a["scale"], a.get("zero_point", 0), dtype,
                   node.outputs[0], axis)  # fmt: skip
            if axis is None:
                self.scale_of[node.outputs[0]] = (float(a["scale"]), int(a.get("zero_point", 0)))
        elif op == "dequantize":
            dtype = self.g.value(node.inputs[0]).dtype
            axis = a.get("axis", 1) if isinstance(a["scale"], list) else None
            self.dq(node.inputs[0], a["scale"], a.get("zero_point", 0), dtype, node.outputs[0],
                    axis)  # fmt: skip
        elif op == "qconv2d":
            self.qconv(node)
        elif op == "conv2d":
            conv = self.add("Conv", [self.value(v) for v in node.inputs[:2]] + self._bias(node),
                            **_conv_attrs(a))  # fmt: skip
            self.epilogue(node, conv)
        elif op == "dense":
            ins = [self.value(v) for v in node.inputs[:2]] + self._bias(node)
            self.epilogue(node, self.add("Gemm", ins, transB=1))
        elif op == "pool2d":
            self.pool(node)
        elif op == "global_pool2d":
            kind = "GlobalMaxPool" if a.get("kind") == "max" else "GlobalAveragePool"
            self.add(kind, [self.value(node.inputs[0])], node.outputs[0])
        elif op == "reshape":
            shape = self.init(f"{node.name}_shape", np.asarray(a["shape"], np.int64))
            self.add("Reshape", [self.value(node.inputs[0]), shape], node.outputs[0])
        elif op in BINARY:
            self.add(BINARY[op], [self.value(v) for v in node.inputs], node.outputs[0])
        elif op in UNARY:
            self.add(UNARY[op], [self.value(node.inputs[0])], node.outputs[0])
        elif op == "clip":
            self.clip(self.value(node.inputs[0]), a["lo"], a["hi"], node.outputs[0])
        else:
            raise ExportError(f"{node.where()}: no QDQ ONNX export for op {op!r}")

    def _bias(self, node: Node) -> list[str]:
        return [self.value(node.inputs[2])] if "bias" in node.attrs.get("epilogue", []) else []

    def clip(self, x: str, lo: float, hi: float, out: str | None = None) -> str:
        bounds = [self.init(f"{x}_{k}", np.float32(v)) for k, v in (("min", lo), ("max", hi))]
        return self.add("Clip", [x, *bounds], out)

    def epilogue(self, node: Node, y: str) -> None:
        """A float anchor's fused epilogue (bias went into the op): relu, clip, residual."""
        steps = [s for s in node.attrs.get("epilogue", []) if s != "bias"]
        n_in = 2 + ("bias" in node.attrs.get("epilogue", []))
        for i, step in enumerate(steps):
            out = node.outputs[0] if i == len(steps) - 1 else None
            kind, *args = str(step).split(":")
            if kind == "relu":
                y = self.add("Relu", [y], out)
            elif kind == "clip" and len(args) == 2:
                y = self.clip(y, float(args[0]), float(args[1]), out)
            elif kind == "residual":
                y = self.add("Add", [y, self.value(node.inputs[n_in])], out)
            else:
                raise ExportError(f"{node.where()}: no ONNX export for epilogue step {step!r}")
        if not steps:
            self.nodes[-1].output[0] = node.outputs[0]

    def pool(self, node: Node) -> None:
        a = node.attrs
        attrs: dict[str, Any] = {
            "kernel_shape": list(a["kernel"]),
            "strides": list(a["strides"]),
            "pads": list(a["padding"]),
            "ceil_mode": int(bool(a.get("ceil_mode", False))),
        }
        if a["kind"] == "max":
            attrs["dilations"] = list(a.get("dilation", [1, 1]))
            self.add("MaxPool", [self.value(node.inputs[0])], node.outputs[0], **attrs)
        else:
            attrs["count_include_pad"] = int(bool(a.get("count_include_pad", False)))
            self.add("AveragePool", [self.value(node.inputs[0])], node.outputs[0], **attrs)

    def qconv(self, node: Node) -> None:
        a = node.attrs
        for key in ("data_scale", "weight_scale", "out_scale"):
            if key not in a:
                raise ExportError(
                    f"{node.where()}: no {key!r} attr (int8 graphs saved before QDQ export "
                    "existed lack it; quantize the model again)"
                )
        if a.get("out_dtype", "uint8") != "uint8":
            raise ExportError(f"{node.where()}: only uint8 outputs are exported")
        if a.get("activation") is not None or a.get("residual_rule", "fixed") != "fixed":
            raise ExportError(
                f"{node.where()}: an activation or float-rule residual epilogue (from a QDQ "
                "import) has no export; export the float model's quantization instead"
            )
        x, w, b = node.inputs[:3]
        s_x, z_x = float(a["data_scale"]), int(a.get("data_zero_point", 0))
        s_w = np.broadcast_to(np.asarray(a["weight_scale"], np.float32), (self.g.shape(w)[0],))
        x_dq = self.dq(x, s_x, z_x, "uint8")
        wq = self.init(f"{w}", self.g.params[w])
        w_dq = self.dq(wq, s_w, np.zeros(s_w.shape, np.int8), "int8", axis=0)
        bq = self.init(f"{b}", self.g.params[b].astype(np.int32))
        b_scale = (np.float32(s_x) * s_w).astype(np.float32)
        b_dq = self.dq(bq, b_scale, np.zeros(s_w.shape, np.int32), "int32", axis=0)
        y = self.add("Conv", [x_dq, w_dq, b_dq], **_conv_attrs(a))
        res = a.get("residual")
        if res is not None:  # conv quantized at s_c, plus the rescaled residual
            s_c, s_r, s_out, z_r, z_out = res
            c_q = self.q(y, s_c, a.get("out_zero_point", 0), "uint8")
            c_dq = self.dq(c_q, s_c, a.get("out_zero_point", 0), "uint8")
            r_dq = self.dq(node.inputs[4], s_r, z_r, "uint8")
            y = self.add("Add", [c_dq, r_dq])
            s_y, z_y = float(s_out), int(z_out)
        else:
            s_y, z_y = float(a["out_scale"]), int(a.get("out_zero_point", 0))
        if a.get("out_max") is not None:
            y = self.clip(y, 0.0, (int(a["out_max"]) - z_y) * s_y)
        elif a.get("relu") and (res is None or z_y != 0):
            # after a residual add at zero point 0 the uint8 saturation is the ReLU: left
            # out, so that ONNX Runtime fuses DQ-Add-Q into QLinearAdd
            y = self.add("Relu", [y])
        self.q(y, s_y, z_y, "uint8", node.outputs[0])


def _conv_attrs(a: dict) -> dict[str, Any]:
    return {
        "strides": list(a.get("strides", [1, 1])),
        "pads": list(a.get("padding", [0, 0, 0, 0])),
        "dilations": list(a.get("dilation", [1, 1])),
        "group": int(a.get("groups", 1)),
    }


def export_qdq(graph: Graph, opset: int = OPSET) -> onnx.ModelProto:
    """The QDQ ONNX model of an int8 graph; ExportError naming the node for ops with no
    export. The model passes onnx.checker (full check, with shape inference)."""
    ex = _Exporter(graph)
    for node in graph.nodes:
        ex.export(node)
    inputs = [
        helper.make_tensor_value_info(v.name, _elem(v.dtype), list(v.shape)) for v in graph.inputs
    ]
    outputs = [
        helper.make_tensor_value_info(o, _elem(graph.value(o).dtype), list(graph.shape(o)))
        for o in graph.outputs
    ]
    inits = [numpy_helper.from_array(np.ascontiguousarray(v), k) for k, v in ex.inits.items()]
    body = helper.make_graph(ex.nodes, graph.name or "tunefarm_int8", inputs, outputs, inits)
    model = helper.make_model(
        body, opset_imports=[helper.make_opsetid("", opset)], producer_name="tunefarm"
    )
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def _elem(dtype: str) -> int:
    return {
        "float32": TensorProto.FLOAT,
        "uint8": TensorProto.UINT8,
        "int8": TensorProto.INT8,
        "int32": TensorProto.INT32,
    }[dtype]
