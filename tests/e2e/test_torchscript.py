"""TorchScript input (docs/TORCHSCRIPT.md): every zoo and gallery model that traces (trace.pt,
written by models/export_zoo.py) and every one that scripts (script.pt, with --input-shape)
compiles from its .pt file with no unsupported op, and its outputs match PyTorch eager (the
golden tolerance policy) and the .pt2 path's outputs, through the reference interpreter; every
zoo model's and three gallery models' trace.pt are also built as CPU bundles (which never link
libtorch) and run, three as emulated CUDA bundles; the weights are the .pt2 path's.
Errors: data-dependent control flow, missing or wrong input shapes, a damaged file, module
state, and a thunderc without its TorchScript importer."""
import json
import os
import subprocess
import zipfile

import numpy as np
import pytest
import torch

from conftest import THUNDERC, ZOO_DIR, build_bundle, check_cases, compile_bundle, run
from tolerances import compare, load_npy

GALLERY_DIR = os.environ.get("THUNDERC_GALLERY_DIR", "")
# Built and run as bundles: the zoo, a Hugging Face encoder, decoder and vision transformer (the
# other gallery models go through the interpreter: the bundle is generated from the same IR
# whichever file it came from, and test_gallery.py builds every gallery model's bundle).
GALLERY_BUNDLES = ["hf_bert", "hf_llama", "hf_vit"]
CUDA_BUNDLES = ["mlp", "cnn", "gpt"]


def _root(where):
    return ZOO_DIR if where == "zoo" else GALLERY_DIR


def _models(kind):
    found = []
    for where in ("zoo", "gallery"):
        root = _root(where)
        if not root or not os.path.isdir(root):
            continue
        for name in sorted(os.listdir(root)):
            path = os.path.join(root, name, "manifest.json")
            if os.path.isfile(path):
                with open(path) as f:
                    if json.load(f).get("torchscript", {}).get(kind):
                        found.append((where, name))
    return found


def _manifest(where, model):
    with open(os.path.join(_root(where), model, "manifest.json")) as f:
        return json.load(f)


def _shape_flag(info):
    return ";".join(f"{i['name']}:{i['dtype']}[{','.join(str(d) for d in i['shape'])}]"
                    for i in info["inputs"])


def _interpret(source, model_dir, case, tmp_path, tag, extra=()):
    inputs = [os.path.join(model_dir, p) for p in case["inputs"]]
    outputs = [str(tmp_path / f"{tag}_{i}.npy") for i in range(len(case["expected"]))]
    result = subprocess.run([THUNDERC, source, "--interpret", "--inputs", ",".join(inputs),
                             "--outputs", ",".join(outputs), *extra],
                            capture_output=True, text=True)
    assert result.returncode == 0, f"{source}: exit {result.returncode}\n{result.stderr}"
    return [load_npy(p) for p in outputs]


def _check_model(where, model, kind, tmp_path):
    info = _manifest(where, model)
    model_dir = os.path.join(_root(where), model)
    source = os.path.join(model_dir, info["torchscript"][kind])
    extra = ["--input-shape", _shape_flag(info)] if kind == "script" else []
    report = run([THUNDERC, source, "--emit", "report", *extra]).stdout
    assert " 0 unsupported" in report, report[:2000]
    case = next(c for c in info["cases"] if c["name"] == "default")
    got = _interpret(source, model_dir, case, tmp_path, "pt", extra)
    via_pt2 = _interpret(os.path.join(model_dir, info["levels"]["train"]["file"]), model_dir,
                         case, tmp_path, "pt2")
    for i, output in enumerate(got):
        fp64 = load_npy(os.path.join(model_dir, case["expected_fp64"][i]))
        ok, err, how = compare(output, load_npy(os.path.join(model_dir, case["expected"][i])), fp64)
        print(f"{model} {kind} output {i}: vs eager {err:.3g} ({how})")
        assert ok, f"{model} ({kind}.pt) output {i} differs from eager by {err:.3g} ({how})"
        ok, err, how = compare(output, via_pt2[i], fp64)
        assert ok, f"{model} ({kind}.pt) output {i} differs from the .pt2 path by {err:.3g} ({how})"


@pytest.mark.parametrize("where,model", _models("trace"))
def test_traced_module_matches_eager_and_pt2(where, model, tmp_path):
    _check_model(where, model, "trace", tmp_path)


@pytest.mark.parametrize("where,model", _models("script"))
def test_scripted_module_matches_eager_and_pt2(where, model, tmp_path):
    info = _manifest(where, model)
    source = os.path.join(_root(where), model, info["torchscript"]["script"])
    probe = subprocess.run([THUNDERC, source, "--emit", "report", "--input-shape",
                            _shape_flag(info)], capture_output=True, text=True)
    if probe.returncode == 5:  # refused with a reason (module state): recorded, not compared
        print(f"{model} script.pt: refused: {probe.stderr.strip()}")
        assert "error:" in probe.stderr
        return
    _check_model(where, model, "script", tmp_path)


def test_every_zoo_model_traces():
    """The zoo's models all trace; a model that stops tracing shows up here, not as a skip."""
    zoo = [name for where, name in _models("trace") if where == "zoo"]
    exported = [n for n in os.listdir(ZOO_DIR) if os.path.isfile(os.path.join(ZOO_DIR, n, "manifest.json"))]
    assert sorted(zoo) == sorted(exported)


def _bundle_models():
    return [m for m in _models("trace") if m[0] == "zoo" or m[1] in GALLERY_BUNDLES]


@pytest.mark.parametrize("where,model", _bundle_models())
def test_traced_bundle_matches_eager(thunderc, where, model, tmp_path):
    info = _manifest(where, model)
    model_dir = os.path.join(_root(where), model)
    out = tmp_path / "out"
    compile_bundle(os.path.join(model_dir, "trace.pt"), out, model, golden=model_dir)
    build = build_bundle(out)
    run(["ctest", "--test-dir", build, "--output-on-failure"])
    default = [c for c in info["cases"] if c["name"] == "default"]
    runner = os.path.join(build, f"{model}_run")
    check_cases(runner, model_dir, default, tmp_path, f"{model} trace.pt", compare, load_npy)
    assert "libtorch" not in run(["ldd", runner]).stdout


@pytest.mark.parametrize("model", ["mlp", "resnet", "gpt"])
def test_weights_are_the_pt2_paths(model):
    """Frozen parameters and buffers become the same weights, under the same names, as in the
    .pt2 path (report-json lists each weight with its CRC-32). Where they differ it is by
    design: freezing pools equal constants (GPT's LayerNorms, all ones at initialization, share
    one tensor), static computations on weights are folded into lifted constants (GPT's
    position embedding of arange(T): _tensor_constant0), and unused buffers are not kept
    (ResNet's num_batches_tracked)."""
    model_dir = os.path.join(ZOO_DIR, model)

    def weights(source):
        report = json.loads(run([THUNDERC, source, "-O0", "--emit", "report-json"]).stdout)
        return {w["name"]: w["crc32"] for w in report["weights"]}

    traced = weights(os.path.join(model_dir, "trace.pt"))
    exported = weights(os.path.join(model_dir, "train.pt2"))
    if model == "mlp":
        assert traced == exported
    named = {name: crc for name, crc in traced.items() if not name.startswith("_tensor_constant")}
    assert len(named) >= len(traced) - 1 and named
    assert all(exported.get(name) == crc for name, crc in named.items()), (named, exported)


@pytest.mark.parametrize("model", CUDA_BUNDLES)
def test_traced_emulated_cuda_bundle_matches_eager(thunderc, model, tmp_path):
    where = "zoo"
    info = _manifest(where, model)
    model_dir = os.path.join(_root(where), model)
    out = tmp_path / "out"
    compile_bundle(os.path.join(model_dir, "trace.pt"), out, model, golden=model_dir,
                   extra=["--target", "cuda", "--cuda-emulation"])
    build = build_bundle(out, ["-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON"])
    default = [c for c in info["cases"] if c["name"] == "default"]
    check_cases(os.path.join(build, f"{model}_run"), model_dir, default, tmp_path,
                f"{model} trace.pt cuda-emulated", compare, load_npy)


# ---- errors ----


def _thunderc(*args, env=None):
    return subprocess.run([THUNDERC, *map(str, args)], capture_output=True, text=True, env=env)


class Branchy(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x - 1


class ShapeBranch(torch.nn.Module):
    """A branch on a size and a loop over a constant range: both fold once shapes are known."""

    def forward(self, x):
        if x.shape[0] > 2:
            y = x + 1
        else:
            y = x - 1
        for _ in range(3):
            y = y * 2
        return y


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return x + self.calls


@pytest.fixture
def scripted(tmp_path):
    def save(module, name):
        path = tmp_path / f"{name}.pt"
        torch.jit.script(module).save(str(path))
        return path
    return save


def test_data_dependent_control_flow_is_refused(scripted):
    path = scripted(Branchy(), "branchy")
    result = _thunderc(path, "--input-shape", "x:float32[4]", "--emit", "ir")
    assert result.returncode == 5, result.stderr
    assert "data-dependent control flow" in result.stderr and "prim::If" in result.stderr
    assert "test_torchscript.py" in result.stderr  # the Python source line of the branch


def test_branches_on_shapes_and_constant_loops_fold(scripted, tmp_path):
    path = scripted(ShapeBranch(), "shape_branch")
    for size, expected in ((4, (np.arange(4 * 3, dtype=np.float32) + 1) * 8),
                           (2, (np.arange(2 * 3, dtype=np.float32) - 1) * 8)):
        x = np.arange(size * 3, dtype=np.float32).reshape(size, 3)
        np.save(tmp_path / "x.npy", x)
        result = _thunderc(path, "--input-shape", f"float32[{size},3]", "--interpret",
                           "--inputs", tmp_path / "x.npy", "--outputs", tmp_path / "y.npy")
        assert result.returncode == 0, result.stderr
        np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), expected.reshape(size, 3))


def test_scripted_module_without_shapes_is_a_usage_error(scripted):
    path = scripted(ShapeBranch(), "no_shapes")
    result = _thunderc(path, "--emit", "ir")
    assert result.returncode == 2, result.stderr
    assert "--input-shape" in result.stderr and "'x'" in result.stderr


@pytest.mark.parametrize("flag,message", [
    ("x:float32[4", "no [sizes]"),
    ("x:float32[4,-1]", "size '-1'"),
    ("x:complex7[4]", "unknown dtype 'complex7'"),
    ("float32[4];float32[4]", "given 2 times, but forward takes 1"),
    ("y:float32[4]", "is for 'y', but forward's input 1 is 'x'"),
])
def test_bad_input_shape_is_a_usage_error(scripted, flag, message):
    path = scripted(ShapeBranch(), "bad_shape")
    result = _thunderc(path, "--input-shape", flag, "--emit", "ir")
    assert result.returncode == 2, result.stderr
    assert message in result.stderr, result.stderr


def test_module_state_is_refused(scripted):
    path = scripted(Counter(), "counter")
    result = _thunderc(path, "--input-shape", "float32[2]", "--emit", "ir")
    assert result.returncode == 5, result.stderr
    assert "'calls'" in result.stderr


def test_damaged_torchscript_file_is_invalid_input(scripted, tmp_path):
    good = scripted(ShapeBranch(), "good")
    bad = tmp_path / "damaged.pt"
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(bad, "w") as target:
        for item in source.infolist():
            data = source.read(item.filename)
            if "/code/" in item.filename and item.filename.endswith(".py"):
                data = b"def forward(self, x):\n    return x +* 1\n"
            target.writestr(item, data)
    result = _thunderc(bad, "--input-shape", "float32[4,3]", "-o", tmp_path / "out")
    assert result.returncode == 4, result.stderr
    assert "torch.jit.load" in result.stderr
    assert not (tmp_path / "out").exists()


def test_without_the_importer_torchscript_is_unsupported(scripted, tmp_path):
    """What a thunderc built without libtorch (-DTHUNDERC_WITH_TORCHSCRIPT=OFF) says: the
    plugin is the only part that differs between the two builds."""
    path = scripted(ShapeBranch(), "no_plugin")
    env = dict(os.environ, THUNDERC_TORCHSCRIPT_PLUGIN=str(tmp_path / "missing.so"))
    result = _thunderc(path, "--input-shape", "float32[4,3]", "-o", tmp_path / "out", env=env)
    assert result.returncode == 5, result.stderr
    assert "built without it" in result.stderr and "torch.export.save" in result.stderr
    assert not (tmp_path / "out").exists()
