"""Fixtures for end-to-end bundle tests: thunderc, the zoo, and a bundle builder."""
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden"))

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


def build_bundle(out_dir, extra=()):
    """Configures and builds a bundle with warnings as errors; returns the build dir."""
    build = os.path.join(str(out_dir), "build")
    run(["cmake", "-S", str(out_dir), "-B", build, "-G", "Ninja",
         "-DTHUNDERC_BUNDLE_WERROR=ON", *extra])
    run(["cmake", "--build", build, "-j", str(os.cpu_count() or 2)])
    return build


@pytest.fixture(scope="session")
def thunderc():
    assert os.path.isfile(THUNDERC), f"thunderc binary not found at {THUNDERC}"
    return THUNDERC
