"""The operator library written in tunefarm's tensor IR.

Each op takes Tensors and attributes and returns its output Tensor; helper stages it creates
(padding, partial reductions, bias) are named after the op's `name` so one DAG can hold many
ops. `tunefarm.ir.evaluate` runs these DAGs with numpy for testing.
"""

from tunefarm.ir.ops.conv import (
    conv2d_nchw,
    conv2d_nchwc,
    conv2d_nhwc,
    conv_output_size,
    depthwise_conv2d_nchw,
    depthwise_conv2d_nchwc,
    pad,
)
from tunefarm.ir.ops.dense import batch_matmul, dense, dense_pack, matmul
from tunefarm.ir.ops.elementwise import (
    EPILOGUES,
    add,
    bias_add,
    cast,
    clip,
    divide,
    epilogue_chain,
    hard_sigmoid,
    hard_swish,
    leaky_relu,
    maximum,
    minimum,
    multiply,
    relu,
    sigmoid,
    silu,
    subtract,
)
from tunefarm.ir.ops.layout import layout_transform
from tunefarm.ir.ops.pool import global_pool2d, pool2d
from tunefarm.ir.ops.softmax import log_softmax, softmax

__all__ = [
    "EPILOGUES",
    "add",
    "batch_matmul",
    "bias_add",
    "cast",
    "clip",
    "conv2d_nchw",
    "conv2d_nchwc",
    "conv2d_nhwc",
    "conv_output_size",
    "dense",
    "dense_pack",
    "depthwise_conv2d_nchw",
    "depthwise_conv2d_nchwc",
    "divide",
    "epilogue_chain",
    "global_pool2d",
    "hard_sigmoid",
    "hard_swish",
    "layout_transform",
    "leaky_relu",
    "log_softmax",
    "matmul",
    "maximum",
    "minimum",
    "multiply",
    "pad",
    "pool2d",
    "relu",
    "sigmoid",
    "silu",
    "softmax",
    "subtract",
]
