"""Per-op tests against PyTorch eager, for every op thunderc compiles, at both IR levels
(training IR from torch.export.export, core ATen from run_decompositions()), through

1. the reference interpreter (`thunderc X.pt2 --interpret`), and
2. a compiled bundle (`thunderc X.pt2 -o DIR`, built with -DTHUNDERC_BUNDLE_WERROR=ON, which
   proves the generated code is -Wall -Wextra -Werror clean, then run by its `<name>_run`), for
   the CPU target and for the CUDA target built against the CPU emulation of CUDA,

plus a coverage check: the union of the thunderc ops the suites import to must be the whole op
table of ir/ops.def (less OPS_NOT_PRODUCIBLE).

The cases live in tables in tests/ops/suites.py; output i of a suite is case i, so every
mismatch is reported by case name, all failing cases of a suite/level at once. Numeric policy:
tests/golden/tolerances.py (eager within fp32 tolerance, or the fp64 referee).

    THUNDERC_BIN=build/cli/thunderc python3 -m pytest -q -p no:cacheprovider tests/ops

Environment: THUNDERC_BIN (default build/cli/thunderc), THUNDERC_OPS_JOBS (parallel jobs of each
bundle build; default: the CPU count), THUNDERC_OPS_KEEP=DIR (export and build under DIR and keep
it, for debugging; default: a pytest temporary folder).
"""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tests" / "golden"))
import build_flags  # noqa: E402
import suites  # noqa: E402
from tolerances import compare, load_npy  # noqa: E402

LEVELS = list(suites.LEVELS)
SUITE_NAMES = list(suites.SUITES)
PARAMS = [(suite, level) for suite in SUITE_NAMES for level in suites.SUITES[suite].levels]
IDS = [f"{suite}-{level}" for suite, level in PARAMS]

# Ops of ir/ops.def that no PyTorch export at these IR levels can produce, so no suite can
# exercise them. Each entry says why.
OPS_NOT_PRODUCIBLE = {
    # Not an op: the placeholder the importer leaves for an ATen overload it has no mapping for
    # (reports list it; the interpreter and every backend refuse it by design).
    "aten_call",
    # Not imported: the optimizer's fuse/partition passes create it. Every -O2 bundle here and
    # in tests/e2e runs fusion kernels, and tests/lit/passes/fuse*.tir checks how they form.
    "fusion",
}


def _thunderc_path():
    path = Path(os.environ.get("THUNDERC_BIN", "build/cli/thunderc"))
    if not path.is_absolute() and not path.exists():
        path = REPO / path
    return path


@pytest.fixture(scope="session")
def thunderc():
    path = _thunderc_path()
    assert path.is_file(), f"thunderc binary not found at {path} (set THUNDERC_BIN)"
    return str(path)


@pytest.fixture(scope="session")
def work_dir(tmp_path_factory):
    keep = os.environ.get("THUNDERC_OPS_KEEP")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        return Path(keep)
    return tmp_path_factory.mktemp("ops")


class _Exports:
    """{suite: (folder with train.pt2, core.pt2, inputs/, expected/, expected_fp64/,
    manifest.json), manifest}, each suite exported once, when a test first asks for it (so
    `-k SUITE` exports only that suite)."""

    def __init__(self, root):
        self.root = root
        self.done = {}

    def __getitem__(self, name):
        if name not in self.done:
            torch_threads = suites.torch.get_num_threads()
            suites.torch.set_num_threads(1)  # reproducible expected outputs
            try:
                folder = suites.export_suite(suites.SUITES[name], self.root)
            finally:
                suites.torch.set_num_threads(torch_threads)
            self.done[name] = (folder, json.loads((folder / "manifest.json").read_text()))
        return self.done[name]

    def items(self):
        return [(name, self[name]) for name in suites.SUITES]


@pytest.fixture(scope="session")
def exported(work_dir):
    return _Exports(work_dir / "export")


def _run(command, **kwargs):
    return subprocess.run([str(c) for c in command], capture_output=True, text=True, **kwargs)


def _input_files(folder, manifest):
    return [folder / "inputs" / f"input_{i}.npy" for i in range(len(manifest["inputs"]))]


def _compare_outputs(suite, level, folder, manifest, output_files):
    """Compares every output with eager; returns the failure lines (empty when all pass)."""
    failures = []
    for i, case in enumerate(manifest["cases"]):
        label = f"{case['name']} (output {i}, {case['dtype']}{case['shape']})"
        try:
            actual = load_npy(output_files[i])
        except Exception as error:  # a missing or unreadable output is a failure of that case
            failures.append(f"{label}: cannot read the output: {error}")
            continue
        expected = load_npy(folder / "expected" / f"output_{i}.npy")
        reference = load_npy(folder / "expected_fp64" / f"output_{i}.npy")
        ok, err, how = compare(actual, expected, reference)
        if not ok:
            failures.append(f"{label}: max |thunderc - eager| = {err:.3g} ({how})")
    return failures


def _cases_named_in(text, manifest, level):
    """The cases of the nodes that an error message names ("node '%clamp_4'", "node 'max_1'");
    a name thunderc derived from an exported one (a '.'- or '_'-separated suffix) maps through
    its longest exported prefix."""
    owners = manifest["node_cases"][level]
    cases = []
    for node in re.findall(r"node '%?([\w.]+)'", text):
        name = node
        while name and name not in owners:
            name = re.sub(r"[._][^._]*$", "", name) if re.search(r"[._]", name) else ""
        for case in owners.get(name, []):
            if case not in cases:
                cases.append(case)
    return cases


def _whole_suite_failure(what, suite, level, manifest, result):
    cases = _cases_named_in(result.stderr + result.stdout, manifest, level)
    named = f"; the error names case(s): {', '.join(cases)}" if cases else ""
    return (f"{what} on {suite}/{level} exited {result.returncode}, so none of its "
            f"{len(manifest['cases'])} cases ran{named}:\n{result.stderr.strip()}")


def _failure_message(what, suite, level, manifest, failures):
    return (f"{what} {suite}/{level}: {len(failures)} of {len(manifest['cases'])} cases fail:\n  "
            + "\n  ".join(failures))


# --------------------------------------------------------------------------------------------
# 1. reference interpreter vs eager
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("suite,level", PARAMS, ids=IDS)
def test_interpreter_matches_eager(thunderc, exported, work_dir, suite, level):
    folder, manifest = exported[suite]
    out_dir = work_dir / "interpret" / suite / level
    out_dir.mkdir(parents=True, exist_ok=True)
    outputs = [out_dir / f"output_{i}.npy" for i in range(len(manifest["cases"]))]
    for stale in outputs:
        stale.unlink(missing_ok=True)
    result = _run([thunderc, folder / f"{level}.pt2", "--interpret",
                   "--inputs", ",".join(map(str, _input_files(folder, manifest))),
                   "--outputs", ",".join(map(str, outputs))])
    assert result.returncode == 0, _whole_suite_failure("thunderc --interpret", suite, level,
                                                        manifest, result)
    failures = _compare_outputs(suite, level, folder, manifest, outputs)
    assert not failures, _failure_message("interpreter", suite, level, manifest, failures)


# --------------------------------------------------------------------------------------------
# 2. compiled bundle vs eager
# --------------------------------------------------------------------------------------------


def _jobs():
    return os.environ.get("THUNDERC_OPS_JOBS") or str(max(2, os.cpu_count() or 2))


# Bundles are built for the CPU target and for the CUDA target run under the CPU emulation of
# CUDA (-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON: the same .cu nvcc compiles, every generated kernel
# and tcg:: library call executed with CUDA semantics), so each case checks both code paths.
# CPU bundles build their kernels once (no AVX-512/AVX2 clones: the same source, a third of the
# compile time); tests/e2e/test_bundles.py covers the dispatched build.
TARGETS = {"cpu": ["-DTHUNDERC_BUNDLE_CPU_DISPATCH=OFF", *build_flags.OUTPUT_TEST_CPU],
           "cuda": ["-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON", *build_flags.OUTPUT_TEST_CUDA_EMULATED]}
BUNDLE_PARAMS = [(suite, level, target) for suite, level in PARAMS for target in TARGETS
                 if target in suites.SUITES[suite].targets]
BUNDLE_IDS = [f"{suite}-{level}-{target}" for suite, level, target in BUNDLE_PARAMS]


@pytest.mark.parametrize("suite,level,target", BUNDLE_PARAMS, ids=BUNDLE_IDS)
def test_bundle_matches_eager(thunderc, exported, work_dir, suite, level, target):
    folder, manifest = exported[suite]
    name = f"ops_{suite}_{level}"
    bundle = work_dir / "bundles" / target / name
    build = bundle / "build"
    result = _run([thunderc, folder / f"{level}.pt2", "-o", bundle, "--name", name,
                   "--golden", folder, "--target", target,
                   *(["--cuda-emulation"] if target == "cuda" else [])])
    assert result.returncode == 0, _whole_suite_failure("thunderc -o", suite, level, manifest,
                                                        result)

    cmake_lists = (bundle / "CMakeLists.txt").read_text()
    if not re.search(rf"add_executable\(\s*{name}_run\b", cmake_lists):
        pytest.skip(f"the bundle's CMakeLists.txt declares no runner target '{name}_run' "
                    "(the bundle runner is not part of this build yet)")

    configure = _run(["cmake", "-S", bundle, "-B", build, "-DTHUNDERC_BUNDLE_WERROR=ON",
                      *TARGETS[target]])
    assert configure.returncode == 0, (
        f"cmake configure of the {suite}/{level} bundle failed:\n{configure.stdout}\n"
        f"{configure.stderr}")
    compiled = _run(["cmake", "--build", build, "-j", _jobs()])
    assert compiled.returncode == 0, (
        f"building the {suite}/{level} bundle with -DTHUNDERC_BUNDLE_WERROR=ON failed:\n"
        f"{compiled.stdout[-20000:]}\n{compiled.stderr[-20000:]}")
    runner = build / f"{name}_run"
    assert runner.is_file(), f"the build did not produce the runner {runner}"

    out_dir = work_dir / "bundle_outputs" / target / suite / level
    out_dir.mkdir(parents=True, exist_ok=True)
    outputs = [out_dir / f"output_{i}.npy" for i in range(len(manifest["cases"]))]
    for stale in outputs:
        stale.unlink(missing_ok=True)
    run = _run([runner, "--inputs", *_input_files(folder, manifest), "--outputs", *outputs])
    assert run.returncode == 0, _whole_suite_failure(runner.name, suite, level, manifest, run)
    failures = _compare_outputs(suite, level, folder, manifest, outputs)
    assert not failures, _failure_message("bundle", suite, level, manifest, failures)

    # The bundle's own golden test (the runner's copy of the tolerance policy) agrees.
    golden = _run([runner, "--golden", bundle / "golden"])
    if golden.returncode != 0:
        names = [case["name"] for case in manifest["cases"]]
        lines = [re.sub(r"^output (\d+):", lambda m: f"{names[int(m.group(1))]} (output "
                        f"{m.group(1)}):", line)
                 for line in golden.stdout.splitlines() if "OK" not in line.split()]
        pytest.fail(f"{runner.name} --golden exited {golden.returncode} although every output "
                    "passed tests/golden/tolerances.py:\n  " + "\n  ".join(lines)
                    + f"\n{golden.stderr}")


# --------------------------------------------------------------------------------------------
# 3. coverage: every op of ir/ops.def is exercised
# --------------------------------------------------------------------------------------------


def _op_table():
    text = (REPO / "ir" / "ops.def").read_text()
    ops = re.findall(r'^\s*TC_(?:OP|UNARY|BINARY)\(\s*\w+\s*,\s*"(\w+)"', text, flags=re.MULTILINE)
    assert len(ops) > 50, f"parsed only {len(ops)} ops from ir/ops.def"
    return ops


def test_every_op_is_exercised(thunderc, exported):
    used = {}
    problems = []
    for suite, (folder, manifest) in exported.items():
        for level in suites.SUITES[suite].levels:
            result = _run([thunderc, folder / f"{level}.pt2", "--emit=report-json"])
            if result.returncode != 0:
                problems.append(_whole_suite_failure("thunderc --emit=report-json", suite, level,
                                                     manifest, result)
                                + "\n  (the ops of this suite/level are not counted below)")
                continue
            report = json.loads(result.stdout)
            for node in report["unsupported"]:
                cases = _cases_named_in(f"node '{node['name']}'", manifest, level)
                problems.append(f"{suite}/{level}: node '{node['name']}' ({node['target']}, "
                                f"case(s) {', '.join(cases) or '?'}) is not compiled: "
                                f"{node['reason']}")
            if len(report["outputs"]) != len(manifest["cases"]):
                problems.append(f"{suite}/{level}: {len(report['outputs'])} graph outputs for "
                                f"{len(manifest['cases'])} cases")
            for node in report["nodes"]:
                for op in node["thunderc_ops"]:
                    used.setdefault(op, set()).add(f"{suite}/{level}")
            # Ops an optimizer pass makes from imported ones (linear_wq from a dequantize +
            # linear) exist only in the compiled graph; the fusion wrapper itself stays excluded.
            for node in report["compiled"]["nodes"]:
                inner = [entry["op"] for entry in node.get("inside", [])]
                for op in [node["op"], *inner]:
                    if op not in OPS_NOT_PRODUCIBLE:
                        used.setdefault(op, set()).add(f"{suite}/{level}")
    ops = _op_table()
    stale = OPS_NOT_PRODUCIBLE - set(ops)
    assert not stale, f"OPS_NOT_PRODUCIBLE names ops that ir/ops.def no longer has: {stale}"
    missing = [op for op in ops if op not in used and op not in OPS_NOT_PRODUCIBLE]
    unknown = sorted(set(used) - set(ops))
    if missing:
        problems.append(f"ops of ir/ops.def that no suite exercises: {missing}")
    assert not problems, "\n".join(problems)
    assert not unknown, f"the reports name ops that ir/ops.def does not declare: {unknown}"
    exercised_anyway = sorted(OPS_NOT_PRODUCIBLE & set(used))
    assert not exercised_anyway, (
        f"{exercised_anyway} are in OPS_NOT_PRODUCIBLE but a suite produces them; update the "
        "allowlist")


def test_case_tables_are_well_formed():
    for suite in suites.SUITES.values():
        names = suite.case_names()
        assert len(names) == len(set(names)), f"{suite.name}: duplicate case names"
        assert all(re.fullmatch(r"[a-z0-9_]+", n) for n in names), f"{suite.name}: odd names"
