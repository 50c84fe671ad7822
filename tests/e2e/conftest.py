"""Fixtures for end-to-end bundle tests: thunderc, the zoo, and a bundle builder."""
import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden"))
from build_flags import output_test_flags  # noqa: E402

ZOO_DIR = os.environ.get("THUNDERC_ZOO_DIR", "build/models")
THUNDERC = os.environ.get("THUNDERC_BIN", "build/cli/thunderc")


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, command))} exited {result.returncode}:\n"
                             f"{result.stdout[-4000:]}\n{result.stderr[-4000:]}")
    return result


def compile_bundle(pt2, out_dir, name, golden=None, extra=()):
    command = [THUNDERC, str(pt2), "-o", str(out_dir), "--name", name, *extra]
    if golden:
        command += ["--golden", str(golden)]
    run(command)


def build_bundle(out_dir, extra=(), cpu_dispatch=False):
    """Configures and builds a bundle with warnings as errors; returns the build dir.

    CPU bundles compile their kernels once per dispatch target (AVX-512, AVX2, baseline) by
    default; tests build them once (THUNDERC_BUNDLE_CPU_DISPATCH=OFF: the same source, a third
    of the compile time) and at the output tests' optimization level (build_flags.py) unless
    `cpu_dispatch`, which test_bundles.py and the golden tests keep on so that the shipped,
    dispatched Release build stays covered."""
    build = os.path.join(str(out_dir), "build")
    output_test = [] if cpu_dispatch else ["-DTHUNDERC_BUNDLE_CPU_DISPATCH=OFF",
                                           *output_test_flags(extra)]
    run(["cmake", "-S", str(out_dir), "-B", build, "-G", "Ninja",
         "-DTHUNDERC_BUNDLE_WERROR=ON", *output_test, *extra])
    run(["cmake", "--build", build, "-j", str(os.cpu_count() or 2)])
    return build


def exported_models(root):
    """The models export_zoo.py wrote under `root` (folders with a manifest.json), sorted."""
    if not os.path.isdir(root):
        return []
    return sorted(name for name in os.listdir(root)
                  if os.path.isfile(os.path.join(root, name, "manifest.json")))


def read_manifest(root, model):
    with open(os.path.join(root, model, "manifest.json")) as f:
        return json.load(f)


def check_cases(runner, model_dir, cases, tmp_path, label, compare, load_npy):
    """Runs every manifest case through a bundle's runner and checks each output with
    `compare` (the tolerance policy); returns {(case, output index): output tensor}."""
    outputs_by_case = {}
    for case in cases:
        outputs = [str(tmp_path / f"{case['name']}_{i}.npy") for i in range(len(case["expected"]))]
        run([runner, "--inputs", *[os.path.join(model_dir, p) for p in case["inputs"]],
             "--outputs", *outputs])
        for i, path in enumerate(outputs):
            actual = load_npy(path)
            outputs_by_case[(case["name"], i)] = actual
            ok, err, how = compare(actual, load_npy(os.path.join(model_dir, case["expected"][i])),
                                   load_npy(os.path.join(model_dir, case["expected_fp64"][i])))
            print(f"{label} {case['name']} output {i}: max error {err:.3g} ({how})")
            assert ok, f"{label} {case['name']} output {i}: max error {err:.3g} ({how})"
    return outputs_by_case


@pytest.fixture(scope="session")
def thunderc():
    assert os.path.isfile(THUNDERC), f"thunderc binary not found at {THUNDERC}"
    return THUNDERC
