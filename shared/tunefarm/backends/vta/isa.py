"""VTA's instruction set: LOAD, STORE, GEMM, ALU, FINISH and the micro-op, with their encoding.

Three modules run an instruction stream: LOAD (input and weight DMA), COMPUTE (micro-op and
accumulator DMA, GEMM, ALU, FINISH) and STORE (output DMA). The fetch unit dispatches each
instruction to its module's queue in program order; the modules then run independently and
synchronise only through dependency tokens. Every instruction carries four flags: pop a token
from (or push one to) its previous or next module in the chain LOAD -> COMPUTE -> STORE. A pop
blocks until the neighbour has pushed.

Binary layout (the one place it is stated; `sim/vta_sim.h` mirrors it):

* An instruction is a record of 16 little-endian int32 words (64 bytes).
  word 0 opcode; word 1 flags: bit 0 pop_prev, 1 pop_next, 2 push_prev, 3 push_next,
  4 reset (GEMM), 5 use_imm (ALU).
  LOAD/STORE: 2 buffer, 3 sram_base, 4 dram_base, 5 y_size, 6 x_size, 7 x_stride,
  8 y_pad0, 9 y_pad1, 10 x_pad0, 11 x_pad1.
  GEMM/ALU: 2 alu op, 3 uop_begin, 4 uop_end, 5 iter_out, 6 iter_in, 7 dst_factor_out,
  8 dst_factor_in, 9 src_factor_out, 10 src_factor_in, 11 wgt_factor_out, 12 wgt_factor_in,
  13 imm. Unused words are zero.
* SRAM and DRAM addresses, sizes and strides count elements of the instruction's buffer
  (`VTAConfig.elem_bytes`), as VTA's do: DRAM byte address = dram_base * elem_bytes.
* A micro-op is a little-endian uint32: bits 0-10 accumulator index, 11-21 input index (for
  ALU: the second accumulator operand), 22-31 weight index. Micro-ops reach the micro-op
  buffer like any data, by a LOAD of buffer UOP from DRAM.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import IntEnum
from typing import ClassVar

import numpy as np

WORDS = 16  # int32 words per instruction record
UOP_FIELDS = (("acc", 0, 11), ("inp", 11, 11), ("wgt", 22, 10))  # name, first bit, bits


class IsaError(ValueError):
    """An instruction or micro-op that cannot be encoded."""


class Opcode(IntEnum):
    LOAD = 0
    STORE = 1
    GEMM = 2
    ALU = 3
    FINISH = 4


class Buffer(IntEnum):
    """On-chip buffers; OUT is the accumulator narrowed to int8, which STORE reads."""

    UOP = 0
    INP = 1
    WGT = 2
    ACC = 3
    OUT = 4

    @property
    def key(self) -> str:
        return self.name.lower()


class AluOp(IntEnum):
    MIN = 0
    MAX = 1
    ADD = 2
    SHR = 3  # arithmetic shift right; a negative amount shifts left


class Module(IntEnum):
    LOAD = 0
    COMPUTE = 1
    STORE = 2


FLAG_BITS = {"pop_prev": 0, "pop_next": 1, "push_prev": 2, "push_next": 3}
RESET_BIT = 4
USE_IMM_BIT = 5


@dataclass(frozen=True)
class Insn:
    """Base of all instructions: the four dependency-token flags (keyword-only)."""

    pop_prev: bool = field(default=False, kw_only=True)
    pop_next: bool = field(default=False, kw_only=True)
    push_prev: bool = field(default=False, kw_only=True)
    push_next: bool = field(default=False, kw_only=True)
    opcode: ClassVar[Opcode]

    @property
    def module(self) -> Module:
        """The module whose queue the fetch unit dispatches this instruction to."""
        return Module.COMPUTE

    def flags(self) -> int:
        return sum(1 << bit for name, bit in FLAG_BITS.items() if getattr(self, name))


@dataclass(frozen=True)
class Load(Insn):
    """2-D strided DMA from DRAM into `buffer`, zero-filling pad rows and columns.

    SRAM receives (y_pad0 + y_size + y_pad1) rows of (x_pad0 + x_size + x_pad1) elements,
    contiguously from sram_base; DRAM row i starts at dram_base + i * x_stride.
    """

    buffer: Buffer
    sram_base: int
    dram_base: int
    y_size: int
    x_size: int
    x_stride: int
    y_pad0: int = 0
    y_pad1: int = 0
    x_pad0: int = 0
    x_pad1: int = 0
    opcode: ClassVar[Opcode] = Opcode.LOAD

    @property
    def module(self) -> Module:
        # As in VTA, the compute module fetches its own micro-ops and accumulator data.
        return Module.LOAD if self.buffer in (Buffer.INP, Buffer.WGT) else Module.COMPUTE


@dataclass(frozen=True)
class Store(Insn):
    """2-D strided DMA of int8 outputs (the accumulator truncated) from SRAM to DRAM."""

    sram_base: int
    dram_base: int
    y_size: int
    x_size: int
    x_stride: int
    buffer: Buffer = Buffer.OUT
    opcode: ClassVar[Opcode] = Opcode.STORE

    @property
    def module(self) -> Module:
        return Module.STORE


@dataclass(frozen=True)
class Gemm(Insn):
    """acc[d] (+)= inp[s] x wgt[w]^T for every micro-op of [uop_begin, uop_end) in two loops.

    For i in iter_out, j in iter_in, each micro-op u: d = u.acc + i*dst_factor_out +
    j*dst_factor_in, and likewise s (src factors) and w (wgt factors). With `reset` the
    accumulator vectors are zeroed instead.
    """

    uop_begin: int
    uop_end: int
    iter_out: int
    iter_in: int
    dst_factor_out: int
    dst_factor_in: int
    src_factor_out: int = 0
    src_factor_in: int = 0
    wgt_factor_out: int = 0
    wgt_factor_in: int = 0
    reset: bool = False
    opcode: ClassVar[Opcode] = Opcode.GEMM


@dataclass(frozen=True)
class Alu(Insn):
    """acc[d] = op(acc[d], imm if use_imm else acc[s]) over the same loops as GEMM."""

    op: AluOp
    uop_begin: int
    uop_end: int
    iter_out: int
    iter_in: int
    dst_factor_out: int
    dst_factor_in: int
    src_factor_out: int = 0
    src_factor_in: int = 0
    use_imm: bool = False
    imm: int = 0
    opcode: ClassVar[Opcode] = Opcode.ALU


@dataclass(frozen=True)
class Finish(Insn):
    """End of the program; the simulation stops once every module has drained its queue."""

    opcode: ClassVar[Opcode] = Opcode.FINISH


@dataclass(frozen=True)
class Uop:
    """One micro-op: indices into the accumulator, input (ALU: accumulator) and weight buffers."""

    acc: int
    inp: int = 0
    wgt: int = 0


_MEM_WORDS = ("buffer", "sram_base", "dram_base", "y_size", "x_size", "x_stride")
_PAD_WORDS = ("y_pad0", "y_pad1", "x_pad0", "x_pad1")
_LOOP_WORDS = (
    "uop_begin",
    "uop_end",
    "iter_out",
    "iter_in",
    "dst_factor_out",
    "dst_factor_in",
    "src_factor_out",
    "src_factor_in",
    "wgt_factor_out",
    "wgt_factor_in",
    "imm",
)
_INT32 = (-(1 << 31), (1 << 31) - 1)


def _encode_one(index: int, insn: Insn) -> list[int]:
    flags = insn.pop_prev | insn.pop_next << 1 | insn.push_prev << 2 | insn.push_next << 3
    if isinstance(insn, Load):
        return [
            Opcode.LOAD,
            flags,
            *(getattr(insn, n) for n in _MEM_WORDS + _PAD_WORDS),
            0,
            0,
            0,
            0,
        ]
    if isinstance(insn, Store):
        return [Opcode.STORE, flags, *(getattr(insn, n) for n in _MEM_WORDS), *[0] * 8]
    if isinstance(insn, Gemm):
        flags |= insn.reset << RESET_BIT
        return [Opcode.GEMM, flags, 0, *(getattr(insn, n) for n in _LOOP_WORDS[:-1]), 0, 0, 0]
    if isinstance(insn, Alu):
        flags |= insn.use_imm << USE_IMM_BIT
        loop = [getattr(insn, n) for n in _LOOP_WORDS[:8]]
        return [Opcode.ALU, flags, insn.op, *loop, 0, 0, insn.imm, 0, 0]
    if isinstance(insn, Finish):
        return [Opcode.FINISH, flags, *[0] * 14]
    raise IsaError(f"instruction {index}: {type(insn).__name__} is not a VTA instruction")


def encode(insns: list[Insn] | tuple[Insn, ...]) -> np.ndarray:
    """The instruction stream as an (n, 16) int32 array (little-endian records)."""
    rows = np.array([_encode_one(i, insn) for i, insn in enumerate(insns)], dtype=np.int64)
    rows = rows.reshape(len(insns), WORDS)
    bad = np.argwhere((rows < _INT32[0]) | (rows > _INT32[1]))
    if len(bad):
        index, pos = (int(v) for v in bad[0])
        raise IsaError(
            f"instruction {index} ({insns[index].opcode.name}): word {pos} = "
            f"{rows[index, pos]} does not fit 32 bits"
        )
    return rows.astype("<i4")


def decode(words: np.ndarray) -> list[Insn]:
    """Inverse of `encode`, for dumps and tests; unknown opcodes raise IsaError."""
    out: list[Insn] = []
    for index, row in enumerate(np.asarray(words, dtype="<i4").reshape(-1, WORDS)):
        row = [int(w) for w in row]
        flags = {name: bool(row[1] >> bit & 1) for name, bit in FLAG_BITS.items()}
        try:
            opcode = Opcode(row[0])
        except ValueError:
            raise IsaError(f"instruction {index}: unknown opcode {row[0]}") from None
        if opcode == Opcode.LOAD:
            values = dict(zip(_MEM_WORDS + _PAD_WORDS, row[2:12], strict=True))
            values["buffer"] = Buffer(values["buffer"])
            out.append(Load(**values, **flags))
        elif opcode == Opcode.STORE:
            values = dict(zip(_MEM_WORDS, row[2:8], strict=True))
            values["buffer"] = Buffer(values["buffer"])
            out.append(Store(**values, **flags))
        elif opcode in (Opcode.GEMM, Opcode.ALU):
            values = dict(zip(_LOOP_WORDS, row[3:14], strict=True))
            out.append(_decode_loop(opcode, row, values, flags))
        else:
            out.append(Finish(**flags))
    return out


def _decode_loop(opcode: Opcode, row: list[int], values: dict, flags: dict) -> Insn:
    if opcode == Opcode.GEMM:
        del values["imm"]
        return Gemm(**values, reset=bool(row[1] >> RESET_BIT & 1), **flags)
    del values["wgt_factor_out"], values["wgt_factor_in"]
    return Alu(AluOp(row[2]), **values, use_imm=bool(row[1] >> USE_IMM_BIT & 1), **flags)


def encode_uops(uops: list[Uop] | tuple[Uop, ...]) -> np.ndarray:
    """Micro-ops as little-endian uint32 words; an index too wide for its field is an error."""
    words = np.zeros(len(uops), dtype="<u4")
    for i, uop in enumerate(uops):
        word = 0
        for name, shift, bits in UOP_FIELDS:
            value = getattr(uop, name)
            if not 0 <= value < 1 << bits:
                raise IsaError(f"micro-op {i}: {name} index {value} does not fit {bits} bits")
            word |= value << shift
        words[i] = word
    return words


def decode_uops(words: np.ndarray) -> list[Uop]:
    """Inverse of `encode_uops`."""
    out = []
    for word in np.asarray(words, dtype="<u4").tolist():
        parts = {name: word >> shift & ((1 << bits) - 1) for name, shift, bits in UOP_FIELDS}
        out.append(Uop(**parts))
    return out


def field_names(insn_type: type[Insn]) -> list[str]:
    """Field names of an instruction type, in declaration order (for dumps)."""
    return [f.name for f in fields(insn_type)]
