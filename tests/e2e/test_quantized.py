"""Quantized programs end to end: PyTorch 2 Export quantization (torchao's prepare_pt2e /
convert_pt2e with the X86Inductor and XNNPACK quantizers, static and dynamic; its
quantized_decomposed quantize/dequantize/choose_qparams ops) at both IR levels, and torchao's
quantize_ configs (int8 weight-only, int8 dynamic activation + int8 weight through
torch._int_mm, int4 weight-only and 8-bit dynamic activation + int4 weight) at core ATen. Each
program runs in thunderc's interpreter and as a CPU bundle against eager of the same quantized
model. torchao's training IR keeps its weights as pickled tensor subclasses: refused with the
remedy (exit 5).

Tolerance: the integer parts are exact (round half to even, clamp, integer products), but a
value that float arithmetic in another order (a convolution summed by oneDNN in eager, by BLAS
or the interpreter's float64 here) puts on the other side of a rounding boundary becomes the
neighbouring integer, one quantization step away, and that step propagates to later layers. So
at least 97% of the outputs must match to float32's assert_close tolerance, and every output
within 5% of the output's range (a few flipped steps)."""
import os
import subprocess

import numpy as np
import pytest
import torch
from torch import nn

from conftest import THUNDERC, build_bundle, compile_bundle, run

torchao = pytest.importorskip("torchao")

EXIT_UNSUPPORTED = 5


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3)
        self.conv2 = nn.Conv2d(8, 8, 3)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 32)

    def forward(self, x):
        x = torch.relu(self.conv2(torch.relu(self.conv1(x))))
        return self.fc(torch.flatten(self.pool(x), 1))


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 64)
        self.fc2 = nn.Linear(64, 64)
        self.fc3 = nn.Linear(64, 64)
        self.fc4 = nn.Linear(64, 32)

    def forward(self, x):
        x = torch.relu(self.fc1(x))
        x = torch.relu(self.fc2(x))
        return self.fc4(torch.relu(self.fc3(x)))


class OddMlp(nn.Module):
    """Statically quantized linears whose sizes are off the integer GEMM's blocks: inner dims
    that are not multiples of 4, output features off its 32-wide panels, 26 rows (two 12-row
    blocks and a tail) from a 3-D input, with and without bias."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(70, 45)
        self.fc2 = nn.Linear(45, 33, bias=False)
        self.fc3 = nn.Linear(33, 20)

    def forward(self, x):
        x = torch.relu(self.fc1(x))
        x = torch.nn.functional.gelu(self.fc2(x))
        return self.fc3(x)


def _pt2e(quantizer, module=ConvNet, shape=(2, 3, 16, 16)):
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    torch.manual_seed(0)
    model = module().eval()
    x = torch.randn(*shape)
    prepared = prepare_pt2e(torch.export.export(model, (x,)).module(), quantizer)
    for _ in range(4):
        prepared(torch.randn(*shape))
    return convert_pt2e(prepared), x


def _x86(dynamic):
    from torchao.quantization.pt2e.quantizer import x86_inductor_quantizer as x86

    quantizer = x86.X86InductorQuantizer()
    quantizer.set_global(x86.get_default_x86_inductor_quantization_config(is_dynamic=dynamic))
    return quantizer


def _xnnpack(per_channel, dynamic=False):
    from torchao.testing.pt2e import _xnnpack_quantizer as xnnpack

    quantizer = xnnpack.XNNPACKQuantizer()
    quantizer.set_global(xnnpack.get_symmetric_quantization_config(
        is_per_channel=per_channel, is_dynamic=dynamic))
    return quantizer


def _torchao_configs():
    """One MLP whose four layers each use a different torchao config."""
    from torchao.quantization import (Int8DynamicActivationInt8WeightConfig,
                                      Int8DynamicActivationIntxWeightConfig,
                                      Int8WeightOnlyConfig, IntxWeightOnlyConfig, quantize_)
    from torchao.quantization.granularity import PerGroup

    torch.manual_seed(0)
    model = Mlp().eval()
    configs = {"fc1": Int8WeightOnlyConfig(), "fc2": Int8DynamicActivationInt8WeightConfig(),
               "fc3": IntxWeightOnlyConfig(weight_dtype=torch.int4, granularity=PerGroup(32)),
               "fc4": Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int4,
                                                            weight_granularity=PerGroup(32))}
    for name, config in configs.items():
        quantize_(model, config, filter_fn=lambda module, fqn, name=name: fqn == name)
    return model, torch.randn(2, 64)


VARIANTS = {
    "pt2e_x86": lambda: _pt2e(_x86(False)),
    "pt2e_x86_dynamic": lambda: _pt2e(_x86(True)),
    "pt2e_x86_mlp": lambda: _pt2e(_x86(False), OddMlp, (2, 13, 70)),
    "pt2e_xnnpack": lambda: _pt2e(_xnnpack(True)),
    "pt2e_xnnpack_per_tensor": lambda: _pt2e(_xnnpack(False)),
    "pt2e_xnnpack_dynamic": lambda: _pt2e(_xnnpack(True, dynamic=True)),
    "torchao_int8_int4": _torchao_configs,
}
# (variant, IR level) pairs also built as CPU bundles (every program runs in the interpreter).
BUNDLES = {("pt2e_x86", "train"), ("pt2e_x86_mlp", "train")} | {
    ("pt2e_x86_mlp", "core"),
    ("pt2e_x86", "core"), ("pt2e_x86_dynamic", "core"), ("pt2e_xnnpack", "core"),
    ("pt2e_xnnpack_per_tensor", "core"), ("pt2e_xnnpack_dynamic", "core"),
    ("torchao_int8_int4", "core")}


def _export(variant, level, folder):
    model, x = VARIANTS[variant]()
    program = torch.export.export(model, (x,))
    if level == "core":
        program = program.run_decompositions()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{variant}_{level}.pt2"
    torch.export.save(program, str(path))
    np.save(folder / "input.npy", x.numpy())
    with torch.no_grad():
        expected = model(x).numpy()
    return path, folder / "input.npy", expected


def _check(actual, expected, label):
    close = np.isclose(actual, expected, rtol=1.3e-6, atol=1e-5)
    spread = float(np.abs(expected).max())
    worst = float(np.abs(actual - expected).max())
    print(f"{label}: {close.mean():.1%} of outputs to float32 tolerance, max error {worst:.3g} "
          f"(output range {spread:.3g})")
    assert close.mean() >= 0.97, f"{label}: only {close.mean():.1%} of outputs match"
    assert worst <= 0.05 * spread, f"{label}: max error {worst:.3g} over 5% of {spread:.3g}"


@pytest.mark.parametrize("level", ["core", "train"])
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_quantized_program(variant, level, tmp_path):
    path, inputs, expected = _export(variant, level, tmp_path)
    if level == "train" and variant == "torchao_int8_int4":
        # torchao keeps quantized weights as tensor subclasses, saved pickled: refused with the
        # remedy (core ATen), never unpickled.
        result = subprocess.run([THUNDERC, str(path), "-o", str(tmp_path / "out")],
                                capture_output=True, text=True)
        assert result.returncode == EXIT_UNSUPPORTED, result.stderr
        assert "run_decompositions()" in result.stderr, result.stderr
        assert not (tmp_path / "out").exists()
        return
    output = tmp_path / "interpreted.npy"
    run([THUNDERC, str(path), "--interpret", "--inputs", str(inputs), "--outputs", str(output)])
    _check(np.load(output), expected, f"{variant} {level} interpreter")
    # The int8/int4 weights stay quantized (linear_wq reads them), not folded to float.
    ir = run([THUNDERC, str(path), "--emit=ir"]).stdout
    expected_wq = {"torchao_int8_int4": 3, "pt2e_x86_mlp": 3}.get(variant, 1)
    assert ir.count("= linear_wq(") >= expected_wq, ir
    # Statically quantized activations feed the linears as integers (the integer GEMM).
    static = variant.startswith("pt2e") and "dynamic" not in variant
    assert (ir.count("x_scale=") >= expected_wq) == static, ir
    # ... and the convolutions too (conv2d_wq: the integer GEMM per image).
    convolutions = 2 if static and variant != "pt2e_x86_mlp" else 0
    assert ir.count("= conv2d_wq(") == convolutions, ir
    if (variant, level) not in BUNDLES:
        return
    bundle = tmp_path / "bundle"
    compile_bundle(path, bundle, "quantized")
    if static:
        source = (bundle / "quantized.cpp").read_text()
        assert source.count("tc::linear_wq_qx<") >= expected_wq, source
        assert source.count("tc::conv2d_wq<") == convolutions, source
    build = build_bundle(bundle)
    output = tmp_path / "bundle.npy"
    run([os.path.join(build, "quantized_run"), "--inputs", str(inputs), "--outputs", str(output)])
    _check(np.load(output), expected, f"{variant} {level} CPU bundle")


class Projection(nn.Module):
    """Layers whose inner dims are and are not multiples of 32 (int4 groups), with and without
    bias, and a 3-D input."""

    def __init__(self):
        super().__init__()
        self.up = nn.Linear(64, 96)
        self.odd = nn.Linear(96, 40, bias=False)
        self.down = nn.Linear(40, 16)

    def forward(self, x):
        return self.down(torch.relu(self.odd(torch.nn.functional.gelu(self.up(x)))))


def _fake_quantize(weight, bits):
    """What thunderc --quantize-weights stores, dequantized: symmetric int8 per output feature,
    or int4 per 32 inputs (layers whose inputs are not a multiple of 32: int8)."""
    w = weight.detach().double()
    group = 32 if bits == 4 and w.shape[1] % 32 == 0 else w.shape[1]
    qmax = 7.0 if group == 32 and bits == 4 else 127.0
    qmin = -8.0 if qmax == 7.0 else -127.0
    blocks = w.reshape(w.shape[0], -1, group)
    amax = blocks.abs().amax(dim=-1, keepdim=True)
    scale = torch.where(amax > 0, amax / qmax, torch.ones_like(amax)).float().double()
    q = torch.clamp(torch.round(blocks / scale), qmin, qmax)
    return (q * scale).float().reshape(w.shape)


def _fake_quantize_activations(module, inputs):
    """linear_wq {dynamic_act}'s activations: int8 per 32 inputs, in float32."""
    x = inputs[0]
    blocks = x.reshape(*x.shape[:-1], -1, 32)
    d = blocks.abs().amax(dim=-1, keepdim=True) / 127.0
    inverse = torch.where(d != 0, 1.0 / d, torch.zeros_like(d))
    return (torch.round(blocks * inverse) * d).reshape(x.shape)


@pytest.mark.parametrize("width", ["int8", "int4", "int4-act8"])
def test_quantize_weights(width, tmp_path):
    """thunderc --quantize-weights on a float model: the bundle and the interpreter match eager
    of the same model with its weights quantized the same way (float32 tolerance: only the
    order of the sums differs), weights.bin shrinks, and the error against the float model is
    what the width costs (printed)."""
    torch.manual_seed(0)
    model = Projection().eval()
    x = torch.randn(2, 5, 64)
    pt2 = tmp_path / "projection.pt2"
    torch.export.save(torch.export.export(model, (x,)), str(pt2))
    np.save(tmp_path / "input.npy", x.numpy())
    with torch.no_grad():
        exact = model(x).numpy()
        for layer in (model.up, model.odd, model.down):
            layer.weight.copy_(_fake_quantize(layer.weight, 8 if width == "int8" else 4))
        if width == "int4-act8":  # the int4 layers (inputs a multiple of 32)
            model.up.register_forward_pre_hook(_fake_quantize_activations)
            model.odd.register_forward_pre_hook(_fake_quantize_activations)
        expected = model(x).numpy()
    # Float sums in another order than eager's GEMM: float32 tolerance, widened to 1e-5 for
    # the kernels' per-group partial sums. int4-act8: an activation one float rounding away
    # from eager's can round to the neighbouring int8 step (d * s * |q| <= 1e-3 here).
    tolerance = 1e-3 if width == "int4-act8" else 1e-5
    flag = ["--quantize-weights", width]
    output = tmp_path / "interpreted.npy"
    run([THUNDERC, str(pt2), "--interpret", "--inputs", str(tmp_path / "input.npy"), "--outputs",
         str(output)] + flag)
    np.testing.assert_allclose(np.load(output), expected, rtol=tolerance, atol=tolerance)
    ir = run([THUNDERC, str(pt2), "--emit=ir"] + flag).stdout
    assert ir.count("= linear_wq(") == 3, ir
    assert ir.count("bits=4") == (0 if width == "int8" else 2), ir
    assert ir.count("dynamic_act=true") == (2 if width == "int4-act8" else 0), ir
    bundle = tmp_path / "bundle"
    compile_bundle(pt2, bundle, "projection", extra=flag)
    float_bundle = tmp_path / "float"
    compile_bundle(pt2, float_bundle, "projection")
    size, float_size = ((b / "weights.bin").stat().st_size for b in (bundle, float_bundle))
    assert size < float_size * (0.35 if width == "int8" else 0.3), (size, float_size)
    build = build_bundle(bundle)
    output = tmp_path / "bundle.npy"
    run([os.path.join(build, "projection_run"), "--inputs", str(tmp_path / "input.npy"),
         "--outputs", str(output)])
    actual = np.load(output)
    np.testing.assert_allclose(actual, expected, rtol=tolerance, atol=tolerance)
    error = np.abs(actual - exact).max() / np.abs(exact).max()
    print(f"--quantize-weights {width}: weights.bin {size} bytes (float {float_size}), max "
          f"error against the float model {error:.2%} of its range")


def test_quantize_weights_refusals(tmp_path):
    """A width other than int8/int4, and a pipeline without the pass, are usage errors."""
    torch.manual_seed(0)
    pt2 = tmp_path / "projection.pt2"
    torch.export.save(torch.export.export(Projection().eval(), (torch.randn(1, 64),)), str(pt2))
    for extra, message in ((["--quantize-weights", "int3"], "expected int8, int4 or int4-act8"),
                           (["--quantize-weights", "int8", "-O0"], "-O1 or -O2")):
        result = subprocess.run([THUNDERC, str(pt2), "--emit=ir"] + extra, capture_output=True,
                                text=True)
        assert result.returncode == 2, result.stderr
        assert message in result.stderr, result.stderr


@pytest.mark.parametrize("width", ["int4", "int4-act8"])
def test_quantized_linear_on_emulated_cuda(width, tmp_path):
    """tcg::linear_wq (int4 weights; weight-only and with dynamic int8 activations) on the CPU
    emulation of CUDA against the CPU bundle of the same program."""
    torch.manual_seed(0)
    model = Projection().eval()
    x = torch.randn(3, 64)
    pt2 = tmp_path / "projection.pt2"
    torch.export.save(torch.export.export(model, (x,)), str(pt2))
    np.save(tmp_path / "input.npy", x.numpy())
    outputs = {}
    for target in ("cpu", "cuda"):
        bundle = tmp_path / target
        extra = ["--quantize-weights", width, "--target", target]
        extra += ["--cuda-emulation"] if target == "cuda" else []
        compile_bundle(pt2, bundle, "projection", extra=extra)
        build = build_bundle(bundle, ["-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON"] if target == "cuda"
                             else [])
        outputs[target] = tmp_path / f"{target}.npy"
        run([os.path.join(build, "projection_run"), "--inputs", str(tmp_path / "input.npy"),
             "--outputs", str(outputs[target])])
    # The same arithmetic summed in another order (warp shuffles against AVX-512 lanes).
    np.testing.assert_allclose(np.load(outputs["cuda"]), np.load(outputs["cpu"]), rtol=1e-5,
                               atol=1e-5)


def test_static_int8_linear_on_emulated_cuda(tmp_path):
    """tcg::linear_wq_qx (u8 activations of PT2E's static quantization, int8 weights) on the
    CPU emulation of CUDA against eager of the quantized model and the CPU bundle."""
    path, inputs, expected = _export("pt2e_x86_mlp", "core", tmp_path)
    outputs = {}
    for target in ("cpu", "cuda"):
        bundle = tmp_path / target
        extra = ["--target", target] + (["--cuda-emulation"] if target == "cuda" else [])
        compile_bundle(path, bundle, "mlp", extra=extra)
        build = build_bundle(bundle, ["-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON"] if target == "cuda"
                             else [])
        outputs[target] = tmp_path / f"{target}.npy"
        run([os.path.join(build, "mlp_run"), "--inputs", str(inputs), "--outputs",
             str(outputs[target])])
        _check(np.load(outputs[target]), expected, f"pt2e_x86_mlp {target} bundle")
    assert "linear_wq_qx<" in (tmp_path / "cuda" / "mlp.cu").read_text()
