#!/usr/bin/env python3
"""Generates frontend/aten/schemas.inc: the ATen operator schemas thunderc's importer knows.

torch.export omits every argument left at its schema default, so the importer needs each
op's schema to fill them back in (docs/PT2_FORMAT.md section 2.3). This script reads the
schemas from the INSTALLED torch, so the table matches the torch that wrote the models:

  1. collect every aten overload tagged torch.Tag.core, plus the overloads of the
     decomposition table (frontend/aten/decompositions.def), plus EXTRA_OVERLOADS (training-IR
     and common ops that are not core); an extra entry that does not resolve is an error;
  2. check every default value is of a kind frontend/aten/op_schema.cpp can convert into the
     serialized Argument form, and fail listing the ones that are not;
  3. write one TC_ATEN_SCHEMA("...") line per overload, sorted by (name, overload).

Each line is str(torch.ops.aten.<op>.<overload>._schema) with the leading "aten::" dropped
(every entry is an aten op, and findOpSchema strips the namespace anyway). The text is kept
exactly as torch prints it, so enum defaults stay c10 integers (ScalarType? dtype=4 is
torch.long, MemoryFormat memory_format=0 is torch.contiguous_format); aten/op_schema.cpp maps
them to the serialization enums.

Usage:
  python3 tools/gen_op_schemas.py            # rewrite frontend/aten/schemas.inc
  python3 tools/gen_op_schemas.py --check    # exit 1 if the checked-in file is stale
"""

import argparse
import pathlib
import sys

import torch

REPO_ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_OUTPUT = REPO_ROOT / "frontend" / "aten" / "schemas.inc"
COMMAND = "python3 tools/gen_op_schemas.py"

# Ops the importer meets in training IR (plain torch.export.export) or after
# run_decompositions({}), beyond the core set. "default" names the unnamed overload.
# The list must stay exact: every entry must resolve in the installed torch, and duplicates
# are rejected, so a typo fails the generator instead of silently shrinking the table.
# Removed from the list we were given: a second "layer_norm.default" (duplicate). Every other
# requested entry exists in torch 2.13.
EXTRA_OVERLOADS = [
    "linear.default", "conv1d.default", "conv2d.default", "conv2d.padding",
    "conv_transpose2d.input", "batch_norm.default", "layer_norm.default",
    "group_norm.default", "instance_norm.default", "rms_norm.default", "dropout.default",
    "feature_dropout.default", "alpha_dropout.default",
    "scaled_dot_product_attention.default", "softmax.int", "log_softmax.int",
    "matmul.default", "reshape.default", "flatten.using_ints", "unflatten.int",
    "contiguous.default", "transpose.int", "t.default", "to.dtype", "to.dtype_layout",
    "to.device", "to.other", "type_as.default", "max_pool2d.default", "max_pool1d.default",
    "avg_pool1d.default", "adaptive_avg_pool2d.default", "adaptive_avg_pool1d.default",
    "hardswish.default", "hardsigmoid.default", "silu.default", "mish.default",
    "relu6.default", "hardtanh.default", "masked_fill.Scalar", "masked_fill.Tensor",
    "masked_select.default", "scatter.reduce", "scatter.value_reduce", "nonzero_numpy.default", "where.default",
    "chunk.default", "split.Tensor", "split.sizes", "split_with_sizes.default",
    "unbind.int", "rsub.Scalar", "rsub.Tensor", "floor_divide.default", "zeros.default",
    "ones.default", "zeros_like.default", "ones_like.default", "empty_like.default",
    "new_zeros.default", "new_ones.default", "new_full.default", "arange.default",
    "arange.start", "tril.default", "triu.default", "_unsafe_view.default",
    "squeeze.default", "squeeze.dim", "unsqueeze.default", "view.dtype",
    "expand_as.default", "view_as.default", "reshape_as.default", "repeat.default",
    "tile.default", "flip.default", "roll.default", "add_.Tensor", "mul_.Tensor",
    "relu_.default", "clamp_min.default", "clamp_max.default", "minimum.default",
    "maximum.default", "erf.default", "exp2.default", "square.default", "mean.default",
    "sum.default", "norm.ScalarOpt_dim", "std.correction", "var.correction",
    "native_layer_norm.default", "embedding.default", "gelu.default", "sigmoid.default",
    "tanh.default", "einsum.default", "baddbmm.default", "addmm.default", "mm.default", "_grouped_mm.default",
    "bmm.default", "index.Tensor", "_unsafe_index.Tensor", "index_select.default", "gather.default",
    "masked_fill_.Scalar", "_assert_tensor_metadata.default", "_assert_scalar.default",
    "sym_constrain_range_for_size.default", "sym_size.int", "sym_numel.default",
    "lift_fresh_copy.default", "detach.default", "alias.default", "scalar_tensor.default",
    "full.default", "full_like.default", "abs.default", "neg.default", "sqrt.default",
    "rsqrt.default", "pow.Tensor_Scalar", "pow.Tensor_Tensor", "pow.Scalar",
    "cumsum.default", "argmax.default", "topk.default", "sort.default",
    "upsample_nearest2d.vec", "upsample_bilinear2d.vec", "pad.default",
    "constant_pad_nd.default", "logsumexp.default", "amax.default", "amin.default",
    "max.default", "min.default", "max.dim", "min.dim", "all.default", "any.default",
    "logical_not.default", "bitwise_not.default", "where.self", "where.ScalarOther",
    "where.ScalarSelf", "eq.Scalar", "eq.Tensor", "ne.Scalar", "lt.Scalar", "gt.Scalar",
    "le.Scalar", "ge.Scalar", "div.Tensor_mode", "div.Scalar", "remainder.Scalar",
    "fmod.Scalar", "_log_softmax.default", "_softmax.default", "_to_copy.default",
    "clone.default", "_native_batch_norm_legit_no_training.default",
    "max_pool2d_with_indices.default", "avg_pool2d.default", "select.int", "slice.Tensor",
    "cat.default", "stack.default", "permute.default", "expand.default", "view.default",
    "copy.default",
    # Python operators on tensors in training IR: `mask_a | mask_b`, `&` (`~` exports as bitwise_not).
    "__and__.Tensor", "__or__.Tensor",
    # Elementwise torch.min(a, b) / torch.max(a, b) (T5 clamps with min.other); diff (transformers
    # position ids in training IR).
    "min.other", "max.other", "diff.default",
    # Training-IR spellings of core elementwise ops: `a ^ b`, in-place copy_/fill_ on fresh
    # tensors (functionalized to copy/full_like in core ATen), selu/celu (elu in core ATen),
    # torch.round(x, decimals=d) (not core, at either level).
    "__xor__.Tensor", "copy_.default", "fill_.Scalar", "zero_.default", "movedim.intlist", "fft_fftshift.default", "fft_ifftshift.default", "selu.default", "celu.default",
    "round.decimals",
    # Padding, resampling and pooling beyond the core set: F.pad's modes as their own ops,
    # F.interpolate in training IR, 1-d and 3-d pools.
    "replication_pad1d.default", "upsample_nearest1d.vec", "upsample_nearest1d.default",
    "upsample_nearest2d.default", "upsample_nearest3d.vec", "upsample_nearest3d.default",
    "_upsample_nearest_exact1d.vec", "_upsample_nearest_exact2d.vec",
    "_upsample_nearest_exact3d.vec", "upsample_linear1d.vec", "upsample_bilinear2d.default",
    "upsample_trilinear3d.vec", "adaptive_avg_pool3d.default", "max_pool3d.default",
    "adaptive_max_pool1d.default", "adaptive_max_pool2d.default", "adaptive_max_pool3d.default",
    # In-place index assignment in training IR (`x[idx] = v` on a tensor the model made).
    "index_put_.default",
    # Masked advanced indexing with clamped indices in training IR (inductor's forms).
    "_unsafe_masked_index.default", "_unsafe_masked_index_put_accumulate.default",
    # Convolution and normalization in training IR (wav2vec2's feature encoder and weight-normed
    # positional convolution, U-Net decoders) and linalg_vector_norm, which core ATen keeps.
    "conv1d.padding", "conv_transpose1d.default", "conv3d.default", "_weight_norm.default",
    "linalg_vector_norm.default",
    # Model state: an LLM's static KV cache updated in place (HF's ExecuTorch export recipe).
    "index_copy.default", "index_copy_.default",
    # Recurrent layers and cells in training IR (nn.LSTM/GRU/RNN and their cells; core ATen
    # holds them unrolled).
    "lstm.input", "gru.input", "rnn_tanh.input", "rnn_relu.input", "lstm_cell.default",
    "gru_cell.default", "rnn_tanh_cell.default", "rnn_relu_cell.default",
    # resize_'s functional form in core ATen (`torch.empty(0).resize_(n)`); resize_as_.
    "resize.default", "resize_as_.default",
    # Sorting, embedding bags and pairwise distances beyond the core set: stable sort, argsort,
    # msort and kthvalue in training IR, embedding_bag in training IR and
    # _embedding_bag_forward_only in core ATen, cdist/pdist in training IR.
    "sort.stable", "argsort.default", "argsort.stable", "msort.default", "kthvalue.default",
    "embedding_bag.default", "embedding_bag.padding_idx", "_embedding_bag_forward_only.default",
    "cdist.default", "pdist.default",
    # 3-d convolution with string padding, transposed 3-d convolution, grid_sample, affine_grid and nn.Unfold in training IR.
    "conv3d.padding", "conv_transpose3d.input", "grid_sampler.default", "affine_grid_generator.default", "im2col.default",
    # Random numbers in training IR and after run_decompositions(): the generator overloads
    # (generator=None), the _like forms and randint.
    "rand.generator", "randn.generator", "randperm.generator", "rand_like.default",
    "randn_like.default", "randint.default", "randint.low", "randint.generator",
    "randint.low_generator", "randint_like.default", "randint_like.low_dtype",
    # FFT and complex values (frontend/aten/fft.cpp, aten/complex.cpp): torch.fft and stft in
    # training IR, _fft_c2c in core ATen, and the ops that read complex results.
    "_fft_c2c.default", "fft_fft.default", "fft_ifft.default", "fft_rfft.default",
    "fft_irfft.default", "fft_fft2.default", "fft_ifft2.default", "fft_rfft2.default",
    "fft_irfft2.default", "fft_fftn.default", "fft_ifftn.default", "fft_rfftn.default",
    "fft_irfftn.default", "fft_hfft.default", "fft_hfft2.default", "fft_hfftn.default",
    "stft.default", "stft.center", "hann_window.default",
    "hann_window.periodic", "unfold.default", "view_as_real.default",
    "view_as_complex.default", "real.default", "imag.default", "angle.default",
    "conj.default", "_conj.default", "conj_physical.default", "resolve_conj.default",
    # Special functions ir/ops.def maps generically (erfc, lgamma, digamma and their
    # torch.special spellings).
    "erfc.default", "lgamma.default", "digamma.default", "special_erfc.default",
    "special_digamma.default", "special_psi.default", "special_zeta.default",
    # torch.special's Bessel/Airy/erfinv family, incomplete gamma and orthogonal polynomials.
    "erfinv.default", "special_erfinv.default", "special_ndtri.default", "special_erfcx.default",
    "special_log_ndtr.default", "special_bessel_j0.default", "special_bessel_j1.default",
    "special_bessel_y0.default", "special_bessel_y1.default", "i0.default", "special_i0.default",
    "special_modified_bessel_i0.default", "special_i1.default",
    "special_modified_bessel_i1.default", "special_i0e.default", "special_i1e.default",
    "special_modified_bessel_k0.default", "special_modified_bessel_k1.default",
    "special_scaled_modified_bessel_k0.default", "special_scaled_modified_bessel_k1.default",
    "special_spherical_bessel_j0.default", "special_airy_ai.default", "igamma.default",
    "special_gammainc.default", "igammac.default", "special_gammaincc.default",
    "special_chebyshev_polynomial_t.default", "special_chebyshev_polynomial_t.x_scalar",
    "special_chebyshev_polynomial_t.n_scalar", "special_chebyshev_polynomial_u.default",
    "special_chebyshev_polynomial_u.x_scalar", "special_chebyshev_polynomial_u.n_scalar",
    "special_chebyshev_polynomial_v.default", "special_chebyshev_polynomial_v.x_scalar",
    "special_chebyshev_polynomial_v.n_scalar", "special_chebyshev_polynomial_w.default",
    "special_chebyshev_polynomial_w.x_scalar", "special_chebyshev_polynomial_w.n_scalar",
    "special_shifted_chebyshev_polynomial_t.default",
    "special_shifted_chebyshev_polynomial_t.x_scalar",
    "special_shifted_chebyshev_polynomial_t.n_scalar",
    "special_shifted_chebyshev_polynomial_u.default",
    "special_shifted_chebyshev_polynomial_u.x_scalar",
    "special_shifted_chebyshev_polynomial_u.n_scalar",
    "special_shifted_chebyshev_polynomial_v.default",
    "special_shifted_chebyshev_polynomial_v.x_scalar",
    "special_shifted_chebyshev_polynomial_v.n_scalar",
    "special_shifted_chebyshev_polynomial_w.default",
    "special_shifted_chebyshev_polynomial_w.x_scalar",
    "special_shifted_chebyshev_polynomial_w.n_scalar", "special_hermite_polynomial_h.default",
    "special_hermite_polynomial_h.x_scalar", "special_hermite_polynomial_h.n_scalar",
    "special_hermite_polynomial_he.default", "special_hermite_polynomial_he.x_scalar",
    "special_hermite_polynomial_he.n_scalar", "special_laguerre_polynomial_l.default",
    "special_laguerre_polynomial_l.x_scalar", "special_laguerre_polynomial_l.n_scalar",
    "special_legendre_polynomial_p.default", "special_legendre_polynomial_p.x_scalar",
    "special_legendre_polynomial_p.n_scalar",
    # In-place arithmetic on a tensor the program made (Mixtral's router: `w /= w.sum()`).
    "sub_.Tensor", "div_.Tensor",
    # Integer and float bit-level ops ir/ops.def maps (shifts, gcd, nextafter).
    "bitwise_left_shift.Tensor", "bitwise_left_shift.Tensor_Scalar", "__lshift__.Tensor",
    "__lshift__.Scalar", "bitwise_right_shift.Tensor", "bitwise_right_shift.Tensor_Scalar",
    "__rshift__.Tensor", "__rshift__.Scalar", "gcd.default", "nextafter.default",
    # Quantized programs (torchao): int8 x int8 -> int32 products.
    "_int_mm.default",
]

# Default-value kinds frontend/aten/op_schema.cpp converts (see convertDefault there), keyed by
# the str() of the argument's real type with Optional/List peeled off. A None default is
# accepted for any Optional type. Keep this in step with aten/op_schema.cpp.
SCALAR_DEFAULT_KINDS = {
    "int", "SymInt", "bool", "float", "SymFloat", "number", "str", "ScalarType",
    "MemoryFormat", "Layout", "Device",
}
LIST_ELEMENT_DEFAULT_KINDS = {"int", "SymInt", "float", "SymFloat", "bool", "str"}
# Enum defaults print as c10 integers; these are the values aten/op_schema.cpp's kScalarTypes,
# kMemoryFormats and kLayouts tables map to a serialization enum (c10 Jagged layout, the
# quantized and bits dtypes have none).
ENUM_DEFAULT_VALUES = {
    "ScalarType": set(range(12)) | {15} | set(range(23, 30)) | {44},
    "MemoryFormat": set(range(4)),
    "Layout": set(range(7)),
}


def fail(message):
    sys.exit(f"gen_op_schemas.py: error: {message}")


def resolve_overload(qualified):
    """Returns torch.ops.aten.<name>.<overload>, failing loudly when it does not exist."""
    name, _, overload = qualified.rpartition(".")
    if not name or not overload:
        fail(f"extra overload '{qualified}' is not of the form <op>.<overload>")
    try:
        return getattr(getattr(torch.ops.aten, name), overload)
    except (AttributeError, RuntimeError) as error:
        fail(f"extra overload 'aten.{qualified}' does not exist in torch {torch.__version__}: "
             f"{error}")


def core_overloads():
    """Every aten OpOverload tagged torch.Tag.core, keyed by (name, overload)."""
    found = {}
    for schema in torch._C._jit_get_all_schemas():
        if not schema.name.startswith("aten::"):
            continue
        name = schema.name[len("aten::"):]
        overload = schema.overload_name or "default"
        try:
            op = getattr(getattr(torch.ops.aten, name), overload)
        except (AttributeError, RuntimeError):
            continue  # registered with the JIT only; never an export target
        if torch.Tag.core in op.tags:
            found[(name, overload)] = op
    if not found:
        fail("found no aten overload tagged torch.Tag.core; did the tag API change?")
    return found


# Ops of other libraries that exported programs call, by namespace: the module whose import
# registers them, and the overloads. Their schemas keep the namespace ("transformers::...").
OTHER_LIBRARIES = {
    # Mixture-of-Experts layers exported in float32 (transformers.integrations.moe).
    "transformers": ("transformers.integrations.moe", ["grouped_mm_fallback.default"]),
    # PT2E quantization (torchao.quantization.pt2e's convert_pt2e writes these q/dq ops).
    "quantized_decomposed": ("torch.ao.quantization.fx._decomposed", [
        "quantize_per_tensor.default", "quantize_per_tensor.tensor",
        "dequantize_per_tensor.default", "dequantize_per_tensor.tensor",
        "quantize_per_channel.default", "dequantize_per_channel.default",
        "choose_qparams.tensor"]),
    # torch.nn.functional.linear_cross_entropy's chunked forms.
    "torch_nn": ("torch.nn.modules.linear_cross_entropy", [
        "_linear_cross_entropy_batch_chunked.default",
        "_linear_cross_entropy_batch_chunked_no_reduction.default"]),
}


def other_library_overloads():
    """(namespace, name, overload) -> OpOverload for OTHER_LIBRARIES."""
    import importlib
    found = {}
    for namespace, (module, overloads) in OTHER_LIBRARIES.items():
        importlib.import_module(module)
        for qualified in overloads:
            name, _, overload = qualified.rpartition(".")
            try:
                found[(namespace, name, overload)] = getattr(
                    getattr(getattr(torch.ops, namespace), name), overload)
            except (AttributeError, RuntimeError) as error:
                fail(f"'{namespace}.{qualified}' is not registered by {module}: {error}")
    return found


DECOMPOSITIONS = REPO_ROOT / "frontend" / "aten" / "decompositions.def"


def decomposition_overloads():
    """The overloads frontend/aten/decompositions.def states (TC_DECOMPOSE[_INPLACE] / TC_ALIAS)."""
    import re
    text = DECOMPOSITIONS.read_text()
    return re.findall(r'^TC_(?:DECOMPOSE|DECOMPOSE_INPLACE|ALIAS)\("([A-Za-z0-9_]+\.[A-Za-z0-9_]+)"', text, flags=re.M)


def selected_overloads():
    duplicates = sorted({q for q in EXTRA_OVERLOADS if EXTRA_OVERLOADS.count(q) > 1})
    if duplicates:
        fail(f"duplicate entries in EXTRA_OVERLOADS: {', '.join(duplicates)}")
    selected = core_overloads()
    for qualified in EXTRA_OVERLOADS + decomposition_overloads():
        name, _, overload = qualified.rpartition(".")
        selected[(name, overload)] = resolve_overload(qualified)
    return selected


def unconvertible_default(argument):
    """Returns why aten/op_schema.cpp could not convert this argument's default, or None."""
    if not argument.has_default_value():
        return None
    value = argument.default_value
    real_type = argument.real_type
    if isinstance(real_type, torch.OptionalType):
        if value is None:
            return None
        real_type = real_type.getElementType()
    if isinstance(real_type, torch.ListType):
        element = str(real_type.getElementType())
        if element.startswith("Tensor") and value == []:
            return None
        if element not in LIST_ELEMENT_DEFAULT_KINDS:
            return f"list of {element} default {value!r}"
        return None
    kind = str(real_type)
    if kind not in SCALAR_DEFAULT_KINDS:
        return f"{kind} default {value!r}"
    if kind in ENUM_DEFAULT_VALUES and value not in ENUM_DEFAULT_VALUES[kind]:
        return f"{kind} default {value!r} has no serialized form"
    if isinstance(value, complex):
        return f"complex default {value!r}"
    return None


def schema_lines(selected, others):
    """One TC_ATEN_SCHEMA line per overload: aten's without their namespace, sorted by (name,
    overload), then the other libraries' with theirs."""
    entries = [("aten", name, overload, selected[(name, overload)])
               for name, overload in sorted(selected)]
    entries += [(*key, others[key]) for key in sorted(others)]
    lines, problems = [], []
    for namespace, name, overload, op in entries:
        label = f"{namespace}.{name}.{overload}"
        for argument in op._schema.arguments:
            reason = unconvertible_default(argument)
            if reason:
                problems.append(f"{label}: argument '{argument.name}': {reason}")
        text = str(op._schema)
        if not text.startswith(namespace + "::") or not text.isascii() or "\n" in text:
            fail(f"unexpected schema text for {label}: {text!r}")
        if namespace == "aten":
            text = text[len("aten::"):]
        text = text.replace("\\", "\\\\").replace('"', '\\"')
        lines.append(f'TC_ATEN_SCHEMA("{text}")')
    if problems:
        fail("defaults aten/op_schema.cpp cannot convert (teach convertDefault, then "
             "SCALAR_DEFAULT_KINDS here):\n  " + "\n  ".join(problems))
    return lines


def render(lines):
    header = [
        "// GENERATED FILE - DO NOT EDIT. Regenerate with:",
        f"//   {COMMAND}",
        f"// from torch {torch.__version__}: every aten overload tagged torch.Tag.core plus the",
        "// EXTRA_OVERLOADS list in that script, sorted by (name, overload), then the other",
        f"// libraries' ops of OTHER_LIBRARIES (with their namespace); {len(lines)} overloads.",
        "// Each entry is str(torch.ops.aten.<op>.<overload>._schema) without the \"aten::\"",
        "// prefix; enum defaults are c10 integers. Consumed by frontend/aten/op_schema.cpp.",
        "#ifndef TC_ATEN_SCHEMA",
        "#error \"define TC_ATEN_SCHEMA(text) before including aten/schemas.inc\"",
        "#endif",
    ]
    return "\n".join(header + lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=pathlib.Path, default=DEFAULT_OUTPUT)
    parser.add_argument("--check", action="store_true",
                        help="compare with --output instead of writing it")
    options = parser.parse_args()

    lines = schema_lines(selected_overloads(), other_library_overloads())
    text = render(lines)
    if options.check:
        if not options.output.exists() or options.output.read_text() != text:
            fail(f"{options.output} is stale; run {COMMAND}")
        return
    options.output.write_text(text)
    print(f"wrote {len(lines)} schemas to {options.output}")


if __name__ == "__main__":
    main()
