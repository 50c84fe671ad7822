"""The GPU check (scripts/gpu_check.sh + benchmarks/gpu_table.py) without a GPU: the --emulate
path end to end on mlp (bundles built against the CPU emulation of CUDA, compared with eager
on the CPU), its setup errors (exit 2), a model whose bundle is missing (exit 1), and the
table's formatting."""
import os
import subprocess
import sys

import pytest
import torch

from conftest import ZOO_DIR

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCRIPT = os.path.join(ROOT, "scripts", "gpu_check.sh")
TABLE = os.path.join(ROOT, "benchmarks", "gpu_table.py")
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import gpu_table  # noqa: E402

EXIT_FAILED, EXIT_SETUP = 1, 2


def run_check(*arguments, env=None):
    return subprocess.run([SCRIPT, *arguments], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=1200)


def table_row(table, model, dtype):
    """The cells of the table line for `model` at `dtype`; fails when there is none."""
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[:2] == [model, dtype]:
            return cells
    raise AssertionError(f"no row for {model} {dtype} in:\n{table}")


def test_emulated_check_of_mlp(thunderc, tmp_path):
    """mlp and mlp_fp16 compile with --target cuda, build emulated, match eager and are timed."""
    usage = subprocess.run([thunderc, "--help"], capture_output=True, text=True)
    if "--target" not in usage.stdout + usage.stderr:
        pytest.skip("thunderc --help lists no --target: the CUDA target has not landed yet")
    out = tmp_path / "gpu_check.md"
    result = run_check("--emulate", "--models", "mlp", "--iters", "2", "--out", str(out),
                       "--work", str(tmp_path / "work"),
                       env={"THUNDERC": os.path.abspath(thunderc),
                            "THUNDERC_ZOO_DIR": os.path.abspath(ZOO_DIR)})
    print(result.stdout, result.stderr)
    assert result.returncode == 0, result.stderr[-4000:]
    table = out.read_text()
    assert table == result.stdout, "the table printed and the table written differ"
    for dtype in ("fp32", "fp16"):
        cells = table_row(table, "mlp", dtype)
        assert cells[3] == "ok", cells
        assert float(cells[2]) >= 0 and float(cells[4]) > 0 and float(cells[5]) > 0, cells
        assert cells[6] == "skipped (--emulate)", cells
    assert "bundle µs (emulated CUDA)" in table and "max err vs eager (CPU)" in table
    assert table_row(table, "geomean", "")[3] == "2/2 ok"


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_no_gpu_without_emulate_is_a_setup_error(tmp_path):
    result = run_check("--models", "mlp", "--work", str(tmp_path))
    assert result.returncode == EXIT_SETUP, result.stderr
    assert "--emulate" in result.stderr
    assert not os.path.exists(tmp_path / "bundles"), "it built before checking for the GPU"


@pytest.mark.parametrize("arguments,message", [
    (["--models", "resnet50"], "unknown zoo model 'resnet50'"),
    (["--models", "cnn", "--dtypes", "fp16"], "no zoo model selected"),
    (["--dtypes", "fp8"], "unknown dtype 'fp8'"),
    (["--iters", "0"], "--iters: expected a positive integer"),
    (["--bogus"], "unknown argument '--bogus'"),
])
def test_bad_arguments_are_setup_errors(tmp_path, arguments, message):
    result = run_check("--emulate", "--work", str(tmp_path), *arguments)
    assert result.returncode == EXIT_SETUP, result.stderr
    assert message in result.stderr


def test_missing_bundle_fails_its_row(tmp_path):
    """A model whose bundle did not build is a failed row (exit 1) with its log's error line,
    and the other columns read n/a rather than crashing the table."""
    bundles = tmp_path / "bundles"
    bundles.mkdir()
    (bundles / "mlp.log").write_text("-- configuring\nerror: mlp.cu:12: something broke\n")
    out = tmp_path / "table.md"
    result = subprocess.run([sys.executable, TABLE, "--emulate", "--zoo", ZOO_DIR,
                             "--bundles", str(bundles), "--models", "mlp", "--dtypes", "fp32",
                             "--iters", "2", "--out", str(out)], capture_output=True, text=True)
    assert result.returncode == EXIT_FAILED, result.stderr
    table = out.read_text()
    assert table_row(table, "mlp", "fp32")[2:6] == ["n/a", "FAIL", "n/a", "n/a"]
    assert "- mlp fp32: not built: error: mlp.cu:12: something broke" in table


def test_table_format():
    """Ratios and geomeans skip what was not measured; compile failures become notes."""
    rows = [
        gpu_table.Row("mlp", "fp32", 1e-7, "ok", bundle_us=10.0, eager_us=40.0, compile_us=20.0,
                      graphs_us=8.0),
        gpu_table.Row("gpt", "bf16", 0.02, "ok (fp64 referee)", bundle_us=90.0, eager_us=90.0,
                      notes=["torch.compile: n/a (BackendCompilerFailed: x)"]),
        gpu_table.Row("cnn", "fp32", 0.5, "FAIL", notes=["case default output 0: mismatch"]),
    ]
    table = gpu_table.format_table(rows, emulate=False, header_lines=["# title"])
    assert table_row(table, "mlp", "fp32") == [
        "mlp", "fp32", "1e-07", "ok", "10.0", "40.0", "20.0", "0.25", "0.50", "8.0", "0.20"]
    assert table_row(table, "gpt", "bf16")[6:] == ["n/a", "1.00", "n/a", "n/a", "n/a"]
    assert table_row(table, "cnn", "fp32")[3:] == ["FAIL"] + ["n/a"] * 7
    # geomean of bundle/eager over mlp and gpt: sqrt(0.25 * 1.0) = 0.5; bundle/compile: mlp's.
    assert table_row(table, "geomean", "")[3:] == ["2/3 ok", "", "", "", "0.50", "0.50", "",
                                                   "0.20"]
    assert "- gpt bf16: torch.compile: n/a (BackendCompilerFailed: x)" in table
    assert "| model | dtype | max err vs eager (GPU) | ok | bundle µs | eager µs |" in table
