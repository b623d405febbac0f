"""In-process competitors for the kernel benchmark: numpy (OpenBLAS) and ONNX Runtime.

Both are timed with tunefarm's own time-evaluator loop (`tunefarm.measure.time_evaluator`):
`number` grows until one timed call lasts `min_repeat_ms`, exactly as the runner does for a
tunefarm candidate, so the three columns of the report mean the same thing. The difference
is what one "run" contains: a tunefarm run is the compiled kernel called in a C loop; a numpy
or ONNX Runtime run is one Python call, so its interpreter and binding overhead is included.
For ONNX Runtime the profiler gives its own per-run time without that overhead.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tunefarm.measure import MeasureSettings, time_evaluator

NUMPY_NOTE = (
    "numpy conv = np.pad + im2col (as_strided view, copied by reshape) + np.matmul (OpenBLAS "
    "sgemm), the whole conv per run, nothing pre-allocated; dense = x @ W.T"
)
ORT_NOTE = (
    "ORT = InferenceSession.run of a one-node model (Conv or Gemm, weights as initializers) "
    "from Python, per-call overhead included; 'ORT op' = the Conv/Gemm node's own kernel time "
    "from ORT's profiler (median, separate non-interleaved run), without the NCHWc reorders "
    "ORT inserts around it (the whole model_run time is in the JSON)"
)
SETTLE_S = 0.2  # idle gap after an in-process competitor: OpenBLAS threads spin ~0.1 s
_IR_VERSION = 8  # accepted by every ONNX Runtime release we may meet
_OPSET = 17


def python_fn_time(fn: Callable[[], Any]) -> Callable[[int], float]:
    """Adapt a Python callable to the evaluator: call it `number` times, seconds per call."""

    def fn_time(number: int) -> float:
        start = time.perf_counter()
        for _ in range(number):
            fn()
        return (time.perf_counter() - start) / number

    return fn_time


def median_ms(
    fn: Callable[[], Any], repeat: int, clock: Callable[[], float] = time.perf_counter
) -> float:
    """Median milliseconds of `repeat` calls of `fn` by `clock` (`time.thread_time` for the
    one-core CPU-time comparisons of the network and per-layer benchmarks)."""
    times = []
    for _ in range(repeat):
        start = clock()
        fn()
        times.append((clock() - start) * 1e3)
    return statistics.median(times)


def time_once(fn: Callable[[], Any], min_repeat_ms: float) -> float:
    """One measured repeat: grow `number` from 1 until a call lasts `min_repeat_ms`, and
    return that call's seconds per run (the same rule a tunefarm candidate is timed by)."""
    settings = MeasureSettings(number=1, repeat=1, min_repeat_ms=min_repeat_ms)
    timing = time_evaluator(python_fn_time(fn), settings)
    time.sleep(SETTLE_S)
    return timing.costs[0]


# -- numpy ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class ConvShape:
    """A conv's attributes as the competitors need them (symmetric padding, no dilation)."""

    strides: tuple[int, int]
    padding: tuple[int, int, int, int]  # top, left, bottom, right


def numpy_conv(x: np.ndarray, w: np.ndarray, shape: ConvShape) -> np.ndarray:
    """NCHW x OIHW conv at batch 1 as im2col + one sgemm; the whole conv, every call."""
    top, left, bottom, right = shape.padding
    sh, sw = shape.strides
    o, c, kh, kw = w.shape
    xp = np.pad(x[0], ((0, 0), (top, bottom), (left, right)))
    oh = (xp.shape[1] - kh) // sh + 1
    ow = (xp.shape[2] - kw) // sw + 1
    s_c, s_h, s_w = xp.strides
    cols = np.lib.stride_tricks.as_strided(
        xp,
        shape=(c, kh, kw, oh, ow),
        strides=(s_c, s_h, s_w, s_h * sh, s_w * sw),
        writeable=False,
    )
    out = np.matmul(w.reshape(o, c * kh * kw), cols.reshape(c * kh * kw, oh * ow))
    return out.reshape(1, o, oh, ow)


def numpy_dense(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return x @ w.T


# -- ONNX Runtime --------------------------------------------------------------------------
def onnx_model_bytes(
    op: str, x_shape: tuple[int, ...], w: np.ndarray, conv: ConvShape | None
) -> bytes:
    """A one-node model: Conv (weights as an initializer) or Gemm with transB=1."""
    from onnx import TensorProto, helper, numpy_helper

    if op == "conv2d":
        assert conv is not None
        top, left, bottom, right = conv.padding
        node = helper.make_node(
            "Conv",
            ["x", "w"],
            ["y"],
            kernel_shape=list(w.shape[2:]),
            strides=list(conv.strides),
            pads=[top, left, bottom, right],
        )
    else:
        node = helper.make_node("Gemm", ["x", "w"], ["y"], transB=1)
    graph = helper.make_graph(
        [node],
        f"tunefarm_bench_{op}",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x_shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.ascontiguousarray(w), "w")],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", _OPSET)], ir_version=_IR_VERSION
    )
    return model.SerializeToString()


def ort_session(model: bytes, threads: int, profile_prefix: str | None = None) -> Any:
    """An InferenceSession on the CPU provider with `threads` intra-op threads."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.log_severity_level = 3
    if profile_prefix is not None:
        opts.enable_profiling = True
        opts.profile_file_prefix = profile_prefix
    return ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])


@dataclass(frozen=True)
class OrtProfile:
    """ORT's own per-run seconds from its profiler: whole run and the anchor op node alone."""

    run_costs: tuple[float, ...]
    op_costs: tuple[float, ...]
    node_ops: tuple[str, ...]  # op types of the nodes ORT actually ran (after its rewrites)

    def to_json(self) -> dict[str, Any]:
        return {
            "run_median": statistics.median(self.run_costs),
            "run_min": min(self.run_costs),
            "op_median": statistics.median(self.op_costs),
            "op_min": min(self.op_costs),
            "runs": len(self.run_costs),
            "node_ops": list(self.node_ops),
        }


def ort_profile(model: bytes, feeds: dict[str, np.ndarray], threads: int, budget_s: float):
    """Run a profiling session for about `budget_s` (at least 20 runs, after a warm-up) and
    return ORT's own per-run times; None if the profile cannot be read."""
    with tempfile.TemporaryDirectory(prefix="tunefarm-ort-") as tmp:
        sess = ort_session(model, threads, os.path.join(tmp, "prof"))
        for _ in range(5):
            sess.run(None, feeds)
        start, runs = time.perf_counter(), 0
        while runs < 20 or time.perf_counter() - start < budget_s:
            sess.run(None, feeds)
            runs += 1
        path = sess.end_profiling()
        with open(path) as fh:
            events = json.load(fh)
    time.sleep(SETTLE_S)
    return _parse_profile(events, skip=5)


def _parse_profile(events: list[dict[str, Any]], skip: int) -> OrtProfile | None:
    """Per model_run: its duration, and the summed kernel time of the non-reorder nodes."""
    runs = [e for e in events if e.get("cat") == "Session" and e.get("name") == "model_run"]
    nodes = [e for e in events if e.get("cat") == "Node" and e["name"].endswith("_kernel_time")]
    runs = sorted(runs, key=lambda e: e["ts"])[skip:]
    if not runs or not nodes:
        return None
    run_costs, op_costs, ops = [], [], set()
    for run in runs:
        lo, hi = run["ts"], run["ts"] + run["dur"]
        inside = [n for n in nodes if lo <= n["ts"] <= hi]
        anchor = [n for n in inside if not n["args"].get("op_name", "").startswith("Reorder")]
        ops.update(n["args"].get("op_name", "?") for n in inside)
        run_costs.append(run["dur"] * 1e-6)
        op_costs.append(sum(n["dur"] for n in anchor) * 1e-6)
    return OrtProfile(tuple(run_costs), tuple(op_costs), tuple(sorted(ops)))
