"""Where gcc's time goes on the kernels a search compiled, and which flags would cut it.

A search keeps each candidate's C source beside its artifact in the build cache
(`TUNEFARM_CACHE`; `search_speed.py one` makes a fresh one per search under /tmp, named
tunefarm-speed-*). This script reads such directories and, with this tree's gcc flags
(`target.cflags` for the host):

    cost    CPU of one `gcc -shared` per source: mean, median, max, the 3 slowest's share
    passes  `-ftime-report` of cc1, summed over the sources: the largest phases and passes
    flags   each flag set (--set=FLAGS, quoted if several) added to the flags: CPU against
            today's, and on how many sources the machine code stays the same
            (`objdump -d`, addresses blanked, and .rodata)

    nice python benchmarks/gcc_study.py cost /tmp/tunefarm-speed-abc123
    nice python benchmarks/gcc_study.py passes DIR [DIR ...]
    nice python benchmarks/gcc_study.py flags DIR [DIR ...] \\
        --set=-fno-loop-unroll-and-jam --set=-fno-predictive-commoning

CPU is user+sys of gcc and its children (RUSAGE_CHILDREN), the steadier figure on a shared
host.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import re
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def flags() -> list[str]:
    from tunefarm.backends import parse_target
    from tunefarm.backends.cpu.target import cflags

    return list(cflags(parse_target("cpu")))


def sources(dirs: list[str]) -> list[Path]:
    return sorted(p for d in dirs for p in Path(d).glob("*.c"))


def build_cpu(cmd: list[str]) -> float:
    """CPU seconds of one compiler run (raises if it fails)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def shared(extra: list[str], src: Path, out: str) -> float:
    return build_cpu(["gcc", *flags(), *extra, "-shared", "-o", out, str(src), "-lm"])


def machine_code(so: str) -> str:
    """A hash of the disassembly (addresses blanked) and .rodata of `so`."""
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", so], capture_output=True,
                          text=True, check=True).stdout  # fmt: skip
    lines = [ln.split(":", 1)[1] if re.match(r"^\s+[0-9a-f]+:", ln) else ln
             for ln in text.splitlines()[3:]]  # fmt: skip
    code = re.sub(r"\b[0-9a-f]{3,}\b", "A", "\n".join(lines))
    ro = subprocess.run(["objdump", "-s", "-j", ".rodata", so], capture_output=True,
                        text=True, check=False).stdout.split("\n", 3)[-1]  # fmt: skip
    return hashlib.sha1((code + ro).encode()).hexdigest()


def cost(dirs: list[str], tmp: str) -> None:
    for d in dirs:
        files = sources([d])
        times = sorted(shared([], f, f"{tmp}/a.so") for f in files)
        size = statistics.mean(f.stat().st_size for f in files) / 1000
        print(f"{d}: {len(times)} sources, mean {statistics.mean(times) * 1e3:.0f} ms, median "
              f"{statistics.median(times) * 1e3:.0f} ms, max {times[-1] * 1e3:.0f} ms, 3 slowest "
              f"{sum(times[-3:]) / sum(times):.0%}, mean source {size:.0f} KB")  # fmt: skip


def passes(dirs: list[str], tmp: str) -> None:
    total: collections.Counter[str] = collections.Counter()
    files = sources(dirs)
    for f in files:
        cmd = ["gcc", *flags(), "-c", "-ftime-report", "-o", f"{tmp}/a.o", str(f)]
        report = subprocess.run(cmd, capture_output=True, text=True, check=True).stderr
        for line in report.splitlines():
            m = re.match(r"^ (.+?)\s+:\s+([\d.]+) \(\s*\d+%\)\s+([\d.]+)", line)
            if m:
                total[m.group(1).strip()] += float(m.group(2)) + float(m.group(3))
            m = re.match(r"^ TOTAL\s+:\s+([\d.]+)\s+([\d.]+)", line)
            if m:
                total["TOTAL"] += float(m.group(1)) + float(m.group(2))
    whole = total["TOTAL"] or 1.0
    print(f"{len(files)} sources, cc1 user+sys {whole:.2f} s")
    for name, secs in total.most_common(20):
        print(f"  {name:42s} {secs:7.2f} s {secs / whole:6.1%}")


def flag_sets(dirs: list[str], sets: list[str], tmp: str) -> None:
    files = sources(dirs)
    base_cpu, cpu, same = 0.0, [0.0] * len(sets), [0] * len(sets)
    for f in files:
        base_cpu += shared([], f, f"{tmp}/a.so")
        ref = machine_code(f"{tmp}/a.so")
        for i, extra in enumerate(sets):
            cpu[i] += shared(extra.split(), f, f"{tmp}/b.so")
            same[i] += machine_code(f"{tmp}/b.so") == ref
    print(f"{len(files)} sources, today's flags {base_cpu / len(files) * 1e3:.0f} ms each")
    for extra, c, n in zip(sets, cpu, same, strict=True):
        print(f"  {extra}: {c / base_cpu:.3f}x CPU, same machine code {n}/{len(files)}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("what", choices=("cost", "passes", "flags"))
    p.add_argument("dirs", nargs="+", help="build cache directories holding *.c sources")
    p.add_argument("--set", action="append", default=[], help="flags: one flag set to add")
    args = p.parse_args(argv)
    if args.what == "flags" and not args.set:
        p.error("flags needs at least one --set")
    with tempfile.TemporaryDirectory(prefix="gcc-study-") as tmp:
        if args.what == "cost":
            cost(args.dirs, tmp)
        elif args.what == "passes":
            passes(args.dirs, tmp)
        else:
            flag_sets(args.dirs, args.set, tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
