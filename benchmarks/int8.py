"""int8 benchmark: per-layer int8 convs and whole resnet-18, against ONNX Runtime's int8 and
our float32, in one run.

    python3 benchmarks/int8.py                  # = make bench-int8
    python3 benchmarks/int8.py --cores 1 --sweep 8 --rounds 5

Per layer (the distinct convs of resnet-18, batch 1, bias + ReLU, uint8 out): our
`conv2d_int8` (default config and the best of --sweep random configs), our float32 `conv2d`
(the same), and ONNX Runtime's QLinearConv on the same layer (uint8 activations, per-channel
int8 weights, int32 bias), timed with tunefarm's evaluator loop from Python (ORT's per-call
overhead included). GOPS = 2 x MACs / time.

Whole networks (--networks, default resnet-18, mobilenet-v2, resnet-50): each zoo model
quantized by `tunefarm quantize`'s pass (min/max on 4 random
inputs, first conv float) and compiled untuned; our float32 compiled untuned (or with
--log records); ONNX Runtime int8 on the QDQ model `onnxruntime.quantization.quantize_static`
makes from the same float model (per-channel weights, QDQ format, the same kind of random
calibration), and ONNX Runtime float32. Timed in interleaved rounds (median of medians).

`--networks qdq-epilogues`: `tunefarm.frontend.zoo_qdq.epilogue_net` (dilated convs, 3 ->
13 -> 27 channels, LeakyRelu / Sigmoid / HardSwish / Add after the convs) quantized by
quantize_static (QDQ, 7-bit weights as the tests use), imported by `tunefarm compile`'s
path (the QDQ fold) and compiled untuned, against ONNX Runtime int8 on the same file, in
interleaved rounds; also how many outputs are within one step of ONNX Runtime's.
`--qdq-model FILE` times a saved QDQ model instead (`--save-qdq FILE` writes the one built
here), so the same file can be timed with another checkout's library on PYTHONPATH.
"""

from __future__ import annotations

if __name__ == "__main__":  # the build pool's workers re-import this file
    import argparse
    import json
    import os
    import statistics
    import sys
    import tempfile
    import time
    from pathlib import Path

    import numpy as np

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _report import machine_info
    from _timing import time_once
    from tunefarm.compiler import compile_graph
    from tunefarm.frontend import zoo
    from tunefarm.frontend.models import load_model
    from tunefarm.graph.ir import random_inputs
    from tunefarm.graph.passes.quantize import QuantizeOptions, accuracy, quantize_graph
    from tunefarm.measure import MeasureSettings
    from tunefarm.oprun import run_op
    from tunefarm.runtime.executor import GraphExecutor
    from tunefarm.task import Task

    # (name, C, H, O, K, stride): the distinct convs of resnet-18 after the stem
    LAYERS = [
        ("l1_3x3_64", 64, 56, 64, 3, 1),
        ("l2_3x3_s2", 64, 56, 128, 3, 2),
        ("l2_1x1_s2", 64, 56, 128, 1, 2),
        ("l2_3x3_128", 128, 28, 128, 3, 1),
        ("l3_3x3_s2", 128, 28, 256, 3, 2),
        ("l3_3x3_256", 256, 14, 256, 3, 1),
        ("l4_3x3_s2", 256, 14, 512, 3, 2),
        ("l4_3x3_512", 512, 7, 512, 3, 1),
    ]

    def parse() -> argparse.Namespace:
        p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
        p.add_argument("--cores", type=int, default=os.cpu_count() or 1)
        p.add_argument("--sweep", type=int, default=4, help="random configs per layer")
        p.add_argument("--rounds", type=int, default=5, help="interleaved network rounds")
        p.add_argument("--log", help="float32 tuning records for the network (default: none)")
        p.add_argument("--skip-layers", action="store_true")
        p.add_argument("--networks", default="resnet-18,mobilenet-v2,resnet-50")
        p.add_argument("--out", default="benchmarks/results-int8.json")
        p.add_argument("--qdq-size", type=int, default=64, help="qdq-epilogues input H = W")
        p.add_argument("--qdq-model", help="time this QDQ .onnx as qdq-epilogues")
        p.add_argument("--save-qdq", help="write the qdq-epilogues QDQ model here")
        return p.parse_args()

    def ort_session(model_bytes: bytes, cores: int):
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = cores
        opts.inter_op_num_threads = 1
        return ort.InferenceSession(model_bytes, opts, providers=["CPUExecutionProvider"])

    def qlinearconv_model(c: int, h: int, o: int, k: int, s: int) -> bytes:
        """One QLinearConv node: uint8 x (zp 3), per-channel int8 w, int32 bias, uint8 y."""
        from onnx import TensorProto, helper, numpy_helper

        rng = np.random.default_rng(0)
        pad = k // 2
        oh = (h + 2 * pad - k) // s + 1
        inits = [
            numpy_helper.from_array(np.array(0.02, np.float32), "xs"),
            numpy_helper.from_array(np.array(3, np.uint8), "xz"),
            numpy_helper.from_array(rng.integers(-127, 128, (o, c, k, k)).astype(np.int8), "w"),
            numpy_helper.from_array(rng.uniform(0.001, 0.01, o).astype(np.float32), "ws"),
            numpy_helper.from_array(np.zeros(o, np.int8), "wz"),
            numpy_helper.from_array(np.array(0.05, np.float32), "ys"),
            numpy_helper.from_array(np.array(0, np.uint8), "yz"),
            numpy_helper.from_array(rng.integers(-500, 500, o).astype(np.int32), "b"),
        ]
        node = helper.make_node(
            "QLinearConv",
            ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"],
            ["y"],
            strides=[s, s],
            pads=[pad] * 4,
        )
        graph = helper.make_graph(
            [node],
            "qconv",
            [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, c, h, h])],
            [helper.make_tensor_value_info("y", TensorProto.UINT8, [1, o, oh, oh])],
            inits,
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        return model.SerializeToString()

    def best(task: Task, sweep: int) -> tuple[float, float]:
        """(default seconds, best seconds over the default and `sweep` random configs)."""
        settings = MeasureSettings(number=1, repeat=5, min_repeat_ms=50)
        runs = run_op(task, sweep=sweep, settings=settings)
        ok = [r.median_s for r in runs if r.ok]
        if not runs[0].ok:
            raise SystemExit(f"{task}: {runs[0].error_msg}")
        return runs[0].median_s, min(ok)

    def layer_rows(args) -> list[dict]:
        tgt = f"cpu -cores={args.cores}"
        rows = []
        for name, c, h, o, k, s in LAYERS:
            common = dict(data=(1, c, h, h), weight=(o, c, k, k), strides=s, padding=k // 2)
            q = Task.make(
                "conv2d_int8",
                target=tgt,
                **common,
                blocks=[16, 16],
                data_zero_point=3,
                bias=True,
                out_dtype="uint8",
                relu=True,
            )
            f = Task.make(
                "conv2d", target=tgt, **common, blocks=[16, 16], epilogue=["bias", "relu"]
            )
            ops = 2.0 * o * c * k * k * ((h + 2 * (k // 2) - k) // s + 1) ** 2
            q_def, q_best = best(q, args.sweep)
            f_def, f_best = best(f, args.sweep)
            sess = ort_session(qlinearconv_model(c, h, o, k, s), args.cores)
            x = np.random.default_rng(1).integers(0, 256, (1, c, h, h)).astype(np.uint8)
            ort_s = time_once(lambda sess=sess, x=x: sess.run(None, {"x": x}), 100)
            row = {
                "layer": name,
                "gops": {
                    "int8_default": ops / q_def / 1e9,
                    "int8_best": ops / q_best / 1e9,
                    "float32_default": ops / f_def / 1e9,
                    "float32_best": ops / f_best / 1e9,
                    "ort_int8": ops / ort_s / 1e9,
                },
            }
            g = row["gops"]
            print(
                f"{name:12s} int8 {g['int8_default']:7.1f} / {g['int8_best']:7.1f}  "
                f"float32 {g['float32_default']:6.1f} / {g['float32_best']:6.1f}  "
                f"ORT int8 {g['ort_int8']:6.1f} GOPS",
                flush=True,
            )
            rows.append(row)
        return rows

    def ort_int8_model(model_path: Path, out: Path, graph, reduce_range: bool = False) -> None:
        from onnxruntime.quantization import (
            CalibrationDataReader,
            QuantFormat,
            QuantType,
            quantize_static,
        )

        class Reader(CalibrationDataReader):
            def __init__(self):
                self.feeds = iter([random_inputs(graph, i) for i in range(4)])

            def get_next(self):
                return next(self.feeds, None)

        quantize_static(
            str(model_path),
            str(out),
            Reader(),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            reduce_range=reduce_range,
        )

    def qdq_epilogues(args) -> dict:
        """Ours (QDQ fold, untuned) against ONNX Runtime int8 on the same QDQ model."""
        tmp = Path(tempfile.mkdtemp())
        path = Path(args.qdq_model) if args.qdq_model else tmp / "qdq_int8.onnx"
        if not args.qdq_model:
            import onnx

            from tunefarm.frontend.zoo_qdq import epilogue_net

            onnx.save(epilogue_net(args.qdq_size), tmp / "qdq.onnx")
            _, fgraph = load_model(str(tmp / "qdq.onnx"))
            ort_int8_model(tmp / "qdq.onnx", path, fgraph, reduce_range=True)
            if args.save_qdq:
                Path(args.save_qdq).write_bytes(path.read_bytes())
        _, graph = load_model(str(path))
        compile_graph(graph, f"cpu -cores={args.cores}", optimized=True).save(tmp / "q.tfa")
        ex = GraphExecutor.load(tmp / "q.tfa")
        sess = ort_session(path.read_bytes(), args.cores)
        x = random_inputs(graph, 100)
        (name,) = graph.outputs
        got, want = ex.run(x)[name], sess.run(None, x)[0]
        step = float(np.min(np.diff(np.unique(want)))) if np.unique(want).size > 1 else 1.0
        within = float(np.mean(np.abs(got - want) <= step * 1.0001))
        runs = {"tunefarm_int8": lambda: ex.run(x), "ort_int8": lambda: sess.run(None, x)}
        times: dict[str, list[float]] = {k: [] for k in runs}
        for _ in range(args.rounds):
            for key, fn in runs.items():
                times[key].append(time_once(fn, 300) * 1e3)
        med = {k: statistics.median(v) for k, v in times.items()}
        ratio = med["tunefarm_int8"] / med["ort_int8"]
        counts = graph.op_counts()
        print(f"qdq-epilogues ({path.name}) latency (ms, median of round medians):")
        for k, v in med.items():
            print(f"  {k:18s} {v:8.3f}   min {min(times[k]):8.3f}")
        print(f"ours / ORT int8 = {ratio:.2f}x; within one step of ORT: {within:.2%}")
        print(f"graph ops: {counts}")
        return {"latency_ms": med, "latency_ms_all": times, "ratio_vs_ort_int8": ratio,
                "within_one_step": within, "graph_ops": counts}  # fmt: skip

    def network(args, net: str) -> dict:
        tgt = f"cpu -cores={args.cores}"
        tmp = Path(tempfile.mkdtemp())
        zoo.save(net, tmp / "r18.onnx")
        _, graph = load_model(str(tmp / "r18.onnx"))
        t0 = time.time()
        qgraph, report = quantize_graph(graph, QuantizeOptions(num_random=4))
        quant_s = time.time() - t0
        compile_graph(qgraph, tgt, optimized=True).save(tmp / "q.tfa")
        compile_graph(graph, tgt, records=args.log, optimized=True).save(tmp / "f.tfa")
        ort_int8_model(tmp / "r18.onnx", tmp / "r18_int8.onnx", graph)
        q_ex, f_ex = GraphExecutor.load(tmp / "q.tfa"), GraphExecutor.load(tmp / "f.tfa")
        ort_q = ort_session((tmp / "r18_int8.onnx").read_bytes(), args.cores)
        ort_f = ort_session((tmp / "r18.onnx").read_bytes(), args.cores)
        x = random_inputs(graph, 100)  # held out from calibration
        ref = f_ex.run(x)
        (name,) = graph.outputs
        acc_ours = accuracy(ref[name], q_ex.run(x)[name])
        acc_ort = accuracy(ref[name], ort_q.run(None, x)[0])
        runs = {
            "tunefarm_int8": lambda: q_ex.run(x),
            "tunefarm_float32": lambda: f_ex.run(x),
            "ort_int8": lambda: ort_q.run(None, x),
            "ort_float32": lambda: ort_f.run(None, x),
        }
        times: dict[str, list[float]] = {k: [] for k in runs}
        for _ in range(args.rounds):
            for key, fn in runs.items():
                times[key].append(time_once(fn, 300) * 1e3)
        med = {k: statistics.median(v) for k, v in times.items()}
        print(f"{net} latency (ms, median of round medians):")
        for k, v in med.items():
            print(f"  {k:18s} {v:8.3f}   min {min(times[k]):8.3f}")
        print(
            f"int8 / ORT int8 = {med['tunefarm_int8'] / med['ort_int8']:.2f}x latency; "
            f"float32 / int8 = {med['tunefarm_float32'] / med['tunefarm_int8']:.2f}x faster"
        )
        print(f"accuracy vs float32 (held-out input): ours {acc_ours}, ORT {acc_ort}")
        return {
            "latency_ms": med,
            "latency_ms_all": times,
            "accuracy": {"tunefarm_int8": acc_ours, "ort_int8": acc_ort},
            "quantize_s": quant_s,
            "quantized_convs": len(report.quantized),
            "float32_records": args.log,
        }

    def main() -> None:
        args = parse()
        info = machine_info()
        print(f"host: {info['cpu']}, {info['cores']} cores; --cores {args.cores}")
        doc: dict = {"machine": info, "cores": args.cores, "sweep": args.sweep}
        if not args.skip_layers:
            doc["layers"] = layer_rows(args)
            ratios = [r["gops"]["int8_best"] / r["gops"]["ort_int8"] for r in doc["layers"]]
            f_ratios = [r["gops"]["int8_best"] / r["gops"]["float32_best"] for r in doc["layers"]]
            doc["geomean_vs_ort_int8"] = float(np.exp(np.mean(np.log(ratios))))
            doc["geomean_vs_float32"] = float(np.exp(np.mean(np.log(f_ratios))))
            print(
                f"per-layer geomean: int8 / ORT int8 = {doc['geomean_vs_ort_int8']:.2f}x, "
                f"int8 / float32 = {doc['geomean_vs_float32']:.2f}x (GOPS, best config)"
            )
        for net in args.networks.split(","):
            doc[net] = qdq_epilogues(args) if net == "qdq-epilogues" else network(args, net)
        Path(args.out).write_text(json.dumps(doc, indent=1, default=str))
        print(f"written {args.out}")

    main()
