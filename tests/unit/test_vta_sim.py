"""The C simulator: each instruction kind against the numpy model, errors, tokens, cycles."""

import numpy as np
import pytest

from tunefarm.backends.vta import isa, reference
from tunefarm.backends.vta.config import load_config
from tunefarm.backends.vta.isa import AluOp, Buffer
from tunefarm.backends.vta.simulator import SimError, Simulator

HW = load_config("default")
T = HW.timing


@pytest.fixture(scope="module")
def sim():
    return Simulator(HW)


def make_dram(uops=(), size=1 << 16, seed=0):
    """Random bytes with the micro-ops at byte 0 (uop element 0)."""
    dram = np.random.default_rng(seed).integers(0, 256, size, dtype=np.uint8)
    words = isa.encode_uops(list(uops))
    dram[: words.nbytes] = words.view(np.uint8)
    return dram


def run_both(sim, insns, dram):
    """Run on the simulator and the numpy model; DRAM and every buffer must agree."""
    got, want = dram.copy(), dram.copy()
    result = sim.run(insns, got, dump=True)
    assert result.ok, result.error_msg
    machine = reference.run_program(HW, insns, want)
    np.testing.assert_array_equal(got, want)
    for name, array in machine.buffers().items():
        np.testing.assert_array_equal(result.sram[name], array, err_msg=name)
    return result, got


@pytest.mark.parametrize("buffer", [Buffer.INP, Buffer.WGT, Buffer.ACC, Buffer.UOP])
def test_load_with_padding(sim, buffer):
    load = isa.Load(buffer, 3, 10, 3, 5, 9, 1, 2, 2, 1)
    result, _ = run_both(sim, [load, isa.Finish()], make_dram())
    assert result.dram_read_bytes == 3 * 5 * HW.elem_bytes(buffer.key)


def test_load_places_rows_and_zero_padding(sim):
    dram = make_dram()
    result = sim.run(
        [isa.Load(Buffer.INP, 3, 10, 3, 5, 9, 1, 2, 2, 1), isa.Finish()], dram, dump=True
    )
    elems = dram.view(np.int8).reshape(-1, 1, 16)
    tile = result.sram["inp"][3 : 3 + 6 * 8].reshape(6, 8, 1, 16)
    for y in range(3):
        np.testing.assert_array_equal(tile[1 + y, 2:7], elems[10 + 9 * y : 15 + 9 * y])
    assert not tile[0].any() and not tile[4:].any() and not tile[:, :2].any()
    assert not tile[:, 7].any()


def test_store_truncates_the_accumulator(sim):
    insns = [
        isa.Load(Buffer.ACC, 0, 100, 1, 12, 0, push_next=True),  # compute loads acc itself
        isa.Store(2, 50, 2, 4, 7, pop_prev=True),
        isa.Finish(),
    ]
    # acc load is a compute instruction; its push_next is the compute->store token
    result, dram = run_both(sim, insns, make_dram(seed=1))
    acc = make_dram(seed=1)[100 * 64 : 112 * 64].view("<i4").reshape(12, 16)
    out = dram.view(np.int8).reshape(-1, 16)
    np.testing.assert_array_equal(out[50:54], acc[2:6].astype(np.int8))
    np.testing.assert_array_equal(out[57:61], acc[6:10].astype(np.int8))
    assert result.dram_write_bytes == 8 * 16


def gemm_program(uops, gemm):
    return [
        isa.Load(Buffer.UOP, 0, 0, 1, len(uops), 0),
        isa.Load(Buffer.ACC, 0, 200, 1, 64, 0),
        isa.Load(Buffer.INP, 0, 1000, 1, 64, 0),
        isa.Load(Buffer.WGT, 0, 100, 1, 16, 0, push_next=True),
        gemm,
        isa.Finish(),
    ]


def test_gemm_over_micro_op_loops(sim):
    rng = np.random.default_rng(2)
    uops = [isa.Uop(*v) for v in zip(*(rng.integers(0, 8, 6) for _ in range(3)), strict=True)]
    uops.append(isa.Uop(uops[0].acc, 3, 4))  # a repeated destination accumulates twice
    gemm = isa.Gemm(0, len(uops), 3, 4, 16, 2, 7, 1, 3, 1, pop_prev=True)
    result, _ = run_both(sim, gemm_program(uops, gemm), make_dram(uops, seed=2))
    assert result.gemm_uops == 3 * 4 * len(uops)


def test_gemm_reset_zeroes_the_loop_range(sim):
    uops = [isa.Uop(1), isa.Uop(2)]
    gemm = isa.Gemm(0, 2, 2, 3, 10, 3, 0, 0, 0, 0, reset=True, pop_prev=True)
    result, _ = run_both(sim, gemm_program(uops, gemm), make_dram(uops, seed=3))
    assert not result.sram["acc"][[1, 2, 4, 5, 7, 8, 11, 12, 14, 15, 17, 18]].any()
    assert result.sram["acc"][3].any() and result.gemm_uops == 0


@pytest.mark.parametrize("op", list(AluOp))
@pytest.mark.parametrize("imm", [None, -3, 5, 40])
def test_alu(sim, op, imm):
    uops = [isa.Uop(i, 20 + 2 * i) for i in range(5)] + [isa.Uop(9, 1)]  # 9 reads acc 1...
    uops.append(isa.Uop(30, 9))  # ...and 30 reads the 9 just written
    loops = (0, len(uops), 2, 2, 40, 64, 3, 1)
    alu = isa.Alu(op, *loops, use_imm=imm is not None, imm=imm or 0)
    insns = [isa.Load(Buffer.UOP, 0, 0, 1, len(uops), 0), isa.Load(Buffer.ACC, 0, 64, 1, 200, 0)]
    dram = make_dram(uops, seed=4)
    dram[64 * 64 + 8 :: 12] = np.uint8(0x9F)  # some large negative and shift-sized values
    result, _ = run_both(sim, [*insns, alu, isa.Finish()], dram)
    assert result.alu_uops == 4 * len(uops)


def test_alu_semantics_of_the_model():
    a = np.array([7, -7, 2**31 - 1, -(2**31), 1], dtype=np.int32)
    assert reference.alu_op(AluOp.SHR, a, 1).tolist() == [3, -4, 2**30 - 1, -(2**30), 0]
    assert reference.alu_op(AluOp.SHR, a, -1).tolist() == [14, -14, -2, 0, 2]
    assert reference.alu_op(AluOp.ADD, a, 1).tolist() == [8, -6, -(2**31), -(2**31) + 1, 2]
    assert reference.alu_op(AluOp.SHR, a, 99).tolist() == [0, -1, 0, -1, 0]


# -- errors ---------------------------------------------------------------------------------
def test_load_beyond_a_buffer_is_an_error(sim):
    result = sim.run([isa.Load(Buffer.INP, 2040, 0, 1, 10, 0), isa.Finish()], make_dram())
    assert result.error_no == SimError.SRAM_OVERFLOW and result.error_insn == 0
    assert result.error_msg == (
        "instruction 0: LOAD writes inp buffer elements [2040, 2050) beyond its depth 2048"
    )


def test_gemm_index_beyond_a_buffer_is_an_error(sim):
    uops = [isa.Uop(0, 2040, 0)]
    gemm = isa.Gemm(0, 1, 1, 3, 0, 1, 0, 4, 0, 0, pop_prev=True)
    result = sim.run(gemm_program(uops, gemm), make_dram(uops))
    assert result.error_no == SimError.SRAM_OVERFLOW and result.error_insn == 4
    assert result.error_msg == (
        "instruction 4: GEMM accesses inp buffer element 2048 (micro-op 0, iteration (0, 2)) "
        "beyond its depth 2048"
    )


def test_dram_range_is_an_error(sim):
    result = sim.run([isa.Load(Buffer.WGT, 0, 250, 2, 4, 4), isa.Finish()], make_dram())
    assert result.error_no == SimError.DRAM_RANGE and result.error_insn == 0
    assert "outside DRAM of 65536 bytes" in result.error_msg


def test_missing_push_deadlocks(sim):
    insns = [
        isa.Load(Buffer.INP, 0, 0, 1, 1, 1),
        isa.Gemm(0, 0, 1, 1, 0, 0, 0, 0, 0, 0, pop_prev=True),
        isa.Finish(),
    ]
    result = sim.run(insns, make_dram())
    assert result.error_no == SimError.DEADLOCK and result.error_insn == 1
    assert result.error_msg == (
        "deadlock: load module done; compute module blocked at instruction 1 (waits for a "
        "load->compute token); store module done"
    )


def test_cyclic_wait_deadlocks(sim):
    insns = [
        isa.Load(Buffer.INP, 0, 0, 1, 1, 1, pop_next=True, push_next=True),
        isa.Gemm(0, 0, 1, 1, 0, 0, 0, 0, 0, 0, pop_prev=True, push_prev=True),
        isa.Store(0, 0, 1, 1, 1, pop_prev=True),
        isa.Finish(),
    ]
    result = sim.run(insns, make_dram())
    assert result.error_no == SimError.DEADLOCK and result.error_insn == 0
    assert "load module blocked at instruction 0 (waits for a compute->load token)" in (
        result.error_msg
    )
    assert "compute module blocked at instruction 1" in result.error_msg
    assert "store module blocked at instruction 2" in result.error_msg


@pytest.mark.parametrize(
    ("insns", "code", "message"),
    [
        (
            [isa.Load(Buffer.INP, 0, 0, 1, 1, 1, pop_prev=True), isa.Finish()],
            SimError.BAD_INSTRUCTION,
            "instruction 0: load module has no previous module",
        ),
        (
            [isa.Store(0, 0, 1, 1, 1, push_next=True), isa.Finish()],
            SimError.BAD_INSTRUCTION,
            "instruction 0: store module has no next module",
        ),
        (
            [isa.Store(0, 0, 1, 1, 1, buffer=Buffer.ACC), isa.Finish()],
            SimError.BAD_INSTRUCTION,
            "instruction 0: STORE from buffer 3",
        ),
        ([isa.Load(Buffer.INP, 0, 0, 1, 1, 1)], SimError.NO_FINISH, "does not end with FINISH"),
        ([isa.Finish(), isa.Finish()], SimError.NO_FINISH, "instruction 0: FINISH before"),
        (
            [isa.Load(Buffer.INP, 0, 0, -1, 1, 1), isa.Finish()],
            SimError.BAD_INSTRUCTION,
            "negative field",
        ),
    ],
)
def test_malformed_programs(sim, insns, code, message):
    result = sim.run(insns, make_dram())
    assert result.error_no == code and message in result.error_msg


def test_api_misuse_raises(sim):
    with pytest.raises(TypeError, match="uint8"):
        sim.run([isa.Finish()], np.zeros(16, dtype=np.int8))
    with pytest.raises(TypeError, match="writeable"):
        dram = make_dram()
        dram.flags.writeable = False
        sim.run([isa.Finish()], dram)


# -- cycles ---------------------------------------------------------------------------------
def test_dma_cycles():
    """Latency plus, per row (pad rows too), a row cost and bus-width beats."""
    sim = Simulator(HW)
    result = sim.run([isa.Load(Buffer.INP, 0, 0, 4, 10, 10, 1, 0, 2, 1), isa.Finish()], make_dram())
    rows, row_bytes = 5, 13 * 16
    load = T.insn_cycles + T.dma_latency + rows * (T.dma_row_cycles + row_bytes // HW.bus_bytes)
    assert result.busy == {"load": load, "compute": T.insn_cycles, "store": 0}
    assert result.cycles == load  # FINISH ran alongside, on the compute module


def test_gemm_cycles_one_micro_op_per_cycle(sim):
    uops = [isa.Uop(i, i, 0) for i in range(6)]
    gemm = isa.Gemm(0, 6, 4, 5, 6, 0, 0, 0, 0, 0, pop_prev=True)
    result = sim.run(gemm_program(uops, gemm), make_dram(uops), trace=True)
    start, end = result.trace[4]
    assert end - start == T.insn_cycles + 4 * 5 * 6 * T.gemm_cycles_per_uop


def test_modules_overlap_as_tokens_allow(sim):
    load = isa.Load(Buffer.INP, 0, 0, 64, 16, 16)
    gemm = isa.Gemm(0, 1, 100, 10, 0, 0, 0, 0, 0, 0)
    free = sim.run([load, gemm, isa.Finish()], make_dram([isa.Uop(0)]), trace=True)
    assert free.cycles == max(free.busy.values())  # independent: fully overlapped
    tied = sim.run(
        [replace_flags(load, push_next=True), replace_flags(gemm, pop_prev=True), isa.Finish()],
        make_dram([isa.Uop(0)]),
        trace=True,
    )
    assert tied.trace[1][0] == tied.trace[0][1]  # the pop waits for the push's completion
    assert tied.cycles == tied.busy["load"] + tied.trace[1][1] - tied.trace[1][0] + T.insn_cycles


def replace_flags(insn, **flags):
    import dataclasses

    return dataclasses.replace(insn, **flags)


def test_timing_only_run_reports_the_same_cycles(sim):
    uops = [isa.Uop(i, i, 0) for i in range(6)]
    program = gemm_program(uops, isa.Gemm(0, 6, 4, 5, 6, 0, 0, 0, 0, 0, pop_prev=True))
    program.insert(5, isa.Store(0, 10, 2, 3, 4))
    full, quick = make_dram(uops), make_dram(uops)
    a, b = sim.run(program, full), sim.run(program, quick, functional=False)
    assert a.ok and b.ok and a.cycles == b.cycles and a.busy == b.busy
    assert np.array_equal(quick, make_dram(uops)) and not np.array_equal(full, quick)
