"""VTA ISA: the binary layout, micro-op packing and which module runs what."""

import numpy as np
import pytest

from tunefarm.backends.vta import isa
from tunefarm.backends.vta.isa import AluOp, Buffer, Module

SAMPLE = [
    isa.Load(Buffer.UOP, 0, 3, 1, 10, 0),
    isa.Load(Buffer.INP, 5, 100, 4, 7, 28, 1, 2, 0, 1, pop_next=True),
    isa.Load(Buffer.WGT, 0, 9, 2, 18, 36, push_next=True),
    isa.Gemm(0, 12, 2, 3, 96, 8, 0, 20, 18, 0, reset=False, pop_prev=True, push_prev=True),
    isa.Gemm(12, 20, 4, 3, 24, 8, 0, 0, 0, 0, reset=True, pop_next=True),
    isa.Alu(AluOp.SHR, 12, 20, 4, 3, 24, 8, use_imm=True, imm=-3),
    isa.Alu(AluOp.ADD, 12, 20, 4, 3, 24, 8, 5, 6, push_next=True),
    isa.Store(0, 40, 3, 8, 56, pop_prev=True, push_prev=True),
    isa.Finish(),
]


def test_round_trip():
    words = isa.encode(SAMPLE)
    assert words.shape == (len(SAMPLE), isa.WORDS) and words.dtype == np.dtype("<i4")
    assert isa.decode(words) == SAMPLE


def test_layout_of_a_load():
    words = isa.encode([SAMPLE[1]])[0].tolist()
    flags = 1 << isa.FLAG_BITS["pop_next"]
    assert words[:12] == [isa.Opcode.LOAD, flags, Buffer.INP, 5, 100, 4, 7, 28, 1, 2, 0, 1]
    assert words[12:] == [0, 0, 0, 0]


def test_layout_of_gemm_and_alu():
    gemm = isa.encode([SAMPLE[4]])[0].tolist()
    assert gemm[0] == isa.Opcode.GEMM
    assert gemm[1] == 1 << isa.RESET_BIT | 1 << isa.FLAG_BITS["pop_next"]
    assert gemm[3:13] == [12, 20, 4, 3, 24, 8, 0, 0, 0, 0]
    alu = isa.encode([SAMPLE[5]])[0].tolist()
    assert alu[1] == 1 << isa.USE_IMM_BIT and alu[2] == AluOp.SHR and alu[13] == -3


def test_modules():
    modules = [insn.module for insn in SAMPLE]
    assert modules == [Module.COMPUTE, Module.LOAD, Module.LOAD] + [Module.COMPUTE] * 4 + [
        Module.STORE,
        Module.COMPUTE,
    ]
    assert isa.Load(Buffer.ACC, 0, 0, 1, 1, 1).module == Module.COMPUTE


def test_uop_packing():
    uops = [isa.Uop(0, 0, 0), isa.Uop(2047, 1, 1023), isa.Uop(5, 2047, 7)]
    words = isa.encode_uops(uops)
    assert words[1] == 2047 | 1 << 11 | 1023 << 22
    assert isa.decode_uops(words) == uops


def test_encoding_errors():
    with pytest.raises(isa.IsaError, match="micro-op 1: wgt index 1024 does not fit 10 bits"):
        isa.encode_uops([isa.Uop(0), isa.Uop(0, 0, 1024)])
    with pytest.raises(isa.IsaError, match="instruction 1 \\(LOAD\\): word 4"):
        isa.encode([isa.Finish(), isa.Load(Buffer.INP, 0, 1 << 31, 1, 1, 1)])
    with pytest.raises(isa.IsaError, match="unknown opcode 9"):
        isa.decode(np.full((1, isa.WORDS), 9, dtype=np.int32))
