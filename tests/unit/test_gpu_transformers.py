"""Transformers on the GPU backends: bert-tiny from the zoo (int64 ids, gather, where,
broadcast_to, layer_norm, GELU, softmax, batch matmuls) compiles for `opencl`, runs on pocl
and matches ONNX Runtime within the CPU recipe's tolerance; for `cuda` the same kernels build
with nvcc (no GPU needed).
"""

from __future__ import annotations

import json
import zipfile

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from test_gpu_kernels import need_nvcc, need_opencl

from tunefarm.compiler import compile_graph
from tunefarm.frontend import zoo
from tunefarm.frontend.onnx_import import load_onnx
from tunefarm.graph.ir import random_inputs
from tunefarm.runtime.executor import GraphExecutor

# bert-tiny's two layers at batch 1 and 16 tokens: every op of the full size, pocl-sized
SEQ = 16
# the tolerance test_transformer_import.py gives the CPU build against ONNX Runtime
RTOL = 1e-4


@pytest.fixture(scope="module")
def bert_tiny() -> onnx.ModelProto:
    return zoo.build("bert-tiny", batch=1, image_size=SEQ)


def ort_run(m: onnx.ModelProto, feeds: dict) -> dict[str, np.ndarray]:
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in m.graph.output]
    return dict(zip(names, sess.run(names, feeds), strict=True))


def test_bert_tiny_runs_on_opencl_matching_onnxruntime(bert_tiny, tmp_path) -> None:
    need_opencl()
    g = load_onnx(bert_tiny)
    info = compile_graph(g, "opencl").save(tmp_path / "bert.tfa")
    with zipfile.ZipFile(info.path) as zf:
        plan = json.loads(zf.read("plan.json"))
    ops = {c["kernel"].split("_", 1)[1] for c in plan["calls"]}
    assert {"gather", "layer_norm", "dense", "batch_matmul", "softmax"} <= ops
    ex = GraphExecutor.load(info.path)
    try:
        for seed in (0, 1):
            feeds = random_inputs(g, seed)
            assert feeds["input_ids"].dtype == np.int64
            got, want = ex.run(feeds), ort_run(bert_tiny, feeds)
            for name, w in want.items():
                np.testing.assert_allclose(got[name], w, rtol=RTOL, atol=RTOL * abs(w).max())
    finally:
        ex.close()


def test_bert_tiny_builds_for_cuda_with_nvcc(bert_tiny, tmp_path, monkeypatch) -> None:
    """The CUDA dialect of the same kernels (int64 as `long long`, erff, tanhf) through
    nvcc, with a cold object cache so that every kernel is compiled here."""
    need_nvcc()
    monkeypatch.setenv("TUNEFARM_CUDA_COMPILER", "nvcc")
    monkeypatch.setenv("TUNEFARM_CACHE", str(tmp_path / "cache"))
    info = compile_graph(load_onnx(bert_tiny), "cuda -arch=sm_90").save(tmp_path / "bert.tfa")
    assert info.cached_objects == 0
    with zipfile.ZipFile(info.path) as zf:
        manifest = json.loads(zf.read("manifest.json"))
        plan = json.loads(zf.read("plan.json"))
        names = set(zf.namelist())
        gathers = [k["name"] for k in plan["kernels"] if k["name"].endswith("_gather")]
        source = zf.read(f"kernels/{gathers[0]}.cu").decode()
    assert manifest["target"] == "cuda -arch=sm_90" and "Cuda compilation" in manifest["compiler"]
    assert {f"kernels/{k['name']}.fatbin" for k in plan["kernels"]} <= names
    assert "long long* __restrict__ indices" in source
