"""The model zoo: every model builds, passes the ONNX checker, runs in onnxruntime with sane
logits and has the published parameter count; plus opsets, errors and the `zoo` command.

Expensive nets are built at small image sizes (parameter counts do not depend on it), except
vgg-16, whose classifier needs 224; each model is built once per module.
"""

from __future__ import annotations

import functools
import json

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from tunefarm.cli.main import main
from tunefarm.frontend import zoo

# torchvision's counts (weights, biases, BN scale and bias); inception-v3 without its aux head.
PUBLISHED = {
    "resnet-18": 11_689_512,
    "resnet-34": 21_797_672,
    "resnet-50": 25_557_032,
    "mobilenet-v1": 4_231_976,
    "mobilenet-v2": 3_504_872,
    "squeezenet-1.0": 1_248_424,
    "squeezenet-1.1": 1_235_496,
    "inception-v3": 23_834_568,
    "vgg-16": 138_357_544,
}
TEST_SIZE = {"inception-v3": 75, "vgg-16": 224}  # others: 64


@pytest.fixture(autouse=True, scope="module")
def _drop_models():
    """Free the cached models (vgg-16 alone is 550 MB) when this module is done."""
    yield
    model.cache_clear()


@functools.cache
def model(name: str, batch: int = 1, opset: int = 13, seed: int = 0) -> onnx.ModelProto:
    return zoo.build(name, batch=batch, seed=seed, image_size=TEST_SIZE.get(name, 64), opset=opset)


def infer(m: onnx.ModelProto) -> np.ndarray:
    session = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    dims = [d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim]
    x = np.random.default_rng(42).standard_normal(dims).astype(np.float32)
    (y,) = session.run(["output"], {"data": x})
    return y


def assert_sane_logits(y: np.ndarray, batch: int) -> None:
    assert y.shape == (batch, 1000) and y.dtype == np.float32
    assert np.isfinite(y).all()
    assert y.std() > 1e-3, "logits are all about equal: activations vanished"
    assert np.abs(y).max() < 1e4, "logits are huge: activations exploded"


def test_names_are_the_published_models() -> None:
    assert zoo.names() == [*PUBLISHED, "bert-base", "bert-tiny"]


def test_bert_shapes_and_parameter_counts() -> None:
    """bert-base has Hugging Face bert-base-uncased's 109,482,240 parameters (pooler
    included); described without drawing weights. Import and compile: test_transformer_import."""
    info = zoo.describe("bert-base", batch=2, image_size=64)
    assert info.params == 109_482_240 and info.opset == 17
    assert info.input_shape == (2, 64) and info.output_shape == (2, 64, 768)
    with pytest.raises(zoo.ZooError, match="opset 17"):
        zoo.describe("bert-tiny", opset=13)
    with pytest.raises(zoo.ZooError, match="above 512"):
        zoo.describe("bert-tiny", image_size=513)


@pytest.mark.parametrize("name", list(PUBLISHED))
def test_model_is_valid_onnx_and_runs(name: str) -> None:
    m = model(name)
    if name != "vgg-16":  # build already checked it; vgg's 550 MB take seconds to re-check
        onnx.checker.check_model(m)
    size = TEST_SIZE.get(name, 64)
    graph = m.graph
    assert [i.name for i in graph.input] == ["data"] and [o.name for o in graph.output] == [
        "output"
    ]
    dims = [d.dim_value for d in graph.input[0].type.tensor_type.shape.dim]
    assert dims == [1, 3, size, size]
    assert m.opset_import[0].version == 13 and m.ir_version <= 8
    node_names = [n.name for n in graph.node]
    assert all(node_names) and len(set(node_names)) == len(node_names)
    assert all(t.data_type == onnx.TensorProto.FLOAT for t in graph.initializer)
    assert "Softmax" not in {n.op_type for n in graph.node}
    assert_sane_logits(infer(m), 1)


@pytest.mark.parametrize("name", list(PUBLISHED))
def test_parameter_count_is_the_published_one(name: str) -> None:
    count = zoo.param_count(model(name))
    assert count == pytest.approx(PUBLISHED[name], rel=0.01)
    assert zoo.describe(name).params == count  # the dry run agrees without drawing weights


def test_bn_variances_are_positive_and_weights_sane() -> None:
    m = model("resnet-50")
    inits = {t.name: onnx.numpy_helper.to_array(t) for t in m.graph.initializer}
    bns = [n for n in m.graph.node if n.op_type == "BatchNormalization"]
    assert len(bns) == 53
    assert all((inits[n.input[4]] > 0).all() for n in bns)
    assert all(np.isfinite(v).all() and np.abs(v).max() < 10 for v in inits.values())


@pytest.mark.parametrize("name", ["resnet-18", "squeezenet-1.1"])
def test_batch_of_two(name: str) -> None:
    y = infer(model(name, batch=2))
    assert_sane_logits(y, 2)
    assert not np.allclose(y[0], y[1])


def ops(name: str) -> list[str]:
    return [n.op_type for n in model(name).graph.node]


def test_structure_details() -> None:
    r50 = ops("resnet-50")
    assert (r50.count("Conv"), r50.count("Add")) == (53, 16)
    assert r50[-3:] == ["GlobalAveragePool", "Flatten", "Gemm"]
    assert (ops("mobilenet-v2").count("Add"), ops("mobilenet-v2").count("Clip")) == (10, 35)
    assert (ops("vgg-16").count("Conv"), ops("vgg-16").count("Gemm")) == (13, 3)
    assert "Dropout" in ops("vgg-16") and ops("squeezenet-1.0").count("Concat") == 8
    pools = [n for n in model("inception-v3").graph.node if n.op_type == "AveragePool"]
    attrs = [{a.name: onnx.helper.get_attribute_value(a) for a in n.attribute} for n in pools]
    assert len(pools) == 9 and all(a["count_include_pad"] == 1 for a in attrs)
    gemm = model("resnet-18").graph.node[-1]
    assert gemm.op_type == "Gemm" and gemm.output[0] == "output"
    assert any(a.name == "transB" and a.i == 1 for a in gemm.attribute)


@pytest.mark.parametrize("name", ["mobilenet-v2", "squeezenet-1.0"])
@pytest.mark.parametrize("opset", [9, 11])
def test_older_opsets_run_and_agree(name: str, opset: int) -> None:
    """Clip bounds become attributes before 11, ceil_mode end padding before 10."""
    old = model(name, opset=opset)
    assert old.opset_import[0].version == opset
    clips = [n for n in old.graph.node if n.op_type == "Clip"]
    if name == "mobilenet-v2":
        assert all(len(n.input) == (1 if opset < 11 else 3) for n in clips)
    np.testing.assert_allclose(infer(old), infer(model(name)), rtol=1e-4, atol=1e-4)


def test_seed_makes_weights_reproducible() -> None:
    a, b = zoo.build("squeezenet-1.1", seed=3), zoo.build("squeezenet-1.1", seed=3)
    assert a.SerializeToString() == b.SerializeToString()
    c = zoo.build("squeezenet-1.1", seed=4)
    assert a.graph.initializer[0].raw_data != c.graph.initializer[0].raw_data


def test_default_image_sizes() -> None:
    assert zoo.describe("resnet-18").input_shape == (1, 3, 224, 224)
    assert zoo.describe("inception-v3", batch=4).input_shape == (4, 3, 299, 299)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "resnet-101"}, "unknown model 'resnet-101'; known models: resnet-18, "),
        ({"name": "resnet-18", "batch": 0}, "batch must be an int >= 1"),
        ({"name": "inception-v3", "image_size": 74}, "image too small"),
        ({"name": "vgg-16", "image_size": 64}, "multiple of 7"),
        ({"name": "mobilenet-v2", "opset": 8}, "opset must be in"),
    ],
)
def test_bad_requests_raise_zoo_error(kwargs: dict, message: str) -> None:
    with pytest.raises(zoo.ZooError, match=message) as info:
        zoo.build(**kwargs)
    assert isinstance(info.value, ValueError)


def test_smallest_inception_builds() -> None:
    assert zoo.describe("inception-v3", image_size=75).params == PUBLISHED["inception-v3"]


# -- the `zoo` command -----------------------------------------------------------------------
def test_cli_writes_a_loadable_model(tmp_path, capsys) -> None:
    path = tmp_path / "r.onnx"
    assert main(["zoo", "resnet-18", "-o", str(path)]) == 0
    out = capsys.readouterr().out
    loaded = onnx.load(str(path))
    onnx.checker.check_model(loaded)
    assert zoo.param_count(loaded) == PUBLISHED["resnet-18"]
    assert str(path) in out and "1x3x224x224" in out and "11,689,512" in out


def test_cli_json(tmp_path, capsys) -> None:
    path = tmp_path / "s.onnx"
    argv = ["zoo", "squeezenet-1.1", "-o", str(path), "--batch", "2", "--image-size", "96"]
    assert main([*argv, "--opset", "11", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["input_shape"] == [2, 3, 96, 96] and doc["output_shape"] == [2, 1000]
    assert doc["bytes"] == path.stat().st_size and doc["params"] == PUBLISHED["squeezenet-1.1"]
    assert doc["nodes"] == len(onnx.load(str(path)).graph.node) and doc["opset"] == 11


@pytest.mark.parametrize("argv", [["--list"], ["list"], ["list", "--json"]])
def test_cli_lists_models(argv, capsys) -> None:
    assert main(["zoo", *argv]) == 0
    out = capsys.readouterr().out
    if "--json" in argv:
        assert [m["name"] for m in json.loads(out)["models"]] == zoo.names()
    else:
        assert all(name in out for name in zoo.names()) and "138,357,544" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["nosuch", "-o", "x.onnx"], "unknown model 'nosuch'; known models: resnet-18"),
        (["resnet-18"], "-o FILE"),
        ([], "give a model NAME"),
        (["inception-v3", "-o", "x.onnx", "--image-size", "32"], "image too small"),
    ],
)
def test_cli_user_errors(argv, message, tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["zoo", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tunefarm zoo: error: ") and message in err
    assert not (tmp_path / "x.onnx").exists()
