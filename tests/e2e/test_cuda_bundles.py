"""`thunderc --target cuda` bundles of every zoo model (fp32 and the fp16/bf16 variants, -O2).

No GPU runs here, so each bundle is checked twice:
  * nvcc + cuBLAS: the bundle's CMake project (CUDA language) configures, compiles with
    -Werror=all-warnings and links its runner, for sm_80 (the default "80-real;90" once);
  * the CPU emulation of CUDA (-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON, kernels/tc_cuda_emu.h): the
    same .cu built by the host compiler and RUN — every generated kernel, tcg:: library call
    and cuBLAS call executes with CUDA semantics (threads, barriers, warp shuffles, column-major
    GEMMs) — and every case's outputs are compared with PyTorch eager by the golden policy.
"""
import os
import re
import shutil
import subprocess
import time

import pytest

from compare import compare, load_npy
from conftest import ZOO_DIR, build_bundle, compile_bundle, run
from test_bundles import manifest, zoo_models

HAVE_NVCC = shutil.which("nvcc") is not None
# CI installs nvcc's companions and must build with it: there a missing nvcc fails instead of
# silently skipping the nvcc half of this file.
if os.environ.get("CI") == "true" and not HAVE_NVCC:
    raise RuntimeError("CI: nvcc not found, the CUDA bundles cannot be built")


def cuda_bundle(thunderc, tmp_path, model, level="train", opt="-O2", emulation=True):
    """The CUDA bundle of a zoo model; with `emulation`, it also carries the CPU emulation of
    CUDA (thunderc --cuda-emulation), which the emulated builds need."""
    model_dir = os.path.join(ZOO_DIR, model)
    out = tmp_path / "out"
    compile_bundle(os.path.join(model_dir, manifest(model)["levels"][level]["file"]), out, model,
                   golden=model_dir,
                   extra=[opt, "--target", "cuda", *(["--cuda-emulation"] if emulation else [])])
    return out


@pytest.mark.skipif(not HAVE_NVCC, reason="nvcc not found")
@pytest.mark.parametrize("model", zoo_models())
def test_cuda_bundle_compiles_and_links_with_nvcc(thunderc, tmp_path, model):
    start = time.monotonic()
    # A deployable bundle: no emulation headers, and nvcc needs none.
    out = cuda_bundle(thunderc, tmp_path, model, emulation=False)
    assert not list((out / "kernels").glob("tc_cuda_emu*.h"))
    # One architecture keeps CI time down; the default pair is built for mlp below.
    build = build_bundle(out, ["-DCMAKE_CUDA_ARCHITECTURES=80-real"])
    runner = os.path.join(build, f"{model}_run")
    assert os.access(runner, os.X_OK)
    linked = run(["ldd", runner]).stdout
    assert "libcublas" in linked and "libcudart" in linked, linked
    print(f"{model}: nvcc build {time.monotonic() - start:.1f} s")


@pytest.mark.skipif(not HAVE_NVCC, reason="nvcc not found")
def test_default_architectures_are_sm80_sm90_and_ptx(thunderc, tmp_path):
    """Without -DCMAKE_CUDA_ARCHITECTURES the bundle carries sm_80 and sm_90 machine code and
    compute_90 PTX (which newer GPUs JIT); checked on the nvcc command line CMake generates."""
    if "mlp" not in zoo_models():
        pytest.skip("zoo model mlp not exported")
    out = cuda_bundle(thunderc, tmp_path, "mlp")
    build = os.path.join(str(out), "build")
    run(["cmake", "-S", str(out), "-B", build, "-G", "Ninja"])
    with open(os.path.join(build, "build.ninja")) as f:
        flags = f.read()
    assert "arch=compute_80,code=[sm_80]" in flags, "no sm_80 code"
    assert "arch=compute_90,code=[compute_90,sm_90]" in flags, "no sm_90 code + compute_90 PTX"


@pytest.mark.parametrize("model", zoo_models())
def test_emulated_cuda_bundle_matches_eager(thunderc, tmp_path, model):
    info = manifest(model)
    model_dir = os.path.join(ZOO_DIR, model)
    start = time.monotonic()
    out = cuda_bundle(thunderc, tmp_path, model)
    build = build_bundle(out, ["-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON"])
    print(f"{model}: emulated build {time.monotonic() - start:.1f} s")
    run(["ctest", "--test-dir", build, "--output-on-failure"])
    runner = os.path.join(build, f"{model}_run")
    # Threads of a block run in reverse order too: a missing __syncthreads shows up whichever
    # side of the race the writer is on.
    reverse = dict(os.environ, TC_EMU_THREAD_ORDER="reverse")
    run([runner, "--golden", str(out / "golden")], env=reverse)
    for case in info["cases"]:
        outputs = [str(tmp_path / f"{case['name']}_{i}.npy") for i in range(len(case["expected"]))]
        run([runner, "--inputs", *[os.path.join(model_dir, p) for p in case["inputs"]],
             "--outputs", *outputs])
        for i, path in enumerate(outputs):
            ok, err, how = compare(load_npy(path),
                                   load_npy(os.path.join(model_dir, case["expected"][i])),
                                   load_npy(os.path.join(model_dir, case["expected_fp64"][i])))
            print(f"{model} cuda-emulated {case['name']} output {i}: max error {err:.3g} ({how})")
            assert ok, f"{model} {case['name']} output {i}: max error {err:.3g} ({how})"
        # The same run as a CUDA graph: captured by the warmup run, replayed by the next, with
        # outputs identical to the plain run's bit for bit.
        graphed = [str(tmp_path / f"{case['name']}_graph_{i}.npy")
                   for i in range(len(case["expected"]))]
        result = run([runner, "--inputs", *[os.path.join(model_dir, p) for p in case["inputs"]],
                      "--outputs", *graphed, "--cuda-graphs", "4", "--warmup", "1"])
        assert "cuda_graphs: captures=1 replays=1 evictions=0" in result.stderr, result.stderr
        for plain, graph in zip(outputs, graphed):
            with open(plain, "rb") as a, open(graph, "rb") as b:
                assert a.read() == b.read(), f"{model} {case['name']}: the graph's output differs"


@pytest.mark.parametrize("model", [m for m in ["gpt", "resnet", "ops"] if m in zoo_models()])
def test_emulated_unoptimized_core_ir_bundle_matches_eager(thunderc, tmp_path, model):
    """-O0 core IR: every elementwise op its own kernel, views materialized by tcg copies,
    no memory plan (one arena slot per value) — the paths -O2 bundles do not take."""
    out = cuda_bundle(thunderc, tmp_path, model, level="core", opt="-O0")
    build = build_bundle(out, ["-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON"])
    run(["ctest", "--test-dir", build, "--output-on-failure"])


@pytest.fixture(scope="module")
def emulated_mlp(thunderc, tmp_path_factory):
    if "mlp" not in zoo_models():
        pytest.skip("zoo model mlp not exported")
    out = cuda_bundle(thunderc, tmp_path_factory.mktemp("mlp"), "mlp")
    return build_bundle(out, ["-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON"])


def mlp_inputs():
    case = manifest("mlp")["cases"][0]
    return [os.path.join(ZOO_DIR, "mlp", p) for p in case["inputs"]]


def test_emulated_runner_times_device_resident_runs(emulated_mlp):
    """--iters goes through <name>_time_runs (CUDA events around device-resident runs)."""
    result = run([os.path.join(emulated_mlp, "mlp_run"), "--inputs", *mlp_inputs(),
                  "--iters", "3"])
    lines = result.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("median_us="), result.stdout
    assert float(lines[0].split("=")[1]) >= 0


def test_device_allocation_failure_is_a_device_status(emulated_mlp):
    """A failing cudaMalloc (the emulation's TC_EMU_FAIL_MALLOC) is TC_ERROR_DEVICE naming the
    model base's file and line, the entry point and the call; the runner exits 3 and crashes
    nothing."""
    env = dict(os.environ, TC_EMU_FAIL_MALLOC="1")
    result = subprocess.run([os.path.join(emulated_mlp, "mlp_run"), "--inputs", *mlp_inputs(),
                             "--outputs", os.devnull], capture_output=True, text=True, env=env)
    assert result.returncode == 3, result.stderr
    assert "TC_ERROR_DEVICE" in result.stderr and "cudaMalloc failed" in result.stderr, result.stderr
    assert "tc_cuda_model.h:" in result.stderr, result.stderr


def test_out_of_range_token_is_reported_after_the_run(thunderc, tmp_path):
    """An embedding index outside the table cannot stop a kernel: tcg zeroes the row and sets
    the context's device flag, which <name>_synchronize (called by run_host) turns into
    TC_ERROR_INVALID_ARGUMENT; the runner exits 3."""
    if "gpt" not in zoo_models():
        pytest.skip("zoo model gpt not exported")
    import numpy as np
    out = cuda_bundle(thunderc, tmp_path, "gpt")
    build = build_bundle(out, ["-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON"])
    tokens = np.load(os.path.join(ZOO_DIR, "gpt", manifest("gpt")["cases"][0]["inputs"][0]))
    tokens[0, 3] = 1 << 40
    bad = tmp_path / "bad_tokens.npy"
    np.save(bad, tokens)
    result = subprocess.run([os.path.join(build, "gpt_run"), "--inputs", str(bad), "--outputs",
                             str(tmp_path / "y.npy")], capture_output=True, text=True)
    assert result.returncode == 3, result.stderr
    assert "TC_ERROR_INVALID_ARGUMENT" in result.stderr, result.stderr
    assert re.search(r"node [^ ]+ \(embedding\): index 1099511627776 at position 3 of "
                     r"the indices is out of range: valid indices are 0 to \d+", result.stderr), \
        result.stderr
