"""BERT encoders for the model zoo, built node for node as exporters write them.

The graph follows what `torch.onnx.export` makes of a Hugging Face `BertModel` (eval mode):
`Gather` embedding lookups on int64 `input_ids` / `token_type_ids`, position ids sliced
from a constant buffer, the classic extended attention mask (Unsqueeze, Cast, Sub, Mul by
-10000), per-head attention with Shape->Gather->Unsqueeze->Concat->Reshape arithmetic and
4-D MatMuls, Softmax on the last axis, erf GELU, a Gather + Gemm + Tanh pooler. Odd layers
spell two things the other way exporters also do: LayerNormalization decomposed into
ReduceMean/Sub/Pow/Sqrt/Div (opsets before 17), and the mask applied with
Equal/Expand/Where on float32's lowest value (newer transformers). Weights are random
(BERT's N(0, 0.02) init, a little wider so attention is not uniform).

Inputs: input_ids, attention_mask, token_type_ids, all int64 [batch, seq]; outputs:
last_hidden_state [batch, seq, hidden] and pooler_output [batch, hidden].
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

__all__ = ["CONFIGS", "BertConfig", "build_bert", "bert_node_count", "bert_param_count"]

OPSET = 17  # LayerNormalization appears at 17
MAX_POSITIONS = 512
WEIGHT_STD = 0.05


@dataclass(frozen=True)
class BertConfig:
    layers: int
    hidden: int
    heads: int
    intermediate: int
    vocab: int = 30522
    seq: int = 128
    type_vocab: int = 2


CONFIGS = {
    "bert-base": BertConfig(layers=12, hidden=768, heads=12, intermediate=3072),
    "bert-tiny": BertConfig(layers=2, hidden=128, heads=2, intermediate=512),
}


class _Bert:
    """Nodes and initializers of one model; every tensor name is unique."""

    def __init__(self, cfg: BertConfig, rng: np.random.Generator | None):
        self.cfg, self.rng = cfg, rng
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[TensorProto] = []
        self.params = 0
        self.count = 0

    def op(self, op: str, inputs: list[str], name: str | None = None, **attrs) -> str:
        self.count += 1
        out = name or f"/{op}_{self.count}"
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def const(self, name: str, value: np.ndarray) -> str:
        if self.rng is not None:
            self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def weight(self, name: str, shape: tuple[int, ...], kind: str = "normal") -> str:
        self.params += math.prod(shape)
        if self.rng is None:
            return name
        if kind == "normal":
            value = self.rng.standard_normal(shape, dtype=np.float32) * np.float32(WEIGHT_STD)
        elif kind == "gamma":
            value = self.rng.uniform(0.8, 1.2, shape).astype(np.float32)
        else:
            value = self.rng.uniform(-0.1, 0.1, shape).astype(np.float32)
        return self.const(name, value)

    # -- layers
    def linear(self, x: str, name: str, n_in: int, n_out: int) -> str:
        """torch's Linear on a 3-D input: MatMul by W^T then Add of the bias."""
        w = self.weight(f"{name}.weight_T", (n_in, n_out))
        b = self.weight(f"{name}.bias", (n_out,), "bias")
        return self.op("Add", [self.op("MatMul", [x, w]), b], f"{name}/Add")

    def layer_norm(self, x: str, name: str, fused: bool) -> str:
        h = self.cfg.hidden
        g = self.weight(f"{name}.weight", (h,), "gamma")
        b = self.weight(f"{name}.bias", (h,), "bias")
        if fused:
            return self.op("LayerNormalization", [x, g, b], f"{name}/LN", axis=-1, epsilon=1e-12)
        mean = self.op("ReduceMean", [x], axes=[-1], keepdims=1)
        d = self.op("Sub", [x, mean])
        var = self.op("ReduceMean", [self.op("Pow", [d, self.scalar("two", 2.0)])], axes=[-1])
        std = self.op("Sqrt", [self.op("Add", [var, self.scalar("eps", 1e-12)])])
        y = self.op("Div", [d, std])
        return self.op("Add", [self.op("Mul", [y, g]), b], f"{name}/LN")

    def scalar(self, name: str, value: float) -> str:
        name = f"const.{name}"
        if all(t.name != name for t in self.inits) and self.rng is not None:
            self.const(name, np.array(value, np.float32))
        return name

    def ints(self, name: str, values: list[int]) -> str:
        name = f"const.{name}"
        if all(t.name != name for t in self.inits) and self.rng is not None:
            self.const(name, np.array(values, np.int64))
        return name

    def dim(self, x: str, i: int) -> str:
        """Unsqueeze(Gather(Shape(x), i)): one dim as a 1-D tensor, as exporters write it."""
        d = self.op("Gather", [self.op("Shape", [x]), self.ints(f"i{i}", i)], axis=0)
        return self.op("Unsqueeze", [d, self.ints("axes0", [0])])

    def gelu(self, x: str) -> str:
        e = self.op("Erf", [self.op("Div", [x, self.scalar("sqrt2", math.sqrt(2.0))])])
        half = self.op("Mul", [x, self.scalar("half", 0.5)])
        return self.op("Mul", [half, self.op("Add", [e, self.scalar("one", 1.0)])])

    def heads(self, x: str, perm: list[int]) -> str:
        """[B, S, H] -> [B, nh, S, hd] (or [B, nh, hd, S] for keys) via dynamic reshape."""
        c = self.cfg
        shape = self.op(
            "Concat",
            [self.dim(x, 0), self.dim(x, 1), self.ints("nh", [c.heads]),
             self.ints("hd", [c.hidden // c.heads])],
            axis=0,
        )  # fmt: skip
        return self.op("Transpose", [self.op("Reshape", [x, shape])], perm=perm)

    def attention(self, x: str, name: str, mask: str, where_form: bool) -> str:
        c = self.cfg
        q = self.heads(self.linear(x, f"{name}.query", c.hidden, c.hidden), [0, 2, 1, 3])
        k = self.heads(self.linear(x, f"{name}.key", c.hidden, c.hidden), [0, 2, 3, 1])
        v = self.heads(self.linear(x, f"{name}.value", c.hidden, c.hidden), [0, 2, 1, 3])
        scale = self.scalar("sqrt_hd", math.sqrt(c.hidden // c.heads))
        scores = self.op("Div", [self.op("MatMul", [q, k]), scale])
        if where_form:
            full = self.op("Expand", [mask, self.op("Shape", [scores])])
            low = self.scalar("lowest", float(np.finfo(np.float32).min))
            scores = self.op("Where", [full, low, scores])
        else:
            scores = self.op("Add", [scores, mask])
        probs = self.op("Softmax", [scores], axis=-1)
        ctx = self.op("Transpose", [self.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
        shape = self.op(
            "Concat", [self.dim(ctx, 0), self.dim(ctx, 1), self.ints("m1", [-1])], axis=0
        )
        return self.op("Reshape", [ctx, shape])

    def layer(self, x: str, i: int, masks: tuple[str, str]) -> str:
        c, name, odd = self.cfg, f"encoder.layer.{i}", i % 2 == 1
        a = self.attention(x, f"{name}.attention.self", masks[odd], where_form=odd)
        a = self.linear(a, f"{name}.attention.output.dense", c.hidden, c.hidden)
        x = self.layer_norm(self.op("Add", [a, x]), f"{name}.attention.output.LayerNorm", not odd)
        h = self.gelu(self.linear(x, f"{name}.intermediate.dense", c.hidden, c.intermediate))
        h = self.linear(h, f"{name}.output.dense", c.intermediate, c.hidden)
        return self.layer_norm(self.op("Add", [h, x]), f"{name}.output.LayerNorm", not odd)

    def embeddings(self) -> str:
        c = self.cfg
        words = self.weight("embeddings.word_embeddings.weight", (c.vocab, c.hidden))
        pos = self.weight("embeddings.position_embeddings.weight", (MAX_POSITIONS, c.hidden))
        types = self.weight("embeddings.token_type_embeddings.weight", (c.type_vocab, c.hidden))
        buffer = self.const(
            "embeddings.position_ids", np.arange(MAX_POSITIONS, dtype=np.int64)[None]
        )
        seq = self.dim("input_ids", 1)
        ids = self.op("Slice", [buffer, self.ints("zero1", [0]), seq, self.ints("one1", [1])])
        e = self.op(
            "Add",
            [self.op("Gather", [words, "input_ids"]), self.op("Gather", [types, "token_type_ids"])],
        )
        e = self.op("Add", [e, self.op("Gather", [pos, ids])])
        return self.layer_norm(e, "embeddings.LayerNorm", fused=True)

    def masks(self) -> tuple[str, str]:
        """The additive (1 - mask) * -10000 mask, and the boolean mask == 0 for Where."""
        m4 = self.op(
            "Unsqueeze",
            [
                self.op("Unsqueeze", ["attention_mask", self.ints("axes1", [1])]),
                self.ints("axes2", [2]),
            ],
        )
        f = self.op("Cast", [m4], to=TensorProto.FLOAT)
        additive = self.op(
            "Mul", [self.op("Sub", [self.scalar("one", 1.0), f]), self.scalar("neg", -10000.0)]
        )
        return additive, self.op("Equal", [m4, self.ints("zero", 0)])

    def build(self) -> None:
        c = self.cfg
        x = self.embeddings()
        masks = self.masks()
        for i in range(c.layers):
            x = self.layer(x, i, masks)
        self.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="last"))
        first = self.op("Gather", [x, self.ints("first", 0)], axis=1)
        w = self.weight("pooler.dense.weight", (c.hidden, c.hidden))
        b = self.weight("pooler.dense.bias", (c.hidden,), "bias")
        pooled = self.op("Gemm", [first, w, b], transB=1)
        self.nodes.append(helper.make_node("Tanh", [pooled], ["pooler_output"], name="pooler"))


def _make(cfg: BertConfig, batch: int, rng: np.random.Generator | None) -> _Bert:
    if cfg.hidden % cfg.heads:
        raise ValueError(f"hidden {cfg.hidden} must be a multiple of heads {cfg.heads}")
    if not 1 <= cfg.seq <= MAX_POSITIONS:
        raise ValueError(f"sequence length must be in 1..{MAX_POSITIONS}, got {cfg.seq}")
    b = _Bert(cfg, rng)
    b.build()
    return b


def build_bert(name: str, cfg: BertConfig, batch: int, seed: int) -> onnx.ModelProto:
    """The checked model with random weights from `seed`."""
    b = _make(cfg, batch, np.random.default_rng(seed))
    i64, f32 = TensorProto.INT64, TensorProto.FLOAT
    inputs = [
        helper.make_tensor_value_info(n, i64, [batch, cfg.seq])
        for n in ("input_ids", "attention_mask", "token_type_ids")
    ]
    outputs = [
        helper.make_tensor_value_info("last_hidden_state", f32, [batch, cfg.seq, cfg.hidden]),
        helper.make_tensor_value_info("pooler_output", f32, [batch, cfg.hidden]),
    ]
    graph = helper.make_graph(b.nodes, name, inputs, outputs, initializer=b.inits)
    opsets = [helper.make_opsetid("", OPSET)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="tunefarm.zoo")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def bert_node_count(cfg: BertConfig) -> int:
    return len(_make(cfg, 1, None).nodes)


def bert_param_count(cfg: BertConfig) -> int:
    return _make(cfg, 1, None).params
