"""Every Core ATen overload (tagged torch.Tag.core in the installed torch) is accounted for:
either `thunderc --list-ops` names it, or one of the two tables below does, with a reason.

- EXCLUDED: overloads that cannot appear in an exported inference program (gradients,
  training-mode state updates, out= variants that export functionalizes away), each with why.
- NOT_YET: overloads an inference program can hold that thunderc does not compile yet, each
  with a one-line note. The list only shrinks: an entry thunderc now supports fails the test
  until it is removed here.

    THUNDERC_BIN=build/cli/thunderc python3 -m pytest -q -p no:cacheprovider \
        tests/ops/test_core_coverage.py
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(REPO / "tools"))
from gen_op_schemas import core_overloads  # noqa: E402  (the generator's own core-op query)

_BACKWARD = "a gradient op: only training (autograd) programs compute it"

EXCLUDED = {
    "aten._adaptive_avg_pool2d_backward.default": _BACKWARD,
    "aten.avg_pool2d_backward.default": _BACKWARD,
    "aten.convolution_backward.default": _BACKWARD,
    "aten.embedding_dense_backward.default": _BACKWARD,
    "aten.native_group_norm_backward.default": _BACKWARD,
    "aten.native_layer_norm_backward.default": _BACKWARD,
    "aten.atan2.out": "an out= variant: torch.export functionalizes `torch.atan2(a, b, out=c)` "
                      "into atan2.default (imported) plus a copy, so the exported graph never "
                      "holds it",
    "aten._native_batch_norm_legit.default": "training-mode batch norm: it updates running_mean "
                                             "and running_var in place (a buffer mutation); an "
                                             "eval-mode export holds "
                                             "_native_batch_norm_legit_no_training instead",
}

NOT_YET: dict[str, str] = {
    # Core ops not compiled yet, each with what it needs.
}


def _thunderc():
    path = Path(os.environ.get("THUNDERC_BIN", "build/cli/thunderc"))
    if not path.is_absolute() and not path.exists():
        path = REPO / path
    assert path.is_file(), f"thunderc binary not found at {path} (set THUNDERC_BIN)"
    return str(path)


@pytest.fixture(scope="module")
def supported():
    result = subprocess.run([_thunderc(), "--list-ops"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return set(result.stdout.split())


@pytest.fixture(scope="module")
def core():
    return {f"aten.{name}.{overload}" for name, overload in core_overloads()}


def test_every_core_op_is_supported_or_listed(supported, core):
    missing = sorted(core - supported - set(EXCLUDED) - set(NOT_YET))
    assert not missing, (
        "Core ATen overloads thunderc neither compiles nor lists in EXCLUDED/NOT_YET "
        f"(tests/ops/test_core_coverage.py): {missing}")


def test_not_yet_only_shrinks(supported):
    done = sorted(set(NOT_YET) & supported)
    assert not done, f"now supported: remove them from NOT_YET: {done}"
    contradictions = sorted(set(EXCLUDED) & supported)
    assert not contradictions, f"supported, yet EXCLUDED as impossible: {contradictions}"


def test_tables_name_core_ops(core):
    for table, name in ((EXCLUDED, "EXCLUDED"), (NOT_YET, "NOT_YET")):
        stale = sorted(set(table) - core)
        assert not stale, f"{name} names overloads that are not core in torch: {stale}"
        assert all(reason.strip() for reason in table.values()), f"{name}: an empty reason"
    both = sorted(set(EXCLUDED) & set(NOT_YET))
    assert not both, f"in both EXCLUDED and NOT_YET: {both}"
