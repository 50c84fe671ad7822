"""Numerical bisect without Python in the loop: tools/dump_intermediates.py writes PyTorch's
value of every FX node, and a bundle's `<name>_run --bisect DIR` compares each value its run
writes with them and names the first that differs, with its op and Python source line.

A correct bundle passes. A bundle compiled with `--debug-perturb NODE` (a deliberately wrong
kernel: the value of NODE gets its first element + 1 after the kernel that writes it) fails,
and the bisect must name exactly NODE and its source line, on the CPU and under the CUDA
emulation."""
import os
import re
import subprocess
import sys

import pytest

from conftest import ZOO_DIR, build_bundle, compile_bundle, run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DUMP = os.path.join(ROOT, "tools", "dump_intermediates.py")

# A model of each kind: linear layers, convolutions with batch norm, a transformer block.
MODELS = ["mlp", "cnn", "transformer", "gpt"]


def model_dir(model):
    path = os.path.join(ZOO_DIR, model)
    if not os.path.isfile(os.path.join(path, "train.pt2")):
        pytest.skip(f"{model} is not exported (models/export_zoo.py)")
    return path


def dump(model, out):
    path = model_dir(model)
    run([sys.executable, DUMP, os.path.join(path, "train.pt2"), "--golden", path,
         "--out", str(out)])
    return out


def bisect(runner, reference):
    return subprocess.run([runner, "--bisect", str(reference)], capture_output=True, text=True)


def compared(output):
    """(index, name, verdict) of every value line of a bisect report."""
    return re.findall(r"^bisect: value (\d+) '([^']+)' \([^)]*\): (?:max_abs_error=\S+ )?(\w[\w ]*)$",
                      output, re.M)


@pytest.fixture(scope="module")
def references(tmp_path_factory):
    root = tmp_path_factory.mktemp("bisect_references")
    return {model: dump(model, root / model) for model in MODELS if
            os.path.isfile(os.path.join(ZOO_DIR, model, "train.pt2"))}


@pytest.fixture(scope="module")
def cpu_runner(tmp_path_factory):
    """The runner of the model's CPU bundle, compiled once per module."""
    runners = {}

    def get(model):
        if model not in runners:
            out = tmp_path_factory.mktemp(f"bisect_{model}")
            compile_bundle(os.path.join(model_dir(model), "train.pt2"), out / "b", model)
            runners[model] = os.path.join(build_bundle(out / "b"), f"{model}_run")
        return runners[model]
    return get


@pytest.mark.parametrize("model", MODELS)
def test_correct_bundle_passes(model, references, cpu_runner):
    if model not in references:
        pytest.skip(f"{model} is not exported")
    reference = references[model]
    values = os.listdir(os.path.join(reference, "values"))
    assert values, "dump_intermediates wrote no values"
    result = bisect(cpu_runner(model), reference)
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = compared(result.stdout)
    checked = [line for line in lines if line[2] == "OK"]
    # Most of what the bundle writes is compared, not skipped for want of a reference.
    assert len(checked) >= 3 and len(checked) >= len(lines) // 2, result.stdout
    assert result.stdout.rstrip().endswith("bisect: PASS")


def perturbed_run(model, reference, tmp_path, clean_runner=None, target_args=()):
    """Picks a value in the middle of what the bundle writes, compiles the model with it
    perturbed, and returns (name, the bisect's result)."""
    pt2 = os.path.join(ZOO_DIR, model, "train.pt2")
    cmake_extra = ["-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON"] if target_args else []
    if clean_runner is None:
        compile_bundle(pt2, tmp_path / "clean", model, extra=target_args)
        clean_runner = os.path.join(build_bundle(tmp_path / "clean", cmake_extra), f"{model}_run")
    clean = bisect(clean_runner, reference)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    ok = [name for _, name, verdict in compared(clean.stdout) if verdict == "OK"]
    victim = ok[len(ok) // 2]
    compile_bundle(pt2, tmp_path / "wrong", model, extra=[*target_args, "--debug-perturb", victim])
    runner = os.path.join(build_bundle(tmp_path / "wrong", cmake_extra), f"{model}_run")
    return victim, bisect(runner, reference)


def check_names_victim(victim, result, source_file):
    print(result.stdout)
    assert result.returncode == 1, result.stdout + result.stderr
    lines = compared(result.stdout)
    first = next(name for _, name, verdict in lines if verdict == "DIFFERS")
    assert first == victim
    # Every value before it matched.
    before = [verdict for _, name, verdict in lines[:[n for _, n, _ in lines].index(victim)]]
    assert all(verdict in ("OK", "no reference") for verdict in before)
    report = result.stdout[result.stdout.index("bisect: first difference"):]
    assert f"'{victim}'" in report
    # Its Python source line, from the exported program's stack trace.
    assert re.search(rf"at \S*{source_file}:\d+: \S", report), report
    assert "largest at [" in report and "got " in report
    assert result.stdout.rstrip().endswith("bisect: FAIL")


def test_bisect_names_the_wrong_kernel(references, cpu_runner, tmp_path):
    victim, result = perturbed_run("transformer", references["transformer"], tmp_path,
                                   cpu_runner("transformer"))
    check_names_victim(victim, result, "zoo.py")


def test_bisect_names_the_wrong_kernel_cuda_emulation(references, tmp_path):
    victim, result = perturbed_run("mlp", references["mlp"], tmp_path,
                                   target_args=["--target", "cuda", "--cuda-emulation"])
    check_names_victim(victim, result, "zoo.py")


def test_debug_perturb_unknown_value(thunderc, tmp_path):
    result = subprocess.run([thunderc, os.path.join(model_dir("mlp"), "train.pt2"), "-o",
                             str(tmp_path / "b"), "--debug-perturb", "no_such_node"],
                            capture_output=True, text=True)
    assert result.returncode == 2, result.stderr
    assert "--debug-perturb: no value named 'no_such_node'" in result.stderr
    assert not os.path.exists(tmp_path / "b")


def test_bisect_errors(references, cpu_runner, tmp_path):
    runner = cpu_runner("mlp")
    missing = bisect(runner, tmp_path / "nowhere")
    assert missing.returncode == 3
    assert "nowhere/values does not exist" in missing.stderr
    assert "dump_intermediates.py" in missing.stderr
    mixed = subprocess.run([runner, "--bisect", str(references["mlp"]), "--inputs", "a.npy"],
                           capture_output=True, text=True)
    assert mixed.returncode == 2
    assert "--bisect cannot be combined with" in mixed.stderr
    # A damaged reference is an error naming the file, not a verdict.
    damaged = tmp_path / "damaged"
    run(["cp", "-r", str(references["mlp"]), str(damaged)])
    victim = compared(bisect(runner, references["mlp"]).stdout)[0][1]
    (damaged / "values" / f"{victim}.npy").write_bytes(b"\x93NUMPY garbage")
    result = bisect(runner, damaged)
    assert result.returncode == 3, result.stdout + result.stderr
    assert victim in result.stderr
