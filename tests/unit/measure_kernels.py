"""Hand-written C kernels following the tf_entry / tf_time ABI, for the measure-layer tests.

`generate` and `io` stand in for the op registry (the kernels build with the cpu backend's
toolchain and load through the host ABI, `tunefarm.measure.host`). They are module-level so
that the build workers (forkserver children) can unpickle `generate` by reference; the
builder sends the parent's sys.path with every job, which makes this test directory
importable there.

The task's params pick the kernel: `kernel` is one of KERNELS (or "raise" / "die" / "hang",
which misbehave inside `generate`), `n` is the vector length.
"""

from __future__ import annotations

import os
import time

import numpy as np

from tunefarm.backends import get_backend, parse_target
from tunefarm.measure import ArgSpec, Config, KernelIO, KernelSource, MeasureInput
from tunefarm.measure.compile import MAX_SOURCE_BYTES
from tunefarm.task import Task

_PRELUDE = """
#include <stdint.h>
#include <time.h>

static double tf_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
"""

_TIMER = """
double tf_time(void** args, int32_t number) {
    double t0 = tf_now();
    for (int32_t i = 0; i < number; ++i) {
        if (tf_entry(args) != 0) return -1.0;
    }
    return (tf_now() - t0) / (double)number;
}
"""

# Body of tf_entry per kernel; a, b are inputs, c the output, N the length.
KERNELS = {
    "add": "for (int i = 0; i < N; ++i) c[i] = a[i] + b[i];\n    return 0;",
    "wrong": "for (int i = 0; i < N; ++i) c[i] = a[i] - b[i];\n    return 0;",
    "syntax": "for (int i = 0; i < N; ++i) c[i] = a[i] + b[i]\n    return 0;",
    "segv": "*(volatile float*)0 = c[0];\n    return 0;",
    "loop": "volatile int spin = 1;\n    while (spin) {}\n    return 0;",
    "fail": "return 3;",
    # two OpenMP threads: the pool outlives the kernel's library in a persistent measurer
    "omp": (
        "#pragma omp parallel for num_threads(2)\n"
        "    for (int i = 0; i < N; ++i) c[i] = a[i] + b[i];\n    return 0;"
    ),
    # "add" whose first run (the checked one) sleeps 30 ms of wall time and no CPU time, as
    # a run the scheduler stalls on a loaded host; later runs do not
    "stall": (
        "static int calls = 0;\n    if (calls++ == 0) {\n"
        "        struct timespec s = {0, 30000000};\n        nanosleep(&s, 0);\n    }\n"
        "    for (int i = 0; i < N; ++i) c[i] = a[i] + b[i];\n    return 0;"
    ),
    # the right answer 64 times over: volatile stores cannot be merged, so about 64x "add"
    "slow": (
        "volatile float* vc = c;\n    for (int r = 0; r < 64; ++r)\n"
        "        for (int i = 0; i < N; ++i) vc[i] = a[i] + b[i];\n    return 0;"
    ),
}


def task(kernel: str, n: int = 4096, target: str = "cpu") -> Task:
    return Task.make("vadd", target=target, kernel=kernel, n=n)


def inp(kernel: str, n: int = 4096, unroll: int = 1, target: str = "cpu") -> MeasureInput:
    """A MeasureInput whose config only changes a comment, so each `unroll` is a new source."""
    return MeasureInput(task(kernel, n, target), Config.make({"unroll": unroll}, index=unroll))


def generate(measure_input: MeasureInput) -> KernelSource:
    """C source for the kernel named by the task; 'raise', 'die', 'hang' fail on purpose."""
    params = measure_input.task.args
    kernel, n = params["kernel"], params["n"]
    if kernel == "raise":
        raise ValueError("template cannot instantiate this config")
    if kernel == "die":
        os._exit(3)  # a generator that takes its whole process down
    if kernel == "hang":
        time.sleep(3600)  # a generator that never returns
    body = KERNELS["add" if kernel == "huge" else kernel]
    if kernel == "huge":  # "add" behind a comment that makes the source over the size limit
        body = f"/* {'x' * MAX_SOURCE_BYTES} */\n    {body}"
    code = (
        f"/* unroll={measure_input.config.get('unroll')} */\n{_PRELUDE}\n"
        f"int32_t tf_entry(void** args) {{\n"
        f"    const float* a = (const float*)args[0];\n"
        f"    const float* b = (const float*)args[1];\n"
        f"    float* c = (float*)args[2];\n"
        f"    const int N = {n};\n"
        f"    {body}\n}}\n{_TIMER}"
    )
    specs = (
        ArgSpec("a", (n,), "float32"),
        ArgSpec("b", (n,), "float32"),
        ArgSpec("c", (n,), "float32", is_output=True),
    )
    toolchain = get_backend("cpu").toolchain(parse_target(measure_input.task.target))
    return KernelSource(code, "tf_entry", specs, f"vadd-{n}", float(n), toolchain)


def io(measure_input: MeasureInput, seed: int) -> KernelIO:
    """Random inputs, a zeroed output and the exact sum as the reference."""
    n = measure_input.task.args["n"]
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    return KernelIO([a, b, np.zeros(n, np.float32)], {2: a + b})


def io_wrong_shape(measure_input: MeasureInput, seed: int) -> KernelIO:
    """Reference data whose output has the wrong length, as a broken template would give."""
    good = io(measure_input, seed)
    return KernelIO([good.args[0], good.args[1], np.zeros(1, np.float32)], {})
