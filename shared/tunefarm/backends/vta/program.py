"""A VTA kernel artifact, and how a measurement loads and runs it on the simulator.

The build step of a VTA candidate is the lowering itself: its "source" is the program, a JSON
document holding the hardware config, the encoded instruction stream and micro-ops (zlib and
base64: the streams are repetitive, a 200k-instruction program packs to ~300 KB), the DRAM
layout, and which region each kernel argument lives in. No compiler runs on it
(`Toolchain("")`), so the document is the artifact the builder caches and the agent loads.

In the measurement child, `load_vta_kernel` places the argument arrays in a DRAM image, and
`run()` runs the program functionally on the C simulator and copies the output region back;
`time()` is the simulated time of one run at the config's clock (cycles do not depend on data,
so every repeat agrees). A program the simulator rejects (a buffer overflow, a token deadlock)
raises `VtaRunError` with the simulator's reason, which the measure layer records as a runtime
error with that message.
"""

from __future__ import annotations

import base64
import json
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from tunefarm.backends.vta import isa
from tunefarm.backends.vta.config import VTAConfig
from tunefarm.backends.vta.conv2d import LoweredConv2d
from tunefarm.backends.vta.dram import DramLayout, Region
from tunefarm.backends.vta.simulator import SimResult, Simulator

FORMAT = "tunefarm-vta-program/1"


class VtaRunError(RuntimeError):
    """The simulator refused the program: the message names the error and the instruction."""


def pack_words(array: np.ndarray) -> str:
    """An array's bytes, zlib-compressed and base64-encoded (how programs hold their words)."""
    return base64.b64encode(zlib.compress(np.ascontiguousarray(array).tobytes(), 6)).decode()


def unpack_words(text: str, dtype: str) -> np.ndarray:
    """Inverse of `pack_words`: a flat array of `dtype`."""
    return np.frombuffer(zlib.decompress(base64.b64decode(text)), dtype=dtype)


def to_text(lowered: LoweredConv2d, args: list[str]) -> str:
    """The artifact of a lowered conv; `args` names the DRAM region of each kernel argument,
    in argument order (inputs, then the output)."""
    doc = {
        "format": FORMAT,
        "config": lowered.hw.to_json(),
        "knobs": {k: list(v) if isinstance(v, tuple) else v for k, v in lowered.knobs.items()},
        "insns": len(lowered.insns),
        "uops": len(lowered.uops),
        "layout": {
            "align": lowered.layout.align,
            "size": lowered.layout.size,
            "regions": [[r.name, r.offset, r.dtype, list(r.shape)] for r in lowered.layout.regions],
        },
        "args": list(args),
        "program": pack_words(lowered.encoded()),
        "uop_words": pack_words(isa.encode_uops(lowered.uops)),
    }
    return json.dumps(doc, indent=1)


class Program:
    """A parsed artifact: config, layout, encoded instructions and micro-op words."""

    def __init__(self, doc: dict[str, Any]) -> None:
        if doc.get("format") != FORMAT:
            raise ValueError(f"not a VTA program (format {doc.get('format')!r}, want {FORMAT})")
        self.config = VTAConfig.from_json(doc["config"])
        lay = doc["layout"]
        regions = tuple(Region(n, int(o), d, tuple(s)) for n, o, d, s in lay["regions"])
        self.layout = DramLayout(regions, int(lay["size"]), int(lay["align"]))
        self.args: list[str] = list(doc["args"])
        self.words = unpack_words(doc["program"], "<i4").reshape(-1, isa.WORDS)
        self.uop_words = unpack_words(doc["uop_words"], "<u4")

    @classmethod
    def read(cls, path: str | Path) -> Program:
        return cls(json.loads(Path(path).read_text()))

    def dram(self, args: list[np.ndarray]) -> np.ndarray:
        """A DRAM image with the micro-ops and every input argument in its region."""
        arrays = {"uops": self.uop_words}
        for name, array in zip(self.args[:-1], args[:-1], strict=True):
            arrays[name] = array
        return self.layout.pack(arrays)


_FLAGS = ("pop_prev", "pop_next", "push_prev", "push_next")


def _insn_line(index: int, insn: isa.Insn) -> str:
    """One instruction as assembly: opcode, its fields (zero pads and factors left out),
    its token flags."""
    fields = []
    for name in isa.field_names(type(insn)):
        value = getattr(insn, name)
        optional = name.endswith(("pad0", "pad1", "_factor_out", "_factor_in"))
        if name in ("op", *_FLAGS) or value is False or (optional and value == 0):
            continue
        if name == "imm" and not getattr(insn, "use_imm", False):
            continue
        if isinstance(value, (isa.Buffer, isa.AluOp)):
            value = value.name.lower()
        fields.append(f"{name}={int(value) if isinstance(value, bool) else value}")
    flags = [f for f in _FLAGS if getattr(insn, f)]
    op = insn.op.name if isinstance(insn, isa.Alu) else insn.opcode.name
    return f"{index:5d}  {op:<6} {' '.join(fields + flags)}".rstrip()


def disassemble(text: str) -> str:
    """A program artifact as a readable listing: config, knobs, DRAM layout, every
    instruction and micro-op (what `tunefarm op --show-code` prints and golden files pin)."""
    doc = json.loads(text)
    prog = Program(doc)
    lines = [
        f"; VTA program for config {prog.config.name!r}: {len(prog.words)} instructions, "
        f"{len(prog.uop_words)} micro-ops",
        f"; knobs {json.dumps(doc['knobs'])}",
    ]
    for r in prog.layout.regions:
        lines.append(f"; dram {r.name:<7} @{r.offset:<8} {r.dtype} {list(r.shape)}")
    lines += [_insn_line(i, insn) for i, insn in enumerate(isa.decode(prog.words))]
    for i, uop in enumerate(isa.decode_uops(prog.uop_words)):
        lines.append(f"{i:5d}  UOP    acc={uop.acc} inp={uop.inp} wgt={uop.wgt}")
    return "\n".join(lines) + "\n"


def run_program(
    program: Program, sim: Simulator, args: list[np.ndarray], functional: bool = True
) -> SimResult:
    """One run of `program` on `args` (the last one, the output, is written in place)."""
    dram = program.dram(args)
    result = sim.run(program.words, dram, functional=functional)
    if not result.ok:
        raise VtaRunError(f"VTA simulator: {result.error_no.name}: {result.error_msg}")
    if functional:
        args[-1][...] = program.layout.view(dram, program.args[-1])
    return result


class VtaKernel:
    """A loaded program and its argument arrays: the `LoadedKernel` of the vta backend."""

    def __init__(self, artifact: str, args: list[np.ndarray]) -> None:
        self.program = Program.read(artifact)
        self.args = [np.ascontiguousarray(a).copy() for a in args]
        self.sim = Simulator(self.program.config)
        self.last: SimResult | None = None

    def run(self) -> int:
        self.last = run_program(self.program, self.sim, self.args)
        return 0

    def outputs(self) -> list[np.ndarray]:
        return self.args

    def time(self, number: int) -> float:
        """Simulated seconds of one run (every run takes the same cycles, so `number` runs
        take `number` times as long: the mean is one run's)."""
        if self.last is None:
            self.last = run_program(self.program, self.sim, self.args, functional=False)
        return self.program.config.seconds(self.last.cycles)


def load_vta_kernel(artifact: str, args: list[np.ndarray]) -> VtaKernel:
    """The vta backend's `KernelLoader`."""
    return VtaKernel(artifact, args)
