"""Formatting for the kernel benchmark: machine description, the per-layer table, summary.

Works on the plain JSON-able dicts that `kernels.py` produces (one per layer), so the same
data is printed as text, as Markdown, and written to `--json` without conversions.
"""

from __future__ import annotations

import math
import os
import platform
from typing import Any

COLUMNS = (
    # (header, key of the row dict, right-aligned)
    ("layer", "name", False),
    ("shape", "summary", False),
    ("GFLOP", "gflop", True),
    ("best config", "config", False),
    ("TF med", "tf_med", True),
    ("TF min", "tf_min", True),
    ("numpy", "np_med", True),
    ("ORT", "ort_med", True),
    ("ORT op", "ort_op", True),
    ("TF/ORT", "r_ort", True),
    ("TF/np", "r_np", True),
)


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo (platform's answer where that is missing)."""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine_info() -> dict[str, Any]:
    import numpy
    import onnxruntime

    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "onnxruntime": onnxruntime.__version__,
    }


def short_config(values: dict[str, Any]) -> str:
    """Compact knob summary: tile_ic=(4,16) -> ic16, tile_o=(25,5,8) -> o5x8 (inner factors),
    oc_inner=2 -> oi2, unroll_kw=True -> uk1, order=kw_outer -> o:ko."""
    parts = []
    for name, value in values.items():
        if name.startswith("tile_"):
            key = name[len("tile_") :]
        else:
            key = "".join(word[0] for word in name.split("_"))
        if isinstance(value, (list, tuple)):
            parts.append(key + "x".join(str(v) for v in (value[1:] or value)))
        elif isinstance(value, bool):
            parts.append(f"{key}{int(value)}")
        elif isinstance(value, str):
            parts.append(f"{key}:" + "".join(word[0] for word in value.split("_")))
        else:
            parts.append(f"{key}{value}")
    return " ".join(parts)


def gflops(flops: float, seconds: float | None) -> float:
    if seconds is None or not math.isfinite(seconds) or seconds <= 0:
        return math.nan
    return flops / seconds / 1e9


def _num(value: float, digits: int) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value:.{digits}f}"


def table_row(layer: dict[str, Any]) -> dict[str, str]:
    """The printable cells of one layer's result dict."""
    f = layer["flops"]
    tf, np_, ort = layer["tunefarm"]["best"], layer["numpy"], layer["ort"]
    prof = ort.get("profile") or {}
    return {
        "name": layer["name"],
        "summary": layer["summary"],
        "gflop": _num(f / 1e9, 3),
        "config": tf.get("short", "-"),
        "tf_med": _num(gflops(f, tf.get("median")), 1),
        "tf_min": _num(gflops(f, tf.get("min")), 1),
        "np_med": _num(gflops(f, np_.get("median")), 1),
        "ort_med": _num(gflops(f, ort.get("median")), 1),
        "ort_op": _num(gflops(f, prof.get("op_median")), 1),
        "r_ort": _num(layer["ratio_ort"], 2),
        "r_np": _num(layer["ratio_numpy"], 2),
    }


def format_table(layers: list[dict[str, Any]], markdown: bool) -> str:
    rows = [table_row(layer) for layer in layers]
    heads = [h for h, _, _ in COLUMNS]
    if markdown:
        lines = ["| " + " | ".join(heads) + " |"]
        lines.append("|" + "|".join("---:" if right else "---" for _, _, right in COLUMNS) + "|")
        lines += ["| " + " | ".join(r[k] for _, k, _ in COLUMNS) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max([len(h)] + [len(r[k]) for r in rows]) for h, k, _ in COLUMNS]

    def line(cells: list[str]) -> str:
        out = []
        for cell, width, (_, _, right) in zip(cells, widths, COLUMNS, strict=True):
            out.append(cell.rjust(width) if right else cell.ljust(width))
        return "  ".join(out).rstrip()

    lines = [line(heads), line(["-" * w for w in widths])]
    lines += [line([r[k] for _, k, _ in COLUMNS]) for r in rows]
    return "\n".join(lines)


def summarize(layers: list[dict[str, Any]]) -> dict[str, Any]:
    """Geometric mean and worst layer of the tunefarm/ORT and tunefarm/numpy ratios."""
    out: dict[str, Any] = {}
    for key in ("ratio_ort", "ratio_numpy"):
        pairs = [(lay[key], lay["name"]) for lay in layers if math.isfinite(lay[key])]
        if not pairs:
            out[key] = {"geomean": math.nan, "worst": math.nan, "worst_layer": None, "n": 0}
            continue
        geomean = math.exp(sum(math.log(r) for r, _ in pairs) / len(pairs))
        worst, worst_layer = min(pairs)
        out[key] = {"geomean": geomean, "worst": worst, "worst_layer": worst_layer, "n": len(pairs)}
    return out


def format_footer(summary: dict[str, Any], meta: dict[str, Any], notes: list[str]) -> str:
    lines = []
    for key, label in (("ratio_ort", "tunefarm/ORT"), ("ratio_numpy", "tunefarm/numpy")):
        s = summary[key]
        lines.append(
            f"{label:15s} geomean {_num(s['geomean'], 2)}  worst {_num(s['worst'], 2)}"
            f" ({s['worst_layer']})  over {s['n']} layers"
        )
    m = meta["machine"]
    lines.append(
        f"machine: {m['cpu']}, {m['cores']} cores; python {m['python']}, numpy {m['numpy']}, "
        f"onnxruntime {m['onnxruntime']}"
    )
    lines.append(f"date: {meta['date']}")
    lines.append(f"command: {meta['command']}")
    lines.append(f"settings: {meta['settings']}")
    lines += [f"note: {n}" for n in notes]
    return "\n".join(lines)


def stop_forkserver() -> None:
    """Stop and reap multiprocessing's forkserver, so the CPU time of the build workers and
    measurement children (its children) counts in this process's RUSAGE_CHILDREN, and so in
    the parent's figure (private API; without it that time is simply missing)."""
    import multiprocessing.forkserver as fs

    stop = getattr(fs._forkserver, "_stop", None)
    if stop is not None:
        stop()
