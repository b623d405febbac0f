"""Vector erf/tanh in the C emitter, before and after, on the same schedule.

For each case the very same schedule is emitted twice: "scalar" with erf and tanh taken out
of the emitter's vector calls (what the emitter did before: the loop that holds them stays
scalar and calls libm's erff/tanhf), "vector" as the emitter is now. Both are compiled,
checked against each other, and timed in `--rounds` interleaved rounds (each round one timed
call of each, the C loop of `tf_time` run until it lasts `--ms`), on the target's cores.
Progress to stderr; one line per case: medians, the ratio, the largest difference.

    python benchmarks/vector_math.py [--target "cpu -cores=1"] [--rounds 7] [--ms 200]
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from tunefarm.backends import registry
from tunefarm.backends.cpu import c_emitter
from tunefarm.measure import MeasureInput
from tunefarm.task import Task
from tunefarm.tune.sketch_search import random_states

DENSE = dict(op="dense", data=(128, 768), weight=(3072, 768), epilogue=("bias", "gelu"))
CASES = {  # name: (task params, schedule: the template's default or a sketch state)
    "dense 128x768->3072 +bias+gelu, template default": (DENSE, "template"),
    "dense 128x768->3072 +bias+gelu, sketch state": (DENSE, "sketch"),
    "gelu 128x3072, sketch state": (
        dict(op="elementwise", fn="gelu", shapes=[(128, 3072)]),
        "sketch",
    ),
    "tanh 128x3072, sketch state": (
        dict(op="elementwise", fn="tanh", shapes=[(128, 3072)]),
        "sketch",
    ),
}


@contextlib.contextmanager
def scalar_erf_tanh() -> Iterator[None]:
    """The emitter as it was: erf and tanh not among its vector calls."""
    saved = dict(c_emitter.VECTOR_MATH)
    for func in ("erf", "tanh"):
        del c_emitter.VECTOR_MATH[func]
    try:
        yield
    finally:
        c_emitter.VECTOR_MATH.update(saved)


class Kernel:
    """One compiled variant with its argument buffers (64-byte aligned, as it assumes)."""

    def __init__(self, inp: MeasureInput, workdir: Path, tag: str, seed: int = 0) -> None:
        src = registry.generate_source(inp)
        self.code = src.code
        c, so = workdir / f"{tag}.c", workdir / f"{tag}.so"
        c.write_text(src.code)
        subprocess.run(src.toolchain.command(str(c), str(so)), check=True)
        self.lib = ctypes.CDLL(str(so))
        self.lib.tf_time.restype = ctypes.c_double
        io = registry.reference_io(inp, seed)
        self.bufs = [aligned(a) for a in io.args]
        self.expected = next(iter(io.expected.values()))
        self.args = (ctypes.c_void_p * len(self.bufs))(*(b.ctypes.data for b in self.bufs))

    def run(self) -> np.ndarray:
        assert self.lib.tf_entry(self.args) == 0
        return self.bufs[-1]

    def time(self, ms: float) -> float:
        number = 1
        while (t := self.lib.tf_time(self.args, number)) * number < ms / 1000:
            number *= 2
        return t


def aligned(a: np.ndarray) -> np.ndarray:
    buf = np.empty(a.nbytes + 64, np.uint8)
    start = -buf.ctypes.data % 64
    out = buf[start : start + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def vectorised(inp: MeasureInput) -> bool:
    """Whether this schedule puts erf/tanh in a vector loop (and so can show a difference)."""
    with scalar_erf_tanh():
        old = registry.generate_source(inp).code
    new = registry.generate_source(inp).code
    return ("erff(" in old or "tanhf(" in old) and "erff(" not in new and "tanhf(" not in new


def schedule(task: Task, policy: str, seed: int) -> MeasureInput:
    """The template's default config, or the first of the seeded random sketch states whose
    erf/tanh loop is a vector loop (the template of elementwise ops leaves it to `omp simd`)."""
    if policy == "template":
        return MeasureInput(task, registry.default_config(task))
    for config in random_states(task, 16, seed):
        if vectorised(inp := MeasureInput(task, config)):
            return inp
    raise SystemExit(f"no sketch state of {task} vectorises its erf/tanh loop")


def measure(name: str, target: str, rounds: int, ms: float, seed: int) -> str:
    params, policy = CASES[name]
    args = dict(params)
    task = Task.make(args.pop("op"), target=target, **args)
    inp = schedule(task, policy, seed)
    with tempfile.TemporaryDirectory() as tmp:
        with scalar_erf_tanh():
            old = Kernel(inp, Path(tmp), "scalar")
        new = Kernel(inp, Path(tmp), "vector")
        assert "erff(" in old.code or "tanhf(" in old.code, "the scalar variant is not scalar"
        assert "erff(" not in new.code and "tanhf(" not in new.code, "not vectorised"
        a, b = old.run(), new.run()
        diff = float(np.abs(a - b).max())
        ref = float(np.abs(b - new.expected).max())
        times: dict[str, list[float]] = {"scalar": [], "vector": []}
        for r in range(rounds):
            for tag, k in (("scalar", old), ("vector", new))[:: 1 if r % 2 else -1]:
                times[tag].append(k.time(ms))
            print(f"{name}: round {r + 1}/{rounds}", file=sys.stderr)
    s, v = statistics.median(times["scalar"]), statistics.median(times["vector"])
    gf = registry.flops(task) / 1e9
    return (
        f"| {name} | {s * 1e3:.3f} ms ({gf / s:.1f} GFLOP/s) | {v * 1e3:.3f} ms "
        f"({gf / v:.1f} GFLOP/s) | {s / v:.2f}x | {diff:.1e} | {ref:.1e} |"
    )


def network(name: str, target: str, rounds: int, repeat: int) -> str:
    """One zoo network compiled untuned twice (scalar erf/tanh, vector), checked against ONNX
    Runtime and timed with it in interleaved rounds (ORT on the target's cores)."""
    from tunefarm.backends import parse_target
    from tunefarm.backends.cpu.target import num_cores
    from tunefarm.compiler import compile_graph
    from tunefarm.frontend.models import load_model
    from tunefarm.recipe import end_to_end

    model, graph = load_model(f"zoo:{name}")
    with tempfile.TemporaryDirectory() as tmp:
        paths = {tag: str(Path(tmp) / f"{tag}.tfa") for tag in ("scalar", "vector")}
        with scalar_erf_tanh():
            compile_graph(graph, target, None, optimized=True).save(paths["scalar"])
        compile_graph(graph, target, None, optimized=True).save(paths["vector"])
        threads = num_cores(parse_target(target))
        result = end_to_end(model, graph, paths, "vector", rounds, repeat, threads=threads)
    ort, old, new = (result.median(k) for k in ("onnxruntime", "scalar", "vector"))
    return (
        f"| {name} untuned, {target} | {ort:.3f} ms | {old:.3f} ms | {new:.3f} ms | "
        f"{old / new:.2f}x | {ort / new:.2f} | {result.relative_error:.1e} |"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--target", default="cpu -cores=1")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--ms", type=float, default=200.0)
    p.add_argument("--seed", type=int, default=0, help="of the sketch states")
    p.add_argument("--cases", default=";".join(CASES), help="';'-separated case names")
    p.add_argument("--network", help="instead: this zoo network end to end, e.g. bert-tiny")
    p.add_argument("--repeat", type=int, default=10, help="network runs per timed repeat")
    a = p.parse_args()
    if a.network:
        print("| network | ORT | scalar erf/tanh | vector | speed-up | ORT/vector | rel. error |")
        print("|---|---|---|---|---|---|---|")
        print(network(a.network, a.target, a.rounds, a.repeat))
        return
    print("| case | scalar erff/tanhf | vector | speed-up | max diff | max err vs numpy |")
    print("|---|---|---|---|---|---|")
    for name in a.cases.split(";"):
        print(measure(name, a.target, a.rounds, a.ms, a.seed), flush=True)


if __name__ == "__main__":
    main()
