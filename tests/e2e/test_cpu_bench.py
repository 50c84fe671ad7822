"""The CPU benchmark command (benchmarks/cpu_bench.py) so that it cannot rot: its --smoke run
(the small hf_bert, batch 1, one thread) must give every backend a latency and an output close
to eager's, and write the JSON, the Markdown tables and the chart. The numbers themselves never
fail a test; a backend that cannot run (a package missing, an export that broke) does."""
import json
import math
import os
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCRIPT = os.path.join(ROOT, "benchmarks", "cpu_bench.py")
THUNDERC = os.environ.get("THUNDERC_BIN", os.path.join(ROOT, "build", "cli", "thunderc"))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

BACKENDS = ["bundle", "eager", "compile", "ort", "openvino", "aoti"]


def bench(*arguments, timeout=900):
    return subprocess.run([sys.executable, SCRIPT, "--thunderc", os.path.abspath(THUNDERC),
                           *arguments], capture_output=True, text=True, timeout=timeout)


def test_smoke_run_measures_every_backend(tmp_path):
    result = bench("--smoke", "--out", str(tmp_path))
    print(result.stdout[-6000:], result.stderr[-6000:])
    assert result.returncode == 0, result.stderr[-4000:]
    data = json.loads((tmp_path / "cpu_bench.json").read_text())
    assert data["meta"]["threads"] == [1] and data["meta"]["size"] == "small"
    (case,) = data["results"]
    assert (case["model"], case["batch"]) == ("hf_bert", 1)
    assert sorted(case["backends"]) == sorted(BACKENDS)
    for backend in BACKENDS:
        record = case["backends"][backend]
        assert "error" not in record, f"{backend}: {record['error']}"
        assert record["latency_ms"]["1"] > 0, (backend, record)
        # fp32 end to end: each backend's output is eager's up to rounding.
        assert record["max_rel_err"] < 1e-4, (backend, record)
    bundle = case["backends"]["bundle"]
    assert bundle["thunderc_s"] > 0 and bundle["bundle_build_s"] > 0
    assert case["backends"]["compile"]["first_call_s"]["1"] > 0
    assert case["backends"]["ort"]["onnx_export_s"] > 0
    assert case["backends"]["aoti"]["compile_s"]["1"] > 0
    assert case["backends"]["openvino"]["compile_s"]["1"] > 0
    table = (tmp_path / "cpu_bench.md").read_text()
    assert table in result.stdout
    assert "| hf_bert | 1 | 1 |" in table and "bundle/ONNX Runtime" in table
    assert "bundle/OpenVINO" in table and data["meta"]["isa"] in table
    assert "geomean, 1 thread(s)" in table and "Errors:" not in table
    assert (tmp_path / "cpu_bench.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_options_exit_2(tmp_path):
    for arguments, message in [(["--skip", "tvm"], "unknown backend"),
                               (["--skip", "eager"], "eager is the reference"),
                               (["--threads", "two"], "--threads"),
                               (["--iters", "0"], "--iters"),
                               (["--size", "real", "--models", "nn_lstm"], "unknown at --size real")]:
        result = bench(*arguments, "--out", str(tmp_path), timeout=120)
        assert result.returncode == 2, (arguments, result.stderr)
        assert message in result.stderr, (arguments, result.stderr)


def test_report_records_errors_and_skips():
    """A failed or skipped backend shows in the tables and leaves the geomeans to the others."""
    import cpu_bench

    meta = dict(size="real", cpu="cpu", isa="AVX2", cpus=2, torch="t", onnxruntime="o",
                openvino="v", iters=3, rounds=1, warmup=1, threads=[1, 2])

    def backends(bundle, eager, ort):
        return {"bundle": {"latency_ms": {"1": bundle, "2": bundle / 2}, "max_rel_err": 1e-6,
                           "thunderc_s": 1.0, "bundle_build_s": 2.0},
                "eager": {"latency_ms": {"1": eager, "2": eager / 2}, "max_rel_err": 0.0},
                "compile": {"error": "RuntimeError: boom"},
                "ort": {"latency_ms": {"1": ort, "2": ort}, "max_rel_err": 2e-6},
                "openvino": {"latency_ms": {"1": ort * 2, "2": ort * 2}, "max_rel_err": 3e-6},
                "aoti": {"skipped": True}}

    results = [{"model": "a", "batch": 1, "backends": backends(1.0, 2.0, 4.0)},
               {"model": "b", "batch": 8, "backends": backends(8.0, 2.0, 2.0)}]
    table = cpu_bench.report(results, meta)
    assert "| a | 1 | 1 | 1 | 2 | error | 4 | 8 | skipped | 0.5 | — | 0.25 | 0.125 | — |" in table
    assert "| b | 8 | 2 | 4 | 1 | error | 2 | 4 | skipped | 4 | — | 2 | 1 | — |" in table
    # bundle/eager: 0.5 and 4 at 1 thread -> sqrt(2); all four rows -> sqrt(2) too.
    geomean = [line for line in table.splitlines() if "geomean, 1 thread(s)" in line][0]
    assert f"**{math.sqrt(2):.3g}**" in geomean
    assert "- a batch 1, torch.compile: RuntimeError: boom" in table
    assert "| a | 1 | 1.0e-06 | error | 2.0e-06 | 3.0e-06 | skipped |" in table
    assert "cpu (AVX2)" in table and "openvino v" in table
