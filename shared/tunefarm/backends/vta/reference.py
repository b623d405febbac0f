"""A numpy model of each VTA instruction's semantics: the oracle the C simulator is tested on.

It is written from the ISA's definitions (isa.py docstrings), not from the C code, and runs a
program in program order, one instruction after another, ignoring timing: for a program whose
dependency tokens order every conflicting access, that is the only possible result. Buffers
hold typed tensors: input (depth, batch, block_in) int8, weight (depth, block_out, block_in)
int8, accumulator (depth, batch, block_out) int32, micro-ops as uint32 words.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tunefarm.backends.vta import isa
from tunefarm.backends.vta.config import VTAConfig


class ModelError(RuntimeError):
    """The program is outside the ISA's semantics (an index outside a buffer or DRAM)."""


class ReferenceMachine:
    """On-chip state of one accelerator and the semantics of each instruction."""

    def __init__(self, config: VTAConfig) -> None:
        self.config = config
        c = config
        self.uop = np.zeros(c.depth("uop"), dtype=np.uint32)
        self.inp = np.zeros((c.depth("inp"), c.batch, c.block_in), dtype=np.int8)
        self.wgt = np.zeros((c.depth("wgt"), c.block_out, c.block_in), dtype=np.int8)
        self.acc = np.zeros((c.depth("acc"), c.batch, c.block_out), dtype=np.int32)

    def buffers(self) -> dict[str, np.ndarray]:
        """The on-chip state, keyed and shaped like `Simulator.run(..., dump=True).sram`."""
        return {"uop": self.uop, "inp": self.inp, "wgt": self.wgt, "acc": self.acc}

    def _buffer(self, buffer: isa.Buffer) -> np.ndarray:
        return {"uop": self.uop, "inp": self.inp, "wgt": self.wgt, "acc": self.acc}[buffer.key]

    def _dram_elems(self, dram: np.ndarray, buffer: isa.Buffer, sram: np.ndarray) -> np.ndarray:
        """DRAM viewed as whole elements of `buffer` (trailing partial element dropped)."""
        elem = self.config.elem_bytes(buffer.key)
        usable = dram[: dram.size // elem * elem]
        return usable.view(sram.dtype).reshape(-1, *sram.shape[1:])

    def load(self, insn: isa.Load, dram: np.ndarray) -> None:
        sram = self._buffer(insn.buffer)
        src = self._dram_elems(dram, insn.buffer, sram)
        rows = insn.y_pad0 + insn.y_size + insn.y_pad1
        cols = insn.x_pad0 + insn.x_size + insn.x_pad1
        tile = np.zeros((rows, cols, *sram.shape[1:]), dtype=sram.dtype)
        for y in range(insn.y_size):
            start = insn.dram_base + y * insn.x_stride
            if start < 0 or start + insn.x_size > len(src):
                raise ModelError(f"LOAD row {y} reads DRAM elements outside DRAM")
            tile[insn.y_pad0 + y, insn.x_pad0 : insn.x_pad0 + insn.x_size] = src[
                start : start + insn.x_size
            ]
        end = insn.sram_base + rows * cols
        if end > len(sram):
            raise ModelError(f"LOAD writes {insn.buffer.key} elements up to {end} > {len(sram)}")
        sram[insn.sram_base : end] = tile.reshape(rows * cols, *sram.shape[1:])

    def store(self, insn: isa.Store, dram: np.ndarray) -> None:
        count = insn.y_size * insn.x_size
        if insn.sram_base + count > len(self.acc):
            raise ModelError("STORE reads beyond the output buffer")
        out = self.acc[insn.sram_base : insn.sram_base + count].astype(np.int8)  # truncation
        dst = dram[: dram.size // self.config.elem_bytes("out") * self.config.elem_bytes("out")]
        dst = dst.view(np.int8).reshape(-1, *self.acc.shape[1:])
        for y in range(insn.y_size):
            start = insn.dram_base + y * insn.x_stride
            if start < 0 or start + insn.x_size > len(dst):
                raise ModelError(f"STORE row {y} writes outside DRAM")
            dst[start : start + insn.x_size] = out[y * insn.x_size : (y + 1) * insn.x_size]

    def _indices(self, insn: isa.Gemm | isa.Alu) -> tuple[np.ndarray, ...]:
        """(dst, src, wgt) index arrays in execution order: iter_out, iter_in, micro-op."""
        words = self.uop[insn.uop_begin : insn.uop_end].astype(np.int64)
        fields = {n: words >> s & ((1 << b) - 1) for n, s, b in isa.UOP_FIELDS}
        i = np.arange(insn.iter_out)[:, None, None]
        j = np.arange(insn.iter_in)[None, :, None]
        wgt_out, wgt_in = getattr(insn, "wgt_factor_out", 0), getattr(insn, "wgt_factor_in", 0)
        dst = fields["acc"] + i * insn.dst_factor_out + j * insn.dst_factor_in
        src = fields["inp"] + i * insn.src_factor_out + j * insn.src_factor_in
        wgt = fields["wgt"] + i * wgt_out + j * wgt_in
        return tuple(np.broadcast_to(a, dst.shape).reshape(-1) for a in (dst, src, wgt))

    @staticmethod
    def _check(name: str, idx: np.ndarray, depth: int) -> None:
        if idx.size and (idx.min() < 0 or idx.max() >= depth):
            raise ModelError(f"{name} index outside [0, {depth})")

    def gemm(self, insn: isa.Gemm) -> None:
        dst, src, wgt = self._indices(insn)
        self._check("acc", dst, len(self.acc))
        if insn.reset:
            self.acc[dst] = 0
            return
        self._check("inp", src, len(self.inp))
        self._check("wgt", wgt, len(self.wgt))
        prod = np.einsum(
            "nbi,noi->nbo", self.inp[src].astype(np.int64), self.wgt[wgt].astype(np.int64)
        )
        total = self.acc.astype(np.int64)
        np.add.at(total, dst, prod)  # repeated destinations accumulate
        self.acc[...] = total.astype(np.int32)  # modulo 2**32, as int32 hardware wraps

    def alu(self, insn: isa.Alu) -> None:
        dst, src, _ = self._indices(insn)
        self._check("acc", dst, len(self.acc))
        if not insn.use_imm:
            self._check("acc (second operand)", src, len(self.acc))
        for d, s in zip(dst.tolist(), src.tolist(), strict=True):  # in order: ops may chain
            b = np.int32(insn.imm) if insn.use_imm else self.acc[s].copy()
            self.acc[d] = alu_op(insn.op, self.acc[d], b)

    def execute(self, insn: isa.Insn, dram: np.ndarray) -> None:
        """Apply one instruction (FINISH does nothing)."""
        if isinstance(insn, isa.Load):
            self.load(insn, dram)
        elif isinstance(insn, isa.Store):
            self.store(insn, dram)
        elif isinstance(insn, isa.Gemm):
            self.gemm(insn)
        elif isinstance(insn, isa.Alu):
            self.alu(insn)


def alu_op(op: isa.AluOp, a: np.ndarray, b: np.ndarray | np.int32) -> np.ndarray:
    """One ALU op on int32 vectors, wrapping like two's-complement hardware."""
    a = np.asarray(a, dtype=np.int32)
    b = np.broadcast_to(np.asarray(b, dtype=np.int32), a.shape)
    if op == isa.AluOp.MIN:
        return np.minimum(a, b)
    if op == isa.AluOp.MAX:
        return np.maximum(a, b)
    if op == isa.AluOp.ADD:
        return (a.astype(np.int64) + b).astype(np.int32)
    right = a >> np.clip(b, 0, 31)
    left = (a.astype(np.int64) << np.clip(-b.astype(np.int64), 0, 31)).astype(np.int32)
    return np.where(b >= 0, right, left)


def run_program(config: VTAConfig, insns: Sequence[isa.Insn], dram: np.ndarray) -> ReferenceMachine:
    """Execute `insns` in program order on `dram` (uint8, updated in place); the machine
    is returned for its final buffers."""
    machine = ReferenceMachine(config)
    for insn in insns:
        machine.execute(insn, dram)
    return machine
