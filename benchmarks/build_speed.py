"""CPU time of gcc per candidate, before/after the build-speed change, and whether the
machine code stayed the same.

Random sketch states (`random_states`, fixed seed) of a ResNet conv, a BERT dense and a
softmax are emitted twice: by this tree ("after") and by revision --base of shared/ ("before",
a git archive run in a child process), each with its tree's gcc flags. Every state is built
into a .so by both, interleaved (state by state, the order alternating) so that the host's
load falls on both alike. Time is the children's user+sys CPU time (RUSAGE_CHILDREN), not
wall: the host is shared. Machine code: `objdump -d` (addresses blanked) and .rodata of the
two .so files compared; the exit status is 1 if any state's differ.

    nice -n 19 python benchmarks/build_speed.py --states 6 --rounds 2

--int8 builds int8 kernels instead (conv2d, dense and depthwise int8 at every ISA's dot4:
VNNI, AVX-512BW, AVX2 and scalar; the template's default config and `--states` random ones
of its space), to check the int8 helpers written without <immintrin.h>:

    nice -n 19 python benchmarks/build_speed.py --int8 --base 5bb6f16 --states 2
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

OPS = "conv_56_64_64_3x3,dense_768x768,softmax_12x128x128"
BASE = "8f0c87e"  # main before the build-speed change (emitter headers, cheaper flags)


def emit(ops: list[str], n: int, seed: int) -> dict:
    """This tree's (PYTHONPATH's) gcc flags and the C of `n` random states of each op."""
    import autoscheduler as autosched
    from tunefarm.backends import parse_target, registry
    from tunefarm.backends.cpu.target import cflags
    from tunefarm.measure import MeasureInput
    from tunefarm.tune.sketch_search import random_states

    codes = {}
    for name in ops:
        task = autosched.OPS[name].task
        for i, config in enumerate(random_states(task, n, seed=seed)):
            codes[f"{name}/{i}"] = registry.generate_source(MeasureInput(task, config)).code
    return {"flags": list(cflags(parse_target("cpu"))), "codes": codes}


INT8_ISAS = ("avx512vnni", "avx512", "avx2", "sse4")
INT8_OPS = {  # name: (op, params); uint8 outputs narrow lanes and requantize with nearbyint
    "qconv_res_u8": ("conv2d_int8", dict(
        data=(2, 16, 7, 7), weight=(32, 16, 3, 3), padding=(1, 0, 1, 2), data_zero_point=128,
        out_dtype="uint8", out_zero_point=100, residual=[0.05, 0.04, 0.07, 90, 110], relu=True)),
    "qconv_14": ("conv2d_int8", dict(
        data=(1, 64, 14, 14), weight=(64, 64, 3, 3), padding=1, data_zero_point=3, bias=True,
        out_zero_point=-2, relu=True)),
    "qdense": ("dense_int8", dict(data=(4, 64), weight=(48, 64), data_zero_point=5, bias=True,
                                  out_dtype="uint8", out_zero_point=7)),
    "qdw": ("depthwise_conv2d_int8", dict(
        data=(1, 32, 9, 9), weight=(32, 1, 3, 3), strides=2, padding=1, data_zero_point=4,
        out_dtype="uint8", relu=True)),
}  # fmt: skip


def emit_int8(n: int, seed: int) -> dict:
    """The C of int8 kernels at every dot4 ISA (default config + `n` random ones), and the
    flags of each (they differ by ISA: `flags` maps a code's key to its gcc flags)."""
    import random

    from tunefarm.backends import parse_target, registry
    from tunefarm.backends.cpu.target import cflags
    from tunefarm.measure import Config, MeasureInput
    from tunefarm.task import Task

    rng = random.Random(seed)
    codes, flags = {}, {}
    for name, (op, params) in INT8_OPS.items():
        for isa in INT8_ISAS:
            target = f"cpu -isa={isa}"
            task = Task.make(op, target=target, **params)
            space = registry.config_space(task)
            configs = [registry.default_config(task)]
            configs += [Config.make(space.get(i), index=i)
                        for i in rng.sample(range(space.size), min(n, space.size))]  # fmt: skip
            for i, config in enumerate(configs):
                key = f"{name}-{isa}/{i}"
                try:
                    codes[key] = registry.generate_source(MeasureInput(task, config)).code
                except Exception:  # a config the template refuses: not a build to compare
                    continue
                flags[key] = list(cflags(parse_target(target)))
    return {"flags": flags, "codes": codes}


def emit_from(rev: str, args: argparse.Namespace, tmp: Path) -> dict:
    """`emit` run on revision `rev` of shared/ (git archive), in a child process."""
    repo = Path(__file__).resolve().parents[1]
    tree = tmp / "base"
    tree.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", rev, "shared"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    out = tmp / "base.json"
    cmd = [sys.executable, __file__, "--ops", args.ops, "--states", str(args.states)]
    cmd += ["--seed", str(args.seed), "--emit", str(out)] + (["--int8"] if args.int8 else [])
    env = {**os.environ, "PYTHONPATH": str(tree / "shared")}
    subprocess.run(cmd, check=True, env=env)
    return json.loads(out.read_text())


def flags_of(variant: dict, key: str) -> tuple[str, ...]:
    """The gcc flags of one code: the variant's, or per code where they differ (--int8)."""
    flags = variant["flags"]
    return tuple(flags[key] if isinstance(flags, dict) else flags)


def build(flags: tuple[str, ...], source: Path, artifact: Path) -> float:
    """Compile one source into a shared library; the CPU seconds gcc and its children took."""
    start = resource.getrusage(resource.RUSAGE_CHILDREN)
    cmd = ["gcc", *flags, "-shared", "-o", str(artifact), str(source), "-lm"]
    subprocess.run(cmd, check=True, capture_output=True)
    end = resource.getrusage(resource.RUSAGE_CHILDREN)
    return end.ru_utime - start.ru_utime + end.ru_stime - start.ru_stime


# where code and data sit, not what runs: an instruction's address, a symbol's, a branch or
# call target's (`1234 <f+0x56>`), a %rip-relative offset; immediates are kept
ADDRESS = re.compile(
    r"^\s*[0-9a-f]+:\s*|^[0-9a-f]+ (?=<)|\b[0-9a-f]+ <[^>]*>|-?0x[0-9a-f]+(?=\(%rip\))|# [0-9a-f]+"
)


FUNCTION = re.compile(r"^_?<[^>]+>:$")  # a function's first line once its address is blanked


def disassembly(artifact: Path) -> str:
    """The instructions (function by function) and read-only constants of a .so, addresses
    and offsets blanked (a section placed elsewhere shifts them without changing what the
    kernel runs)."""
    text = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", str(artifact)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    lines = text.splitlines()[3:]  # skip the file name line
    consts = subprocess.run(  # the constants the code loads (%rip-relative) from .rodata
        ["objdump", "-s", "-j", ".rodata", str(artifact)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()[3:]
    return "\n".join([*by_function(ADDRESS.sub("_", ln) for ln in lines),
                      *(c.split(None, 1)[-1] for c in consts)])  # fmt: skip


def by_function(lines) -> list[str]:
    """The disassembly's functions sorted by name: where gcc places a function in the
    object (a kernel before or after its OpenMP outlined body) is not what it runs."""
    blocks: list[list[str]] = [[]]
    for ln in lines:
        if FUNCTION.match(ln):
            blocks.append([])
        blocks[-1].append(ln)
    return [ln for block in sorted(blocks) for ln in block]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", default=OPS)
    ap.add_argument("--states", type=int, default=6)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--base", default=BASE, help="the revision 'before' is built from")
    ap.add_argument("--int8", action="store_true", help="int8 kernels at every dot4 ISA")
    ap.add_argument("--emit", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.int8:
        args.ops = ",".join(INT8_OPS)
    ops = args.ops.split(",")
    mine = emit_int8 if args.int8 else (lambda n, seed: emit(ops, n, seed))
    if args.emit:
        Path(args.emit).write_text(json.dumps(mine(args.states, args.seed)))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        var = {
            "before": emit_from(args.base, args, root),
            "after": mine(args.states, args.seed),
        }
        names, keys = list(var), list(var["after"]["codes"])
        cpu = {(v, k): 0.0 for v in names for k in keys}
        for v in names:
            (root / v).mkdir()
            for k in keys:
                (root / v / f"{k.replace('/', '_')}.c").write_text(var[v]["codes"][k])
        wall = time.time()
        for r in range(args.rounds):
            for i, k in enumerate(keys):
                stem = k.replace("/", "_")
                for j in range(len(names)):
                    v = names[(i + j + r) % len(names)]
                    src, so = root / v / f"{stem}.c", root / v / f"{stem}.so"
                    cpu[(v, k)] += build(flags_of(var[v], k), src, so) / args.rounds
        diff = [
            k
            for k in keys
            if disassembly(root / "before" / f"{k.replace('/', '_')}.so")
            != disassembly(root / "after" / f"{k.replace('/', '_')}.so")
        ]
        same = len(keys) - len(diff)
    print(
        f"{len(keys)} states x {args.rounds} rounds x 2 variants, {time.time() - wall:.0f} s wall"
    )
    for v in names:
        print(f"{v}: gcc {' '.join(flags_of(var[v], keys[0]))}")
    for op in ops:
        of_op = [k for k in keys if k.split("/")[0].split("-")[0] == op]
        if not of_op:
            continue
        per = {v: sum(cpu[(v, k)] for k in of_op) / len(of_op) for v in names}
        print(
            f"{op}: CPU per build before {per['before']:.3f} s, after {per['after']:.3f} s "
            f"({per['after'] / per['before']:.2f}x)"
        )
    total = {v: sum(cpu[(v, k)] for k in keys) for v in names}
    print(f"all: after/before CPU {total['after'] / total['before']:.2f}x")
    print(f"same machine code (objdump -d, .rodata): {same}/{len(keys)} states")
    if diff:
        print("differ: " + ", ".join(diff))
    return 0 if same == len(keys) else 1


if __name__ == "__main__":
    sys.exit(main())
