"""Export the small test models under tests/models/ with PyTorch (run by hand; CI does not
need PyTorch).

    /work/torchenv/bin/python tools/export_test_models.py [--out tests/models] [NAME ...]

Each family the users bring (torchvision CNNs and transformers, Hugging Face encoders and
GPT-2) in a small configuration, random-initialised so the output depends on the input:
zero Linear biases/weights are re-drawn, BatchNorm statistics are set from a few random
batches. Each is exported both ways: the dynamo exporter (opset 20, `NAME.dynamo.onnx`)
and the legacy TorchScript exporter (opset 17, `NAME.legacy.onnx`), in eval mode and
without torch.no_grad() (under it attention takes a fused path the legacy exporter
refuses). `manifest.json` records the exporter versions, the inputs and what failed.
Models are built from config classes, never downloaded.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import torch
import torchvision
from torch import nn

SEQ = 16
IMAGE = 32


# ---------------------------------------------------------------- random init
def make_informative(model: nn.Module, example: tuple, seed: int = 0) -> nn.Module:
    """Weights that make the output depend on the input: no all-zero Linear layers, and
    BatchNorm statistics of the activations random inputs give."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.Linear):
                if not m.weight.abs().sum():
                    m.weight.normal_(0, 1 / m.in_features**0.5, generator=gen)
                if m.bias is not None and not m.bias.abs().sum():
                    m.bias.normal_(0, 0.1, generator=gen)
            if isinstance(m, nn.LayerNorm) and m.elementwise_affine:
                m.weight.uniform_(0.5, 1.5, generator=gen)
                if m.bias is not None:
                    m.bias.normal_(0, 0.1, generator=gen)
    if any(isinstance(m, nn.modules.batchnorm._BatchNorm) for m in model.modules()):
        model.train()
        with torch.no_grad():
            for _ in range(3):
                model(*[_like(t, gen) for t in example])
    return model.eval()


def _like(t: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    if t.dtype.is_floating_point:  # a batch of 4: BatchNorm needs more than one value
        return torch.randn((4, *t.shape[1:]), generator=gen)
    return t


# ---------------------------------------------------------------- the models
def _image(batch: int = 1) -> tuple:
    return (torch.randn(batch, 3, IMAGE, IMAGE, generator=torch.Generator().manual_seed(1)),)


def _ids(vocab: int = 100, seq: int = SEQ, mask: bool = True, batch: int = 1) -> tuple:
    gen = torch.Generator().manual_seed(2)
    ids = torch.randint(3, vocab, (batch, seq), generator=gen)
    if not mask:
        return (ids,)
    att = torch.ones(batch, seq, dtype=torch.int64)
    att[:, -3:] = 0
    return ids, att


class Segmenter(nn.Module):
    """A tiny DeepLab/FCN-like net: a strided trunk, a dilated head, and the logits resized
    back to the input (bilinear, as torchvision's segmentation models) plus a nearest and
    a bicubic branch, so every Resize mode is exported."""

    def __init__(self) -> None:
        super().__init__()
        self.trunk = nn.Sequential(
            nn.Conv2d(3, 8, 3, 2, 1), nn.BatchNorm2d(8), nn.ReLU(),
            nn.Conv2d(8, 12, 3, 2, 1), nn.BatchNorm2d(12), nn.ReLU(),
        )  # fmt: skip
        self.head = nn.Conv2d(12, 5, 3, padding=2, dilation=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.head(self.trunk(x))
        size = x.shape[-2:]
        a = nn.functional.interpolate(y, size=size, mode="bilinear", align_corners=False)
        b = nn.functional.interpolate(y, scale_factor=2.0, mode="nearest")
        c = nn.functional.interpolate(y, scale_factor=2.0, mode="bicubic", align_corners=True)
        return a + nn.functional.interpolate(b + c, size=size, mode="nearest")


def _tv_models() -> dict[str, Callable[[], tuple[nn.Module, tuple, list[str]]]]:
    from torchvision.models import convnext, swin_transformer, vision_transformer

    def vit():
        m = vision_transformer.VisionTransformer(
            image_size=IMAGE, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32,
            mlp_dim=64, num_classes=10,
        )  # fmt: skip
        return m, _image(), ["x"]

    def swin():
        m = swin_transformer.SwinTransformer(
            patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 2],
            window_size=[4, 4], num_classes=10,
        )  # fmt: skip
        return m, _image(), ["x"]

    def convnext_narrow():
        cfg = [convnext.CNBlockConfig(16, 32, 1), convnext.CNBlockConfig(32, None, 1)]
        return convnext.ConvNeXt(cfg, num_classes=10), _image(), ["x"]

    return {
        "vit": vit,
        "swin": swin,
        "convnext": convnext_narrow,
        "segmenter": lambda: (Segmenter(), _image(), ["x"]),
    }


def _hf_models() -> dict[str, Callable[[], tuple[nn.Module, tuple, list[str]]]]:
    import transformers as tr

    small = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2}
    small |= {"intermediate_size": 64, "vocab_size": 100, "max_position_embeddings": 64}

    def bert():
        return tr.BertModel(tr.BertConfig(**small)), _ids(), ["input_ids", "attention_mask"]

    def roberta():
        cfg = tr.RobertaConfig(**small | {"max_position_embeddings": 66})
        return tr.RobertaModel(cfg), _ids(), ["input_ids", "attention_mask"]

    def distilbert():
        cfg = tr.DistilBertConfig(
            vocab_size=100, dim=32, n_layers=2, n_heads=2, hidden_dim=64,
            max_position_embeddings=64,
        )  # fmt: skip
        return tr.DistilBertModel(cfg), _ids(), ["input_ids", "attention_mask"]

    def gpt2():
        cfg = tr.GPT2Config(vocab_size=100, n_positions=64, n_embd=32, n_layer=2, n_head=2)
        return tr.GPT2Model(cfg), _ids(mask=False), ["input_ids"]

    def hf_vit():
        cfg = tr.ViTConfig(
            hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
            image_size=IMAGE, patch_size=8,
        )  # fmt: skip
        return tr.ViTModel(cfg), _image(), ["pixel_values"]

    def t5():
        cfg = tr.T5Config(vocab_size=100, d_model=32, d_kv=16, d_ff=64, num_layers=2,
                          num_heads=2)  # fmt: skip
        return tr.T5EncoderModel(cfg), _ids(), ["input_ids", "attention_mask"]

    def whisper_encoder():
        from transformers.models.whisper.modeling_whisper import WhisperEncoder

        cfg = tr.WhisperConfig(
            vocab_size=100, num_mel_bins=16, d_model=32, encoder_layers=2,
            encoder_attention_heads=2, encoder_ffn_dim=64, max_source_positions=32,
        )  # fmt: skip
        mel = torch.randn(1, 16, 64, generator=torch.Generator().manual_seed(0))
        return WhisperEncoder(cfg), (mel,), ["input_features"]

    return {
        "bert": bert,
        "roberta": roberta,
        "distilbert": distilbert,
        "gpt2": gpt2,
        "hf_vit": hf_vit,
        "t5_encoder": t5,
        "whisper_encoder": whisper_encoder,
    }


class HfOutput(nn.Module):
    """A Hugging Face model returning its last hidden state only (one float output)."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, *args: torch.Tensor) -> torch.Tensor:
        out = self.inner(*args)
        return out[0] if isinstance(out, tuple | list) else out.last_hidden_state


TORCHVISION_FULL = (
    "resnet50", "resnext50_32x4d", "regnet_y_400mf", "mobilenet_v3_large", "efficientnet_b0",
    "shufflenet_v2_x1_0", "densenet121", "googlenet", "squeezenet1_1", "convnext_tiny",
    "vit_b_16", "swin_t", "deeplabv3_mobilenet_v3_large", "fcn_resnet50",
)  # fmt: skip
HF_FULL = {  # the list: default (base-size) configs, sequence 128 (GPT-2: 64)
    "bert-base": ("BertModel", "BertConfig", 128, True),
    "distilbert-base": ("DistilBertModel", "DistilBertConfig", 128, True),
    "roberta-base": ("RobertaModel", "RobertaConfig", 128, True),
    "gpt2": ("GPT2Model", "GPT2Config", 64, False),
    "vit-base-hf": ("ViTModel", "ViTConfig", 0, False),
    "t5-small-encoder": ("T5EncoderModel", "T5Config", 128, True),
}


class SegmentationOut(nn.Module):
    """torchvision's segmentation models return a dict; the benchmark wants its "out"."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.inner(x)["out"]


def _full_models(
    batch: int = 1,
) -> dict[str, Callable[[], tuple[nn.Module, tuple, list[str]]]]:
    """The benchmark's full-size models (benchmarks/models.py), random-initialised, with
    inputs of `batch` samples (static in the export)."""
    import transformers as tr
    from torchvision import models as tv

    def torchvision_model(name: str):
        gen = torch.Generator().manual_seed(1)
        image = (torch.randn(batch, 3, 224, 224, generator=gen),)
        if name in ("deeplabv3_mobilenet_v3_large", "fcn_resnet50"):
            m = getattr(tv.segmentation, name)(weights=None, weights_backbone=None, aux_loss=False)
            return SegmentationOut(m), image, ["x"]
        kwargs = {"aux_logits": False, "init_weights": True} if name == "googlenet" else {}
        return getattr(tv, name)(weights=None, **kwargs), image, ["x"]

    def hf_model(name: str):
        cls, cfg, seq, mask = HF_FULL[name]
        model = HfOutput(getattr(tr, cls)(getattr(tr, cfg)()))
        if not seq:
            gen = torch.Generator().manual_seed(1)
            return model, (torch.randn(batch, 3, 224, 224, generator=gen),), ["pixel_values"]
        ids = _ids(1000, seq, mask, batch)
        return model, ids, ["input_ids", "attention_mask"][: len(ids)]

    out = {n: (lambda n=n: torchvision_model(n)) for n in TORCHVISION_FULL}
    out |= {n: (lambda n=n: hf_model(n)) for n in HF_FULL}
    if batch == 1:
        return out
    return {f"{n}.b{batch}": f for n, f in out.items()}  # bert-base.b8.legacy.onnx


MODELS = {**_tv_models(), **_hf_models()}


# ---------------------------------------------------------------- export
def export(name: str, out: Path, way: str) -> dict:
    """Export model `name` one way ("dynamo" or "legacy"); return its manifest entry."""
    torch.manual_seed(0)
    model, example, names = MODELS[name]()
    if name in _hf_models() and not isinstance(model, HfOutput):
        model = HfOutput(model)
    model = make_informative(model, example)
    path = out / f"{name}.{way}.onnx"
    kwargs = {"input_names": names, "output_names": ["output"]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if way == "dynamo":
            big = sum(p.numel() for p in model.parameters()) > 400_000_000
            torch.onnx.export(model, example, str(path), dynamo=True, opset_version=20,
                              external_data=big, **kwargs)  # fmt: skip
        else:
            torch.onnx.export(model, example, str(path), dynamo=False, opset_version=17,
                              **kwargs)  # fmt: skip
    proto = onnx.load(str(path))
    onnx.checker.check_model(proto)
    with torch.no_grad():
        want = model(*example).numpy()
    feeds = {n: t.numpy() for n, t in zip(names, example, strict=True)}
    np.savez(out / f"{name}.{way}.inputs.npz", **feeds, __output__=want)
    return {
        "file": path.name,
        "bytes": path.stat().st_size,
        "opset": proto.opset_import[0].version,
        "inputs": {k: [list(v.shape), str(v.dtype)] for k, v in feeds.items()},
        "ops": sorted({n.op_type for n in proto.graph.node}),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help=f"models (default all): {', '.join(MODELS)}")
    ap.add_argument("--out", type=Path, default=Path("tests/models"))
    ap.add_argument("--ways", default="dynamo,legacy")
    ap.add_argument("--full", action="store_true", help="the benchmark's full-size models")
    ap.add_argument("--batch", type=int, default=1, help="--full: samples per input (NAME.bN)")
    args = ap.parse_args(argv)
    if args.batch != 1 and not args.full:
        ap.error("--batch needs --full (the small test models are batch 1)")
    if args.full:
        MODELS.clear()
        MODELS.update(_full_models(args.batch))
    args.out.mkdir(parents=True, exist_ok=True)
    manifest_path = args.out / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    manifest["exporter"] = _versions()
    manifest.setdefault("models", {})
    manifest.setdefault("failed", {})
    for name in args.names or list(MODELS):
        if name not in MODELS:
            ap.error(f"unknown model {name!r}; known: {', '.join(MODELS)}")
        for way in args.ways.split(","):
            key = f"{name}.{way}"
            try:
                manifest["models"][key] = export(name, args.out, way)
                manifest["failed"].pop(key, None)
                print(f"{key}: {manifest['models'][key]['bytes']} bytes", flush=True)
            except Exception as err:  # an exporter that refuses a model is recorded, not fatal
                msg = " ".join(f"{type(err).__name__}: {err}".split())[:300]
                manifest["failed"][key] = msg
                manifest["models"].pop(key, None)
                for stale in args.out.glob(f"{key}.*"):
                    stale.unlink()
                print(f"{key}: export failed: {msg}", flush=True)
            # after each export: a long run stopped halfway keeps what it made
            manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return 0


def _versions() -> dict[str, str]:
    import onnxscript
    import transformers

    return {
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
        "transformers": transformers.__version__,
        "onnx": onnx.__version__,
        "onnxscript": onnxscript.__version__,
        "python": platform.python_version(),
    }


if __name__ == "__main__":
    sys.exit(main())
