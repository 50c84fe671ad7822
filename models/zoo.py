"""thunderc model zoo: small nn.Module definitions plus a registry of (model, example inputs, dynamic shapes).

Every zoo entry is a `ZooEntry`. `models/export_zoo.py` turns each entry into `train.pt2`,
`core.pt2`, `.npy` inputs / expected outputs and a `manifest.json` (see models/README.md).

Conventions
-----------
* All models are tiny (a few thousand to ~150k parameters) so that exporting the whole zoo takes
  seconds and a plain C++ reference interpreter can run each one well under a second.
* Weights are deterministic: `ZooEntry.make_model()` calls `torch.manual_seed(seed)` before
  constructing the module, and BatchNorm layers get random (non-trivial) running statistics and
  affine parameters through `_randomize_bn`.
* Example inputs are deterministic: each `inputs` builder receives its own `torch.Generator`
  seeded by `ZooEntry.make_inputs()`.
* Variants at another dtype: `with_dtype(entry, torch.float16)` returns a copy of an entry whose
  model is `.to(dtype)` and whose floating-point inputs are cast to `dtype` (integer and bool
  inputs are left alone). Adding one is a single line in `DTYPE_VARIANTS`, e.g.
  `("mlp", torch.bfloat16),` which registers "mlp_bf16". Expected outputs of a variant are eager
  in that dtype (PyTorch's CPU kernels compute in fp32 and round at each op's output; a few,
  such as scaled_dot_product_attention, also round inside);
  expected_fp64 is the same model converted with `.double()`, so the referee measures how far
  eager's own per-op rounding is from exact.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim

# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def _randomize_bn(module: nn.Module) -> None:
    """Give every BatchNorm in `module` non-trivial running stats and affine params (uses the global RNG)."""
    for m in module.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            with torch.no_grad():
                m.running_mean.copy_(torch.randn_like(m.running_mean) * 0.1)
                m.running_var.copy_(torch.rand_like(m.running_var) * 0.5 + 0.5)
                m.weight.copy_(1.0 + 0.1 * torch.randn_like(m.weight))
                m.bias.copy_(0.1 * torch.randn_like(m.bias))


def _randn(g: torch.Generator, *shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=g)


# --------------------------------------------------------------------------------------------
# 1. mlp
# --------------------------------------------------------------------------------------------


class MLP(nn.Module):
    """Linear/ReLU/Dropout/Linear/ReLU/Linear: 64 -> 128 -> 64 -> 10."""

    def __init__(self, d_in: int = 64, d_h1: int = 128, d_h2: int = 64, d_out: int = 10):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_h1)
        self.act1 = nn.ReLU()
        self.drop = nn.Dropout(0.1)  # identity in eval mode; shows up as aten.dropout in training IR
        self.fc2 = nn.Linear(d_h1, d_h2)
        self.act2 = nn.ReLU()
        self.fc3 = nn.Linear(d_h2, d_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.drop(self.act1(self.fc1(x)))
        x = self.act2(self.fc2(x))
        return self.fc3(x)


# --------------------------------------------------------------------------------------------
# 2. cnn
# --------------------------------------------------------------------------------------------


class SmallCNN(nn.Module):
    """conv(stride 2, pad 1)+bn+relu -> maxpool -> conv+bn+relu -> adaptive avgpool -> flatten -> linear."""

    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, kernel_size=3, stride=2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.relu1 = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.conv2 = nn.Conv2d(16, 32, kernel_size=3, stride=1, padding=1)  # with bias
        self.bn2 = nn.BatchNorm2d(32)
        self.relu2 = nn.ReLU()
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(self.relu1(self.bn1(self.conv1(x))))  # [N,16,8,8] for 32x32 input
        x = self.relu2(self.bn2(self.conv2(x)))
        x = torch.flatten(self.gap(x), 1)
        return self.fc(x)


# --------------------------------------------------------------------------------------------
# 3. resnet
# --------------------------------------------------------------------------------------------


def _conv3x3(c_in: int, c_out: int, stride: int = 1) -> nn.Conv2d:
    return nn.Conv2d(c_in, c_out, kernel_size=3, stride=stride, padding=1, bias=False)


class BasicBlock(nn.Module):
    """torchvision-style BasicBlock (residual written as `out += identity`, then relu)."""

    def __init__(self, c_in: int, c_out: int, stride: int = 1):
        super().__init__()
        self.conv1 = _conv3x3(c_in, c_out, stride)
        self.bn1 = nn.BatchNorm2d(c_out)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = _conv3x3(c_out, c_out)
        self.bn2 = nn.BatchNorm2d(c_out)
        self.downsample: Optional[nn.Module] = None
        if stride != 1 or c_in != c_out:
            self.downsample = nn.Sequential(
                nn.Conv2d(c_in, c_out, kernel_size=1, stride=stride, bias=False),
                nn.BatchNorm2d(c_out),
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        out = self.relu(out)
        return out


class SmallResNet(nn.Module):
    """stem conv+bn+relu -> BasicBlock(16) -> BasicBlock(16->32, stride 2) -> BasicBlock(32) -> gap -> fc."""

    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.relu = nn.ReLU(inplace=True)
        self.layer1 = nn.Sequential(BasicBlock(16, 16), BasicBlock(16, 32, stride=2), BasicBlock(32, 32))
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.layer1(x)
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


# --------------------------------------------------------------------------------------------
# 4. mobilenet
# --------------------------------------------------------------------------------------------


class DepthwiseSeparable(nn.Module):
    """depthwise 3x3 conv (groups=channels)+bn+act -> pointwise 1x1 conv+bn+act."""

    def __init__(self, c_in: int, c_out: int, stride: int, act: Callable[[], nn.Module]):
        super().__init__()
        self.dw = nn.Conv2d(c_in, c_in, kernel_size=3, stride=stride, padding=1, groups=c_in, bias=False)
        self.bn_dw = nn.BatchNorm2d(c_in)
        self.act_dw = act()
        self.pw = nn.Conv2d(c_in, c_out, kernel_size=1, bias=False)
        self.bn_pw = nn.BatchNorm2d(c_out)
        self.act_pw = act()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.act_dw(self.bn_dw(self.dw(x)))
        return self.act_pw(self.bn_pw(self.pw(x)))


class SmallMobileNet(nn.Module):
    """stem conv(stride 2)+bn+hardswish -> 3 depthwise-separable blocks (ReLU6, ReLU6, Hardswish) -> gap -> linear."""

    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 16, kernel_size=3, stride=2, padding=1, bias=False),
            nn.BatchNorm2d(16),
            nn.Hardswish(),
        )
        self.blocks = nn.Sequential(
            DepthwiseSeparable(16, 24, stride=1, act=nn.ReLU6),
            DepthwiseSeparable(24, 32, stride=2, act=nn.ReLU6),
            DepthwiseSeparable(32, 48, stride=1, act=nn.Hardswish),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(48, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.blocks(self.stem(x))
        x = self.pool(x).flatten(1)
        return self.classifier(x)


# --------------------------------------------------------------------------------------------
# 5. transformer / 6. gpt
# --------------------------------------------------------------------------------------------


class SelfAttention(nn.Module):
    """Multi-head self-attention with separate q/k/v Linear layers and F.scaled_dot_product_attention."""

    def __init__(self, d_model: int, n_heads: int, causal: bool):
        super().__init__()
        assert d_model % n_heads == 0
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.causal = causal
        self.q = nn.Linear(d_model, d_model)
        self.k = nn.Linear(d_model, d_model)
        self.v = nn.Linear(d_model, d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        # [B, T, C] -> [B, H, T, Dh]
        q = self.q(x).view(b, t, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k(x).view(b, t, self.n_heads, self.d_head).transpose(1, 2)
        v = self.v(x).view(b, t, self.n_heads, self.d_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
        # [B, H, T, Dh] -> [B, T, C]
        y = y.transpose(1, 2).reshape(b, t, c)
        return self.proj(y)


class EncoderLayer(nn.Module):
    """Pre-norm transformer block: x + attn(ln1(x)), then x + mlp(ln2(x)) with a GELU MLP."""

    def __init__(self, d_model: int, n_heads: int, d_ff: int, causal: bool = False):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = SelfAttention(d_model, n_heads, causal)
        self.ln2 = nn.LayerNorm(d_model)
        self.fc1 = nn.Linear(d_model, d_ff)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(d_ff, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        x = x + self.fc2(self.act(self.fc1(self.ln2(x))))
        return x


class TransformerEncoder(nn.Module):
    """One hand-written pre-norm encoder layer (non-causal, no mask) on [B, T, 64], 4 heads."""

    def __init__(self, d_model: int = 64, n_heads: int = 4, d_ff: int = 128):
        super().__init__()
        self.layer = EncoderLayer(d_model, n_heads, d_ff, causal=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layer(x)


class TinyGPT(nn.Module):
    """Causal decoder: tok + learned pos embedding, 2 causal blocks, final LayerNorm, head tied to tok_emb."""

    def __init__(self, vocab: int = 128, max_len: int = 32, d_model: int = 64, n_heads: int = 4, n_layers: int = 2):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab, d_model)
        self.pos_emb = nn.Embedding(max_len, d_model)
        self.blocks = nn.ModuleList(
            [EncoderLayer(d_model, n_heads, 4 * d_model, causal=True) for _ in range(n_layers)]
        )
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab, bias=False)
        self.head.weight = self.tok_emb.weight  # weight tying: one parameter, two users
        # GPT-2-like small embedding init keeps the (tied) logits in a sane range (|logit| ~ 1),
        # which matters for fp16/bf16 variants.
        nn.init.normal_(self.tok_emb.weight, std=0.1)
        nn.init.normal_(self.pos_emb.weight, std=0.1)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        t = idx.shape[1]
        pos = torch.arange(t, device=idx.device)  # [T] int64
        x = self.tok_emb(idx) + self.pos_emb(pos)  # [B,T,C] + [T,C]
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))  # logits [B, T, vocab]


# --------------------------------------------------------------------------------------------
# 7. dynamic_mlp
# --------------------------------------------------------------------------------------------


class DynamicMLP(nn.Module):
    """[B, 4, 16] -> reshape(B, -1) -> Linear 64->32 -> ReLU -> view(B, 4, -1) -> softmax -> mean(dim 1).

    Exported with a dynamic batch dimension, so both reshapes depend on the symbolic size of x.
    """

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 32)
        self.fc2 = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b = x.shape[0]
        h = torch.relu(self.fc1(x.reshape(x.shape[0], -1)))  # [B, 32]
        h = h.view(b, 4, -1)  # [B, 4, 8]
        h = torch.softmax(self.fc2(h), dim=-1)
        return h.mean(dim=1)  # [B, 8]


# --------------------------------------------------------------------------------------------
# 8. ops
# --------------------------------------------------------------------------------------------


class OpsMix(nn.Module):
    """A grab bag of broadcasting / view / mask / reduction / cast / elementwise ops.

    Inputs: a [4,1,8] float, b [6,1] float, idx [4,8] int64.
    Outputs: softmax [12,16] float, reductions [8,4] float (a transposed, non-contiguous view),
    count [4] int64. Boolean masks come from comparisons on *inputs* only, so they are identical
    in the fp32 model and in the fp64 referee.
    """

    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(16))  # broadcast over the last dim

    def forward(self, a: torch.Tensor, b: torch.Tensor, idx: torch.Tensor):
        x = a + b  # broadcasting [4,1,8] + [6,1] -> [4,6,8]
        w = torch.where(a > 0, x * 0.5 + 1, 2 - x)  # bool mask from a comparison; Python scalars
        w = w.masked_fill(idx.unsqueeze(1) == 3, -1.0)  # int compare -> bool mask, broadcast over dim 1
        s1 = w[:, 1:5]  # slice -> [4,4,8]
        s2 = w[..., ::2]  # step slice -> [4,6,4]
        sel = w[:, 2]  # select -> [4,8]
        c = torch.cat([s1, s2[:, :4].transpose(1, 2)], dim=-1)  # [4,4,8] ++ [4,4,4] -> [4,4,12]
        p = c.permute(2, 1, 0).reshape(12, 16) / 3 * self.scale  # reshape of a permuted tensor (needs a copy)

        z = torch.rsqrt(p ** 2 + 1.0) + torch.exp(-p.abs()) + torch.tanh(p) * torch.sigmoid(p)
        z = (z.to(torch.float64) * 1.25).to(p.dtype)  # round trip through float64
        z = z + idx.to(p.dtype).reshape(2, 16).mean(dim=0)  # int -> float cast, reduction [16]
        out0 = torch.softmax(z, dim=-1)  # [12,16]

        r = w.mean(dim=1)  # [4,8]        (keepdim=False)
        r = r - sel.sum(dim=1, keepdim=True) / 8  # [4,1]   (keepdim=True)
        r = r + w.amax(dim=(1, 2)).unsqueeze(1)  # [4] -> [4,1], amax over two dims
        out1 = r.transpose(0, 1)  # [8,4], returned as a non-contiguous view

        count = (idx == 3).sum(dim=-1)  # sum of bool -> int64 [4]
        return out0, out1, count


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ZooEntry:
    """One zoo model.

    name:           folder name under the export root.
    build:          constructs the nn.Module (called after torch.manual_seed(seed)).
    inputs:         builds the example args tuple from a seeded generator; takes optional keyword
                    overrides (e.g. batch=...) used to build the extra dynamic-shape cases.
    dynamic_shapes: None, or a function returning the `dynamic_shapes` argument of torch.export.export.
    cases:          extra named input cases as {case_name: kwargs for `inputs`} (for dynamic models).
    dtype:          floating-point dtype of the model and of its floating-point inputs.
    seed:           seed for the weights and the inputs.
    """

    name: str
    build: Callable[[], nn.Module]
    inputs: Callable[..., tuple]
    dynamic_shapes: Optional[Callable[[], Any]] = None
    cases: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    dtype: torch.dtype = torch.float32
    seed: int = 0

    def make_model(self) -> nn.Module:
        """Fresh model with deterministic weights, in eval mode, at `self.dtype`."""
        torch.manual_seed(self.seed)
        model = self.build()
        _randomize_bn(model)
        model = model.eval()
        if self.dtype != torch.float32:
            model = model.to(self.dtype)
        return model

    def make_inputs(self, **overrides: Any) -> tuple:
        """Deterministic example args; floating-point tensors are cast to `self.dtype`."""
        g = torch.Generator().manual_seed(1000 + self.seed)
        args = self.inputs(g, **overrides)
        return tuple(
            a.to(self.dtype) if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args
        )


def with_dtype(entry: ZooEntry, dtype: torch.dtype, suffix: Optional[str] = None) -> ZooEntry:
    """Copy of `entry` whose model and floating-point inputs use `dtype` (name gets a suffix, e.g. mlp_bf16)."""
    if suffix is None:
        suffix = {torch.float16: "fp16", torch.bfloat16: "bf16", torch.float64: "fp64"}[dtype]
    return dataclasses.replace(entry, name=f"{entry.name}_{suffix}", dtype=dtype)


_BATCH = Dim("batch", min=1, max=64)

# Lower-precision variants of zoo entries, one line each, e.g. ("mlp", torch.bfloat16) -> "mlp_bf16".
# Each one covers different ops at a reduced dtype: linear/relu (mlp), conv/batch norm/pools
# (cnn), layer norm/softmax/attention/gelu (transformer), and an integer-indexed embedding
# feeding a causal decoder (gpt). Every entry adds three bundle builds to tests/e2e.
DTYPE_VARIANTS: list[tuple[str, torch.dtype]] = [
    ("mlp", torch.float16),
    ("cnn", torch.bfloat16),
    ("transformer", torch.float16),
    ("gpt", torch.bfloat16),
]


def _build_registry() -> list[ZooEntry]:
    zoo = [
        ZooEntry("mlp", MLP, lambda g: (_randn(g, 4, 64),), seed=1),
        ZooEntry("cnn", SmallCNN, lambda g: (_randn(g, 2, 3, 32, 32),), seed=2),
        ZooEntry("resnet", SmallResNet, lambda g: (_randn(g, 2, 3, 32, 32),), seed=3),
        ZooEntry("mobilenet", SmallMobileNet, lambda g: (_randn(g, 2, 3, 32, 32),), seed=4),
        ZooEntry("transformer", TransformerEncoder, lambda g: (_randn(g, 2, 16, 64),), seed=5),
        ZooEntry(
            "gpt",
            TinyGPT,
            lambda g: (torch.randint(0, 128, (2, 16), generator=g, dtype=torch.int64),),
            seed=6,
        ),
        ZooEntry(
            "dynamic_mlp",
            DynamicMLP,
            lambda g, batch=4: (_randn(g, batch, 4, 16),),
            dynamic_shapes=lambda: ({0: _BATCH},),
            cases={
                "batch_min": {"batch": _BATCH.min},
                "batch_mid": {"batch": (_BATCH.min + _BATCH.max) // 2},
                "batch_max": {"batch": _BATCH.max},
            },
            seed=7,
        ),
        ZooEntry(
            "ops",
            OpsMix,
            lambda g: (
                _randn(g, 4, 1, 8),
                _randn(g, 6, 1),
                torch.randint(0, 8, (4, 8), generator=g, dtype=torch.int64),
            ),
            seed=8,
        ),
    ]
    by_name = {e.name: e for e in zoo}
    zoo += [with_dtype(by_name[name], dtype) for name, dtype in DTYPE_VARIANTS]
    return zoo


ZOO: list[ZooEntry] = _build_registry()


def get(name: str) -> ZooEntry:
    for e in ZOO:
        if e.name == name:
            return e
    raise KeyError(f"unknown zoo model {name!r}; known: {', '.join(e.name for e in ZOO)}")
