"""The CUDA kernels thunderc generates for every zoo model (both IR levels, -O2) compile: with
NVRTC in-process (`thunderc --verify`, skipped when thunderc was built without NVRTC), and, for
the models holding every kernel kind, as one translation unit with nvcc (skipped without
nvcc). Nothing runs on a GPU here."""
import os
import re
import shutil
import subprocess

import pytest

from conftest import ZOO_DIR, run
from test_bundles import manifest, zoo_models

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
# The CUDA kernel headers and the scalar layer they include (tc_math.h).
KERNELS_DIR = os.path.join(ROOT, "backend_cuda", "kernels")
SCALAR_DIR = os.path.join(ROOT, "runtime", "kernels")
EXIT_UNSUPPORTED = 5


def model_file(model, level):
    return os.path.join(ZOO_DIR, model, manifest(model)["levels"][level]["file"])


@pytest.mark.parametrize("model,level", [(m, l) for m in zoo_models() for l in ["train", "core"]])
def test_verify_with_nvrtc(thunderc, model, level):
    result = subprocess.run([thunderc, model_file(model, level), "-O2", "--verify"],
                            capture_output=True, text=True)
    if result.returncode == EXIT_UNSUPPORTED and "built without NVRTC" in result.stderr:
        pytest.skip("thunderc was built without NVRTC")
    assert result.returncode == 0, f"{model} {level}:\n{result.stdout}\n{result.stderr}"
    summary = re.search(r"verify: (\d+) kernel\(s\), (\d+) failed", result.stdout)
    assert summary, result.stdout
    print(f"{model} {level}: {summary.group(0)}")
    assert summary.group(2) == "0"


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found")
@pytest.mark.parametrize("model", ["ops", "gpt"])
def test_nvcc_compiles_emitted_cuda(thunderc, tmp_path, model):
    """ops holds reduction and elementwise kernels, gpt elementwise and epilogue ones (with a
    -inf constant, spelled tc::infinity<double>() so that device code needs no extra flag)."""
    if model not in zoo_models():
        pytest.skip(f"zoo model {model} not exported")
    source = tmp_path / f"{model}.cu"
    source.write_text(run([thunderc, model_file(model, "core"), "-O2", "--emit=cuda"]).stdout)
    result = run(["nvcc", "-c", "-arch=sm_80", "-std=c++17",
                  "-Werror=all-warnings", "-I", KERNELS_DIR, "-I", SCALAR_DIR,
                  str(source),
                  "-o", str(tmp_path / f"{model}.o")])
    assert os.path.getsize(tmp_path / f"{model}.o") > 0, result.stderr


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found")
def test_nvcc_compiles_integer_extremum_kernels(thunderc, tmp_path):
    """Integer amax/amin kernels start from the type's limits; std::numeric_limits is not
    callable from device code under plain nvcc (NVRTC's own headers allow it, so --verify
    alone would not notice)."""
    tir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lit", "cuda", "Inputs",
                       "integer_extrema.tir")
    source = tmp_path / "integer_extrema.cu"
    source.write_text(run([thunderc, tir, "-O2", "--emit=cuda"]).stdout)
    assert "reduction" in source.read_text()
    run(["nvcc", "-c", "-arch=sm_80", "-std=c++17", "-Werror=all-warnings", "-I", KERNELS_DIR,
         "-I", SCALAR_DIR, str(source), "-o", str(tmp_path / "integer_extrema.o")])
