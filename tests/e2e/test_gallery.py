"""The gallery of real architectures (models/gallery.py, exported by `export_zoo.py --gallery`):
every model at both IR levels either compiles to a CPU bundle that builds with warnings as
errors, runs and matches PyTorch eager at the golden tolerances (and, for the training IR, the
same through the CUDA emulation), or is refused listing exactly the ops in REFUSED below -- so
the table is the record of what real models still lack, and adding an op makes this test say
which entries to delete."""
import os
import subprocess
import time

import pytest

from conftest import (THUNDERC, build_bundle, check_cases, compile_bundle, exported_models,
                      read_manifest, run)
from tolerances import compare, load_npy

GALLERY_DIR = os.environ.get("THUNDERC_GALLERY_DIR", "build/gallery")

# (model, IR level) -> the ATen targets thunderc refuses there, with how often they occur.
REFUSED = {
}


def gallery_models():
    return exported_models(GALLERY_DIR)


def manifest(model):
    return read_manifest(GALLERY_DIR, model)


def refused_ops(pt2):
    """The unsupported ATen targets `thunderc --emit=report` lists, with their counts."""
    report = run([THUNDERC, pt2, "--emit=report"]).stdout
    counts = {}
    for line in report.splitlines():
        if line.startswith("  node '") and "): " in line:
            target = line.split("(", 1)[1].split(")", 1)[0]
            counts[target] = counts.get(target, 0) + 1
    return counts


def check_outputs(build, model, info, tmp_path, label):
    check_cases(os.path.join(build, f"{model}_run"), os.path.join(GALLERY_DIR, model),
                info["cases"], tmp_path, label, compare, load_npy)


@pytest.mark.parametrize("model,level", [(m, l) for m in gallery_models()
                                         for l in ("train", "core")])
def test_gallery_model(tmp_path, model, level):
    info = manifest(model)
    pt2 = os.path.join(GALLERY_DIR, model, info["levels"][level]["file"])
    refused = refused_ops(pt2)
    expected = REFUSED.get((model, level), {})
    assert refused == expected, (
        f"{model} {level}: thunderc refuses {refused or 'nothing'}, the table says "
        f"{expected or 'nothing'}; update REFUSED in {os.path.basename(__file__)}")
    if refused:
        result = subprocess.run([THUNDERC, pt2, "-o", str(tmp_path / "out")], capture_output=True,
                                text=True)
        assert result.returncode == 5, result.stderr
        assert not (tmp_path / "out").exists()
        pytest.xfail(f"refused: {', '.join(sorted(refused))}")
    start = time.monotonic()
    out = tmp_path / "cpu"
    compile_bundle(pt2, out, model)
    check_outputs(build_bundle(out), model, info, tmp_path, f"{model} {level} cpu")
    if level == "train":
        out = tmp_path / "cuda"
        compile_bundle(pt2, out, model, extra=["--target", "cuda", "--cuda-emulation"])
        check_outputs(build_bundle(out, ["-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON"]), model, info,
                      tmp_path, f"{model} {level} cuda-emulated")
    print(f"{model} {level}: {time.monotonic() - start:.1f} s")
