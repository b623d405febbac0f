"""The numpy oracle against onnxruntime (single-node ONNX models) and against itself.

NCHW ops are compared with onnxruntime on awkward shapes; the NHWC, blocked, depthwise and
batched variants are compared with the NCHW ones through layout transforms.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from tunefarm.ir import reference as ref
from tunefarm.ir.layouts import transform

OPSET = 21
RNG = np.random.default_rng(1234)


def _rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def run_onnx(
    op: str, inputs: list[np.ndarray | None], out_type: int = TensorProto.FLOAT, **attrs: Any
) -> np.ndarray:
    """Run one ONNX node on `inputs` (None = omitted optional input) and return its output."""
    names = [f"in{i}" if a is not None else "" for i, a in enumerate(inputs)]
    infos, feeds = [], {}
    for name, arr in zip(names, inputs, strict=True):
        if arr is None:
            continue
        elem = helper.np_dtype_to_tensor_dtype(arr.dtype)
        infos.append(helper.make_tensor_value_info(name, elem, arr.shape))
        feeds[name] = arr
    out = helper.make_tensor_value_info("out", out_type, None)
    node = helper.make_node(op, names, ["out"], **attrs)
    graph = helper.make_graph([node], f"single_{op}", infos, [out])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 10
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)[0]


def close(got: np.ndarray, want: np.ndarray, tol: float = 1e-4) -> None:
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


# ---------------------------------------------------------------- convolution

CONV_CASES = [
    # (N, C, H, W), (O, KH, KW), strides, pads (t, l, b, r), dilation, groups
    ((1, 3, 7, 9), (4, 3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    ((2, 4, 11, 10), (6, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 1),
    ((2, 6, 9, 13), (4, 3, 5), (2, 1), (0, 2, 1, 3), (1, 1), 2),
    ((1, 4, 15, 12), (8, 3, 3), (1, 2), (2, 1, 2, 0), (2, 3), 4),
    ((2, 5, 8, 8), (10, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 5),
    ((1, 3, 17, 17), (2, 7, 7), (2, 2), (3, 3, 3, 3), (1, 1), 1),
    ((2, 8, 5, 6), (4, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
]


@pytest.mark.parametrize(("xshape", "wspec", "strides", "pads", "dilation", "groups"), CONV_CASES)
def test_conv2d_nchw_matches_onnx(xshape, wspec, strides, pads, dilation, groups) -> None:
    o, kh, kw = wspec
    x, w = _rand(*xshape), _rand(o, xshape[1] // groups, kh, kw)
    want = run_onnx("Conv", [x, w], strides=strides, pads=pads, dilations=dilation, group=groups)
    close(ref.conv2d_nchw(x, w, strides, pads, dilation, groups), want)


@pytest.mark.parametrize(("xshape", "wspec", "strides", "pads", "dilation", "groups"), CONV_CASES)
def test_conv2d_nhwc_matches_nchw(xshape, wspec, strides, pads, dilation, groups) -> None:
    o, kh, kw = wspec
    x, w = _rand(*xshape), _rand(o, xshape[1] // groups, kh, kw)
    want = ref.conv2d_nchw(x, w, strides, pads, dilation, groups)
    x_nhwc, w_hwio = transform(x, "NCHW", "NHWC"), transform(w, "OIHW", "HWIO")
    got = ref.conv2d_nhwc(x_nhwc, w_hwio, strides, pads, dilation, groups)
    close(got, transform(want, "NCHW", "NHWC"))


@pytest.mark.parametrize(("cb", "ib", "ob"), [(4, 4, 8), (8, 2, 4), (2, 8, 16)])
def test_conv2d_nchwc_matches_nchw(cb: int, ib: int, ob: int) -> None:
    x, w = _rand(2, 8, 9, 7), _rand(16, 8, 3, 3)
    want = ref.conv2d_nchw(x, w, (2, 1), (1, 0, 2, 1), (1, 2))
    xb, wb = transform(x, "NCHW", f"NCHW{cb}c"), transform(w, "OIHW", f"OIHW{ib}i{ob}o")
    got = ref.conv2d_nchwc(xb, wb, (2, 1), (1, 0, 2, 1), (1, 2))
    assert got.shape == (2, 16 // ob, 5, 4, ob)
    close(got, transform(want, "NCHW", f"NCHW{ob}c"))


@pytest.mark.parametrize("multiplier", [1, 2])
def test_depthwise_matches_grouped_conv_and_onnx(multiplier: int) -> None:
    x, w = _rand(2, 6, 11, 9), _rand(6 * multiplier, 1, 3, 3)
    got = ref.depthwise_conv2d_nchw(x, w, (2, 2), (1, 0, 1, 2), (1, 1))
    close(got, ref.conv2d_nchw(x, w, (2, 2), (1, 0, 1, 2), (1, 1), groups=6))
    want = run_onnx("Conv", [x, w], strides=(2, 2), pads=(1, 0, 1, 2), group=6)
    close(got, want)


def test_pad_nchw_matches_onnx() -> None:
    x = _rand(2, 3, 5, 4)
    pads = np.array([0, 0, 1, 2, 0, 0, 3, 0], dtype=np.int64)  # ONNX: all begins, all ends
    want = run_onnx("Pad", [x, pads, np.array(1.5, dtype=np.float32)], mode="constant")
    close(ref.pad_nchw(x, (1, 2, 3, 0), value=1.5), want)
    close(ref.pad_nchw(x, (1, 2)), ref.pad_nchw(x, (1, 2, 1, 2)))
    close(ref.pad_nchw(x, 1), ref.pad_nchw(x, (1, 1, 1, 1)))


# ---------------------------------------------------------------- pooling

POOL_CASES = [
    # (N, C, H, W), kernel, strides, pads (t, l, b, r), ceil_mode
    ((2, 3, 7, 7), (3, 3), (2, 2), (1, 1, 1, 1), False),
    ((2, 3, 8, 8), (3, 3), (2, 2), (0, 0, 0, 0), True),
    ((1, 2, 9, 10), (3, 2), (2, 3), (1, 0, 1, 1), True),
    ((1, 2, 6, 6), (2, 2), (2, 2), (1, 1, 1, 1), True),
    ((2, 4, 13, 11), (3, 3), (3, 2), (2, 1, 0, 2), False),
    ((1, 3, 5, 7), (5, 7), (1, 1), (0, 0, 0, 0), False),
    # ceil mode would add windows that start in the bottom/right padding: ONNX drops them
    ((1, 2, 3, 6), (2, 2), (3, 3), (0, 0, 1, 1), True),
]


@pytest.mark.parametrize(("xshape", "kernel", "strides", "pads", "ceil"), POOL_CASES)
def test_max_pool_matches_onnx(xshape, kernel, strides, pads, ceil) -> None:
    x = _rand(*xshape)
    want = run_onnx(
        "MaxPool", [x], kernel_shape=kernel, strides=strides, pads=pads, ceil_mode=int(ceil)
    )
    close(ref.max_pool2d_nchw(x, kernel, strides, pads, ceil_mode=ceil), want)


@pytest.mark.parametrize("ceil", [False, True])
def test_max_pool_dilated_matches_onnx(ceil: bool) -> None:
    x = _rand(2, 3, 12, 11)
    kw = dict(kernel_shape=(3, 2), strides=(2, 2), pads=(1, 1, 1, 0), dilations=(2, 3))
    want = run_onnx("MaxPool", [x], ceil_mode=int(ceil), **kw)
    got = ref.max_pool2d_nchw(x, (3, 2), (2, 2), (1, 1, 1, 0), (2, 3), ceil_mode=ceil)
    close(got, want)


@pytest.mark.parametrize("include_pad", [False, True])
@pytest.mark.parametrize(("xshape", "kernel", "strides", "pads", "ceil"), POOL_CASES)
def test_avg_pool_matches_onnx(xshape, kernel, strides, pads, ceil, include_pad) -> None:
    x = _rand(*xshape)
    want = run_onnx(
        "AveragePool",
        [x],
        kernel_shape=kernel,
        strides=strides,
        pads=pads,
        ceil_mode=int(ceil),
        count_include_pad=int(include_pad),
    )
    got = ref.avg_pool2d_nchw(x, kernel, strides, pads, ceil, count_include_pad=include_pad)
    close(got, want)


def test_global_pools_match_onnx() -> None:
    x = _rand(2, 5, 7, 3)
    close(ref.global_avg_pool2d_nchw(x), run_onnx("GlobalAveragePool", [x]))
    close(ref.global_max_pool2d_nchw(x), run_onnx("GlobalMaxPool", [x]))
    assert ref.global_avg_pool2d_nchw(x).shape == (2, 5, 1, 1)


@pytest.mark.parametrize(
    ("args", "want"),
    [
        # (size, kernel, stride, pad_begin, pad_end, dilation, ceil_mode)
        ((224, 7, 2, 3, 3, 1, False), 112),
        ((112, 3, 2, 1, 1, 1, False), 56),
        ((8, 3, 2, 0, 0, 1, False), 3),
        ((8, 3, 2, 0, 0, 1, True), 4),
        ((3, 2, 3, 0, 1, 1, True), 1),  # a second window would start in the end padding
        ((12, 3, 2, 1, 1, 2, True), 6),
        ((5, 5, 1, 0, 0, 1, True), 1),
    ],
)
def test_pool_output_size(args: tuple, want: int) -> None:
    assert ref.pool_output_size(*args) == want


@pytest.mark.parametrize(("xshape", "kernel", "strides", "pads", "ceil"), POOL_CASES)
def test_pool_output_size_matches_onnx_shapes(xshape, kernel, strides, pads, ceil) -> None:
    x = _rand(*xshape)
    want = run_onnx(
        "MaxPool", [x], kernel_shape=kernel, strides=strides, pads=pads, ceil_mode=int(ceil)
    )
    sizes = [
        ref.pool_output_size(xshape[2 + i], kernel[i], strides[i], pads[i], pads[i + 2], 1, ceil)
        for i in range(2)
    ]
    assert tuple(sizes) == want.shape[2:]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0, 3, 1, 0, 0, 1, False), "size values must be >= 1"),
        ((5, 0, 1, 0, 0, 1, False), "kernel values must be >= 1"),
        ((5, 3, 0, 0, 0, 1, False), "stride values must be >= 1"),
        ((5, 3, 1, -1, 0, 1, False), "pad_begin values must be >= 0"),
        ((5, 3, 1, 0, 0, 0, False), "dilation values must be >= 1"),
        ((5, 3, 1.5, 0, 0, 1, False), "stride must be an int"),
        ((4, 3, 1, 0, 0, 2, False), "does not fit size 4"),
    ],
)
def test_pool_output_size_rejects_bad_arguments(args: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ref.pool_output_size(*args)


# ---------------------------------------------------------------- matrix products


@pytest.mark.parametrize("with_bias", [False, True])
def test_dense_matches_onnx_gemm(with_bias: bool) -> None:
    x, w, b = _rand(3, 17), _rand(5, 17), _rand(5)
    want = run_onnx("Gemm", [x, w, b if with_bias else None], transB=1)
    close(ref.dense(x, w, b if with_bias else None), want)


def test_matmul_matches_onnx() -> None:
    a, b = _rand(7, 13), _rand(13, 3)
    close(ref.matmul(a, b), run_onnx("MatMul", [a, b]))


@pytest.mark.parametrize(("ba", "bb"), [(3, 3), (1, 4), (2, 1)])
def test_batch_matmul_matches_onnx_and_transpose(ba: int, bb: int) -> None:
    a, b = _rand(ba, 5, 7), _rand(bb, 7, 3)
    want = run_onnx("MatMul", [a, b])
    close(ref.batch_matmul(a, b), want)
    b_t = np.ascontiguousarray(b.transpose(0, 2, 1))
    close(ref.batch_matmul(a, b_t, transpose_b=True), want)
    close(ref.batch_matmul(a[:1], b[:1])[0], ref.matmul(a[0], b[0]))


# ---------------------------------------------------------------- elementwise and softmax

BINARY = [
    ("add", "Add"),
    ("subtract", "Sub"),
    ("multiply", "Mul"),
    ("divide", "Div"),
    ("maximum", "Max"),
    ("minimum", "Min"),
]


@pytest.mark.parametrize(("name", "onnx_op"), BINARY)
def test_binary_broadcasting_matches_onnx(name: str, onnx_op: str) -> None:
    a, b = _rand(2, 3, 1, 5), _rand(4, 1) + 3.0
    close(ref.OPS[name](a, b), run_onnx(onnx_op, [a, b]))


def test_bias_add_matches_onnx_add() -> None:
    x, b = _rand(2, 5, 3, 4), _rand(5)
    close(ref.bias_add(x, b), run_onnx("Add", [x, b.reshape(5, 1, 1)]))
    b4 = _rand(4)
    close(ref.bias_add(x, b4, axis=-1), run_onnx("Add", [x, b4]))
    close(ref.bias_add(x, b4, axis=3), ref.bias_add(x, b4, axis=-1))


@pytest.mark.parametrize(
    ("name", "onnx_op", "kwargs", "attrs"),
    [
        ("relu", "Relu", {}, {}),
        ("sigmoid", "Sigmoid", {}, {}),
        ("hard_sigmoid", "HardSigmoid", {}, {}),
        ("hard_sigmoid", "HardSigmoid", {"alpha": 0.3, "beta": 0.4}, {"alpha": 0.3, "beta": 0.4}),
        ("hard_swish", "HardSwish", {}, {}),
        ("leaky_relu", "LeakyRelu", {}, {}),
        ("leaky_relu", "LeakyRelu", {"alpha": 0.2}, {"alpha": 0.2}),
        ("softmax", "Softmax", {}, {}),
        ("softmax", "Softmax", {"axis": 1}, {"axis": 1}),
        ("log_softmax", "LogSoftmax", {}, {}),
        ("log_softmax", "LogSoftmax", {"axis": 0}, {"axis": 0}),
    ],
)
def test_unary_matches_onnx(name: str, onnx_op: str, kwargs: dict, attrs: dict) -> None:
    x = _rand(3, 4, 7) * 4.0
    close(ref.OPS[name](x, **kwargs), run_onnx(onnx_op, [x], **attrs))


def test_clip_matches_onnx() -> None:
    x = _rand(3, 9) * 5
    lo, hi = np.array(-1.5, np.float32), np.array(2.0, np.float32)
    close(ref.clip(x, -1.5, 2.0), run_onnx("Clip", [x, lo, hi]))


def test_cast_matches_onnx() -> None:
    x = _rand(4, 5) * 10
    close(
        ref.cast(x, "float16"),
        run_onnx("Cast", [x], TensorProto.FLOAT16, to=TensorProto.FLOAT16),
        tol=1e-3,
    )
    np.testing.assert_array_equal(
        ref.cast(x, np.int32), run_onnx("Cast", [x], TensorProto.INT32, to=TensorProto.INT32)
    )


def test_sigmoid_and_softmax_are_stable_for_extreme_inputs() -> None:
    x = np.array([[-1e4, 0.0, 1e4]], dtype=np.float32)
    with np.errstate(over="raise", divide="raise", invalid="raise"):
        np.testing.assert_allclose(ref.sigmoid(x), [[0.0, 0.5, 1.0]])
        np.testing.assert_allclose(ref.softmax(x), [[0.0, 0.0, 1.0]])
        assert np.isfinite(ref.log_softmax(x)).all()


# ---------------------------------------------------------------- general contract


def test_layout_transform_delegates() -> None:
    x = _rand(1, 8, 2, 3)
    np.testing.assert_array_equal(ref.layout_transform(x, "NCHW", "NCHW4c"),
                                  transform(x, "NCHW", "NCHW4c"))  # fmt: skip


def test_ops_table_names_every_function() -> None:
    expected = {
        "pad_nchw", "conv2d_nchw", "conv2d_nhwc", "conv2d_nchwc", "depthwise_conv2d_nchw",
        "dense", "matmul", "batch_matmul", "max_pool2d_nchw", "avg_pool2d_nchw",
        "global_avg_pool2d_nchw", "global_max_pool2d_nchw", "add", "subtract", "multiply",
        "divide", "maximum", "minimum", "bias_add", "affine", "relu", "clip", "sigmoid",
        "hard_sigmoid", "silu", "hard_swish", "leaky_relu", "cast", "softmax", "log_softmax",
        "layout_transform",
        "erf", "tanh", "sqrt", "square", "gelu", "equal", "where", "gather", "broadcast_to",
        "layer_norm",
    }  # fmt: skip
    assert set(ref.OPS) == expected
    assert all(ref.OPS[name].__name__ == name for name in expected)


def test_inputs_are_not_modified_and_dtype_is_kept() -> None:
    x, w = _rand(1, 4, 6, 6), _rand(4, 4, 3, 3)
    xc, wc = x.copy(), w.copy()
    out = ref.conv2d_nchw(x, w, 1, 1)
    ref.max_pool2d_nchw(x, 2, 2, 0)
    ref.avg_pool2d_nchw(x, 3, 1, 1, count_include_pad=True)
    ref.softmax(x, axis=1)
    np.testing.assert_array_equal(x, xc)
    np.testing.assert_array_equal(w, wc)
    assert out.dtype == np.float32 and out.flags.c_contiguous


# ---------------------------------------------------------------- bad arguments

BAD_CALLS = [
    (lambda: ref.conv2d_nchw(_rand(4, 6, 6), _rand(2, 4, 3, 3)), "x must have 4 dims"),
    (lambda: ref.conv2d_nchw(_rand(1, 4, 6, 6), _rand(2, 3, 3, 3)), "C/groups = 4, got 3"),
    (lambda: ref.conv2d_nchw(_rand(1, 4, 6, 6), _rand(3, 2, 3, 3), groups=2), "groups=2 must"),
    (lambda: ref.conv2d_nchw(_rand(1, 4, 6, 6), _rand(2, 4, 3, 3), strides=0), "strides"),
    (lambda: ref.conv2d_nchw(_rand(1, 4, 6, 6), _rand(2, 4, 3, 3), padding=(1, 2, 3)), "padding"),
    (lambda: ref.conv2d_nchw(_rand(1, 4, 6, 6), _rand(2, 4, 3, 3), padding=-1), "padding"),
    (lambda: ref.conv2d_nchw(_rand(1, 4, 6, 6), _rand(2, 4, 3, 3), dilation=(1,)), "dilation"),
    (lambda: ref.conv2d_nchw(_rand(1, 4, 2, 6), _rand(2, 4, 3, 3)), "does not fit"),
    (lambda: ref.conv2d_nchw(_rand(1, 4, 6, 6), _rand(2, 4, 3, 3), strides=1.5), "strides"),
    (lambda: ref.conv2d_nhwc(_rand(1, 6, 6, 4), _rand(3, 3, 3, 2)), "HWIO.*I must be"),
    (lambda: ref.conv2d_nchw(_rand(1, 4, 6, 6), _rand(2, 4, 3, 3), groups=0), "groups"),
    (lambda: ref.conv2d_nchwc(_rand(1, 1, 5, 5, 4), _rand(1, 1, 3, 3, 4, 4), groups=2), "groups=1"),
    (lambda: ref.conv2d_nchwc(_rand(1, 1, 5, 5, 4), _rand(1, 2, 3, 3, 4, 4)), "input channels"),
    (lambda: ref.depthwise_conv2d_nchw(_rand(1, 4, 6, 6), _rand(6, 1, 3, 3)), "C\\*m, 1"),
    (lambda: ref.dense(_rand(2, 5), _rand(3, 4)), "share K"),
    (lambda: ref.dense(_rand(2, 5), _rand(3, 5), _rand(4)), "bias must have shape \\(3,\\)"),
    (lambda: ref.matmul(_rand(2, 5), _rand(4, 3)), "columns must equal"),
    (lambda: ref.batch_matmul(_rand(2, 3, 4), _rand(3, 4, 5)), "batch sizes"),
    (lambda: ref.batch_matmul(_rand(2, 3, 4), _rand(2, 4, 5), transpose_b=True), "K differs"),
    (lambda: ref.max_pool2d_nchw(_rand(1, 1, 5, 5), 2, 2, (2, 0, 0, 0)), "smaller than the kernel"),
    (lambda: ref.max_pool2d_nchw(_rand(1, 1, 5, 5), (2, 0), 2, 0), "kernel values must be >= 1"),
    (lambda: ref.avg_pool2d_nchw(_rand(1, 1, 2, 2), 3, 1, 0), "does not fit"),
    (lambda: ref.add(_rand(2, 3), _rand(4)), "add: shapes .* do not broadcast"),
    (lambda: ref.bias_add(_rand(2, 3, 4), _rand(4)), "b must have shape \\(3,\\)"),
    (lambda: ref.bias_add(_rand(2, 3), _rand(3), axis=2), "axis must be an int in"),
    (lambda: ref.clip(_rand(3), 2.0, 1.0), "lo <= hi"),
    (lambda: ref.clip(_rand(3), None, 1.0), "clip bound lo must be a real number"),
    (lambda: ref.cast(_rand(3), "not_a_dtype"), "dtype must be"),
    (lambda: ref.softmax(_rand(3, 4), axis=-3), "axis"),
    (lambda: ref.relu(np.array(["a", "b"])), "x must be a numeric array"),
]


@pytest.mark.parametrize(("call", "message"), BAD_CALLS)
def test_bad_arguments_raise_value_error(call: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()
