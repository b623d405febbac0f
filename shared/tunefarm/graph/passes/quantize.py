"""int8 quantization of an optimised float graph: convs become `qconv2d` nodes whose
activations stay uint8 between them, with float only at the edges.

    qgraph, report = quantize_graph(graph, QuantizeOptions(calibration=[inputs, ...]))

What it does, in order:
1. calibrate: run the float graph (numpy interpreter) on the calibration inputs (given, or
   N seeded random ones) and record each activation's range, by min/max or a percentile;
   in global-scale mode (the VTA tutorial's `global_scale=8.0`) every range is [-g, g]
   (or [0, g] for a value that is never negative);
2. pick the convs: dense or depthwise, any dilation, channel counts divisible by 4, an
   epilogue of bias / residual add / ReLU or ReLU6 (a clip at 0; its upper bound becomes
   an `out_max` on the output grid); skipped by name or by conv index, and the
   first conv stays float by default (as the tutorial's `skip_conv_layers=[0]`);
3. rewrite: weights symmetric per output channel (int8, [-127, 127]), bias to int32 at
   scale s_x * s_w, activations asymmetric uint8; requantize, bias, ReLU and the residual
   add are the qconv's epilogue; a `quantize` node where a float value enters an int8 conv
   and a `dequantize` node where an int8 value leaves for a float op or a graph output.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tunefarm.graph.interpret import run_graph_all, run_node
from tunefarm.graph.ir import Graph, GraphError, Node, random_inputs
from tunefarm.graph.passes.dead_code import eliminate_dead_code
from tunefarm.graph.shapes import infer_shapes

METHODS = ("minmax", "percentile")
EPILOGUES = ([], ["bias"], ["relu"], ["bias", "relu"], ["bias", "residual"])
EPILOGUES += (["bias", "residual", "relu"], ["residual"], ["residual", "relu"])


class QuantizeError(GraphError):
    """Bad quantization options (the message names the option)."""


@dataclass(frozen=True)
class QuantizeOptions:
    """calibration: input dicts to calibrate on (None: `num_random` seeded random ones);
    method "minmax" or "percentile" (of each tail, `percentile` e.g. 99.99);
    global_scale: if set, every activation range is [-g, g] and calibration is skipped;
    skip: conv node names or conv indices (0 = the first conv) kept in float;
    skip_first: keep conv 0 float (the default, as the tutorial)."""

    calibration: list[dict[str, np.ndarray]] | None = None
    num_random: int = 4
    method: str = "minmax"
    percentile: float = 99.99
    global_scale: float | None = None
    skip: tuple = ()
    skip_first: bool = True
    seed: int = 0

    def check(self) -> None:
        if self.method not in METHODS:
            raise QuantizeError(f"calibration method {self.method!r}: use one of {METHODS}")
        if not 50.0 < self.percentile <= 100.0:
            raise QuantizeError(f"percentile {self.percentile} must be in (50, 100]")
        if self.global_scale is not None and not self.global_scale > 0:
            raise QuantizeError(f"global_scale must be positive, got {self.global_scale}")
        if self.calibration is None and self.num_random < 1:
            raise QuantizeError(f"num_random must be >= 1, got {self.num_random}")


@dataclass
class QuantizeReport:
    quantized: list[str] = field(default_factory=list)
    kept_float: dict[str, str] = field(default_factory=dict)  # conv name -> why

    def to_json(self) -> dict:
        return {"quantized": list(self.quantized), "kept_float": dict(self.kept_float)}


def qparams(lo: float, hi: float) -> tuple[float, int]:
    """uint8 (scale, zero point) covering [lo, hi] with real zero exactly representable."""
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    scale = (hi - lo) / 255.0 if hi > lo else 1.0
    zero = int(np.clip(np.rint(-lo / scale), 0, 255))
    return float(np.float32(scale)), zero


def weight_qparams(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric per-output-channel int8 weights and their float32 scales."""
    flat = np.abs(w.reshape(w.shape[0], -1)).max(axis=1)
    scale = np.where(flat > 0, flat / 127.0, 1.0).astype(np.float32)
    q = np.clip(np.rint(w / scale.reshape(-1, 1, 1, 1)), -127, 127).astype(np.int8)
    return q, scale


def _pre_residual(node: Node) -> Node:
    """The node computing a fused conv's value just before its residual add."""
    epi = node.attrs.get("epilogue", [])
    cut = epi[: epi.index("residual")]
    n_in = 2 + ("bias" in cut)
    return Node(
        node.name + ".pre", node.op, node.inputs[:n_in], ["pre"], {**node.attrs, "epilogue": cut}
    )


def calibrate(graph: Graph, opts: QuantizeOptions) -> dict[str, tuple[float, float]]:
    """value name -> (lo, hi) over the calibration inputs (keys "<conv>.pre" hold fused
    convs' pre-residual values)."""
    inputs = opts.calibration or [
        random_inputs(graph, opts.seed + i) for i in range(opts.num_random)
    ]
    samples: dict[str, list[np.ndarray]] = {}
    for feed in inputs:
        env = run_graph_all(graph, feed)
        for node in graph.nodes:
            if "residual" in node.attrs.get("epilogue", []):
                pre = _pre_residual(node)
                env[pre.name] = run_node(pre, [env[i] for i in pre.inputs])[0]
        for name, arr in env.items():
            if name not in graph.params and arr.dtype == np.float32:
                samples.setdefault(name, []).append(arr.reshape(-1))
    ranges = {}
    for name, arrs in samples.items():
        x = np.concatenate(arrs)
        if opts.global_scale is not None:
            g = opts.global_scale
            ranges[name] = (0.0 if x.min() >= 0 else -g, g)
        elif opts.method == "percentile":
            ranges[name] = tuple(np.percentile(x, [100 - opts.percentile, opts.percentile]))
        else:
            ranges[name] = (float(x.min()), float(x.max()))
    return ranges


def _relu6(step: str) -> bool:
    """A clip at zero and above (ReLU6): ReLU plus an upper clamp in the quantized domain."""
    kind, *args = str(step).split(":")
    return kind == "clip" and len(args) == 2 and float(args[0]) == 0.0 and float(args[1]) > 0


def _why_float(g: Graph, node: Node, index: int, opts: QuantizeOptions) -> str | None:
    a = node.attrs
    if index == 0 and opts.skip_first:
        return "first conv (kept float by default)"
    if node.name in opts.skip or index in opts.skip:
        return "skipped by option"
    o, c = g.shape(node.inputs[1])[:2]
    groups = a.get("groups", 1)
    depthwise = groups > 1 and c == 1 and groups == o == g.shape(node.inputs[0])[1]
    if groups != 1 and not depthwise:
        return "grouped conv"
    if (c % 4 and not depthwise) or o % 4:
        return f"channels {c} -> {o} are not multiples of 4"
    epi = [e for e in a.get("epilogue", []) if not _relu6(e)]
    if epi != list(a.get("epilogue", [])) and epi not in ([], ["bias"]):
        return f"epilogue {a.get('epilogue')} has no int8 form"
    if epi not in [list(e) for e in EPILOGUES]:
        return f"epilogue {a.get('epilogue')} has no int8 form"
    return None


def quantize_graph(
    graph: Graph, opts: QuantizeOptions = QuantizeOptions()
) -> tuple[Graph, QuantizeReport]:
    """The int8 graph of an optimised float graph, and which convs were quantized."""
    opts.check()
    convs = [n for n in graph.nodes if n.op == "conv2d"]
    report = QuantizeReport()
    chosen = set()
    for i, node in enumerate(convs):
        why = _why_float(graph, node, i, opts)
        if why is None:
            chosen.add(node.name)
            report.quantized.append(node.name)
        else:
            report.kept_float[node.name] = why
    ranges = calibrate(graph, opts)
    return _Rewriter(graph, ranges, chosen).run(), report


class _Rewriter:
    """Builds the quantized node list: qconv2d for chosen convs, quantize / dequantize at
    the edges between float and int8 (once per value)."""

    def __init__(self, graph: Graph, ranges: dict, chosen: set[str]):
        self.src, self.ranges, self.chosen = graph, ranges, chosen
        self.g = graph.copy()
        self.nodes: list[Node] = []
        self.qvalue: dict[str, str] = {}  # float value -> its uint8 value
        self.qp: dict[str, tuple[float, int]] = {}  # uint8 value -> (scale, zero point)
        self.int_only: set[str] = set()  # float values only held as uint8 (need dequantize)

    def params_of(self, value: str) -> tuple[float, int]:
        if value not in self.ranges:
            raise GraphError(f"value {value!r} was not seen in calibration")
        return qparams(*self.ranges[value])

    def quantized(self, value: str) -> str:
        """The uint8 value of float `value`, adding a quantize node the first time."""
        if value not in self.qvalue:
            scale, zero = self.params_of(value)
            q = self.g.unique_name(f"{value}.u8")
            attrs = {"scale": scale, "zero_point": zero, "dtype": "uint8"}
            self.nodes.append(
                Node(self.g.unique_name(f"{value}.quantize"), "quantize", [value], [q], attrs)
            )
            self.qvalue[value], self.qp[q] = q, (scale, zero)
        return self.qvalue[value]

    def dequantized(self, value: str) -> None:
        """Make float `value` available again from its uint8 value (once)."""
        if value in self.int_only:
            q = self.qvalue[value]
            scale, zero = self.qp[q]
            attrs = {"scale": scale, "zero_point": zero}
            self.nodes.append(
                Node(self.g.unique_name(f"{value}.dequantize"), "dequantize", [q], [value], attrs)
            )
            self.int_only.discard(value)

    def run(self) -> Graph:
        for node in self.src.nodes:
            if node.name in self.chosen:
                self.qconv(node)
                continue
            for v in node.inputs:
                self.dequantized(v)
            self.nodes.append(node)
        for v in self.src.outputs:
            self.dequantized(v)
        self.g.nodes = self.nodes
        return eliminate_dead_code(infer_shapes(self.g))

    def qconv(self, node: Node) -> None:
        g, epi = self.g, list(node.attrs.get("epilogue", []))
        x = self.quantized(node.inputs[0])
        s_x, z_x = self.qp[x]
        w = g.params[node.inputs[1]].astype(np.float32)
        wq, s_w = weight_qparams(w)
        bias = g.params[node.inputs[2]] if "bias" in epi else np.zeros(w.shape[0], np.float32)
        acc_scale = np.float64(s_x) * s_w.astype(np.float64)
        bias_q = np.rint(bias.astype(np.float64) / acc_scale).astype(np.int32)
        out = node.outputs[0]
        s_y, z_y = self.params_of(out)
        ins = [
            x,
            g.add_param(f"{node.name}.weight_q", wq),
            g.add_param(f"{node.name}.bias_q", bias_q),
        ]
        keys = ("strides", "padding", "dilation", "groups")
        attrs = {k: node.attrs[k] for k in keys if k in node.attrs}
        clip = [e for e in epi if _relu6(e)]
        relu = "relu" in epi or bool(clip)
        attrs.update(data_zero_point=z_x, out_dtype="uint8", relu=relu, residual=None)
        # the scales, for the QDQ ONNX export (`frontend.qdq_export`)
        attrs.update(data_scale=s_x, weight_scale=s_w.astype(float).tolist(), out_scale=s_y)
        if "residual" in epi:
            s_c, z_c = self.params_of(f"{node.name}.pre")
            r = self.quantized(node.inputs[3 if "bias" in epi else 2])
            s_r, z_r = self.qp[r]
            attrs.update(out_zero_point=z_c, residual=[s_c, s_r, s_y, z_r, z_y])
            requant = acc_scale / s_c
            ins_tail = [r]
        else:
            attrs.update(out_zero_point=z_y)
            requant = acc_scale / s_y
            ins_tail = []
        if clip:  # the clip's upper bound on the output's grid
            hi = float(clip[0].split(":")[2])
            attrs["out_max"] = int(min(255, z_y + np.rint(hi / s_y)))
        ins.append(g.add_param(f"{node.name}.requant", requant.astype(np.float32)))
        q_out = g.unique_name(f"{out}.u8")
        self.nodes.append(Node(node.name, "qconv2d", ins + ins_tail, [q_out], attrs))
        self.qvalue[out], self.qp[q_out] = q_out, (s_y, z_y)
        self.int_only.add(out)


def accuracy(reference: np.ndarray, got: np.ndarray) -> dict[str, float]:
    """How close a quantized network's output is to the float one: cosine similarity and
    max |got - reference| / max |reference|."""
    a, b = reference.astype(np.float64).ravel(), got.astype(np.float64).ravel()
    denom = float(np.linalg.norm(a) * np.linalg.norm(b))
    cosine = float(a @ b / denom) if denom > 0 else float(np.array_equal(a, b))
    scale = float(np.abs(a).max()) or 1.0
    return {"cosine": cosine, "max_rel_error": float(np.abs(a - b).max() / scale)}
