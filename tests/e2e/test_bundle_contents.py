"""What a bundle ships: a CPU bundle has the runtime and the CPU kernel headers only; a CUDA
bundle the CUDA kernel headers, and the CPU emulation of CUDA only with --cuda-emulation (a
bundle without it refuses -DTHUNDERC_BUNDLE_CUDA_EMULATE=ON with a message saying how to get
it). Neither carries compiler-only files such as the weights writer."""
import os
import subprocess

import pytest

from conftest import ZOO_DIR, compile_bundle

MLP = os.path.join(ZOO_DIR, "mlp", "train.pt2")
RUNTIME = {"runtime/" + name for name in (
    "CMakeLists.txt", "arena.cpp", "arena.h", "crc32.cpp", "crc32.h", "npy.cpp", "npy.h",
    "runner.cpp", "runner.h", "thread_pool.cpp", "thread_pool.h", "thunderc_runtime.cpp",
    "thunderc_model_api.h", "thunderc_runtime.h", "weights.cpp",
    "weights.h", "weights_format.h")}


def shipped(out):
    return {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()}


def kernels(files):
    return {f[len("kernels/"):] for f in files if f.startswith("kernels/")}


@pytest.fixture(scope="module")
def mlp():
    if not os.path.isfile(MLP):
        pytest.skip("zoo model mlp not exported")
    return MLP


def test_cpu_bundle_ships_runtime_and_cpu_kernels_only(mlp, tmp_path):
    out = tmp_path / "cpu"
    compile_bundle(mlp, out, "mlp")
    files = shipped(out)
    assert {f for f in files if f.startswith("runtime/")} == RUNTIME
    assert kernels(files) == {"tc_math.h", "tc_random.h", "tc_model_common.h", "tc_model_base.h",
                              "tc_kernels.h", "tc_kernels_common.h", "tc_kernels_linalg.h",
                              "tc_kernels_nn.h", "tc_kernels_pool.h", "tc_kernels_qgemm.h",
                              "tc_kernels_quant.h", "tc_kernels_reduce.h", "tc_kernels_sgemm.h",
                              "tc_kernels_shape.h", "tc_kernels_sort.h", "tc_lapack.h",
                              "tc_parallel.h"}
    assert files - RUNTIME - {"kernels/" + k for k in kernels(files)} == {
        ".thunderc-bundle", "CMakeLists.txt", "README.md", "mlp.h", "mlp.cpp", "mlp_run.cpp",
        "weights.bin"}


def test_cuda_bundle_ships_the_emulation_only_when_asked(mlp, tmp_path):
    plain = tmp_path / "plain"
    compile_bundle(mlp, plain, "mlp", extra=["--target", "cuda"])
    plain_kernels = kernels(shipped(plain))
    assert {"tc_cuda_lib.h", "tc_cuda_model.h", "tc_model_common.h", "tc_math.h"} <= plain_kernels
    assert "tc_model_base.h" not in plain_kernels
    assert not [k for k in plain_kernels if k.startswith(("tc_kernels", "tc_cuda_emu"))]
    emulated = tmp_path / "emulated"
    compile_bundle(mlp, emulated, "mlp", extra=["--target", "cuda", "--cuda-emulation"])
    added = kernels(shipped(emulated)) - plain_kernels
    assert added and all(k.startswith("tc_cuda_emu") for k in added)
    assert "tc_cuda_emu.h" in added
    # Asking the plain bundle for the emulation fails at configure time, saying what to do.
    result = subprocess.run(["cmake", "-S", str(plain), "-B", str(plain / "build"),
                             "-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON"], capture_output=True, text=True)
    assert result.returncode != 0
    assert "thunderc --target cuda --cuda-emulation" in result.stderr, result.stderr


def test_cuda_emulation_needs_the_cuda_target(mlp, tmp_path):
    result = subprocess.run([os.environ.get("THUNDERC_BIN", "build/cli/thunderc"), mlp, "-o",
                             str(tmp_path / "out"), "--cuda-emulation"],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert "--cuda-emulation needs --target cuda" in result.stderr
    assert not (tmp_path / "out").exists()
