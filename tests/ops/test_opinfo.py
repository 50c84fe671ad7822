"""PyTorch's OpInfo database as the live record of what thunderc compiles.

Every OpInfo of torch.testing._internal.common_methods_invocations.op_db, its first float32
samples (tests/ops/opinfo.py wraps each in a module whose inputs are the sample's tensors),
exported at both IR levels (training IR and core ATen), runs

1. through the reference interpreter (`thunderc X.pt2 --interpret`), one program per sample;
2. in CPU bundles: the samples that pass 1 grouped into a few multi-output programs per level,
   each compiled (`thunderc -o`), built and run;

and is compared with eager (tests/golden/tolerances.py). The OpInfos that do not pass yet are
listed in tests/ops/opinfo_expected.py with the reason; the list only shrinks (an OpInfo that
now passes fails the test until it is removed), and the test prints the counts per level.

    THUNDERC_BIN=build/cli/thunderc python3 -m pytest -q -p no:cacheprovider tests/ops/test_opinfo.py -s

Environment: THUNDERC_BIN, THUNDERC_OPS_JOBS (parallel thunderc runs and bundle build jobs),
THUNDERC_OPINFO_KEEP=DIR (export under DIR and keep it), THUNDERC_OPINFO_ONLY=name,... (a
subset, for debugging; the list checks are then limited to it).
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tests" / "golden"))
import opinfo  # noqa: E402
from opinfo_expected import EXPECTED_FAILURES, NOT_TESTABLE  # noqa: E402


def _thunderc():
    path = Path(os.environ.get("THUNDERC_BIN", "build/cli/thunderc"))
    if not path.is_absolute() and not path.exists():
        path = REPO / path
    assert path.is_file(), f"thunderc binary not found at {path} (set THUNDERC_BIN)"
    return str(path)


def _jobs():
    return int(os.environ.get("THUNDERC_OPS_JOBS") or max(2, os.cpu_count() or 2))


def _only():
    only = os.environ.get("THUNDERC_OPINFO_ONLY", "")
    return [name for name in only.split(",") if name] or None


@pytest.fixture(scope="module")
def work_dir(tmp_path_factory):
    keep = os.environ.get("THUNDERC_OPINFO_KEEP")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        return Path(keep)
    return tmp_path_factory.mktemp("opinfo")


@pytest.fixture(scope="module")
def rows(work_dir):
    rows = opinfo.run_samples(work_dir / "samples", _only(), _thunderc(), _jobs())
    # For `opinfo.py --from-json DIR/survey.json --write-expected` after a change.
    (work_dir / "survey.json").write_text(json.dumps(rows, indent=1))
    return rows


def _failing_ops(rows):
    """{opinfo id: first reason} of every OpInfo with a testable sample that fails a level."""
    failing = {}
    for row in rows:
        if row.get("export") is not None:
            continue
        for level in opinfo.LEVELS:
            if not row[level]["ok"] and row["op"] not in failing:
                failing[row["op"]] = f"at {level}: {row[level]['why']}"
    return failing


def test_opinfo_interpreter(rows):
    print("\n" + opinfo.summarize(rows))
    ops = {row["op"] for row in rows}
    failing = _failing_ops(rows)
    unexpected = {op: why for op, why in failing.items() if op not in EXPECTED_FAILURES}
    fixed = sorted(op for op in EXPECTED_FAILURES if op in ops and op not in failing
                   and any(row["op"] == op and row.get("export") is None for row in rows))
    lines = [f"  {op}: {why}" for op, why in sorted(unexpected.items())]
    assert not unexpected, (f"{len(unexpected)} OpInfos fail that tests/ops/opinfo_expected.py "
                            "does not list:\n" + "\n".join(lines))
    assert not fixed, ("these OpInfos pass now: remove them from EXPECTED_FAILURES in "
                       f"tests/ops/opinfo_expected.py: {fixed}")
    untestable = sorted({row["op"] for row in rows if row.get("export") is not None}
                        - set(NOT_TESTABLE) - set(EXPECTED_FAILURES))
    testable = {row["op"] for row in rows if row.get("export") is None}
    assert not untestable or _only(), (
        "OpInfos with samples torch.export cannot export (or complex inputs/outputs) that "
        f"NOT_TESTABLE does not list: {untestable}")
    stale = sorted(op for op in NOT_TESTABLE if op in testable and not _only())
    assert not stale, f"NOT_TESTABLE OpInfos that now export: {stale}"


GROUP_SIZE = 120  # OpInfo programs per bundle


@pytest.mark.parametrize("level", opinfo.LEVELS)
def test_opinfo_bundles(rows, work_dir, level):
    passing = [row for row in rows if row.get("export") is None and row[level]["ok"]]
    assert passing, "no sample passes the interpreter"
    failures = []
    # Programs that draw random numbers go into their own bundles, compared with the
    # interpreter's draws of the same seed (their distribution is test_opinfo_interpreter's).
    for random in (False, True):
        ids = [row["op"] for row in passing if bool(row.get("random")) == random]
        for start in range(0, len(ids), GROUP_SIZE):
            name = f"opinfo_{level}_{'random_' if random else ''}{start // GROUP_SIZE}"
            failures += opinfo.check_group_bundle(
                _thunderc(), work_dir / "bundles" / name, name, ids[start:start + GROUP_SIZE],
                level, work_dir / "samples", _jobs(), random=random)
    assert not failures, f"{len(failures)} samples differ in a CPU bundle:\n  " + "\n  ".join(failures)


def test_expected_lists_are_well_formed():
    for table, name in ((EXPECTED_FAILURES, "EXPECTED_FAILURES"), (NOT_TESTABLE, "NOT_TESTABLE")):
        assert all(reason.strip() for reason in table.values()), f"{name}: an empty reason"
    both = sorted(set(EXPECTED_FAILURES) & set(NOT_TESTABLE))
    assert not both, f"in both EXPECTED_FAILURES and NOT_TESTABLE: {both}"
    known = {opinfo.opinfo_id(o) for o in opinfo._op_db()}
    stale = sorted((set(EXPECTED_FAILURES) | set(NOT_TESTABLE)) - known)
    assert not stale, f"names that are not OpInfos of the installed torch: {stale}"
