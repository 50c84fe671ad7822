"""CPU benchmark: thunderc's bundle against PyTorch eager, torch.compile (Inductor), ONNX Runtime
and AOTInductor on the gallery models at their real sizes, in one run.

For each model, batch and thread count every backend runs the same inputs (same warm-up, the
median of timed runs, rounds interleaved across backends so that load from elsewhere hits them
alike); the run prints Markdown tables of latencies, ratios (bundle / other: below 1 means the
bundle is faster) with geomeans, compile times and each backend's largest difference from
eager, and writes them to <out>/cpu_bench.md, the raw numbers to <out>/cpu_bench.json and a
chart to <out>/cpu_bench.png. A backend that fails on a model records its error (in the JSON
and the tables) and the run goes on. Numbers are ratios within one run: machines are shared.

    backend   what runs                                                    compile time recorded
    bundle    thunderc -O2 bundle (Release, CPU dispatch), its runner's    thunderc, then the
              own timing loop (--warmup/--iters/--threads)                 CMake build
    eager     the nn.Module under torch.no_grad                            -
    compile   torch.compile(model) (Inductor, default mode)                first call
    ort       torch.onnx.export(..., dynamo=True) run by an ONNX Runtime   export, then session
              session (intra_op_num_threads = threads)                     creation
    openvino  the same ONNX file read by OpenVINO (ov.convert_model of     read + compile per
              the module when the ONNX file does not convert), compiled    thread count
              for the CPU with INFERENCE_PRECISION_HINT=f32 (fp32 like the
              others; OpenVINO would pick bf16 on AVX512-BF16/AMX
              machines), PERFORMANCE_HINT=LATENCY, INFERENCE_NUM_THREADS
    aoti      torch._inductor.aoti_compile_and_package of the exported     compile + load
              program, loaded with aoti_load_package

Threads: torch.set_num_threads (eager, compile, aoti; Inductor's C++ kernels take the count at
compile time, so compile and aoti are compiled once per thread count), ORT's intra-op threads,
OpenVINO's INFERENCE_NUM_THREADS and the runner's --threads. The table's header names the CPU
and its vector ISA (AVX2, AVX-512 and its VNNI/BF16 parts, AMX).

Usage:
    python3 benchmarks/cpu_bench.py [--models hf_bert,hf_gpt2,hf_vit,hf_resnet] [--batches 1,8]
        [--threads 1,all] [--iters 10] [--warmup 2] [--rounds 2] [--skip ort,aoti]
        [--size real|small] [--out build/cpu_bench]
    python3 benchmarks/cpu_bench.py --smoke      # small hf_bert, batch 1, 1 thread, 3 iters
Needs build/cli/thunderc (or THUNDERC_BIN) and requirements.txt (onnxruntime, onnxscript,
openvino, matplotlib). Models come from models/gallery.py (gallery.REAL at --size real); nothing is
downloaded.
"""
from __future__ import annotations

import argparse
import atexit
import datetime
import json
import logging
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
BACKENDS = ["bundle", "eager", "compile", "ort", "openvino", "aoti"]
LABELS = {"bundle": "bundle", "eager": "eager", "compile": "torch.compile", "ort": "ONNX Runtime",
          "openvino": "OpenVINO", "aoti": "AOTInductor"}
DEFAULT_MODELS = "hf_bert,hf_gpt2,hf_llama,hf_vit,hf_resnet"


def common_parser(doc: str, default_models: str, backends: list[str], out: Path,
                  out_help: str) -> argparse.ArgumentParser:
    """The options cpu_bench.py and quant_bench.py share (resolve_args completes them)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=None,
                        help=f"comma-separated gallery names (default {default_models})")
    parser.add_argument("--size", choices=["real", "small"], default=None,
                        help="real: gallery.REAL sizes (default); small: the CI gallery configs")
    parser.add_argument("--batches", default=None, help="comma-separated batch sizes (default 1,8)")
    parser.add_argument("--threads", default=None,
                        help="comma-separated thread counts, 'all' = the CPUs this process may "
                             "use (default 1,all)")
    parser.add_argument("--iters", type=int, default=None, help="timed runs per backend (default 10)")
    parser.add_argument("--warmup", type=int, default=None, help="untimed runs per round (default 2)")
    parser.add_argument("--rounds", type=int, default=None,
                        help="the timed runs are split into this many rounds that cycle through "
                             "the backends; a latency is the median of the rounds' medians "
                             "(default 2)")
    parser.add_argument("--skip", default="", help=f"backends not to run, of {','.join(backends)}")
    parser.add_argument("--out", type=Path, default=out, help=out_help)
    parser.add_argument("--thunderc", default=os.environ.get("THUNDERC_BIN",
                                                             str(ROOT / "build" / "cli" / "thunderc")))
    parser.add_argument("--smoke", action="store_true",
                        help="a quick check that every backend runs: small hf_bert, batch 1, one "
                             "thread, 3 iterations (explicit options still win)")
    return parser


def resolve_args(parser: argparse.ArgumentParser, argv: list[str] | None, default_models: str,
                 backends: list[str]) -> argparse.Namespace:
    """Parses argv: the --smoke or normal defaults, then lists and checks."""
    opts = parser.parse_args(argv)
    smoke = dict(models="hf_bert", size="small", batches="1", threads="1", iters=3, warmup=1,
                 rounds=1)
    normal = dict(models=default_models, size="real", batches="1,8", threads="1,all", iters=10,
                  warmup=2, rounds=2)
    for key, value in (smoke if opts.smoke else normal).items():
        if getattr(opts, key) is None:
            setattr(opts, key, value)
    opts.models = [m.strip() for m in opts.models.split(",") if m.strip()]
    try:
        opts.batches = [int(b) for b in opts.batches.split(",")]
    except ValueError:
        parser.error(f"--batches: expected comma-separated integers, got {opts.batches!r}")
    cpus = len(os.sched_getaffinity(0))
    threads = []
    for t in opts.threads.split(","):
        t = t.strip()
        if t != "all" and not t.isdigit():
            parser.error(f"--threads: expected integers or 'all', got {t!r}")
        n = cpus if t == "all" else int(t)
        if n not in threads:
            threads.append(n)
    opts.threads = threads
    skip = {s.strip() for s in opts.skip.split(",") if s.strip()}
    if skip - set(backends):
        parser.error(f"--skip: unknown backend(s) {', '.join(sorted(skip - set(backends)))}; "
                     f"known: {', '.join(backends)}")
    if "eager" in skip:
        parser.error("--skip: eager is the reference of every ratio and error; it always runs")
    opts.skip = skip
    for name, value, least in (("--iters", opts.iters, 1), ("--warmup", opts.warmup, 0),
                               ("--rounds", opts.rounds, 1)):
        if value < least:
            parser.error(f"{name} must be at least {least}, got {value}")
    if any(b < 1 for b in opts.batches) or any(t < 1 for t in opts.threads):
        parser.error("--batches and --threads must be positive")
    return opts


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = common_parser(__doc__, DEFAULT_MODELS, BACKENDS, ROOT / "build" / "cpu_bench",
                           "cpu_bench.{json,md,png} and the work folder go here")
    parser.add_argument("--no-chart", action="store_true", help="do not write the PNG chart")
    parser.add_argument("--keep-work", action="store_true",
                        help="keep each case's .pt2, bundle, ONNX and AOTInductor files under "
                             "<out>/work (at real sizes several GiB in all)")
    return resolve_args(parser, argv, DEFAULT_MODELS, BACKENDS)


# The Inductor caches go to a fresh folder per run, so that compile times are cold ones. Set
# before torch is imported.
_INDUCTOR_CACHE = tempfile.mkdtemp(prefix="cpu_bench_inductor_")
os.environ["TORCHINDUCTOR_CACHE_DIR"] = _INDUCTOR_CACHE
atexit.register(shutil.rmtree, _INDUCTOR_CACHE, ignore_errors=True)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.utils._pytree as pytree  # noqa: E402

sys.path.insert(0, str(ROOT / "models"))
import gallery  # noqa: E402


def first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0][:300] if text else ''}"


def median_ms(fn: Callable[[], Any], warmup: int, iters: int) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def flat(outputs: Any) -> list[np.ndarray]:
    leaves, _ = pytree.tree_flatten(outputs)
    return [leaf.detach().numpy() if isinstance(leaf, torch.Tensor) else np.asarray(leaf)
            for leaf in leaves]


def max_scale(arrays: list[np.ndarray]) -> float:
    return max((float(np.max(np.abs(a.astype(np.float64)))) for a in arrays if a.size),
               default=0.0)


def max_abs_diff(got: list[np.ndarray], want: list[np.ndarray]) -> float:
    if len(got) != len(want):
        return float("inf")
    worst = 0.0
    for a, b in zip(got, want):
        if a.shape != b.shape:
            return float("inf")
        if a.size:
            worst = max(worst, float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))))
    return worst


def run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        tail = (result.stderr.strip() or result.stdout.strip()).splitlines()[-5:]
        raise RuntimeError(f"{Path(command[0]).name} exited {result.returncode}: " + " | ".join(tail))
    return result


# --------------------------------------------------------------------------------------------
# Backends: prepare(...) compiles (timed) and returns a runner per thread count.
# --------------------------------------------------------------------------------------------


class Case:
    """One model at one batch: the module, its inputs, eager's outputs and the work folder."""

    def __init__(self, opts: argparse.Namespace, model: str, batch: int):
        self.name, self.batch = model, batch
        entry = gallery.real(model, batch) if opts.size == "real" else _small(model, batch)
        self.module = entry.make_model()
        self.args = entry.make_inputs()
        self.work = opts.out / "work" / f"{model}_batch{batch}"
        shutil.rmtree(self.work, ignore_errors=True)
        self.work.mkdir(parents=True)
        with torch.no_grad():
            self.expected = flat(self.module(*self.args))
        self._program = None
        self._onnx: Path | None = None

    def onnx(self, record: dict[str, Any]) -> Path:
        """torch.onnx.export(..., dynamo=True) of the module, once per case (ONNX Runtime and
        OpenVINO run the same file); the export time goes to the first backend that asks."""
        if self._onnx is None:
            path = self.work / "model.onnx"
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.onnx.export(self.module, self.args, str(path), dynamo=True, verbose=False)
            record["onnx_export_s"] = round(time.perf_counter() - start, 3)
            self._onnx = path
        return self._onnx

    def program(self) -> torch.export.ExportedProgram:
        """torch.export.export of the module (training IR), shared by the bundle and AOTI."""
        if self._program is None:
            self._program = torch.export.export(self.module, self.args)
        return self._program


def _small(model: str, batch: int):
    entry = gallery.get(model)
    if entry.dynamic_shapes is None and batch != 1:
        raise ValueError(f"{model}: the small gallery config has static shapes at batch 1; "
                         f"use --size real for batch {batch}")
    return entry if batch == 1 else gallery.zoo.ZooEntry(
        entry.name, entry.build, lambda g, _i=entry.inputs: _i(g, batch=batch),
        seed=entry.seed)


class Bundle:
    def __init__(self, case: Case, opts: argparse.Namespace, record: dict[str, Any]):
        pt2 = case.work / "model.pt2"
        start = time.perf_counter()
        torch.export.save(case.program(), pt2)
        record["torch_export_s"] = round(time.perf_counter() - start, 3)
        out = case.work / "bundle"
        start = time.perf_counter()
        run([opts.thunderc, str(pt2), "-o", str(out), "--name", "model", "-q"])
        record["thunderc_s"] = round(time.perf_counter() - start, 3)
        start = time.perf_counter()
        run(["cmake", "-S", str(out), "-B", str(out / "build"), "-G", "Ninja",
             "-DCMAKE_BUILD_TYPE=Release"])
        run(["cmake", "--build", str(out / "build"), "-j", str(len(os.sched_getaffinity(0)))])
        record["bundle_build_s"] = round(time.perf_counter() - start, 3)
        self.runner = str(out / "build" / "model_run")
        self.inputs = []
        for i, arg in enumerate(case.args):
            path = case.work / f"input_{i}.npy"
            np.save(path, arg.numpy(), allow_pickle=False)
            self.inputs.append(str(path))
        outputs = [str(case.work / f"bundle_output_{i}.npy") for i in range(len(case.expected))]
        run([self.runner, "--inputs", *self.inputs, "--outputs", *outputs])
        self.outputs = [np.load(p) for p in outputs]

    def latency(self, threads: int, warmup: int, iters: int) -> float:
        env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS="1")
        result = run([self.runner, "--inputs", *self.inputs, "--warmup", str(warmup),
                      "--iters", str(iters), "--threads", str(threads)], env=env)
        return float(result.stdout.split("median_us=")[1].split()[0]) / 1e3


class Eager:
    def __init__(self, case: Case, opts: argparse.Namespace, record: dict[str, Any]):
        self.case = case
        self.outputs = case.expected

    def latency(self, threads: int, warmup: int, iters: int) -> float:
        torch.set_num_threads(threads)
        with torch.no_grad():
            return median_ms(lambda: self.case.module(*self.case.args), warmup, iters)


class Compile:
    """torch.compile, compiled anew for each thread count (its first call timed)."""

    def __init__(self, case: Case, opts: argparse.Namespace, record: dict[str, Any]):
        self.case, self.record = case, record
        self.compiled: dict[int, Any] = {}
        record["first_call_s"] = {}
        self._compile(opts.threads[0])
        with torch.no_grad():
            self.outputs = flat(self.compiled[opts.threads[0]](*case.args))

    def _compile(self, threads: int) -> None:
        torch.set_num_threads(threads)
        torch._dynamo.reset()
        compiled = torch.compile(self.case.module)
        start = time.perf_counter()
        with torch.no_grad():
            compiled(*self.case.args)
        self.record["first_call_s"][str(threads)] = round(time.perf_counter() - start, 3)
        self.compiled = {threads: compiled}

    def latency(self, threads: int, warmup: int, iters: int) -> float:
        if threads not in self.compiled:
            self._compile(threads)
        torch.set_num_threads(threads)
        compiled = self.compiled[threads]
        with torch.no_grad():
            return median_ms(lambda: compiled(*self.case.args), warmup, iters)


class OnnxRuntime:
    def __init__(self, case: Case, opts: argparse.Namespace, record: dict[str, Any]):
        import onnxruntime

        self.ort = onnxruntime
        self.case, self.record = case, record
        self.path = case.onnx(record)
        record["session_s"] = {}
        self.sessions: dict[int, Any] = {}
        session = self._session(opts.threads[0])
        self.outputs = [np.asarray(o) for o in session.run(None, self._feeds(session))]

    def _session(self, threads: int) -> Any:
        if threads not in self.sessions:
            options = self.ort.SessionOptions()
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            options.log_severity_level = 3
            start = time.perf_counter()
            self.sessions = {threads: self.ort.InferenceSession(
                str(self.path), options, providers=["CPUExecutionProvider"])}
            self.record["session_s"][str(threads)] = round(time.perf_counter() - start, 3)
        return self.sessions[threads]

    def _feeds(self, session: Any) -> dict[str, np.ndarray]:
        names = [i.name for i in session.get_inputs()]
        if len(names) != len(self.case.args):
            raise RuntimeError(f"the ONNX model has {len(names)} inputs, the module "
                               f"{len(self.case.args)}")
        return {n: a.numpy() for n, a in zip(names, self.case.args)}

    def latency(self, threads: int, warmup: int, iters: int) -> float:
        session = self._session(threads)
        feeds = self._feeds(session)
        return median_ms(lambda: session.run(None, feeds), warmup, iters)


class OpenVino:
    """OpenVINO's CPU plugin on the ONNX file ORT runs (or, where OpenVINO cannot read that
    file, ov.convert_model of the module), fp32, compiled once per thread count."""

    def __init__(self, case: Case, opts: argparse.Namespace, record: dict[str, Any]):
        import openvino

        self.ov = openvino
        self.case, self.record = case, record
        self.core = openvino.Core()
        start = time.perf_counter()
        try:
            self.model = self.core.read_model(str(case.onnx(record)))
            record["source"] = "onnx"
        except Exception as error:  # noqa: BLE001 -- the PyTorch frontend is the second way in
            record["onnx_error"] = first_line(error)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.model = openvino.convert_model(case.module, example_input=case.args)
            record["source"] = "convert_model"
        record["convert_s"] = round(time.perf_counter() - start, 3)
        record["compile_s"] = {}
        self.compiled: dict[int, Any] = {}
        request = self._request(opts.threads[0])
        self.outputs = [np.asarray(o) for o in request.infer(self._feeds()).values()]

    def _request(self, threads: int) -> Any:
        if threads not in self.compiled:
            start = time.perf_counter()
            compiled = self.core.compile_model(self.model, "CPU", {
                "INFERENCE_PRECISION_HINT": "f32", "PERFORMANCE_HINT": "LATENCY",
                "INFERENCE_NUM_THREADS": threads})
            self.record["compile_s"][str(threads)] = round(time.perf_counter() - start, 3)
            self.compiled = {threads: compiled.create_infer_request()}
        return self.compiled[threads]

    def _feeds(self) -> list[np.ndarray]:
        return [a.numpy() for a in self.case.args]

    def latency(self, threads: int, warmup: int, iters: int) -> float:
        request = self._request(threads)
        feeds = self._feeds()
        return median_ms(lambda: request.infer(feeds), warmup, iters)


class AOTInductor:
    """aoti_compile_and_package of the exported program, once per thread count."""

    def __init__(self, case: Case, opts: argparse.Namespace, record: dict[str, Any]):
        self.case, self.record = case, record
        self.loaded: dict[int, Any] = {}
        record["compile_s"] = {}
        self._compile(opts.threads[0])
        with torch.no_grad():
            self.outputs = flat(self.loaded[opts.threads[0]](*case.args))

    def _compile(self, threads: int) -> None:
        torch.set_num_threads(threads)
        path = self.case.work / f"aoti_threads{threads}.pt2"
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch._inductor.aoti_compile_and_package(self.case.program(), package_path=str(path))
            loaded = torch._inductor.aoti_load_package(str(path))
        self.record["compile_s"][str(threads)] = round(time.perf_counter() - start, 3)
        self.loaded = {threads: loaded}

    def latency(self, threads: int, warmup: int, iters: int) -> float:
        if threads not in self.loaded:
            self._compile(threads)
        torch.set_num_threads(threads)
        loaded = self.loaded[threads]
        with torch.no_grad():
            return median_ms(lambda: loaded(*self.case.args), warmup, iters)


PREPARE = {"bundle": Bundle, "eager": Eager, "compile": Compile, "ort": OnnxRuntime,
           "openvino": OpenVino, "aoti": AOTInductor}


def time_rounds(opts: argparse.Namespace, result: dict[str, Any], runners: dict[str, Any],
                model: str, batch: int) -> None:
    """Times the prepared backends at each thread count, rounds interleaved across them so that
    load from elsewhere hits them alike; records each median of the rounds' medians (or the
    error) under result["backends"]."""
    per_round = max(1, math.ceil(opts.iters / opts.rounds))
    for threads in opts.threads:
        rounds: dict[str, list[float]] = {b: [] for b in runners}
        for _ in range(opts.rounds):
            for backend, runner in list(runners.items()):
                if "error" in result["backends"][backend]:
                    continue
                try:
                    rounds[backend].append(runner.latency(threads, opts.warmup, per_round))
                except Exception as error:  # noqa: BLE001
                    result["backends"][backend]["error"] = (
                        f"at {threads} thread(s): {first_line(error)}")
        for backend, values in rounds.items():
            if values and "error" not in result["backends"][backend]:
                result["backends"][backend].setdefault("latency_ms", {})[str(threads)] = round(
                    statistics.median(values), 4)
        line = ", ".join(f"{b} {result['backends'][b]['latency_ms'][str(threads)]:.2f}"
                         for b in runners if str(threads) in result["backends"][b].get("latency_ms", {}))
        print(f"{model} batch {batch} threads {threads}: {line} (ms)", flush=True)


def bench_case(opts: argparse.Namespace, model: str, batch: int) -> dict[str, Any]:
    """Every backend on one model at one batch; errors are recorded, never raised."""
    result: dict[str, Any] = {"model": model, "batch": batch, "size": opts.size,
                              "backends": {b: {} for b in BACKENDS}}
    if opts.size == "real" and model in gallery.REAL:
        result["description"] = gallery.REAL[model][0]
    try:
        case = Case(opts, model, batch)
    except Exception as error:  # noqa: BLE001 -- the model itself failed: every backend did
        message = f"model: {first_line(error)}"
        for record in result["backends"].values():
            record["error"] = message
        print(f"{model} batch {batch}: {message}", flush=True)
        return result
    result["inputs"] = [{"shape": list(a.shape), "dtype": str(a.dtype).removeprefix("torch.")}
                        for a in case.args]
    result["parameters"] = sum(p.numel() for p in case.module.parameters())
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
            scale = max_scale(case.expected)
            record["max_rel_err"] = record["max_abs_err"] / scale if scale else record["max_abs_err"]
            runners[backend] = runner
        except Exception as error:  # noqa: BLE001 -- recorded; the others go on
            record["error"] = first_line(error)
            if os.environ.get("CPU_BENCH_TRACEBACK"):
                traceback.print_exc()
        record["prepare_s"] = round(time.perf_counter() - start, 3)
        status = record.get("error") or f"ready in {record['prepare_s']:.1f}s"
        print(f"{model} batch {batch}: {backend}: {status}", flush=True)
    time_rounds(opts, result, runners, model, batch)
    torch._dynamo.reset()
    if not opts.keep_work:
        shutil.rmtree(case.work, ignore_errors=True)
    return result


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------


def geomean(values: list[float]) -> float | None:
    values = [v for v in values if v and v > 0 and math.isfinite(v)]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def fmt(value: float | None, digits: int = 3) -> str:
    if value is None:
        return "—"
    return f"{value:.{digits}g}" if value < 1000 else f"{value:.0f}"


def latency(result: dict[str, Any], backend: str, threads: int) -> float | None:
    return result["backends"][backend].get("latency_ms", {}).get(str(threads))


def cell(result: dict[str, Any], backend: str, threads: int) -> str:
    record = result["backends"][backend]
    value = latency(result, backend, threads)
    if value is not None:
        return fmt(value)
    return "skipped" if record.get("skipped") else "error" if record.get("error") else "—"


def per_threads(record: dict[str, Any], key: str) -> str:
    values = record.get(key) or {}
    return " / ".join(fmt(float(v)) for v in values.values()) if values else "—"


def latency_rows(results: list[dict[str, Any]], meta: dict[str, Any], backends: list[str],
                 others: list[str]) -> list[str]:
    """The latency table's rows: per case and thread count each backend's latency and
    bundle/other ratios, then their geomeans per thread count and over all rows."""
    lines = []
    ratios: dict[tuple[str, int | None], list[float]] = {}
    for r in results:
        for threads in meta["threads"]:
            row = [r["model"], str(r["batch"]), str(threads)]
            row += [cell(r, b, threads) for b in backends]
            mine = latency(r, "bundle", threads)
            for b in others:
                theirs = latency(r, b, threads)
                ratio = mine / theirs if mine and theirs else None
                if ratio:
                    ratios.setdefault((b, threads), []).append(ratio)
                    ratios.setdefault((b, None), []).append(ratio)
                row.append(fmt(ratio))
            lines.append("| " + " | ".join(row) + " |")
    for threads in meta["threads"] + [None]:
        if threads is None and len(meta["threads"]) == 1:
            continue
        label = "geomean" + (f", {threads} thread(s)" if threads else ", all rows")
        row = [f"**{label}**", "", ""] + [""] * len(backends)
        row += [f"**{fmt(geomean(ratios.get((b, threads), [])))}**" for b in others]
        lines.append("| " + " | ".join(row) + " |")
    return lines


def report(results: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    others = [b for b in BACKENDS if b != "bundle"]
    lines = [f"CPU latency, ms (median), {meta['size']} sizes, fp32; {meta['cpu']} "
             f"({meta['isa']}), {meta['cpus']} CPUs; torch {meta['torch']}, onnxruntime "
             f"{meta['onnxruntime']}, openvino {meta['openvino']}; "
             f"{meta['iters']} timed runs in {meta['rounds']} round(s) after {meta['warmup']} "
             "warm-up run(s) per round. bundle/X below 1: the bundle is faster.", "",
             "| model | batch | threads | " + " | ".join(LABELS[b] for b in BACKENDS) + " | "
             + " | ".join(f"bundle/{LABELS[b]}" for b in others) + " |",
             "|---|---|---|" + "---|" * (len(BACKENDS) + len(others))]
    lines += latency_rows(results, meta, BACKENDS, others)

    lines += ["", "Compile times, seconds (per thread count where a backend compiles per thread "
              "count: " + " / ".join(str(t) for t in meta["threads"]) + ")", "",
              "| model | batch | torch.export | thunderc | bundle build | torch.compile first call "
              "| ONNX export | ORT session | OpenVINO read + compile | AOTInductor compile + load |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        bundle, compiled, ort, ov, aoti = (r["backends"][b] for b in
                                           ("bundle", "compile", "ort", "openvino", "aoti"))
        onnx_export = ort.get("onnx_export_s", ov.get("onnx_export_s"))
        ov_times = fmt(ov.get("convert_s")) + " + " + per_threads(ov, "compile_s") \
            if ov.get("convert_s") is not None else "—"
        lines.append("| " + " | ".join([
            r["model"], str(r["batch"]), fmt(bundle.get("torch_export_s")),
            fmt(bundle.get("thunderc_s")), fmt(bundle.get("bundle_build_s")),
            per_threads(compiled, "first_call_s"), fmt(onnx_export),
            per_threads(ort, "session_s"), ov_times, per_threads(aoti, "compile_s")]) + " |")

    compared = [b for b in BACKENDS if b != "eager"]
    lines += ["", "Largest |output - eager| per backend, relative to the largest |eager| output "
              "(random weights give some models large outputs)", "",
              "| model | batch | " + " | ".join(LABELS[b] for b in compared) + " |",
              "|---|---|" + "---|" * len(compared)]
    for r in results:
        row = [r["model"], str(r["batch"])]
        for b in compared:
            record = r["backends"][b]
            err = record.get("max_rel_err")
            row.append(f"{err:.1e}" if err is not None else
                       "skipped" if record.get("skipped") else "error")
        lines.append("| " + " | ".join(row) + " |")
    errors = [(r, b, r["backends"][b]["error"]) for r in results for b in BACKENDS
              if r["backends"][b].get("error")]
    if errors:
        lines += ["", "Errors:", ""]
        lines += [f"- {r['model']} batch {r['batch']}, {LABELS[b]}: {e}" for r, b, e in errors]
    return "\n".join(lines) + "\n"


def chart(results: list[dict[str, Any]], meta: dict[str, Any], path: Path) -> None:
    """Speed relative to eager (eager latency / backend latency) per model, batch and thread
    count, one bar per backend, log scale."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    groups = [(r, t) for r in results for t in meta["threads"]]
    others = [b for b in BACKENDS if b != "eager"]
    width = 0.8 / len(others)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(groups) + 2), 4.5))
    for i, backend in enumerate(others):
        xs, ys = [], []
        for x, (r, t) in enumerate(groups):
            eager, mine = latency(r, "eager", t), latency(r, backend, t)
            if eager and mine:
                xs.append(x + (i - (len(others) - 1) / 2) * width)
                ys.append(eager / mine)
        ax.bar(xs, ys, width, label=LABELS[backend])
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_ylabel("speed vs PyTorch eager (higher is faster)")
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([f"{r['model']}\nb{r['batch']} t{t}" for r, t in groups], fontsize=7)
    ax.set_title(f"thunderc CPU benchmark ({meta['size']} sizes, {meta['cpus']} CPUs)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def cpu_name() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def cpu_isa() -> str:
    """The vector extensions that decide which kernels a library picks, from /proc/cpuinfo."""
    flags: set[str] = set()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    except OSError:
        return "ISA unknown"
    names = [("avx2", "AVX2"), ("fma", "FMA"), ("avx512f", "AVX-512F"), ("avx512bw", "BW"),
             ("avx512vl", "VL"), ("avx512_vnni", "VNNI"), ("avx512_bf16", "BF16"),
             ("avx512_fp16", "FP16"), ("amx_tile", "AMX"), ("amx_bf16", "AMX-BF16"),
             ("amx_int8", "AMX-INT8")]
    present = [label for flag, label in names if flag in flags]
    return " ".join(present) if present else "no AVX2"


def version(module: str) -> str:
    try:
        return __import__(module).__version__
    except Exception:  # noqa: BLE001 -- reported as missing; its backend records the error
        return "not installed"


def main(argv: list[str] | None = None) -> int:
    opts = parse_args(argv)
    if "bundle" not in opts.skip and not os.access(opts.thunderc, os.X_OK):
        print(f"error: thunderc not found at {opts.thunderc} (build it, or set THUNDERC_BIN or "
              "--thunderc)", file=sys.stderr)
        return 2
    unknown = [m for m in opts.models if m not in (gallery.REAL if opts.size == "real"
                                                   else {e.name for e in gallery.GALLERY})]
    if unknown:
        known = gallery.REAL if opts.size == "real" else [e.name for e in gallery.GALLERY]
        print(f"error: --models: unknown at --size {opts.size}: {', '.join(unknown)}; known: "
              f"{', '.join(known)}", file=sys.stderr)
        return 2
    warnings.filterwarnings("ignore")
    logging.getLogger("torch.onnx").setLevel(logging.ERROR)  # "torchvision is not installed"
    opts.out.mkdir(parents=True, exist_ok=True)
    meta = {"size": opts.size, "models": opts.models, "batches": opts.batches,
            "threads": opts.threads, "iters": opts.iters, "warmup": opts.warmup,
            "rounds": opts.rounds, "skipped": sorted(opts.skip), "cpu": cpu_name(),
            "cpus": len(os.sched_getaffinity(0)), "torch": torch.__version__,
            "isa": cpu_isa(), "onnxruntime": version("onnxruntime"),
            "openvino": version("openvino"), "onnxscript": version("onnxscript"),
            "transformers": version("transformers"), "python": platform.python_version(),
            "date": datetime.datetime.now().isoformat(timespec="seconds")}
    results: list[dict[str, Any]] = []
    json_path, md_path, png_path = (opts.out / f"cpu_bench.{ext}" for ext in ("json", "md", "png"))
    start = time.perf_counter()
    for model in opts.models:
        for batch in opts.batches:
            results.append(bench_case(opts, model, batch))
            meta["elapsed_s"] = round(time.perf_counter() - start, 1)
            json_path.write_text(json.dumps({"meta": meta, "results": results}, indent=2) + "\n")
    table = report(results, meta)
    md_path.write_text(table)
    print("\n" + table)
    if not opts.no_chart:
        try:
            chart(results, meta, png_path)
            print(f"wrote {json_path}, {md_path}, {png_path}")
        except Exception as error:  # noqa: BLE001 -- the numbers are written already
            print(f"chart not written: {first_line(error)}; wrote {json_path}, {md_path}")
    else:
        print(f"wrote {json_path}, {md_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
