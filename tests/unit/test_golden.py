"""Golden files of generated code: for a fixed corpus of (task, config) pairs per backend, the
emitted source is checked in under tests/golden/<backend>/. A refactor shows in the diff
whether it changed any kernel; a change that is meant is refreshed with `make golden`
(TUNEFARM_UPDATE_GOLDEN=1), and the new files are reviewed and committed with it.

Targets name their ISA (and GPU architecture), so the corpus is the same on every host. The
GPU corpus is rendered in both dialects (tests/golden/cuda/*.cu, tests/golden/opencl/*.cl).
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from tunefarm.backends import registry
from tunefarm.measure import Config, MeasureInput
from tunefarm.schedule.sketch_state import realise
from tunefarm.task import Task

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
UPDATE = os.environ.get("TUNEFARM_UPDATE_GOLDEN") == "1"
AVX512, AVX2 = "cpu -isa=avx512", "cpu -isa=avx2 -cores=2"

CONV3x3 = dict(data=(1, 64, 56, 56), weight=(64, 64, 3, 3), padding=(1, 1, 1, 1), blocks=(16, 16))
CONV_EPI = dict(
    data=(1, 32, 14, 14),
    weight=(64, 32, 3, 3),
    strides=(2, 2),
    padding=(1, 1, 1, 1),
    epilogue=("bias", "residual", "relu"),
)

# name -> (task, knob values overriding the default config; {} keeps the default)
CPU_CASES: dict[str, tuple[Task, dict]] = {
    "conv2d_3x3_default": (Task.make("conv2d", target=AVX512, **CONV3x3), {}),
    "conv2d_3x3_tiled": (
        Task.make("conv2d", target=AVX512, **CONV3x3),
        {"tile_ow": (4, 14), "order": "icb_outer", "unroll_kw": False, "pad": "inline"},
    ),
    "conv2d_s2_epilogue": (Task.make("conv2d", target=AVX512, **CONV_EPI), {}),
    "conv2d_avx2": (Task.make("conv2d", target=AVX2, **CONV_EPI), {}),
    "conv2d_1x1": (
        Task.make("conv2d", target=AVX512, data=(1, 128, 28, 28), weight=(256, 128, 1, 1)),
        {},
    ),
    # 256 input channels in 2 passes of 128 (the default on one AVX-512 core), 7 x 4 tile
    "conv2d_ic_passes": (
        Task.make(
            "conv2d",
            target="cpu -isa=avx512 -cores=1",
            data=(1, 256, 7, 7),
            weight=(128, 256, 1, 1),
            epilogue=("bias", "relu"),
        ),
        {},
    ),
    # 16 ymm registers: 7 columns x 2 vectors (`conv2d.short_columns`), blocks of 8
    "conv2d_3x3_avx2": (Task.make("conv2d", target=AVX2, **CONV3x3 | {"blocks": (8, 8)}), {}),
    "winograd_f4": (Task.make("conv2d_winograd", target=AVX512, **CONV3x3), {}),
    # AVX2: a GEMM block of at most 16 accumulators (`winograd.max_accumulators`)
    "winograd_f4_avx2": (
        Task.make("conv2d_winograd", target=AVX2, **CONV3x3 | {"blocks": (8, 8)}),
        {},
    ),
    "winograd_f2": (Task.make("conv2d_winograd", target=AVX512, **CONV3x3), {"m": 2}),
    # stride 2 (the parity split of `STRIDED_MATRICES`): the default (m=2) and m=4
    "winograd_s2_f2": (Task.make("conv2d_winograd", target=AVX512, **CONV_EPI), {}),
    "winograd_s2_f4": (Task.make("conv2d_winograd", target=AVX512, **CONV_EPI), {"m": 4}),
    "depthwise_s2": (
        Task.make(
            "conv2d",
            target=AVX512,
            data=(1, 96, 28, 28),
            weight=(96, 1, 3, 3),
            strides=(2, 2),
            padding=(1, 1, 1, 1),
            groups=96,
            epilogue=("bias", "clip:0:6"),
        ),
        {},
    ),
    "dense_bias_relu": (
        Task.make("dense", target=AVX512, data=(1, 512), weight=(1000, 512), epilogue=("bias",)),
        {},
    ),
    "pool2d_max": (
        Task.make(
            "pool2d",
            target=AVX512,
            data=(1, 64, 112, 112),
            kind="max",
            kernel=(3, 3),
            strides=(2, 2),
            padding=(1, 1, 1, 1),
            dilation=(1, 1),
            ceil_mode=False,
            count_include_pad=False,
        ),
        {},
    ),
    "global_pool_avg": (
        Task.make("global_pool2d", target=AVX512, data=(1, 512, 7, 7), kind="avg"),
        {},
    ),
    "softmax": (Task.make("softmax", target=AVX512, shape=(8, 1000), axis=-1), {}),
    "softmax_whole_rows": (Task.make("softmax", target=AVX512, shape=(2, 4, 64), axis=-1), {}),
    "elementwise_broadcast_add": (
        Task.make("elementwise", target=AVX512, fn="add", shapes=[(2, 64, 7, 7), (1, 64, 1, 1)]),
        {},
    ),
    "batch_matmul": (
        Task.make("batch_matmul", target=AVX512, a=(12, 128, 64), b=(12, 64, 128)),
        {},
    ),
    # bert-base's fused attention as legacy exports give it ([B, S, H, D] projections)
    "attention": (
        Task.make(
            "attention",
            target=AVX512,
            q=(1, 128, 12, 64),
            k=(1, 128, 12, 64),
            v=(1, 128, 12, 64),
            mask=(1, 1, 1, 128),
            scale=0.125,
            q_layout="BSHD",
            k_layout="BSHD",
            v_layout="BSHD",
            out_layout="BSHD",
        ),  # fmt: skip
        {},
    ),
    "transpose": (
        Task.make("transpose", target=AVX512, shape=(2, 3, 16, 5), perm=(0, 2, 1, 3)),
        {},
    ),
    "layout_transform": (
        Task.make(
            "layout_transform", target=AVX512, shape=(1, 64, 8, 8), src="NCHW", dst="NCHW16c"
        ),
        {},
    ),
}


def sketch_case(task: Task, index: int, decisions: dict) -> tuple[Task, dict]:
    """A sketch state (sketch `index` of the task with these decisions) as its step list."""
    sketch = registry.sketches(task)[0][index]
    return task, registry.sketch_config(realise(sketch, decisions)).as_dict()


SOFTMAX_RF = {f"{k}:{s}": v for s in ("out_max", "out_sum") for k, v in (("rf", 8), ("par", 1))}
CPU_CASES.update(
    {
        "sketch_dense_fused": sketch_case(
            CPU_CASES["dense_bias_relu"][0],
            0,
            {
                "tile:dense:i": (1, 1, 1),
                "tile:dense:j": (5, 1, 8),
                "tile:dense:k": (16,),
                "loc:dense": 1,
                "par:dense": 1,
                "unroll:dense": 16,
            },
        ),
        "sketch_softmax_rfactor": sketch_case(
            CPU_CASES["softmax"][0], 0, {**SOFTMAX_RF, "vec:out": 8, "par:out": 1}
        ),
    }
)
# int8 conv per dot4 path: VNNI (vpdpbusd), AVX-512BW and AVX2 (exact pmaddwd sequences)
QCONV = dict(
    data=(1, 64, 14, 14),
    weight=(64, 64, 3, 3),
    padding=1,
    data_zero_point=3,
    bias=True,
    out_zero_point=-2,
    relu=True,
)
for _isa in ("avx512vnni", "avx512", "avx2"):
    CPU_CASES[f"conv2d_int8_{_isa}"] = (
        Task.make("conv2d_int8", target=f"cpu -isa={_isa}", **QCONV),
        {},
    )
CASES = {("cpu", name): case for name, case in CPU_CASES.items()}

PACKED = dict(data=(1, 32, 14, 14), weight=(32, 32, 3, 3), padding=1)
VTA_CASES: dict[str, tuple[Task, dict]] = {
    "conv2d_packed_default": (Task.make("conv2d_packed", target="vta", **PACKED), {}),
    "conv2d_packed_s2_threads": (
        Task.make("conv2d_packed", target="vta", **PACKED, strides=2),
        {"tile_h": (7, 1), "tile_ci": (2, 1), "tile_co": (2, 1), "oc_nthread": 2},
    ),
    "conv2d_packed_1x32x32": (
        Task.make("conv2d_packed", target="vta -config=1x32x32", **PACKED),
        {},
    ),
    # a network's conv: bias loaded into the accumulator and added by the ALU, two threads
    "conv2d_packed_bias": (
        Task.make("conv2d_packed", target="vta", **PACKED, bias=True, shift=10, clip=(-128, 127)),
        {"tile_h": (2, 7), "tile_co": (2, 1), "oc_nthread": 2},
    ),
}
CASES.update({("vta", name): case for name, case in VTA_CASES.items()})
# vta kernels are programs: their golden file is the listing (`program.disassemble`)
# The GPU templates, one corpus rendered in both dialects of the one GPU renderer.
GPU_CASES: dict[str, tuple[dict, dict]] = {
    "conv2d_3x3": (dict(op="conv2d", **CONV3x3 | {"blocks": None}), {}),
    "conv2d_s2_epilogue": (dict(op="conv2d", **CONV_EPI), {}),
    "conv2d_vthreads": (
        dict(op="conv2d", **CONV3x3 | {"blocks": None}),
        {"tile_f": (4, 2, 4, 2), "tile_y": (7, 2, 4, 1), "unroll_explicit": 0},
    ),
    "dense_float4": (dict(op="dense", data=(1, 512), weight=(1000, 512), epilogue=("bias",)), {}),
    "depthwise_s2": (
        dict(
            op="conv2d", data=(1, 96, 28, 28), weight=(96, 1, 3, 3), strides=(2, 2),
            padding=(1, 1, 1, 1), groups=96, epilogue=("bias", "clip:0:6"),
        ),
        {},
    ),
    "pool2d_max": (
        dict(
            op="pool2d", data=(1, 64, 112, 112), kind="max", kernel=(3, 3), strides=(2, 2),
            padding=(1, 1, 1, 1),
        ),
        {},
    ),
    "global_pool_avg": (dict(op="global_pool2d", data=(1, 512, 7, 7), kind="avg"), {}),
    "batch_matmul": (dict(op="batch_matmul", a=(12, 128, 64), b=(12, 64, 128)), {}),
    # bert's: int64 indices (long long / long), a row reduction per thread
    "gather_int64": (dict(op="gather", data=(30522, 128), indices=(1, 16), axis=0), {}),
    "layer_norm": (
        dict(op="layer_norm", shape=(1, 16, 128), axis=-1, epsilon=1e-12),
        {"rows": False, "threads": 512},
    ),
    "softmax_rows": (dict(op="softmax", shape=(1, 2, 16, 16), axis=-1), {"rows": True}),
}  # fmt: skip
GPU_TARGETS = {"cuda": "cuda -arch=sm_90", "opencl": "opencl"}
for _kind, _target in GPU_TARGETS.items():
    for _name, (_params, _knobs) in GPU_CASES.items():
        _args = {k: v for k, v in _params.items() if k != "op" and v is not None}
        CASES[(_kind, _name)] = (Task.make(_params["op"], target=_target, **_args), _knobs)
# dense on tensor cores (cuda -precision=tf32|fp16): the template writes its own mma.sync code
for _prec in ("tf32", "fp16"):
    CASES[("cuda", f"dense_{_prec}_mma")] = (
        Task.make("dense", target=f"cuda -arch=sm_90 -precision={_prec}", data=(20, 72),
                  weight=(40, 72)),
        {},
    )  # fmt: skip
    # conv2d on tensor cores: an implicit GEMM over NCHW staged in shared memory
    CASES[("cuda", f"conv2d_{_prec}_mma")] = (
        Task.make("conv2d", target=f"cuda -arch=sm_90 -precision={_prec}", data=(1, 24, 14, 14),
                  weight=(40, 24, 3, 3), strides=(2, 2), padding=(1, 1, 1, 1),
                  epilogue=("bias", "residual", "relu")),
        {},
    )  # fmt: skip
SUFFIX = {"cpu": ".c", "cuda": ".cu", "opencl": ".cl", "vta": ".s"}


def source(task: Task, knobs: dict) -> str:
    if registry.is_sketch(knobs):
        return registry.generate_source(MeasureInput(task, Config.make(knobs))).code
    default = registry.default_config(task)
    space = registry.config_space(task)
    values = space.validate({**default.as_dict(), **knobs})
    config = Config.make(values, index=space.index_of(values))
    code = registry.generate_source(MeasureInput(task, config)).code
    if task.target.startswith("vta"):
        from tunefarm.backends.vta.program import disassemble

        return disassemble(code)
    return code


@pytest.mark.parametrize("backend, name", sorted(CASES), ids=lambda v: str(v))
def test_generated_code_matches_its_golden_file(backend: str, name: str) -> None:
    task, knobs = CASES[(backend, name)]
    path = GOLDEN / backend / f"{name}{SUFFIX[backend]}"
    code = source(task, knobs)
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
        return
    assert path.exists(), f"{path} is missing: run `make golden` to create it"
    want = path.read_text()
    if code != want:
        diff = difflib.unified_diff(
            want.splitlines(), code.splitlines(), str(path), "generated", lineterm="", n=2
        )
        shown = "\n".join(list(diff)[:60])
        pytest.fail(
            f"the {backend} kernel {name!r} changed; if that is meant, run `make golden` and "
            f"commit the new file:\n{shown}"
        )


def test_every_golden_file_has_a_case() -> None:
    """A case removed from the corpus takes its file with it."""
    files = {(p.parent.name, p.stem) for p in GOLDEN.glob("*/*.*")}
    assert files <= set(CASES), f"golden files without a case: {sorted(files - set(CASES))}"
