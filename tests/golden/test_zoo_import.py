"""Every zoo model at both IR levels: imported (node counts, types, weights checksums),
printed and re-parsed byte for byte, and run by the reference interpreter against eager."""
import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import run_case  # noqa: E402
from conftest import ZOO_DIR, load_manifest, zoo_models  # noqa: E402

LEVELS = ["train", "core"]
DTYPE_NAMES = {"float32": "f32", "float16": "f16", "bfloat16": "bf16", "float64": "f64",
               "int64": "i64", "int32": "i32", "bool": "bool", "uint8": "u8", "int8": "i8"}
CASES = [(model, level) for model in zoo_models() for level in LEVELS]


def test_zoo_is_complete():
    # The zoo export must have produced every model; an empty zoo would test nothing.
    assert len(zoo_models()) >= 8, f"expected >= 8 zoo models in {ZOO_DIR}"


def thunderc_json(thunderc, path):
    result = subprocess.run([thunderc, path, "--emit=report-json"], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("model,level", CASES)
def test_import_report(thunderc, model, level):
    manifest = load_manifest(model)
    path = os.path.join(ZOO_DIR, model, manifest["levels"][level]["file"])
    report = thunderc_json(thunderc, path)
    counts = report["counts"]
    # Every exported node is accounted for, and every one of them compiles.
    assert counts["exported_nodes"] == manifest["levels"][level]["num_nodes"]
    assert report["unsupported"] == [], report["unsupported"]
    assert counts["compiled"] + counts["dropped"] + counts["shape"] == counts["exported_nodes"]
    # Output dtypes and ranks match what eager produced.
    assert len(report["outputs"]) == len(manifest["outputs"])
    for got, want in zip(report["outputs"], manifest["outputs"]):
        dtype, dims = got["type"].split("[", 1)
        assert dtype == DTYPE_NAMES[want["dtype"]]
        dims = [d for d in dims.rstrip("]").split(",") if d]
        assert len(dims) == len(want["shape"])
        for dim, size, sym in zip(dims, want["shape"], want.get("sym_shape", want["shape"])):
            assert dim.startswith("?") if isinstance(sym, str) else int(dim) == size
    # Every parameter's bytes equal what the export script saw.
    weights = {w["name"]: w for w in report["weights"]}
    for param in manifest["params"]:
        assert param["name"] in weights, f"missing weight {param['name']}"
        assert weights[param["name"]]["crc32"] == param["crc32"], param["name"]


@pytest.mark.parametrize("model,level", CASES)
def test_ir_round_trip(thunderc, model, level, tmp_path):
    manifest = load_manifest(model)
    path = os.path.join(ZOO_DIR, model, manifest["levels"][level]["file"])
    first = subprocess.run([thunderc, path, "--emit=ir"], capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    text_ir = tmp_path / f"{model}.tir"
    text_ir.write_text(first.stdout)
    second = subprocess.run([thunderc, str(text_ir), "--emit=ir"], capture_output=True,
                            text=True)
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout


@pytest.mark.parametrize("model,level", CASES)
def test_interpreter_matches_eager(thunderc, model, level):
    manifest = load_manifest(model)
    model_dir = os.path.join(ZOO_DIR, model)
    for case in manifest["cases"]:
        rows = run_case(thunderc, model_dir, manifest["levels"][level]["file"], case)
        for i, (ok, err, how) in enumerate(rows):
            assert ok, f"{model} {level} {case['name']} output {i}: max error {err:.3g} ({how})"
