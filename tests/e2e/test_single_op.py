"""Models that are a single op: the generated code must be warning-free even when the run
function has no arena work (no intermediate buffer, no workspace), at every -O level and on both
targets (the CUDA bundle under the emulation). Each bundle is built with warnings as errors,
run, and compared with PyTorch eager."""
import os
import subprocess

import numpy as np
import pytest
import torch

from conftest import build_bundle, compile_bundle
from tolerances import load_npy


class Relu(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x)


class Add(torch.nn.Module):
    def forward(self, x, y):
        return x + y


class Sum(torch.nn.Module):
    def forward(self, x):
        return x.sum(dim=-1)


class Matmul(torch.nn.Module):
    def forward(self, x, y):
        return x @ y


class Transpose(torch.nn.Module):
    def forward(self, x):
        return x.t()


MODELS = {"relu": (Relu, [(4, 8)]), "add": (Add, [(4, 8), (4, 8)]), "sum": (Sum, [(4, 8)]),
          "matmul": (Matmul, [(4, 8), (8, 3)]), "transpose": (Transpose, [(4, 8)])}
CASES = [(op, opt, "cpu") for op in MODELS for opt in ("-O0", "-O1", "-O2")] + \
        [(op, "-O2", "cuda") for op in MODELS]


@pytest.mark.parametrize("op,opt,target", CASES)
def test_single_op_bundle_builds_warning_free(tmp_path, op, opt, target):
    module, shapes = MODELS[op]
    generator = torch.Generator().manual_seed(0)
    inputs = tuple(torch.randn(*shape, generator=generator) for shape in shapes)
    torch.export.save(torch.export.export(module(), inputs), tmp_path / "m.pt2")
    out = tmp_path / "bundle"
    compile_bundle(tmp_path / "m.pt2", out, op,
                   extra=[opt, "--target", target, *(["--cuda-emulation"] * (target == "cuda"))])
    extra = ["-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON"] if target == "cuda" else []
    build = build_bundle(out, extra)
    files = []
    for i, tensor in enumerate(inputs):
        files.append(str(tmp_path / f"in{i}.npy"))
        np.save(files[-1], tensor.numpy())
    result = subprocess.run([os.path.join(build, f"{op}_run"), "--inputs", *files,
                             "--outputs", str(tmp_path / "y.npy")], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    torch.testing.assert_close(load_npy(str(tmp_path / "y.npy")), module()(*inputs))


class AdvancedIndex(torch.nn.Module):
    def forward(self, x, rows, cols):
        return x[rows, :, cols]


@pytest.mark.parametrize("target", ["cpu", "cuda"])
def test_index_tensor_out_of_range_is_a_run_error(tmp_path, target):
    """x[rows, :, cols] with an index outside its own dim: the run fails naming the node (an
    index that only overflows into a neighbouring row must not read it), and negative indices
    in range wrap like in PyTorch."""
    x = torch.randn(3, 2, 4)
    rows = torch.tensor([0, -1, 2])
    cols = torch.tensor([3, 0, -4])
    torch.export.save(torch.export.export(AdvancedIndex(), (x, rows, cols)), tmp_path / "m.pt2")
    out = tmp_path / "bundle"
    compile_bundle(tmp_path / "m.pt2", out, "adv",
                   extra=["--target", target, *(["--cuda-emulation"] * (target == "cuda"))])
    build = build_bundle(out, ["-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON"] if target == "cuda" else [])

    def run(cols_value):
        files = []
        for i, tensor in enumerate((x, rows, cols_value)):
            files.append(str(tmp_path / f"in{i}.npy"))
            np.save(files[-1], tensor.numpy())
        return subprocess.run([os.path.join(build, "adv_run"), "--inputs", *files,
                               "--outputs", str(tmp_path / "y.npy")], capture_output=True,
                              text=True)

    result = run(cols)
    assert result.returncode == 0, result.stderr
    torch.testing.assert_close(load_npy(str(tmp_path / "y.npy")), AdvancedIndex()(x, rows, cols))
    # cols = 4 is outside dim 2 (size 4) though row*4 + 4 is a valid flat position.
    result = run(torch.tensor([3, 4, 0]))
    assert result.returncode == 3, result.stderr
    assert "node 'index'" in result.stderr and "out of range" in result.stderr, result.stderr
