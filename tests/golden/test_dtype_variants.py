"""The fp16/bf16 variants of zoo models (models/zoo.py DTYPE_VARIANTS) are exported and stay
at their dtype through import. The golden and e2e suites pick them up like any other zoo
model (interpreter, bundles at -O0 and -O2 against eager with the fp16/bf16 tolerances of
tolerances.py); this file makes sure they are there to be picked up, and that thunderc does
not silently widen their weights or inputs to f32, which would let them pass while testing
nothing about reduced precision."""
import json
import os
import subprocess
import sys

import pytest
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "models"))
import zoo  # noqa: E402  (models/zoo.py)
from conftest import ZOO_DIR, load_manifest  # noqa: E402

LEVELS = ["train", "core"]
TYPE_PREFIX = {torch.float16: "f16", torch.bfloat16: "bf16"}
VARIANTS = [entry for entry in zoo.ZOO if entry.dtype in TYPE_PREFIX]


def test_variants_are_registered():
    # At least one fp16 and one bf16 model, so both storage formats reach every suite.
    dtypes = {entry.dtype for entry in VARIANTS}
    assert dtypes == set(TYPE_PREFIX), f"DTYPE_VARIANTS covers only {dtypes}"


@pytest.mark.parametrize("entry", VARIANTS, ids=lambda entry: entry.name)
def test_variant_is_exported(entry):
    path = os.path.join(ZOO_DIR, entry.name, "manifest.json")
    assert os.path.isfile(path), f"{entry.name} is in DTYPE_VARIANTS but not exported to {ZOO_DIR}"
    manifest = load_manifest(entry.name)
    dtype = str(entry.dtype).removeprefix("torch.")
    assert manifest["dtype"] == dtype
    # Floating inputs, outputs and parameters were all converted (integer ones are kept).
    for tensor in manifest["inputs"] + manifest["outputs"] + manifest["params"]:
        if tensor["dtype"].startswith(("float", "bfloat")):
            assert tensor["dtype"] == dtype, tensor


@pytest.mark.parametrize("entry,level", [(e, lv) for e in VARIANTS for lv in LEVELS],
                         ids=lambda value: value if isinstance(value, str) else value.name)
def test_variant_keeps_its_dtype(thunderc, entry, level):
    manifest = load_manifest(entry.name)
    path = os.path.join(ZOO_DIR, entry.name, manifest["levels"][level]["file"])
    result = subprocess.run([thunderc, path, "--emit=report-json"], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    prefix = TYPE_PREFIX[entry.dtype]
    typed = report["weights"] + report["inputs"] + report["outputs"]
    floating = [t for t in typed if t["type"].split("[")[0] in {"f16", "bf16", "f32", "f64"}]
    assert floating, "a variant with no floating tensors tests nothing"
    for tensor in floating:
        assert tensor["type"].startswith(prefix + "["), tensor
