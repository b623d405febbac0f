"""Measure layer: real gcc builds and real child-process measurements of tiny C kernels."""

from __future__ import annotations

import json
import os
import signal
import stat
import time
import warnings
from dataclasses import replace
from pathlib import Path

import measure_kernels as mk
import numpy as np
import pytest

from tunefarm.backends import parse_target
from tunefarm.backends.cpu.target import cflags
from tunefarm.measure import (
    ArgSpec,
    BuildResult,
    Config,
    KernelSource,
    LocalBuilder,
    LocalRunner,
    MeasureErrorNo,
    MeasureInput,
    MeasureResult,
    MeasureSettings,
    Toolchain,
    time_evaluator,
)
from tunefarm.measure import builder as builder_module
from tunefarm.measure.child import check_outputs
from tunefarm.measure.host import aligned_copy

E = MeasureErrorNo
FAST = MeasureSettings(repeat=3, min_repeat_ms=5, timeout_s=5.0)


@pytest.fixture(scope="module")
def builder(tmp_path_factory: pytest.TempPathFactory):
    with LocalBuilder(
        n_parallel=2, timeout_s=20, cache_dir=tmp_path_factory.mktemp("cache"), generate=mk.generate
    ) as b:
        yield b


@pytest.fixture(scope="module")
def runner():
    with LocalRunner(FAST, io_factory=mk.io) as r:
        yield r


def _roundtrip(obj):
    return type(obj).from_json(json.loads(json.dumps(obj.to_json())))


def test_dataclasses_roundtrip_through_json() -> None:
    cfg = Config.make({"tile": [[4, 8], 2], "vec": True, "order": "ijk"}, index=7)
    assert cfg.get("tile") == ((4, 8), 2)
    assert _roundtrip(cfg) == cfg and hash(_roundtrip(cfg)) == hash(cfg)
    inp = mk.inp("add", unroll=2)
    assert _roundtrip(inp) == inp
    src = mk.generate(inp)
    assert _roundtrip(src) == src
    assert _roundtrip(ArgSpec("x", (2, 3), "float32", True)) == ArgSpec(
        "x", (2, 3), "float32", True
    )
    settings = MeasureSettings(number=4, flush_cache=True, cooldown_ms=1.5)
    assert _roundtrip(settings) == settings
    build = BuildResult("/x.so", src.arg_specs, "k", 3.0, E.NO_ERROR, "", 0.25, "ab")
    assert _roundtrip(build) == build
    res = MeasureResult((3e-6, 1e-6, 2e-6), E.NO_ERROR, "", 0.5, 1.7e9, settings)
    assert _roundtrip(res) == res
    assert (res.min, res.median, res.mean) == (1e-6, 2e-6, pytest.approx(2e-6))
    bad = MeasureResult((), E.RUN_TIMEOUT, "late", 1.0, 1.7e9, settings)
    assert _roundtrip(bad) == bad and not bad.ok and bad.min == bad.mean == float("inf")


def test_bad_arguments_raise_clear_errors() -> None:
    with pytest.raises(ValueError, match="repeat"):
        MeasureSettings(repeat=0)
    with pytest.raises(ValueError, match="tile"):
        Config.make({"tile": {"x": 1}})
    with pytest.raises(ValueError, match="n_parallel"):
        LocalBuilder(mk.generate, n_parallel=0)
    with pytest.raises(ValueError, match="picklable"):
        LocalBuilder(generate=lambda inp: mk.generate(inp))
    with pytest.raises(ValueError, match="equal length"):
        LocalRunner(FAST, io_factory=mk.io).run([mk.inp("add")], [])
    with pytest.raises(KeyError, match="nope"):
        Config.make({"a": 1}).get("nope")


def test_compiler_flags_follow_target_isa() -> None:
    assert "-march=skylake-avx512" in cflags(parse_target("cpu -isa=avx512 -cores=2"))
    assert "-march=haswell" in cflags(parse_target("cpu -isa=avx2"))
    assert "-march=x86-64" in cflags(parse_target("cpu -isa=generic"))
    assert "-march=native" in cflags(parse_target("cpu"))
    with pytest.raises(ValueError, match="sse9"):
        parse_target("cpu -isa=sse9")


def test_batch_with_wrong_answer_and_segfault(builder: LocalBuilder, runner: LocalRunner) -> None:
    inputs = [mk.inp("add"), mk.inp("wrong"), mk.inp("segv"), mk.inp("add", unroll=2)]
    builds = builder.build(inputs)
    assert [b.error_no for b in builds] == [E.NO_ERROR] * 4, [b.error_msg for b in builds]
    results = runner.run(inputs, builds)
    ok, wrong, segv, ok2 = results
    for res in (ok, ok2):
        assert res.ok, res.error_msg
        assert len(res.costs) == FAST.repeat
        assert 0 < res.min <= res.median < 1e-2  # 4096 float adds: microseconds
        assert res.settings.number > 1  # grown to reach min_repeat_ms
        assert res.all_cost > 0
    assert wrong.error_no == E.WRONG_ANSWER
    assert "max error" in wrong.error_msg and "expected" in wrong.error_msg
    assert segv.error_no == E.RUNTIME_ERROR and "SIGSEGV" in segv.error_msg


def test_syntax_error_is_build_error_with_compiler_message(
    builder: LocalBuilder, runner: LocalRunner
) -> None:
    inputs = [mk.inp("syntax"), mk.inp("raise")]
    syntax, raised = builder.build(inputs)
    assert syntax.error_no == E.BUILD_ERROR and "error" in syntax.error_msg
    assert "expected" in syntax.error_msg  # gcc: expected ';' before 'return'
    assert raised.error_no == E.INSTANTIATION_ERROR
    assert "cannot instantiate" in raised.error_msg
    passed = runner.run(inputs, [syntax, raised])  # errors pass through, nothing runs
    assert [r.error_no for r in passed] == [E.BUILD_ERROR, E.INSTANTIATION_ERROR]
    assert passed[1].error_msg == raised.error_msg


def test_an_oversized_source_is_refused_before_the_compiler(builder: LocalBuilder) -> None:
    """A source over MAX_SOURCE_BYTES is a build error at once, naming its size, not a
    compile that runs into the time limit; the next candidate builds as usual."""
    start = time.perf_counter()
    huge, fine = builder.build([mk.inp("huge"), mk.inp("add", unroll=7)])
    assert huge.error_no == E.BUILD_ERROR and "MiB a candidate may have" in huge.error_msg
    assert "generated source is 4.0 MiB" in huge.error_msg and fine.ok
    assert time.perf_counter() - start < 20  # gcc was never run on it


def test_unknown_isa_is_instantiation_error(builder: LocalBuilder) -> None:
    (res,) = builder.build([mk.inp("add", target="cpu -isa=sse9")])
    assert res.error_no == E.INSTANTIATION_ERROR and "sse9" in res.error_msg


def test_dead_build_worker_costs_only_its_candidate(builder: LocalBuilder) -> None:
    died, fine = builder.build([mk.inp("die"), mk.inp("add")])
    assert died.error_no == E.BUILD_ERROR and "died" in died.error_msg, died.error_msg
    assert fine.ok, fine.error_msg
    assert builder.build([mk.inp("add")])[0].ok  # pool recovered


def test_hung_generator_is_killed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The timeout leaves a loaded host's gcc room for the fine candidate (0.5 s did not,
    at load 15 on two cores) and stays far below the hang's. A sleeping generator uses no
    CPU time: the wall-clock backstop ends it."""
    monkeypatch.setattr(builder_module, "_GRACE_S", 0.5)  # parent backstop beyond the limits
    with LocalBuilder(
        n_parallel=1, timeout_s=3.0, wall_timeout_s=6.0, cache_dir=tmp_path, generate=mk.generate
    ) as b:
        start = time.perf_counter()
        hung, fine = b.build([mk.inp("hang"), mk.inp("add")])
        assert time.perf_counter() - start < 20
    assert hung.error_no == E.BUILD_TIMEOUT and "killed" in hung.error_msg
    assert "wall-clock" in hung.error_msg, hung.error_msg
    assert fine.ok, fine.error_msg


def test_nonzero_return_and_infinite_loop(builder: LocalBuilder) -> None:
    inputs = [mk.inp("fail"), mk.inp("loop"), mk.inp("add")]
    builds = builder.build(inputs)
    with LocalRunner(replace_timeout(FAST, 1.0), io_factory=mk.io) as runner:
        start = time.perf_counter()
        fail, loop, add = runner.run(inputs, builds)
        elapsed = time.perf_counter() - start
    assert fail.error_no == E.RUNTIME_ERROR and "returned 3" in fail.error_msg
    assert loop.error_no == E.RUN_TIMEOUT
    assert add.ok, add.error_msg
    assert elapsed < 1.0 + 4.0


def replace_timeout(settings: MeasureSettings, timeout_s: float) -> MeasureSettings:
    return MeasureSettings(**{**settings.to_json(), "timeout_s": timeout_s})


def test_reference_layout_mismatch_is_reported(builder: LocalBuilder) -> None:
    inputs = [mk.inp("add")]
    with LocalRunner(FAST, io_factory=mk.io_wrong_shape) as runner:
        (res,) = runner.run(inputs, builder.build(inputs))
    assert res.error_no == E.RUNTIME_ERROR and "argument 2 (c)" in res.error_msg


def test_build_cache_reuses_the_file(tmp_path: Path) -> None:
    inputs = [mk.inp("add", n=1000)]
    with LocalBuilder(n_parallel=1, cache_dir=tmp_path, generate=mk.generate) as first:
        (a,) = first.build(inputs)
    assert a.ok, a.error_msg
    stamp = os.stat(a.artifact).st_mtime_ns
    with LocalBuilder(n_parallel=1, cache_dir=tmp_path, generate=mk.generate) as second:
        (b,) = second.build(inputs)
    assert b.artifact == a.artifact and b.source_hash == a.source_hash
    assert os.stat(b.artifact).st_mtime_ns == stamp
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".c", ".so"]  # no temp leftovers


def test_a_builder_reuses_its_own_build_while_the_artifact_exists(tmp_path: Path) -> None:
    """The same input built again by the same builder (a recheck of the incumbent) is its
    earlier result, with no source generated (0 s); a removed artifact is built again, and
    a streamed hit is reported like a build."""
    inputs = [mk.inp("add", n=1000), mk.inp("add", n=1000, unroll=2)]
    seen: list[int] = []
    with LocalBuilder(n_parallel=1, cache_dir=tmp_path, generate=mk.generate) as builder:
        first = builder.build(inputs[:1])
        again = builder.build(inputs, lambda i, r: seen.append(i))
        os.unlink(first[0].artifact)
        rebuilt = builder.build(inputs[:1])
    assert first[0].ok and first[0].build_seconds > 0
    assert again[0].artifact == first[0].artifact and again[0].build_seconds == 0.0
    assert again[1].ok and again[1].build_seconds > 0 and sorted(seen) == [0, 1]
    assert rebuilt[0].build_seconds > 0 and os.path.exists(rebuilt[0].artifact)


def _fake_cc(tmp_path: Path, body: str) -> str:
    fake = tmp_path / "fakecc"
    fake.write_text(f'#!/bin/sh\n[ "$1" = "--version" ] && {{ echo fakecc 1; exit 0; }}\n{body}\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    return str(fake)


def test_hung_compiler_is_killed(tmp_path: Path) -> None:
    """A compiler that hangs without using CPU time: the wall-clock backstop ends it."""
    cc = _fake_cc(tmp_path, "sleep 60")
    with LocalBuilder(
        n_parallel=1, timeout_s=30, wall_timeout_s=3, cache_dir=tmp_path / "c", cc=cc,
        generate=mk.generate,
    ) as b:  # fmt: skip
        start = time.perf_counter()
        (res,) = b.build([mk.inp("add")])
    assert res.error_no == E.BUILD_TIMEOUT, res.error_msg
    assert "wall-clock" in res.error_msg, res.error_msg
    assert time.perf_counter() - start < 3 + 5  # the worker ends it; the parent only at 3 + 5


def test_spinning_compiler_is_killed_on_its_cpu_time(tmp_path: Path) -> None:
    """The build limit counts CPU seconds of the compiler's whole process group (here a
    child of the shell spins), long before the wall-clock backstop."""
    cc = _fake_cc(tmp_path, "sh -c 'while :; do :; done' & wait")
    with LocalBuilder(
        n_parallel=1, timeout_s=0.5, wall_timeout_s=120, cache_dir=tmp_path / "c", cc=cc,
        generate=mk.generate,
    ) as b:  # fmt: skip
        start = time.perf_counter()
        (res,) = b.build([mk.inp("add")])
    assert res.error_no == E.BUILD_TIMEOUT, res.error_msg
    assert "CPU time" in res.error_msg, res.error_msg
    assert time.perf_counter() - start < 60  # half a CPU second, even at load 20 on 2 cores


def test_build_limits_are_checked() -> None:
    with pytest.raises(ValueError, match="wall_timeout_s must be a positive number"):
        LocalBuilder(mk.generate, timeout_s=1, wall_timeout_s=0)


def test_time_evaluator_grows_number_in_process() -> None:
    calls: list[int] = []
    flushes: list[int] = []

    def fn_time(number: int) -> float:
        calls.append(number)
        return 1e-4  # 0.1 ms per run

    timing = time_evaluator(fn_time, MeasureSettings(repeat=3, min_repeat_ms=10))
    assert timing.number * 1e-4 * 1e3 >= 10 and calls[0] == 1
    assert timing.costs == (1e-4,) * 3
    settings = MeasureSettings(repeat=2, min_repeat_ms=0, number=5, flush_cache=True)
    timing = time_evaluator(fn_time, settings, flush=lambda: flushes.append(1))
    assert timing.number == 5 and len(timing.costs) == 2 and len(flushes) == 2
    with pytest.raises(ValueError, match="nan"):
        time_evaluator(lambda n: float("nan"), MeasureSettings())


def test_a_long_checked_run_stands_in_for_the_growth_call() -> None:
    calls: list[int] = []

    def fn_time(number: int) -> float:
        calls.append(number)
        return 0.02

    settings = MeasureSettings(repeat=2, min_repeat_ms=10)
    timing = time_evaluator(fn_time, settings, first_run=0.03)
    assert timing.costs == (0.03, 0.02) and timing.number == 1 and calls == [1]
    # shorter than a timed call, or asked to flush first: the growth call as before
    for first, flush in ((0.005, False), (0.03, True)):
        calls.clear()
        s = replace(settings, flush_cache=flush)
        timing = time_evaluator(fn_time, s, flush=lambda: None, first_run=first)
        assert 0.005 not in timing.costs and 0.03 not in timing.costs and len(calls) >= 2


def test_check_outputs_and_alignment() -> None:
    buf = aligned_copy(np.arange(10, dtype=np.float32))
    assert buf.ctypes.data % 64 == 0 and buf.tolist() == list(range(10))
    specs = (ArgSpec("c", (3,), "float32", True),)
    ref = np.array([1.0, 2.0, 3.0], np.float32)
    assert check_outputs([ref + 1e-6], {0: ref}, specs, 1e-4, 1e-4) is None
    msg = check_outputs([np.array([1.0, np.nan, 3.5], np.float32)], {0: ref}, specs, 1e-4, 1e-4)
    assert msg is not None and "2 of 3" in msg and "(1,)" in msg and "nan" in msg


def test_kernel_source_is_plain_data() -> None:
    tc = Toolchain("gcc", ["-O2"], link=["-shared"])
    src = KernelSource("int x;", "tf_entry", [ArgSpec("a", [4])], "k", 1.0, tc)
    assert src.arg_specs == (ArgSpec("a", (4,)),) and src.toolchain.flags == ("-O2",)
    assert tc.command("k.c", "k.so") == ["gcc", "-O2", "-shared", "-o", "k.so", "k.c"]
    assert KernelSource.from_json(json.loads(json.dumps(src.to_json()))) == src
    assert MeasureInput.from_json(mk.inp("add").to_json()).task.args["kernel"] == "add"


def test_measurement_zygote_killed_while_idle_is_replaced(builder: LocalBuilder) -> None:
    inputs = [mk.inp("add")]
    builds = builder.build(inputs)
    with LocalRunner(FAST, io_factory=mk.io) as runner:
        assert runner.run(inputs, builds)[0].ok
        zygote = runner._zygote
        assert zygote is not None and zygote.pid is not None
        first = zygote.pid
        os.kill(first, signal.SIGKILL)
        time.sleep(0.1)
        again = runner.run(inputs, builds)[0]
        assert again.ok, again.error_msg
        assert zygote.pid not in (None, first)


def test_flush_cache_wraps_without_overflow_warning() -> None:
    # each flush writes a new byte value; from 255 it wraps to 0 (numpy warned on the uint8 add)
    from tunefarm.measure import timing

    timing.flush_cache()
    assert timing._flush_buffer is not None
    timing._flush_buffer[0] = 255
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        timing.flush_cache()
    assert timing._flush_buffer[0] == 0 and timing._flush_buffer[-1] == 0
