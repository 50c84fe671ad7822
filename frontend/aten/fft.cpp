// The DFT imports (see aten/fft.h). One transformed dim at a time:
//   1. permute the dim last (a complex pair keeps its trailing 2 after it) and flatten a pair's
//      last two dims, so each row of x holds one signal: N reals or 2N interleaved components;
//   2. matmul with the constant matrix W of that transform (rows: the input's components,
//      columns: the output's), which the importer computes in double and rounds to float32
//      once per entry: cos/sin of 2*pi*((j*k) mod n)/n, the normalization folded in, rows past
//      n zero (a signal cropped to n points) and absent rows zero-padding it;
//   3. unflatten a complex result into pairs and permute the dim back.
// A naive DFT costs O(n^2) per signal where an FFT costs O(n log n); for the sizes of audio
// front ends and FNet-style mixing (tens to hundreds of points) the GEMM is fast and its error
// (about sqrt(n) roundings of float32 per output) stays within float32 tolerances.
#include "frontend/aten/fft.h"
#include "frontend/aten/converters.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "frontend/aten/complex.h"

namespace thunderc::frontend {
namespace {

enum class DftKind { RealToComplex, ComplexToComplex, ComplexToReal };

/// ATen's fft_norm_mode (aten/src/ATen/native/SpectralOpsUtils.h): the integer `normalization`
/// argument of _fft_r2c / _fft_c2c / _fft_c2r.
enum class Normalization { None = 0, ByRootN = 1, ByN = 2 };

/// One DFT along one dim.
struct DimTransform {
  int64_t dim = 0;     ///< logical dim (of the complex shape, for a pair)
  DftKind kind = DftKind::ComplexToComplex;
  int64_t length = 0;  ///< n: the signal's number of points (the input is cropped or padded)
  int64_t outputs = 0; ///< result points: n, or n/2+1 for a one-sided real-to-complex DFT
  bool inverse = false;
  Normalization normalization = Normalization::None;
};

const char *kindName(DftKind kind) {
  switch (kind) {
  case DftKind::RealToComplex: return "r2c";
  case DftKind::ComplexToComplex: return "c2c";
  case DftKind::ComplexToReal: return "c2r";
  }
  return "";
}

Expected<Normalization> normalizationArg(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(int64_t mode, node.intArg("normalization"));
  if (mode < 0 || mode > 2)
    return invalidInput("node '" + node.name() + "': normalization " + std::to_string(mode) +
                        " is not 0 (none), 1 (by_root_n) or 2 (by_n)");
  return static_cast<Normalization>(mode);
}

/// torch.fft's `norm` string for a forward (or inverse) transform.
Expected<Normalization> normFromString(NodeImport &node, bool inverse) {
  TC_ASSIGN_OR_RETURN(std::optional<std::string> norm, node.optionalString("norm"));
  std::string mode = norm.value_or("backward");
  if (mode == "ortho")
    return Normalization::ByRootN;
  if (mode == "backward")
    return inverse ? Normalization::ByN : Normalization::None;
  if (mode == "forward")
    return inverse ? Normalization::None : Normalization::ByN;
  return invalidInput("node '" + node.name() + "': norm '" + mode +
                      "' is not one of backward, forward, ortho");
}

/// The matrix of `transform` for an input of `size` points along the dim: rows are the input's
/// components (N reals, or N interleaved re/im pairs), columns the output's.
ir::HostTensor dftMatrix(const DimTransform &transform, int64_t size) {
  bool complexIn = transform.kind != DftKind::RealToComplex;
  bool complexOut = transform.kind != DftKind::ComplexToReal;
  int64_t rows = size * (complexIn ? 2 : 1);
  int64_t columns = transform.outputs * (complexOut ? 2 : 1);
  int64_t n = transform.length;
  double scale = 1.0;
  if (transform.normalization == Normalization::ByRootN)
    scale = 1.0 / std::sqrt(static_cast<double>(n));
  else if (transform.normalization == Normalization::ByN)
    scale = 1.0 / static_cast<double>(n);
  double sign = transform.inverse ? 1.0 : -1.0;
  std::vector<float> w(static_cast<size_t>(rows * columns), 0.0f);
  auto at = [&](int64_t row, int64_t column) -> float & {
    return w[static_cast<size_t>(row * columns + column)];
  };
  // Points past n are cropped (zero rows); a c2r reads only the bins below n/2+1.
  int64_t used = std::min(size, transform.kind == DftKind::ComplexToReal ? n / 2 + 1 : n);
  for (int64_t j = 0; j < used; ++j) {
    for (int64_t k = 0; k < transform.outputs; ++k) {
      // The angle's integer part is reduced exactly, so large j*k lose no precision.
      double theta = 2.0 * std::numbers::pi * static_cast<double>((j * k) % n) /
                     static_cast<double>(n);
      double c = scale * std::cos(theta);
      double s = scale * sign * std::sin(theta);
      switch (transform.kind) {
      case DftKind::RealToComplex:
        at(j, 2 * k) = static_cast<float>(c);
        at(j, 2 * k + 1) = static_cast<float>(s);
        break;
      case DftKind::ComplexToComplex: // (a + ib)(c + is) = (ac - bs) + i(as + bc)
        at(2 * j, 2 * k) = static_cast<float>(c);
        at(2 * j + 1, 2 * k) = static_cast<float>(-s);
        at(2 * j, 2 * k + 1) = static_cast<float>(s);
        at(2 * j + 1, 2 * k + 1) = static_cast<float>(c);
        break;
      case DftKind::ComplexToReal: {
        // Bin j stands for itself and its conjugate mirror n-j, but for the bins without a
        // mirror (0, and n/2 when n is even), whose imaginary parts are ignored.
        bool unpaired = j == 0 || 2 * j == n;
        double weight = unpaired ? 1.0 : 2.0;
        at(2 * j, k) = static_cast<float>(weight * c);
        at(2 * j + 1, k) = unpaired ? 0.0f : static_cast<float>(-weight * s);
        break;
      }
      }
    }
  }
  ir::HostTensor matrix{DType::F32, {rows, columns},
                        std::vector<uint8_t>(w.size() * sizeof(float))};
  std::memcpy(matrix.bytes.data(), w.data(), matrix.bytes.size());
  return matrix;
}

Expected<Value *> reshapeTo(NodeImport &node, Value *value, const ir::Shape &shape) {
  AttrMap attrs;
  attrs.set("shape", ir::makeDimsAttr(shape));
  return node.emitInferred(OpKind::Reshape, {value}, std::move(attrs));
}

Expected<Value *> permuteTo(NodeImport &node, Value *value, std::vector<int64_t> dims) {
  bool identity = true;
  for (size_t i = 0; i < dims.size(); ++i)
    identity = identity && dims[i] == static_cast<int64_t>(i);
  if (identity)
    return value;
  AttrMap attrs;
  attrs.set("dims", std::move(dims));
  return node.emitInferred(OpKind::Permute, {value}, std::move(attrs));
}

/// Applies one DFT to `x` (a real tensor, or a pair for the complex-input kinds).
Expected<Value *> applyDft(NodeImport &node, Value *x, const DimTransform &transform) {
  bool complexIn = transform.kind != DftKind::RealToComplex;
  bool complexOut = transform.kind != DftKind::ComplexToReal;
  int64_t rank = x->type().rank() - (complexIn ? 1 : 0);
  const ir::Dim &sizeDim = x->type().shape[static_cast<size_t>(transform.dim)];
  if (!sizeDim.isStatic())
    return node.unsupportedFeature("a DFT along dim " + std::to_string(transform.dim) +
                                   " of symbolic size " + sizeDim.str() +
                                   " (its twiddle matrix is a compile-time constant)");
  int64_t size = sizeDim.value();
  if (size < 1 || transform.length < 1)
    return invalidInput("node '" + node.name() + "': a DFT of " +
                        std::to_string(transform.length) + " points along dim " +
                        std::to_string(transform.dim) + " of size " + std::to_string(size));
  int64_t rows = size * (complexIn ? 2 : 1);
  int64_t columns = transform.outputs * (complexOut ? 2 : 1);
  if (rows * columns * static_cast<int64_t>(sizeof(float)) > kMaxDftMatrixBytes)
    return node.unsupportedFeature(
        "a DFT of " + std::to_string(transform.length) + " points along dim " +
        std::to_string(transform.dim) + " (size " + std::to_string(size) + "): its " +
        std::to_string(rows) + " x " + std::to_string(columns) + " float32 twiddle matrix "
        "exceeds thunderc's limit of " + std::to_string(kMaxDftMatrixBytes >> 20) + " MiB");

  // 1. The dim last (before a pair's trailing 2), a pair's components flattened into rows.
  std::vector<int64_t> order;
  for (int64_t d = 0; d < rank; ++d)
    if (d != transform.dim)
      order.push_back(d);
  order.push_back(transform.dim);
  std::vector<int64_t> permutation = order;
  if (complexIn)
    permutation.push_back(rank);
  TC_ASSIGN_OR_RETURN(Value * rowsValue, permuteTo(node, x, permutation));
  ir::Shape leading(rowsValue->type().shape.begin(),
                    rowsValue->type().shape.begin() + (rank - 1));
  if (complexIn) {
    ir::Shape flat = leading;
    flat.push_back(ir::Dim(rows));
    TC_ASSIGN_OR_RETURN(rowsValue, reshapeTo(node, rowsValue, flat));
  }
  // 2. The matmul with the transform's matrix, shared by every node that needs it.
  std::string key = std::string("dft_") + kindName(transform.kind) + "_" +
                    std::to_string(size) + "_n" + std::to_string(transform.length) + "_out" +
                    std::to_string(transform.outputs) + (transform.inverse ? "_inverse" : "") +
                    "_norm" + std::to_string(static_cast<int>(transform.normalization));
  Value *matrix = generatedConstant(node, key, dftMatrix(transform, size));
  TC_ASSIGN_OR_RETURN(Value * product, node.emitInferred(OpKind::Matmul, {rowsValue, matrix}));
  // 3. Pairs again, and the dim back in place.
  if (complexOut) {
    ir::Shape pairs = leading;
    pairs.push_back(ir::Dim(transform.outputs));
    pairs.push_back(ir::Dim(2));
    TC_ASSIGN_OR_RETURN(product, reshapeTo(node, product, pairs));
  }
  std::vector<int64_t> inverse(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i)
    inverse[static_cast<size_t>(order[static_cast<size_t>(i)])] = i;
  if (complexOut)
    inverse.push_back(rank);
  TC_ASSIGN_OR_RETURN(Value * result, permuteTo(node, product, inverse));
  if (complexOut)
    node.state().complexValues.insert(result);
  return result;
}

/// The signal a DFT reads: a real tensor as float32, a pair, or the real tensor a pair was
/// made from (then its first transform is real-to-complex).
struct Signal {
  Value *value = nullptr;
  bool complex = false;
};

Expected<Signal> signalArg(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  ImportState &state = node.state();
  if (auto real = state.realOfComplex.find(self); real != state.realOfComplex.end())
    return Signal{real->second, false};
  if (isComplexValue(state, self))
    return Signal{self, true};
  DType dtype = self->type().dtype;
  if (dtype != DType::F32 && ir::isFloatingPoint(dtype))
    return node.unsupportedFeature("a DFT of a " + self->type().str() +
                                   " tensor (thunderc's DFTs compute in float32)");
  return Signal{node.castTo(self, DType::F32), false};
}

int64_t logicalRank(const Signal &signal) {
  return signal.value->type().rank() - (signal.complex ? 1 : 0);
}

int64_t logicalSize(const Signal &signal, int64_t dim) {
  const ir::Dim &size = signal.value->type().shape[static_cast<size_t>(dim)];
  return size.isStatic() ? size.value() : -1;
}

/// A real signal as a pair with zero imaginary part (irfft of a real tensor).
Expected<Signal> asComplex(NodeImport &node, Signal signal) {
  if (signal.complex)
    return signal;
  AttrMap zero;
  zero.set("value", 0.0);
  Value *zeros = node.emitTemp(OpKind::Full, {}, signal.value->type(), std::move(zero));
  TC_ASSIGN_OR_RETURN(Value * pair, makeComplex(node, signal.value, zeros));
  return Signal{pair, true};
}

/// Applies `transform`; a complex-to-complex one of a real signal becomes real-to-complex.
Expected<Signal> transformSignal(NodeImport &node, Signal signal, DimTransform transform) {
  if (!signal.complex && transform.kind == DftKind::ComplexToComplex)
    transform.kind = DftKind::RealToComplex;
  if (signal.complex && transform.kind == DftKind::RealToComplex)
    transform.kind = DftKind::ComplexToComplex;
  if (!signal.complex && transform.kind == DftKind::ComplexToReal) {
    TC_ASSIGN_OR_RETURN(signal, asComplex(node, signal));
  }
  TC_ASSIGN_OR_RETURN(Value * result, applyDft(node, signal.value, transform));
  return Signal{result, transform.kind != DftKind::ComplexToReal};
}

Status bindSignal(NodeImport &node, const Signal &signal) {
  if (signal.complex)
    return bindComplexOutput(node, 0, signal.value);
  return bindRealOutput(node, 0, signal.value);
}

/// A transform of every dim of `dims` (normalized, in order): complex-to-complex (or
/// real-to-complex for a real signal), with `lengths` points (-1: the dim's size).
struct Plan {
  std::vector<int64_t> dims;
  std::vector<int64_t> lengths;
};

Expected<Plan> planDims(NodeImport &node, const Signal &signal, std::vector<int64_t> dims,
                        std::vector<int64_t> lengths) {
  int64_t rank = logicalRank(signal);
  Plan plan;
  for (int64_t dim : dims) {
    TC_ASSIGN_OR_RETURN(int64_t normalized, normalizedDim(node, dim, rank));
    if (std::find(plan.dims.begin(), plan.dims.end(), normalized) != plan.dims.end())
      return invalidInput("node '" + node.name() + "': dim " + std::to_string(dim) +
                          " is transformed twice");
    plan.dims.push_back(normalized);
  }
  if (!lengths.empty() && lengths.size() != plan.dims.size())
    return invalidInput("node '" + node.name() + "': " + std::to_string(lengths.size()) +
                        " signal sizes for " + std::to_string(plan.dims.size()) + " dims");
  for (size_t i = 0; i < plan.dims.size(); ++i) {
    int64_t length = i < lengths.size() ? lengths[i] : -1;
    if (length == -1)
      length = logicalSize(signal, plan.dims[i]);
    if (length == -1)
      return node.unsupportedFeature("a DFT along dim " + std::to_string(plan.dims[i]) +
                                     " of symbolic size");
    if (length < 1)
      return invalidInput("node '" + node.name() + "': invalid number of data points (" +
                          std::to_string(length) + ") along dim " +
                          std::to_string(plan.dims[i]));
    plan.lengths.push_back(length);
  }
  return plan;
}

/// For a complex-to-complex transform of several dims of a real signal: the dims in the order
/// that makes the first one (real-to-complex, whose GEMM is half as wide) the longest, so the
/// widest matrix meets the real rows; complex-to-complex DFTs along different dims commute.
void longestDimFirst(Plan &plan, const Signal &signal) {
  if (signal.complex || plan.dims.size() < 2)
    return;
  size_t longest = 0;
  for (size_t i = 1; i < plan.dims.size(); ++i)
    if (plan.lengths[i] >= plan.lengths[longest])
      longest = i;
  std::rotate(plan.dims.begin(), plan.dims.begin() + static_cast<long>(longest),
              plan.dims.begin() + static_cast<long>(longest) + 1);
  std::rotate(plan.lengths.begin(), plan.lengths.begin() + static_cast<long>(longest),
              plan.lengths.begin() + static_cast<long>(longest) + 1);
}

/// A real signal's multi-dim DFT as ATen computes it: real-to-complex along the plan's last
/// dim (its n/2 + 1 bins when onesided), then complex-to-complex along the others.
Expected<Signal> realToComplex(NodeImport &node, Signal signal, const Plan &plan, bool onesided,
                               Normalization normalization) {
  int64_t last = plan.lengths.back();
  TC_ASSIGN_OR_RETURN(signal, transformSignal(node, signal,
                                              {plan.dims.back(), DftKind::RealToComplex, last,
                                               onesided ? last / 2 + 1 : last, false,
                                               normalization}));
  for (size_t i = 0; i + 1 < plan.dims.size(); ++i) {
    TC_ASSIGN_OR_RETURN(signal, transformSignal(node, signal,
                                                {plan.dims[i], DftKind::ComplexToComplex,
                                                 plan.lengths[i], plan.lengths[i], false,
                                                 normalization}));
  }
  return signal;
}

// ---- core ATen: _fft_r2c, _fft_c2c, _fft_c2r ----

} // namespace

Status importFftR2c(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Signal signal, signalArg(node));
  if (signal.complex)
    return invalidInput("node '" + node.name() + "': _fft_r2c of a complex tensor");
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> dims, node.intList("dim"));
  TC_ASSIGN_OR_RETURN(Normalization normalization, normalizationArg(node));
  TC_ASSIGN_OR_RETURN(bool onesided, node.boolArg("onesided"));
  TC_ASSIGN_OR_RETURN(Plan plan, planDims(node, signal, dims, {}));
  if (plan.dims.empty())
    return invalidInput("node '" + node.name() + "': _fft_r2c over no dims");
  TC_ASSIGN_OR_RETURN(signal, realToComplex(node, signal, plan, onesided, normalization));
  return bindSignal(node, signal);
}

Status importFftC2c(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Signal signal, signalArg(node));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> dims, node.intList("dim"));
  TC_ASSIGN_OR_RETURN(Normalization normalization, normalizationArg(node));
  TC_ASSIGN_OR_RETURN(bool forward, node.boolArg("forward"));
  TC_ASSIGN_OR_RETURN(Plan plan, planDims(node, signal, dims, {}));
  longestDimFirst(plan, signal);
  for (size_t i = 0; i < plan.dims.size(); ++i) {
    TC_ASSIGN_OR_RETURN(signal, transformSignal(node, signal,
                                                {plan.dims[i], DftKind::ComplexToComplex,
                                                 plan.lengths[i], plan.lengths[i], !forward,
                                                 normalization}));
  }
  if (!signal.complex) { // no dims: the cast's pair itself
    TC_ASSIGN_OR_RETURN(signal, asComplex(node, signal));
  }
  return bindSignal(node, signal);
}

Status importFftC2r(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Signal signal, signalArg(node));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> dims, node.intList("dim"));
  TC_ASSIGN_OR_RETURN(Normalization normalization, normalizationArg(node));
  TC_ASSIGN_OR_RETURN(int64_t lastDimSize, node.intArg("last_dim_size"));
  TC_ASSIGN_OR_RETURN(Plan plan, planDims(node, signal, dims, {}));
  if (plan.dims.empty())
    return invalidInput("node '" + node.name() + "': _fft_c2r over no dims");
  if (lastDimSize < 1)
    return invalidInput("node '" + node.name() + "': last_dim_size " +
                        std::to_string(lastDimSize) + " is not positive");
  for (size_t i = 0; i + 1 < plan.dims.size(); ++i) {
    TC_ASSIGN_OR_RETURN(signal, transformSignal(node, signal,
                                                {plan.dims[i], DftKind::ComplexToComplex,
                                                 plan.lengths[i], plan.lengths[i], true,
                                                 normalization}));
  }
  TC_ASSIGN_OR_RETURN(signal, transformSignal(node, signal,
                                              {plan.dims.back(), DftKind::ComplexToReal,
                                               lastDimSize, lastDimSize, true, normalization}));
  return bindSignal(node, signal);
}

// ---- torch.fft (training IR) ----

namespace {

/// fft / ifft / rfft / irfft along one dim.
Status importOneDim(NodeImport &node, DftKind kind, bool inverse) {
  TC_ASSIGN_OR_RETURN(Signal signal, signalArg(node));
  TC_ASSIGN_OR_RETURN(std::optional<int64_t> n, node.optionalInt("n"));
  TC_ASSIGN_OR_RETURN(int64_t dim, node.intArg("dim"));
  TC_ASSIGN_OR_RETURN(Normalization normalization, normFromString(node, inverse));
  if (kind == DftKind::RealToComplex && signal.complex)
    return invalidInput("node '" + node.name() + "': rfft of a complex tensor");
  TC_ASSIGN_OR_RETURN(Plan plan, planDims(node, signal, {dim}, {}));
  int64_t size = plan.lengths.front();
  int64_t length = n.value_or(kind == DftKind::ComplexToReal ? 2 * (size - 1) : size);
  if (length < 1)
    return invalidInput("node '" + node.name() + "': invalid number of data points (" +
                        std::to_string(length) + ")");
  int64_t outputs = kind == DftKind::RealToComplex ? length / 2 + 1 : length;
  TC_ASSIGN_OR_RETURN(signal, transformSignal(node, signal,
                                              {plan.dims.front(), kind, length, outputs,
                                               inverse, normalization}));
  return bindSignal(node, signal);
}

/// The dims and signal sizes of an n-d transform: `dim` (None: the last len(s) dims, or all),
/// `s` (None: each dim's size).
Expected<Plan> planNd(NodeImport &node, const Signal &signal) {
  std::vector<int64_t> lengths;
  if (!node.isNone("s")) {
    TC_ASSIGN_OR_RETURN(lengths, node.intList("s"));
  }
  std::vector<int64_t> dims;
  int64_t rank = logicalRank(signal);
  if (!node.isNone("dim")) {
    TC_ASSIGN_OR_RETURN(dims, node.intList("dim"));
  } else {
    int64_t count = lengths.empty() ? rank : static_cast<int64_t>(lengths.size());
    if (count > rank)
      return invalidInput("node '" + node.name() + "': " + std::to_string(count) +
                          " signal sizes for a tensor of rank " + std::to_string(rank));
    for (int64_t d = rank - count; d < rank; ++d)
      dims.push_back(d);
  }
  return planDims(node, signal, dims, lengths);
}

/// fftn / ifftn (and fft2 / ifft2): complex-to-complex along every dim.
Status importNd(NodeImport &node, bool inverse) {
  TC_ASSIGN_OR_RETURN(Signal signal, signalArg(node));
  TC_ASSIGN_OR_RETURN(Normalization normalization, normFromString(node, inverse));
  TC_ASSIGN_OR_RETURN(Plan plan, planNd(node, signal));
  longestDimFirst(plan, signal);
  for (size_t i = 0; i < plan.dims.size(); ++i) {
    TC_ASSIGN_OR_RETURN(signal, transformSignal(node, signal,
                                                {plan.dims[i], DftKind::ComplexToComplex,
                                                 plan.lengths[i], plan.lengths[i], inverse,
                                                 normalization}));
  }
  if (!signal.complex) {
    TC_ASSIGN_OR_RETURN(signal, asComplex(node, signal));
  }
  return bindSignal(node, signal);
}

/// The conjugate of a signal (a real one is its own).
Expected<Signal> conjugate(NodeImport &node, Signal signal) {
  if (!signal.complex)
    return signal;
  ir::HostTensor signs{DType::F32, {2}, std::vector<uint8_t>(2 * sizeof(float))};
  float values[2] = {1.0f, -1.0f};
  std::memcpy(signs.bytes.data(), values, sizeof(values));
  Value *sign = generatedConstant(node, "conj_signs", std::move(signs));
  TC_ASSIGN_OR_RETURN(Value * conj, node.emitInferred(OpKind::Mul, {signal.value, sign}));
  node.state().complexValues.insert(conj);
  return Signal{conj, true};
}

/// irfftn / hfftn(self, s, dim, norm): complex-to-complex DFTs along all dims but the last
/// (inverse for irfftn, forward for hfftn, as ATen), then the complex-to-real DFT along the last
/// to s[-1] or 2 * (its size - 1) points -- of the conjugate for hfftn (the Hermitian form).
Status complexToRealNd(NodeImport &node, bool hermitian) {
  const std::string op = hermitian ? "hfftn" : "irfftn";
  TC_ASSIGN_OR_RETURN(Signal signal, signalArg(node));
  TC_ASSIGN_OR_RETURN(Normalization normalization, normFromString(node, !hermitian));
  std::optional<std::vector<int64_t>> sizes;
  if (!node.isNone("s")) {
    TC_ASSIGN_OR_RETURN(sizes, node.intList("s"));
  }
  TC_ASSIGN_OR_RETURN(Plan plan, planNd(node, signal));
  if (plan.dims.empty())
    return invalidInput("node '" + node.name() + "': " + op + " over no dims");
  int64_t last = sizes && sizes->back() != -1 ? sizes->back() : 2 * (plan.lengths.back() - 1);
  if (last < 1)
    return invalidInput("node '" + node.name() + "': invalid number of data points (" +
                        std::to_string(last) + ")");
  for (size_t i = 0; i + 1 < plan.dims.size(); ++i) {
    TC_ASSIGN_OR_RETURN(signal, transformSignal(node, signal,
                                                {plan.dims[i], DftKind::ComplexToComplex,
                                                 plan.lengths[i], plan.lengths[i], !hermitian,
                                                 normalization}));
  }
  if (hermitian) {
    TC_ASSIGN_OR_RETURN(signal, conjugate(node, signal));
  }
  TC_ASSIGN_OR_RETURN(signal, transformSignal(node, signal,
                                              {plan.dims.back(), DftKind::ComplexToReal, last,
                                               last, true, normalization}));
  return bindSignal(node, signal);
}

} // namespace

Status importFftHfft(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Signal signal, signalArg(node));
  TC_ASSIGN_OR_RETURN(std::optional<int64_t> n, node.optionalInt("n"));
  TC_ASSIGN_OR_RETURN(int64_t dim, node.intArg("dim"));
  // A forward transform: hfft(x) is the Hermitian complex-to-real DFT of conj(x).
  TC_ASSIGN_OR_RETURN(Normalization normalization, normFromString(node, false));
  TC_ASSIGN_OR_RETURN(Plan plan, planDims(node, signal, {dim}, {}));
  int64_t length = n.value_or(2 * (plan.lengths.front() - 1));
  if (length < 1)
    return invalidInput("node '" + node.name() + "': invalid number of data points (" +
                        std::to_string(length) + ")");
  TC_ASSIGN_OR_RETURN(signal, conjugate(node, signal));
  TC_ASSIGN_OR_RETURN(signal, transformSignal(node, signal,
                                              {plan.dims.front(), DftKind::ComplexToReal,
                                               length, length, true, normalization}));
  return bindSignal(node, signal);
}

Status importFftHfftn(NodeImport &node) { return complexToRealNd(node, true); }

Status importFftFft(NodeImport &node) {
  return importOneDim(node, DftKind::ComplexToComplex, false);
}
Status importFftIfft(NodeImport &node) {
  return importOneDim(node, DftKind::ComplexToComplex, true);
}
Status importFftRfft(NodeImport &node) { return importOneDim(node, DftKind::RealToComplex, false); }
Status importFftIrfft(NodeImport &node) { return importOneDim(node, DftKind::ComplexToReal, true); }
Status importFftFftn(NodeImport &node) { return importNd(node, false); }
Status importFftIfftn(NodeImport &node) { return importNd(node, true); }

Status importFftRfftn(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Signal signal, signalArg(node));
  if (signal.complex)
    return invalidInput("node '" + node.name() + "': rfftn of a complex tensor");
  TC_ASSIGN_OR_RETURN(Normalization normalization, normFromString(node, false));
  TC_ASSIGN_OR_RETURN(Plan plan, planNd(node, signal));
  if (plan.dims.empty())
    return invalidInput("node '" + node.name() + "': rfftn over no dims");
  TC_ASSIGN_OR_RETURN(signal, realToComplex(node, signal, plan, true, normalization));
  return bindSignal(node, signal);
}

Status importFftIrfftn(NodeImport &node) { return complexToRealNd(node, false); }

// ---- stft, windows, unfold ----

namespace {

/// unfold along `dim` of a real tensor: [.., windows, .., size] with windows of `size` points
/// every `step`.
Expected<Value *> unfoldValue(NodeImport &node, Value *x, int64_t dim, int64_t size, int64_t step) {
  int64_t rank = x->type().rank();
  const ir::Dim &extentDim = x->type().shape[static_cast<size_t>(dim)];
  if (!extentDim.isStatic())
    return node.unsupportedFeature("unfold along a dim of symbolic size " + extentDim.str());
  int64_t extent = extentDim.value();
  if (size < 0 || size > extent || step < 1)
    return invalidInput("node '" + node.name() + "': unfold of size " + std::to_string(size) +
                        " and step " + std::to_string(step) + " along a dim of size " +
                        std::to_string(extent));
  int64_t windows = (extent - size) / step + 1;
  std::vector<int64_t> positions;
  for (int64_t w = 0; w < windows; ++w)
    for (int64_t i = 0; i < size; ++i)
      positions.push_back(w * step + i);
  ir::HostTensor index{DType::I64, {windows * size},
                       std::vector<uint8_t>(positions.size() * sizeof(int64_t))};
  std::memcpy(index.bytes.data(), positions.data(), index.bytes.size());
  Value *indices = generatedConstant(node,
                                     "unfold_" + std::to_string(extent) + "_size" +
                                         std::to_string(size) + "_step" + std::to_string(step),
                                     std::move(index));
  AttrMap select;
  select.set("dim", dim);
  TC_ASSIGN_OR_RETURN(Value * gathered,
                      node.emitInferred(OpKind::IndexSelect, {x, indices}, std::move(select)));
  ir::Shape split = gathered->type().shape;
  split[static_cast<size_t>(dim)] = ir::Dim(windows);
  split.insert(split.begin() + dim + 1, ir::Dim(size));
  TC_ASSIGN_OR_RETURN(Value * windowed, reshapeTo(node, gathered, split));
  std::vector<int64_t> order;
  for (int64_t d = 0; d <= rank; ++d)
    if (d != dim + 1)
      order.push_back(d);
  order.push_back(dim + 1);
  return permuteTo(node, windowed, order);
}

ir::HostTensor floatVector(const std::vector<double> &values) {
  ir::HostTensor tensor{DType::F32, {static_cast<int64_t>(values.size())},
                        std::vector<uint8_t>(values.size() * sizeof(float))};
  for (size_t i = 0; i < values.size(); ++i) {
    float value = static_cast<float>(values[i]);
    std::memcpy(tensor.bytes.data() + i * sizeof(float), &value, sizeof(float));
  }
  return tensor;
}

} // namespace

Status importUnfold(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(int64_t dim, node.intArg("dimension"));
  TC_ASSIGN_OR_RETURN(int64_t size, node.intArg("size"));
  TC_ASSIGN_OR_RETURN(int64_t step, node.intArg("step"));
  if (self->type().rank() == 0) {
    // A 0-d tensor unfolds as one element: a window of size 1 (or 0) and no window dim.
    if (size < 0 || size > 1 || step < 1)
      return invalidInput("node '" + node.name() + "': unfold of a 0-d tensor with size " +
                          std::to_string(size) + " and step " + std::to_string(step) +
                          " (size 0 or 1, step >= 1)");
    AttrMap attrs;
    attrs.set("shape", ir::makeDimsAttr(std::vector<ir::Dim>{ir::Dim(1)}));
    TC_ASSIGN_OR_RETURN(Value * one, node.emitInferred(OpKind::Reshape, {self}, std::move(attrs)));
    AttrMap slice;
    slice.set("dim", int64_t{0});
    slice.set("start", int64_t{0});
    slice.set("end", ir::makeDimAttr(ir::Dim(size)));
    slice.set("step", int64_t{1});
    TC_ASSIGN_OR_RETURN(Value * result, node.emitInferred(OpKind::Slice, {one}, std::move(slice)));
    return bindRealOutput(node, 0, result);
  }
  TC_ASSIGN_OR_RETURN(dim, normalizedDim(node, dim, self->type().rank()));
  TC_ASSIGN_OR_RETURN(Value * result, unfoldValue(node, self, dim, size, step));
  return bindRealOutput(node, 0, result);
}

Status importHannWindow(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(int64_t length, node.intArg("window_length"));
  bool periodic = true;
  if (node.schema().findArg("periodic") != nullptr) {
    TC_ASSIGN_OR_RETURN(periodic, node.boolArg("periodic"));
  }
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  if (length < 0)
    return invalidInput("node '" + node.name() + "': hann_window of negative length " +
                        std::to_string(length));
  if (!ir::isFloatingPoint(out.dtype))
    return invalidInput("node '" + node.name() + "': hann_window needs a floating dtype, got " +
                        out.str());
  // 0.5 - 0.5 cos(2 pi i / N), N = length (periodic) or length - 1; a single point is 1.
  std::vector<double> window(static_cast<size_t>(length), 1.0);
  int64_t period = periodic ? length : length - 1;
  if (length > 1)
    for (int64_t i = 0; i < length; ++i)
      window[static_cast<size_t>(i)] =
          0.5 - 0.5 * std::cos(2.0 * std::numbers::pi * static_cast<double>(i) /
                               static_cast<double>(period));
  Value *constant = generatedConstant(
      node, "hann_window_" + std::to_string(length) + (periodic ? "_periodic" : "_symmetric"),
      floatVector(window));
  TC_ASSIGN_OR_RETURN(Value * copy,
                      node.emitInferred(OpKind::Copy, {node.castTo(constant, out.dtype)}));
  return bindRealOutput(node, 0, copy);
}

Status importStft(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(int64_t nFft, node.intArg("n_fft"));
  TC_ASSIGN_OR_RETURN(std::optional<int64_t> hopArg, node.optionalInt("hop_length"));
  TC_ASSIGN_OR_RETURN(std::optional<int64_t> winArg, node.optionalInt("win_length"));
  TC_ASSIGN_OR_RETURN(Value * window, node.optionalTensor("window"));
  TC_ASSIGN_OR_RETURN(bool normalized, node.boolArg("normalized"));
  std::optional<bool> onesided;
  if (!node.isNone("onesided")) {
    TC_ASSIGN_OR_RETURN(onesided, node.boolArg("onesided"));
  }
  if (!node.isNone("align_to_window")) {
    TC_ASSIGN_OR_RETURN(bool align, node.boolArg("align_to_window"));
    if (align)
      return node.unsupportedFeature("stft with align_to_window=True");
  }
  if (isComplexValue(node.state(), self) ||
      (window != nullptr && isComplexValue(node.state(), window)))
    return node.unsupportedFeature("stft of a complex signal or with a complex window");
  int64_t rank = self->type().rank();
  if (rank != 1 && rank != 2)
    return invalidInput("node '" + node.name() + "': stft of a " + self->type().str() +
                        " signal (expected 1-d or 2-d)");
  int64_t hop = hopArg.value_or(nFft / 4);
  int64_t winLength = winArg.value_or(nFft);
  if (nFft < 1 || hop < 1 || winLength < 1 || winLength > nFft)
    return invalidInput("node '" + node.name() + "': stft with n_fft " + std::to_string(nFft) +
                        ", hop_length " + std::to_string(hop) + ", win_length " +
                        std::to_string(winLength));
  Value *signal = node.castTo(self, DType::F32);
  if (node.schema().findArg("center") != nullptr) {
    TC_ASSIGN_OR_RETURN(bool center, node.boolArg("center"));
    TC_ASSIGN_OR_RETURN(std::optional<std::string> padMode, node.optionalString("pad_mode"));
    if (center) {
      std::vector<int64_t> pads(static_cast<size_t>(2 * rank), 0);
      pads[pads.size() - 2] = nFft / 2;
      pads[pads.size() - 1] = nFft / 2;
      AttrMap attrs;
      attrs.set("mode", padMode.value_or("reflect"));
      attrs.set("pads", pads);
      attrs.set("value", 0.0);
      TC_ASSIGN_OR_RETURN(signal, node.emitInferred(OpKind::Pad, {signal}, std::move(attrs)));
    }
  }
  // Frames [.., frames, n_fft], windowed (a window shorter than n_fft is centered in zeros).
  TC_ASSIGN_OR_RETURN(Value * frames, unfoldValue(node, signal, rank - 1, nFft, hop));
  if (window != nullptr || winLength < nFft) {
    if (window == nullptr) {
      window = generatedConstant(node, "rectangular_window_" + std::to_string(winLength),
                                 floatVector(std::vector<double>(static_cast<size_t>(winLength),
                                                                 1.0)));
    }
    if (!(window->type().shape == ir::Shape{ir::Dim(winLength)}))
      return invalidInput("node '" + node.name() + "': stft window " + window->type().str() +
                          " does not have win_length " + std::to_string(winLength) + " points");
    window = node.castTo(window, DType::F32);
    if (winLength < nFft) {
      int64_t left = (nFft - winLength) / 2;
      AttrMap attrs;
      attrs.set("mode", std::string("constant"));
      attrs.set("pads", std::vector<int64_t>{left, nFft - winLength - left});
      attrs.set("value", 0.0);
      TC_ASSIGN_OR_RETURN(window, node.emitInferred(OpKind::Pad, {window}, std::move(attrs)));
    }
    TC_ASSIGN_OR_RETURN(frames, node.emitInferred(OpKind::Mul, {frames, window}));
  }
  bool oneSided = onesided.value_or(true);
  TC_ASSIGN_OR_RETURN(Signal spectrum,
                      transformSignal(node, Signal{frames, false},
                                      {rank, DftKind::RealToComplex, nFft,
                                       oneSided ? nFft / 2 + 1 : nFft, false,
                                       normalized ? Normalization::ByRootN
                                                  : Normalization::None}));
  // [.., frames, freq, 2] -> [.., freq, frames, 2].
  std::vector<int64_t> order;
  for (int64_t d = 0; d < rank - 1; ++d)
    order.push_back(d);
  order.push_back(rank);
  order.push_back(rank - 1);
  order.push_back(rank + 1);
  TC_ASSIGN_OR_RETURN(Value * result, permuteTo(node, spectrum.value, order));
  if (node.isComplexOutput(0))
    return bindComplexOutput(node, 0, result);
  return bindRealOutput(node, 0, result); // return_complex=False: the pairs as a real tensor
}

namespace {

// clang-format off
constexpr Converter kConverters[] = {
    // signal processing (the DFTs are in the complex table: frontend/aten/complex.cpp)
    {"aten.hann_window.default", importHannWindow},
    {"aten.hann_window.periodic", importHannWindow},
    {"aten.unfold.default", importUnfold},
};
// clang-format on

} // namespace

std::span<const Converter> fftConverters() { return kConverters; }

} // namespace thunderc::frontend
