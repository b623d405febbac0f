"""Tune one op with Apache TVM's MetaSchedule and time the best schedule found.

Runs in TVM's own virtual environment (never tunefarm's): `benchmarks/metaschedule.py` starts
it as a subprocess and reads the one JSON line it prints on stdout. Kept free of tunefarm
imports for that reason.

    python _tvm_metaschedule.py --op conv --shape 1,64,56,56,64,3,1 --trials 64 --work-dir D

The stock LocalBuilder imports TVM's tensor intrinsics in every build worker (about 20 s
here) and restarts its workers for every batch, so most candidates of a heavy task time out;
float32 on x86 needs no tensor intrinsics, so the builder here builds without that import
(see ../shared/notes/tvm-metaschedule.md). The output says so ("builder").
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np


def build_without_intrinsics(mod, target, _params):
    """MetaSchedule's default build minus the tensor-intrinsics import."""
    from tvm.driver import build
    from tvm.s_tir.transform import RemoveWeightLayoutRewriteBlock

    mod = RemoveWeightLayoutRewriteBlock(skip_tensor_rewrite=True)(mod)
    return build(mod, target=target)


def packed_params(mod):
    """Shapes of the parameters of `mod`'s main after its weight-layout block is removed: the
    weight arrives in the packed layout the schedule chose, as TVM packs it once at compile
    time (its values do not change the time)."""
    from tvm.s_tir.transform import RemoveWeightLayoutRewriteBlock

    func = RemoveWeightLayoutRewriteBlock(skip_tensor_rewrite=True)(mod)["main"]
    return [[int(d) for d in p.shape] for p in func.params]


def _conv(shape: list[int]):
    """(te tensors data, weight, out; numpy reference; flops) of an NCHW conv, OIHW weights."""
    from tvm import te, topi

    n, c, h, w, k, r, stride = shape
    pad = r // 2
    data = te.placeholder((n, c, h, w), name="data")
    weight = te.placeholder((k, c, r, r), name="weight")
    out = topi.nn.conv2d_nchw(data, weight, stride, pad, 1)
    oh = (h + 2 * pad - r) // stride + 1
    flops = 2.0 * n * k * oh * oh * c * r * r

    def reference(x, wt):
        xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
        y = np.zeros((n, k, oh, oh), np.float32)
        for i in range(r):
            for j in range(r):
                patch = xp[:, :, i : i + stride * oh : stride, j : j + stride * oh : stride]
                y += np.einsum("nchw,kc->nkhw", patch, wt[:, :, i, j])
        return y

    return [data, weight, out], reference, flops


def _dense(shape: list[int]):
    """(te tensors data, weight, out; numpy reference fn; flops) of y = x @ w.T."""
    from tvm import te, topi

    m, n, k = shape
    data = te.placeholder((m, k), name="data")
    weight = te.placeholder((n, k), name="weight")
    out = topi.nn.dense(data, weight)
    return [data, weight, out], lambda x, wt: x @ wt.T, 2.0 * m * n * k


def llvm_target(cores: int):
    import tvm

    cpu = tvm.target.codegen.llvm_get_system_cpu()
    return tvm.target.Target({"kind": "llvm", "mcpu": cpu, "num-cores": cores}), cpu


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--op", choices=("conv", "dense"), required=True)
    p.add_argument("--shape", required=True, help="conv: N,C,H,W,K,R,stride; dense: M,N,K")
    p.add_argument("--trials", type=int, required=True)
    p.add_argument("--work-dir", required=True)
    p.add_argument("--cores", type=int, default=2)
    args = p.parse_args()
    os.environ.setdefault("TVM_NUM_THREADS", str(args.cores))

    import tvm
    from tvm.s_tir import meta_schedule as ms

    shape = [int(v) for v in args.shape.split(",")]
    tensors, reference, flops = (_conv if args.op == "conv" else _dense)(shape)
    mod = tvm.IRModule({"main": tvm.te.create_prim_func(tensors)})
    target, cpu = llvm_target(args.cores)
    builder = ms.builder.LocalBuilder(f_build=build_without_intrinsics)
    start = time.perf_counter()
    database = ms.tune_tir(
        mod,
        target,
        args.work_dir,
        max_trials_global=args.trials,
        num_trials_per_iter=64,
        builder=builder,
    )
    tune_s = time.perf_counter() - start
    sch = database.query_schedule(mod, target, workload_name="main")
    if sch is None:
        print(json.dumps({"error": "no valid schedule found"}))
        return 1
    from tvm.driver import build

    checked = build(sch.mod, target=target)  # with its weight-layout block: for the check
    lib = build_without_intrinsics(sch.mod, target, None)  # weights arrive pre-packed
    dev = tvm.cpu()
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal([int(d) for d in t.shape]).astype("float32") for t in tensors]
    args_dev = [tvm.runtime.tensor(a, dev) for a in arrays]
    checked["main"](*args_dev)
    expected = reference(*arrays[:2])
    err = float(np.abs(args_dev[-1].numpy() - expected).max() / max(1.0, np.abs(expected).max()))
    timer = lib.time_evaluator("main", dev, number=1, repeat=50, min_repeat_ms=50)
    packed = [tvm.runtime.empty(s, "float32", dev) for s in packed_params(sch.mod)]
    seconds = float(np.median(timer(*packed).results))
    trials = len(database.get_all_tuning_records())
    print(json.dumps({
        "gflops": flops / seconds / 1e9, "seconds": seconds, "tune_s": tune_s,
        "trials": trials, "rel_err": err, "mcpu": cpu, "tvm": tvm.__version__,
        "builder": "LocalBuilder without the tensor-intrinsics import",
    }))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
