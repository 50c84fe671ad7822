"""The CMake package: `cmake --install` of the thunderc build into a fresh prefix, then a
separate CMake project (tests/package) that uses find_package(thunderc) and
thunderc_add_model() to compile a zoo model at build time, links two bundles into one program,
and runs it and the generated runner's golden check. Also: a rebuild does nothing, a newer model
file re-runs thunderc, changed OPTIONS re-run it after a re-configure, and bad arguments to
thunderc_add_model stop the configure with a message naming the argument."""
import os
import re
import subprocess

import pytest

from conftest import THUNDERC, ZOO_DIR, run

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PROJECT = os.path.join(REPO, "tests", "package")


def thunderc_build_dir():
    # THUNDERC_BIN is <build>/cli/thunderc
    return os.path.dirname(os.path.dirname(os.path.abspath(THUNDERC)))


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    prefix = tmp_path_factory.mktemp("prefix")
    run(["cmake", "--install", thunderc_build_dir(), "--prefix", str(prefix)])
    return prefix


def configure(prefix, build, model, *extra, check=True):
    command = ["cmake", "-S", PROJECT, "-B", str(build), "-G", "Ninja",
               "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_PREFIX_PATH={prefix}",
               f"-DMODEL={model}", *extra]
    if check:
        return run(command)
    return subprocess.run(command, capture_output=True, text=True)


def test_install_layout(prefix):
    assert os.access(prefix / "bin" / "thunderc", os.X_OK)
    package = next(prefix.glob("lib*/cmake/thunderc"))
    for name in ("thunderc-config.cmake", "thunderc-config-version.cmake",
                 "thunderc-targets.cmake", "ThundercAddModel.cmake"):
        assert (package / name).is_file(), name
    assert (prefix / "share" / "thunderc" / "runtime" / "thunderc_runtime.h").is_file()
    assert (prefix / "share" / "thunderc" / "kernels" / "tc_kernels.h").is_file()
    version = run([str(prefix / "bin" / "thunderc"), "--version"]).stdout
    assert re.match(r"thunderc \d+\.\d+\.\d+\n", version), version


def test_installed_thunderc_reads_torchscript(prefix, tmp_path):
    """The installed thunderc finds its TorchScript importer in lib/thunderc."""
    plugins = list(prefix.glob("lib*/thunderc/libthunderc_torchscript.so"))
    if not plugins:
        pytest.skip("built without the TorchScript importer")
    traced = os.path.join(ZOO_DIR, "mlp", "trace.pt")
    report = run([str(prefix / "bin" / "thunderc"), traced, "--emit", "report"]).stdout
    assert "0 unsupported" in report, report


def test_find_package_and_add_model(prefix, tmp_path):
    model = tmp_path / "mlp.pt2"
    model.write_bytes(open(os.path.join(ZOO_DIR, "mlp", "train.pt2"), "rb").read())
    build = tmp_path / "build"
    configure(prefix, build, model)
    out = run(["cmake", "--build", str(build)]).stdout
    for target in ("mlp", "second_model"):
        assert (build / f"{target}.thunderc" / "weights.bin").is_file()
    result = run([str(build / "service"), str(build / "mlp.thunderc" / "weights.bin"),
                  str(build / "second_model.thunderc" / "weights.bin")])
    assert "service: ok" in result.stdout
    # The runner target, with the bundle's weights as its default, against the zoo's goldens.
    run([str(build / "mlp.thunderc.build" / "mlp_run"), "--golden",
         os.path.join(ZOO_DIR, "mlp")])

    # Nothing changed: nothing to do (thunderc is not re-run on a rebuild). The steady state is
    # checked after one more build: a CMake re-check of the bundles' globbed runtime sources
    # right after the first build may still regenerate the build files once.
    run(["cmake", "--build", str(build)])
    again = run(["cmake", "--build", str(build)]).stdout
    assert "thunderc: compiling" not in again and "no work to do" in again, again

    # A newer model file: thunderc re-runs for both models that use it.
    os.utime(model, None)
    after_touch = run(["cmake", "--build", str(build)]).stdout
    assert after_touch.count("thunderc: compiling") == 2, after_touch

    # Other options for the first model: the re-configure re-runs thunderc for it alone, and
    # the bundle is the -O0 one.
    configure(prefix, build, model, "-DMODEL_OPTIONS=-O0")
    run(["cmake", "--build", str(build)])
    with open(build / "mlp.thunderc.args") as f:
        assert "-O0" in f.read().split("\n")
    with open(build / "second_model.thunderc.args") as f:
        assert "-O0" not in f.read().split("\n")
    run([str(build / "service"), str(build / "mlp.thunderc" / "weights.bin"),
         str(build / "second_model.thunderc" / "weights.bin")])


def test_add_model_errors(prefix, tmp_path):
    missing = configure(prefix, tmp_path / "b1", tmp_path / "absent.pt2", check=False)
    message = " ".join(missing.stderr.split())  # CMake wraps its messages
    assert missing.returncode != 0
    assert f"MODEL '{tmp_path / 'absent.pt2'}' does not exist" in message, message

    garbage = tmp_path / "garbage.pt2"
    garbage.write_bytes(b"not a zip archive")
    broken = configure(prefix, tmp_path / "b2", garbage, check=False)
    message = " ".join(broken.stderr.split())
    assert broken.returncode != 0
    assert "thunderc failed (exit 4)" in message and "garbage.pt2" in message, message
    assert not (tmp_path / "b2" / "mlp.thunderc").exists()


def test_example_service(prefix, tmp_path):
    """examples/service built against the installed package: 4 workers (one context each)
    answer 400 requests from a bounded queue, every response bit-identical to the
    single-threaded answer."""
    build = tmp_path / "service"
    model = os.path.join(ZOO_DIR, "mlp", "train.pt2")
    run(["cmake", "-S", os.path.join(REPO, "examples", "service"), "-B", str(build), "-G",
         "Ninja", "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_PREFIX_PATH={prefix}",
         f"-DMODEL={model}"])
    run(["cmake", "--build", str(build)])
    result = run([str(build / "service"), "--inputs",
                  os.path.join(ZOO_DIR, "mlp", "inputs", "input_0.npy"), "--workers", "4",
                  "--requests", "400", "--queue", "16"])
    print(result.stdout)
    assert re.search(r"400 requests, 4 workers x 1 thread\(s\), queue 16: [0-9.]+ requests/s, "
                     r"latency p50 [0-9.]+ ms, p99 [0-9.]+ ms; 0 mismatch\(es\)", result.stdout)
    bad = subprocess.run([str(build / "service"), "--inputs"], capture_output=True, text=True)
    assert bad.returncode == 2 and "the model takes 1 input(s), got 0 file(s)" in bad.stderr
