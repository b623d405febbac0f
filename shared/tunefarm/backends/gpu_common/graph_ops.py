"""GPU templates for the light ops between a network's anchors: data movement (copy, concat,
slice, pad, transpose, gather, broadcast_to), where, LRN and layer_norm; softmax and
reduce_mean are in `generic.py`.

They exist so that a whole network compiles for a GPU: each is one output element per
thread (`generic.ThreadPerOutput`, the schedule of `pool.thread_steps`), correct on any shape
and not tiled: together these ops take a few percent of a CNN's time. They take the same
params as the CPU's generic templates of the same op (both take their specs from
`backends/op_specs.py`), so the network compiler builds the same tasks for either target.
"""

from __future__ import annotations

from tunefarm.backends.gpu_common.generic import ThreadPerOutput
from tunefarm.backends.op_specs import SPECS

OPS = ("copy", "concat", "slice", "pad", "transpose", "lrn", "where", "gather", "broadcast_to")
TEMPLATES = [ThreadPerOutput(SPECS[op]) for op in (*OPS, "layer_norm")]
