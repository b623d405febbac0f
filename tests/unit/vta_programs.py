"""Broken VTA programs for the error-record tests: source generators that take the op
registry's program for a candidate and break it the way a faulty lowering would.

They are module-level so that the build workers can unpickle them by reference (the builder
sends the parent's sys.path with every job, which makes this test directory importable there).
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np

from tunefarm.backends import registry
from tunefarm.backends.vta import isa
from tunefarm.backends.vta.program import pack_words, unpack_words
from tunefarm.measure import KernelSource, MeasureInput


def _edit(inp: MeasureInput, change) -> KernelSource:
    src = registry.generate_source(inp)
    doc = json.loads(src.code)
    insns = isa.decode(unpack_words(doc["program"], "<i4"))
    doc["program"] = pack_words(isa.encode(change(insns)))
    return replace(src, code=json.dumps(doc))


def first(insns, kind, buffer=None) -> int:
    return next(
        i
        for i, insn in enumerate(insns)
        if isinstance(insn, kind) and (buffer is None or insn.buffer == buffer)
    )


def deadlocking_source(inp: MeasureInput) -> KernelSource:
    """The first weight load forgets to tell compute it is done: the GEMM waits forever."""

    def change(insns):
        i = first(insns, isa.Load, isa.Buffer.WGT)
        insns[i] = replace(insns[i], push_next=False)
        return insns

    return _edit(inp, change)


def overflowing_source(inp: MeasureInput) -> KernelSource:
    """The first input load writes past the end of the input buffer."""

    def change(insns):
        i = first(insns, isa.Load, isa.Buffer.INP)
        insns[i] = replace(insns[i], sram_base=int(np.iinfo(np.int32).max // 4))
        return insns

    return _edit(inp, change)
