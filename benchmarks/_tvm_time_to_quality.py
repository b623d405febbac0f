"""MetaSchedule's side of the time-to-quality benchmark (`time_to_quality.py`).

Runs in TVM's own virtual environment, never tunefarm's, so it imports nothing of tunefarm.
Two modes:

- `tune`: MetaSchedule searches one workload with no trial limit; after every measured batch
  a measure callback appends one JSON line to `--records`: seconds since the search started,
  candidates measured so far, the best mean run time MetaSchedule itself measured, and, when
  the best changed, the best schedule's trace (TVM's own JSON). The parent kills the process
  when the wall-clock budget is spent; what was appended by then is the search's history.
  Recording the trace (cheap) instead of exporting a built module keeps the search's clock
  free of work the search would not do on its own.
- `tune-net`: MetaSchedule's `tune_relax` over a whole ONNX network (`--onnx`, imported by
  Relax's ONNX frontend, weights bound as constants), its gradient task scheduler over the
  network's fused TIR functions; after every batch the callback appends seconds, candidates
  and the size in bytes of the JSON database's tuning-record file: the database as it was
  then is that file's prefix.
- `serve`: the timing server of the outside timer. It reads one JSON request a line on stdin
  and answers one JSON line: `load` rebuilds a recorded trace, checks its output against
  TVM's unscheduled build of the same workload and keeps the module; `time` runs one
  measured repeat of a loaded module (`number` grows until one repeat lasts `min_repeat_ms`,
  the rule tunefarm's runner uses), so both systems are timed alike. `load-net` compiles a
  network with `compile_relax` and the database cut at `db_bytes` (functions without a record
  get DLight's fallback), runs it on the parent's inputs (`.npz`) and answers its relative
  error against the parent's ONNX Runtime outputs; `time` then times it like an op.

Workloads (`--workload`): `conv:N,C,H,W,O,KH,KW,SH,SW,PH,PW,G` (NCHW, OIHW with I = C/G),
`dense:M,N,K` (y = x @ w.T), `bmm:B,M,N,K` (a [B,M,K] @ b [B,K,N]), and `softmax:dims` and
`layer_norm:dims` over the last axis.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

import _tvm_metaschedule as msh


def workload(spec: str):
    """The te tensors (inputs..., output) of a workload spec; ValueError naming the spec."""
    from tvm import te, topi

    kind, _, dims = spec.partition(":")
    try:
        v = [int(x) for x in dims.split(",")]
    except ValueError:
        raise ValueError(f"workload {spec!r}: dims must be integers") from None
    if kind == "conv" and len(v) == 12:
        n, c, h, w, o, kh, kw, sh, sw, ph, pw, g = v
        data = te.placeholder((n, c, h, w), name="data")
        weight = te.placeholder((o, c // g, kh, kw), name="weight")
        pad = (ph, pw, ph, pw)
        if g == 1:
            out = topi.nn.conv2d_nchw(data, weight, (sh, sw), pad, 1)
        else:
            out = topi.nn.group_conv2d_nchw(data, weight, (sh, sw), pad, 1, g)
        return [data, weight, out]
    if kind == "dense" and len(v) == 3:
        m, n, k = v
        data, weight = te.placeholder((m, k), name="data"), te.placeholder((n, k), name="weight")
        return [data, weight, topi.nn.dense(data, weight)]
    if kind == "bmm" and len(v) == 4:
        b, m, n, k = v
        a, bt = te.placeholder((b, m, k), name="a"), te.placeholder((b, k, n), name="b")
        return [a, bt, topi.nn.batch_matmul(a, bt, transpose_b=False)]
    if kind == "softmax" and v:  # over the last axis
        x = te.placeholder(tuple(v), name="x")
        return [x, topi.nn.softmax(x, axis=-1)]
    if kind == "layer_norm" and v:  # over the last axis, epsilon 1e-12 (BERT's)
        x = te.placeholder(tuple(v), name="x")
        gamma, beta = te.placeholder((v[-1],), name="gamma"), te.placeholder((v[-1],), name="beta")
        return [x, gamma, beta, topi.nn.layer_norm(x, gamma, beta, axis=[-1], epsilon=1e-12)]
    raise ValueError(
        f"workload {spec!r}: expected conv:N,C,H,W,O,KH,KW,SH,SW,PH,PW,G, dense:M,N,K, "
        "bmm:B,M,N,K, softmax:D0,...,Dn or layer_norm:D0,...,Dn"
    )


def _module(spec: str):
    import tvm

    return tvm.IRModule({"main": tvm.te.create_prim_func(workload(spec))})


def _make_recorder(path: str, start: float, db_file: str | None = None):
    """A MetaSchedule measure callback appending the search's best-so-far to `path` (with
    `db_file`: that file's size, the database's state, instead of traces)."""
    import tvm
    from tvm.ir.utils import derived_object
    from tvm.s_tir.meta_schedule.measure_callback import PyMeasureCallback

    @derived_object
    class Recorder(PyMeasureCallback):
        def __init__(self) -> None:
            self.best, self.count = float("inf"), 0
            self.out = open(path, "a", buffering=1)  # noqa: SIM115 - lives as long as tuning

        def apply(self, task_scheduler, task_id, candidates, builder_results, runner_results):
            self.count += len(candidates)
            line = {"t": time.perf_counter() - start, "candidates": self.count}
            if db_file is not None:  # the default callbacks before this one have committed
                line["db_bytes"] = os.path.getsize(db_file) if os.path.exists(db_file) else 0
                self.out.write(json.dumps(line) + "\n")
                return
            for cand, res in zip(candidates, runner_results, strict=True):
                secs = [float(s) for s in (res.run_secs or [])]
                if res.error_msg is None and secs and np.mean(secs) < self.best:
                    self.best = float(np.mean(secs))
                    line["trace"] = tvm.ir.save_json(cand.sch.trace.as_json())
            line["best_s"] = self.best
            self.out.write(json.dumps(line) + "\n")

    return Recorder()


def tune(args: argparse.Namespace) -> int:
    from tvm.s_tir import meta_schedule as ms

    mod = _module(args.workload)
    target, cpu = msh.llvm_target(args.cores)
    # Worker pools import TVM first (tens of seconds on a loaded host): the stock 30 s timeout
    # killed the builder's start-up check there, before any search.
    builder = ms.builder.LocalBuilder(
        f_build=msh.build_without_intrinsics, timeout_sec=args.timeout
    )
    runner = ms.runner.LocalRunner(timeout_sec=args.timeout)
    print(json.dumps({"start": True, "mcpu": cpu}), flush=True)
    os.dup2(2, 1)  # TVM's own logging on stdout would fill the pipe the parent stops reading
    start = time.perf_counter()
    callbacks = [*ms.measure_callback.MeasureCallback.create("default")]
    callbacks.append(_make_recorder(args.records, start))
    ms.tune_tir(
        mod, target, args.work_dir, max_trials_global=args.max_trials,
        num_trials_per_iter=args.trials_per_iter, builder=builder, runner=runner,
        measure_callbacks=callbacks, seed=args.seed,
    )  # fmt: skip
    return 0


def _network(onnx_path: str):
    """A Relax module of an ONNX file, its weights as constants and its inputs at the file's
    static shapes (Relax's importer fails on bert-tiny's reshapes with the weights as
    parameters: shape_of of a shape)."""
    import onnx
    from tvm.relax.frontend.onnx import from_onnx

    model = onnx.load(onnx_path)
    shapes = {i.name: [d.dim_value for d in i.type.tensor_type.shape.dim]
              for i in model.graph.input}  # fmt: skip
    return from_onnx(model, shape_dict=shapes, keep_params_in_input=False)


def _fused(mod, target):
    """The module as `compile_relax` prepares it before it applies the database (dispatch,
    legalize, fuse): the tasks extracted from it are the functions it will look up."""
    import tvm
    from tvm import relax
    from tvm.relax import pipeline

    try:
        dispatch = pipeline.library_dispatch_passes(target)
    except (ValueError, AttributeError):
        dispatch = []
    t = relax.transform
    seq = [*dispatch, t.LegalizeOps(), t.AnnotateTIROpPattern(), t.FoldConstant(), t.FuseOps(),
           t.FuseTIR()]  # fmt: skip
    with target, tvm.transform.PassContext(opt_level=3):
        return tvm.transform.Sequential(seq)(mod)


def tune_net(args: argparse.Namespace) -> int:
    from tvm.s_tir import meta_schedule as ms

    target, cpu = msh.llvm_target(args.cores)
    mod = _fused(_network(args.onnx), target)
    builder = ms.builder.LocalBuilder(
        f_build=msh.build_without_intrinsics, timeout_sec=args.timeout
    )
    runner = ms.runner.LocalRunner(timeout_sec=args.timeout)
    print(json.dumps({"start": True, "mcpu": cpu}), flush=True)
    os.dup2(2, 1)
    start = time.perf_counter()  # task extraction and space generation are search time
    db_file = os.path.join(args.work_dir, "database_tuning_record.json")
    callbacks = [*ms.measure_callback.MeasureCallback.create("default")]
    callbacks.append(_make_recorder(args.records, start, db_file))
    ms.relax_integration.tune_relax(
        mod, None, target, args.work_dir, max_trials_global=args.max_trials,
        num_trials_per_iter=args.trials_per_iter, builder=builder, runner=runner,
        measure_callbacks=callbacks, seed=args.seed,
    )  # fmt: skip
    return 0


class Server:
    """Loaded modules by id, timed on request."""

    def __init__(self, cores: int) -> None:
        import tvm

        self.tvm, self.dev = tvm, tvm.cpu()
        self.target, _ = msh.llvm_target(cores)
        self.loaded: dict[str, tuple] = {}

    def load(self, req: dict) -> dict:
        from tvm.driver import build
        from tvm.s_tir.schedule import Schedule, Trace

        tvm, dev = self.tvm, self.dev
        mod = _module(req["workload"])
        sch = Schedule(mod)
        Trace.apply_json_to_schedule(tvm.ir.load_json(req["trace"]), sch)
        rng = np.random.default_rng(0)
        shapes = [[int(d) for d in p.shape] for p in workload(req["workload"])]
        arrays = [rng.standard_normal(s).astype("float32") for s in shapes]
        got = [tvm.runtime.tensor(a, dev) for a in arrays]
        want = [tvm.runtime.tensor(a, dev) for a in arrays]
        build(sch.mod, target=self.target)["main"](*got)  # weight layout rewritten inside
        build(mod, target=self.target)["main"](*want)  # the unscheduled reference
        expected = want[-1].numpy()
        err = float(np.abs(got[-1].numpy() - expected).max() / max(1.0, np.abs(expected).max()))
        lib = msh.build_without_intrinsics(sch.mod, self.target, None)
        packed = [tvm.runtime.empty(s, "float32", dev) for s in msh.packed_params(sch.mod)]
        self.loaded[req["id"]] = (lib, packed)
        return {"id": req["id"], "rel_err": err}

    def load_net(self, req: dict) -> dict:
        import shutil
        import tempfile

        from tvm import relax
        from tvm.s_tir import meta_schedule as ms

        tvm, dev = self.tvm, self.dev
        with tempfile.TemporaryDirectory() as tmp:
            wl, rec = (os.path.join(tmp, f) for f in ("wl.json", "rec.json"))
            src = os.path.join(req["db"], "database_workload.json")
            if os.path.exists(src):
                shutil.copy(src, wl)
            else:
                open(wl, "w").close()
            with open(rec, "wb") as out:
                path = os.path.join(req["db"], "database_tuning_record.json")
                if req["db_bytes"] and os.path.exists(path):
                    with open(path, "rb") as f:
                        out.write(f.read(req["db_bytes"]))
            db = ms.database.JSONDatabase(wl, rec, allow_missing=True)
            exe = ms.relax_integration.compile_relax(db, _network(req["onnx"]), self.target, None)
        vm = relax.VirtualMachine(exe, dev)
        inputs = dict(np.load(req["inputs"]))
        want = dict(np.load(req["want"]))
        args = [tvm.runtime.tensor(v, dev) for v in inputs.values()]  # the graph's order
        out = vm["main"](*args)
        got = [out.numpy()] if hasattr(out, "numpy") else [o.numpy() for o in out]
        err = 0.0
        for g, w in zip(got, want.values(), strict=False):
            w = np.asarray(w, dtype=np.float64)
            scale = max(float(np.abs(w).max()), 1e-30)
            err = max(err, float(np.abs(np.asarray(g, np.float64) - w).max()) / scale)
        self.loaded[req["id"]] = ("vm", vm, args)
        return {"id": req["id"], "rel_err": err}

    def time(self, req: dict) -> dict:
        entry = self.loaded[req["id"]]
        if entry[0] == "vm":
            _, vm, args = entry
            timer = vm.time_evaluator(
                "main", self.dev, number=1, repeat=1, min_repeat_ms=req["min_repeat_ms"]
            )
            return {"id": req["id"], "seconds": float(timer(*args).results[0])}
        lib, packed = entry
        timer = lib.time_evaluator(
            "main", self.dev, number=1, repeat=1, min_repeat_ms=req["min_repeat_ms"]
        )
        return {"id": req["id"], "seconds": float(timer(*packed).results[0])}


def serve(args: argparse.Namespace) -> int:
    server = Server(args.cores)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        req = json.loads(line)
        try:
            reply = getattr(server, req["cmd"].replace("-", "_"))(req)
        except Exception as exc:  # noqa: BLE001 - answered to the parent, which reports it
            reply = {"id": req.get("id"), "error": f"{type(exc).__name__}: {exc}"[:2000]}
        print(json.dumps(reply), flush=True)
    return 0


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=("tune", "tune-net", "serve"))
    p.add_argument("--onnx", help="tune-net: the network's ONNX file")
    p.add_argument("--workload", help="tune: the workload spec (see the module docstring)")
    p.add_argument("--work-dir", help="tune: MetaSchedule's work dir")
    p.add_argument("--records", help="tune: the best-so-far JSON lines go here")
    p.add_argument("--trials-per-iter", type=int, default=16)
    p.add_argument("--max-trials", type=int, default=100000, help="the parent stops it first")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--cores", type=int, default=1)
    p.add_argument("--timeout", type=float, default=120.0, help="tune: build and run timeout")
    args = p.parse_args()
    os.environ.setdefault("TVM_NUM_THREADS", str(args.cores))
    if args.mode == "tune-net":
        if not (args.onnx and args.work_dir and args.records):
            p.error("tune-net needs --onnx, --work-dir and --records")
        return tune_net(args)
    if args.mode == "tune":
        if not (args.workload and args.work_dir and args.records):
            p.error("tune needs --workload, --work-dir and --records")
        return tune(args)
    return serve(args)


if __name__ == "__main__":
    sys.exit(main())
