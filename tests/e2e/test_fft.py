"""FFT end to end: an STFT spectrogram front end and an FNet-style token-mixing block
(`torch.fft.fftn(x, dim=(1, 2)).real`, dynamic batch), each exported at both IR levels
(training IR: stft / fft_fftn; core ATen: unfold + _fft_r2c, _to_copy + _fft_c2c), compiled
into CPU bundles and CUDA bundles run through the CPU emulation of CUDA, and compared with
eager under tests/golden/tolerances.py. Plus the errors: a complex op thunderc does not
compute, and a complex program output, are refused (exit 5) naming the node and the op."""
import copy
import json
import os
import subprocess

import numpy as np
import pytest
import torch

from conftest import THUNDERC, build_bundle, compile_bundle, run
from tolerances import compare, load_npy


class Spectrogram(torch.nn.Module):
    """A log-mel-style front end: centered STFT with a Hann window, power, a non-negative
    filter bank, log."""

    def __init__(self, n_fft=64, hop=16, bands=12):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.register_buffer("window", torch.hann_window(n_fft))
        generator = torch.Generator().manual_seed(7)
        self.register_buffer("bank", torch.rand(n_fft // 2 + 1, bands, generator=generator))

    def forward(self, audio):
        spec = torch.stft(audio, self.n_fft, hop_length=self.hop, window=self.window,
                          return_complex=True)
        power = spec.abs().pow(2)                                  # [B, freq, frames]
        return torch.log(power.transpose(1, 2) @ self.bank + 1e-2)  # [B, frames, bands]


class FNetBlock(torch.nn.Module):
    """FNet's encoder layer: Fourier mixing over sequence and hidden dims, then a feed-forward
    network, each with a residual and layer norm."""

    def __init__(self, hidden=32, intermediate=64):
        super().__init__()
        self.mix_norm = torch.nn.LayerNorm(hidden)
        self.ff_in = torch.nn.Linear(hidden, intermediate)
        self.ff_out = torch.nn.Linear(intermediate, hidden)
        self.out_norm = torch.nn.LayerNorm(hidden)

    def forward(self, x):
        mixed = self.mix_norm(x + torch.fft.fftn(x, dim=(1, 2)).real)
        return self.out_norm(mixed + self.ff_out(torch.nn.functional.gelu(self.ff_in(mixed))))


def _models():
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    return {
        "spectrogram": (Spectrogram().eval(), (torch.randn(2, 400, generator=generator),), None),
        "fnet": (FNetBlock().eval(), (torch.randn(3, 16, 32, generator=generator),),
                 ({0: torch.export.Dim("batch", min=1, max=8)},)),
    }


MODELS = _models()
LEVELS = ["train", "core"]
TARGETS = ["cpu", "cuda"]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """{model: folder with train.pt2, core.pt2, input_<i>.npy, expected.npy, expected64.npy}."""
    root = tmp_path_factory.mktemp("fft")
    folders = {}
    for name, (module, inputs, dynamic) in MODELS.items():
        folder = root / name
        folder.mkdir()
        program = torch.export.export(module, inputs, dynamic_shapes=dynamic)
        torch.export.save(program, folder / "train.pt2")
        torch.export.save(program.run_decompositions(), folder / "core.pt2")
        for i, tensor in enumerate(inputs):
            np.save(folder / f"input_{i}.npy", tensor.numpy())
        with torch.no_grad():
            np.save(folder / "expected.npy", module(*inputs).numpy())
            np.save(folder / "expected64.npy",
                    copy.deepcopy(module).double()(*[t.double() for t in inputs]).numpy())
        folders[name] = folder
    return folders


def _check(actual_path, folder, label):
    ok, err, how = compare(load_npy(actual_path), load_npy(folder / "expected.npy"),
                           load_npy(folder / "expected64.npy"))
    print(f"{label}: max error {err:.3g} ({how})")
    assert ok, f"{label}: max error {err:.3g} ({how})"


def _inputs(folder):
    return sorted(str(p) for p in folder.glob("input_*.npy"))


@pytest.mark.parametrize("model", list(MODELS))
@pytest.mark.parametrize("level", LEVELS)
def test_interpreter_matches_eager(exported, tmp_path, model, level):
    folder = exported[model]
    out = tmp_path / "out.npy"
    run([THUNDERC, str(folder / f"{level}.pt2"), "--interpret", "--inputs",
         ",".join(_inputs(folder)), "--outputs", str(out)])
    _check(out, folder, f"{model}/{level} interpreter")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("model", list(MODELS))
@pytest.mark.parametrize("level", LEVELS)
def test_bundle_matches_eager(exported, tmp_path, model, level, target):
    folder = exported[model]
    bundle = tmp_path / "bundle"
    name = f"{model}_{level}"
    extra = ["--target", "cuda", "--cuda-emulation"] if target == "cuda" else []
    compile_bundle(folder / f"{level}.pt2", bundle, name, extra=extra)
    build = build_bundle(bundle, ["-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON"] if target == "cuda" else [])
    out = tmp_path / "out.npy"
    run([os.path.join(build, f"{name}_run"), "--inputs", *_inputs(folder), "--outputs", str(out)])
    _check(out, folder, f"{model}/{level}/{target} bundle")
    if model != "fnet":
        return
    # One bundle for every batch size: a batch of 5 against eager.
    module = MODELS[model][0]
    x = torch.randn(5, 16, 32, generator=torch.Generator().manual_seed(2))
    np.save(tmp_path / "x5.npy", x.numpy())
    run([os.path.join(build, f"{name}_run"), "--inputs", str(tmp_path / "x5.npy"),
         "--outputs", str(out)])
    with torch.no_grad():
        np.save(tmp_path / "expected5.npy", module(x).numpy())
        np.save(tmp_path / "expected5_64.npy", copy.deepcopy(module).double()(x.double()).numpy())
    ok, err, how = compare(load_npy(out), load_npy(tmp_path / "expected5.npy"),
                           load_npy(tmp_path / "expected5_64.npy"))
    assert ok, f"{model}/{level}/{target} batch 5: max error {err:.3g} ({how})"


class ComplexExp(torch.nn.Module):
    def forward(self, x):
        return torch.exp(torch.fft.rfft(x)).real


class ComplexOutput(torch.nn.Module):
    def forward(self, x):
        return torch.fft.rfft(x)


def _refusal(module, level, tmp_path):
    program = torch.export.export(module, (torch.randn(2, 8),))
    if level == "core":
        program = program.run_decompositions()
    torch.export.save(program, tmp_path / "model.pt2")
    return subprocess.run([THUNDERC, str(tmp_path / "model.pt2"), "-o", str(tmp_path / "out")],
                          capture_output=True, text=True)


@pytest.mark.parametrize("level", LEVELS)
def test_unsupported_complex_op_is_refused(tmp_path, level):
    result = _refusal(ComplexExp(), level, tmp_path)
    assert result.returncode == 5, result.stderr
    assert "aten.exp.default (node 'exp'" in result.stderr, result.stderr
    assert not (tmp_path / "out").exists()
    # The report says why: exp is not among the ops that compute on complex values.
    report = json.loads(run([THUNDERC, str(tmp_path / "model.pt2"),
                             "--emit=report-json"]).stdout)
    reasons = {node["name"]: node["reason"] for node in report["unsupported"]}
    assert list(reasons) == ["exp"], reasons
    assert "aten.exp.default on complex values" in reasons["exp"], reasons


@pytest.mark.parametrize("level", LEVELS)
def test_complex_output_is_refused(tmp_path, level):
    result = _refusal(ComplexOutput(), level, tmp_path)
    assert result.returncode == 5, result.stderr
    assert "output" in result.stderr and "is complex" in result.stderr, result.stderr
    assert "view_as_real" in result.stderr, result.stderr


class ComplexInput(torch.nn.Module):
    def forward(self, z):
        return torch.view_as_real(torch.fft.fft(z))


class LongRfft(torch.nn.Module):
    def forward(self, x):
        return torch.fft.rfft(x).abs()


def test_complex_input_is_refused(tmp_path):
    program = torch.export.export(ComplexInput(), (torch.randn(2, 8, dtype=torch.complex64),))
    torch.export.save(program, tmp_path / "model.pt2")
    result = subprocess.run([THUNDERC, str(tmp_path / "model.pt2"), "--emit=ir"],
                            capture_output=True, text=True)
    assert result.returncode == 5, result.stderr
    assert "input 'z' is complex" in result.stderr, result.stderr
    assert "view_as_complex" in result.stderr, result.stderr


@pytest.mark.parametrize("level", LEVELS)
def test_dft_over_the_matrix_limit_is_refused(tmp_path, level):
    program = torch.export.export(LongRfft(), (torch.randn(1, 3000),))
    if level == "core":
        program = program.run_decompositions()
    torch.export.save(program, tmp_path / "model.pt2")
    report = json.loads(run([THUNDERC, str(tmp_path / "model.pt2"),
                             "--emit=report-json"]).stdout)
    reasons = [node["reason"] for node in report["unsupported"]]
    assert len(reasons) == 1, reasons
    assert "3000 points along dim 1" in reasons[0] and "16 MiB" in reasons[0], reasons
