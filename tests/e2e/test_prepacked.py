"""Float GEMM weights stored pre-packed in weights.bin (backend_cpu/cpu_backend.cpp
storedWeights, tc_kernels_sgemm.h's panel layout): which weights are packed, and that the
bundle's outputs match eager on each run-time path -- the AVX-512 kernel (on a CPU that has it)
and the portable loop over the same layout (TC_SGEMM=blas turns the AVX-512 GEMM off).

Packed: a linear's weight [n, k] (with and without bias, inside a GEMM-epilogue fusion, shared
by two linears), an addmm's B [k, n] (GPT-2's Conv1D), shapes that are not multiples of the
32-column panels or the 256-deep blocks, a 3-d input, a weight whose other use (a sum) is
folded at compile time. Not packed: a weight another op also reads (a tied embedding and
lm_head), so the generated code must keep the row-major gemm there. Tolerance: float32's
assert_close defaults (sums in another order than eager's)."""
import os
import re

import numpy as np
import pytest
import torch
from torch import nn

from conftest import build_bundle, compile_bundle, run


class Gemms(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.fc1 = nn.Linear(300, 70)  # k across a 256-deep block, n past two panels
        self.fc2 = nn.Linear(70, 33, bias=False)
        self.shared = nn.Linear(33, 33)  # read twice
        self.conv1d_w = nn.Parameter(torch.randn(33, 40) * 0.2)  # GPT-2 Conv1D: addmm B [k, n]
        self.conv1d_b = nn.Parameter(torch.randn(40) * 0.1)
        self.embed = nn.Embedding(50, 40)
        self.head = nn.Linear(40, 50, bias=False)
        self.head.weight = self.embed.weight  # tied: gathered and multiplied
        self.summed = nn.Linear(40, 8)

    def forward(self, x, ids):
        h = torch.relu(self.fc1(x))  # [2, 5, 70]: the relu is the GEMM's epilogue
        h = self.fc2(h)
        h = self.shared(torch.tanh(self.shared(h)))
        flat = h.reshape(-1, 33)
        h = torch.addmm(self.conv1d_b, flat, self.conv1d_w).reshape(2, 5, 40)
        h = h + self.embed(ids)
        return self.head(h), self.summed(h) + self.summed.weight.sum()


def _export(tmp_path):
    model = Gemms().eval()
    x = torch.randn(2, 5, 300)
    ids = torch.randint(0, 50, (2, 5))
    with torch.no_grad():
        expected = [t.numpy() for t in model(x, ids)]
    pt2 = tmp_path / "gemms.pt2"
    torch.export.save(torch.export.export(model, (x, ids)), str(pt2))
    inputs = []
    for i, t in enumerate((x, ids)):
        path = tmp_path / f"in{i}.npy"
        np.save(path, t.numpy())
        inputs.append(str(path))
    return pt2, inputs, expected


def test_gemm_weights_are_stored_packed_and_match_eager(tmp_path):
    pt2, inputs, expected = _export(tmp_path)
    out = tmp_path / "bundle"
    compile_bundle(pt2, out, "gemms")
    source = (out / "gemms.cpp").read_text()
    # fc1, fc2, the shared linear (twice), the addmm and the summed linear (its sum is folded)
    # read packed weights; the tied head keeps the row-major gemm.
    assert len(re.findall(r"tc::gemm_packed\(", source)) == 6, source
    assert len(re.findall(r"tc::gemm<float>\(", source)) == 1, source
    # The weight table names the packed shape: k * (n rounded up to 32).
    table = source[source.index("kWeights"):]
    assert '"fc1.weight", TC_DTYPE_F32, 1, {28800}' in table  # 300 * 96
    assert '"conv1d_w", TC_DTYPE_F32, 1, {2112}' in table  # 33 * 64
    assert '"head.weight", TC_DTYPE_F32, 2, {50, 40}' in table
    build = build_bundle(out)
    runner = os.path.join(build, "gemms_run")
    for label, env in (("default", {}), ("portable", {"TC_SGEMM": "blas"})):
        outputs = [str(tmp_path / f"{label}_{i}.npy") for i in range(len(expected))]
        for threads in ("1", "2"):
            run([runner, "--inputs", *inputs, "--outputs", *outputs, "--threads", threads],
                env=dict(os.environ, **env))
            for path, want in zip(outputs, expected):
                torch.testing.assert_close(torch.from_numpy(np.load(path)),
                                           torch.from_numpy(want),
                                           msg=lambda m: f"{label}, {threads} thread(s): {m}")


@pytest.mark.parametrize("target", ["cuda"])
def test_other_targets_store_weights_row_major(tmp_path, target):
    """Pre-packing is the CPU backend's choice: a CUDA bundle's weight table keeps [n, k]."""
    pt2, _, _ = _export(tmp_path)
    out = tmp_path / target
    compile_bundle(pt2, out, "gemms", extra=("--target", target))
    source = (out / "gemms.cu").read_text()
    assert "gemm_packed" not in source
    assert '"fc1.weight", TC_DTYPE_F32, 2, {70, 300}' in source
