"""The model zoo: standard CNNs and BERT encoders built as ONNX models with random weights.

Nothing can be downloaded where tunefarm runs, yet the frontend, the task extractor and the
tuner all want real networks to chew on. The graphs below follow the published (torchvision)
structures node for node, so operator mix, shapes and parameter counts are the real ones; only
the weights are random. They are drawn so that activations keep roughly unit scale through
50+ layers (He-normal convolutions, BatchNormalization close to identity, residual branches
damped), which keeps numerical comparisons against onnxruntime meaningful.

    model = zoo.build("resnet-50", batch=8)          # an onnx.ModelProto, checked
    zoo.save("mobilenet-v2", "mnv2.onnx", opset=11)
    zoo.describe("vgg-16")                           # shapes and counts, no weights drawn

Input "data" is (batch, 3, H, W) float32; output "output" is the (batch, 1000) logits.
`bert-base` and `bert-tiny` (`tunefarm.frontend.zoo_bert`) take int64 input_ids,
attention_mask and token_type_ids of (batch, seq) instead, seq = `image_size` (default 128),
and are built at opset 17.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from tunefarm.frontend import zoo_bert

__all__ = ["ZooError", "ModelInfo", "names", "build", "describe", "save", "param_count"]

MIN_OPSET = 9  # Clip takes attributes below 11, MaxPool has no ceil_mode below 10
MAX_OPSET = 21  # nothing used here changes meaning up to this opset
NUM_CLASSES = 1000
RESIDUAL_GAMMA = 0.3  # last BN of a residual branch: keeps the sum's scale from growing fast

Draw = Callable[[np.random.Generator, tuple[int, ...]], np.ndarray]
Shape = tuple[int, ...]


class ZooError(ValueError):
    """A model the zoo cannot build: unknown name, bad batch, image or opset."""


@dataclass(frozen=True)
class ModelInfo:
    """What a zoo model looks like, without its weights (see `describe`)."""

    name: str
    input_shape: tuple[int, ...]
    output_shape: tuple[int, ...]
    nodes: int
    params: int  # conv/gemm weights and biases plus BN scale and bias, as papers count
    opset: int


def _normal(std: float) -> Draw:
    """Normal draws made in place, so the 100M-weight VGG layers are not copied twice."""

    def draw(rng: np.random.Generator, shape: Shape) -> np.ndarray:
        a = rng.standard_normal(shape, dtype=np.float32)
        a *= std
        return a

    return draw


def _uniform(low: float, high: float) -> Draw:
    return lambda rng, shape: rng.uniform(low, high, shape).astype(np.float32)


def _const(value: float) -> Draw:
    return lambda rng, shape: np.full(shape, value, np.float32)


def _pair(v: int | tuple[int, int]) -> tuple[int, int]:
    return (v, v) if isinstance(v, int) else v


class _Builder:
    """Nodes, initializers and the per-sample (C, H, W) shape of every tensor of one model.

    With `rng=None` it is a dry run: nodes and counts only, no weights drawn (fast `describe`).
    Every node writes one tensor named like the node, so names read as torchvision's modules.
    """

    def __init__(self, model: str, rng: np.random.Generator | None, opset: int, chw: Shape):
        self.model, self.rng, self.opset = model, rng, opset
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[TensorProto] = []
        self.params = 0
        self.shape: dict[str, Shape] = {"data": chw}

    # -- plumbing ----------------------------------------------------------------------------
    def channels(self, x: str) -> int:
        return self.shape[x][0]

    def _node(self, op: str, inputs: list[str], name: str, shape: Shape, **attrs) -> str:
        if name in self.shape:
            raise AssertionError(f"{self.model}: duplicate node name {name!r}")
        self.nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        self.shape[name] = shape
        return name

    def _param(self, name: str, shape: Shape, draw: Draw, counted: bool = True) -> str:
        if counted:
            self.params += math.prod(shape)
        if self.rng is not None:
            self.inits.append(numpy_helper.from_array(draw(self.rng, shape), name))
        return name

    def _out(self, size: int, k: int, s: int, p: int, name: str, ceil: bool = False) -> int:
        """Output size as torch computes it; a window larger than the input is a ZooError."""
        span = size + 2 * p - k
        if span < 0:
            raise ZooError(
                f"{self.model}: image too small: {name} gets size {size}, kernel {k} "
                f"with padding {p}; use a larger image_size"
            )
        out = (-(-span // s) if ceil else span // s) + 1
        if ceil and (out - 1) * s >= size + p:  # the last window must start inside the input
            out -= 1
        return out

    def _window(self, x: str, name: str, k, s, p, ceil: bool = False) -> tuple[Shape, dict]:
        """Output shape and attributes of a conv or pool window over x."""
        c, h, w = self.shape[x]
        (kh, kw), (sh, sw), (ph, pw) = _pair(k), _pair(s), _pair(p)
        oh, ow = self._out(h, kh, sh, ph, name, ceil), self._out(w, kw, sw, pw, name, ceil)
        pads = [ph, pw, ph, pw]
        attrs: dict = {"kernel_shape": [kh, kw], "strides": [sh, sw]}
        if ceil and self.opset < 10:  # no ceil_mode yet: pad the end so floor gives ceil
            pads[2] += (oh - 1) * sh + kh - (h + 2 * ph)
            pads[3] += (ow - 1) * sw + kw - (w + 2 * pw)
        elif ceil:
            attrs["ceil_mode"] = 1
        return (c, oh, ow), {**attrs, "pads": pads}

    # -- layers ------------------------------------------------------------------------------
    def conv(self, x, name, cout, k, s=1, p=0, groups=1, bias=False, gain=2.0) -> str:
        """He-normal weights; gain 2 when x comes out of a ReLU, 1 when it is linear."""
        cin = self.channels(x)
        (_, oh, ow), attrs = self._window(x, name, k, s, p)
        kh, kw = attrs["kernel_shape"]
        wshape = (cout, cin // groups, kh, kw)
        std = math.sqrt(gain / (cin // groups * kh * kw))
        inputs = [x, self._param(f"{name}.weight", wshape, _normal(std))]
        if bias:
            inputs.append(self._param(f"{name}.bias", (cout,), _normal(0.01)))
        return self._node("Conv", inputs, name, (cout, oh, ow), group=groups, **attrs)

    def bn(self, x: str, name: str, eps: float = 1e-5, gamma: float = 1.0) -> str:
        """Close to identity: positive variance near 1, small mean and beta."""
        c = (self.channels(x),)
        inputs = [
            x,
            self._param(f"{name}.weight", c, _uniform(0.8 * gamma, 1.2 * gamma)),
            self._param(f"{name}.bias", c, _normal(0.05)),
            self._param(f"{name}.running_mean", c, _normal(0.05), counted=False),
            self._param(f"{name}.running_var", c, _uniform(0.8, 1.2), counted=False),
        ]
        return self._node("BatchNormalization", inputs, name, self.shape[x], epsilon=eps)

    def relu(self, x: str, name: str) -> str:
        return self._node("Relu", [x], name, self.shape[x])

    def relu6(self, x: str, name: str) -> str:
        """Clip(0, 6): bounds as attributes before opset 11, as shared scalar inputs after."""
        if self.opset < 11:
            return self._node("Clip", [x], name, self.shape[x], min=0.0, max=6.0)
        if "relu6.min" not in self.shape:
            for bound, value in (("min", 0.0), ("max", 6.0)):
                self._param(f"relu6.{bound}", (), _const(value), counted=False)
                self.shape[f"relu6.{bound}"] = ()
        return self._node("Clip", [x, "relu6.min", "relu6.max"], name, self.shape[x])

    def conv_bn(self, x, name, cout, k, s=1, p=0, groups=1, act="relu", **kw) -> str:
        """Conv (no bias) + BN [+ Relu or Relu6] as NAME.conv, NAME.bn, NAME.relu."""
        gain, eps, gamma = kw.get("gain", 2.0), kw.get("eps", 1e-5), kw.get("gamma", 1.0)
        y = self.conv(x, f"{name}.conv", cout, k, s, p, groups, gain=gain)
        y = self.bn(y, f"{name}.bn", eps, gamma)
        if act == "relu6":
            return self.relu6(y, f"{name}.relu6")
        return self.relu(y, f"{name}.relu") if act == "relu" else y

    def maxpool(self, x: str, name: str, k: int, s: int, p: int = 0, ceil=False) -> str:
        shape, attrs = self._window(x, name, k, s, p, ceil)
        return self._node("MaxPool", [x], name, shape, **attrs)

    def avgpool(self, x: str, name: str, k: int, s: int, p: int = 0) -> str:
        """torch's avg_pool2d default: padding counts in the divisor."""
        shape, attrs = self._window(x, name, k, s, p)
        return self._node("AveragePool", [x], name, shape, count_include_pad=1, **attrs)

    def gap(self, x: str, name: str) -> str:
        return self._node("GlobalAveragePool", [x], name, (self.channels(x), 1, 1))

    def flatten(self, x: str, name: str) -> str:
        return self._node("Flatten", [x], name, (math.prod(self.shape[x]),), axis=1)

    def gemm(self, x: str, name: str, cout: int, gain: float = 2.0) -> str:
        """Linear layer as Gemm(transB=1): weight (out, in) as torch stores it."""
        cin = self.shape[x][0]
        w = self._param(f"{name}.weight", (cout, cin), _normal(math.sqrt(gain / cin)))
        b = self._param(f"{name}.bias", (cout,), _normal(0.01))
        return self._node("Gemm", [x, w, b], name, (cout,), transB=1)

    def add(self, a: str, b: str, name: str) -> str:
        return self._node("Add", [a, b], name, self.shape[a])

    def concat(self, xs: list[str], name: str) -> str:
        _, h, w = self.shape[xs[0]]
        return self._node("Concat", xs, name, (sum(self.channels(x) for x in xs), h, w), axis=1)

    def dropout(self, x: str, name: str) -> str:
        return self._node("Dropout", [x], name, self.shape[x])

    def classifier(self, x: str, name: str = "fc") -> str:
        """GlobalAveragePool, Flatten, Gemm to the logits: the common ImageNet head."""
        x = self.flatten(self.gap(x, "avgpool"), "flatten")
        return self.gemm(x, name, NUM_CLASSES)

    # -- the model ---------------------------------------------------------------------------
    def finish(self, out: str, batch: int) -> onnx.ModelProto:
        """The checked model; the last node's output is renamed to "output"."""
        assert self.nodes[-1].output[0] == out and self.shape[out] == (NUM_CLASSES,)
        self.nodes[-1].output[0] = "output"
        f32 = TensorProto.FLOAT
        graph = helper.make_graph(
            self.nodes,
            self.model,
            [helper.make_tensor_value_info("data", f32, [batch, *self.shape["data"]])],
            [helper.make_tensor_value_info("output", f32, [batch, NUM_CLASSES])],
            initializer=self.inits,
        )
        opsets = [helper.make_opsetid("", self.opset)]
        model = helper.make_model(graph, opset_imports=opsets, producer_name="tunefarm.zoo")
        # The lowest IR version that holds this opset (and initializers that are not inputs),
        # so that older runtimes, onnxruntime included, load it.
        model.ir_version = max(4, helper.find_min_ir_version_for(opsets))
        onnx.checker.check_model(model)
        return model


# -- ResNet ----------------------------------------------------------------------------------
def _shortcut(b: _Builder, x: str, name: str, cout: int, stride: int) -> str:
    """Identity, or the 1x1 conv + BN "downsample" when shape or width changes."""
    if stride == 1 and b.channels(x) == cout:
        return x
    y = b.conv(x, f"{name}.downsample.0", cout, 1, stride)
    return b.bn(y, f"{name}.downsample.1")


def _basic_block(b: _Builder, x: str, name: str, width: int, stride: int) -> str:
    y = b.conv(x, f"{name}.conv1", width, 3, stride, 1)
    y = b.relu(b.bn(y, f"{name}.bn1"), f"{name}.relu1")
    y = b.bn(b.conv(y, f"{name}.conv2", width, 3, 1, 1), f"{name}.bn2", gamma=RESIDUAL_GAMMA)
    return b.relu(b.add(y, _shortcut(b, x, name, width, stride), f"{name}.add"), f"{name}.relu")


def _bottleneck(b: _Builder, x: str, name: str, width: int, stride: int) -> str:
    """torchvision's (v1.5) bottleneck: the stride sits on the 3x3 conv."""
    y = b.relu(b.bn(b.conv(x, f"{name}.conv1", width, 1), f"{name}.bn1"), f"{name}.relu1")
    y = b.conv(y, f"{name}.conv2", width, 3, stride, 1)
    y = b.relu(b.bn(y, f"{name}.bn2"), f"{name}.relu2")
    y = b.bn(b.conv(y, f"{name}.conv3", width * 4, 1), f"{name}.bn3", gamma=RESIDUAL_GAMMA)
    short = _shortcut(b, x, name, width * 4, stride)
    return b.relu(b.add(y, short, f"{name}.add"), f"{name}.relu")


def _resnet(b: _Builder, blocks: tuple[int, ...], bottleneck: bool) -> str:
    """Deep residual networks (He et al. 2015), the torchvision layout."""
    x = b.bn(b.conv("data", "conv1", 64, 7, 2, 3, gain=1.0), "bn1")
    x = b.maxpool(b.relu(x, "relu"), "maxpool", 3, 2, 1)
    block = _bottleneck if bottleneck else _basic_block
    for i, (width, n) in enumerate(zip((64, 128, 256, 512), blocks, strict=True), 1):
        for j in range(n):
            x = block(b, x, f"layer{i}.{j}", width, 2 if j == 0 and i > 1 else 1)
    return b.classifier(x)


# -- MobileNet -------------------------------------------------------------------------------
_MOBILENET_V1 = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)]
_MOBILENET_V1 += [(512, 1)] * 5 + [(1024, 2), (1024, 1)]
_MOBILENET_V2 = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2)]
_MOBILENET_V2 += [(6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]  # (expand t, c, n, stride)


def _mobilenet_v1(b: _Builder) -> str:
    """Depthwise separable convolutions (Howard et al. 2017), width 1.0."""
    x = b.conv_bn("data", "features.0", 32, 3, 2, 1, gain=1.0)
    for i, (cout, stride) in enumerate(_MOBILENET_V1, 1):
        cin = b.channels(x)
        x = b.conv_bn(x, f"features.{i}.dw", cin, 3, stride, 1, groups=cin)
        x = b.conv_bn(x, f"features.{i}.pw", cout, 1)
    return b.classifier(x)


def _inverted_residual(b: _Builder, x: str, name: str, cout: int, stride: int, t: int) -> str:
    """Expand 1x1, depthwise 3x3, linear 1x1 projection; Add when the shape is unchanged."""
    cin, hidden = b.channels(x), b.channels(x) * t
    residual = stride == 1 and cin == cout
    y = x if t == 1 else b.conv_bn(x, f"{name}.expand", hidden, 1, act="relu6", gain=1.0)
    y = b.conv_bn(y, f"{name}.dw", hidden, 3, stride, 1, groups=hidden, act="relu6")
    gamma = RESIDUAL_GAMMA if residual else 1.0
    y = b.conv_bn(y, f"{name}.project", cout, 1, act=None, gamma=gamma)
    return b.add(x, y, f"{name}.add") if residual else y


def _mobilenet_v2(b: _Builder) -> str:
    """Inverted residuals and linear bottlenecks (Sandler et al. 2018), width 1.0."""
    x = b.conv_bn("data", "features.0", 32, 3, 2, 1, act="relu6", gain=1.0)
    i = 1
    for t, cout, n, stride in _MOBILENET_V2:
        for j in range(n):
            x = _inverted_residual(b, x, f"features.{i}", cout, stride if j == 0 else 1, t)
            i += 1
    x = b.conv_bn(x, f"features.{i}", 1280, 1, act="relu6", gain=1.0)
    return b.classifier(x, "classifier")


# -- SqueezeNet ------------------------------------------------------------------------------
_F16, _F32, _F48, _F64 = (16, 64), (32, 128), (48, 192), (64, 256)  # fire (squeeze, expand)
_SQUEEZENET = {  # per version: stem (channels, kernel), then fire modules and "pool"
    "1.0": ((96, 7), [_F16, _F16, _F32, "pool", _F32, _F48, _F48, _F64, "pool", _F64]),
    "1.1": ((64, 3), [_F16, _F16, "pool", _F32, _F32, "pool", _F48, _F48, _F64, _F64]),
}


def _fire(b: _Builder, x: str, name: str, squeeze: int, expand: int) -> str:
    s = b.relu(b.conv(x, f"{name}.squeeze", squeeze, 1, bias=True), f"{name}.squeeze_activation")
    e1 = b.conv(s, f"{name}.expand1x1", expand, 1, bias=True)
    e3 = b.conv(s, f"{name}.expand3x3", expand, 3, 1, 1, bias=True)
    e1, e3 = b.relu(e1, f"{name}.expand1x1_activation"), b.relu(e3, f"{name}.expand3x3_activation")
    return b.concat([e1, e3], f"{name}.concat")


def _squeezenet(b: _Builder, version: str) -> str:
    """Fire modules (Iandola et al. 2016); max pools round up (ceil_mode) as torchvision's."""
    (stem, k), layers = _SQUEEZENET[version]
    x = b.relu(b.conv("data", "features.0", stem, k, 2, bias=True, gain=1.0), "features.1")
    x = b.maxpool(x, "features.2", 3, 2, ceil=True)
    for i, layer in enumerate(layers, 3):
        if layer == "pool":
            x = b.maxpool(x, f"features.{i}", 3, 2, ceil=True)
        else:
            x = _fire(b, x, f"features.{i}", *layer)
    x = b.relu(b.conv(x, "classifier.1", NUM_CLASSES, 1, bias=True), "classifier.2")
    return b.flatten(b.gap(x, "classifier.3"), "flatten")


# -- Inception-v3 ----------------------------------------------------------------------------
def _cbr(b: _Builder, x: str, name: str, cout: int, k, s=1, p=0) -> str:
    """torchvision's BasicConv2d: conv without bias, BN with eps 0.001, Relu."""
    return b.conv_bn(x, name, cout, k, s, p, eps=1e-3)


def _pool_branch(b: _Builder, x: str, name: str, cout: int) -> str:
    return _cbr(b, b.avgpool(x, f"{name}.avg_pool", 3, 1, 1), f"{name}.branch_pool", cout, 1)


def _inception_a(b: _Builder, x: str, name: str, pool_features: int) -> str:
    b1 = _cbr(b, x, f"{name}.branch1x1", 64, 1)
    b5 = _cbr(b, _cbr(b, x, f"{name}.branch5x5_1", 48, 1), f"{name}.branch5x5_2", 64, 5, 1, 2)
    b3 = _cbr(b, x, f"{name}.branch3x3dbl_1", 64, 1)
    b3 = _cbr(b, b3, f"{name}.branch3x3dbl_2", 96, 3, 1, 1)
    b3 = _cbr(b, b3, f"{name}.branch3x3dbl_3", 96, 3, 1, 1)
    return b.concat([b1, b5, b3, _pool_branch(b, x, name, pool_features)], f"{name}.concat")


def _inception_b(b: _Builder, x: str, name: str) -> str:
    b3 = _cbr(b, x, f"{name}.branch3x3", 384, 3, 2)
    d = _cbr(b, x, f"{name}.branch3x3dbl_1", 64, 1)
    d = _cbr(b, d, f"{name}.branch3x3dbl_2", 96, 3, 1, 1)
    d = _cbr(b, d, f"{name}.branch3x3dbl_3", 96, 3, 2)
    return b.concat([b3, d, b.maxpool(x, f"{name}.max_pool", 3, 2)], f"{name}.concat")


def _inception_c(b: _Builder, x: str, name: str, c7: int) -> str:
    """Factorised 7x7 convolutions as 1x7 and 7x1 pairs."""
    b1 = _cbr(b, x, f"{name}.branch1x1", 192, 1)
    b7 = _cbr(b, x, f"{name}.branch7x7_1", c7, 1)
    b7 = _cbr(b, b7, f"{name}.branch7x7_2", c7, (1, 7), 1, (0, 3))
    b7 = _cbr(b, b7, f"{name}.branch7x7_3", 192, (7, 1), 1, (3, 0))
    d = _cbr(b, x, f"{name}.branch7x7dbl_1", c7, 1)
    for i, (k, p) in enumerate([((7, 1), (3, 0)), ((1, 7), (0, 3)), ((7, 1), (3, 0))], 2):
        d = _cbr(b, d, f"{name}.branch7x7dbl_{i}", c7, k, 1, p)
    d = _cbr(b, d, f"{name}.branch7x7dbl_5", 192, (1, 7), 1, (0, 3))
    return b.concat([b1, b7, d, _pool_branch(b, x, name, 192)], f"{name}.concat")


def _inception_d(b: _Builder, x: str, name: str) -> str:
    b3 = _cbr(b, _cbr(b, x, f"{name}.branch3x3_1", 192, 1), f"{name}.branch3x3_2", 320, 3, 2)
    b7 = _cbr(b, x, f"{name}.branch7x7x3_1", 192, 1)
    b7 = _cbr(b, b7, f"{name}.branch7x7x3_2", 192, (1, 7), 1, (0, 3))
    b7 = _cbr(b, b7, f"{name}.branch7x7x3_3", 192, (7, 1), 1, (3, 0))
    b7 = _cbr(b, b7, f"{name}.branch7x7x3_4", 192, 3, 2)
    return b.concat([b3, b7, b.maxpool(x, f"{name}.max_pool", 3, 2)], f"{name}.concat")


def _split_1x3_3x1(b: _Builder, x: str, name: str) -> str:
    """InceptionE's fork: 1x3 and 3x1 convs side by side, concatenated."""
    a = _cbr(b, x, f"{name}a", 384, (1, 3), 1, (0, 1))
    return b.concat([a, _cbr(b, x, f"{name}b", 384, (3, 1), 1, (1, 0))], f"{name}.concat")


def _inception_e(b: _Builder, x: str, name: str) -> str:
    b1 = _cbr(b, x, f"{name}.branch1x1", 320, 1)
    b3 = _split_1x3_3x1(b, _cbr(b, x, f"{name}.branch3x3_1", 384, 1), f"{name}.branch3x3_2")
    d = _cbr(b, x, f"{name}.branch3x3dbl_1", 448, 1)
    d = _cbr(b, d, f"{name}.branch3x3dbl_2", 384, 3, 1, 1)
    d = _split_1x3_3x1(b, d, f"{name}.branch3x3dbl_3")
    return b.concat([b1, b3, d, _pool_branch(b, x, name, 192)], f"{name}.concat")


def _inception_v3(b: _Builder) -> str:
    """Inception-v3 (Szegedy et al. 2015) as torchvision builds it, without the aux head."""
    x = b.conv_bn("data", "Conv2d_1a_3x3", 32, 3, 2, eps=1e-3, gain=1.0)
    x = _cbr(b, x, "Conv2d_2a_3x3", 32, 3)
    x = b.maxpool(_cbr(b, x, "Conv2d_2b_3x3", 64, 3, 1, 1), "maxpool1", 3, 2)
    x = _cbr(b, _cbr(b, x, "Conv2d_3b_1x1", 80, 1), "Conv2d_4a_3x3", 192, 3)
    x = b.maxpool(x, "maxpool2", 3, 2)
    for name, pool_features in (("Mixed_5b", 32), ("Mixed_5c", 64), ("Mixed_5d", 64)):
        x = _inception_a(b, x, name, pool_features)
    x = _inception_b(b, x, "Mixed_6a")
    for name, c7 in (("Mixed_6b", 128), ("Mixed_6c", 160), ("Mixed_6d", 160), ("Mixed_6e", 192)):
        x = _inception_c(b, x, name, c7)
    x = _inception_d(b, x, "Mixed_7a")
    x = _inception_e(b, _inception_e(b, x, "Mixed_7b"), "Mixed_7c")
    return b.classifier(x)


# -- VGG -------------------------------------------------------------------------------------
_VGG16 = [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"]


def _vgg16(b: _Builder) -> str:
    """VGG-16 (Simonyan & Zisserman 2014), configuration D, no BN, Dropout kept."""
    x, gain = "data", 1.0
    for i, layer in enumerate(_VGG16):
        if layer == "M":
            x = b.maxpool(x, f"features.{i}", 2, 2)
        else:
            x = b.conv(x, f"features.{i}.conv", layer, 3, 1, 1, bias=True, gain=gain)
            x, gain = b.relu(x, f"features.{i}.relu"), 2.0
    side = b.shape[x][1]
    if side % 7:  # torchvision's AdaptiveAvgPool2d(7) can only be a plain pool here
        raise ZooError(
            f"vgg-16: image_size // 32 must be a multiple of 7 (e.g. 224, 448), got a "
            f"{side}x{side} feature map; the classifier takes 512x7x7 features"
        )
    if side != 7:
        x = b.avgpool(x, "avgpool", side // 7, side // 7)
    x = b.flatten(x, "flatten")
    for i, cout in ((0, 4096), (3, 4096)):
        x = b.relu(b.gemm(x, f"classifier.{i}", cout), f"classifier.{i + 1}")
        x = b.dropout(x, f"classifier.{i + 2}")
    return b.gemm(x, "classifier.6", NUM_CLASSES)


# -- public API ------------------------------------------------------------------------------
_ARCHITECTURES: dict[str, tuple[Callable[[_Builder], str], int]] = {
    "resnet-18": (lambda b: _resnet(b, (2, 2, 2, 2), bottleneck=False), 224),
    "resnet-34": (lambda b: _resnet(b, (3, 4, 6, 3), bottleneck=False), 224),
    "resnet-50": (lambda b: _resnet(b, (3, 4, 6, 3), bottleneck=True), 224),
    "mobilenet-v1": (_mobilenet_v1, 224),
    "mobilenet-v2": (_mobilenet_v2, 224),
    "squeezenet-1.0": (lambda b: _squeezenet(b, "1.0"), 224),
    "squeezenet-1.1": (lambda b: _squeezenet(b, "1.1"), 224),
    "inception-v3": (_inception_v3, 299),
    "vgg-16": (_vgg16, 224),
}


def names() -> list[str]:
    """The model names `build` accepts."""
    return list(_ARCHITECTURES) + list(zoo_bert.CONFIGS)


def _bert(name: str, batch: int, seq: int | None, opset: int | None) -> zoo_bert.BertConfig:
    """The BERT config at sequence length `seq`; bad arguments are ZooErrors."""
    cfg = zoo_bert.CONFIGS[name]
    seq = cfg.seq if seq is None else seq
    for what, value in (("batch", batch), ("sequence length (image_size)", seq)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ZooError(f"{name}: {what} must be an int >= 1, got {value!r}")
    if seq > zoo_bert.MAX_POSITIONS:
        raise ZooError(f"{name}: sequence length {seq} is above {zoo_bert.MAX_POSITIONS}")
    if opset not in (None, zoo_bert.OPSET):
        raise ZooError(f"{name}: BERT models are built at opset {zoo_bert.OPSET}, got {opset!r}")
    return zoo_bert.BertConfig(**{**cfg.__dict__, "seq": seq})


def _run(name, batch, image_size, opset, rng) -> tuple[_Builder, str, int, int]:
    """Validate the arguments and run the architecture function on a fresh builder."""
    opset = 13 if opset is None else opset
    if name not in _ARCHITECTURES:
        raise ZooError(f"unknown model {name!r}; known models: {', '.join(names())}")
    arch, default_size = _ARCHITECTURES[name]
    size = default_size if image_size is None else image_size
    for what, value, low in (("batch", batch, 1), ("image_size", size, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ZooError(f"{name}: {what} must be an int >= {low}, got {value!r}")
    if isinstance(opset, bool) or opset not in range(MIN_OPSET, MAX_OPSET + 1):
        raise ZooError(f"{name}: opset must be in {MIN_OPSET}..{MAX_OPSET}, got {opset!r}")
    b = _Builder(name, rng, opset, (3, size, size))
    return b, arch(b), size, batch


def build(
    name: str,
    batch: int = 1,
    seed: int = 0,
    image_size: int | None = None,
    opset: int | None = None,
) -> onnx.ModelProto:
    """The named model with random weights from `seed`, checked by onnx.checker.

    `image_size` (default 224, 299 for inception-v3) shrinks the input for fast tests; sizes
    the architecture cannot take (inception-v3 below 75, vgg-16 off multiples of 224) are a
    ZooError. For BERT models `image_size` is the sequence length. `opset` defaults to 13
    (17 for BERT, the only one it is built at).
    """
    if name in zoo_bert.CONFIGS:
        return zoo_bert.build_bert(name, _bert(name, batch, image_size, opset), batch, seed)
    b, out, _, batch = _run(name, batch, image_size, opset, np.random.default_rng(seed))
    return b.finish(out, batch)


def describe(
    name: str, batch: int = 1, image_size: int | None = None, opset: int | None = None
) -> ModelInfo:
    """Shapes, node and parameter counts of a zoo model, without drawing any weight."""
    if name in zoo_bert.CONFIGS:
        cfg = _bert(name, batch, image_size, opset)
        return ModelInfo(
            name,
            (batch, cfg.seq),
            (batch, cfg.seq, cfg.hidden),
            zoo_bert.bert_node_count(cfg),
            zoo_bert.bert_param_count(cfg),
            zoo_bert.OPSET,
        )
    opset = 13 if opset is None else opset
    b, _, size, batch = _run(name, batch, image_size, opset, None)
    return ModelInfo(
        name, (batch, 3, size, size), (batch, NUM_CLASSES), len(b.nodes), b.params, opset
    )


def save(
    name: str,
    path: str | Path,
    batch: int = 1,
    seed: int = 0,
    image_size: int | None = None,
    opset: int | None = None,
) -> onnx.ModelProto:
    """Build the model and write it to `path`; returns the model written."""
    model = build(name, batch, seed, image_size, opset)
    onnx.save_model(model, str(path))
    return model


def param_count(model: onnx.ModelProto) -> int:
    """Conv/Gemm weights and biases plus BN scale and bias: the count papers quote (for
    BERT: every float initializer but the scalar constants).

    BN running statistics and Clip bounds are initializers too, but not parameters.
    """
    if any(n.op_type == "LayerNormalization" for n in model.graph.node):
        return sum(
            math.prod(t.dims)
            for t in model.graph.initializer
            if t.data_type == TensorProto.FLOAT and len(t.dims) > 0
        )
    counted = set()
    for node in model.graph.node:
        if node.op_type in ("Conv", "Gemm"):
            counted.update(node.input[1:])
        elif node.op_type == "BatchNormalization":
            counted.update(node.input[1:3])
    return sum(math.prod(t.dims) for t in model.graph.initializer if t.name in counted)
