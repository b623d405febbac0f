"""The committed PyTorch / Hugging Face exports under tests/models/ (made by
tools/export_test_models.py, both exporters): each imports, compiles untuned for the CPU
and matches ONNX Runtime on the inputs saved next to it; the saved PyTorch output checks
that the export itself computes what the model does."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest

from tunefarm.compiler import compile_graph
from tunefarm.frontend.onnx_import import load_onnx
from tunefarm.recipe import onnxruntime_outputs, relative_error
from tunefarm.runtime.executor import GraphExecutor

MODELS = Path(__file__).resolve().parents[1] / "models"
FILES = sorted(p.name for p in MODELS.glob("*.onnx"))


def test_every_file_is_in_the_manifest() -> None:
    manifest = json.loads((MODELS / "manifest.json").read_text())
    assert {"torch", "onnx", "transformers"} <= set(manifest["exporter"])
    assert sorted(m["file"] for m in manifest["models"].values()) == FILES
    assert len(FILES) >= 18


@pytest.mark.parametrize("name", FILES)
def test_export_compiles_and_matches_onnxruntime(name: str, tmp_path) -> None:
    path = MODELS / name
    saved = dict(np.load(path.with_name(name.replace(".onnx", ".inputs.npz"))))
    torch_out = saved.pop("__output__")
    graph = load_onnx(path)
    compile_graph(graph, "cpu").save(tmp_path / "net.tfa")
    got = GraphExecutor.load(tmp_path / "net.tfa").run(saved)
    want = onnxruntime_outputs(onnx.load(str(path)), saved)
    assert relative_error(got, want) <= 1e-4
    # the output varies across positions / pixels (random weights that compute something)
    out = np.asarray(want[graph.outputs[0]])
    assert out.std() > 1e-3 * max(np.abs(out).max(), 1e-6)
    assert relative_error({"o": got[graph.outputs[0]]}, {"o": torch_out}) <= 1e-3
