"""Int8 CPU benchmark: thunderc's bundle of a PT2E static int8 quantized model against PyTorch
eager and Inductor of the same quantized model, ONNX Runtime's own int8 (QDQ) quantization and
thunderc's bundle of the float model, on the gallery models (BERT-base at seq 128, ResNet-50 at
224x224), in one run.

Quantization (PyTorch 2 Export, torchao): torch.export.export(model).module(), then torchao's
prepare_pt2e with X86InductorQuantizer and get_default_x86_inductor_quantization_config(
is_dynamic=False) (int8 activations per tensor, int8 weights per output channel), calibration
on 4 random inputs of the model's kind (the gallery's input builder with other seeds: token ids
in the vocabulary, images) and convert_pt2e. The converted module is what eager, Inductor and
the bundle run.

    backend      what runs                                                compile time recorded
    bundle       torch.export.export of the converted module, core ATen   torch.export, thunderc,
                 (.run_decompositions()), thunderc -O2 bundle built as    the CMake build
                 benchmarks/cpu_bench.py builds it (Release, CPU
                 dispatch), its runner's own timing loop
    bundle_fp32  the same for the float model (core ATen too): the        the same
                 int8/fp32 speedup
    eager        the converted module under torch.no_grad (the            -
                 quantize/dequantize ops run as ATen reference code)
    inductor     torch.compile of the converted module with               first call
                 torch._inductor.config.freezing = True under no_grad,
                 torchao's recipe for X86: the q/dq patterns become
                 oneDNN int8 kernels; compiled once per thread count
    ort_qdq      the float model exported to ONNX as cpu_bench does,      ONNX export, pre-process,
                 shape inference and optimization (quant_pre_process),     quantize_static, session
                 onnxruntime.quantization.quantize_static on the same
                 calibration inputs (QDQ format, per-channel QInt8
                 weights, QUInt8 activations), a session with
                 intra_op_num_threads = threads

Every backend runs the same inputs with the same warm-up and timed runs, interleaved in rounds
(the median of the rounds' medians); threads are set as cpu_bench sets them. The run prints
Markdown tables, headed by the CPU's name and vector ISA: latencies, bundle/other ratios (below
1: the bundle is faster) with geomeans, compile times, and each backend's largest difference
from eager of the quantized model relative to its largest output, with the share of outputs
within float32 tolerance of it (quantized backends differ by whole quantization steps where
float sums in another order round to the neighbouring integer; the float model's difference is
the quantization error itself). It writes <out>/quant_bench.md and the raw numbers to
<out>/quant_bench.json. A backend that fails records its error and the run goes on.

Usage:
    python3 benchmarks/quant_bench.py [--models hf_bert,hf_resnet] [--batches 1,8]
        [--threads 1,all] [--iters 10] [--warmup 2] [--rounds 2] [--skip ort_qdq]
        [--size real|small] [--out build/quant_bench]
    python3 benchmarks/quant_bench.py --smoke    # small hf_bert, batch 1, 1 thread, 3 iters
Needs build/cli/thunderc (or THUNDERC_BIN) and requirements.txt (torchao, onnxruntime,
onnxscript). Models come from models/gallery.py; nothing is downloaded.
"""
from __future__ import annotations

import argparse
import datetime
import json
import logging
import math
import os
import platform
import shutil
import statistics
import sys
import time
import traceback
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
import cpu_bench  # noqa: E402  -- sets the Inductor cache folder before torch is imported

import numpy as np  # noqa: E402
import torch  # noqa: E402

from cpu_bench import (cpu_isa, cpu_name, first_line, flat, fmt,  # noqa: E402
                       max_abs_diff, max_scale, version)

gallery = cpu_bench.gallery

BACKENDS = ["bundle", "bundle_fp32", "eager", "inductor", "ort_qdq"]
RATIOS = ["eager", "inductor", "ort_qdq", "bundle_fp32"]  # bundle / each of these
DEFAULT_MODELS = "hf_bert,hf_resnet"
CALIBRATION_INPUTS = 4
# test_quantized's criterion: the share of outputs within float32's assert_close tolerance of
# eager (the rest are a few quantization steps away).
RTOL, ATOL = 1.3e-6, 1e-5


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = cpu_bench.common_parser(__doc__, DEFAULT_MODELS, BACKENDS,
                                     ROOT / "build" / "quant_bench",
                                     "quant_bench.{json,md} and the work folder go here")
    parser.add_argument("--keep-work", action="store_true",
                        help="keep each case's .pt2, bundles and ONNX files under <out>/work")
    return cpu_bench.resolve_args(parser, argv, DEFAULT_MODELS, BACKENDS)


# --------------------------------------------------------------------------------------------
# The quantized case: cpu_bench's backends read module, args, expected, work, program() and
# onnx(record) from it.
# --------------------------------------------------------------------------------------------


def quantize_pt2e(module: torch.nn.Module, args: tuple,
                  calibration: list[tuple]) -> torch.fx.GraphModule:
    """torchao's PT2E static int8 flow for X86: export, prepare, calibrate, convert."""
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    from torchao.quantization.pt2e.quantizer import x86_inductor_quantizer as x86

    quantizer = x86.X86InductorQuantizer()
    quantizer.set_global(x86.get_default_x86_inductor_quantization_config(is_dynamic=False))
    graph = torch.export.export(module, args).module()
    # Outputs the wrapper drops (BERT's pooler, tanh of a linear) stay in the exported graph
    # with no users; the quantizer's linear + unary pattern expects every matched node to have
    # one (IndexError in _get_output_nodes_of_partitions), so drop them first.
    graph.graph.eliminate_dead_code()
    graph.recompile()
    prepared = prepare_pt2e(graph, quantizer)
    with torch.no_grad():
        for inputs in calibration:
            prepared(*inputs)
    return convert_pt2e(prepared)


def close_fraction(got: list[np.ndarray], want: list[np.ndarray]) -> float:
    """The share of outputs within float32's assert_close tolerance of `want`."""
    if len(got) != len(want) or any(a.shape != b.shape for a, b in zip(got, want)):
        return 0.0
    total = sum(b.size for b in want)
    close = sum(int(np.isclose(a.astype(np.float64), b.astype(np.float64), rtol=RTOL,
                               atol=ATOL).sum()) for a, b in zip(got, want))
    return close / total if total else 1.0


class FloatView:
    """The float model as cpu_bench.Bundle reads a case: its own work folder and program."""

    def __init__(self, case: QuantCase):
        self.args, self.module = case.args, case.float_module
        self.expected = case.float_expected
        self.work = case.work / "fp32"
        self.work.mkdir()

    def program(self) -> torch.export.ExportedProgram:
        return torch.export.export(self.module, self.args).run_decompositions()


class QuantCase:
    """One model at one batch: the float module, its PT2E int8 conversion (`module`), the
    inputs, the calibration inputs, eager's outputs of both and the work folder."""

    def __init__(self, opts: argparse.Namespace, model: str, batch: int, record: dict[str, Any]):
        self.name, self.batch = model, batch
        entry = (gallery.real(model, batch) if opts.size == "real"
                 else cpu_bench._small(model, batch))
        self.float_module = entry.make_model()
        self.args = entry.make_inputs()
        # The gallery's input builder with other seeds (make_inputs uses 1000 + seed).
        self.calibration = []
        for i in range(CALIBRATION_INPUTS):
            g = torch.Generator().manual_seed(7000 + 10 * entry.seed + i)
            self.calibration.append(tuple(
                a.to(entry.dtype) if isinstance(a, torch.Tensor) and a.is_floating_point() else a
                for a in entry.inputs(g)))
        self.work = opts.out / "work" / f"{model}_batch{batch}"
        shutil.rmtree(self.work, ignore_errors=True)
        self.work.mkdir(parents=True)
        start = time.perf_counter()
        self.module = quantize_pt2e(self.float_module, self.args, self.calibration)
        record["quantize_s"] = round(time.perf_counter() - start, 3)
        with torch.no_grad():
            self.expected = flat(self.module(*self.args))
            self.float_expected = flat(self.float_module(*self.args))

    def program(self) -> torch.export.ExportedProgram:
        """The converted module exported again and decomposed to core ATen (the bundle's)."""
        return torch.export.export(self.module, self.args).run_decompositions()

    def onnx(self, record: dict[str, Any]) -> Path:
        """The float model exported to ONNX (as cpu_bench does), pre-processed and quantized by
        ONNX Runtime to QDQ int8 with the same calibration inputs."""
        from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                              quantize_static)

        float_path = self.work / "model.onnx"
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(self.float_module, self.args, str(float_path), dynamo=True,
                              verbose=False)
        record["onnx_export_s"] = round(time.perf_counter() - start, 3)
        source = self.work / "model_pre.onnx"
        start = time.perf_counter()
        try:
            from onnxruntime.quantization.shape_inference import quant_pre_process

            quant_pre_process(str(float_path), str(source))
        except Exception as error:  # noqa: BLE001 -- optional: quantize the export as it is
            record["pre_process_error"] = first_line(error)
            source = float_path
        record["pre_process_s"] = round(time.perf_counter() - start, 3)
        import onnx

        names = [i.name for i in onnx.load(str(source), load_external_data=False).graph.input]
        if len(names) != len(self.args):
            raise RuntimeError(f"the ONNX model has {len(names)} inputs, the module "
                               f"{len(self.args)}")
        feeds = [{n: a.numpy() for n, a in zip(names, inputs)} for inputs in self.calibration]

        class Reader(CalibrationDataReader):
            def __init__(self) -> None:
                self.feeds = iter(feeds)

            def get_next(self) -> dict[str, np.ndarray] | None:
                return next(self.feeds, None)

        path = self.work / "model_qdq.onnx"
        root = logging.getLogger()
        level = root.level
        root.setLevel(logging.ERROR)  # a warning per rank-1 weight it cannot quantize per axis
        start = time.perf_counter()
        try:
            quantize_static(str(source), str(path), Reader(), quant_format=QuantFormat.QDQ,
                            per_channel=True, activation_type=QuantType.QUInt8,
                            weight_type=QuantType.QInt8)
        finally:
            root.setLevel(level)
        record["quantize_static_s"] = round(time.perf_counter() - start, 3)
        return path


class Inductor(cpu_bench.Compile):
    """torch.compile of the converted module with freezing (torchao's X86 recipe: the frozen
    weights' q/dq patterns become oneDNN int8 convolutions and linears), once per thread
    count."""

    def _compile(self, threads: int) -> None:
        torch._inductor.config.freezing = True
        super()._compile(threads)


def prepare_fp32(case: QuantCase, opts: argparse.Namespace, record: dict[str, Any]) -> Any:
    runner = cpu_bench.Bundle(FloatView(case), opts, record)
    # Its own error against the float model it compiles (the table shows it against int8).
    scale = max_scale(case.float_expected)
    record["max_rel_err_vs_fp32"] = max_abs_diff(runner.outputs, case.float_expected) / (scale or 1)
    return runner


PREPARE = {"bundle": cpu_bench.Bundle, "bundle_fp32": prepare_fp32, "eager": cpu_bench.Eager,
           "inductor": Inductor, "ort_qdq": cpu_bench.OnnxRuntime}


def bench_case(opts: argparse.Namespace, model: str, batch: int) -> dict[str, Any]:
    """Every backend on one model at one batch; errors are recorded, never raised."""
    result: dict[str, Any] = {"model": model, "batch": batch, "size": opts.size,
                              "backends": {b: {} for b in BACKENDS}}
    if opts.size == "real" and model in gallery.REAL:
        result["description"] = gallery.REAL[model][0]
    try:
        case = QuantCase(opts, model, batch, result)
    except Exception as error:  # noqa: BLE001 -- the model or its quantization failed
        message = f"model: {first_line(error)}"
        for record in result["backends"].values():
            record["error"] = message
        if os.environ.get("QUANT_BENCH_TRACEBACK"):
            traceback.print_exc()
        print(f"{model} batch {batch}: {message}", flush=True)
        return result
    result["inputs"] = [{"shape": list(a.shape), "dtype": str(a.dtype).removeprefix("torch.")}
                        for a in case.args]
    result["parameters"] = sum(p.numel() for p in case.float_module.parameters())
    scale = max_scale(case.expected)
    # The quantization error itself: the float model against the int8 one, both eager.
    result["fp32_eager_rel_err"] = max_abs_diff(case.float_expected, case.expected) / (scale or 1)
    print(f"{model} batch {batch}: quantized in {result['quantize_s']:.1f}s; float model vs "
          f"int8 eager: {result['fp32_eager_rel_err']:.2e} of the largest output", flush=True)
    runners: dict[str, Any] = {}
    for backend in BACKENDS:
        record = result["backends"][backend]
        if backend in opts.skip:
            record["skipped"] = True
            continue
        start = time.perf_counter()
        try:
            runner = PREPARE[backend](case, opts, record)
            record["max_abs_err"] = max_abs_diff(runner.outputs, case.expected)
            record["max_rel_err"] = record["max_abs_err"] / scale if scale else record["max_abs_err"]
            record["close_fraction"] = close_fraction(runner.outputs, case.expected)
            runners[backend] = runner
        except Exception as error:  # noqa: BLE001 -- recorded; the others go on
            record["error"] = first_line(error)
            if os.environ.get("QUANT_BENCH_TRACEBACK"):
                traceback.print_exc()
        record["prepare_s"] = round(time.perf_counter() - start, 3)
        status = record.get("error") or f"ready in {record['prepare_s']:.1f}s"
        print(f"{model} batch {batch}: {backend}: {status}", flush=True)
    cpu_bench.time_rounds(opts, result, runners, model, batch)
    torch._dynamo.reset()
    if not opts.keep_work:
        shutil.rmtree(case.work, ignore_errors=True)
    return result


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------


def report(results: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    lines = [f"CPU latency, ms (median), {meta['size']} sizes, PT2E static int8 (X86Inductor"
             f"Quantizer) unless fp32; {meta['cpu']} ({meta['isa']}), {meta['cpus']} CPUs; "
             f"torch {meta['torch']}, torchao {meta['torchao']}, onnxruntime "
             f"{meta['onnxruntime']}; {meta['iters']} timed runs in {meta['rounds']} round(s) "
             f"after {meta['warmup']} warm-up run(s) per round. bundle/X below 1: the int8 "
             "bundle is faster.", "",
             "| model | batch | threads | " + " | ".join(BACKENDS) + " | "
             + " | ".join(f"bundle/{b}" for b in RATIOS) + " |",
             "|---|---|---|" + "---|" * (len(BACKENDS) + len(RATIOS))]
    lines += cpu_bench.latency_rows(results, meta, BACKENDS, RATIOS)

    lines += ["", "Compile times, seconds (per thread count where a backend compiles per thread "
              "count: " + " / ".join(str(t) for t in meta["threads"]) + ")", "",
              "| model | batch | PT2E quantize | bundle: torch.export + thunderc + build "
              "| bundle_fp32: the same | inductor first call | ort_qdq: ONNX export + "
              "pre-process + quantize_static | ORT session |",
              "|---|---|---|---|---|---|---|---|"]
    for r in results:
        bundle, fp32, inductor, ort = (r["backends"][b] for b in
                                       ("bundle", "bundle_fp32", "inductor", "ort_qdq"))

        def steps(record: dict[str, Any], keys: tuple[str, ...]) -> str:
            if any(record.get(k) is None for k in keys):
                return "—"
            return " + ".join(fmt(record[k]) for k in keys)

        bundle_keys = ("torch_export_s", "thunderc_s", "bundle_build_s")
        lines.append("| " + " | ".join([
            r["model"], str(r["batch"]), fmt(r.get("quantize_s")), steps(bundle, bundle_keys),
            steps(fp32, bundle_keys), cpu_bench.per_threads(inductor, "first_call_s"),
            steps(ort, ("onnx_export_s", "pre_process_s", "quantize_static_s")),
            cpu_bench.per_threads(ort, "session_s")]) + " |")

    compared = [b for b in BACKENDS if b != "eager"]
    lines += ["", "Largest |output - int8 eager| per backend, relative to the largest |int8 "
              "eager| output, and the share of outputs within float32 tolerance of int8 eager "
              "(rtol 1.3e-6, atol 1e-5); int8 backends differ by whole quantization steps where "
              "float sums in another order round to the neighbouring integer. fp32 eager: the "
              "quantization error itself.", "",
              "| model | batch | fp32 eager | " + " | ".join(compared) + " |",
              "|---|---|---|" + "---|" * len(compared)]
    for r in results:
        quant_err = r.get("fp32_eager_rel_err")
        row = [r["model"], str(r["batch"]), f"{quant_err:.1e}" if quant_err is not None else "—"]
        for b in compared:
            record = r["backends"][b]
            err = record.get("max_rel_err")
            row.append(f"{err:.1e} ({record['close_fraction']:.0%})" if err is not None else
                       "skipped" if record.get("skipped") else "error")
        lines.append("| " + " | ".join(row) + " |")
    errors = [(r, b, r["backends"][b]["error"]) for r in results for b in BACKENDS
              if r["backends"][b].get("error")]
    if errors:
        lines += ["", "Errors:", ""]
        lines += [f"- {r['model']} batch {r['batch']}, {b}: {e}" for r, b, e in errors]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    opts = parse_args(argv)
    if {"bundle", "bundle_fp32"} - opts.skip and not os.access(opts.thunderc, os.X_OK):
        print(f"error: thunderc not found at {opts.thunderc} (build it, or set THUNDERC_BIN or "
              "--thunderc)", file=sys.stderr)
        return 2
    known = list(gallery.REAL) if opts.size == "real" else [e.name for e in gallery.GALLERY]
    unknown = [m for m in opts.models if m not in known]
    if unknown:
        print(f"error: --models: unknown at --size {opts.size}: {', '.join(unknown)}; known: "
              f"{', '.join(known)}", file=sys.stderr)
        return 2
    warnings.filterwarnings("ignore")
    logging.getLogger("torch.onnx").setLevel(logging.ERROR)  # "torchvision is not installed"
    logging.getLogger("onnxscript").setLevel(logging.ERROR)  # "Evaluation failed" (folding)
    opts.out.mkdir(parents=True, exist_ok=True)
    meta = {"size": opts.size, "models": opts.models, "batches": opts.batches,
            "threads": opts.threads, "iters": opts.iters, "warmup": opts.warmup,
            "rounds": opts.rounds, "skipped": sorted(opts.skip), "cpu": cpu_name(),
            "cpus": len(os.sched_getaffinity(0)), "isa": cpu_isa(), "torch": torch.__version__,
            "torchao": version("torchao"), "onnxruntime": version("onnxruntime"),
            "onnxscript": version("onnxscript"), "transformers": version("transformers"),
            "python": platform.python_version(), "calibration_inputs": CALIBRATION_INPUTS,
            "date": datetime.datetime.now().isoformat(timespec="seconds")}
    results: list[dict[str, Any]] = []
    json_path, md_path = (opts.out / f"quant_bench.{ext}" for ext in ("json", "md"))
    start = time.perf_counter()
    for model in opts.models:
        for batch in opts.batches:
            results.append(bench_case(opts, model, batch))
            meta["elapsed_s"] = round(time.perf_counter() - start, 1)
            json_path.write_text(json.dumps({"meta": meta, "results": results}, indent=2) + "\n")
    table = report(results, meta)
    md_path.write_text(table)
    print("\n" + table)
    print(f"wrote {json_path}, {md_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
