// The complex table (see aten/complex.h): ops on complex pairs. Ops that act the same on both
// components (views, slices, copies, concatenation, sums, products with a real tensor) run
// the real import function once per component and restack the results; the others (abs,
// angle, conj, complex products and quotients, casts) are spelled out on the components.
#include "frontend/aten/complex.h"
#include "frontend/aten/converters.h"

#include <algorithm>
#include <array>
#include <map>
#include <numbers>
#include <utility>

#include "frontend/aten/fft.h"
#include "ir/shape_inference.h"

namespace thunderc::frontend {
namespace {

/// "aten.<op>.<overload>" of the node's schema.
std::string targetOf(const NodeImport &node) {
  return "aten." + node.schema().name + "." + node.schema().overload;
}

Expected<Value *> binary(NodeImport &node, OpKind op, Value *a, Value *b) {
  return node.emitInferred(op, {a, b});
}

/// A tensor of zeros shaped like `like`.
Value *zerosLike(NodeImport &node, const Value *like) {
  AttrMap attrs;
  attrs.set("value", 0.0);
  return node.emitTemp(OpKind::Full, {}, like->type(), std::move(attrs));
}

// ---- ops that act the same on both components ----

/// How a componentwise op treats its real operands.
enum class RealOperands {
  Indices, ///< only integer or bool tensors (indices, masks): read by both components
  Scale,   ///< real tensors scale both components (mul, div)
  Add,     ///< real tensors add to the real component only (add, sub)
};

/// Runs the real import function of the node once per component: every complex tensor the
/// node reads is bound to its component, real operands as `mode` says; each complex output is
/// then the pair of the two results.
Status importComponentwise(NodeImport &node, RealOperands mode) {
  ImportFunction real = findImportFunction(targetOf(node));
  if (real == nullptr)
    return node.unsupportedFeature(targetOf(node) + " on complex values");
  ImportState &state = node.state();
  std::vector<std::string> names = node.inputTensorNames();
  std::map<std::string, std::array<Value *, 2>> bindings;
  bool anyComplex = false;
  for (const std::string &name : names) {
    auto found = state.values.find(name);
    if (found == state.values.end() || bindings.count(name))
      continue;
    Value *value = found->second;
    if (isComplexValue(state, value)) {
      TC_ASSIGN_OR_RETURN(Value * re, complexComponent(node, value, 0));
      TC_ASSIGN_OR_RETURN(Value * im, complexComponent(node, value, 1));
      bindings[name] = {re, im};
      anyComplex = true;
      continue;
    }
    bool floating = ir::isFloatingPoint(value->type().dtype);
    if (floating && mode == RealOperands::Indices)
      return node.unsupportedFeature("mixing the real tensor '" + name +
                                     "' with complex ones in " + targetOf(node));
    Value *imaginaryPass = floating && mode == RealOperands::Add ? zerosLike(node, value) : value;
    bindings[name] = {value, imaginaryPass};
  }
  if (!anyComplex)
    return node.unsupportedFeature(targetOf(node) + " with a complex result from real tensors");
  std::vector<std::array<Value *, 2>> results(static_cast<size_t>(node.numOutputs()));
  for (int part = 0; part < 2; ++part) {
    std::map<std::string, Value *> saved;
    for (const auto &[name, pair] : bindings) {
      saved[name] = state.values.at(name);
      state.values[name] = pair[static_cast<size_t>(part)];
    }
    node.setComplexComponentOutputs(true);
    Status status = real(node);
    node.setComplexComponentOutputs(false);
    for (const auto &[name, value] : saved)
      state.values[name] = value;
    TC_TRY(status);
    for (int i = 0; i < node.numOutputs(); ++i) {
      auto found = state.values.find(node.outputName(i));
      if (found == state.values.end())
        continue;
      results[static_cast<size_t>(i)][static_cast<size_t>(part)] = found->second;
      found->second->setName(node.outputName(i) + (part == 0 ? "_real" : "_imag"));
    }
  }
  for (int i = 0; i < node.numOutputs(); ++i) {
    auto [re, im] = results[static_cast<size_t>(i)];
    if (re == nullptr || im == nullptr)
      continue;
    if (!node.isComplexOutput(i))
      return node.unsupportedFeature(targetOf(node) + " with a real result from complex tensors");
    TC_ASSIGN_OR_RETURN(Value * pair, makeComplex(node, re, im));
    TC_TRY(bindComplexOutput(node, i, pair));
  }
  return Status::success();
}

Status importStructural(NodeImport &node) {
  return importComponentwise(node, RealOperands::Indices);
}
Status importScaled(NodeImport &node) { return importComponentwise(node, RealOperands::Scale); }

// ---- complex-specific ops ----

/// A view of `value` with its own type: an identity reshape, so that the result is a new value
/// (complex or real) while the data stays shared.
Expected<Value *> identityView(NodeImport &node, Value *value) {
  AttrMap attrs;
  attrs.set("shape", ir::makeDimsAttr(value->type().shape));
  return node.emitInferred(OpKind::Reshape, {value}, std::move(attrs));
}

Status importViewAsReal(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  if (!isComplexValue(node.state(), self))
    return invalidInput("view_as_real of the real tensor '" + self->name() + "' in node '" +
                        node.name() + "'");
  TC_ASSIGN_OR_RETURN(Value * view, identityView(node, self));
  return bindRealOutput(node, 0, view);
}

Status importViewAsComplex(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  const ir::TensorType &type = self->type();
  if (isComplexValue(node.state(), self) || type.dtype != DType::F32 || type.rank() == 0 ||
      type.shape.back() != ir::Dim(2))
    return node.unsupportedFeature("view_as_complex of " + type.str() +
                                   " (thunderc takes a float32 tensor with a last dim of 2)");
  TC_ASSIGN_OR_RETURN(Value * view, identityView(node, self));
  return bindComplexOutput(node, 0, view);
}

// real(x) and imag(x): a component (real of a real tensor is the tensor).
template <int Part> Status importComponent(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  if (!isComplexValue(node.state(), self)) {
    if (Part == 1)
      return invalidInput("imag of the real tensor '" + self->name() + "' in node '" +
                          node.name() + "'");
    TC_ASSIGN_OR_RETURN(Value * view, identityView(node, self));
    return bindRealOutput(node, 0, view);
  }
  TC_ASSIGN_OR_RETURN(Value * component, complexComponent(node, self, Part));
  return bindRealOutput(node, 0, component);
}

// |x| = sqrt(re^2 + im^2) (PyTorch uses hypot; both round once per operation in fp32, and
// overflow only where re^2 + im^2 exceeds the fp32 range, above 1.8e19).
Status importComplexAbs(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(Value * squares, binary(node, OpKind::Mul, self, self));
  AttrMap sum;
  sum.set("dims", std::vector<int64_t>{self->type().rank() - 1});
  sum.set("keepdim", false);
  TC_ASSIGN_OR_RETURN(Value * norm, node.emitInferred(OpKind::Sum, {squares}, std::move(sum)));
  TC_ASSIGN_OR_RETURN(Value * magnitude, node.emitInferred(OpKind::Sqrt, {norm}));
  return bindRealOutput(node, 0, magnitude);
}

// angle: atan2(im, re); of a real tensor, pi below zero, else zero (NaN stays NaN), as in
// PyTorch.
Status importAngle(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  if (!isComplexValue(node.state(), self)) {
    TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
    Value *x = node.castTo(self, out.dtype);
    TC_ASSIGN_OR_RETURN(Value * negative,
                        binary(node, OpKind::Lt, x, node.scalarConstant(0.0, out.dtype)));
    TC_ASSIGN_OR_RETURN(Value * halfTurns,
                        node.emitInferred(OpKind::Where,
                                     {negative, node.scalarConstant(std::numbers::pi, out.dtype),
                                      node.scalarConstant(0.0, out.dtype)}));
    TC_ASSIGN_OR_RETURN(Value * nan, node.emitInferred(OpKind::IsNan, {x}));
    TC_ASSIGN_OR_RETURN(Value * angle, node.emitInferred(OpKind::Where, {nan, x, halfTurns}));
    return bindRealOutput(node, 0, angle);
  }
  TC_ASSIGN_OR_RETURN(Value * re, complexComponent(node, self, 0));
  TC_ASSIGN_OR_RETURN(Value * im, complexComponent(node, self, 1));
  TC_ASSIGN_OR_RETURN(Value * angle, binary(node, OpKind::Atan2, im, re));
  return bindRealOutput(node, 0, angle);
}

// conj, _conj, conj_physical: the imaginary component negated (a real tensor is its own
// conjugate). The conj bit of eager tensors is resolved here, so resolve_conj is a copy.
Status importConj(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  if (!isComplexValue(node.state(), self)) {
    TC_ASSIGN_OR_RETURN(Value * copy, node.emitInferred(OpKind::Copy, {self}));
    return bindRealOutput(node, 0, copy);
  }
  ir::HostTensor signs{DType::F32, {2}, std::vector<uint8_t>(2 * sizeof(float))};
  float values[2] = {1.0f, -1.0f};
  std::copy_n(reinterpret_cast<const uint8_t *>(values), sizeof(values), signs.bytes.begin());
  Value *sign = generatedConstant(node, "conj_signs", std::move(signs));
  TC_ASSIGN_OR_RETURN(Value * conj, binary(node, OpKind::Mul, self, sign));
  return bindComplexOutput(node, 0, conj);
}

Status importResolveConj(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(Value * copy, node.emitInferred(OpKind::Copy, {self}));
  if (isComplexValue(node.state(), self))
    return bindComplexOutput(node, 0, copy);
  return bindRealOutput(node, 0, copy);
}

// _to_copy / to.dtype / to.dtype_layout with a complex side: real -> complex64 pairs the
// tensor with zeros (and remembers the real tensor, so a DFT of it is real-to-complex);
// complex -> complex64 copies; complex -> real keeps the real component, as PyTorch does.
Status importComplexCast(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  bool complexIn = isComplexValue(node.state(), self);
  if (node.isComplexOutput(0)) {
    if (complexIn) {
      TC_ASSIGN_OR_RETURN(Value * copy, node.emitInferred(OpKind::Copy, {self}));
      return bindComplexOutput(node, 0, copy);
    }
    Value *real = node.castTo(self, DType::F32);
    TC_ASSIGN_OR_RETURN(Value * pair, makeComplex(node, real, zerosLike(node, real)));
    node.state().realOfComplex[pair] = real;
    return bindComplexOutput(node, 0, pair);
  }
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  TC_ASSIGN_OR_RETURN(Value * re, complexComponent(node, self, 0));
  return bindRealOutput(node, 0, node.castTo(re, out.dtype));
}

/// The components of a mul/div/add/sub operand: a complex pair's two, a real tensor's (with
/// a null imaginary part), or a Python scalar's.
struct Components {
  Value *re = nullptr;
  Value *im = nullptr; ///< null: zero
};

/// Whether argument `arg` is a complex tensor.
Expected<bool> isComplexArgument(NodeImport &node, std::string_view arg) {
  TC_ASSIGN_OR_RETURN(ScalarOrTensor operand, node.scalarOrTensor(arg));
  return operand.tensor != nullptr && isComplexValue(node.state(), operand.tensor);
}

Expected<Components> components(NodeImport &node, std::string_view arg) {
  TC_ASSIGN_OR_RETURN(ScalarOrTensor operand, node.scalarOrTensor(arg));
  Components result;
  if (operand.tensor != nullptr && isComplexValue(node.state(), operand.tensor)) {
    TC_ASSIGN_OR_RETURN(result.re, complexComponent(node, operand.tensor, 0));
    TC_ASSIGN_OR_RETURN(result.im, complexComponent(node, operand.tensor, 1));
    return result;
  }
  result.re = node.materialize(operand, DType::F32);
  return result;
}

/// a*b - c*d (or a*b + c*d with `plus`); a null factor makes its product zero.
Expected<Value *> productSum(NodeImport &node, Value *a, Value *b, Value *c, Value *d, bool plus) {
  Value *first = nullptr;
  Value *second = nullptr;
  if (a != nullptr && b != nullptr) {
    TC_ASSIGN_OR_RETURN(first, binary(node, OpKind::Mul, a, b));
  }
  if (c != nullptr && d != nullptr) {
    TC_ASSIGN_OR_RETURN(second, binary(node, OpKind::Mul, c, d));
  }
  if (second == nullptr)
    return first;
  if (first == nullptr)
    return plus ? second : node.emitInferred(OpKind::Neg, {second});
  return binary(node, plus ? OpKind::Add : OpKind::Sub, first, second);
}

/// Broadcasts both components to the result's component shape and pairs them.
Status bindComplexProduct(NodeImport &node, Value *re, Value *im) {
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.complexOutputType(0));
  out.shape.pop_back();
  AttrMap expand;
  expand.set("shape", ir::makeDimsAttr(out.shape));
  if (!(re->type().shape == out.shape)) {
    TC_ASSIGN_OR_RETURN(re, node.emitInferred(OpKind::Expand, {re}, expand));
  }
  if (!(im->type().shape == out.shape)) {
    TC_ASSIGN_OR_RETURN(im, node.emitInferred(OpKind::Expand, {im}, expand));
  }
  TC_ASSIGN_OR_RETURN(Value * pair, makeComplex(node, re, im));
  return bindComplexOutput(node, 0, pair);
}

// mul.Tensor: (a + ib)(c + id) = (ac - bd) + i(ad + bc); by a real factor, componentwise.
Status importComplexMul(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(bool complexSelf, isComplexArgument(node, "self"));
  TC_ASSIGN_OR_RETURN(bool complexOther, isComplexArgument(node, "other"));
  if (!complexSelf || !complexOther)
    return importScaled(node);
  TC_ASSIGN_OR_RETURN(Components a, components(node, "self"));
  TC_ASSIGN_OR_RETURN(Components b, components(node, "other"));
  TC_ASSIGN_OR_RETURN(Value * re, productSum(node, a.re, b.re, a.im, b.im, false));
  TC_ASSIGN_OR_RETURN(Value * im, productSum(node, a.re, b.im, a.im, b.re, true));
  return bindComplexProduct(node, re, im);
}

// div.Tensor: (a + ib) / (c + id) = ((ac + bd) + i(bc - ad)) / (c^2 + d^2); by a real divisor,
// componentwise.
Status importComplexDiv(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(bool complexOther, isComplexArgument(node, "other"));
  if (!complexOther)
    return importScaled(node);
  TC_ASSIGN_OR_RETURN(Components a, components(node, "self"));
  TC_ASSIGN_OR_RETURN(Components b, components(node, "other"));
  TC_ASSIGN_OR_RETURN(Value * denominator, productSum(node, b.re, b.re, b.im, b.im, true));
  TC_ASSIGN_OR_RETURN(Value * re, productSum(node, a.re, b.re, a.im, b.im, true));
  TC_ASSIGN_OR_RETURN(Value * im, productSum(node, a.im, b.re, a.re, b.im, false));
  TC_ASSIGN_OR_RETURN(re, binary(node, OpKind::Div, re, denominator));
  TC_ASSIGN_OR_RETURN(im, binary(node, OpKind::Div, im, denominator));
  return bindComplexProduct(node, re, im);
}

// add.Tensor / sub.Tensor: componentwise; a real tensor adds to the real component only. A
// Python scalar with a complex tensor is refused (the real-component pass cannot see it).
Status importComplexAdd(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(ScalarOrTensor other, node.scalarOrTensor("other"));
  if (other.tensor == nullptr)
    return node.unsupportedFeature("adding a Python scalar to a complex tensor");
  return importComponentwise(node, RealOperands::Add);
}

// constant_pad_nd / pad: componentwise when the fill value is zero (a real fill would pad the
// real component only).
Status importComplexPad(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(std::optional<double> value, node.optionalFloat("value"));
  if (value.value_or(0.0) != 0.0)
    return node.unsupportedFeature("padding a complex tensor with the nonzero value " +
                                   std::to_string(*value));
  return importStructural(node);
}

struct TableEntry {
  std::string_view target; ///< "aten.<op>.<overload>"
  ImportFunction function;
  bool realOperands; ///< also the import of the op on real tensors
};

// clang-format off
constexpr TableEntry kComplexTable[] = {
    // complex-aware: also imported for real tensors
    {"aten._fft_r2c.default", importFftR2c, true},
    {"aten._fft_c2r.default", importFftC2r, true},
    {"aten._fft_c2c.default", importFftC2c, true},
    {"aten.fft_fft.default", importFftFft, true},
    {"aten.fft_ifft.default", importFftIfft, true},
    {"aten.fft_rfft.default", importFftRfft, true},
    {"aten.fft_irfft.default", importFftIrfft, true},
    {"aten.fft_fft2.default", importFftFftn, true},
    {"aten.fft_ifft2.default", importFftIfftn, true},
    {"aten.fft_rfft2.default", importFftRfftn, true},
    {"aten.fft_irfft2.default", importFftIrfftn, true},
    {"aten.fft_fftn.default", importFftFftn, true},
    {"aten.fft_ifftn.default", importFftIfftn, true},
    {"aten.fft_rfftn.default", importFftRfftn, true},
    {"aten.fft_irfftn.default", importFftIrfftn, true},
    {"aten.fft_hfft.default", importFftHfft, true},
    {"aten.fft_hfft2.default", importFftHfftn, true},
    {"aten.fft_hfftn.default", importFftHfftn, true},
    {"aten.stft.default", importStft, true},
    {"aten.stft.center", importStft, true},
    {"aten.view_as_complex.default", importViewAsComplex, true},
    {"aten.real.default", importComponent<0>, true},
    {"aten.conj.default", importConj, true},
    {"aten._conj.default", importConj, true},
    {"aten.conj_physical.default", importConj, true},
    {"aten.resolve_conj.default", importResolveConj, true},
    // complex only: the real ops are in the other converter files or ir/ops.def
    {"aten.view_as_real.default", importViewAsReal, true},
    {"aten.imag.default", importComponent<1>, true},
    {"aten.angle.default", importAngle, true},
    {"aten.abs.default", importComplexAbs, false},
    {"aten._to_copy.default", importComplexCast, false},
    {"aten.to.dtype", importComplexCast, false},
    {"aten.to.dtype_layout", importComplexCast, false},
    {"aten.mul.Tensor", importComplexMul, false},
    {"aten.mul.Scalar", importScaled, false},
    {"aten.div.Tensor", importComplexDiv, false},
    {"aten.div.Scalar", importScaled, false},
    {"aten.add.Tensor", importComplexAdd, false},
    {"aten.sub.Tensor", importComplexAdd, false},
    {"aten.neg.default", importScaled, false},
    {"aten.sum.dim_IntList", importScaled, false},
    {"aten.sum.default", importScaled, false},
    {"aten.mean.dim", importScaled, false},
    {"aten.mean.default", importScaled, false},
    // data movement: the same on both components
    {"aten.alias.default", importStructural, false},
    {"aten.clone.default", importStructural, false},
    {"aten.contiguous.default", importStructural, false},
    {"aten.detach.default", importStructural, false},
    {"aten.lift_fresh_copy.default", importStructural, false},
    {"aten.view.default", importStructural, false},
    {"aten.reshape.default", importStructural, false},
    {"aten._unsafe_view.default", importStructural, false},
    {"aten.flatten.using_ints", importStructural, false},
    {"aten.unflatten.int", importStructural, false},
    {"aten.permute.default", importStructural, false},
    {"aten.transpose.int", importStructural, false},
    {"aten.t.default", importStructural, false},
    {"aten.unsqueeze.default", importStructural, false},
    {"aten.squeeze.default", importStructural, false},
    {"aten.squeeze.dim", importStructural, false},
    {"aten.squeeze.dims", importStructural, false},
    {"aten.expand.default", importStructural, false},
    {"aten.slice.Tensor", importStructural, false},
    {"aten.select.int", importStructural, false},
    {"aten.narrow.default", importStructural, false},
    {"aten.cat.default", importStructural, false},
    {"aten.stack.default", importStructural, false},
    {"aten.flip.default", importStructural, false},
    {"aten.roll.default", importStructural, false},
    {"aten.repeat.default", importStructural, false},
    {"aten.index_select.default", importStructural, false},
    {"aten.index.Tensor", importStructural, false},
    {"aten.gather.default", importStructural, false},
    {"aten.split.Tensor", importStructural, false},
    {"aten.split_with_sizes.default", importStructural, false},
    {"aten.chunk.default", importStructural, false},
    {"aten.unbind.int", importStructural, false},
    {"aten.unfold.default", importStructural, false},
    {"aten.constant_pad_nd.default", importComplexPad, false},
    {"aten.pad.default", importComplexPad, false},
};
// clang-format on

std::string_view withoutTorchOps(std::string_view target) {
  constexpr std::string_view kPrefix = "torch.ops.";
  if (target.starts_with(kPrefix))
    target.remove_prefix(kPrefix.size());
  return target;
}

} // namespace

ir::Value *generatedConstant(NodeImport &node, const std::string &key, ir::HostTensor data) {
  ImportState &state = node.state();
  auto found = state.generatedConstants.find(key);
  if (found != state.generatedConstants.end())
    return found->second;
  ir::Value *constant = state.graph->addConstant(key, "generated." + key, std::move(data));
  state.generatedConstants[key] = constant;
  return constant;
}

bool isComplexValue(const ImportState &state, const ir::Value *value) {
  return state.complexValues.count(const_cast<ir::Value *>(value)) != 0;
}

ImportFunction findComplexImportFunction(std::string_view target) {
  target = withoutTorchOps(target);
  for (const TableEntry &entry : kComplexTable)
    if (entry.target == target)
      return entry.function;
  return nullptr;
}

std::span<const Converter> complexAwareConverters() {
  static const std::vector<Converter> kConverters = [] {
    std::vector<Converter> converters;
    for (const TableEntry &entry : kComplexTable)
      if (entry.realOperands)
        converters.push_back({entry.target, entry.function});
    return converters;
  }();
  return kConverters;
}

std::string complexOpsSummary() {
  return "thunderc computes complex values (as float32 pairs) only in the FFT ops, stft, "
         "view_as_real, view_as_complex, real, imag, abs, angle, conj, casts, complex "
         "add/sub/mul/div, and views, copies, concatenation, indexing and sums";
}

Expected<ir::Value *> complexComponent(NodeImport &node, ir::Value *pair, int part) {
  AttrMap attrs;
  attrs.set("dim", pair->type().rank() - 1);
  attrs.set("index", static_cast<int64_t>(part));
  return node.emitInferred(OpKind::Select, {pair}, std::move(attrs));
}

Expected<ir::Value *> makeComplex(NodeImport &node, ir::Value *real, ir::Value *imaginary) {
  AttrMap last;
  last.set("dim", real->type().rank());
  TC_ASSIGN_OR_RETURN(Value * re, node.emitInferred(OpKind::Unsqueeze, {real}, last));
  TC_ASSIGN_OR_RETURN(Value * im, node.emitInferred(OpKind::Unsqueeze, {imaginary}, last));
  TC_ASSIGN_OR_RETURN(Value * pair, node.emitInferred(OpKind::Concat, {re, im}, last));
  node.state().complexValues.insert(pair);
  return pair;
}

namespace {

Status bindChecked(NodeImport &node, int index, Value *value, const ir::TensorType &declared) {
  if (!(value->type() == declared))
    return invalidInput("node '" + node.name() + "': output " + std::to_string(index) +
                        " comes out as " + value->type().str() + " but the export declares " +
                        declared.str() +
                        (node.isComplexOutput(index) ? " (as float32 pairs)" : ""));
  if (value->producer() != nullptr && ir::hasTrait(value->producer()->op(), ir::kView))
    node.state().viewResults.insert(value);
  value->setName(node.outputName(index));
  node.bindOutput(index, value);
  return Status::success();
}

} // namespace

Status bindComplexOutput(NodeImport &node, int index, ir::Value *pair) {
  if (!node.isComplexOutput(index))
    return invalidInput("node '" + node.name() + "': output " + std::to_string(index) +
                        " is declared real but thunderc computes a complex value for it");
  TC_ASSIGN_OR_RETURN(ir::TensorType declared, node.complexOutputType(index));
  TC_TRY(bindChecked(node, index, pair, declared));
  node.state().complexValues.insert(pair);
  return Status::success();
}

Status bindRealOutput(NodeImport &node, int index, ir::Value *value) {
  TC_ASSIGN_OR_RETURN(ir::TensorType declared, node.outputType(index));
  return bindChecked(node, index, value, declared);
}

} // namespace thunderc::frontend
