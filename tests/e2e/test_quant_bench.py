"""The int8 CPU benchmark command (benchmarks/quant_bench.py) so that it cannot rot: its --smoke
run (the small hf_bert quantized by PT2E, batch 1, one thread) must give every backend a
latency, write the JSON and the Markdown tables, and the int8 bundle's output must match eager
of the same quantized model by test_quantized.py's criterion: at least 97% of the outputs to
float32's assert_close tolerance and every output within 5% of the output's range (float sums
in another order may put a value on the other side of a rounding boundary: one quantization
step). The latencies themselves never fail a test."""
import json
import math
import os
import subprocess
import sys

import pytest

pytest.importorskip("torchao")
pytest.importorskip("onnxruntime.quantization")

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCRIPT = os.path.join(ROOT, "benchmarks", "quant_bench.py")
THUNDERC = os.environ.get("THUNDERC_BIN", os.path.join(ROOT, "build", "cli", "thunderc"))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

BACKENDS = ["bundle", "bundle_fp32", "eager", "inductor", "ort_qdq"]


def bench(*arguments, timeout=900):
    return subprocess.run([sys.executable, SCRIPT, "--thunderc", os.path.abspath(THUNDERC),
                           *arguments], capture_output=True, text=True, timeout=timeout)


def test_smoke_run_measures_every_backend(tmp_path):
    result = bench("--smoke", "--out", str(tmp_path))
    print(result.stdout[-6000:], result.stderr[-6000:])
    assert result.returncode == 0, result.stderr[-4000:]
    data = json.loads((tmp_path / "quant_bench.json").read_text())
    assert data["meta"]["threads"] == [1] and data["meta"]["size"] == "small"
    (case,) = data["results"]
    assert (case["model"], case["batch"]) == ("hf_bert", 1)
    assert sorted(case["backends"]) == sorted(BACKENDS)
    assert case["quantize_s"] > 0
    for backend in BACKENDS:
        record = case["backends"][backend]
        assert "error" not in record, f"{backend}: {record['error']}"
        assert record["latency_ms"]["1"] > 0, (backend, record)
        assert math.isfinite(record["max_rel_err"]), (backend, record)
    bundle = case["backends"]["bundle"]
    assert bundle["close_fraction"] >= 0.97, bundle
    assert bundle["max_rel_err"] <= 0.05, bundle
    assert bundle["thunderc_s"] > 0 and bundle["bundle_build_s"] > 0
    # The float bundle matches the float model (fp32 end to end).
    assert case["backends"]["bundle_fp32"]["max_rel_err_vs_fp32"] < 1e-4
    assert case["backends"]["inductor"]["first_call_s"]["1"] > 0
    ort = case["backends"]["ort_qdq"]
    assert ort["onnx_export_s"] > 0 and ort["quantize_static_s"] > 0
    table = (tmp_path / "quant_bench.md").read_text()
    assert table in result.stdout
    assert "| hf_bert | 1 | 1 |" in table and "bundle/ort_qdq" in table
    assert "bundle/bundle_fp32" in table and data["meta"]["isa"] in table
    assert "geomean, 1 thread(s)" in table and "Errors:" not in table


def test_bad_options_exit_2(tmp_path):
    for arguments, message in [(["--skip", "ort"], "unknown backend"),
                               (["--skip", "eager"], "eager is the reference"),
                               (["--threads", "two"], "--threads"),
                               (["--rounds", "0"], "--rounds"),
                               (["--size", "real", "--models", "nn_lstm"],
                                "unknown at --size real")]:
        result = bench(*arguments, "--out", str(tmp_path), timeout=120)
        assert result.returncode == 2, (arguments, result.stderr)
        assert message in result.stderr, (arguments, result.stderr)


def test_report_records_errors_and_skips():
    """A failed or skipped backend shows in the tables and leaves the geomeans to the others."""
    import quant_bench

    meta = dict(size="real", cpu="cpu", isa="AVX2", cpus=2, torch="t", torchao="a",
                onnxruntime="o", iters=3, rounds=1, warmup=1, threads=[1])

    def backends(bundle, eager, fp32):
        return {"bundle": {"latency_ms": {"1": bundle}, "max_rel_err": 1e-6,
                           "close_fraction": 0.99},
                "bundle_fp32": {"latency_ms": {"1": fp32}, "max_rel_err": 1e-2,
                                "close_fraction": 0.0},
                "eager": {"latency_ms": {"1": eager}, "max_rel_err": 0.0, "close_fraction": 1.0},
                "inductor": {"error": "RuntimeError: boom"},
                "ort_qdq": {"skipped": True}}

    results = [{"model": "a", "batch": 1, "quantize_s": 1.5, "fp32_eager_rel_err": 1e-2,
                "backends": backends(1.0, 2.0, 4.0)},
               {"model": "b", "batch": 8, "backends": backends(8.0, 4.0, 2.0)}]
    table = quant_bench.report(results, meta)
    assert "| a | 1 | 1 | 1 | 4 | 2 | error | skipped | 0.5 | — | — | 0.25 |" in table
    assert "| b | 8 | 1 | 8 | 2 | 4 | error | skipped | 2 | — | — | 4 |" in table
    geomean = [line for line in table.splitlines() if "geomean, 1 thread(s)" in line][0]
    assert "**1**" in geomean  # bundle/eager: 0.5 and 2; bundle/bundle_fp32: 0.25 and 4
    assert "- a batch 1, inductor: RuntimeError: boom" in table
    assert "| a | 1 | 1.0e-02 | 1.0e-06 (99%) | 1.0e-02 (0%) | error | skipped |" in table
    assert "cpu (AVX2)" in table and "torchao a" in table
