"""The runtime: memory planning, artifact packing and the graph executor.

Plans are built by hand from real kernels of the template registry (so the C follows the real
ABI) and checked against the numpy reference; kernel objects are cached for the whole module,
so only the first build of each kernel pays for gcc.
"""

from __future__ import annotations

import functools
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tunefarm.backends import registry
from tunefarm.ir import reference as R
from tunefarm.measure.types import MeasureInput
from tunefarm.runtime.artifact import ArtifactError, build_artifact, driver_source, rename_symbols
from tunefarm.runtime.executor import BenchmarkResult, ExecutorError, GraphExecutor
from tunefarm.runtime.memory import ALIGN, PlanError, plan_memory
from tunefarm.runtime.plan import BufferSpec, Call, ExecPlan, KernelCode
from tunefarm.task import Task

NCHW = (1, 16, 8, 8)
BLOCKED = (1, 1, 8, 8, 16)
FLAT = (1, 1024)
BYTES = 16 * 8 * 8 * 4  # one NCHW tensor


@pytest.fixture(scope="module", autouse=True)
def build_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """One throwaway build cache, so tests neither read nor fill ~/.cache."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TUNEFARM_CACHE", str(tmp_path_factory.mktemp("runtime-cache")))
        yield


@functools.cache
def _generated(task: Task) -> tuple[str, int, tuple]:
    cfg = registry.default_config(task)
    src = registry.generate_source(MeasureInput(task, cfg))
    return src.code, len(src.arg_specs), tuple(registry.instantiate(task, cfg).packers)


def kernel(name: str, op: str, **params: object) -> KernelCode:
    code, n_args, _ = _generated(Task.make(op, **params))
    return KernelCode(name, code, n_args)


def ew(name: str, fn: str, n_in: int = 1, shape: tuple[int, ...] = NCHW) -> KernelCode:
    return kernel(name, "elementwise", fn=fn, shapes=[list(shape)] * n_in)


# blocks pinned to the NCHW16c layout the chain packs into, whatever the host's vector width
CONV = Task.make("conv2d", data=list(NCHW), weight=[16, 16, 3, 3], padding=1, blocks=[16, 16])


def buf(name: str, shape: tuple[int, ...], kind: str, alias_of: str | None = None) -> BufferSpec:
    return BufferSpec(name, tuple(shape), "float32", kind, alias_of)


def rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)


def chain_plan(weight: np.ndarray) -> ExecPlan:
    """x -> NCHW16c -> conv -> relu -> NCHW -> y, the conv weight packed as a param."""
    packed = _generated(CONV)[2][1](weight)
    kernels = [
        kernel("to16", "layout_transform", shape=list(NCHW), src="NCHW", dst="NCHW16c"),
        KernelCode("conv", *_generated(CONV)[:2]),
        ew("relu_b", "relu", shape=BLOCKED),
        kernel("back", "layout_transform", shape=list(BLOCKED), src="NCHW16c", dst="NCHW"),
    ]
    buffers = [buf("x", NCHW, "input"), buf("w", packed.shape, "param")]
    buffers += [buf(f"t{i}", BLOCKED, "temp") for i in range(3)] + [buf("y", NCHW, "output")]
    calls = [
        Call("to16", ("x", "t0"), "data_pack"),
        Call("conv", ("t0", "w", "t1"), "conv1"),
        Call("relu_b", ("t1", "t2"), "relu1"),
        Call("back", ("t2", "y"), "unpack"),
    ]
    io = ([("data", "x")], [("out", "y")])
    return ExecPlan("cpu", buffers, kernels, calls, *io, {"w": packed}, {"model": "chain"})


def chain_reference(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return R.relu(R.conv2d_nchw(x, w, (1, 1), (1, 1, 1, 1)))


def reuse_plan() -> ExecPlan:
    """Six elementwise calls; at most three of the five temps are live at once."""
    kernels = [ew("relu", "relu"), ew("mul", "multiply", 2), ew("add", "add", 2)]
    calls = [
        Call("relu", ("x", "t0"), "r0"),
        Call("mul", ("t0", "t0", "t1"), "m0"),
        Call("add", ("t1", "x", "t2"), "a0"),
        Call("relu", ("t2", "t3"), "r1"),
        Call("add", ("t3", "t3", "t4"), "a1"),
        Call("mul", ("t4", "t2", "y"), "m1"),
    ]
    buffers = [buf("x", NCHW, "input"), buf("y", NCHW, "output")]
    buffers += [buf(f"t{i}", NCHW, "temp") for i in range(5)]
    return ExecPlan("cpu", buffers, kernels, calls, [("x", "x")], [("y", "y")], {})


def reuse_reference(x: np.ndarray) -> np.ndarray:
    t0 = np.maximum(x, 0)
    t2 = t0 * t0 + x
    return 2 * np.maximum(t2, 0) * t2


def alias_plan() -> ExecPlan:
    """relu -> reshape (alias) -> softmax, and a second output with an alias of its own."""
    kernels = [ew("relu", "relu"), ew("mul", "multiply", 2)]
    kernels.append(kernel("softmax", "softmax", shape=list(FLAT)))
    buffers = [
        buf("x", NCHW, "input"),
        buf("t0", NCHW, "temp"),
        buf("t0_flat", FLAT, "temp", alias_of="t0"),
        buf("probs", FLAT, "output"),
        buf("sq", NCHW, "output"),
        buf("sq_flat", FLAT, "output", alias_of="sq"),
    ]
    calls = [
        Call("relu", ("x", "t0"), "relu"),
        Call("softmax", ("t0_flat", "probs"), "softmax"),
        Call("mul", ("t0", "t0", "sq"), "square"),
    ]
    outputs = [("probs", "probs"), ("sq", "sq"), ("sq_flat", "sq_flat")]
    return ExecPlan("cpu", buffers, kernels, calls, [("x", "x")], outputs, {})


@pytest.fixture(scope="module")
def weight() -> np.ndarray:
    return rand(16, 16, 3, 3, seed=1)


@pytest.fixture(scope="module")
def chain_artifact(tmp_path_factory: pytest.TempPathFactory, weight: np.ndarray) -> Path:
    path = tmp_path_factory.mktemp("chain") / "chain.tfa"
    build_artifact(chain_plan(weight), path)
    return path


@pytest.fixture(scope="module")
def chain(chain_artifact: Path) -> GraphExecutor:
    return GraphExecutor.load(chain_artifact)


# ----------------------------------------------------------------------------- memory planning


def dummy_chain(n: int, sizes: list[int] | None = None) -> ExecPlan:
    """x -> t0 -> ... -> t{n-1} -> y with unary kernels (not compiled: planning only)."""
    sizes = sizes or [256] * n
    buffers = [buf("x", (4,), "input"), buf("y", (4,), "output")]
    buffers += [buf(f"t{i}", (s,), "temp") for i, s in enumerate(sizes)]
    names = ["x", *(f"t{i}" for i in range(n)), "y"]
    pairs = enumerate(zip(names, names[1:], strict=False))
    calls = [Call("k", (a, b), f"n{i}") for i, (a, b) in pairs]
    return ExecPlan("cpu", buffers, [KernelCode("k", "", 2)], calls, [("x", "x")], [("y", "y")], {})


def assert_no_overlap(plan: ExecPlan) -> None:
    mem = plan_memory(plan)
    sizes = {b.name: b.nbytes for b in plan.buffers}
    live = mem.lifetimes
    for a in live:
        assert mem.offsets[a] % ALIGN == 0 and mem.offsets[a] + sizes[a] <= mem.arena_bytes
        for b in live:
            both_live = live[a][0] <= live[b][1] and live[b][0] <= live[a][1]
            if a < b and both_live:
                disjoint = (
                    mem.offsets[a] + sizes[a] <= mem.offsets[b]
                    or mem.offsets[b] + sizes[b] <= mem.offsets[a]
                )
                assert disjoint, (a, b, mem)


def plan_sizes(plan: ExecPlan) -> list[int]:
    return [b.shape[0] for b in plan.buffers if b.kind == "temp"]


def test_chain_of_temps_needs_two_blocks() -> None:
    mem = plan_memory(dummy_chain(6))
    assert mem.naive_bytes == 6 * 1024 and mem.arena_bytes == 2 * 1024
    assert mem.lifetimes["t2"] == (2, 3)
    assert_no_overlap(dummy_chain(6))


def test_mixed_sizes_never_overlap_and_are_aligned() -> None:
    plan = dummy_chain(8, [100, 3, 700, 64, 1, 500, 250, 999])
    assert_no_overlap(plan)
    mem = plan_memory(plan)
    assert mem.arena_bytes < mem.naive_bytes
    assert mem.naive_bytes == sum(-(-s * 4 // ALIGN) * ALIGN for s in plan_sizes(plan))


def test_aliases_share_memory_and_extend_liveness() -> None:
    plan = dummy_chain(4)
    plan.buffers += [buf("t0_view", (16, 16), "temp", "t0"), buf("x_view", (2, 2), "temp", "x")]
    plan.buffers += [buf("t2_out", (16, 16), "output", alias_of="t2")]
    plan.kernels.append(KernelCode("k3", "", 3))
    plan.calls.append(Call("k3", ("t0_view", "x_view", "y"), "late_reader"))
    plan.outputs.append(("t2_out", "t2_out"))
    mem = plan_memory(plan)
    assert mem.roots["t0_view"] == "t0" and mem.offsets["t0_view"] == mem.offsets["t0"]
    assert mem.roots["x_view"] == "x" and "x_view" not in mem.offsets
    assert mem.lifetimes["t0"] == (0, 5)  # read through its alias by the last call
    assert mem.lifetimes["t2"] == (2, 5)  # the user reads it through an output alias
    assert_no_overlap(plan)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda p: p.calls.append(Call("k", ("y", "nope"), "bad_node")), "unknown buffer 'nope'"),
        (lambda p: p.calls.append(Call("k2", ("y", "y"), "bad_node")), "unknown kernel 'k2'"),
        (lambda p: p.calls.append(Call("k", ("y",), "bad_node")), "takes 2 args, got 1"),
        (lambda p: p.calls.insert(0, Call("k", ("t3", "y"), "bad_node")), "before any call"),
    ],
)
def test_bad_calls_are_plan_errors_naming_the_node(edit, message: str) -> None:
    plan = dummy_chain(4)
    edit(plan)
    with pytest.raises(PlanError, match=message) as info:
        plan_memory(plan)
    assert "bad_node" in str(info.value)


def test_bad_buffers_and_params_are_plan_errors() -> None:
    plan = dummy_chain(2)
    plan.buffers.append(buf("v", (3,), "temp", alias_of="t0"))
    with pytest.raises(PlanError, match="same size"):
        plan_memory(plan)
    plan = dummy_chain(2)
    plan.buffers.append(buf("w", (4,), "param"))
    with pytest.raises(PlanError, match="no data"):
        plan_memory(plan)
    plan.params["w"] = np.zeros(5, np.float32)
    with pytest.raises(PlanError, match="shape"):
        plan_memory(plan)
    plan = dummy_chain(2)
    plan.kernels.append(KernelCode("net", "", 1))
    with pytest.raises(PlanError, match="'net'"):
        plan_memory(plan)


# ----------------------------------------------------------------------------- code generation


def test_symbols_are_renamed_on_word_boundaries() -> None:
    code = "int32_t tf_entry(void** a); double tf_time(void** a, int32_t n); int tf_entry_x;"
    out = rename_symbols(KernelCode("relu0", code, 1))
    assert "tf_relu0_entry(" in out and "tf_relu0_time(" in out and "tf_entry_x" in out
    with pytest.raises(ArtifactError, match="tf_time"):
        rename_symbols(KernelCode("k", "int32_t tf_entry(void** a);", 1))


def test_driver_indexes_buffers_by_number(weight: np.ndarray) -> None:
    src = driver_source(chain_plan(weight))
    assert "tf_call_args[] = {\n  " in src and "2, 1, 3" in src.split("tf_call_args")[1]
    assert "if (tf_net_call(b, i) != 0) return i + 1;" in src
    assert "tf_net_num_calls(void) { return 4; }" in src


# ----------------------------------------------------------------------------- end to end


def test_chain_matches_numpy(chain: GraphExecutor, weight: np.ndarray) -> None:
    x = rand(*NCHW, seed=2)
    out = chain.run({"data": x})
    assert list(out) == ["out"] and out["out"].shape == NCHW
    np.testing.assert_allclose(out["out"], chain_reference(x, weight), rtol=1e-4, atol=1e-4)
    assert chain.input_info() == {"data": (NCHW, "float32")}
    assert chain.output_info() == {"out": (NCHW, "float32")}
    assert chain.manifest["model"] == "chain" and chain.manifest["target"] == "cpu"


def test_temps_share_the_arena_and_results_stay_right(tmp_path: Path) -> None:
    info = build_artifact(reuse_plan(), tmp_path / "reuse.tfa")
    assert info.arena_bytes == 3 * BYTES and info.naive_temp_bytes == 5 * BYTES
    assert (info.n_kernels, info.n_calls) == (3, 6) and info.size_bytes > 0
    ex = GraphExecutor.load(info.path)
    for seed in (3, 4):
        x = rand(*NCHW, seed=seed)
        np.testing.assert_allclose(ex.run({"x": x})["y"], reuse_reference(x), rtol=1e-5)


def test_alias_buffers_and_two_outputs(tmp_path: Path) -> None:
    build_artifact(alias_plan(), tmp_path / "alias.tfa")
    ex = GraphExecutor.load(tmp_path / "alias.tfa")
    assert ex.output_names == ["probs", "sq", "sq_flat"]
    x = rand(*NCHW, seed=5)
    out = ex.run({"x": x})
    relu = np.maximum(x, 0)
    np.testing.assert_allclose(out["probs"], R.softmax(relu.reshape(FLAT)), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(out["sq"], relu * relu, rtol=1e-6)
    np.testing.assert_array_equal(out["sq_flat"], out["sq"].reshape(FLAT))
    np.testing.assert_array_equal(ex.get_output("sq"), out["sq"])


def test_round_trip_runs_repeatably_beside_another_network(
    chain_artifact: Path, tmp_path: Path, weight: np.ndarray
) -> None:
    first = GraphExecutor.load(chain_artifact)
    fresh = GraphExecutor.load(chain_artifact)
    build_artifact(reuse_plan(), tmp_path / "other.tfa")
    other = GraphExecutor.load(tmp_path / "other.tfa")
    assert other.lib_path != fresh.lib_path and first.lib_path == fresh.lib_path
    x = rand(*NCHW, seed=6)
    a = fresh.run({"data": x})["out"]
    o = other.run({"x": x})["y"]
    b = fresh.run({"data": x})["out"]
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, first.run({"data": x})["out"])
    np.testing.assert_allclose(a, chain_reference(x, weight), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(o, reuse_reference(x), rtol=1e-5)
    a[...] = 0  # outputs are copies
    assert np.any(fresh.get_output("out"))


def test_build_cache_reuses_every_object(tmp_path: Path) -> None:
    plan, cache = reuse_plan(), tmp_path / "cache"
    first = build_artifact(plan, tmp_path / "a.tfa", cache_dir=cache, jobs=2)
    second = build_artifact(plan, tmp_path / "b.tfa", cache_dir=cache, jobs=2)
    assert (first.cached_objects, second.cached_objects) == (0, 3)
    objects = sorted(p.suffix for p in (cache / "runtime" / "objects").iterdir())
    assert objects == [".o"] * 3  # no temporary leftovers
    plan.kernels[0] = KernelCode("relu", plan.kernels[0].code + "\n/* retuned */\n", 2)
    assert build_artifact(plan, tmp_path / "c.tfa", cache_dir=cache).cached_objects == 2


def test_benchmark_and_profile(chain: GraphExecutor) -> None:
    # one run takes ~30 us, but OpenMP barriers on a loaded machine can stretch it to ~30 ms:
    # a target of 60 ms still makes `number` grow there
    res = chain.benchmark(repeat=3, min_repeat_ms=60.0)
    assert isinstance(res, BenchmarkResult) and res.repeat == 3 and len(res.costs) == 3
    assert res.number > 1 and all(c > 0 for c in res.costs)
    assert 0 < res.min <= res.median <= res.max and res.min <= res.mean <= res.max
    assert res.std >= 0 and res.mean == pytest.approx(np.mean(res.costs) * 1e3)
    text = str(res)
    assert text.startswith("Execution time summary:\n") and "median (ms)" in text
    assert json.loads(json.dumps(res.to_json()))["number"] == res.number
    fixed = chain.benchmark(repeat=2, number=3, warmup=0)
    assert fixed.number == 3 and len(fixed.costs) == 2
    prof = chain.profile(repeat=3)
    assert [(p.node, p.kernel) for p in prof] == [
        ("data_pack", "to16"),
        ("conv1", "conv"),
        ("relu1", "relu_b"),
        ("unpack", "back"),
    ]
    assert all(p.ms > 0 for p in prof)


# ----------------------------------------------------------------------------- errors


def test_set_input_checks_name_shape_and_dtype(chain: GraphExecutor) -> None:
    with pytest.raises(ExecutorError, match="unknown input 'x'.*'data'"):
        chain.set_input("x", rand(*NCHW))
    with pytest.raises(ExecutorError, match=r"'data'.*\(1, 16, 8, 8\).*float32.*\(16, 8, 8\)"):
        chain.set_input("data", rand(16, 8, 8))
    x64 = rand(*NCHW).astype(np.float64)
    with pytest.raises(ExecutorError, match="'data'.*float32.*got dtype float64.*cast=True"):
        chain.set_input("data", x64)
    chain.set_input("data", x64, cast=True)
    with pytest.raises(ExecutorError, match="unknown output"):
        chain.get_output("y")


def failing_kernel(name: str) -> KernelCode:
    code = (
        "#include <stdint.h>\n"
        "int32_t tf_entry(void** a) { (void)a; return 3; }\n"
        "double tf_time(void** a, int32_t n) { (void)a; (void)n; return 0.0; }\n"
    )
    return KernelCode(name, code, 2)


def test_failing_kernel_names_node_and_kernel(tmp_path: Path) -> None:
    plan = ExecPlan(
        "cpu",
        [buf("x", NCHW, "input"), buf("t", NCHW, "temp"), buf("y", NCHW, "output")],
        [ew("relu", "relu"), failing_kernel("always_fails")],
        [Call("relu", ("x", "t"), "first"), Call("always_fails", ("t", "y"), "broken_node")],
        [("x", "x")],
        [("y", "y")],
        {},
    )
    build_artifact(plan, tmp_path / "fail.tfa")
    ex = GraphExecutor.load(tmp_path / "fail.tfa")
    with pytest.raises(ExecutorError, match="call 1 .*'broken_node'.*'always_fails'"):
        ex.run()
    with pytest.raises(ExecutorError, match="broken_node"):
        ex.benchmark(repeat=1, number=1, warmup=0)
    with pytest.raises(ExecutorError, match="broken_node.*code 3"):
        ex.profile(repeat=1)


def test_compile_error_names_the_kernel(tmp_path: Path) -> None:
    bad = KernelCode("typo_kernel", "int32_t tf_entry(void** a) { return 0 }\ndouble tf_time;\n", 2)
    plan = ExecPlan(
        "cpu",
        [buf("x", NCHW, "input"), buf("y", NCHW, "output")],
        [bad],
        [Call("typo_kernel", ("x", "y"), "n")],
        [("x", "x")],
        [("y", "y")],
        {},
    )
    with pytest.raises(ArtifactError, match="kernel 'typo_kernel' failed to compile") as info:
        build_artifact(plan, tmp_path / "bad.tfa")
    assert "error" in str(info.value) and "typo_kernel.c" in str(info.value)
    assert not (tmp_path / "bad.tfa").exists()


def rewrite(src: Path, dst: Path, **replace: bytes | None) -> Path:
    """Copy artifact `src` to `dst` with members replaced (None: dropped)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for name in zin.namelist():
            data = replace.get(name.replace(".", "_"), zin.read(name))
            if data is not None:
                zout.writestr(name, data)
    return dst


def test_bad_files_are_artifact_errors(chain_artifact: Path, tmp_path: Path) -> None:
    with pytest.raises(ArtifactError, match="no such artifact"):
        GraphExecutor.load(tmp_path / "missing.tfa")
    garbage = tmp_path / "garbage.tfa"
    garbage.write_bytes(b"\x7fELF not a zip at all" * 10)
    with pytest.raises(ArtifactError, match="not a tunefarm artifact"):
        GraphExecutor.load(garbage)
    with pytest.raises(ArtifactError, match="no manifest.json"):
        GraphExecutor.load(rewrite(chain_artifact, tmp_path / "a.tfa", manifest_json=None))
    manifest = json.loads(zipfile.ZipFile(chain_artifact).read("manifest.json"))
    future = json.dumps({**manifest, "format_version": 99}).encode()
    with pytest.raises(ArtifactError, match="format version 99.*reads version 1"):
        GraphExecutor.load(rewrite(chain_artifact, tmp_path / "b.tfa", manifest_json=future))
    with pytest.raises(ArtifactError, match="sha256"):
        GraphExecutor.load(rewrite(chain_artifact, tmp_path / "c.tfa", lib_so=b"oops"))
    with pytest.raises(ArtifactError, match="missing.*params.npz"):
        GraphExecutor.load(rewrite(chain_artifact, tmp_path / "d.tfa", params_npz=None))


def test_artifact_layout(chain_artifact: Path) -> None:
    with zipfile.ZipFile(chain_artifact) as zf:
        names = set(zf.namelist())
        plan = json.loads(zf.read("plan.json"))
    assert {"lib.so", "plan.json", "params.npz", "manifest.json", "kernels/conv.c"} <= names
    assert plan["memory"]["arena_bytes"] == 2 * BYTES and plan["memory"]["naive_bytes"] == 3 * BYTES
    assert [c["node"] for c in plan["calls"]] == ["data_pack", "conv1", "relu1", "unpack"]


def sleeping_kernel(name: str, ms: int) -> KernelCode:
    """A kernel that sleeps `ms`: wall time without CPU time, as a call descheduled by a
    neighbour process on a shared host."""
    code = (
        "#define _POSIX_C_SOURCE 199309L\n"
        "#include <stdint.h>\n#include <time.h>\n"
        "int32_t tf_entry(void** a) {\n"
        f"  (void)a; struct timespec t = {{0, {ms} * 1000000L}}; nanosleep(&t, 0); return 0;\n"
        "}\n"
        "double tf_time(void** a, int32_t n) { (void)a; (void)n; return 0.0; }\n"
    )
    return KernelCode(name, code, 2)


@pytest.mark.parametrize(("target", "cpu_clock"), [("cpu -cores=1", True), ("cpu -cores=2", False)])
def test_profile_clock_follows_cores(tmp_path: Path, target: str, cpu_clock: bool) -> None:
    # a -cores=1 network runs on the calling thread: its profile counts that thread's CPU
    # time (a 20 ms sleep costs ~0), a multi-threaded one the wall clock (>= 20 ms)
    plan = ExecPlan(
        target,
        [buf("x", NCHW, "input"), buf("y", NCHW, "output")],
        [sleeping_kernel("nap", 20)],
        [Call("nap", ("x", "y"), "sleeper")],
        [("x", "x")],
        [("y", "y")],
        {},
    )
    build_artifact(plan, tmp_path / "nap.tfa")
    (entry,) = GraphExecutor.load(tmp_path / "nap.tfa").profile(repeat=2)
    assert entry.node == "sleeper"
    assert (entry.ms < 5.0) if cpu_clock else (entry.ms >= 19.0)
