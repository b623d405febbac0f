"""Graph passes: each takes a Graph and returns a new one computing the same outputs.

`optimize` is the pipeline the compiler and task extraction run; the passes are also
importable one by one (tests check each against the numpy interpreter on small graphs).
Layout alteration to blocked layouts is not here: it depends on the configs chosen per
task, so the network compiler does it (see `tunefarm.compiler.layout`).
"""

from __future__ import annotations

from tunefarm.graph.ir import Graph
from tunefarm.graph.passes.attention import fuse_attention, unfuse_attention
from tunefarm.graph.passes.batch_norm import fold_batch_norm
from tunefarm.graph.passes.channel_affine import fuse_channel_affine
from tunefarm.graph.passes.constants import fold_constants
from tunefarm.graph.passes.conv_taps import split_bands, trim_dead_taps
from tunefarm.graph.passes.dead_code import eliminate_dead_code
from tunefarm.graph.passes.fuse import fuse_epilogues
from tunefarm.graph.passes.pool_first import pool_before_pointwise_conv
from tunefarm.graph.passes.pooling import mean_to_global_pool
from tunefarm.graph.passes.rows_first import select_rows_first
from tunefarm.graph.passes.silu import fuse_silu
from tunefarm.graph.passes.transformer import fuse_gelu, fuse_layer_norm, hoist_through_reshape


def optimize(graph: Graph, attention: bool = True) -> Graph:
    """Constant folding, batch-norm folding, a mean over H and W as a global average pool,
    conv taps that read only padding cut away, attention recognition (unless `attention`
    is False: benchmarks compare with and without it), layer-norm, GELU and SiLU
    recognition, hoisting a dense's tail through reshapes, epilogue fusion, picks of a few
    rows moved above the row-wise nodes before them, dead-code elimination. (Splitting
    convs that mostly read padding into bands is for CPUs: `graph.extract.for_target`.)"""
    graph = fold_constants(graph)
    graph = fold_batch_norm(graph)
    graph = mean_to_global_pool(graph)
    graph = trim_dead_taps(graph)
    if attention:
        graph = fuse_attention(graph)
    graph = fuse_layer_norm(graph)
    graph = fuse_gelu(graph)
    graph = fuse_silu(graph)
    graph = hoist_through_reshape(graph)
    graph = fuse_epilogues(graph)
    graph = select_rows_first(graph)
    return eliminate_dead_code(graph)


__all__ = [
    "eliminate_dead_code",
    "fold_batch_norm",
    "fuse_attention",
    "fuse_channel_affine",
    "fold_constants",
    "fuse_epilogues",
    "fuse_gelu",
    "fuse_layer_norm",
    "fuse_silu",
    "hoist_through_reshape",
    "mean_to_global_pool",
    "optimize",
    "pool_before_pointwise_conv",
    "select_rows_first",
    "split_bands",
    "trim_dead_taps",
    "unfuse_attention",
]
