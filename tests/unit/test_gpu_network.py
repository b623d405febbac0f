"""Whole networks on a GPU target: the compiler lowers every node to GPU kernels, the artifact
holds the kernels' device images, and the executor runs it on the OpenCL device (pocl here)
matching ONNX Runtime and the CPU build; for CUDA the artifact builds with nvcc on any
machine, and runs where a GPU is (marked `gpu`).
"""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from test_gpu_kernels import need_nvcc, need_opencl

from tunefarm.backends import get_backend
from tunefarm.compiler import CompileError, compile_graph
from tunefarm.frontend.onnx_import import load_onnx
from tunefarm.runtime.artifact import ArtifactError
from tunefarm.runtime.executor import ExecutorError, GraphExecutor

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from tiny_model import tiny_model_bytes  # noqa: E402


def branchy_model() -> bytes:
    """Conv, max pool, hard sigmoid, a concat of two branches (their convs with leaky relu
    and clip epilogues), average pool, flatten, a dense layer and softmax: the light ops
    between anchors, and temps that share the arena."""
    rng = np.random.default_rng(3)

    def param(name, shape, scale=0.3):
        return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype("f4"), name)

    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("HardSigmoid", ["p1"], ["h1"], alpha=0.3, beta=0.4, name="hsig"),
        helper.make_node("Conv", ["h1", "w2"], ["c2"], name="conv2"),
        helper.make_node("LeakyRelu", ["c2"], ["l2"], alpha=0.2, name="leaky"),
        helper.make_node("Conv", ["h1", "w3"], ["c3"], pads=[1, 1, 1, 1], name="conv3"),
        helper.make_node("Clip", ["c3", "lo", "hi"], ["k3"], name="clip"),
        helper.make_node("Concat", ["l2", "k3"], ["cat"], axis=1, name="cat"),
        helper.make_node("AveragePool", ["cat"], ["ap"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["ap"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "wd", "bd"], ["z"], transB=1, name="fc"),
        helper.make_node("Softmax", ["z"], ["y"], axis=1, name="probs"),
    ]
    graph = helper.make_graph(
        nodes,
        "branchy",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 12, 12])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])],
        [
            param("w1", (8, 3, 3, 3)), param("b1", (8,)), param("w2", (6, 8, 1, 1)),
            param("w3", (6, 8, 3, 3)), param("wd", (5, 12 * 3 * 3)), param("bd", (5,)),
            numpy_helper.from_array(np.array(-0.5, "f4"), "lo"),
            numpy_helper.from_array(np.array(0.5, "f4"), "hi"),
        ],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model.SerializeToString()


def onnxruntime_outputs(data: bytes, x: np.ndarray) -> np.ndarray:
    import onnxruntime as ort

    return ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]


def relative(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).max() / np.abs(b).max())


@pytest.mark.parametrize("make", [tiny_model_bytes, branchy_model])
def test_a_network_runs_on_opencl_matching_onnxruntime_and_cpu(make, tmp_path):
    need_opencl()
    data = make()
    graph = load_onnx(data)
    shape = graph.inputs[0].shape
    x = np.random.default_rng(0).uniform(-1, 1, shape).astype(np.float32)
    want = onnxruntime_outputs(data, x)
    compile_graph(graph, "cpu").save(tmp_path / "cpu.tfa")
    cpu = GraphExecutor.load(tmp_path / "cpu.tfa").run({"x": x})["y"]

    info = compile_graph(graph, "opencl").save(tmp_path / "gpu.tfa")
    ex = GraphExecutor.load(info.path)
    got = ex.run({"x": x})["y"]
    assert relative(got, want) < 1e-5 and relative(got, cpu) < 1e-5
    # a second input: the device copy of the input is replaced, the result follows it
    x2 = -x
    assert relative(ex.run({"x": x2})["y"], onnxruntime_outputs(data, x2)) < 1e-5

    bench = ex.benchmark(repeat=2, min_repeat_ms=0)
    assert len(bench.costs) == 2 and all(c > 0 for c in bench.costs)
    profile = ex.profile(repeat=1)
    assert [p.node for p in profile][0] == "conv1" and all(p.ms > 0 for p in profile)
    assert len(profile) == ex.num_calls == info.n_calls


def test_the_artifact_holds_device_kernels_and_a_device_memory_plan(tmp_path):
    graph = load_onnx(branchy_model())
    info = compile_graph(graph, "opencl").save(tmp_path / "net.tfa")
    with zipfile.ZipFile(info.path) as zf:
        names = set(zf.namelist())
        manifest = json.loads(zf.read("manifest.json"))
        plan = json.loads(zf.read("plan.json"))
    assert "lib.so" not in names and manifest["runtime"] == "device"
    assert {f"kernels/{k['name']}.cl" for k in plan["kernels"]} <= names
    offsets = plan["memory"]["offsets"]
    assert offsets and all(v % get_backend("opencl").network_align == 0 for v in offsets.values())
    # temps whose lifetimes do not overlap share device memory
    assert plan["memory"]["arena_bytes"] < plan["memory"]["naive_bytes"]
    ops = {c["kernel"].split("_", 1)[1] for c in plan["calls"]}
    assert {"conv2d", "pool2d", "concat", "elementwise", "dense", "softmax"} <= ops


def test_bad_inputs_and_unsupported_ops_are_clear_errors(tmp_path):
    need_opencl()
    info = compile_graph(load_onnx(tiny_model_bytes()), "opencl").save(tmp_path / "t.tfa")
    ex = GraphExecutor.load(info.path)
    with pytest.raises(ExecutorError, match=r"input 'x': expected shape \(1, 3, 16, 16\)"):
        ex.set_input("x", np.zeros((1, 3, 8, 8), np.float32))
    with pytest.raises(ExecutorError, match="unknown input 'y'"):
        ex.set_input("y", np.zeros(3, np.float32))
    ex.close()
    with pytest.raises(ExecutorError, match="closed"):
        ex.run()
    for _ in range(3):  # device memory and kernels come back on close
        again = GraphExecutor.load(info.path)
        assert again.run({"x": np.ones((1, 3, 16, 16), np.float32)})["y"].shape == (1, 10)
        again.close()

    nodes = [
        helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], name="quant"),
        helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], name="dequant"),
    ]
    g = helper.make_graph(
        nodes,
        "qdq",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 7])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 7])],
        [
            numpy_helper.from_array(np.array(0.1, "f4"), "s"),
            numpy_helper.from_array(np.array(0, "i1"), "z"),
        ],
    )
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    with pytest.raises(CompileError, match="'quant'.*no kernel for quantize on opencl: int8"):
        compile_graph(load_onnx(model.SerializeToString()), "opencl")


def test_a_cuda_network_builds_with_nvrtc_without_a_gpu(tmp_path):
    """The build farm's side: every kernel a cubin built by NVRTC in process, its source
    beside it; loading it on a machine without the driver is one clear error."""
    need_nvcc()
    graph = load_onnx(tiny_model_bytes())
    info = compile_graph(graph, "cuda -arch=sm_80").save(tmp_path / "net.tfa")
    with zipfile.ZipFile(info.path) as zf:
        names = set(zf.namelist())
        manifest = json.loads(zf.read("manifest.json"))
        plan = json.loads(zf.read("plan.json"))
        image = zf.read(f"kernels/{plan['kernels'][0]['name']}.cubin")
    assert manifest["target"] == "cuda -arch=sm_80" and manifest["compiler"].startswith("NVRTC")
    assert {f"kernels/{k['name']}.cubin" for k in plan["kernels"]} <= names
    assert {f"kernels/{k['name']}.cu" for k in plan["kernels"]} <= names
    assert image[:4] == b"\x7fELF"  # a cubin is an ELF file
    again = compile_graph(graph, "cuda -arch=sm_80").save(tmp_path / "again.tfa")
    assert again.cached_objects == again.n_kernels  # the images are cached by source
    if not Path("/dev/nvidia0").exists():
        with pytest.raises(ArtifactError, match="cannot open the network on cuda.*libcuda"):
            GraphExecutor.load(info.path)


@pytest.mark.gpu
def test_a_network_runs_on_cuda_matching_onnxruntime(tmp_path):
    need_nvcc()
    data = branchy_model()
    graph = load_onnx(data)
    x = np.random.default_rng(0).uniform(-1, 1, (1, 3, 12, 12)).astype(np.float32)
    info = compile_graph(graph, "cuda").save(tmp_path / "net.tfa")
    ex = GraphExecutor.load(info.path)
    assert relative(ex.run({"x": x})["y"], onnxruntime_outputs(data, x)) < 1e-5
    bench = ex.benchmark(repeat=3, min_repeat_ms=10)
    assert all(c > 0 for c in bench.costs)


def test_onnx_model_is_valid():
    onnx.checker.check_model(onnx.load_from_string(branchy_model()))


def test_compile_run_and_bench_commands_take_a_gpu_target(tmp_path, capsys):
    """`tunefarm compile --target opencl`, then `run` and `bench` (device events) on it."""
    need_opencl()
    from tunefarm.cli.main import main

    model, net = tmp_path / "tiny.onnx", tmp_path / "tiny.tfa"
    model.write_bytes(tiny_model_bytes())
    assert main(["compile", str(model), "-o", str(net), "--target", "opencl"]) == 0
    out = tmp_path / "out.npz"
    assert main(["run", str(net), "--random-inputs", "0", "-o", str(out)]) == 0
    assert np.load(out)["y"].shape == (1, 10)
    capsys.readouterr()
    args = ["bench", str(net), "--repeat", "2", "--min-repeat-ms", "0", "--profile", "--json"]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["manifest"]["target"] == "opencl" and doc["manifest"]["runtime"] == "device"
    assert doc["benchmark"]["min_ms"] > 0 and len(doc["profile"]) == 4


def test_sketch_records_compile_into_a_gpu_network(tmp_path):
    """Nothing in the GPU network path is template-specific: each anchor task given a sketch
    config (a step list; here the template default's steps) compiles and runs correctly."""
    need_opencl()
    from tunefarm.backends import registry
    from tunefarm.graph.extract import extract_tasks
    from tunefarm.graph.passes import optimize

    data = tiny_model_bytes()
    graph = optimize(load_onnx(data))
    overrides = {}
    for t in extract_tasks(graph, "opencl"):
        steps = registry.instantiate(t.task, registry.default_config(t.task)).steps
        overrides[t.task] = registry.sketch_config(list(steps))
    compiled = compile_graph(graph, "opencl", optimized=True, overrides=overrides)
    assert all(registry.is_sketch(c.config) for c in compiled.choices)
    info = compiled.save(tmp_path / "sketch.tfa")
    x = np.random.default_rng(0).uniform(-1, 1, (1, 3, 16, 16)).astype(np.float32)
    got = GraphExecutor.load(info.path).run({"x": x})["y"]
    assert relative(got, onnxruntime_outputs(data, x)) < 1e-5


@pytest.mark.slow
@pytest.mark.timeout(1500)  # tuning alone took 442 s at load 12 (stop 36)
def test_the_seed_flow_tunes_resnet18_on_opencl(tmp_path, capsys):
    """`tunefarm tune resnet-18 --target opencl --policy sketch --trials 32` on pocl: tuned
    records, a GPU network compiled with them, its output within the recipe's tolerance of
    ONNX Runtime. The images are 64x64 and measurement settings are cut (one repeat, no
    in-network selection) so that pocl gets through the trials in about a minute (at 224x224
    and 64 trials the test took six, the longest of the suite)."""
    need_opencl()
    from tunefarm.backends import registry
    from tunefarm.cli.main import main
    from tunefarm.frontend import zoo
    from tunefarm.recipe import TOLERANCE
    from tunefarm.tune.records import load_records

    log, model = tmp_path / "r18.jsonl", tmp_path / "r18.onnx"
    zoo.save("resnet-18", model, image_size=64)
    argv = ["tune", str(model), "--target", "opencl", "--trials", "32", "--log", str(log)]
    argv += ["--policy", "sketch"]
    argv += ["--repeat", "1", "--min-repeat-ms", "0", "--select-top", "0"]
    argv += ["--bench-repeat", "1", "--json"]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["relative_error"] <= TOLERANCE
    records = load_records(log)
    sketches = [r for r in records if registry.is_sketch(r.config)]
    defaults = [r for r in records if not registry.is_sketch(r.config)]
    assert len(sketches) == 32 and {r.target for r in records} == {"opencl"}
    # beside the trials, each searched task's template default, once (recipe/defaults.py)
    assert all(r.config == registry.default_config(r.task) for r in defaults)
    assert len({r.workload_key for r in defaults}) == len(defaults)
    assert sum(r.result.error_no == 0 for r in sketches) >= 8
    assert any(t["tuned"] for t in doc["tasks"])
    with zipfile.ZipFile(doc["artifact"]["path"]) as zf:
        assert json.loads(zf.read("manifest.json"))["runtime"] == "device"


def test_a_kernel_the_driver_cannot_build_is_named_and_nothing_leaks(tmp_path):
    """The device's own error names the kernel; what was allocated before it is released
    (the device object is released, and a later network opens normally)."""
    need_opencl()
    info = compile_graph(load_onnx(tiny_model_bytes()), "opencl").save(tmp_path / "t.tfa")
    with zipfile.ZipFile(info.path) as zf:
        plan = json.loads(zf.read("plan.json"))
        images = {k["name"]: zf.read(k["image"]) for k in plan["kernels"]}
        with zf.open("params.npz") as f:
            params = dict(np.load(f))
    broken = next(iter(images))
    bad = dict(images)
    bad[broken] = images[broken].replace(b"{", b"{ this is not C;", 1)
    with pytest.raises(RuntimeError, match=f"kernel '{broken}' cannot be loaded.*clBuildProgram"):
        get_backend("opencl").open_network(plan, bad, params)
    net = get_backend("opencl").open_network(plan, images, params)
    net.run()
    net.close()


def _two_threads_and_size_checks(target: str, tmp_path) -> None:
    """The network opened in this thread runs from two others (a CUDA context is current per
    thread); a copy of the wrong dtype or size is refused, never written past the buffer."""
    import threading

    from tunefarm.backends.gpu_common.network import NetworkError

    data = tiny_model_bytes()
    info = compile_graph(load_onnx(data), target).save(tmp_path / "t.tfa")
    ex = GraphExecutor.load(info.path)
    x = np.random.default_rng(1).uniform(-1, 1, (1, 3, 16, 16)).astype(np.float32)
    want = onnxruntime_outputs(data, x)
    got: list[np.ndarray] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            got.append(ex.run({"x": x})["y"])
        except BaseException as exc:  # reported below, with the thread's error
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(got) == 2 and all(relative(g, want) < 1e-5 for g in got)
    net = ex._net
    if target.startswith("cuda"):  # one graph launch per run (TUNEFARM_CUDA_GRAPHS=1)
        assert [type(w).__name__ for w in net.whole_run()] == ["Graph"]
    else:  # OpenCL runs the calls one by one, as before
        assert net.whole_run() is net.launches
    buf = ex._inputs["x"]
    with pytest.raises(NetworkError, match=r"'x'|holds float32\[1, 3, 16, 16\], got float64"):
        net.write(buf, x.astype(np.float64))
    with pytest.raises(NetworkError, match=r"holds float32\[1, 3, 16, 16\], got float32\[2, 3"):
        net.write(buf, np.zeros((2, 3, 16, 16), np.float32))
    with pytest.raises(NetworkError, match="got float32"):
        net.read(ex._outputs["y"], np.zeros(11, np.float32))
    ex.close()


def test_an_opencl_network_runs_from_two_threads_and_checks_copy_sizes(tmp_path):
    need_opencl()
    _two_threads_and_size_checks("opencl", tmp_path)


@pytest.mark.gpu
def test_a_cuda_network_runs_from_two_threads_and_checks_copy_sizes(tmp_path):
    need_nvcc()
    _two_threads_and_size_checks("cuda -arch=sm_90", tmp_path)


@pytest.mark.gpu
def test_a_cuda_network_gives_the_same_answer_with_and_without_the_graph(tmp_path, monkeypatch):
    need_nvcc()
    data = branchy_model()
    x = np.random.default_rng(0).uniform(-1, 1, (1, 3, 12, 12)).astype(np.float32)
    info = compile_graph(load_onnx(data), "cuda").save(tmp_path / "net.tfa")
    outs = {}
    for graphs in ("1", "0"):
        monkeypatch.setenv("TUNEFARM_CUDA_GRAPHS", graphs)
        ex = GraphExecutor.load(info.path)
        outs[graphs] = ex.run({"x": x})["y"]
        assert ex.benchmark(repeat=2, min_repeat_ms=5).median > 0
        kinds = {type(w).__name__ for w in ex._net.whole_run()}
        assert kinds == ({"Graph"} if graphs == "1" else {"tuple"})
        ex.close()
    assert np.array_equal(outs["1"], outs["0"])
    assert relative(outs["1"], onnxruntime_outputs(data, x)) < 1e-5


def test_an_op_without_a_gpu_kernel_is_a_compile_error_naming_the_node():
    """A grouped (not depthwise) conv has no GPU template yet: the compiler says which node,
    not a traceback."""
    nodes = [helper.make_node("Conv", ["x", "w"], ["y"], name="grouped", group=2)]
    g = helper.make_graph(
        nodes,
        "grouped",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 5, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 5, 5])],
        [numpy_helper.from_array(np.ones((4, 2, 1, 1), np.float32), "w")],
    )
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    with pytest.raises(
        CompileError, match=r"node 'grouped' \(conv2d\) on opencl: .*no GPU template"
    ):
        compile_graph(load_onnx(model.SerializeToString()), "opencl")
