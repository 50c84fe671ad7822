"""Data-dependent sizes: torch.nonzero (the output's row count is the number of non-zero
elements) and tensor.item() (a value read from a tensor, used as a number and as a size),
exported at both IR levels, interpreted and compiled for the CPU and for CUDA (run through the
CPU emulation of CUDA). The exporter gives each such size an unbacked symbol bounded by
range_constraints; the bundle plans its memory at the bound, binds the symbol when the node
runs and writes the outputs' actual sizes into the caller's tensors. Checks:
  - outputs equal eager's (shapes and values) for inputs with different counts, including
    none and all, with one compiled bundle;
  - a value outside the torch._check range is a run-time error naming the node and the range
    (interpreter and bundles);
  - a size with no upper bound is refused at compile time with the remedy."""
import os

import numpy as np
import pytest
import torch

from conftest import THUNDERC, build_bundle, compile_bundle, run


class Select(torch.nn.Module):
    def forward(self, x, k):
        positive = torch.nonzero(x > 0)                 # 0: [count, 2] i64
        n = k.item()
        torch._check(n >= 0)
        torch._check(n <= 6)
        head = x[:n] * 2 + x.amax().item()              # 1: [n, 5] f32
        weighted = positive.float().sum(0) * k.item()   # 2: [2] f32, a sum over `count` rows
        return positive, head, weighted, torch.arange(n) + 1


class Unbounded(torch.nn.Module):
    def forward(self, x, k):
        return torch.arange(k.item()) * 2


def _inputs(seed, threshold=0.0, n=3):
    x = torch.randn(6, 5, generator=torch.Generator().manual_seed(seed)) - threshold
    return x, torch.tensor(n)


CASES = {
    "some": _inputs(0, 0.0, 3),
    "none": _inputs(1, 100.0, 0),
    "all": _inputs(2, -100.0, 6),
    "few": _inputs(3, 1.2, 1),
}


def _save(folder, stem, tensors):
    paths = []
    for i, tensor in enumerate(tensors):
        path = folder / f"{stem}_in{i}.npy"
        np.save(path, tensor.numpy())
        paths.append(str(path))
    return paths


def _check(outputs, expected, label):
    assert len(outputs) == len(expected), label
    for i, (actual, reference) in enumerate(zip(outputs, expected)):
        reference = reference.numpy()
        assert actual.shape == reference.shape, f"{label} output {i}: shape {actual.shape}, eager {reference.shape}"
        assert actual.dtype == reference.dtype, f"{label} output {i}: dtype"
        torch.testing.assert_close(torch.from_numpy(actual), torch.from_numpy(reference),
                                   msg=f"{label} output {i}")


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("data_dependent")
    paths = {}
    program = torch.export.export(Select(), CASES["some"])
    for level in ("train", "core"):
        path = folder / f"{level}.pt2"
        torch.export.save(program if level == "train" else program.run_decompositions(), str(path))
        paths[level] = path
    return folder, paths


@pytest.mark.parametrize("level", ["train", "core"])
def test_interpreter_matches_eager(level, exported):
    folder, paths = exported
    for name, inputs in CASES.items():
        outputs = [str(folder / f"interp_{level}_{name}_{i}.npy") for i in range(4)]
        run([THUNDERC, str(paths[level]), "--interpret", "--inputs",
             ",".join(_save(folder, f"interp_{level}_{name}", inputs)), "--outputs",
             ",".join(outputs)])
        _check([np.load(p) for p in outputs], Select()(*inputs), f"{level} {name}")


@pytest.mark.parametrize("target", ["cpu", "cuda"])
@pytest.mark.parametrize("level", ["train", "core"])
def test_bundle_matches_eager(target, level, exported, tmp_path):
    folder, paths = exported
    bundle = tmp_path / "bundle"
    extra = ["--target", "cuda", "--cuda-emulation"] if target == "cuda" else []
    compile_bundle(paths[level], bundle, "select", extra=extra)
    build = build_bundle(bundle, ["-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON"] if target == "cuda" else [])
    runner = os.path.join(build, "select_run")
    for name, inputs in CASES.items():
        outputs = [str(tmp_path / f"{name}_{i}.npy") for i in range(4)]
        # --warmup: the context and the output buffers run once before the saved run.
        run([runner, "--inputs", *_save(tmp_path, name, inputs), "--outputs", *outputs,
             "--warmup", "1"])
        _check([np.load(p) for p in outputs], Select()(*inputs), f"{target} {level} {name}")
    # A value outside the torch._check range stops the run with the node and the range.
    bad = _save(tmp_path, "bad", _inputs(0, 0.0, 7))
    result = run_failing([runner, "--inputs", *bad, "--outputs",
                          *[str(tmp_path / f"bad_{i}.npy") for i in range(4)]])
    assert "outside its range [0, 6]" in result.stderr + result.stdout
    assert "7" in result.stderr + result.stdout
    if target == "cuda":
        # A size read back to the host mid-run: such runs cannot be CUDA graphs, and say why.
        name, inputs = next(iter(CASES.items()))
        refused = run_failing([runner, "--inputs", *_save(tmp_path, name, inputs), "--outputs",
                               *[str(tmp_path / f"g_{i}.npy") for i in range(4)],
                               "--cuda-graphs", "2"])
        assert refused.returncode == 3
        assert "cannot be captured in a CUDA graph: node '" in refused.stderr
        assert "reads a size back to the host" in refused.stderr


def run_failing(command):
    import subprocess
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode != 0, f"{command} succeeded"
    return result


def test_interpreter_refuses_out_of_range_value(exported):
    folder, paths = exported
    result = run_failing([THUNDERC, str(paths["core"]), "--interpret", "--inputs",
                          ",".join(_save(folder, "bad", _inputs(0, 0.0, 9))),
                          "--outputs", ",".join(str(folder / f"bad_{i}.npy") for i in range(4))])
    assert "9" in result.stderr and "outside its range [0, 6]" in result.stderr


def test_unbounded_size_is_refused(tmp_path):
    program = torch.export.export(Unbounded(), (torch.randn(3), torch.tensor(4)))
    path = tmp_path / "unbounded.pt2"
    torch.export.save(program, str(path))
    result = run_failing([THUNDERC, str(path), "-o", str(tmp_path / "out")])
    assert "no upper bound" in result.stderr and "torch._check" in result.stderr
    assert not (tmp_path / "out").exists()
