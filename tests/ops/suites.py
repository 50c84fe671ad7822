"""Per-op test suites for thunderc: a few modules, each returning MANY outputs (one per case).

Every case is one row of a suite's table: a name and a function of the suite module and its
inputs that returns one tensor. Output <i> of a suite is case <i> of its table, so a mismatch
on an output names its case. Grouping cases into a few suites keeps CI time low: a suite is
exported once per IR level, interpreted once, and compiled into ONE bundle per level.

Suites: elementwise, reductions, shape, nn, conv_norm, resample, resample_indexed, scatter, roll, fft,
rnn, batch_stats,
control_flow, autocast,
sort_bag, spatial3d, data_dependent,
degenerate (0-d tensors and size-0 dims, every op family)
(see SUITES at the bottom).

Export layout (`export_suite`), like models/export_zoo.py:

    <out>/<suite>/train.pt2                  torch.export.export(module.eval(), inputs)
    <out>/<suite>/core.pt2                   ep.run_decompositions()
    <out>/<suite>/inputs/input_<i>.npy       the fixed-seed inputs, graph input order
    <out>/<suite>/expected/output_<i>.npy    eager outputs (torch.no_grad)
    <out>/<suite>/expected_fp64/output_<i>.npy  the fp64 referee: a deep copy of the module
                                             converted with .double(), run on the float inputs
                                             cast to float64 (int/bool inputs unchanged)
    <out>/<suite>/manifest.json              suite name, case names (= output names), output
                                             dtypes/shapes, input names, and per level the
                                             cases each exported node feeds ("node_cases")

bfloat16 tensors are written as their '<u2' bit patterns (tests/golden/tolerances.load_npy
reads them back).

Usage (for debugging; the pytest fixture in test_ops.py calls export_suite directly):

    python3 tests/ops/suites.py --out /tmp/ops [--only nn,shape] [--case nn:conv2d_depthwise]
                                [--exclude elementwise:clamp_int_float_bounds]

`--case SUITE:CASE[,...]` exports a suite that holds only the named cases, `--exclude` one
without them: handy to bisect a failing suite, or to test the rest of a suite while one case
stops it from importing.
"""

from __future__ import annotations

import argparse
import copy
import json
import shutil
import sys
import time
import types
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

LEVELS = ("train", "core")

# --------------------------------------------------------------------------------------------
# The suite module
# --------------------------------------------------------------------------------------------

CaseFn = Callable[[nn.Module, types.SimpleNamespace], torch.Tensor]


class SuiteModule(nn.Module):
    """Runs every case of a table on the same named inputs; output i is case i."""

    def __init__(self, input_names: list[str], cases: list[tuple[str, CaseFn]],
                 submodules: dict[str, nn.Module] | None = None):
        super().__init__()
        self.input_names = list(input_names)
        self.case_names = [name for name, _ in cases]
        self._case_fns = [fn for _, fn in cases]
        for name, module in (submodules or {}).items():
            self.add_module(name, module)

    def forward(self, *args: torch.Tensor) -> tuple[torch.Tensor, ...]:
        t = types.SimpleNamespace(**dict(zip(self.input_names, args, strict=True)))
        return tuple(fn(self, t) for fn in self._case_fns)


@dataclass
class Suite:
    name: str
    make_inputs: Callable[[torch.Generator], dict[str, torch.Tensor]]
    cases: list[tuple[str, CaseFn]]
    make_submodules: Callable[[], dict[str, nn.Module]] | None = None
    # The IR levels tested. A suite tested at "train" only holds ops whose core-ATen
    # decomposition is made of other ops (its comment names them).
    levels: tuple[str, ...] = LEVELS
    # The bundle targets tested (linalg compiles for the CPU only; CUDA refuses it).
    targets: tuple[str, ...] = ("cpu", "cuda")

    def case_names(self) -> list[str]:
        return [name for name, _ in self.cases]

    def build(self, only: list[str] | None = None) -> tuple[SuiteModule, tuple[torch.Tensor, ...]]:
        """The module (weights from a fixed seed, eval mode) and its inputs (fixed seed)."""
        cases = self.cases
        if only:
            unknown = set(only) - set(self.case_names())
            if unknown:
                raise KeyError(f"suite {self.name}: no case(s) {sorted(unknown)}")
            cases = [c for c in self.cases if c[0] in only]
        torch.manual_seed(1234)
        submodules = self.make_submodules() if self.make_submodules else {}
        g = torch.Generator().manual_seed(4321)
        inputs = self.make_inputs(g)
        module = SuiteModule(list(inputs), cases, submodules).eval()
        return module, tuple(inputs.values())


def _randn(g, *shape):
    return torch.randn(shape, generator=g)


def _rand(g, *shape, low=0.0, high=1.0):
    return torch.rand(shape, generator=g) * (high - low) + low


def _randint(g, low, high, *shape):
    return torch.randint(low, high, shape, generator=g, dtype=torch.int64)


def _randbool(g, *shape):
    return torch.rand(shape, generator=g) > 0.5


# --------------------------------------------------------------------------------------------
# elementwise
# --------------------------------------------------------------------------------------------


def _elementwise_inputs(g):
    nonzero = _randint(g, 1, 6, 3, 8) * torch.where(_randbool(g, 3, 8), 1, -1)
    return {
        "a": _randn(g, 3, 8),
        "b": _randn(g, 3, 8),
        "p": _rand(g, 3, 8, low=0.5, high=2.0),  # positive: log/sqrt/rsqrt/pow base/divisor
        "c": _randn(g, 4, 1, 8),  # broadcasts with d: [4,1,8] + [3,1] -> [4,3,8]
        "d": _randn(g, 3, 1),
        "e": _randn(g, 1, 5, 1),  # size-1 dims
        "z": _randn(g, 0, 4),  # a size-0 dim
        "s": _randn(g),  # 0-d
        "i": _randint(g, -10, 11, 3, 8),
        "j": nonzero,  # int64 divisors, both signs, never 0
        "m": _randbool(g, 3, 8),
        "n": _randbool(g, 3, 8),
        "q": _randn(g, 8, 3),  # q.t() is a non-contiguous [3,8]
        "w": _randn(g, 3, 16),  # w[:, ::2] is a strided [3,8]
        "r": _randn(g, 8, 2, 3),  # r.permute(...) is a permuted view
        "g4": _randn(g, 2, 1, 3, 1),  # broadcasts with h4 on every dim: -> [2,4,3,5]
        "h4": _randn(g, 4, 1, 5),
    }


ELEMENTWISE_CASES: list[tuple[str, CaseFn]] = [
    # -- unary
    ("neg", lambda m, t: -t.a),
    ("abs", lambda m, t: t.a.abs()),
    ("relu", lambda m, t: F.relu(t.a)),
    ("sigmoid", lambda m, t: torch.sigmoid(t.a)),
    ("tanh", lambda m, t: torch.tanh(t.a)),
    ("exp", lambda m, t: torch.exp(t.a)),
    ("log", lambda m, t: torch.log(t.p)),
    ("sqrt", lambda m, t: torch.sqrt(t.p)),
    ("rsqrt", lambda m, t: torch.rsqrt(t.p)),
    ("reciprocal", lambda m, t: torch.reciprocal(t.p)),
    ("erf", lambda m, t: torch.erf(t.a)),
    ("erfc", lambda m, t: torch.erfc(t.a * 3)),
    ("lgamma", lambda m, t: torch.lgamma(t.a * 4)),  # negative non-integers too
    ("digamma", lambda m, t: torch.digamma(t.a * 4)),
    ("digamma_large", lambda m, t: torch.digamma(t.p * 30)),  # the asymptotic series
    ("mvlgamma", lambda m, t: torch.mvlgamma(t.p + 2, 3)),
    ("polygamma1", lambda m, t: torch.polygamma(1, t.a * 4)),  # trigamma, reflection below 1/2
    ("polygamma3", lambda m, t: torch.polygamma(3, t.p * 3)),  # Hurwitz zeta
    ("zeta", lambda m, t: torch.special.zeta(t.p * 3 + 1, t.p)),
    # torch.special (tc_math.h's special_detail, in double): each argument range spans the
    # algorithm's branches (series, recurrence/quadrature, asymptotic; negatives and tails).
    ("erfinv", lambda m, t: torch.erfinv(torch.tanh(t.a * 2))),  # |y| < 1/2 and the tails
    ("erfinv_f64", lambda m, t: torch.erfinv(torch.tanh(t.a.double() * 5))),
    ("ndtri", lambda m, t: torch.special.ndtri(torch.sigmoid(t.a * 4))),
    ("ndtri_f64_tails", lambda m, t: torch.special.ndtri(torch.sigmoid(t.a.double() * 30))),
    ("erfcx", lambda m, t: torch.special.erfcx(t.a * 3)),  # no f32 overflow below -9.3
    ("erfcx_large", lambda m, t: torch.special.erfcx(t.p * 30)),  # the asymptotic series > 26
    ("log_ndtr", lambda m, t: torch.special.log_ndtr(t.a * 12)),
    ("bessel_j0", lambda m, t: torch.special.bessel_j0(t.a * t.p * 12)),  # |x| to ~50
    ("bessel_j1", lambda m, t: torch.special.bessel_j1(t.a * t.p * 12)),
    ("bessel_y0", lambda m, t: torch.special.bessel_y0(t.p ** 3 * 5)),  # 0.6 to 40
    ("bessel_y1", lambda m, t: torch.special.bessel_y1(t.p ** 3 * 5)),
    ("bessel_y0_f64", lambda m, t: torch.special.bessel_y0(t.p.double() ** 3 * 5)),
    ("i0", lambda m, t: torch.i0(t.a * 20)),
    ("i0_modified", lambda m, t: torch.special.modified_bessel_i0(t.a * 20)),
    ("i1", lambda m, t: torch.special.i1(t.a * 20)),
    ("i0e", lambda m, t: torch.special.i0e(t.a * 40)),
    ("i1e", lambda m, t: torch.special.i1e(t.a * 40)),
    ("i1_modified_f64", lambda m, t: torch.special.modified_bessel_i1(t.a.double() * 40)),
    ("bessel_k0", lambda m, t: torch.special.modified_bessel_k0(t.p ** 3 * 5)),  # 0.6 to 40
    ("bessel_k1", lambda m, t: torch.special.modified_bessel_k1(t.p ** 3 * 5)),
    ("bessel_k0e", lambda m, t: torch.special.scaled_modified_bessel_k0(t.p ** 3 * 5)),
    ("bessel_k1e_f64", lambda m, t: torch.special.scaled_modified_bessel_k1(t.p.double() ** 3 * 5)),
    ("spherical_bessel_j0", lambda m, t: torch.special.spherical_bessel_j0(t.a * 5)),
    ("airy_ai", lambda m, t: torch.special.airy_ai(t.a * 12)),  # below -7, series, K_1/3 above 2
    ("igamma", lambda m, t: torch.igamma(t.p * 5, t.b.abs() * 8)),
    ("igammac", lambda m, t: torch.igammac(t.p * 5, t.b.abs() * 8)),
    ("gammainc_f64", lambda m, t: torch.special.gammainc(t.p.double() * 20, t.b.double().abs() * 30)),
    ("chebyshev_t", lambda m, t: torch.special.chebyshev_polynomial_t(t.a, torch.floor(t.p * 6))),
    ("chebyshev_u", lambda m, t: torch.special.chebyshev_polynomial_u(t.a, torch.floor(t.b * 8))),
    ("chebyshev_v", lambda m, t: torch.special.chebyshev_polynomial_v(t.a, torch.floor(t.p * 6))),
    ("chebyshev_w", lambda m, t: torch.special.chebyshev_polynomial_w(t.a, torch.floor(t.p * 6))),
    ("chebyshev_t_n_scalar", lambda m, t: torch.special.chebyshev_polynomial_t(t.a, 9)),
    ("chebyshev_u_x_scalar", lambda m, t: torch.special.chebyshev_polynomial_u(0.3, torch.floor(t.p * 6))),
    ("shifted_chebyshev_t", lambda m, t: torch.special.shifted_chebyshev_polynomial_t(t.a, torch.floor(t.p * 6))),
    ("shifted_chebyshev_u", lambda m, t: torch.special.shifted_chebyshev_polynomial_u(t.a, torch.floor(t.p * 6))),
    ("shifted_chebyshev_v", lambda m, t: torch.special.shifted_chebyshev_polynomial_v(t.a, torch.floor(t.p * 6))),
    ("shifted_chebyshev_w", lambda m, t: torch.special.shifted_chebyshev_polynomial_w(t.a, torch.floor(t.p * 6))),
    ("hermite_h", lambda m, t: torch.special.hermite_polynomial_h(t.a * 2, torch.floor(t.b * 5))),
    ("hermite_he", lambda m, t: torch.special.hermite_polynomial_he(t.a * 2, torch.floor(t.p * 5))),
    ("hermite_h_f64", lambda m, t: torch.special.hermite_polynomial_h(t.a.double(), 200.0)),  # NaN in f32
    ("laguerre_l", lambda m, t: torch.special.laguerre_polynomial_l(t.p * 3, torch.floor(t.b * 5))),
    ("legendre_p", lambda m, t: torch.special.legendre_polynomial_p(t.a, torch.floor(t.p * 6))),
    ("sin", lambda m, t: torch.sin(t.a * 3)),
    ("cos", lambda m, t: torch.cos(t.a * 3)),
    ("floor", lambda m, t: torch.floor(t.a * 3)),
    ("ceil", lambda m, t: torch.ceil(t.a * 3)),
    ("silu", lambda m, t: F.silu(t.a)),
    ("hardswish", lambda m, t: F.hardswish(t.a * 4)),
    ("hardsigmoid", lambda m, t: F.hardsigmoid(t.a * 4)),
    ("leaky_relu", lambda m, t: F.leaky_relu(t.a)),  # the default slope: omitted by the export
    ("leaky_relu_slope", lambda m, t: F.leaky_relu(t.a * 4, 0.25)),
    ("leaky_relu_f16", lambda m, t: F.leaky_relu(t.a.half() * 4, 0.1)),
    ("gelu_none", lambda m, t: F.gelu(t.a)),
    ("gelu_tanh", lambda m, t: F.gelu(t.a, approximate="tanh")),
    ("clamp_both", lambda m, t: torch.clamp(t.a, -0.5, 0.5)),
    ("clamp_min", lambda m, t: torch.clamp(t.a, min=-0.25)),
    ("clamp_max", lambda m, t: torch.clamp(t.a, max=0.25)),
    ("clamp_int", lambda m, t: torch.clamp(t.i, -3, 4)),
    ("clamp_int_float_bounds", lambda m, t: torch.clamp(t.i, -2.5, 3.5)),  # promotes to f32
    ("relu6", lambda m, t: F.relu6(t.a * 4)),
    ("hardtanh", lambda m, t: F.hardtanh(t.a, -0.75, 0.5)),
    ("logical_not_bool", lambda m, t: torch.logical_not(t.m)),
    ("logical_not_float", lambda m, t: torch.logical_not(torch.floor(t.a))),
    ("clone", lambda m, t: t.a.clone()),
    ("detach", lambda m, t: t.b.detach() * 1.5),
    ("dropout_eval", lambda m, t: F.dropout(t.a, 0.5, training=False) + 1),
    ("inplace_relu_", lambda m, t: (t.a * 2).relu_()),
    ("inplace_add_", lambda m, t: (t.a * 2).add_(t.b)),
    ("inplace_mul_", lambda m, t: (t.b + 1).mul_(t.p)),
    ("relu_int", lambda m, t: F.relu(t.i)),
    ("neg_int", lambda m, t: -t.i),
    ("abs_int", lambda m, t: t.i.abs()),
    ("exp_of_int", lambda m, t: torch.exp(t.i.float() * 0.25)),
    ("sigmoid_of_int", lambda m, t: torch.sigmoid(t.i)),
    ("sqrt_of_int", lambda m, t: torch.sqrt(t.i.abs())),
    ("reciprocal_of_int", lambda m, t: torch.reciprocal(t.j)),
    # -- casts
    ("cast_f32_i64_trunc", lambda m, t: (t.a * 5).to(torch.int64)),
    ("cast_i64_f32", lambda m, t: t.i.to(torch.float32)),
    ("cast_bool_f32", lambda m, t: t.m.float()),
    ("cast_f32_bool", lambda m, t: torch.floor(t.a).bool()),
    ("cast_i64_bool", lambda m, t: t.i.bool()),
    ("cast_bool_i64", lambda m, t: t.m.long()),
    ("cast_f32_f16", lambda m, t: t.a.to(torch.float16)),
    ("cast_f32_bf16", lambda m, t: t.a.to(torch.bfloat16)),
    ("cast_f32_f64", lambda m, t: t.a.to(torch.float64) * 3),
    ("cast_bf16_i64", lambda m, t: (t.a * 5).bfloat16().to(torch.int64)),
    ("cast_f16_bool", lambda m, t: torch.floor(t.a).half().bool()),
    ("cast_i64_f16", lambda m, t: t.i.half()),
    ("type_as", lambda m, t: t.i.type_as(t.a)),
    # -- binary, tensor-tensor
    ("add", lambda m, t: t.a + t.b),
    ("sub", lambda m, t: t.a - t.b),
    ("mul", lambda m, t: t.a * t.b),
    ("div", lambda m, t: t.a / t.p),
    ("add_alpha", lambda m, t: torch.add(t.a, t.b, alpha=2)),
    ("sub_alpha", lambda m, t: torch.sub(t.a, t.b, alpha=0.5)),
    ("pow_tensor", lambda m, t: torch.pow(t.p, t.b)),
    ("maximum", lambda m, t: torch.maximum(t.a, t.b)),
    ("minimum", lambda m, t: torch.minimum(t.a, t.b)),
    ("min_other", lambda m, t: torch.min(t.a, t.b)),
    ("max_other", lambda m, t: torch.max(t.a, t.b)),
    ("min_other_int", lambda m, t: torch.min(t.i, t.j)),
    ("max_other_broadcast", lambda m, t: torch.max(t.c, t.d)),
    ("min_other_noncontig", lambda m, t: torch.min(t.q.t(), t.a)),
    ("floor_divide_float", lambda m, t: torch.floor_divide(t.a * 4, t.p)),
    ("floor_divide_int", lambda m, t: torch.floor_divide(t.i, t.j)),
    ("div_floor_mode", lambda m, t: torch.div(t.a * 4, t.p, rounding_mode="floor")),
    ("remainder_float", lambda m, t: torch.remainder(t.a * 4, t.p)),
    ("remainder_float_neg_divisor", lambda m, t: torch.remainder(t.a * 4, -t.p)),
    ("remainder_int", lambda m, t: torch.remainder(t.i, t.j)),
    ("eq", lambda m, t: torch.floor(t.a) == torch.floor(t.b)),
    ("ne", lambda m, t: torch.floor(t.a) != torch.floor(t.b)),
    ("lt", lambda m, t: t.a < t.b),
    ("le", lambda m, t: torch.floor(t.a) <= torch.floor(t.b)),
    ("gt", lambda m, t: t.a > t.b),
    ("ge", lambda m, t: torch.floor(t.a) >= torch.floor(t.b)),
    ("eq_int", lambda m, t: t.i == t.j),
    ("lt_int_float", lambda m, t: t.i < t.a * 10),
    ("logical_and", lambda m, t: torch.logical_and(t.m, t.n)),
    ("logical_or", lambda m, t: torch.logical_or(t.m, t.n)),
    ("bool_mask_or", lambda m, t: (t.a > 0) | (t.a < -0.5)),
    ("bool_mask_and", lambda m, t: (t.a > 0) & (t.a < 0.5)),
    ("bool_mask_not", lambda m, t: ~(t.a > 0)),
    ("logical_and_float", lambda m, t: torch.logical_and(torch.floor(t.a), t.n)),
    ("where", lambda m, t: torch.where(t.m, t.a, t.b)),
    ("where_scalar_other", lambda m, t: torch.where(t.m, t.a, 0.5)),
    ("where_scalar_self", lambda m, t: torch.where(t.m, -1.0, t.b)),
    ("where_broadcast", lambda m, t: torch.where(t.d > 0, t.c, t.d)),
    ("masked_fill", lambda m, t: t.a.masked_fill(t.m, -2.0)),
    # -- Python scalars
    ("add_scalar", lambda m, t: t.a + 2.5),
    ("rsub_scalar", lambda m, t: 1.0 - t.a),
    ("mul_scalar", lambda m, t: t.a * -3.0),
    ("div_scalar", lambda m, t: t.a / 4.0),
    ("scalar_div_tensor", lambda m, t: 2.0 / t.p),
    ("pow_scalar_2", lambda m, t: t.a ** 2),
    ("pow_scalar_3", lambda m, t: t.a ** 3),
    ("pow_scalar_half", lambda m, t: t.p ** 0.5),
    ("pow_scalar_base", lambda m, t: 2.0 ** t.a),
    ("pow_int", lambda m, t: t.i ** 2),
    ("pow_int_float_scalar", lambda m, t: t.i.abs() ** 0.5),
    ("floor_divide_int_neg_scalar", lambda m, t: t.i // -3),
    ("remainder_int_neg_scalar", lambda m, t: t.i % -3),
    ("div_int_int_scalar", lambda m, t: t.i / 4),
    ("floor_divide_int_scalar", lambda m, t: t.i // 3),
    ("floor_divide_float_scalar", lambda m, t: t.a // 0.3),
    ("floor_divide_float_neg_scalar", lambda m, t: t.a // -0.3),
    ("remainder_int_scalar", lambda m, t: t.i % 3),
    ("remainder_float_scalar", lambda m, t: t.a % 0.7),
    ("remainder_float_neg_scalar", lambda m, t: t.a % -0.7),
    ("pow_float_int_exponent", lambda m, t: t.p ** t.i),
    ("pow_scalar_base_int_exponent", lambda m, t: 2.0 ** t.i),
    ("eq_int_float_scalar", lambda m, t: t.i == 2.5),
    ("lt_bool_float", lambda m, t: t.m < t.a),
    ("gt_scalar", lambda m, t: t.a > 0.25),
    ("eq_int_scalar", lambda m, t: t.i == 3),
    ("lt_int_float_scalar", lambda m, t: t.i < 2.5),
    ("ge_bool_int_scalar", lambda m, t: t.m >= 1),
    ("int_mul_float_scalar", lambda m, t: t.i * 0.5),
    ("int_add_int_scalar", lambda m, t: t.i + 7),
    # -- int64 and bool arithmetic, promotion
    ("add_int", lambda m, t: t.i + t.j),
    ("mul_int", lambda m, t: t.i * t.j),
    ("sub_int", lambda m, t: t.i - t.j),
    ("true_div_int", lambda m, t: t.i / t.j),
    ("maximum_int", lambda m, t: torch.maximum(t.i, t.j)),
    ("int_plus_float", lambda m, t: t.i + t.a),
    ("int_plus_bool", lambda m, t: t.i + t.m),
    ("float_times_bool", lambda m, t: t.a * t.m),
    ("where_int", lambda m, t: torch.where(t.m, t.i, t.j)),
    ("where_promote_int_float", lambda m, t: torch.where(t.m, t.i, t.a)),
    # -- half precision arithmetic
    ("f16_mul", lambda m, t: t.a.half() * t.b.half()),
    ("f16_exp", lambda m, t: torch.exp(t.a.half())),
    ("f16_exp_overflow_inf", lambda m, t: torch.exp(t.a.half() * 12)),
    ("div_by_zero_scalar_inf", lambda m, t: t.a / 0.0),
    ("bf16_add", lambda m, t: t.a.bfloat16() + t.b.bfloat16()),
    ("bf16_gelu", lambda m, t: F.gelu(t.a.bfloat16())),
    # -- broadcasting and odd shapes
    ("broadcast_4x1x8_3x1", lambda m, t: t.c + t.d),
    ("broadcast_mul_1x5x1", lambda m, t: t.c * t.e),
    ("broadcast_both_4d", lambda m, t: t.g4 - t.h4),
    ("where_broadcast_3_shapes", lambda m, t: torch.where(t.d > 0, t.a[:1], t.e.view(5, 1)[:3])),
    ("size1_dims_sigmoid", lambda m, t: torch.sigmoid(t.e)),
    ("size0_exp", lambda m, t: torch.exp(t.z)),
    ("size0_add_scalar", lambda m, t: t.z + 1.0),
    ("zero_d_mul", lambda m, t: t.s * 2.0),
    ("zero_d_exp", lambda m, t: torch.exp(t.s)),
    ("zero_d_broadcast", lambda m, t: t.a - t.s),
    ("zero_d_zero_d", lambda m, t: t.s * t.s + t.s),
    ("zero_d_compare", lambda m, t: t.s > 0),
    ("zero_d_where_cond", lambda m, t: torch.where(t.s > 0, t.a, t.b)),
    ("size0_broadcast_row", lambda m, t: t.z + t.a[0, :4]),
    # -- non-contiguous inputs made inside the module
    ("noncontig_t_add", lambda m, t: t.q.t() + t.a),
    ("noncontig_t_exp", lambda m, t: torch.exp(t.q.t())),
    ("noncontig_stride2_mul", lambda m, t: t.w[:, ::2] * t.b),
    ("noncontig_permute_tanh", lambda m, t: torch.tanh(t.r.permute(2, 0, 1))),
    ("noncontig_permute_where", lambda m, t: torch.where(t.r.permute(1, 2, 0) > 0, t.r.permute(1, 2, 0), 0.0)),
    ("noncontig_contiguous", lambda m, t: t.q.t().contiguous()),
    # -- more core ATen elementwise ops: inverse and hyperbolic trig, logs, rounding, tests,
    #    bitwise, fmod, elu, tensor clamp, fill/copy/empty, native_dropout
    ("acos", lambda m, t: torch.acos(torch.tanh(t.a))),
    ("acosh", lambda m, t: torch.acosh(t.p + 1)),
    ("asin", lambda m, t: torch.asin(torch.tanh(t.a))),
    ("asin_of_int_sign", lambda m, t: torch.asin(torch.sign(t.i))),  # int sign, then float
    ("asinh", lambda m, t: torch.asinh(t.a * 3)),
    ("atan", lambda m, t: torch.atan(t.a * 3)),
    ("atan_of_int", lambda m, t: torch.atan(t.i)),
    ("atanh", lambda m, t: torch.atanh(torch.tanh(t.a) * 0.9)),
    ("cosh", lambda m, t: torch.cosh(t.a)),
    ("sinh", lambda m, t: torch.sinh(t.a)),
    ("tan", lambda m, t: torch.tan(t.a)),
    ("expm1", lambda m, t: torch.expm1(t.a)),
    ("expm1_tiny", lambda m, t: torch.expm1(t.a * 1e-5)),
    ("expm1_bf16", lambda m, t: torch.expm1(t.a.bfloat16())),
    ("log10", lambda m, t: torch.log10(t.p)),
    ("log1p", lambda m, t: torch.log1p(t.p - 0.4)),
    ("log1p_tiny", lambda m, t: torch.log1p(t.a * 1e-5)),
    ("log1p_f16", lambda m, t: torch.log1p(t.p.half())),
    ("log2", lambda m, t: torch.log2(t.p)),
    ("log2_of_int", lambda m, t: torch.log2(t.j.abs())),
    ("atan2", lambda m, t: torch.atan2(t.a, t.b)),
    ("atan2_broadcast", lambda m, t: torch.atan2(t.c, t.d)),
    ("atan2_int", lambda m, t: torch.atan2(t.i, t.j)),
    ("atan2_f16_noncontig", lambda m, t: torch.atan2(t.q.t().half(), t.b.half())),
    ("round_ties_even", lambda m, t: torch.round(torch.floor(t.a * 4) * 0.5)),
    ("round_int", lambda m, t: torch.round(t.i)),
    ("round_size0", lambda m, t: torch.round(t.z * 3)),
    ("round_decimals", lambda m, t: torch.round(t.a * 10, decimals=2)),
    ("round_decimals_neg", lambda m, t: torch.round(t.a * 1000, decimals=-2)),
    ("round_decimals_f16", lambda m, t: torch.round(t.a.half() * 10, decimals=1)),
    ("trunc", lambda m, t: torch.trunc(t.a * 3)),
    ("trunc_int", lambda m, t: torch.trunc(t.i)),
    ("sign", lambda m, t: torch.sign(t.a)),
    ("sign_bool", lambda m, t: torch.sign(t.m)),
    ("sign_nan_inf", lambda m, t: torch.sign(torch.floor(t.a) / torch.floor(t.b))),
    ("isnan", lambda m, t: torch.isnan(torch.floor(t.a) / torch.floor(t.b))),
    ("isnan_f16", lambda m, t: torch.isnan((torch.floor(t.a) / torch.floor(t.b)).half())),
    ("isinf", lambda m, t: torch.isinf(torch.floor(t.a) / torch.floor(t.b))),
    ("isinf_int", lambda m, t: torch.isinf(t.i)),
    ("logical_xor", lambda m, t: torch.logical_xor(t.m, t.n)),
    ("logical_xor_float_int", lambda m, t: torch.logical_xor(torch.floor(t.a), t.i)),
    ("bitwise_and_int", lambda m, t: t.i & t.j),
    ("bitwise_or_int", lambda m, t: t.i | t.j),
    ("bitwise_xor_int", lambda m, t: t.i ^ t.j),
    ("bitwise_xor_bool", lambda m, t: t.m ^ t.n),
    ("bitwise_and_scalar", lambda m, t: torch.bitwise_and(t.i, 6)),
    ("bitwise_or_scalar", lambda m, t: torch.bitwise_or(t.i, 3)),
    ("bitwise_xor_scalar", lambda m, t: torch.bitwise_xor(t.i, -5)),
    ("bitwise_xor_bool_scalar", lambda m, t: torch.bitwise_xor(t.m, True)),
    ("bitwise_and_int_bool", lambda m, t: torch.bitwise_and(t.i, t.m)),  # promotes to int64
    ("bitwise_and_i32_broadcast", lambda m, t: t.i.int() & t.j[:1].int()),
    ("bitwise_not_int", lambda m, t: ~t.i),
    ("bitwise_not_u8", lambda m, t: ~t.i.abs().to(torch.uint8)),
    ("bitwise_not_i8", lambda m, t: torch.bitwise_not(t.i.to(torch.int8))),
    # shifts: counts outside [0, bits) (negative, >= the width) give 0 / the sign fill
    ("shift_left_int", lambda m, t: t.i << t.j.abs()),
    ("shift_left_i32_wide", lambda m, t: t.i.int() << (t.j.int() + 28)),
    ("shift_left_i8_wraps", lambda m, t: torch.bitwise_left_shift(t.i.to(torch.int8), 5)),
    ("shift_right_int", lambda m, t: t.i >> t.j),
    ("shift_right_u8", lambda m, t: t.i.abs().to(torch.uint8) >> (t.j.abs() % 9).to(torch.uint8)),
    ("shift_right_i16_wide", lambda m, t: t.i.to(torch.int16) >> 17),
    ("gcd", lambda m, t: torch.gcd(t.i, t.j)),
    ("gcd_i32", lambda m, t: torch.gcd(t.i.int() * 6, t.j.int() * 4)),
    ("lcm", lambda m, t: torch.lcm(t.i, t.j)),
    ("nextafter", lambda m, t: torch.nextafter(t.a, t.b)),
    ("nextafter_equal_inf", lambda m, t: torch.nextafter(t.a, torch.cat([t.a[:1], t.b[1:] / 0]))),
    ("nextafter_f64", lambda m, t: torch.nextafter(t.a.double(), t.b.double())),
    ("fmod", lambda m, t: torch.fmod(t.a * 4, t.p)),
    ("fmod_neg_divisor", lambda m, t: torch.fmod(t.a * 4, -t.p)),
    ("fmod_int", lambda m, t: torch.fmod(t.i, t.j)),
    ("fmod_scalar", lambda m, t: torch.fmod(t.a * 4, 0.7)),
    ("fmod_int_neg_scalar", lambda m, t: torch.fmod(t.i, -3)),
    ("fmod_int_float_scalar", lambda m, t: torch.fmod(t.i, 2.5)),  # promotes to f32
    ("fmod_f16", lambda m, t: torch.fmod(t.a.half() * 4, t.p.half())),
    ("elu", lambda m, t: F.elu(t.a)),
    ("elu_alpha", lambda m, t: F.elu(t.a * 3, alpha=0.5)),
    ("elu_f16", lambda m, t: F.elu(t.a.half())),
    ("selu", lambda m, t: F.selu(t.a)),
    ("celu", lambda m, t: F.celu(t.a * 3, alpha=2.0)),
    ("clamp_tensor_min", lambda m, t: torch.clamp(t.a, min=t.b)),
    ("clamp_tensor_max", lambda m, t: torch.clamp(t.a, max=t.b)),
    ("clamp_tensor_both_broadcast", lambda m, t: torch.clamp(t.c, t.d - 0.5, t.d + 0.5)),
    ("clamp_tensor_int", lambda m, t: torch.clamp(t.i, min=t.j)),
    ("clamp_tensor_int_float_max", lambda m, t: torch.clamp(t.i, max=t.a * 5)),  # -> f32
    ("fill_scalar", lambda m, t: torch.ops.aten.fill.Scalar(t.a, -1.5) * t.b),
    ("fill_inplace_empty", lambda m, t: torch.empty(3, 8).fill_(2.5) + t.a),
    ("copy_broadcast", lambda m, t: torch.zeros_like(t.a).copy_(t.d)),
    ("copy_cast", lambda m, t: torch.zeros_like(t.a).copy_(t.i)),
    ("copy_default", lambda m, t: torch.ops.aten.copy.default(t.a, t.b)),
    ("empty_size0", lambda m, t: torch.empty(0, 4) + t.z),
    ("empty_strided_size0", lambda m, t: torch.empty_strided((0, 4), (4, 1)) + t.z),
    ("native_dropout_eval", lambda m, t: torch.ops.aten.native_dropout(t.a, 0.5, False)[0] + 1),
    ("native_dropout_eval_mask", lambda m, t: torch.ops.aten.native_dropout(t.b, 0.5, False)[1]),
]


# --------------------------------------------------------------------------------------------
# reductions
# --------------------------------------------------------------------------------------------


def _reduction_inputs(g):
    return {
        "x": _randn(g, 4, 5, 7),
        "y": _randn(g, 6, 9),
        "pos": _rand(g, 3, 5, low=0.75, high=1.25),  # prod stays near 1
        "xi": _randint(g, -3, 4, 4, 5),  # small range: argmax ties
        "xb": _rand(g, 4, 5) > 0.8,
        "v": _randn(g, 13),
        "empty": _randn(g, 0, 3),
        "wide": _randn(g, 3, 200),  # inner extent > the kernels' 128-element chunk
        "seglen": torch.tensor([3, 0, 6, 4]),  # segments of v (one empty)
        "segoff": torch.tensor([[0, 2, 2, 5, 9]] * 6),  # segments of y's rows
    }


REDUCTION_CASES: list[tuple[str, CaseFn]] = [
    ("sum_last", lambda m, t: t.x.sum(-1)),
    ("sum_dims_0_2", lambda m, t: t.x.sum((0, 2))),
    ("sum_keepdim", lambda m, t: t.x.sum(1, keepdim=True)),
    ("sum_keepdim_multi", lambda m, t: t.x.sum((0, -1), keepdim=True)),
    ("sum_all", lambda m, t: t.x.sum()),
    ("sum_int", lambda m, t: t.xi.sum(1)),
    ("sum_bool", lambda m, t: t.xb.sum(0)),
    ("sum_int_dtype_f32", lambda m, t: t.xi.sum(1, dtype=torch.float32)),
    ("sum_bf16_dtype_f32", lambda m, t: t.x.bfloat16().sum(-1, dtype=torch.float32)),
    ("sum_f16", lambda m, t: t.y.half().sum(0)),
    ("sum_1d", lambda m, t: t.v.sum(0)),
    ("mean_dim", lambda m, t: t.x.mean(1)),
    ("mean_keepdim_multi", lambda m, t: t.x.mean((0, 2), keepdim=True)),
    ("mean_all", lambda m, t: t.y.mean()),
    ("mean_neg_dim", lambda m, t: t.y.mean(-2)),
    ("amax_dim", lambda m, t: t.x.amax(1)),
    ("amax_keepdim", lambda m, t: t.x.amax(-1, keepdim=True)),
    ("amax_all", lambda m, t: t.x.amax((0, 1, 2))),
    ("amax_int", lambda m, t: t.xi.amax(0)),
    ("amin_dim", lambda m, t: t.x.amin(2)),
    ("amin_multi_keepdim", lambda m, t: t.x.amin((0, 1), keepdim=True)),
    ("max_dim_values", lambda m, t: t.y.max(dim=1).values),
    ("min_dim_values_keepdim", lambda m, t: t.y.min(dim=0, keepdim=True).values),
    ("prod_dim", lambda m, t: t.pos.prod(1)),
    ("prod_keepdim", lambda m, t: t.pos.prod(0, keepdim=True)),
    ("prod_all", lambda m, t: t.pos.prod()),
    # A constant the reduction's prologue and epilogue share after CSE (pairwise distance + eps).
    ("norm_epilogue_shared_constant",
     lambda m, t: (t.y + 1e-3).abs().square().sum(1).sqrt() + 1e-3),
    ("prod_int", lambda m, t: t.xi.prod(1)),
    ("prod_bool", lambda m, t: t.xb.prod(1)),
    ("var_dim", lambda m, t: t.x.var(1)),
    ("var_correction0", lambda m, t: t.x.var(-1, correction=0)),
    ("var_keepdim_multi", lambda m, t: t.x.var((0, 2), keepdim=True)),
    ("var_all", lambda m, t: t.y.var()),
    ("argmax_dim", lambda m, t: t.x.argmax(1)),
    ("argmax_keepdim", lambda m, t: t.y.argmax(-1, keepdim=True)),
    ("argmax_int_ties", lambda m, t: t.xi.argmax(0)),
    ("argmax_1d_keepdim", lambda m, t: t.v.argmax(0, keepdim=True)),
    ("argmax_bf16", lambda m, t: t.y.bfloat16().argmax(1)),
    ("any_dim_bool", lambda m, t: t.xb.any(1)),
    ("any_keepdim", lambda m, t: t.xb.any(0, keepdim=True)),
    ("any_all", lambda m, t: t.xb.any()),
    ("any_float", lambda m, t: torch.floor(t.y).any(1)),
    ("any_int", lambda m, t: t.xi.any(1)),
    ("softmax_last", lambda m, t: torch.softmax(t.x, -1)),
    ("softmax_dim0", lambda m, t: torch.softmax(t.x, 0)),
    ("softmax_dim1", lambda m, t: F.softmax(t.x, dim=1)),
    ("softmax_odd_2d", lambda m, t: torch.softmax(t.y * 3, 1)),
    ("log_softmax_last", lambda m, t: torch.log_softmax(t.x, -1)),
    ("log_softmax_dim1", lambda m, t: F.log_softmax(t.x, dim=1)),
    ("log_softmax_dim0_odd", lambda m, t: torch.log_softmax(t.y, 0)),
    ("softmax_1d", lambda m, t: torch.softmax(t.v, 0)),
    ("cumsum_last", lambda m, t: t.x.cumsum(-1)),
    ("cumsum_dim0", lambda m, t: torch.cumsum(t.x, 0)),
    ("cumsum_1d", lambda m, t: t.v.cumsum(0)),
    ("cumsum_int", lambda m, t: t.xi.cumsum(1)),
    ("cumsum_bool", lambda m, t: t.xb.cumsum(0)),
    ("cumsum_dtype_f64", lambda m, t: t.y.cumsum(1, dtype=torch.float64)),
    ("cumsum_int_dtype_f32", lambda m, t: t.xi.cumsum(0, dtype=torch.float32)),
    ("cumsum_f16", lambda m, t: t.y.half().cumsum(1)),
    ("cumsum_size1_dim", lambda m, t: t.y.unsqueeze(1).cumsum(1)),
    ("cumsum_size0", lambda m, t: t.empty.cumsum(0)),
    ("cumsum_noncontig", lambda m, t: t.x.transpose(0, 2).cumsum(1)),
    ("cumsum_wide_dim0", lambda m, t: t.wide.cumsum(0)),
    # running products and extrema (a log-depth scan): ties (xi) take the later index, NaN wins
    ("cumprod_last", lambda m, t: t.pos.cumprod(-1)),
    ("cumprod_dim0_signs", lambda m, t: torch.cumprod(t.x, 0)),
    ("cumprod_int", lambda m, t: t.xi.cumprod(1)),
    ("cumprod_bool", lambda m, t: t.xb.cumprod(0)),
    ("cumprod_long_dim", lambda m, t: (t.wide * 0.1 + 1).cumprod(1)),
    ("cummax_values", lambda m, t: torch.cummax(t.x, 2).values),
    ("cummax_indices_ties", lambda m, t: torch.cummax(t.xi, 1).indices),
    ("cummin_indices_ties", lambda m, t: torch.cummin(t.xi, 0).indices),
    ("cummin_values_1d", lambda m, t: torch.cummin(t.v, 0).values),
    ("cummax_nan", lambda m, t: torch.nan_to_num(
        torch.cummax(torch.where(t.y > 1.2, torch.nan, t.y), 1)[0], nan=7.0)),
    ("cummin_nan_indices", lambda m, t: torch.cummin(torch.where(t.y > 1.2, torch.nan, t.y), 1)[1]),
    # histogram: equal bins from the data's range (values on the edges, the maximum in the
    # last bin), a given range with weights and density, given edges
    ("histogram_bins", lambda m, t: torch.histogram(t.x, bins=7)[0]),
    ("histogram_bins_edges", lambda m, t: torch.histogram(t.x, bins=7)[1]),
    ("histogram_ties_on_edges", lambda m, t: torch.histogram(t.xi.float(), bins=4)[0]),
    ("histogram_range_weight_density", lambda m, t: torch.histogram(
        t.x, bins=5, range=(-1.0, 1.0), weight=t.x.abs(), density=True)[0]),
    ("histogram_given_edges", lambda m, t: torch.histogram(
        t.x, torch.tensor([-2.0, -0.5, 0.0, 0.25, 1.5], dtype=t.x.dtype))[0]),
    ("histogram_no_data", lambda m, t: torch.histogram(t.empty, bins=3)[1] + 1),
    # histogramdd: x's 20 points of 3 (or 2) coordinates, y's 6 points of 2 weighted by a third
    ("histogramdd_bins", lambda m, t: torch.histogramdd(t.x[..., :3].reshape(-1, 3),
                                                        bins=[3, 4, 2])[0]),
    ("histogramdd_bins_edges", lambda m, t: torch.histogramdd(t.x[..., :3].reshape(-1, 3),
                                                              bins=[3, 4, 2])[1][1] * 1),
    ("histogramdd_range_weight_density", lambda m, t: torch.histogramdd(
        t.y[:, :2], bins=[4, 3], range=[-1.0, 1.0, -2.0, 2.0], weight=t.y[:, 2].abs(),
        density=True)[0]),
    ("histogramdd_given_edges", lambda m, t: torch.histogramdd(
        t.x[..., :2].reshape(-1, 2), bins=[torch.tensor([-2.0, 0.0, 0.5, 2.0], dtype=t.x.dtype),
                                           torch.tensor([-1.0, 1.0], dtype=t.x.dtype)])[0]),
    # bucketize / searchsorted (a count over the boundaries): ties both ways, NaN past the end
    ("bucketize_left", lambda m, t: torch.bucketize(t.x, torch.tensor([-1.0, -0.25, 0.0, 0.5, 2.0]))),
    ("bucketize_right_int_ties", lambda m, t: torch.bucketize(t.xi, torch.tensor([-2, 0, 0, 3]),
                                                              right=True)),
    ("bucketize_nan_int32", lambda m, t: torch.bucketize(
        torch.where(t.y > 1.2, torch.nan, t.y), torch.tensor([-1.0, 0.0, 1.0]), out_int32=True)),
    ("searchsorted_1d", lambda m, t: torch.searchsorted(torch.sort(t.v).values, t.y)),
    ("searchsorted_rows_right", lambda m, t: torch.searchsorted(
        torch.sort(t.x, dim=-1).values, t.x[:, :, :3] * 0.5, side="right")),
    ("searchsorted_int_ties", lambda m, t: torch.searchsorted(
        torch.tensor([-3, -1, -1, 0, 2, 2, 3]), t.xi, right=True)),
    ("sum_noncontig", lambda m, t: t.x.transpose(0, 2).sum(1)),
    ("sum_wide_dim0", lambda m, t: t.wide.sum(0)),
    ("amax_wide_dim0", lambda m, t: t.wide.amax(0)),
    ("var_wide_dim0", lambda m, t: t.wide.var(0)),
    ("argmax_wide_dim0", lambda m, t: t.wide.argmax(0)),
    ("any_wide_dim0", lambda m, t: (t.wide > 1).any(0)),
    ("softmax_wide_dim0", lambda m, t: torch.softmax(t.wide, 0)),
    ("log_softmax_wide_dim0", lambda m, t: torch.log_softmax(t.wide, 0)),
    ("softmax_with_neg_inf", lambda m, t: torch.softmax(t.y.masked_fill(t.y < -1, float("-inf")), 1)),
    ("sum_size0_dim", lambda m, t: t.empty.sum(0)),
    ("sum_size0_keepdim", lambda m, t: t.empty.sum(1, keepdim=True)),
    ("softmax_size1_dim", lambda m, t: torch.softmax(t.y.unsqueeze(1), 1)),
    ("sum_bf16", lambda m, t: t.x.bfloat16().sum(-1)),
    ("mean_f16", lambda m, t: t.y.half().mean(1)),
    ("softmax_f16", lambda m, t: torch.softmax(t.y.half(), -1)),
    ("softmax_f16_dtype_f32", lambda m, t: torch.softmax(t.y.half(), -1, dtype=torch.float32)),
    # -- argmin (argmax of the reversed order)
    ("argmin_dim", lambda m, t: t.x.argmin(1)),
    ("argmin_keepdim", lambda m, t: t.y.argmin(-1, keepdim=True)),
    ("argmin_int_ties", lambda m, t: t.xi.argmin(0)),
    ("argmin_bf16", lambda m, t: t.y.bfloat16().argmin(1)),
    ("argmin_wide_dim0", lambda m, t: t.wide.argmin(0)),
    # mode: the most frequent value (the smallest on ties) and its last index
    ("mode_int_values", lambda m, t: t.xi.mode(1)[0]),
    ("mode_int_indices", lambda m, t: t.xi.mode(0)[1]),
    ("mode_float_keepdim", lambda m, t: torch.round(t.x * 2).mode(1, keepdim=True)[1]),
    ("mode_0d", lambda m, t: t.v[3].mode()[1]),
    # segment_reduce over lengths / offsets, with and without an initial value
    ("segment_reduce_sum", lambda m, t: torch.segment_reduce(t.v, "sum", lengths=t.seglen)),
    ("segment_reduce_mean_initial",
     lambda m, t: torch.segment_reduce(t.v, "mean", lengths=t.seglen, initial=0.5)),
    ("segment_reduce_max_initial",
     lambda m, t: torch.segment_reduce(t.v, "max", lengths=t.seglen, initial=-0.25)),
    ("segment_reduce_min_offsets_axis1",
     lambda m, t: torch.segment_reduce(t.y, "min", offsets=t.segoff, axis=1, initial=3.0)),
    ("segment_reduce_prod_offsets_axis1",
     lambda m, t: torch.segment_reduce(t.y, "prod", offsets=t.segoff, axis=1)),
]


# --------------------------------------------------------------------------------------------
# shape
# --------------------------------------------------------------------------------------------


def _shape_inputs(g):
    return {
        "x": _randn(g, 2, 3, 4),
        "y": _randn(g, 4, 6),
        "u": _randn(g, 1, 4, 1),
        "sq": _randn(g, 5, 5),
        "xi": _randint(g, -5, 6, 2, 3),
        "idx": torch.tensor([3, 0, 2, 2, 1], dtype=torch.int64),
        "tokens": torch.tensor([[1, 9, 0], [4, 4, 7]], dtype=torch.int64),
        "s": _randn(g),  # 0-d
    }


def _in_range(draws, low, high):
    return (draws >= low) & (draws < high)


def _shape_submodules():
    return {"emb": nn.Embedding(10, 4)}


SHAPE_CASES: list[tuple[str, CaseFn]] = [
    ("reshape", lambda m, t: t.x.reshape(6, 4)),
    ("reshape_infer", lambda m, t: t.x.reshape(-1, 2)),
    ("view", lambda m, t: t.y.view(2, 2, 6)),
    ("view_flat", lambda m, t: t.x.view(-1)),
    ("flatten_1", lambda m, t: torch.flatten(t.x, 1)),
    ("flatten_all", lambda m, t: t.x.flatten()),
    ("unflatten", lambda m, t: t.y.unflatten(1, (2, 3))),
    ("reshape_noncontig", lambda m, t: t.x.transpose(1, 2).reshape(2, 12)),
    ("permute", lambda m, t: t.x.permute(2, 0, 1)),
    ("permute_neg", lambda m, t: t.x.permute(-1, -3, -2)),
    ("transpose", lambda m, t: t.x.transpose(0, 2)),
    ("transpose_neg", lambda m, t: t.x.transpose(-1, -2)),
    ("t", lambda m, t: t.y.t()),
    ("expand", lambda m, t: t.x[:, :1, :].expand(2, 3, 4)),
    ("expand_new_dims", lambda m, t: t.u.expand(3, 2, 4, 5)),
    ("expand_minus1", lambda m, t: t.u.expand(-1, -1, 6)),
    ("expand_bool", lambda m, t: (t.u > 0).expand(2, 4, 3)),
    ("expand_as", lambda m, t: t.u.expand_as(t.y.view(2, 4, 3))),
    ("slice_step", lambda m, t: t.y[:, 1::2]),
    ("slice_step3_dim0", lambda m, t: t.y[::3]),
    ("slice_negative", lambda m, t: t.y[-3:-1]),
    ("slice_negative_start", lambda m, t: t.y[:, -2:]),
    ("slice_past_end", lambda m, t: t.y[1:100]),
    ("slice_empty", lambda m, t: t.y[3:2]),
    ("slice_3d_step", lambda m, t: t.x[:, 1:, ::3]),
    ("diff_last", lambda m, t: t.y.diff()),
    ("diff_dim0", lambda m, t: torch.diff(t.x, dim=0)),
    ("diff_int", lambda m, t: t.xi.diff()),
    ("diff_size1_dim", lambda m, t: t.u.diff(dim=1)),
    ("diff_to_empty", lambda m, t: t.u.diff(dim=0)),
    ("diff_noncontig", lambda m, t: t.x.transpose(0, 2).diff(dim=1)),
    ("diff_prepend", lambda m, t: torch.diff(t.y, dim=-1, prepend=t.y[:, :1] * 0)),
    ("diff_prepend_append_int", lambda m, t: torch.diff(t.xi, dim=0, prepend=t.xi[:1], append=t.xi)),
    ("diff_order0", lambda m, t: torch.diff(t.y, n=0, prepend=t.y) * 2),
    ("select", lambda m, t: t.y[2]),
    ("select_neg", lambda m, t: t.y[:, -1]),
    ("select_slice", lambda m, t: t.x[:, 1, ::2]),
    ("squeeze_dim", lambda m, t: t.x[:, :1].squeeze(1)),
    ("squeeze_all", lambda m, t: t.u.squeeze()),
    ("squeeze_noop", lambda m, t: t.x.squeeze(0)),
    ("squeeze_dims", lambda m, t: t.u.squeeze((0, 2))),
    ("unsqueeze_0", lambda m, t: t.y.unsqueeze(0)),
    ("unsqueeze_neg", lambda m, t: t.y.unsqueeze(-1)),
    ("unsqueeze_mid", lambda m, t: t.x.unsqueeze(2)),
    ("unsqueeze_0d", lambda m, t: t.s.unsqueeze(0)),
    ("expand_0d", lambda m, t: t.s.expand(2, 3)),
    ("reshape_0d", lambda m, t: t.s.reshape(1, 1)),
    ("reshape_to_0d", lambda m, t: t.y[1:2, 2:3].reshape(())),
    ("select_to_0d", lambda m, t: t.y[1][2]),
    ("squeeze_0d", lambda m, t: t.s.squeeze()),
    ("flatten_0d", lambda m, t: t.s.flatten()),
    ("unsqueeze_neg_0d", lambda m, t: t.s.unsqueeze(-1)),
    ("cat_dim0_3_inputs", lambda m, t: torch.cat([t.y, t.y * 2, t.y[:1]], 0)),
    ("cat_last", lambda m, t: torch.cat([t.x, t.x[:, :, :1], -t.x], -1)),
    ("cat_mid_4_inputs", lambda m, t: torch.cat([t.x, t.x[:, :1], t.x[:, 1:], t.x], 1)),
    ("cat_promote", lambda m, t: torch.cat([t.xi, t.x[:, :, 0]], 1)),
    ("cat_with_empty", lambda m, t: torch.cat([t.y, t.y[:0]], 0)),
    ("cat_bool", lambda m, t: torch.cat([t.y > 0, t.y[:1] < 0], 0)),
    ("cat_int_bool", lambda m, t: torch.cat([t.xi, t.xi > 0], 1)),
    ("split_0", lambda m, t: t.y.split(4, dim=1)[0]),
    ("split_1_last", lambda m, t: t.y.split(4, dim=1)[1]),
    ("split_sizes", lambda m, t: t.y.split([1, 3], dim=0)[1]),
    ("split_with_sizes_mid", lambda m, t: torch.split(t.x, [1, 2, 1], dim=2)[1]),
    ("split_zero_piece", lambda m, t: t.y.split([0, 4], dim=0)[1]),
    ("chunk_0", lambda m, t: t.sq.chunk(3, dim=0)[0]),
    ("chunk_last", lambda m, t: t.sq.chunk(3, dim=0)[2]),
    ("chunk_uneven_4", lambda m, t: t.y.chunk(4, dim=1)[2]),
    ("tril", lambda m, t: torch.tril(t.sq)),
    ("triu", lambda m, t: torch.triu(t.sq)),
    ("tril_neg_diag", lambda m, t: torch.tril(t.y, diagonal=-1)),
    ("triu_pos_diag", lambda m, t: torch.triu(t.y, diagonal=2)),
    ("tril_batched", lambda m, t: torch.tril(t.x, 1)),
    ("triu_int", lambda m, t: torch.triu(t.xi)),
    ("triu_beyond", lambda m, t: torch.triu(t.y, 10)),
    ("arange_end", lambda m, t: torch.arange(5) + t.idx),
    ("arange_start_step", lambda m, t: torch.arange(2, 17, 3)),
    ("arange_float", lambda m, t: torch.arange(0.0, 1.5, 0.25) * t.y[0]),
    ("arange_neg_step", lambda m, t: torch.arange(4, -2, -2.0)),
    ("arange_float_inexact", lambda m, t: torch.arange(0.0, 1.0, 0.3)),
    ("arange_int_neg_step", lambda m, t: torch.arange(10, 0, -3)),
    ("full", lambda m, t: torch.full((2, 3), 1.5) + t.xi),
    ("full_int", lambda m, t: torch.full((3,), 7, dtype=torch.int64)),
    ("full_bool", lambda m, t: torch.full((2, 2), True)),
    ("zeros", lambda m, t: torch.zeros(3, 2)),
    ("ones", lambda m, t: torch.ones(2, 3) * t.xi),
    ("zeros_like", lambda m, t: torch.zeros_like(t.x)),
    ("ones_like_int", lambda m, t: torch.ones_like(t.xi)),
    ("full_like", lambda m, t: torch.full_like(t.y, -0.5)),
    ("new_zeros", lambda m, t: t.y.new_zeros(2, 5)),
    ("embedding", lambda m, t: m.emb(t.tokens)),
    ("embedding_1d", lambda m, t: m.emb(t.idx)),
    ("embedding_functional", lambda m, t: F.embedding(t.idx[:4].view(2, 2), t.y)),
    ("embedding_0d_index", lambda m, t: m.emb(t.idx[0])),
    ("index_select_int", lambda m, t: torch.index_select(t.xi, 1, t.idx[:4] % 3)),
    ("index_select_0", lambda m, t: torch.index_select(t.y, 0, t.idx[:3])),
    ("index_select_1", lambda m, t: torch.index_select(t.y, 1, t.idx)),
    ("index_select_3d_last", lambda m, t: t.x.index_select(-1, t.idx)),
    ("gather_last", lambda m, t: torch.gather(t.y, 1, t.idx[:4].view(1, 4).expand(4, 4) % 6)),
    ("gather_dim0", lambda m, t: t.x.gather(0, (t.tokens % 2).view(2, 3, 1).expand(2, 3, 4))),
    ("gather_smaller_index", lambda m, t: t.y.gather(1, t.tokens[:, :2] % 6)),
    ("gather_int", lambda m, t: t.xi.gather(1, t.tokens % 3)),
    ("gather_size1", lambda m, t: t.u.gather(1, t.idx[:3].view(1, 3, 1))),
    ("gather_noncontig", lambda m, t: t.x.transpose(1, 2).gather(2, t.tokens.view(2, 1, 3).expand(2, 4, 3) % 3)),
    # advanced indexing (index.Tensor): integer index tensors, None = a full slice
    ("index_dim0", lambda m, t: t.x[t.idx % 2]),
    ("index_dim1_2d", lambda m, t: t.x[:, t.tokens % 3]),
    ("index_two_adjacent", lambda m, t: t.x[t.tokens % 2, t.tokens % 3]),
    ("index_last_two", lambda m, t: t.x[:, t.tokens % 3, t.tokens % 4]),
    ("index_not_adjacent", lambda m, t: t.x[t.idx[:3] % 2, :, t.idx[:3]]),
    ("index_broadcast", lambda m, t: t.y[t.idx.view(5, 1) % 4, t.idx.view(1, 5)]),
    ("index_negative", lambda m, t: t.y[t.idx - 4]),
    ("index_negative_last", lambda m, t: t.y[:, -1 - t.idx]),
    ("index_int_self", lambda m, t: t.xi[t.tokens % 2]),
    ("index_int32_index", lambda m, t: t.y[(t.idx % 4).int()]),
    ("index_noncontig_self", lambda m, t: t.x.transpose(1, 2)[:, t.idx % 4]),
    ("index_mask_pattern", lambda m, t: t.y[t.idx[1:2].view(1, 1, 1, 1), t.idx.view(1, 1, 5, 1)]),
    ("index_size0", lambda m, t: t.y[t.idx[:0]]),
    ("index_size1_self", lambda m, t: t.u[:, t.idx % 4]),
    # random numbers: results that do not depend on the draws (the draws themselves are checked
    # bit for bit across the interpreter and both targets by tests/e2e/test_random.py)
    ("rand_in_unit", lambda m, t: _in_range(torch.rand(3, 5), 0, 1)),
    ("rand_like_f16_in_unit", lambda m, t: _in_range(torch.rand_like(t.x.half()), 0, 1)),
    ("randn_like_times_zero", lambda m, t: t.x + 0 * torch.randn_like(t.x)),
    ("randint_in_range", lambda m, t: _in_range(torch.randint(-3, 4, (4, 6)), -3, 4)),
    ("randint_like_i32", lambda m, t: _in_range(torch.randint_like(t.xi.int(), 5), 0, 5)),
    ("randperm_sorted", lambda m, t: torch.randperm(7).sort().values),
    ("randperm_i32_sum", lambda m, t: torch.randperm(6, dtype=torch.int32).sum()),
]


# --------------------------------------------------------------------------------------------
# scatter: flip, repeat/tile, diagonal, as_strided, stack, slice/select scatters, scatter,
# scatter_add, scatter_reduce, index_put, masked_scatter (roll: the roll suite)
# --------------------------------------------------------------------------------------------


def _scatter_inputs(g):
    return {
        "x": _randn(g, 3, 4, 5),
        "y": _randn(g, 4, 6),
        "z": _randn(g, 5, 6),
        "h": _randn(g, 4, 6).half(),
        "hz": _randn(g, 5, 6).half(),
        "bf": _randn(g, 4, 6).bfloat16(),
        "bz": _randn(g, 5, 6).bfloat16(),
        "xi": _randint(g, -5, 6, 4, 6),
        "zi": _randint(g, -3, 4, 5, 6),
        "bo": _randbool(g, 4, 6),
        "sq": _randn(g, 5, 5),
        # each column a permutation of 0..3 (dim 0) / each row one of 0..5 (dim 1): unique
        # targets for scatters without a reduction
        "perm0": torch.argsort(_rand(g, 4, 6), dim=0),
        "perm1": torch.argsort(_rand(g, 4, 6), dim=1),
        # duplicates along dim 0 for the reductions
        "dup": _randint(g, 0, 4, 5, 6),
        "rows": torch.tensor([3, -1, 0], dtype=torch.int64),
        # out-of-range indices, which the masked index ops clamp
        "mi": torch.tensor([[5], [-6], [2], [0]], dtype=torch.int64),
        "mj": torch.tensor([[7, -1, 3, -9, 0]], dtype=torch.int64),
        "r2": torch.tensor([[0], [2]], dtype=torch.int64),
        "c3": torch.tensor([3, 0, -4], dtype=torch.int64),
    }


def _put(target, key, value):
    out = target.clone()
    out[key] = value
    return out


SCATTER_CASES: list[tuple[str, CaseFn]] = [
    ("flip_0", lambda m, t: t.x.flip(0)),
    ("flip_multi", lambda m, t: torch.flip(t.x, [0, 2])),
    ("flip_neg", lambda m, t: t.y.flip(-1)),
    ("flip_int", lambda m, t: t.xi.flip(1)),
    ("flip_half", lambda m, t: t.h.flip(0)),
    ("flip_bool", lambda m, t: t.bo.flip(1)),
    ("flip_noncontig", lambda m, t: t.x.transpose(0, 2).flip(1)),
    ("flip_then_add", lambda m, t: t.y.flip(0) + t.y),
    ("flip_size0", lambda m, t: t.x[:, :0].flip(1)),
    ("repeat", lambda m, t: t.y.repeat(2, 3)),
    ("repeat_new_dims", lambda m, t: t.y.repeat(2, 1, 1)),
    ("repeat_int", lambda m, t: t.xi.repeat(1, 2)),
    ("repeat_zero", lambda m, t: t.y.repeat(0, 2)),
    ("repeat_noncontig", lambda m, t: t.y.t().repeat(2, 1)),
    ("repeat_bool", lambda m, t: t.bo.repeat(2, 1)),
    ("tile", lambda m, t: t.x.tile((2,))),
    ("tile_bf16", lambda m, t: t.bf.tile((2, 1, 2))),
    ("diagonal", lambda m, t: torch.diagonal(t.sq)),
    ("diagonal_offset", lambda m, t: t.y.diagonal(2)),
    ("diagonal_neg_offset", lambda m, t: t.y.diagonal(-1)),
    ("diagonal_dims", lambda m, t: t.x.diagonal(1, 0, 2)),
    ("diagonal_swapped", lambda m, t: t.x.diagonal(-1, 2, 0)),
    ("diagonal_add", lambda m, t: t.sq.diagonal() * 2 + 1),
    ("diagonal_past", lambda m, t: t.y.diagonal(7)),
    ("diagonal_int", lambda m, t: t.xi.diagonal()),
    ("diagonal_noncontig", lambda m, t: t.x.transpose(0, 1).diagonal(0, 1, 2)),
    ("as_strided", lambda m, t: torch.as_strided(t.y, (3, 3), (2, 1), 1)),
    ("as_strided_overlap", lambda m, t: torch.as_strided(t.x, (4, 5), (1, 3))),
    ("as_strided_temp", lambda m, t: torch.as_strided(t.y * 2, (2, 2, 2), (6, 2, 1), 3)),
    ("stack_0", lambda m, t: torch.stack([t.y, t.y * 2])),
    ("stack_last", lambda m, t: torch.stack([t.x, -t.x, t.x], -1)),
    ("stack_int", lambda m, t: torch.stack([t.xi, t.xi], 1)),
    ("slice_scatter", lambda m, t: torch.slice_scatter(t.y, t.y[:, 1:3] * 2, 1, 1, 3)),
    ("slice_scatter_step", lambda m, t: torch.slice_scatter(t.x, t.x[:, ::2] * 0, 1, 0, None, 2)),
    ("slice_scatter_neg", lambda m, t: torch.slice_scatter(t.y, t.y[-2:] + 1, 0, -2)),
    ("slice_scatter_int", lambda m, t: torch.slice_scatter(t.xi, t.xi[:, :2] * 3, 1, 0, 2)),
    ("slice_scatter_bool", lambda m, t: torch.slice_scatter(t.bo, ~t.bo[1:], 0, 1)),
    ("slice_scatter_empty", lambda m, t: torch.slice_scatter(t.y, t.y[:, 6:], 1, 6)),
    ("select_scatter", lambda m, t: torch.select_scatter(t.y, t.y[:, 1] * 2, 1, 1)),
    ("select_scatter_neg", lambda m, t: torch.select_scatter(t.x, t.x[-1] * 0, 0, -1)),
    ("select_scatter_half", lambda m, t: torch.select_scatter(t.h, t.h[2] * 2, 0, 2)),
    ("scatter_src", lambda m, t: t.y.scatter(0, t.perm0, t.y * 2)),
    ("scatter_src_smaller", lambda m, t: t.y.scatter(0, t.perm0[:3, :4], t.z * 2)),
    ("scatter_value", lambda m, t: t.y.scatter(0, t.perm0[:2], 1.5)),
    ("scatter_int", lambda m, t: t.xi.scatter(0, t.perm0, t.xi * 3)),
    ("scatter_bool", lambda m, t: t.bo.scatter(0, t.perm0[:2], True)),
    ("scatter_dim1", lambda m, t: t.y.scatter(1, t.perm1, t.y + 1)),
    ("scatter_neg_dim", lambda m, t: t.y.scatter(-1, t.perm1[:, :3], t.y)),
    ("scatter_bf16", lambda m, t: t.bf.scatter(1, t.perm1[:, :2], t.bf * 2)),
    ("scatter_add", lambda m, t: t.y.scatter_add(0, t.dup, t.z)),
    ("scatter_add_half", lambda m, t: t.h.scatter_add(0, t.dup, t.hz)),
    ("scatter_add_int", lambda m, t: t.xi.scatter_add(0, t.dup, t.zi)),
    ("scatter_add_noncontig", lambda m, t: t.y.t().scatter_add(1, t.dup.t(), t.z.t())),
    ("scatter_add_empty_index", lambda m, t: t.y.scatter_add(0, t.dup[:0], t.z[:0])),
    ("scatter_add_size1", lambda m, t: t.y[:1].scatter_add(1, t.dup[:1] % 6, t.z[:1])),
    *[(f"scatter_reduce_{r}_{'self' if s else 'noself'}",
       (lambda r, s: lambda m, t: t.y.scatter_reduce(0, t.dup, t.z, r, include_self=s))(r, s))
      for r in ("sum", "prod", "mean", "amax", "amin") for s in (True, False)],
    ("scatter_reduce_mean_int", lambda m, t: t.xi.scatter_reduce(0, t.dup, t.zi, "mean")),
    ("scatter_reduce_mean_int_noself",
     lambda m, t: t.xi.scatter_reduce(0, t.dup, t.zi, "mean", include_self=False)),
    ("scatter_reduce_amax_bf16", lambda m, t: t.bf.scatter_reduce(0, t.dup, t.bz, "amax")),
    ("scatter_reduce_amin_int_noself",
     lambda m, t: t.xi.scatter_reduce(0, t.dup, t.zi, "amin", include_self=False)),
    ("scatter_reduce_prod_half", lambda m, t: t.h.scatter_reduce(0, t.dup, t.hz, "prod")),
    ("index_put_rows", lambda m, t: t.y.index_put((t.rows,), t.y[:3] * 2)),
    ("index_put_accumulate_dup", lambda m, t: t.y.index_put((t.dup[:, 0],), t.z, accumulate=True)),
    ("index_put_broadcast", lambda m, t: t.y.index_put((t.r2, t.c3), t.y[:2, :3] * 3)),
    ("index_put_scalar", lambda m, t: t.y.index_put((t.r2, t.c3), t.y[0, 0] * 0 + 0.5)),
    ("index_put_int_accumulate", lambda m, t: t.xi.index_put((t.dup[:, 0],), t.xi[0], accumulate=True)),
    ("index_put_half", lambda m, t: t.h.index_put((t.rows,), t.h[:3])),
    ("setitem_none_first", lambda m, t: _put(t.y, (slice(None), t.c3), -1.0)),
    ("setitem_middle", lambda m, t: _put(t.x, (slice(None), t.c3 % 4), t.x[:, :3] * 2)),
    ("setitem_nonadjacent", lambda m, t: _put(t.x, (t.r2, slice(None), t.c3), 1.0)),
    ("index_put_nonadjacent_accumulate",
     lambda m, t: torch.ops.aten.index_put.default(t.x, [t.r2, None, t.c3], t.x[0, :, 0], True)),
    ("setitem_mask_scalar", lambda m, t: _put(t.y, t.y > 0, 0.5)),
    ("setitem_mask_row", lambda m, t: _put(t.x, t.x[:, :, 0] > 0, t.x[0, 0] * 0)),
    ("index_put_mask_accumulate",
     lambda m, t: torch.ops.aten.index_put.default(t.xi, [t.bo], t.xi[0, 0] * 0 + 7, True)),
    ("masked_scatter", lambda m, t: t.y.masked_scatter(t.bo, t.z)),
    ("masked_scatter_broadcast", lambda m, t: t.x.masked_scatter(t.x[0, :, :1] > 0, t.x * 2)),
    ("masked_scatter_int", lambda m, t: t.xi.masked_scatter(t.bo, t.zi)),
    # masked indexing with clamped indices (inductor's forms; training IR)
    # (an index may be out of range only where the mask is False: "unsafe")
    ("unsafe_masked_index", lambda m, t: torch.ops.aten._unsafe_masked_index(
        t.y, t.bo[:, :5] & (t.mi >= 0) & (t.mi < 4) & (t.mj >= 0) & (t.mj < 6), [t.mi, t.mj],
        -2.5)),
    ("unsafe_masked_index_one_dim", lambda m, t: torch.ops.aten._unsafe_masked_index(
        t.y, t.bo[:, :5] & (t.mj >= 0) & (t.mj < 6), [None, t.mj[0]], 1.5)),
    ("unsafe_masked_index_put_accumulate",
     lambda m, t: torch.ops.aten._unsafe_masked_index_put_accumulate(
         t.y, t.bo[:, :5], [t.mi, t.mj], t.z[:4, :5])),
    # resize_as_: the same shape, or the first elements of a larger tensor
    ("resize_as_same", lambda m, t: t.y.clone().resize_as_(t.xi)),
    ("resize_as_shrink", lambda m, t: (t.x * 2).resize_as_(t.y)),
]


def _roll_inputs(g):
    return {"x": _randn(g, 3, 4, 5), "y": _randn(g, 4, 6), "xi": _randint(g, -5, 6, 4, 6)}


ROLL_CASES: list[tuple[str, CaseFn]] = [
    ("roll_dims", lambda m, t: torch.roll(t.x, (1, -2), (0, 2))),
    ("roll_flat", lambda m, t: torch.roll(t.y, 5)),
    ("roll_big", lambda m, t: t.y.roll(-13, 1)),
    ("roll_int", lambda m, t: t.xi.roll(1, 0)),
    ("roll_noncontig", lambda m, t: t.x.transpose(0, 2).roll(2, 1)),
]


# --------------------------------------------------------------------------------------------
# fft: torch.fft, stft and complex values (training IR: fft_* / stft; core ATen: _fft_r2c,
# _fft_c2c, _fft_c2r, view_as_real, unfold). Complex results leave as real tensors.
# --------------------------------------------------------------------------------------------


def _fft_inputs(g):
    return {
        "x": _randn(g, 3, 16),       # even length
        "x7": _randn(g, 4, 7),       # odd length
        "x3": _randn(g, 2, 5, 6),    # a middle dim
        "x1": _randn(g, 3, 1, 4),    # a size-1 dim
        "xc": _randn(g, 3, 8, 2),    # a complex tensor, as view_as_real pairs
        "v": _randn(g, 9),
        "sig": _randn(g, 2, 200),
        "sig1": _randn(g, 150),
    }


def _vr(z):
    # resolve_conj: the core decomposition of ifft of a real tensor conjugates lazily, and
    # view_as_real refuses a tensor with an unresolved conj bit.
    return torch.view_as_real(z.resolve_conj())


FFT_CASES: list[tuple[str, CaseFn]] = [
    ("rfft_last", lambda m, t: _vr(torch.fft.rfft(t.x))),
    ("rfft_odd_ortho", lambda m, t: _vr(torch.fft.rfft(t.x7, norm="ortho"))),
    ("rfft_pad_n", lambda m, t: _vr(torch.fft.rfft(t.x7, n=12, norm="forward"))),
    ("rfft_crop_n", lambda m, t: _vr(torch.fft.rfft(t.x, n=11))),
    ("rfft_middle_dim", lambda m, t: _vr(torch.fft.rfft(t.x3, dim=1))),
    ("irfft_roundtrip", lambda m, t: torch.fft.irfft(torch.fft.rfft(t.x), n=16)),
    ("irfft_odd_forward", lambda m, t: torch.fft.irfft(torch.fft.rfft(t.x7, norm="forward"),
                                                       n=7, norm="forward")),
    ("irfft_default_n", lambda m, t: torch.fft.irfft(torch.fft.rfft(t.x3, dim=1), dim=1)),
    ("fft_real_middle", lambda m, t: _vr(torch.fft.fft(t.x3, dim=1))),
    ("fft_ifft_complex", lambda m, t: _vr(torch.fft.ifft(torch.fft.fft(t.x3), dim=1))),
    ("ifft_norm_forward", lambda m, t: _vr(torch.fft.ifft(t.x7, norm="forward"))),
    ("fft_ortho_n", lambda m, t: _vr(torch.fft.fft(t.x7, n=5, norm="ortho"))),
    ("fft_size1_dim", lambda m, t: _vr(torch.fft.fft(t.x1, dim=1))),
    ("fft_noncontiguous", lambda m, t: _vr(torch.fft.fft(t.x3.transpose(1, 2), dim=-1))),
    ("fft_of_complex", lambda m, t: _vr(torch.fft.fft(torch.view_as_complex(t.xc), dim=0))),
    ("rfft2_abs", lambda m, t: torch.fft.rfft2(t.x3).abs()),
    ("irfft2_roundtrip", lambda m, t: torch.fft.irfft2(torch.fft.rfft2(t.x3), s=(5, 6))),
    ("fftn_real_part", lambda m, t: torch.fft.fftn(t.x3).real),
    ("fftn_dims_s_ortho", lambda m, t: _vr(torch.fft.fftn(t.x3, s=(4, 8), dim=(0, 2),
                                                          norm="ortho"))),
    ("ifftn_imag", lambda m, t: torch.fft.ifftn(torch.view_as_complex(t.xc)).imag),
    ("fft2_ifft2", lambda m, t: torch.fft.ifft2(torch.fft.fft2(t.x3) * 0.5).real),
    ("rfftn_irfftn", lambda m, t: torch.fft.irfftn(torch.fft.rfftn(t.x3, dim=(0, 2)),
                                                   s=(2, 6), dim=(0, 2))),
    ("angle_of_complex", lambda m, t: torch.fft.fft(torch.view_as_complex(t.xc)).angle()),
    ("angle_of_real", lambda m, t: torch.angle(t.x7 * (t.x7.abs() > 0.3))),
    ("complex_mul_div_add", lambda m, t: _vr(
        (lambda z, w: z * w - z / w + w.conj())(torch.view_as_complex(t.xc),
                                                 torch.fft.fft(torch.view_as_complex(t.xc))))),
    ("complex_times_real", lambda m, t: _vr(torch.fft.rfft(t.x3) * t.x3[..., :4] * 0.5)),
    ("complex_views", lambda m, t: _vr(torch.cat(
        [torch.fft.fft(t.x3).permute(2, 0, 1).reshape(6, -1)[1:4], torch.fft.fft(t.x7)[:3, 1:]],
        dim=1))),
    ("complex_select_imag", lambda m, t: torch.fft.fft(t.x3, dim=0)[:, 2].imag),
    ("stft_hann", lambda m, t: torch.stft(t.sig, 32, hop_length=8, window=torch.hann_window(32),
                                          return_complex=True).abs().pow(2)),
    ("stft_short_window_no_center", lambda m, t: _vr(torch.stft(
        t.sig1, 16, hop_length=4, win_length=10, window=torch.hann_window(10, periodic=False),
        center=False, return_complex=True))),
    ("stft_two_sided_normalized", lambda m, t: _vr(torch.stft(
        t.sig, 16, hop_length=5, normalized=True, onesided=False, return_complex=True))),
    ("unfold_real", lambda m, t: t.sig1.unfold(-1, 10, 7)),
    ("hann_window_symmetric", lambda m, t: torch.hann_window(9, periodic=False) * t.v),
    # hfft: the Hermitian complex-to-real DFT of the conjugate
    ("hfft_real", lambda m, t: torch.fft.hfft(t.x7)),
    ("hfft_complex_n_ortho", lambda m, t: torch.fft.hfft(
        torch.view_as_complex(t.xc), n=11, dim=1, norm="ortho")),
    ("hfft2_forward", lambda m, t: torch.fft.hfft2(t.x3, s=(4, 8), norm="forward")),
    ("hfftn_all_dims", lambda m, t: torch.fft.hfftn(t.x3)),
]


# --------------------------------------------------------------------------------------------
# nn
# --------------------------------------------------------------------------------------------


def _nn_inputs(g):
    return {
        "x2": _randn(g, 5, 16),
        "x3": _randn(g, 2, 5, 16),
        "v16": _randn(g, 16),
        "v7": _randn(g, 7),
        "m16x7": _randn(g, 16, 7),
        "b3x4": _randn(g, 3, 5, 4),
        "b3y": _randn(g, 3, 4, 6),
        "b4": _randn(g, 2, 1, 5, 4),
        "bias7": _randn(g, 7),
        "img": _randn(g, 2, 4, 9, 9),
        "img_odd": _randn(g, 1, 3, 11, 7),
        "img5": _randn(g, 2, 3, 5, 5),
        "q": _randn(g, 2, 2, 5, 8),
        "k": _randn(g, 2, 2, 7, 8),
        "v": _randn(g, 2, 2, 7, 8),
        "mask_bool": torch.rand(5, 7, generator=g) > 0.3,
        "mask_float": _randn(g, 2, 1, 5, 7),
        "mask_holes": torch.tensor([[1, 0, 1, 1, 0, 1, 1], [0] * 7, [1] * 7, [0, 0, 0, 0, 0, 0, 1],
                                    [1, 1, 0, 0, 1, 0, 0]], dtype=torch.bool),  # row 1: all masked
        "v70": _randn(g, 2, 2, 7, 70),  # value width > the attention kernel's 64-wide block
        "m16x70": _randn(g, 16, 70),  # GEMM n > the loop kernel's 64-wide block
        "ia": _randint(g, -4, 5, 3, 5),
        "ib": _randint(g, -4, 5, 5, 4),
        "lw": _randn(g, 7, 16),  # linear_cross_entropy: 7 classes
        "lt": torch.tensor([2, 0, 6, 2, 3]),  # class 2 ignored below
        "cw": _rand(g, 7, low=0.5, high=1.5),
    }


class _QuantizedWeights(nn.Module):
    """Weight-only quantized linear weights as torchao keeps them: int8 [7, 16] with a scale
    per output feature, and int4-valued int8 in 2 groups of 8 with scales and zero points."""

    def __init__(self):
        super().__init__()
        self.register_buffer("q8", torch.randint(-128, 128, (7, 16), dtype=torch.int8))
        self.register_buffer("s8", torch.rand(7) * 0.02 + 0.001)
        self.register_buffer("q4", torch.randint(-8, 8, (7, 2, 8), dtype=torch.int8))
        self.register_buffer("z4", torch.randint(-2, 3, (7, 2, 1), dtype=torch.int8))
        self.register_buffer("s4", torch.rand(7, 2, 1) * 0.2 + 0.01)
        # A convolution's int8 weight [6, 4, 3, 3] with a scale per output channel (PT2E's).
        self.register_buffer("qc", torch.randint(-128, 128, (6, 4, 3, 3), dtype=torch.int8))
        self.register_buffer("sc", torch.rand(6, 1, 1, 1) * 0.02 + 0.001)


def _static_quantized(x, scale, zero, dtype=torch.uint8):
    """PT2E's quantize_per_tensor then dequantize_per_tensor of an activation, spelled out:
    what thunderc's integer GEMMs (linear_wq / conv2d_wq with x_scale) read as integers."""
    low, high = (0, 255) if dtype == torch.uint8 else (-128, 127)
    q = torch.clamp(torch.round(x * (1.0 / scale)) + zero, low, high).to(dtype)
    return (q.to(x.dtype) - zero) * scale


def _nn_submodules():
    modules = {
        "quant": _QuantizedWeights(),
        "fc": nn.Linear(16, 7),
        "fc_nobias": nn.Linear(16, 7, bias=False),
        "conv_s2p1": nn.Conv2d(4, 6, 3, stride=2, padding=1),
        "conv_dil": nn.Conv2d(4, 5, 3, dilation=2, padding=2),
        "conv_groups": nn.Conv2d(4, 6, 3, groups=2, padding=1),
        "conv_depthwise": nn.Conv2d(4, 4, 3, groups=4, padding=1, bias=False),
        "conv_odd": nn.Conv2d(3, 5, (3, 2), stride=(2, 1), padding=(1, 0)),
        "conv_1x1_nobias": nn.Conv2d(4, 3, 1, bias=False),
        "conv_rect_stride": nn.Conv2d(4, 2, (5, 3), stride=(1, 3), padding=(2, 1), dilation=(1, 2)),
        "bn": nn.BatchNorm2d(4),
        "bn_noaffine": nn.BatchNorm2d(4, affine=False),
        "ln": nn.LayerNorm(16),
        "ln_noaffine": nn.LayerNorm(16, elementwise_affine=False),
        "ln_nobias": nn.LayerNorm(16, bias=False),
        "ln_2d": nn.LayerNorm([5, 16], eps=1e-3),
        "bn1d": nn.BatchNorm1d(16),
        "bn1d_3d": nn.BatchNorm1d(5, eps=1e-3),
    }
    for name in ("bn", "bn_noaffine", "bn1d", "bn1d_3d"):
        bn = modules[name]
        c = bn.num_features
        with torch.no_grad():
            bn.running_mean.copy_(torch.randn(c) * 0.3)
            bn.running_var.copy_(torch.rand(c) + 0.5)
            if bn.affine:
                bn.weight.copy_(1 + 0.2 * torch.randn(c))
                bn.bias.copy_(0.2 * torch.randn(c))
    for name in ("ln", "ln_nobias", "ln_2d"):
        ln = modules[name]
        with torch.no_grad():
            ln.weight.copy_(1 + 0.2 * torch.randn_like(ln.weight))
            if ln.bias is not None:
                ln.bias.copy_(0.2 * torch.randn_like(ln.bias))
    return modules


NN_CASES: list[tuple[str, CaseFn]] = [
    # grouped GEMM (MoE experts; torch._grouped_mm exports in bf16 only): group sizes from the
    # data (eager leaves rows past the last offset uninitialized, so the last group ends at the
    # last row)
    ("grouped_mm", lambda m, t: torch._grouped_mm(
        t.x2.bfloat16(),
        torch.stack([t.m16x70[:, :8], -t.m16x70[:, 8:16], t.m16x70[:, :8] * 2]).bfloat16(),
        offs=torch.cat([torch.cumsum((t.x2[:2, 0] > 0).to(torch.int32) + 1, 0, dtype=torch.int32),
                        torch.full((1,), 5, dtype=torch.int32)]))),
    # -- linear / matmul
    ("linear", lambda m, t: m.fc(t.x2)),
    # weight-only quantized (linear_wq): torchao's int8 (the scale after the GEMM) and its
    # int4 per-group form ((q - z) * s reshaped to the weight)
    ("linear_int8_weight", lambda m, t: F.linear(t.x2, m.quant.q8.to(t.x2.dtype)) * m.quant.s8),
    ("linear_int4_groups", lambda m, t: F.linear(
        t.x3, ((m.quant.q4.to(t.x3.dtype) - m.quant.z4.to(t.x3.dtype)) * m.quant.s4).reshape(
            7, 16), m.fc.bias)),
    # statically quantized activations (PT2E): u8 into an int8 linear, i8 into a convolution
    ("linear_static_int8", lambda m, t: F.linear(
        _static_quantized(t.x2, 0.02, 131), m.quant.q8.to(t.x2.dtype) * m.quant.s8[:, None],
        m.fc.bias)),
    ("conv2d_static_int8", lambda m, t: F.conv2d(
        _static_quantized(t.img, 0.03, -3, torch.int8),
        m.quant.qc.to(t.img.dtype) * m.quant.sc, m.conv_s2p1.bias, stride=2, padding=1)),
    ("linear_nobias", lambda m, t: m.fc_nobias(t.x2)),
    ("linear_3d", lambda m, t: m.fc(t.x3)),
    ("linear_3d_nobias", lambda m, t: m.fc_nobias(t.x3)),
    ("linear_1d", lambda m, t: m.fc(t.v16)),
    ("linear_4d", lambda m, t: m.fc(t.x3.view(2, 5, 1, 16).expand(2, 5, 3, 16))),
    ("linear_functional_bias", lambda m, t: F.linear(t.x2, t.m16x7.t(), t.bias7)),
    ("linear_noncontig_input", lambda m, t: m.fc(t.x3.transpose(0, 1))),
    ("matmul_1d_1d", lambda m, t: torch.matmul(t.v16, t.x2[0])),
    ("matmul_2d_1d", lambda m, t: torch.matmul(t.x2, t.v16)),
    ("matmul_1d_2d", lambda m, t: torch.matmul(t.v16, t.m16x7)),
    ("matmul_2d_2d", lambda m, t: t.x2 @ t.m16x7),
    ("matmul_3d_3d", lambda m, t: t.b3x4 @ t.b3y),
    ("matmul_3d_2d", lambda m, t: t.x3 @ t.m16x7),
    ("matmul_1d_3d", lambda m, t: torch.matmul(t.v16, t.x3.transpose(1, 2))),
    ("matmul_3d_1d", lambda m, t: torch.matmul(t.x3, t.v16)),
    ("matmul_broadcast_batch", lambda m, t: t.b4 @ t.b3y),
    ("matmul_transposed_operand", lambda m, t: t.x2 @ t.x2.t()),
    ("matmul_wide", lambda m, t: t.x3 @ t.m16x70),
    ("matmul_bf16_wide", lambda m, t: t.x2.bfloat16() @ t.m16x70.bfloat16()),
    ("linear_f16", lambda m, t: F.linear(t.x3.half(), m.fc.weight.half(), m.fc.bias.half())),
    ("matmul_int64", lambda m, t: t.ia @ t.ib),
    ("mm", lambda m, t: torch.mm(t.x2, t.m16x7)),
    ("bmm", lambda m, t: torch.bmm(t.b3x4, t.b3y)),
    # -- einsum (one batched GEMM per operand pair; diagonals, sums, "..." broadcast)
    ("einsum_mm", lambda m, t: torch.einsum("ik,kj->ij", t.x2, t.m16x7)),
    ("einsum_bmm_transposed_out", lambda m, t: torch.einsum("bij,bjk->bki", t.b3x4, t.b3y)),
    ("einsum_attention_scores", lambda m, t: torch.einsum("bhqd,bhkd->bhqk", t.q, t.k)),
    ("einsum_outer", lambda m, t: torch.einsum("i,j->ij", t.v16, t.v7)),
    ("einsum_implicit_output", lambda m, t: torch.einsum("kj,ik", t.m16x7, t.x2)),
    ("einsum_trace_diag", lambda m, t: torch.einsum("ii->i", t.x2[:, :5]) +
     torch.einsum("ii", t.x2[:, :5])),
    ("einsum_sum_own_label", lambda m, t: torch.einsum("bij,bjk->b", t.b3x4, t.b3y)),
    ("einsum_ellipsis_broadcast", lambda m, t: torch.einsum("...ij,...jk->...ik", t.b4, t.b3y)),
    ("einsum_three_operands", lambda m, t: torch.einsum("i,ij,j->", t.v16, t.m16x7, t.v7)),
    ("einsum_batch_kept_later", lambda m, t: torch.einsum("bi,bj,b->bij", t.x2, t.x2[:, :7],
                                                          t.v16[:5])),
    ("addmm", lambda m, t: torch.addmm(t.bias7, t.x2, t.m16x7)),
    ("addmm_alpha_beta", lambda m, t: torch.addmm(t.bias7, t.x2, t.m16x7, beta=0.5, alpha=2.0)),
    ("addmm_2d_bias", lambda m, t: torch.addmm(t.x2[:, :7], t.x2, t.m16x7)),
    # -- convolution
    ("conv2d_stride2_pad1", lambda m, t: m.conv_s2p1(t.img)),
    ("conv2d_dilation2", lambda m, t: m.conv_dil(t.img)),
    ("conv2d_groups2", lambda m, t: m.conv_groups(t.img)),
    ("conv2d_depthwise_nobias", lambda m, t: m.conv_depthwise(t.img)),
    ("conv2d_odd_kernel_stride", lambda m, t: m.conv_odd(t.img_odd)),
    ("conv2d_1x1_nobias", lambda m, t: m.conv_1x1_nobias(t.img)),
    ("conv2d_rect_stride_dilation", lambda m, t: m.conv_rect_stride(t.img)),
    ("conv2d_functional", lambda m, t: F.conv2d(t.img5, m.conv_odd.weight, None, padding=(0, 1))),
    ("conv2d_stride_gt_kernel", lambda m, t: F.conv2d(t.img, m.conv_1x1_nobias.weight, stride=3)),
    ("conv2d_big_padding", lambda m, t: F.conv2d(t.img, m.conv_s2p1.weight, m.conv_s2p1.bias, padding=3)),
    ("conv2d_noncontig_input", lambda m, t: m.conv_s2p1(t.img.transpose(2, 3))),
    ("conv2d_bf16",
     lambda m, t: F.conv2d(t.img.bfloat16(), m.conv_s2p1.weight.bfloat16(), m.conv_s2p1.bias.bfloat16(),
                           stride=2, padding=1)),
    # -- normalization
    ("batch_norm", lambda m, t: m.bn(t.img)),
    ("batch_norm_noaffine", lambda m, t: m.bn_noaffine(t.img)),
    ("layer_norm", lambda m, t: m.ln(t.x3)),
    ("layer_norm_noaffine", lambda m, t: m.ln_noaffine(t.x2)),
    ("layer_norm_nobias", lambda m, t: m.ln_nobias(t.x3)),
    ("layer_norm_2d_shape", lambda m, t: m.ln_2d(t.x3)),
    ("layer_norm_bias_only", lambda m, t: F.layer_norm(t.x2, (16,), None, m.ln.bias)),
    ("layer_norm_1d_input", lambda m, t: m.ln(t.v16)),
    ("batch_norm_bias_only", lambda m, t: F.batch_norm(t.img, m.bn.running_mean, m.bn.running_var, None, m.bn.bias)),
    ("batch_norm1d_2d", lambda m, t: m.bn1d(t.x2)),
    ("batch_norm1d_3d", lambda m, t: m.bn1d_3d(t.x3)),
    # -- pooling
    ("max_pool2d_k2", lambda m, t: F.max_pool2d(t.img, 2)),
    ("max_pool2d_k3_s2_p1", lambda m, t: F.max_pool2d(t.img, 3, stride=2, padding=1)),
    ("max_pool2d_ceil", lambda m, t: F.max_pool2d(t.img, 2, stride=2, ceil_mode=True)),
    ("max_pool2d_dilation", lambda m, t: F.max_pool2d(t.img, 3, stride=1, dilation=2)),
    ("max_pool2d_rect_odd",
     lambda m, t: F.max_pool2d(t.img_odd, (3, 2), stride=(2, 1), padding=(1, 1), ceil_mode=True)),
    ("max_pool2d_ceil_pad_drop_last", lambda m, t: F.max_pool2d(t.img5, 2, stride=2, padding=1, ceil_mode=True)),
    ("max_pool2d_dilation_pad", lambda m, t: F.max_pool2d(t.img, 3, stride=2, padding=1, dilation=2)),
    ("avg_pool2d_k2", lambda m, t: F.avg_pool2d(t.img, 2)),
    ("avg_pool2d_pad_include", lambda m, t: F.avg_pool2d(t.img, 3, stride=2, padding=1, count_include_pad=True)),
    ("avg_pool2d_pad_exclude", lambda m, t: F.avg_pool2d(t.img, 3, stride=2, padding=1, count_include_pad=False)),
    ("avg_pool2d_ceil", lambda m, t: F.avg_pool2d(t.img, 2, stride=2, ceil_mode=True)),
    ("avg_pool2d_ceil_pad_exclude",
     lambda m, t: F.avg_pool2d(t.img_odd, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    ("avg_pool2d_ceil_pad_include",
     lambda m, t: F.avg_pool2d(t.img_odd, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=True)),
    ("avg_pool2d_ceil_pad_drop_last_include",
     lambda m, t: F.avg_pool2d(t.img5, 2, stride=2, padding=1, ceil_mode=True)),
    ("avg_pool2d_ceil_pad_drop_last_exclude",
     lambda m, t: F.avg_pool2d(t.img5, 2, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    ("avg_pool2d_ceil_overhang_include", lambda m, t: F.avg_pool2d(t.img5, 3, stride=2, padding=1, ceil_mode=True)),
    ("avg_pool2d_ceil_overhang_8",
     lambda m, t: F.avg_pool2d(t.img[:, :, :8, :8], 3, stride=2, padding=1, ceil_mode=True)),
    ("avg_pool2d_divisor_override", lambda m, t: F.avg_pool2d(t.img, 2, divisor_override=3)),
    ("adaptive_avg_pool2d_1x1", lambda m, t: F.adaptive_avg_pool2d(t.img, (1, 1))),
    ("adaptive_avg_pool2d_5_to_3", lambda m, t: F.adaptive_avg_pool2d(t.img5, 3)),
    ("adaptive_avg_pool2d_11x7_to_4x3", lambda m, t: F.adaptive_avg_pool2d(t.img_odd, (4, 3))),
    ("adaptive_avg_pool2d_identity", lambda m, t: F.adaptive_avg_pool2d(t.img5, (5, 5))),
    ("adaptive_avg_pool2d_upsample", lambda m, t: F.adaptive_avg_pool2d(t.img5, (7, 6))),
    # Unbatched CHW input (the emitter treats it as N = 1).
    ("max_pool2d_unbatched", lambda m, t: F.max_pool2d(t.img[0], 2)),
    ("avg_pool2d_unbatched", lambda m, t: F.avg_pool2d(t.img[0], 3, stride=2, padding=1)),
    ("adaptive_avg_pool2d_unbatched", lambda m, t: F.adaptive_avg_pool2d(t.img[0], (2, 3))),
    # -- attention
    ("sdpa", lambda m, t: F.scaled_dot_product_attention(t.q, t.k, t.v)),
    ("sdpa_bool_mask", lambda m, t: F.scaled_dot_product_attention(t.q, t.k, t.v, attn_mask=t.mask_bool)),
    ("sdpa_float_mask", lambda m, t: F.scaled_dot_product_attention(t.q, t.k, t.v, attn_mask=t.mask_float)),
    ("sdpa_key_padding_mask",
     lambda m, t: F.scaled_dot_product_attention(
         t.q, t.k, t.v, attn_mask=torch.logical_or(t.mask_bool[:2, None, None, :], t.mask_bool[0]))),
    ("sdpa_causal", lambda m, t: F.scaled_dot_product_attention(t.q, t.k[:, :, :5], t.v[:, :, :5], is_causal=True)),
    ("sdpa_causal_rect", lambda m, t: F.scaled_dot_product_attention(t.q, t.k, t.v, is_causal=True)),
    ("sdpa_scale", lambda m, t: F.scaled_dot_product_attention(t.q, t.k, t.v, scale=0.2)),
    ("sdpa_mask_and_scale",
     lambda m, t: F.scaled_dot_product_attention(t.q, t.k, t.v, attn_mask=t.mask_bool, scale=0.5)),
    ("sdpa_causal_scale", lambda m, t: F.scaled_dot_product_attention(t.q, t.k, t.v, is_causal=True, scale=0.3)),
    ("sdpa_permuted_qkv", lambda m, t: F.scaled_dot_product_attention(
        t.q.transpose(1, 2).reshape(2, 5, 16).view(2, 5, 2, 8).transpose(1, 2),
        t.k.transpose(2, 3).transpose(2, 3), t.v)),
    ("sdpa_3d", lambda m, t: F.scaled_dot_product_attention(t.q[0], t.k[0], t.v[0])),
    ("sdpa_fully_masked_row", lambda m, t: F.scaled_dot_product_attention(t.q, t.k, t.v, attn_mask=t.mask_holes)),
    ("sdpa_wide_v", lambda m, t: F.scaled_dot_product_attention(t.q, t.k, t.v70, attn_mask=t.mask_float)),
    # max_pool2d's gradient (overlapping windows sum into a shared maximum)
    ("max_pool2d_with_indices_backward", lambda m, t: torch.ops.aten.max_pool2d_with_indices_backward(
        F.max_pool2d(t.img, 3, stride=2, ceil_mode=True) * 2, t.img, [3, 3], [2, 2], [0, 0],
        [1, 1], True, F.max_pool2d(t.img, 3, stride=2, ceil_mode=True, return_indices=True)[1])),
    # linear_cross_entropy's chunked ops (options given)
    ("linear_cross_entropy_chunked_mean", lambda m, t: F.linear_cross_entropy(
        t.x2, t.lw, t.lt, linear_bias=t.bias7, weight=t.cw, ignore_index=2,
        options=nn.LinearCrossEntropyOptions(batch_chunk_size=2))),
    ("linear_cross_entropy_chunked_sum", lambda m, t: F.linear_cross_entropy(
        t.x2, t.lw, t.lt, reduction="sum", options=nn.LinearCrossEntropyOptions(batch_chunk_size=3))),
    ("linear_cross_entropy_chunked_none", lambda m, t: F.linear_cross_entropy(
        t.x2, t.lw, t.lt, linear_bias=t.bias7, weight=t.cw, reduction="none", ignore_index=2,
        options=nn.LinearCrossEntropyOptions(batch_chunk_size=2))),
]


# --------------------------------------------------------------------------------------------
# resample: pad, upsample (F.interpolate) and 1-d adaptive pooling
# --------------------------------------------------------------------------------------------


def _resample_inputs(g):
    return {
        "img": _randn(g, 2, 3, 5, 6),
        "seq": _randn(g, 2, 3, 7),
        "vol": _randn(g, 1, 2, 3, 4, 5),
        "imgi": _randint(g, -50, 50, 2, 3, 4, 5),
        "tall": _randn(g, 2, 6, 3, 5),  # tall.transpose(1, 2) is a non-contiguous [2,3,6,5]
        "dot": _randn(g, 1, 1, 1, 4),  # size-1 dims
    }


# Both levels: constant padding (pad -> constant_pad_nd), upsample_nearest2d and
# upsample_bilinear2d (.vec at both levels), adaptive_avg_pool1d (core: _adaptive_avg_pool2d).
RESAMPLE_CASES: list[tuple[str, CaseFn]] = [
    ("pad_constant_last", lambda m, t: F.pad(t.img, (1, 2))),
    ("pad_constant_2d_value", lambda m, t: F.pad(t.img, (2, 3, 1, 4), value=0.5)),
    ("pad_constant_crop", lambda m, t: F.pad(t.img, (-1, 2, 3, -2))),
    ("pad_constant_crop_both_sides", lambda m, t: F.pad(t.seq, (-2, -3), value=9.0)),
    ("pad_constant_every_dim", lambda m, t: F.pad(t.img, (1, 1, 0, 2, 1, 0, 1, 1), value=-2.0)),
    ("pad_constant_int", lambda m, t: F.pad(t.imgi, (1, 2, 2, 1), value=7)),
    ("pad_constant_f16", lambda m, t: F.pad(t.img.half(), (3, 3), value=-1.5)),
    ("pad_constant_bf16", lambda m, t: F.pad(t.img.bfloat16(), (0, 0, 2, 2))),
    ("pad_constant_size1", lambda m, t: F.pad(t.dot, (2, 2, 3, 3))),
    ("pad_constant_noncontig", lambda m, t: F.pad(t.tall.transpose(1, 2), (1, 1, 2, 2))),
    ("constant_pad_nd", lambda m, t: torch.constant_pad_nd(t.seq, [2, -3, 0, 1], 1.25)),
    ("upsample_nearest_x2", lambda m, t: F.interpolate(t.img, scale_factor=2, mode="nearest")),
    ("upsample_nearest_size", lambda m, t: F.interpolate(t.img, size=(7, 9), mode="nearest")),
    ("upsample_nearest_down", lambda m, t: F.interpolate(t.img, size=(3, 4), mode="nearest")),
    ("upsample_nearest_scale_frac", lambda m, t: F.interpolate(t.img, scale_factor=(1.7, 2.3))),
    ("upsample_nearest_f16", lambda m, t: F.interpolate(t.img.half(), scale_factor=3)),
    ("upsample_nearest_size1", lambda m, t: F.interpolate(t.dot, size=(3, 7))),
    ("upsample_bilinear_x2", lambda m, t: F.interpolate(t.img, scale_factor=2, mode="bilinear")),
    ("upsample_bilinear_x2_align",
     lambda m, t: F.interpolate(t.img, scale_factor=2, mode="bilinear", align_corners=True)),
    ("upsample_bilinear_size", lambda m, t: F.interpolate(t.img, size=(7, 9), mode="bilinear")),
    ("upsample_bilinear_size_align",
     lambda m, t: F.interpolate(t.img, size=(7, 9), mode="bilinear", align_corners=True)),
    ("upsample_bilinear_scale_frac",
     lambda m, t: F.interpolate(t.img, scale_factor=(1.5, 2.3), mode="bilinear")),
    ("upsample_bilinear_down", lambda m, t: F.interpolate(t.img, size=(3, 4), mode="bilinear")),
    ("upsample_bilinear_same_size", lambda m, t: F.interpolate(t.img, size=(5, 6), mode="bilinear")),
    ("upsample_bilinear_bf16",
     lambda m, t: F.interpolate(t.img.bfloat16(), size=(8, 10), mode="bilinear")),
    ("upsample_bilinear_f16",
     lambda m, t: F.interpolate(t.img.half(), scale_factor=2, mode="bilinear", align_corners=True)),
    ("upsample_bilinear_noncontig",
     lambda m, t: F.interpolate(t.tall.transpose(1, 2), scale_factor=2, mode="bilinear")),
    ("upsample_bilinear_size1",
     lambda m, t: F.interpolate(t.dot, size=(3, 7), mode="bilinear", align_corners=True)),
    ("upsample_bilinear_to_one", lambda m, t: F.interpolate(t.img, size=(1, 1), mode="bilinear")),
    ("adaptive_avg_pool1d_7_to_3", lambda m, t: F.adaptive_avg_pool1d(t.seq, 3)),
    ("adaptive_avg_pool1d_up", lambda m, t: F.adaptive_avg_pool1d(t.seq, 9)),
    ("adaptive_avg_pool1d_unbatched", lambda m, t: F.adaptive_avg_pool1d(t.seq[0], 4)),
    ("adaptive_avg_pool1d_noncontig", lambda m, t: F.adaptive_avg_pool1d(t.seq.transpose(0, 1), 2)),
    ("max_pool1d", lambda m, t: F.max_pool1d(t.seq, 3, stride=2, padding=1)),
    ("max_pool1d_dilation_ceil", lambda m, t: F.max_pool1d(t.seq, 2, dilation=2, ceil_mode=True)),
    ("avg_pool1d", lambda m, t: F.avg_pool1d(t.seq, 2)),
    ("avg_pool1d_pad_exclude",
     lambda m, t: F.avg_pool1d(t.seq[0], 3, stride=2, padding=1, count_include_pad=False)),
    # bicubic (upsample_bicubic2d.vec; index arithmetic in core ATen) and antialiased bilinear
    ("upsample_bicubic_size", lambda m, t: F.interpolate(t.img, size=(7, 9), mode="bicubic")),
    ("upsample_bicubic_align_down",
     lambda m, t: F.interpolate(t.img, size=(3, 4), mode="bicubic", align_corners=True)),
    ("upsample_bicubic_scale",
     lambda m, t: F.interpolate(t.img, scale_factor=(1.5, 2.3), mode="bicubic")),
    ("upsample_bilinear_aa_down",
     lambda m, t: F.interpolate(t.img, size=(3, 4), mode="bilinear", antialias=True)),
    ("upsample_bilinear_aa_up_align", lambda m, t: F.interpolate(
        t.img, size=(7, 9), mode="bilinear", antialias=True, align_corners=True)),
    ("upsample_bilinear_aa_scale", lambda m, t: F.interpolate(
        t.img, scale_factor=(0.6, 1.7), mode="bilinear", antialias=True)),
]

# Both levels; in core ATen these are no longer pad/upsample ops: reflect and replicate
# padding, nearest-exact, 1-d/3-d nearest and (tri)linear upsampling become aten.index.Tensor
# (plus arithmetic on the source indices), and circular padding empty + copy + slice_scatter.
RESAMPLE_INDEXED_CASES: list[tuple[str, CaseFn]] = [
    ("pad_reflect_1d", lambda m, t: F.pad(t.seq, (2, 3), mode="reflect")),
    ("pad_reflect_2d", lambda m, t: F.pad(t.img, (2, 1, 3, 4), mode="reflect")),
    ("pad_reflect_3d", lambda m, t: F.pad(t.vol, (1, 4, 2, 1, 1, 2), mode="reflect")),
    ("pad_reflect_crop", lambda m, t: F.pad(t.img, (-1, 2, 3, -2), mode="reflect")),
    ("pad_reflect_f16", lambda m, t: F.pad(t.seq.half(), (5, 6), mode="reflect")),
    ("pad_reflect_noncontig", lambda m, t: F.pad(t.tall.transpose(1, 2), (4, 4, 2, 2), mode="reflect")),
    ("pad_replicate_1d", lambda m, t: F.pad(t.seq, (9, 4), mode="replicate")),
    ("pad_replicate_2d", lambda m, t: F.pad(t.img, (3, 0, 2, 7), mode="replicate")),
    ("pad_replicate_3d", lambda m, t: F.pad(t.vol, (2, 2, 0, 3, 4, 1), mode="replicate")),
    ("pad_replicate_crop", lambda m, t: F.pad(t.img, (2, -3, -1, 2), mode="replicate")),
    ("pad_replicate_size1", lambda m, t: F.pad(t.dot, (2, 2, 3, 3), mode="replicate")),
    ("pad_replicate_bf16", lambda m, t: F.pad(t.img.bfloat16(), (1, 2, 2, 1), mode="replicate")),
    ("pad_circular_1d", lambda m, t: F.pad(t.seq, (3, 7), mode="circular")),
    ("pad_circular_2d", lambda m, t: F.pad(t.img, (2, 3, 1, 5), mode="circular")),
    ("pad_circular_3d", lambda m, t: F.pad(t.vol, (1, 2, 2, 2, 1, 3), mode="circular")),
    ("pad_circular_crop", lambda m, t: F.pad(t.img, (2, -1, -2, 3), mode="circular")),
    ("reflection_pad2d_module", lambda m, t: m.reflect(t.img)),
    ("replication_pad1d_module", lambda m, t: m.replicate(t.seq)),
    ("upsample_nearest_exact", lambda m, t: F.interpolate(t.img, size=(7, 9), mode="nearest-exact")),
    ("upsample_nearest_1d", lambda m, t: F.interpolate(t.seq, scale_factor=2.5)),
    ("upsample_nearest_3d", lambda m, t: F.interpolate(t.vol, size=(4, 6, 11))),
    ("upsample_linear_1d", lambda m, t: F.interpolate(t.seq, size=12, mode="linear")),
    ("upsample_linear_1d_align",
     lambda m, t: F.interpolate(t.seq, scale_factor=1.5, mode="linear", align_corners=True)),
    ("upsample_trilinear", lambda m, t: F.interpolate(t.vol, scale_factor=2, mode="trilinear")),
]


def _resample_submodules():
    return {"reflect": nn.ReflectionPad2d((1, 2, 3, 0)), "replicate": nn.ReplicationPad1d(4)}

# conv_norm: 1-d and transposed convolutions, group/instance/weight norm, vector norms
# --------------------------------------------------------------------------------------------


def _conv_norm_inputs(g):
    return {
        "seq": _randn(g, 2, 4, 12),
        "seq1": _randn(g, 1, 4, 1),
        "img": _randn(g, 2, 4, 6, 5),
        "img1": _randn(g, 1, 4, 1, 1),
        "vec": _randn(g, 3, 4),
        "feat": _randn(g, 2, 8, 7),
    }


def _conv_norm_submodules():
    wn = nn.utils.parametrizations.weight_norm
    modules = {
        "c1": nn.Conv1d(4, 6, 3, padding=1),
        "c1_s2": nn.Conv1d(4, 6, 5, stride=2, padding=2),
        "c1_dil": nn.Conv1d(4, 5, 3, dilation=2, padding=1),
        "c1_groups": nn.Conv1d(4, 6, 3, groups=2, bias=False),
        "c1_depthwise": nn.Conv1d(4, 8, 3, groups=4, padding=1),
        "c1_k1": nn.Conv1d(4, 3, 1),
        "c1_same": nn.Conv1d(4, 6, 3, padding="same"),
        "c1_valid": nn.Conv1d(4, 6, 3, padding="valid"),
        # wav2vec2's positional convolution: a grouped, weight-normed kernel (dim=2) with the
        # padding of half its even size, one output longer than the input.
        "c1_pos": wn(nn.Conv1d(8, 8, 4, padding=2, groups=2), dim=2),
        # "same" padding with even totals only: an odd total pads asymmetrically, which core
        # ATen spells as a constant_pad_nd.
        "c2_same": nn.Conv2d(4, 3, (3, 5), padding="same", dilation=(2, 1)),
        "ct2": nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1),
        "ct2_k2s2": nn.ConvTranspose2d(4, 2, 2, stride=2),
        "ct2_groups": nn.ConvTranspose2d(4, 6, 3, stride=2, groups=2, bias=False),
        "ct2_depthwise": nn.ConvTranspose2d(4, 4, 3, padding=1, groups=4),
        "ct2_dil": nn.ConvTranspose2d(4, 3, 3, dilation=2, output_padding=1),
        "ct2_rect": nn.ConvTranspose2d(4, 5, (2, 3), stride=(3, 2), padding=(1, 2),
                                       output_padding=(2, 1)),
        "ct2_1x1": nn.ConvTranspose2d(4, 3, 1),
        "ct2_pad_big": nn.ConvTranspose2d(4, 3, 5, stride=1, padding=3),
        "ct1": nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1),
        "ct1_groups_dil": nn.ConvTranspose1d(4, 4, 3, stride=3, groups=2, dilation=2,
                                             output_padding=1, bias=False),
        "gn": nn.GroupNorm(2, 4),
        "gn_per_channel": nn.GroupNorm(8, 8),
        "gn_one": nn.GroupNorm(1, 4, eps=1e-3),
        "gn_noaffine": nn.GroupNorm(2, 4, affine=False),
        "wn_linear": wn(nn.Linear(4, 5)),
        "wn_conv_dim1": wn(nn.Conv1d(4, 6, 3), dim=1),
    }
    with torch.no_grad():
        for name in ("gn", "gn_per_channel", "gn_one"):
            modules[name].weight.copy_(1 + 0.3 * torch.randn_like(modules[name].weight))
            modules[name].bias.copy_(0.3 * torch.randn_like(modules[name].bias))
    return modules


CONV_NORM_CASES: list[tuple[str, CaseFn]] = [
    # -- 1-d convolution (conv1d.default / .padding; convolution.default in core ATen)
    ("conv1d", lambda m, t: m.c1(t.seq)),
    ("conv1d_stride2", lambda m, t: m.c1_s2(t.seq)),
    ("conv1d_dilation", lambda m, t: m.c1_dil(t.seq)),
    ("conv1d_groups_nobias", lambda m, t: m.c1_groups(t.seq)),
    ("conv1d_depthwise_multiplier", lambda m, t: m.c1_depthwise(t.seq)),
    ("conv1d_k1", lambda m, t: m.c1_k1(t.seq)),
    ("conv1d_same", lambda m, t: m.c1_same(t.seq)),
    ("conv1d_valid", lambda m, t: m.c1_valid(t.seq)),
    ("conv1d_weight_norm_pos", lambda m, t: m.c1_pos(t.feat)),
    ("conv1d_unbatched", lambda m, t: m.c1(t.seq[1])),
    ("conv1d_noncontig", lambda m, t: m.c1(t.feat.transpose(1, 2)[:, :4, :])),
    ("conv1d_length1", lambda m, t: m.c1(t.seq1)),
    ("conv1d_f16", lambda m, t: F.conv1d(t.seq.half(), m.c1_s2.weight.half(), m.c1_s2.bias.half(),
                                         stride=2, padding=2)),
    ("conv1d_bf16", lambda m, t: F.conv1d(t.seq.bfloat16(), m.c1_groups.weight.bfloat16(), groups=2)),
    ("conv2d_same", lambda m, t: m.c2_same(t.img)),
    ("conv2d_unbatched", lambda m, t: F.conv2d(t.img[0], m.c2_same.weight, padding=(1, 2))),
    # -- transposed convolution (conv_transpose1d/2d; convolution.default transposed=True)
    ("conv_transpose2d", lambda m, t: m.ct2(t.img)),
    ("conv_transpose2d_k2s2", lambda m, t: m.ct2_k2s2(t.img)),
    ("conv_transpose2d_groups_nobias", lambda m, t: m.ct2_groups(t.img)),
    ("conv_transpose2d_depthwise", lambda m, t: m.ct2_depthwise(t.img)),
    ("conv_transpose2d_dilation_outpad", lambda m, t: m.ct2_dil(t.img)),
    ("conv_transpose2d_rect", lambda m, t: m.ct2_rect(t.img)),
    ("conv_transpose2d_1x1", lambda m, t: m.ct2_1x1(t.img)),
    ("conv_transpose2d_padding_gt_kernel_half", lambda m, t: m.ct2_pad_big(t.img)),
    ("conv_transpose2d_relu", lambda m, t: torch.relu(m.ct2(t.img)) + 1.0),
    ("conv_transpose2d_size1", lambda m, t: m.ct2(t.img1)),
    ("conv_transpose2d_unbatched", lambda m, t: m.ct2_k2s2(t.img[1])),
    ("conv_transpose2d_noncontig", lambda m, t: m.ct2_groups(t.img.transpose(2, 3))),
    ("conv_transpose2d_f16", lambda m, t: F.conv_transpose2d(
        t.img.half(), m.ct2.weight.half(), m.ct2.bias.half(), stride=2, padding=1, output_padding=1)),
    ("conv_transpose2d_bf16", lambda m, t: F.conv_transpose2d(
        t.img.bfloat16(), m.ct2_groups.weight.bfloat16(), stride=2, groups=2)),
    ("conv_transpose1d", lambda m, t: m.ct1(t.seq)),
    ("conv_transpose1d_groups_dilation", lambda m, t: m.ct1_groups_dil(t.seq)),
    ("conv_transpose1d_unbatched", lambda m, t: m.ct1(t.seq[0])),
    ("conv_transpose1d_f16", lambda m, t: F.conv_transpose1d(
        t.seq.half(), m.ct1.weight.half(), m.ct1.bias.half(), stride=2, padding=1, output_padding=1)),
    # -- group norm (group_norm; native_group_norm in core ATen)
    ("group_norm", lambda m, t: m.gn(t.img)),
    ("group_norm_per_channel_1d", lambda m, t: m.gn_per_channel(t.feat)),
    ("group_norm_one_group", lambda m, t: m.gn_one(t.img)),
    ("group_norm_noaffine", lambda m, t: m.gn_noaffine(t.seq)),
    ("group_norm_2d_input", lambda m, t: m.gn(t.vec)),
    ("group_norm_size1", lambda m, t: m.gn(t.img1 * 3.0 + t.img[:1, :, :1, :1])),
    ("group_norm_noncontig", lambda m, t: m.gn(t.img.transpose(2, 3))),
    ("group_norm_weight_only", lambda m, t: F.group_norm(t.img, 2, m.gn.weight)),
    ("group_norm_f16", lambda m, t: F.group_norm(t.img.half(), 2, m.gn.weight.half(), m.gn.bias.half())),
    ("group_norm_bf16", lambda m, t: F.group_norm(t.feat.bfloat16(), 4)),
    # -- weight norm (_weight_norm; linalg_vector_norm in core ATen)
    ("weight_norm_linear", lambda m, t: m.wn_linear(t.vec)),
    ("weight_norm_conv_dim1", lambda m, t: m.wn_conv_dim1(t.seq)),
    ("weight_norm_whole", lambda m, t: torch._weight_norm(t.vec, t.vec[0, :1].abs() + 1.0, -1)),
    # (No 1-d v: core ATen's decomposition then takes the norm over all dims, unlike eager.)
    ("weight_norm_f16", lambda m, t: torch._weight_norm(t.vec.half(), t.vec[:, :1].half(), 0)),
    # -- vector norms
    ("vector_norm_2_dim", lambda m, t: torch.linalg.vector_norm(t.img, dim=(1, 2))),
    ("vector_norm_all", lambda m, t: torch.linalg.vector_norm(t.img)),
    ("vector_norm_keepdim", lambda m, t: torch.linalg.vector_norm(t.img, 2, dim=-1, keepdim=True)),
    ("vector_norm_1", lambda m, t: torch.linalg.vector_norm(t.seq, 1, dim=1)),
    ("vector_norm_inf", lambda m, t: torch.linalg.vector_norm(t.seq, float("inf"), dim=2)),
    ("vector_norm_neg_inf", lambda m, t: torch.linalg.vector_norm(t.seq, float("-inf"))),
    ("vector_norm_0", lambda m, t: torch.linalg.vector_norm(torch.relu(t.seq), 0, dim=(0, 2))),
    ("vector_norm_3", lambda m, t: torch.linalg.vector_norm(t.vec, 3, dim=0)),
    ("vector_norm_half_p", lambda m, t: torch.linalg.vector_norm(t.vec, 0.5, dim=1, keepdim=True)),
    ("vector_norm_dtype", lambda m, t: torch.linalg.vector_norm(t.vec.half(), dim=1, dtype=torch.float32)),
    ("vector_norm_f16", lambda m, t: torch.linalg.vector_norm(t.img.half(), dim=(2, 3))),
    ("vector_norm_bf16", lambda m, t: torch.linalg.vector_norm(t.seq.bfloat16(), 1, dim=-1)),
    ("vector_norm_noncontig", lambda m, t: torch.linalg.vector_norm(t.img.transpose(1, 3), dim=1)),
    ("tensor_norm", lambda m, t: t.vec.norm(dim=1)),
    ("normalize", lambda m, t: F.normalize(t.img, dim=1)),
]



# --------------------------------------------------------------------------------------------
# sort_bag: sort (stable, NaN largest), argsort, msort, topk, kthvalue; embedding_bag;
# cdist and pdist
# --------------------------------------------------------------------------------------------


def _sort_bag_inputs(g):
    nanx = _randn(g, 4, 9)
    nanx[0, 2] = nanx[1, 5] = nanx[1, 0] = nanx[3, 8] = float("nan")
    nanx[2, 1] = float("inf")
    nanx[2, 4] = float("-inf")
    return {
        "x": _randn(g, 3, 5, 7),
        "ties": _randint(g, 0, 4, 4, 9).float(),
        "nanx": nanx,
        "h": _randn(g, 4, 9).half(),
        "bf": _randn(g, 4, 9).bfloat16(),
        "xi": _randint(g, -50, 50, 4, 9),
        # a row longer than the CUDA library's shared-memory sort (merge passes)
        "long": _randn(g, 2, 2100),
        "table": _randn(g, 10, 4),
        "idx": torch.tensor([1, 2, 4, 5, 2, 3, 9, 0], dtype=torch.int64),
        "off": torch.tensor([0, 3, 3, 5], dtype=torch.int64),
        "off_last": torch.tensor([0, 3, 3, 5, 8], dtype=torch.int64),
        "psw": _randn(g, 8),
        "idx2d": _randint(g, 0, 10, 3, 4),
        "a": _randn(g, 2, 5, 3),
        "b": _randn(g, 2, 4, 3),
        "c": _randn(g, 4, 3),
        "big_a": _randn(g, 30, 6),
        "big_b": _randn(g, 27, 6),
        "pts": _randn(g, 6, 5),
    }


def _nan_as(x, value):
    """x with NaN replaced (the suites reject NaN outputs; where they sit is what counts)."""
    return torch.where(torch.isnan(x), torch.full_like(x, value), x)


def _sort_bag_submodules():
    return {"bag": nn.EmbeddingBag(10, 3, mode="mean", padding_idx=0)}


SORT_BAG_CASES: list[tuple[str, CaseFn]] = [
    ("sort_last", lambda m, t: torch.sort(t.x)[0]),
    ("sort_last_indices", lambda m, t: torch.sort(t.x)[1]),
    ("sort_desc_dim0", lambda m, t: torch.sort(t.x, 0, descending=True)[0]),
    ("sort_desc_dim0_indices", lambda m, t: torch.sort(t.x, 0, descending=True)[1]),
    ("sort_mid_neg_dim", lambda m, t: torch.sort(t.x, -2)[1]),
    ("sort_stable_ties", lambda m, t: torch.sort(t.ties, stable=True)[1]),
    ("sort_stable_ties_desc", lambda m, t: torch.sort(t.ties, dim=0, descending=True, stable=True)[1]),
    ("sort_nan", lambda m, t: _nan_as(torch.sort(t.nanx)[0], 100.0)),
    ("sort_nan_indices", lambda m, t: torch.sort(t.nanx, stable=True)[1]),
    ("sort_nan_desc", lambda m, t: torch.sort(t.nanx, descending=True, stable=True)[1]),
    ("sort_half", lambda m, t: torch.sort(t.h, 1)[0]),
    ("sort_bf16_indices", lambda m, t: torch.sort(t.bf, dim=0, stable=True)[1]),
    ("sort_int_desc", lambda m, t: torch.sort(t.xi, descending=True)[0]),
    ("sort_int32_indices", lambda m, t: torch.sort(t.xi.int(), stable=True)[1]),
    ("sort_noncontig", lambda m, t: torch.sort(t.x.transpose(0, 2), 1)[0]),
    ("sort_size1", lambda m, t: torch.sort(t.x[:, :1], 1)[1]),
    ("sort_size0", lambda m, t: torch.sort(t.x[:, :0], -1)[0]),
    ("sort_0d", lambda m, t: torch.sort(t.x[0, 0, 0])[0] * 2),
    ("sort_then_add", lambda m, t: torch.sort(t.x * 2, 1)[0] + 1),
    ("sort_long_row", lambda m, t: torch.sort(t.long)[1]),
    ("sort_long_row_desc", lambda m, t: torch.sort(t.long, descending=True)[0]),
    ("argsort", lambda m, t: torch.argsort(t.x, 1)),
    ("argsort_stable_desc", lambda m, t: torch.argsort(t.ties, dim=-1, descending=True, stable=True)),
    ("msort", lambda m, t: torch.msort(t.x)),
    ("topk", lambda m, t: torch.topk(t.x, 3)[0]),
    ("topk_indices", lambda m, t: torch.topk(t.x, 3)[1]),
    ("topk_smallest_dim0", lambda m, t: torch.topk(t.x, 2, 0, largest=False)[0]),
    ("topk_smallest_dim0_indices", lambda m, t: torch.topk(t.x, 2, 0, largest=False)[1]),
    ("topk_all", lambda m, t: torch.topk(t.x, 7)[1]),
    ("topk_k0", lambda m, t: torch.topk(t.x, 0)[0]),
    ("topk_half", lambda m, t: torch.topk(t.h, 4)[0]),
    ("topk_int", lambda m, t: torch.topk(t.xi, 2, 0)[0]),
    ("topk_long_row", lambda m, t: torch.topk(t.long, 5)[1]),
    ("topk_nan", lambda m, t: _nan_as(torch.topk(t.nanx, 2)[0], 100.0)),
    ("kthvalue", lambda m, t: torch.kthvalue(t.x, 2, 1)[0]),
    ("kthvalue_indices", lambda m, t: torch.kthvalue(t.x, 2, 1)[1]),
    ("kthvalue_keepdim", lambda m, t: torch.kthvalue(t.x, 4, -1, keepdim=True)[1]),
    ("bag_sum", lambda m, t: F.embedding_bag(t.idx, t.table, t.off, mode="sum")),
    ("bag_mean", lambda m, t: F.embedding_bag(t.idx, t.table, t.off, mode="mean")),
    ("bag_max", lambda m, t: F.embedding_bag(t.idx, t.table, t.off, mode="max")),
    ("bag_last_offset", lambda m, t: F.embedding_bag(t.idx, t.table, t.off_last, mode="mean",
                                                     include_last_offset=True)),
    ("bag_per_sample", lambda m, t: F.embedding_bag(t.idx, t.table, t.off, mode="sum",
                                                    per_sample_weights=t.psw)),
    ("bag_padding", lambda m, t: F.embedding_bag(t.idx, t.table, t.off, mode="mean", padding_idx=2)),
    ("bag_padding_max", lambda m, t: F.embedding_bag(t.idx, t.table, t.off, mode="max",
                                                     padding_idx=-8)),
    ("bag_2d", lambda m, t: F.embedding_bag(t.idx2d, t.table, mode="sum")),
    ("bag_half", lambda m, t: F.embedding_bag(t.idx, t.table.half(), t.off, mode="mean")),
    ("bag_bf16", lambda m, t: F.embedding_bag(t.idx, t.table.bfloat16(), t.off, mode="sum")),
    ("bag_int32", lambda m, t: F.embedding_bag(t.idx.int(), t.table, t.off.int(), mode="sum")),
    ("bag_module", lambda m, t: m.bag(t.idx, t.off)),
    ("cdist", lambda m, t: torch.cdist(t.a, t.b)),
    ("cdist_p1", lambda m, t: torch.cdist(t.a, t.b, p=1)),
    ("cdist_p0", lambda m, t: torch.cdist(t.a.round(), t.b.round(), p=0)),
    ("cdist_inf", lambda m, t: torch.cdist(t.a, t.b, p=float("inf"))),
    ("cdist_p3", lambda m, t: torch.cdist(t.a, t.b, p=3)),
    ("cdist_p_half", lambda m, t: torch.cdist(t.a, t.b, p=0.5)),
    ("cdist_broadcast", lambda m, t: torch.cdist(t.a, t.c)),
    ("cdist_mm", lambda m, t: torch.cdist(t.big_a, t.big_b)),
    ("cdist_mm_forced", lambda m, t: torch.cdist(t.a, t.b, compute_mode="use_mm_for_euclid_dist")),
    ("cdist_no_mm", lambda m, t: torch.cdist(t.big_a, t.big_b,
                                             compute_mode="donot_use_mm_for_euclid_dist")),
    ("pdist", lambda m, t: F.pdist(t.pts)),
    ("pdist_p1", lambda m, t: F.pdist(t.pts, p=1)),
    ("pdist_inf", lambda m, t: F.pdist(t.pts, p=float("inf"))),
    ("pdist_p3", lambda m, t: F.pdist(t.pts, p=3)),
    ("pdist_one_row", lambda m, t: F.pdist(t.pts[:1])),
]

# --------------------------------------------------------------------------------------------
# rnn: recurrent layers and cells (lstm/gru/rnn_tanh/rnn_relu.input and *_cell in training IR,
# unrolled by thunderc's importer; core ATen holds PyTorch's own unrolling: addmm/mm, sigmoid,
# tanh, split_with_sizes, cat, flip)
# --------------------------------------------------------------------------------------------


def _rnn_inputs(g):
    return {
        "seq": _randn(g, 4, 3, 4),  # [T, B, features], time-major
        "seqb": _randn(g, 3, 4, 4),  # batch-first
        "seq1": _randn(g, 1, 2, 4),  # one time step
        "h2": _randn(g, 2, 3, 6),  # [layers * directions, B, hidden] = 2 x [3, 6]
        "c2": _randn(g, 2, 3, 6),
        "h1": _randn(g, 1, 3, 6),
        "hp": _randn(g, 2, 3, 3),  # projected LSTM: h0 [.., proj_size]
        "x": _randn(g, 3, 4),  # cell input [B, features]
        "hc": _randn(g, 3, 6),  # cell state [B, hidden]
        "cc": _randn(g, 3, 6),
    }


def _rnn_submodules():
    return {
        "lstm": nn.LSTM(4, 6),
        "lstm_deep_bi": nn.LSTM(4, 6, num_layers=2, bidirectional=True, batch_first=True),
        "lstm_nobias_deep": nn.LSTM(4, 6, num_layers=2, bias=False, dropout=0.3),
        "lstm_proj": nn.LSTM(4, 6, proj_size=3, bidirectional=True),
        "lstm_proj_deep": nn.LSTM(4, 6, proj_size=3, num_layers=2, batch_first=True),
        "gru": nn.GRU(4, 6),
        "gru_deep_bi": nn.GRU(4, 6, num_layers=2, bidirectional=True),
        "gru_nobias_bf": nn.GRU(4, 6, bias=False, batch_first=True),
        "rnn_tanh": nn.RNN(4, 6),
        "rnn_relu_bi": nn.RNN(4, 6, nonlinearity="relu", bidirectional=True, batch_first=True),
        "rnn_relu_deep_nobias": nn.RNN(4, 6, num_layers=2, nonlinearity="relu", bias=False),
        "lstm_cell": nn.LSTMCell(4, 6),
        "lstm_cell_nobias": nn.LSTMCell(4, 6, bias=False),
        "gru_cell": nn.GRUCell(4, 6),
        "rnn_tanh_cell": nn.RNNCell(4, 6),
        "rnn_relu_cell": nn.RNNCell(4, 6, nonlinearity="relu", bias=False),
    }


def _flat(result):
    """One tensor from a recurrent module's (output, h_n) or (output, (h_n, c_n)) result, or a
    cell's (h, c): every part flattened and concatenated, so one case checks them all."""
    parts = []
    for item in result if isinstance(result, tuple) else (result,):
        parts.extend(item if isinstance(item, tuple) else (item,))
    return torch.cat([p.flatten() for p in parts])


RNN_CASES: list[tuple[str, CaseFn]] = [
    # -- LSTM (lstm.input): output, h_n and c_n
    ("lstm", lambda m, t: _flat(m.lstm(t.seq))),
    ("lstm_initial_state", lambda m, t: _flat(m.lstm(t.seq, (t.h1, t.c2[:1])))),
    ("lstm_deep_bidirectional_batch_first", lambda m, t: _flat(m.lstm_deep_bi(t.seqb))),
    ("lstm_deep_nobias_eval_dropout", lambda m, t: m.lstm_nobias_deep(t.seq, (t.h2, t.c2))[0]),
    ("lstm_proj_bidirectional", lambda m, t: _flat(m.lstm_proj(t.seq, (t.hp, t.c2)))),
    ("lstm_proj_deep_batch_first", lambda m, t: m.lstm_proj_deep(t.seqb)[0]),
    ("lstm_one_step", lambda m, t: m.lstm(t.seq1)[0]),
    ("lstm_unbatched", lambda m, t: _flat(m.lstm(t.seq[:, 0]))),
    ("lstm_noncontig", lambda m, t: m.lstm(t.seqb.transpose(0, 1))[0]),
    # -- GRU (gru.input)
    ("gru_initial_state", lambda m, t: _flat(m.gru(t.seq, t.h1))),
    ("gru_deep_bidirectional", lambda m, t: _flat(m.gru_deep_bi(t.seq))),
    ("gru_nobias_batch_first", lambda m, t: m.gru_nobias_bf(t.seqb)[0]),
    # -- Elman RNN (rnn_tanh.input / rnn_relu.input)
    ("rnn_tanh", lambda m, t: _flat(m.rnn_tanh(t.seq, t.h1))),
    ("rnn_relu_bidirectional_batch_first", lambda m, t: _flat(m.rnn_relu_bi(t.seqb))),
    ("rnn_relu_deep_nobias", lambda m, t: _flat(m.rnn_relu_deep_nobias(t.seq))),
    # -- cells (lstm_cell, gru_cell, rnn_tanh_cell, rnn_relu_cell)
    ("lstm_cell", lambda m, t: _flat(m.lstm_cell(t.x, (t.hc, t.cc)))),
    ("lstm_cell_zero_state_nobias", lambda m, t: _flat(m.lstm_cell_nobias(t.x))),
    ("gru_cell", lambda m, t: m.gru_cell(t.x, t.hc)),
    ("gru_cell_unbatched", lambda m, t: m.gru_cell(t.x[0], t.hc[0])),
    ("rnn_tanh_cell", lambda m, t: m.rnn_tanh_cell(t.x, t.hc)),
    ("rnn_relu_cell_nobias", lambda m, t: m.rnn_relu_cell(t.x)),
    ("cells_two_steps", lambda m, t: m.gru_cell(t.seq[1, :, :], m.gru_cell(t.seq[0], t.hc))),
]


# --------------------------------------------------------------------------------------------
# batch_stats: batch-statistics normalization (instance_norm and F.batch_norm(training=True)
# without running statistics in training IR; _native_batch_norm_legit.no_stats in core ATen),
# storage resize (resize_ / resize) and the layout queries export may leave behind
# (sym_is_contiguous)
# --------------------------------------------------------------------------------------------


def _batch_stats_inputs(g):
    return {
        "img": _randn(g, 2, 3, 4, 5),
        "seq": _randn(g, 2, 3, 7),
        "vec": _randn(g, 6, 3),
        "a": _randn(g, 3, 4),
    }


def _batch_stats_submodules():
    modules = {
        "inorm": nn.InstanceNorm2d(3, affine=True),
        "inorm1d": nn.InstanceNorm1d(3),
    }
    with torch.no_grad():
        modules["inorm"].weight.copy_(1 + 0.3 * torch.randn(3))
        modules["inorm"].bias.copy_(0.3 * torch.randn(3))
    return modules


def _no_stats(x, w=None, b=None):
    return torch.ops.aten._native_batch_norm_legit.no_stats(x, w, b, True, 0.1, 1e-5)


BATCH_STATS_CASES: list[tuple[str, CaseFn]] = [
    # -- batch statistics
    ("instance_norm_affine", lambda m, t: m.inorm(t.img)),
    ("instance_norm_1d", lambda m, t: m.inorm1d(t.seq)),
    ("instance_norm_noncontig", lambda m, t: m.inorm(t.img.transpose(2, 3))),
    ("instance_norm_f16", lambda m, t: F.instance_norm(t.img.half(), eps=1e-3)),
    ("instance_norm_bf16", lambda m, t: F.instance_norm(t.seq.bfloat16())),
    ("batch_norm_batch_stats", lambda m, t: F.batch_norm(t.img, None, None, training=True)),
    ("batch_norm_batch_stats_affine_2d", lambda m, t: F.batch_norm(
        t.vec, None, None, m.inorm.weight, m.inorm.bias, training=True, eps=1e-3)),
    ("no_stats", lambda m, t: _no_stats(t.img, m.inorm.weight, m.inorm.bias)[0]),
    ("no_stats_save_mean", lambda m, t: _no_stats(t.seq)[1]),
    ("no_stats_save_invstd", lambda m, t: _no_stats(t.img, m.inorm.weight)[2]),
    # -- resize_ (core ATen: resize, or as_strided for a shrink)
    ("resize_empty_fill", lambda m, t: torch.empty(0).resize_(3, 4).fill_(2.0) + t.a),
    ("resize_shrink", lambda m, t: (t.a * 2).resize_(2, 5)),
    # The grown tail is uninitialized in eager: only the kept elements are compared.
    ("resize_grow_kept_part", lambda m, t: torch.where(
        torch.arange(16).view(4, 4) < 12, (t.a + 1).resize_(4, 4), 0.0)),
    ("resize_same", lambda m, t: (t.a - 1).resize_(3, 4)),
    # -- layout queries (a sym_is_contiguous node in training IR, resolved by the exporter)
    ("is_contiguous_view", lambda m, t: t.a + torch.ops.aten.sym_is_contiguous(t.a.t())),
    ("is_contiguous_slice", lambda m, t: t.a * torch.ops.aten.sym_is_contiguous(t.a[:2])),
]


# --------------------------------------------------------------------------------------------
# 3-d convolution and pooling, pooling indices, grid sampling, unfold / fold
# --------------------------------------------------------------------------------------------

def _spatial3d_inputs(g):
    return {
        "vol": _randn(g, 2, 3, 5, 6, 7),
        "vol1": _randn(g, 1, 2, 1, 1, 1),
        "img": _randn(g, 2, 3, 6, 7),
        # Grid points mostly inside [-1, 1], some outside (the padding modes).
        "grid": _rand(g, 2, 4, 5, 2, low=-1.3, high=1.3),
        "grid3": _rand(g, 2, 3, 4, 2, 3, low=-1.3, high=1.3),
        # Multiples of 1/8: with align_corners every sample coordinate of `img` is exact in f16
        # and bf16, so eager's reduced-precision coordinate arithmetic is exact too.
        "grid_q": torch.round(_rand(g, 2, 4, 5, 2, low=-1.3, high=1.3) * 8) / 8,
        "cols": _randn(g, 2, 3 * 2 * 3, 9),
        # fractional max pooling's window samples (F.fractional_max_pool* draws them)
        "fsamp2": _rand(g, 2, 3, 2),
        "fsamp3": _rand(g, 2, 3, 3),
    }


def _spatial3d_submodules():
    return {
        "c3": nn.Conv3d(3, 4, 3, padding=1),
        "c3_mixed": nn.Conv3d(3, 6, (2, 3, 3), stride=(2, 1, 2), padding=(1, 1, 0),
                              dilation=(2, 1, 1), groups=3),
        "c3_k1": nn.Conv3d(3, 2, 1, bias=False),
        "c3_same": nn.Conv3d(3, 4, (3, 1, 3), padding="same"),
        "c3_depth1": nn.Conv3d(3, 5, (1, 3, 3), stride=(1, 2, 2)),
        "ct3": nn.ConvTranspose3d(3, 4, 3, stride=2, padding=1, output_padding=1),
        "ct3_mixed": nn.ConvTranspose3d(3, 6, (2, 3, 2), stride=(1, 2, 3), padding=(0, 1, 1),
                                        dilation=(2, 1, 1), groups=3, bias=False,
                                        output_padding=(1, 1, 2)),
        "ct3_crop": nn.ConvTranspose3d(3, 2, (3, 1, 1), padding=(2, 0, 0)),
    }


def _grid_sample_cases():
    cases = []
    for mode in ("bilinear", "nearest", "bicubic"):
        for padding in ("zeros", "border", "reflection"):
            for align in (False, True):
                name = f"grid_sample_{mode}_{padding}{'_align' if align else ''}"
                cases.append((name, lambda m, t, mode=mode, padding=padding, align=align:
                              F.grid_sample(t.img, t.grid, mode=mode, padding_mode=padding,
                                            align_corners=align)))
    # 5-D input (grid_sampler_3d): trilinear and nearest
    for mode in ("bilinear", "nearest"):
        for padding in ("zeros", "border", "reflection"):
            for align in (False, True):
                name = f"grid_sample_3d_{mode}_{padding}{'_align' if align else ''}"
                cases.append((name, lambda m, t, mode=mode, padding=padding, align=align:
                              F.grid_sample(t.vol, t.grid3, mode=mode, padding_mode=padding,
                                            align_corners=align)))
    return cases


SPATIAL3D_CASES: list[tuple[str, CaseFn]] = [
    # fractional max pooling with given samples: values and flat indices, exactly eager's
    ("fractional_max_pool2d", lambda m, t: torch.ops.aten.fractional_max_pool2d(
        t.img, [2, 3], [4, 3], t.fsamp2)[0]),
    ("fractional_max_pool2d_indices", lambda m, t: torch.ops.aten.fractional_max_pool2d(
        t.img, [3, 2], [3, 5], t.fsamp2)[1]),
    ("fractional_max_pool2d_unbatched", lambda m, t: torch.ops.aten.fractional_max_pool2d(
        t.img[0], [2, 2], [3, 4], t.fsamp2[:1])[0]),
    ("fractional_max_pool3d", lambda m, t: torch.ops.aten.fractional_max_pool3d(
        t.vol, [2, 2, 3], [3, 2, 4], t.fsamp3)[0]),
    ("fractional_max_pool3d_indices", lambda m, t: torch.ops.aten.fractional_max_pool3d(
        t.vol, [2, 3, 2], [2, 3, 5], t.fsamp3)[1]),
    # -- 3-d convolution (conv3d.default / .padding; convolution.default in core ATen)
    ("conv3d", lambda m, t: m.c3(t.vol)),
    ("conv3d_stride_dilation_groups", lambda m, t: m.c3_mixed(t.vol)),
    ("conv3d_k1_nobias", lambda m, t: m.c3_k1(t.vol)),
    ("conv3d_same", lambda m, t: m.c3_same(t.vol)),
    ("conv3d_depth1_kernel", lambda m, t: m.c3_depth1(t.vol)),
    ("conv3d_unbatched", lambda m, t: m.c3(t.vol[1])),
    ("conv3d_noncontig", lambda m, t: m.c3_k1(t.vol.transpose(2, 4))),
    ("conv3d_size1", lambda m, t: F.conv3d(t.vol1, m.c3.weight[:, :2], padding=1)),
    ("conv3d_relu", lambda m, t: torch.relu(m.c3(t.vol)) * 2.0),
    ("conv3d_f16", lambda m, t: F.conv3d(t.vol.half(), m.c3.weight.half(), m.c3.bias.half(),
                                         padding=1)),
    ("conv3d_bf16", lambda m, t: F.conv3d(t.vol.bfloat16(), m.c3_mixed.weight.bfloat16(),
                                          stride=(2, 1, 2), padding=(1, 1, 0),
                                          dilation=(2, 1, 1), groups=3)),
    # -- transposed 3-d convolution (conv_transpose3d.input; convolution.default transposed)
    ("conv_transpose3d", lambda m, t: m.ct3(t.vol)),
    ("conv_transpose3d_groups_dilation_outpad", lambda m, t: m.ct3_mixed(t.vol)),
    ("conv_transpose3d_padding_crops_depth", lambda m, t: m.ct3_crop(t.vol)),
    ("conv_transpose3d_unbatched", lambda m, t: m.ct3(t.vol[0])),
    ("conv_transpose3d_f16", lambda m, t: F.conv_transpose3d(
        t.vol.half(), m.ct3.weight.half(), m.ct3.bias.half(), stride=2, padding=1,
        output_padding=1)),
    # -- 3-d max pooling (max_pool3d / max_pool3d_with_indices) and pooling indices
    ("max_pool3d_k2", lambda m, t: F.max_pool3d(t.vol, 2)),
    ("max_pool3d_k3_s2_p1", lambda m, t: F.max_pool3d(t.vol, 3, stride=2, padding=1)),
    ("max_pool3d_ceil", lambda m, t: F.max_pool3d(t.vol, 2, stride=2, ceil_mode=True)),
    ("max_pool3d_dilation_rect", lambda m, t: F.max_pool3d(t.vol, (2, 3, 2), stride=(1, 2, 2),
                                                           padding=(1, 1, 0),
                                                           dilation=(2, 1, 2))),
    ("max_pool3d_unbatched", lambda m, t: F.max_pool3d(t.vol[0], (1, 2, 2))),
    ("max_pool3d_size1", lambda m, t: F.max_pool3d(t.vol1, 1)),
    ("max_pool3d_f16", lambda m, t: F.max_pool3d(t.vol.half(), 2, stride=(1, 2, 2))),
    ("max_pool3d_bf16", lambda m, t: F.max_pool3d(t.vol.bfloat16(), 3, padding=1, stride=2)),
    ("max_pool3d_indices", lambda m, t: F.max_pool3d(t.vol, 3, stride=2, padding=1,
                                                     return_indices=True)[1]),
    ("max_pool3d_indices_ceil_dilation",
     lambda m, t: F.max_pool3d(t.vol, 2, stride=2, dilation=(1, 2, 1), ceil_mode=True,
                               return_indices=True)[1]),
    ("max_pool3d_values_and_indices",
     lambda m, t: (lambda v, i: v * 2.0 + i.float())(*F.max_pool3d(t.vol, 2, return_indices=True))),
    ("max_pool2d_indices", lambda m, t: F.max_pool2d(t.img, 3, stride=2, padding=1,
                                                     return_indices=True)[1]),
    ("max_pool2d_indices_ties",
     lambda m, t: F.max_pool2d(torch.round(t.img), 2, return_indices=True)[1]),
    # -- adaptive max pooling: windows of unequal length (6 -> 4, 7 -> 3), ties, indices
    ("adaptive_max_pool2d_uneven", lambda m, t: F.adaptive_max_pool2d(t.img, (4, 3))),
    ("adaptive_max_pool2d_indices",
     lambda m, t: F.adaptive_max_pool2d(t.img, (4, 3), return_indices=True)[1]),
    ("adaptive_max_pool2d_indices_ties",
     lambda m, t: F.adaptive_max_pool2d(torch.round(t.img), (5, 2), return_indices=True)[1]),
    ("adaptive_max_pool3d_values_and_indices",
     lambda m, t: (lambda v, i: v * 2.0 + i.float())(
         *F.adaptive_max_pool3d(t.vol, (3, 4, 5), return_indices=True))),
    ("adaptive_max_pool1d_indices",
     lambda m, t: (lambda v, i: v * 2.0 + i.float())(
         *F.adaptive_max_pool1d(t.img[0], 3, return_indices=True))),
    # -- 3-d average pooling (avg_pool3d)
    ("avg_pool3d_k2", lambda m, t: F.avg_pool3d(t.vol, 2)),
    ("avg_pool3d_pad_exclude", lambda m, t: F.avg_pool3d(t.vol, 3, stride=2, padding=1,
                                                         count_include_pad=False)),
    ("avg_pool3d_pad_include_ceil", lambda m, t: F.avg_pool3d(t.vol, (2, 3, 3), stride=2,
                                                              padding=1, ceil_mode=True)),
    ("avg_pool3d_divisor", lambda m, t: F.avg_pool3d(t.vol, 2, stride=1, divisor_override=3)),
    ("avg_pool3d_unbatched", lambda m, t: F.avg_pool3d(t.vol[1], (1, 2, 3))),
    # (PyTorch's CPU avg_pool3d has no f16/bf16 kernel.)
    ("avg_pool3d_f64", lambda m, t: F.avg_pool3d(t.vol.double(), 3, stride=2)),
    # -- adaptive average pooling (adaptive_avg_pool3d; _adaptive_avg_pool3d in core ATen)
    ("adaptive_avg_pool3d", lambda m, t: F.adaptive_avg_pool3d(t.vol, (2, 4, 3))),
    ("adaptive_avg_pool3d_global", lambda m, t: F.adaptive_avg_pool3d(t.vol, 1)),
    ("adaptive_avg_pool3d_upscale", lambda m, t: F.adaptive_avg_pool3d(t.vol, (7, 6, 9))),
    ("adaptive_avg_pool3d_unbatched", lambda m, t: F.adaptive_avg_pool3d(t.vol[0], (3, 3, 3))),
    ("adaptive_avg_pool3d_f16", lambda m, t: F.adaptive_avg_pool3d(t.vol.half(), (2, 2, 2))),
    ("adaptive_avg_pool3d_bf16", lambda m, t: F.adaptive_avg_pool3d(t.vol.bfloat16(), (1, 3, 2))),
    # -- grid sampling (grid_sampler in training IR, grid_sampler_2d in core ATen)
    *_grid_sample_cases(),
    # f16/bf16: thunderc computes coordinates and weights in float32, eager's CPU kernel in the
    # reduced type, rounding every step (bicubic weights and arbitrary grids then differ by more
    # than the reduced types' tolerances, against eager, not against float64). These grids keep
    # every coordinate exact, so both compute the same samples and differ only in the blend's
    # rounding.
    ("grid_sample_f16_bilinear",
     lambda m, t: F.grid_sample(t.img.half(), t.grid_q.half(), align_corners=True)),
    ("grid_sample_bf16_bilinear_border",
     lambda m, t: F.grid_sample(t.img.bfloat16(), t.grid_q.bfloat16(), padding_mode="border",
                                align_corners=True)),
    ("grid_sample_bf16_nearest",
     lambda m, t: F.grid_sample(t.img.bfloat16(), t.grid_q.bfloat16(), mode="nearest",
                                padding_mode="reflection", align_corners=True)),
    ("grid_sample_f64_bicubic",
     lambda m, t: F.grid_sample(t.img.double(), t.grid.double(), mode="bicubic",
                                padding_mode="reflection", align_corners=False)),
    ("grid_sample_affine_grid",
     lambda m, t: F.grid_sample(t.img, F.affine_grid(
         0.3 * t.grid[:, :2, :3, 0] + torch.ones(2, 3, dtype=t.img.dtype).tril(), (2, 3, 5, 4),
         align_corners=False), align_corners=False)),
    ("grid_sample_noncontig",
     lambda m, t: F.grid_sample(t.img.transpose(2, 3), t.grid.transpose(1, 2),
                                padding_mode="border", align_corners=False)),
    # -- unfold / fold (im2col / col2im; unfold becomes index ops in core ATen)
    ("unfold", lambda m, t: F.unfold(t.img, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1))),
    ("unfold_k1", lambda m, t: F.unfold(t.img, 1)),
    ("fold", lambda m, t: F.fold(t.cols, (5, 7), (2, 3), dilation=(2, 1), padding=(1, 0),
                                 stride=(2, 2))),
    ("fold_overlap_unbatched", lambda m, t: F.fold(t.cols[0][:12], (4, 5), (2, 3))),
    ("fold_f16", lambda m, t: F.fold(t.cols.half(), (5, 7), (2, 3), dilation=(2, 1),
                                     padding=(1, 0), stride=(2, 2))),
    ("fold_unfold_roundtrip", lambda m, t: F.fold(F.unfold(t.img, 3, padding=1), (6, 7), 3,
                                                  padding=1)),
]


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------

# ---- control flow: higher-order ops (torch.cond, map, scan, autocast regions) ----
# cond's branches are both compiled; cases take either branch (the predicate is computed by the
# graph from the inputs), so both kinds of guarded code run. map and scan are unrolled by the
# importer (a static trip count). tests/e2e/test_control_flow.py runs one bundle with
# predicates that change between runs, a symbolic-size predicate and while_loop's refusal.


def _control_flow_inputs(g):
    return {"x": _randn(g, 4, 8), "w": _randn(g, 8, 3), "xs": _randn(g, 3, 4), "y": _randn(g, 4)}


def _cond_matmul(m, t, threshold):
    return torch.cond(t.x.sum() > threshold, lambda a, b: (a.sin() @ b).relu(),
                      lambda a, b: a.cos() @ b - 1, (t.x, t.w))


def _cond_nested(m, t):
    def outer_true(a):
        return torch.cond(a.amax() > 100, lambda b: b * 3, lambda b: b.exp(), (a,))

    return torch.cond(t.y.sum() < 100, outer_true, lambda a: a - 5, (t.y,))


def _cond_two_outputs(m, t):
    low, high = torch.cond(t.y.mean() > -100, lambda a: (a.sum().unsqueeze(0), a.abs()),
                           lambda a: (a.amax().unsqueeze(0), a.neg()), (t.y,))
    return low + high


def _map_case(m, t):
    from torch._higher_order_ops.map import map as hop_map
    return hop_map(lambda a, b: a * 2 + b.sin(), t.xs, t.y)


def _scan_case(m, t, which):
    from torch._higher_order_ops.scan import scan
    return scan(lambda c, a: (c + a, (c * a).tanh()), t.y, t.xs)[which]


def _autocast_matmul(m, t):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return torch.relu(t.x @ t.w)


def _autocast_linear(m, t):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        h = F.linear(t.x, t.w.t())
    return h.float().sigmoid()


CONTROL_FLOW_CASES: list[tuple[str, CaseFn]] = [
    ("cond_matmul_true", lambda m, t: _cond_matmul(m, t, -1000.0)),
    ("cond_matmul_false", lambda m, t: _cond_matmul(m, t, 1000.0)),
    ("cond_elementwise", lambda m, t: torch.cond(t.y.amax() > 0, lambda a: a.exp() * 2,
                                                 lambda a: a.abs() + 1, (t.y,))),
    ("cond_nested", _cond_nested),
    ("cond_two_outputs", _cond_two_outputs),
    ("map", _map_case),
    ("scan_carry", lambda m, t: _scan_case(m, t, 0)),
    ("scan_ys", lambda m, t: _scan_case(m, t, 1)),
]

# --------------------------------------------------------------------------------------------
# data_dependent: nonzero (an output size known only at run time) and tensor.item() (a value
# read from a tensor, as a number and as a size)
# --------------------------------------------------------------------------------------------


def _data_dependent_inputs(g):
    xi = _randint(g, -2, 3, 3, 4)
    nanx = _randn(g, 2, 6)
    nanx[0, 1] = nanx[1, 4] = float("nan")
    nanx[1, 0] = 0.0
    return {
        "x": _randn(g, 4, 5),
        "mask": _randbool(g, 2, 3, 4),
        "xi": xi,
        "v": _randn(g, 9),
        "nanx": nanx,
        "h": _randn(g, 3, 3).half(),
        "s": torch.tensor(2.5),
        "n": torch.tensor(3),
        "n1": torch.tensor([5], dtype=torch.int32),
        # many blocks' worth of elements for the CUDA library's three-pass nonzero
        "big": _randn(g, 300, 70),
        "x3": _randn(g, 2, 3, 4),
        "m23": _randbool(g, 2, 3),
        "m34": _randbool(g, 3, 4),
        "mrow": _randbool(g, 5),
    }


def _sized(value, high):
    """A size read from a tensor, bounded for the exporter (torch._check)."""
    torch._check(value >= 0)
    torch._check(value <= high)
    return value


DATA_DEPENDENT_CASES: list[tuple[str, CaseFn]] = [
    ("nonzero_2d", lambda m, t: torch.nonzero(t.x > 0.3)),
    ("nonzero_bool_3d", lambda m, t: torch.nonzero(t.mask)),
    ("nonzero_int", lambda m, t: torch.nonzero(t.xi)),
    ("nonzero_1d", lambda m, t: torch.nonzero(t.v < 0)),
    # as_tuple: nonzero_numpy at the training IR (one column per dim)
    ("nonzero_as_tuple_col1", lambda m, t: torch.nonzero(t.x > 0.3, as_tuple=True)[1]),
    ("where_one_argument", lambda m, t: torch.where(t.mask)[0]),
    ("nonzero_nan_counts", lambda m, t: torch.nonzero(t.nanx)),
    ("nonzero_half", lambda m, t: torch.nonzero(t.h > 0)),
    ("nonzero_none", lambda m, t: torch.nonzero(t.x > 100.0)),
    ("nonzero_large", lambda m, t: torch.nonzero(t.big > 0.5)),
    ("nonzero_all", lambda m, t: torch.nonzero(t.x < 100.0)),
    ("nonzero_downstream", lambda m, t: (torch.nonzero(t.x > 0).float() * 2 + 1).sum(0)),
    ("nonzero_count", lambda m, t: torch.nonzero(t.x > 0).float().sum(1) * 0.5),
    ("mask_index", lambda m, t: t.x[t.x > 0] * 2),
    ("mask_index_leading", lambda m, t: t.x3[t.m23] + 1),
    ("mask_index_after_slice", lambda m, t: t.x3[:, t.m34]),
    ("masked_select_broadcast", lambda m, t: torch.masked_select(t.x, t.mrow)),
    ("item_float_scale", lambda m, t: t.x * t.s.item() + t.x.amax().item()),
    ("item_int_scale", lambda m, t: t.x * t.n.item()),
    ("item_slice", lambda m, t: t.x[: _sized(t.n.item(), 4)] * 2),
    ("item_arange", lambda m, t: torch.arange(_sized(t.n1.item(), 8)).float() * 0.5),
    # unique: sorted distinct values (a data-dependent count), the inverse and the counts
    ("unique_values", lambda m, t: torch.unique(t.xi) * 2),
    ("unique_inverse", lambda m, t: torch.unique(t.xi, return_inverse=True)[1] + 1),
    ("unique_counts", lambda m, t: torch.unique(t.xi, return_counts=True)[1] * 3),
    ("unique_counts_nan", lambda m, t: torch.unique(t.nanx, return_counts=True)[1] + 1),
    ("unique_consecutive_values", lambda m, t: torch.unique_consecutive(t.xi) * 2),
    ("unique_consecutive_inverse",
     lambda m, t: torch.unique_consecutive(t.xi, return_inverse=True)[1] + 1),
    ("unique_consecutive_counts",
     lambda m, t: torch.unique_consecutive(t.xi, return_counts=True)[1] * 3),
]

# A suite of its own: torch.export's autocast pass fails on a graph that also holds a cond.
AUTOCAST_CASES: list[tuple[str, CaseFn]] = [
    ("autocast_matmul", _autocast_matmul),
    ("autocast_linear", _autocast_linear),
]

# --------------------------------------------------------------------------------------------
# degenerate: 0-d tensors and size-0 dims for every op family
# --------------------------------------------------------------------------------------------
# PyTorch's rule: a 0-d tensor takes dim 0 and -1 wherever a dim is taken (a reduction, a
# scan, a sort or an index over it keeps it 0-d); a size-0 dim gives an empty result, or the
# reduction's identity (sum 0, prod 1, any False) where it is reduced away. Each case is one
# op family over such an operand; the arithmetic around the op keeps graph outputs from
# aliasing graph inputs. Ops thunderc compiles at one IR level only (all.dim, index_add,
# cumprod, logsumexp: core ATen decomposes them) and its 0-d refusal (unfold of a 0-d tensor,
# exit 5 naming the node) are left out.


def _degenerate_inputs(g):
    return {
        "s": _randn(g),  # 0-d float
        "sh": _randn(g).half(),  # 0-d half
        "si": torch.tensor(2, dtype=torch.int64),  # 0-d int
        "sb": torch.tensor(True),  # 0-d bool
        "i0": torch.tensor(0, dtype=torch.int64),  # 0-d index 0
        "i1": torch.tensor([0], dtype=torch.int64),  # [1] index 0
        "a": _randn(g, 3, 4),
        "z": _randn(g, 0, 4),  # size-0 leading dim
        "ze": _randn(g, 3, 0),  # size-0 trailing dim
        "zk": _randn(g, 0, 5),  # the K=0 operand of a product with ze
        "zi": torch.zeros(0, dtype=torch.int64),  # an empty index
        "table": _randn(g, 5, 4),
        "img0": _randn(g, 0, 3, 6, 6),  # an empty batch of images
        "q0": _randn(g, 1, 2, 0, 8),  # attention with no queries
        "kv": _randn(g, 1, 2, 5, 8),
    }


def _degenerate_submodules():
    return {"conv": nn.Conv2d(3, 4, 3, padding=1), "bn": nn.BatchNorm2d(3).eval(),
            "fc": nn.Linear(4, 6), "ln": nn.LayerNorm(4)}


DEGENERATE_CASES: list[tuple[str, CaseFn]] = [
    # -- reductions over a 0-d tensor (dim 0 / -1, keepdim or not)
    ("zero_d_sum_dim0", lambda m, t: torch.sum(t.s * 2, 0)),
    ("zero_d_sum_neg1_keepdim", lambda m, t: torch.sum(t.s + 1, -1, keepdim=True)),
    ("zero_d_sum_dims", lambda m, t: (t.s * 3).sum((-1,))),
    ("zero_d_mean_keepdim", lambda m, t: torch.mean(t.s * 2, 0, keepdim=True)),
    ("zero_d_prod", lambda m, t: torch.prod(t.s + 1, 0)),
    ("zero_d_amax_keepdim", lambda m, t: torch.amax(t.s * 2, 0, keepdim=True)),
    ("zero_d_amin_keepdim", lambda m, t: torch.amin(t.s * 2, 0, keepdim=True)),
    ("zero_d_amax", lambda m, t: torch.amax(t.s - 1, -1)),
    ("zero_d_any_keepdim", lambda m, t: torch.any(t.s > 0, 0, keepdim=True)),
    ("zero_d_argmax_keepdim", lambda m, t: torch.argmax(t.s * 2, 0, keepdim=True)),
    ("zero_d_argmin_keepdim", lambda m, t: torch.argmin(t.s * 2, 0, keepdim=True)),
    ("zero_d_argmax", lambda m, t: torch.argmax(t.s * 2, -1)),
    ("zero_d_max_dim_values", lambda m, t: torch.max(t.s * 2, 0)[0]),
    ("zero_d_min_dim_values", lambda m, t: torch.min(t.s * 2, -1)[0]),
    ("zero_d_var", lambda m, t: torch.var(t.s * 2, 0, correction=0)),
    ("zero_d_sum_int", lambda m, t: torch.sum(t.si * 3, 0)),
    ("zero_d_amax_half", lambda m, t: torch.amax(t.sh * 2, 0, keepdim=True)),
    ("zero_d_norm", lambda m, t: torch.linalg.vector_norm(t.s * 2, 2, 0)),
    # -- softmax and scans over a 0-d tensor
    ("zero_d_softmax", lambda m, t: torch.softmax(t.s * 2, 0)),
    ("zero_d_log_softmax", lambda m, t: torch.log_softmax(t.s * 2, -1)),
    ("zero_d_cumsum", lambda m, t: torch.cumsum(t.s * 2, 0)),
    # -- views and shape ops on a 0-d tensor
    ("zero_d_squeeze_dim0", lambda m, t: torch.squeeze(t.s * 2, 0)),
    ("zero_d_squeeze_neg1", lambda m, t: torch.squeeze(t.s * 2, -1)),
    ("zero_d_squeeze_input", lambda m, t: torch.squeeze(t.s, 0) * 2),
    ("zero_d_unsqueeze", lambda m, t: torch.unsqueeze(t.s * 2, 0)),
    ("zero_d_transpose", lambda m, t: torch.transpose(t.s * 2, 0, -1)),
    ("zero_d_permute", lambda m, t: (t.s * 2).permute(())),
    ("zero_d_flip", lambda m, t: torch.flip(t.s * 2, [0])),
    ("zero_d_roll", lambda m, t: torch.roll(t.s * 2, 1)),
    ("zero_d_view", lambda m, t: (t.s * 2).view(1, 1, 1)),
    ("zero_d_flatten", lambda m, t: torch.flatten(t.s * 2, 0, -1)),
    ("zero_d_stack", lambda m, t: torch.stack([t.s, t.s * 2])),
    ("zero_d_repeat", lambda m, t: (t.s * 2).repeat(2, 3)),
    ("zero_d_cat_unsqueezed", lambda m, t: torch.cat([t.s.unsqueeze(0), t.a[0]], 0)),
    # -- indexing a 0-d tensor or with a 0-d index
    ("zero_d_index_select", lambda m, t: torch.index_select(t.s * 2, 0, t.i1)),
    ("zero_d_index_select_0d_index", lambda m, t: torch.index_select(t.s * 2, -1, t.i0)),
    ("zero_d_index_copy", lambda m, t: (t.s * 2).index_copy(0, t.i1, t.s + 3)),
    ("zero_d_index_copy_0d_index", lambda m, t: (t.s * 2).index_copy(-1, t.i0, t.s - 1)),
    ("index_select_0d_index", lambda m, t: torch.index_select(t.a * 2, 1, t.i0)),
    ("zero_d_gather", lambda m, t: torch.gather(t.s * 2, 0, t.i0)),
    ("zero_d_scatter", lambda m, t: torch.scatter(t.s * 2, 0, t.i0, t.s + 5)),
    ("zero_d_scatter_add", lambda m, t: (t.s * 2).scatter_add(0, t.i0, t.s)),
    ("zero_d_scatter_reduce", lambda m, t: (t.s * 2).scatter_reduce(0, t.i0, t.s + 1, "amax")),
    ("zero_d_embedding", lambda m, t: F.embedding(t.i0 + 1, t.table) * 2),
    ("zero_d_where", lambda m, t: torch.where(t.sb, t.s, -t.s)),
    ("zero_d_masked_fill", lambda m, t: (t.s * 2).masked_fill(t.s > 0, 1.5)),
    # -- sorting a 0-d tensor
    ("zero_d_sort", lambda m, t: torch.sort(t.s * 2, 0)[0]),
    ("zero_d_sort_indices", lambda m, t: torch.sort(t.s * 2, -1, descending=True)[1]),
    ("zero_d_argsort", lambda m, t: torch.argsort(t.s * 2, 0)),
    ("zero_d_topk", lambda m, t: torch.topk(t.s * 2, 1, 0)[0]),
    ("zero_d_topk_indices", lambda m, t: torch.topk(t.s * 2, 1, -1)[1]),
    ("zero_d_kthvalue", lambda m, t: torch.kthvalue(t.s * 2, 1, 0)[0]),
    # -- reductions and scans with a size-0 dim
    ("size0_sum_reduced", lambda m, t: t.z.sum(0) + 1),
    ("size0_sum_kept", lambda m, t: t.z.sum(1)),
    ("size0_sum_trailing", lambda m, t: t.ze.sum(1, keepdim=True) + 1),
    ("size0_prod_reduced", lambda m, t: t.ze.prod(1)),
    ("size0_mean_kept", lambda m, t: t.z.mean(1)),
    ("size0_amax_kept", lambda m, t: t.z.amax(1)),
    ("size0_amin_kept_keepdim", lambda m, t: t.z.amin(-1, keepdim=True)),
    ("size0_argmax_kept", lambda m, t: t.z.argmax(1)),
    ("size0_any_reduced", lambda m, t: (t.ze > 0).any(1)),
    ("size0_var_kept", lambda m, t: t.z.var(1)),
    ("size0_max_dim_kept", lambda m, t: t.z.max(1)[0]),
    ("size0_softmax", lambda m, t: torch.softmax(t.z, 1)),
    ("size0_softmax_over_empty", lambda m, t: torch.softmax(t.ze, 1)),
    ("size0_log_softmax", lambda m, t: torch.log_softmax(t.z, 0)),
    ("size0_cumsum", lambda m, t: torch.cumsum(t.ze, 1)),
    ("size0_cumsum_kept", lambda m, t: torch.cumsum(t.z, 1)),
    # -- products with a size-0 dim (M = 0, N = 0, K = 0)
    ("size0_matmul_rows", lambda m, t: t.z @ t.a.t()),
    ("size0_matmul_cols", lambda m, t: t.a @ t.z.t()),
    ("size0_matmul_inner", lambda m, t: t.ze @ t.zk),
    ("size0_addmm_inner", lambda m, t: torch.addmm(t.a[0, :1] + 1, t.ze, t.zk)),
    ("size0_bmm", lambda m, t: torch.bmm(t.ze.unsqueeze(0), t.zk.unsqueeze(0))),
    ("size0_linear", lambda m, t: m.fc(t.z)),
    # -- nn layers on an empty batch
    ("size0_conv2d", lambda m, t: m.conv(t.img0)),
    ("size0_batch_norm", lambda m, t: m.bn(t.img0)),
    ("size0_layer_norm", lambda m, t: m.ln(t.z)),
    ("size0_max_pool2d", lambda m, t: F.max_pool2d(t.img0, 2)),
    ("size0_avg_pool2d", lambda m, t: F.avg_pool2d(t.img0, 3, stride=2)),
    ("size0_adaptive_avg_pool2d", lambda m, t: F.adaptive_avg_pool2d(t.img0, 2)),
    ("size0_interpolate", lambda m, t: F.interpolate(t.img0, scale_factor=2.0, mode="nearest")),
    ("size0_sdpa_no_queries", lambda m, t: F.scaled_dot_product_attention(t.q0, t.kv, t.kv)),
    ("size0_relu", lambda m, t: F.relu(t.z)),
    # -- shape ops with a size-0 dim
    ("size0_cat", lambda m, t: torch.cat([t.z, t.a, t.z], 0)),
    ("size0_cat_trailing", lambda m, t: torch.cat([t.ze, t.a], 1)),
    ("size0_stack", lambda m, t: torch.stack([t.z, t.z + 1], 1)),
    ("size0_reshape", lambda m, t: t.z.reshape(2, 0, 2)),
    ("size0_permute", lambda m, t: t.z.permute(1, 0) + 1),
    ("size0_expand", lambda m, t: t.z.unsqueeze(0).expand(3, 0, 4) + 1),
    ("size0_slice", lambda m, t: t.z[:, 1:3] + 1),
    ("size0_select", lambda m, t: t.z.select(1, 2) + 1),
    ("size0_squeeze", lambda m, t: t.z.unsqueeze(1).squeeze(1) + 1),
    ("size0_split", lambda m, t: torch.split(t.z, 3, 1)[1] + 1),
    ("size0_flip", lambda m, t: t.ze.flip(0) + 1),
    ("size0_roll", lambda m, t: torch.roll(t.z, 1, 1)),
    ("size0_pad", lambda m, t: F.pad(t.z, (1, 2))),
    ("size0_pad_kept", lambda m, t: F.pad(t.ze, (1, 1), value=2.0)),
    ("size0_tril", lambda m, t: torch.tril(t.ze + 1)),
    ("size0_diagonal", lambda m, t: torch.diagonal(t.z) + 1),
    ("size0_repeat", lambda m, t: t.z.repeat(3, 1)),
    # -- indexing with a size-0 dim or an empty index
    ("size0_index_select_empty_index", lambda m, t: torch.index_select(t.a, 0, t.zi)),
    ("size0_index_select_of_empty", lambda m, t: torch.index_select(t.z, 1, t.i1)),
    ("size0_gather", lambda m, t: torch.gather(t.a, 1, t.zi.reshape(3, 0))),
    ("size0_embedding", lambda m, t: F.embedding(t.zi, t.table)),
    ("size0_scatter", lambda m, t: torch.scatter(t.a, 0, t.zi.reshape(0, 4), t.z)),
    ("size0_index_tensor", lambda m, t: t.a[t.zi] + 1),
    ("size0_where", lambda m, t: torch.where(t.z > 0, t.z, 0.0)),
    ("size0_sort", lambda m, t: torch.sort(t.z, 1)[0]),
    ("size0_sort_over_empty", lambda m, t: torch.sort(t.ze, 1)[1]),
    ("size0_topk", lambda m, t: torch.topk(t.z, 2, 1)[0]),
    # -- creation
    ("size0_arange", lambda m, t: torch.arange(0).float() + t.z.sum()),
    ("size0_full", lambda m, t: torch.full((0, 3), 2.0) + t.z[:, :3]),
    ("zero_d_full", lambda m, t: torch.full((), 2.0) * t.s),
]

# --------------------------------------------------------------------------------------------
# dense linear algebra (LAPACK on the CPU; the CUDA target refuses these ops)
# --------------------------------------------------------------------------------------------


def _linalg_inputs(g):
    a = _randn(g, 2, 4, 4)
    return {
        "a": a + 4 * torch.eye(4),  # well conditioned, batched
        "spd": a @ a.transpose(-1, -2) + 4 * torch.eye(4),  # symmetric positive definite
        "tall": _randn(g, 5, 3),
        "wide": _randn(g, 3, 5),
        "b": _randn(g, 2, 4, 3),
        "bb": _randn(g, 4, 3),  # broadcasts over the batch of a
        "v": _randn(g, 2, 4),  # a batch of vectors
        "r": _randn(g, 2, 3, 4),  # right-hand sides of X A = B
        "neg": torch.diag(torch.tensor([-2.0, 1.5, 3.0])),  # det < 0: logdet is NaN
        "rank2": _randn(g, 4, 2) @ _randn(g, 2, 5),  # rank 2 of 4
        "sym": (lambda r: r + r.transpose(-1, -2))(_randn(g, 2, 5, 5)),  # symmetric indefinite
        "b5": _randn(g, 2, 5, 3),
        "tau2": _randn(g, 2),  # two reflectors' factors
        "c5": _randn(g, 5, 2),  # multiplied by the 5 x 5 Q of tall
        # exp's Pade degree follows the 1-norm: 3, 5, 7, 9 and 13 (with squarings) in one batch
        "expm": _randn(g, 4, 4) * torch.tensor([1e-3, 0.03, 0.15, 0.4, 6.0]).view(5, 1, 1),
    }


def _sym_abs(x):
    """Eigen/singular vectors up to their sign (LAPACKs may pick either)."""
    return x.abs()


LINALG_CASES: list[tuple[str, CaseFn]] = [
    ("cholesky", lambda m, t: torch.linalg.cholesky(t.spd)),
    ("cholesky_upper", lambda m, t: torch.linalg.cholesky(t.spd, upper=True)),
    ("cholesky_ex_info", lambda m, t: torch.linalg.cholesky_ex(t.spd)[1]),
    ("cholesky_solve", lambda m, t: torch.cholesky_solve(t.b, torch.linalg.cholesky(t.spd))),
    ("cholesky_inverse_upper",
     lambda m, t: torch.cholesky_inverse(torch.linalg.cholesky(t.spd, upper=True), upper=True)),
    ("lu_factor", lambda m, t: torch.linalg.lu_factor(t.a)[0]),
    ("lu_factor_pivots", lambda m, t: torch.linalg.lu_factor(t.a)[1]),
    ("lu_tall_plu", lambda m, t: (lambda p, l, u: torch.cat([p.flatten(), l.flatten(),
                                                             u.flatten()]))(*torch.linalg.lu(t.tall))),
    ("lu_wide_u", lambda m, t: torch.linalg.lu(t.wide)[2]),
    ("lu_solve", lambda m, t: torch.linalg.lu_solve(*torch.linalg.lu_factor(t.a), t.b)),
    ("lu_solve_adjoint", lambda m, t: torch.linalg.lu_solve(*torch.linalg.lu_factor(t.a), t.b,
                                                            adjoint=True)),
    ("lu_solve_right", lambda m, t: torch.linalg.lu_solve(*torch.linalg.lu_factor(t.a), t.r,
                                                          left=False)),
    ("solve", lambda m, t: torch.linalg.solve(t.a, t.b)),
    ("solve_broadcast", lambda m, t: torch.linalg.solve(t.a, t.bb)),
    ("solve_vector", lambda m, t: torch.linalg.solve(t.a, t.v)),
    ("solve_right", lambda m, t: torch.linalg.solve(t.a, t.r, left=False)),
    ("inv", lambda m, t: torch.linalg.inv(t.a)),
    ("det", lambda m, t: torch.linalg.det(t.a)),
    ("slogdet", lambda m, t: torch.stack(torch.linalg.slogdet(t.a))),
    ("logdet_negative_is_nan", lambda m, t: torch.isnan(torch.logdet(t.neg))),
    ("solve_triangular_upper", lambda m, t: torch.linalg.solve_triangular(
        t.a.triu(), t.b, upper=True)),
    ("solve_triangular_right_unit", lambda m, t: torch.linalg.solve_triangular(
        t.a.tril(), t.r, upper=False, left=False, unitriangular=True)),
    ("triangular_solve_transpose", lambda m, t: torch.triangular_solve(
        t.b, t.a.triu(), upper=True, transpose=True)[0]),
    ("qr_r", lambda m, t: torch.linalg.qr(t.tall)[1]),
    ("qr_complete_reconstruct", lambda m, t: (lambda q, r: q @ r)(*torch.linalg.qr(t.tall,
                                                                                 mode="complete"))),
    ("qr_wide_q", lambda m, t: torch.linalg.qr(t.wide)[0]),
    ("eigvalsh", lambda m, t: torch.linalg.eigvalsh(t.spd)),
    ("eigh_vectors", lambda m, t: _sym_abs(torch.linalg.eigh(t.spd, UPLO="U")[1])),
    ("eigh_reconstruct", lambda m, t: (lambda w, v: v @ torch.diag_embed(w) @ v.mT)(
        *torch.linalg.eigh(t.spd))),
    ("svdvals", lambda m, t: torch.linalg.svdvals(t.tall)),
    ("svd_u_abs", lambda m, t: _sym_abs(torch.linalg.svd(t.wide, full_matrices=False)[0])),
    ("svd_full_reconstruct", lambda m, t: (lambda u, s, vh: u[:, :3] @ torch.diag(s) @ vh[:3])(
        *torch.linalg.svd(t.wide))),
    ("pinv", lambda m, t: torch.linalg.pinv(t.tall)),
    ("pinv_hermitian", lambda m, t: torch.linalg.pinv(t.spd, hermitian=True)),
    ("matrix_rank", lambda m, t: torch.linalg.matrix_rank(t.rank2)),
    ("cond", lambda m, t: torch.linalg.cond(t.a)),
    ("geqrf", lambda m, t: torch.geqrf(t.tall)[0]),
    ("geqrf_tau_wide", lambda m, t: torch.geqrf(t.wide)[1]),
    ("householder_product_of_geqrf", lambda m, t: torch.linalg.householder_product(
        *torch.geqrf(t.tall))),
    ("householder_product_fewer_reflectors", lambda m, t: torch.linalg.householder_product(
        t.tall, t.tau2)),
    ("ormqr_left_transpose", lambda m, t: torch.ormqr(*torch.geqrf(t.tall), t.c5,
                                                      transpose=True)),
    ("ormqr_right", lambda m, t: torch.ormqr(*torch.geqrf(t.tall), t.c5.mT, left=False)),
    ("ldl_factor", lambda m, t: torch.linalg.ldl_factor(t.sym)[0]),
    ("ldl_factor_pivots", lambda m, t: torch.linalg.ldl_factor(t.sym)[1]),
    ("ldl_factor_ex_info", lambda m, t: torch.linalg.ldl_factor_ex(t.sym)[2]),
    ("ldl_solve", lambda m, t: torch.linalg.ldl_solve(*torch.linalg.ldl_factor(t.sym), t.b5)),
    ("ldl_solve_broadcast", lambda m, t: torch.linalg.ldl_solve(
        *torch.linalg.ldl_factor(t.sym[0]), t.b5)),
    ("matrix_exp", lambda m, t: torch.linalg.matrix_exp(t.a)),
    ("matrix_exp_each_degree", lambda m, t: torch.matrix_exp(t.expm)),
    ("matrix_norm_2_nuc", lambda m, t: torch.stack([torch.linalg.matrix_norm(t.tall, 2),
                                                    torch.linalg.matrix_norm(t.tall, "nuc")])),
]


SUITES: dict[str, Suite] = {
    s.name: s
    for s in [
        Suite("elementwise", _elementwise_inputs, ELEMENTWISE_CASES),
        Suite("reductions", _reduction_inputs, REDUCTION_CASES),
        Suite("shape", _shape_inputs, SHAPE_CASES, _shape_submodules),
        Suite("nn", _nn_inputs, NN_CASES, _nn_submodules),
        Suite("resample", _resample_inputs, RESAMPLE_CASES),
        Suite("resample_indexed", _resample_inputs, RESAMPLE_INDEXED_CASES, _resample_submodules),
        Suite("scatter", _scatter_inputs, SCATTER_CASES),
        Suite("roll", _roll_inputs, ROLL_CASES),
        Suite("fft", _fft_inputs, FFT_CASES),
        Suite("conv_norm", _conv_norm_inputs, CONV_NORM_CASES, _conv_norm_submodules),
        Suite("rnn", _rnn_inputs, RNN_CASES, _rnn_submodules),
        Suite("batch_stats", _batch_stats_inputs, BATCH_STATS_CASES, _batch_stats_submodules),
        Suite("control_flow", _control_flow_inputs, CONTROL_FLOW_CASES),
        Suite("autocast", _control_flow_inputs, AUTOCAST_CASES),
        Suite("sort_bag", _sort_bag_inputs, SORT_BAG_CASES, _sort_bag_submodules),
        Suite("spatial3d", _spatial3d_inputs, SPATIAL3D_CASES, _spatial3d_submodules),
        Suite("data_dependent", _data_dependent_inputs, DATA_DEPENDENT_CASES),
        Suite("degenerate", _degenerate_inputs, DEGENERATE_CASES, _degenerate_submodules),
        Suite("linalg", _linalg_inputs, LINALG_CASES, targets=("cpu",)),
    ]
}

for _suite in SUITES.values():
    _names = _suite.case_names()
    assert len(_names) == len(set(_names)), f"duplicate case names in suite {_suite.name}"

# --------------------------------------------------------------------------------------------
# Export
# --------------------------------------------------------------------------------------------


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _to_numpy(t: torch.Tensor) -> np.ndarray:
    """C-contiguous numpy copy; bfloat16 as '<u2' bits. Keeps 0-d tensors 0-d (unlike
    np.ascontiguousarray, which returns at least 1-d: models/export_zoo.to_numpy has that quirk)."""
    t = t.detach().cpu().contiguous()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
        return np.array(t.numpy(), order="C", copy=True).view("<u2")
    return np.array(t.numpy(), order="C", copy=True)


def _save(folder: Path, prefix: str, tensors) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i, t in enumerate(tensors):
        np.save(folder / f"{prefix}_{i}.npy", _to_numpy(t), allow_pickle=False)


def _run(module: nn.Module, args) -> list[torch.Tensor]:
    with torch.no_grad():
        return [o.detach().clone() for o in module(*args)]


def _to_fp64(args):
    return tuple(a.double() if a.is_floating_point() else a for a in args)


def node_cases(ep: torch.export.ExportedProgram, case_names: list[str]) -> dict[str, list[str]]:
    """{exported node name: the cases whose output depends on it}, so that an error naming a
    node (thunderc's import and verifier errors do) can be traced to its case(s)."""
    output = next(n for n in ep.graph.nodes if n.op == "output")
    # Side-effect tokens (with_effects: linalg's error checks) lead the outputs; not a case's.
    kinds = [spec.kind for spec in ep.graph_signature.output_specs]
    outputs = [o for o, kind in zip(output.args[0], kinds)
               if kind != torch.export.graph_signature.OutputKind.TOKEN]
    if len(outputs) != len(case_names):
        raise RuntimeError(f"{len(outputs)} graph outputs for {len(case_names)} cases")
    owners: dict[str, list[str]] = {}
    for case, out in zip(case_names, outputs):
        stack, seen = [out], set()
        while stack:
            node = stack.pop()
            if not isinstance(node, torch.fx.Node) or node in seen:
                continue
            seen.add(node)
            if node.op == "call_function":
                owners.setdefault(node.name, []).append(case)
            stack.extend(node.all_input_nodes)
    return owners


def export_suite(suite: Suite, out_root: Path, only: list[str] | None = None) -> Path:
    """Exports one suite (both IR levels, inputs, expected, fp64 referee) to <out_root>/<name>."""
    t0 = time.time()
    module, args = suite.build(only)
    module64 = copy.deepcopy(module).double()
    folder = Path(out_root) / suite.name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep_train = torch.export.export(module, args)
        ep_core = ep_train.run_decompositions()
    torch.export.save(ep_train, folder / "train.pt2")
    torch.export.save(ep_core, folder / "core.pt2")

    expected = _run(module, args)
    expected64 = _run(module64, _to_fp64(args))
    if len(expected) != len(module.case_names):
        raise RuntimeError(f"{suite.name}: {len(expected)} outputs for {len(module.case_names)} cases")
    for name, out in zip(module.case_names, expected):
        # A NaN output would test little (the fp64 referee's error bound turns NaN too).
        if out.is_floating_point() and torch.isnan(out).any():
            raise RuntimeError(f"{suite.name}: case {name} produces NaN in eager")
    _save(folder / "inputs", "input", args)
    _save(folder / "expected", "output", expected)
    _save(folder / "expected_fp64", "output", expected64)
    manifest = {
        "name": suite.name,
        "torch_version": torch.__version__,
        "levels": {level: f"{level}.pt2" for level in LEVELS},
        "inputs": [{"name": n, "dtype": _dtype_name(a.dtype), "shape": list(a.shape)}
                   for n, a in zip(module.input_names, args)],
        "cases": [{"name": n, "dtype": _dtype_name(o.dtype), "shape": list(o.shape)}
                  for n, o in zip(module.case_names, expected)],
        "node_cases": {"train": node_cases(ep_train, module.case_names),
                       "core": node_cases(ep_core, module.case_names)},
        "export_seconds": round(time.time() - t0, 2),
    }
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return folder


def export_all(out_root: Path, names: list[str] | None = None) -> dict[str, Path]:
    torch.set_num_threads(1)  # reproducible expected outputs
    return {name: export_suite(SUITES[name], out_root) for name in (names or list(SUITES))}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--only", default="", help="comma-separated suite names (default: all)")
    parser.add_argument("--case", default="", help="SUITE:CASE[,SUITE:CASE...]: export only these cases")
    parser.add_argument("--exclude", default="",
                        help="SUITE:CASE[,SUITE:CASE...]: leave these cases out (e.g. one that "
                             "stops a whole suite from importing)")
    opts = parser.parse_args(argv)
    torch.set_num_threads(1)
    selected: dict[str, list[str] | None] = {}
    if opts.case:
        for item in opts.case.split(","):
            suite, case = item.split(":", 1)
            selected.setdefault(suite, []).append(case)
    else:
        for name in (opts.only.split(",") if opts.only else SUITES):
            selected[name] = None
    for item in filter(None, opts.exclude.split(",")):
        suite, case = item.split(":", 1)
        if suite in selected:
            kept = selected[suite] or SUITES[suite].case_names()
            if case not in SUITES[suite].case_names():
                raise KeyError(f"suite {suite}: no case {case}")
            selected[suite] = [c for c in kept if c != case]
    for name, only in selected.items():
        t0 = time.time()
        folder = export_suite(SUITES[name], opts.out, only)
        count = len(json.loads((folder / "manifest.json").read_text())["cases"])
        print(f"{name:12s} {count:3d} cases -> {folder} ({time.time() - t0:.1f}s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
