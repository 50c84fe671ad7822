// Converters of sorting, embedding bags and pairwise distances (aten/converters.h).
#include "frontend/aten/converters.h"

#include <cmath>
#include <limits>

#include "ir/shape_inference.h"

namespace thunderc::frontend {
namespace {

/// The sort op's (values, indices) of self along `dim` (already normalized).
std::vector<Value *> emitSortOp(NodeImport &node, Value *self, int64_t dim, bool descending) {
  AttrMap attrs;
  attrs.set("descending", descending);
  attrs.set("dim", dim);
  ir::TensorType indices{DType::I64, self->type().shape};
  return node.emitTemps(OpKind::Sort, {self}, {self->type(), indices}, std::move(attrs));
}

/// value[start : start + count] along dim, a slice view.
Value *sliceAlong(NodeImport &node, Value *value, int64_t dim, int64_t start,
                  const ir::Dim &count) {
  ir::TensorType type = value->type();
  type.shape[static_cast<size_t>(dim)] = count;
  AttrMap attrs;
  attrs.set("dim", dim);
  attrs.set("end", ir::makeDimAttr(count.isStatic() ? ir::Dim(start + count.value())
                                                    : ir::Dim(count.asExpr())));
  attrs.set("start", start);
  attrs.set("step", int64_t{1});
  return node.emitTemp(OpKind::Slice, {value}, std::move(type), std::move(attrs));
}

void bindNamed(NodeImport &node, int index, Value *value) {
  if (value->name().empty())
    value->setName(node.outputName(index));
  node.bindOutput(index, value);
}

Expected<int64_t> sortDim(NodeImport &node, const char *arg, Value *self) {
  TC_ASSIGN_OR_RETURN(int64_t dim, node.intArg(arg));
  return normalizedDim(node, dim, self->type().rank());
}

} // namespace

/// sort.default and sort.stable: the sort op (always stable, which the default allows).
Status importSort(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(int64_t dim, sortDim(node, "dim", self));
  TC_ASSIGN_OR_RETURN(bool descending, node.boolArg("descending"));
  AttrMap attrs;
  attrs.set("descending", descending);
  attrs.set("dim", dim);
  TC_ASSIGN_OR_RETURN(ir::Node * emitted, node.emit(OpKind::Sort, {self}, std::move(attrs), 2));
  (void)emitted;
  return Status::success();
}

/// argsort.default and argsort.stable (training IR): the sort op's indices.
Status importArgsort(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(int64_t dim, sortDim(node, "dim", self));
  TC_ASSIGN_OR_RETURN(bool descending, node.boolArg("descending"));
  bindNamed(node, 0, emitSortOp(node, self, dim, descending)[1]);
  return Status::success();
}

/// msort.default (training IR): the sort op's values along dim 0.
Status importMsort(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(int64_t dim, normalizedDim(node, 0, self->type().rank()));
  bindNamed(node, 0, emitSortOp(node, self, dim, false)[0]);
  return Status::success();
}

/// topk.default: sort (descending for largest) and the first k along dim. sorted=False allows
/// any order, so the sorted one is right too.
Status importTopk(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(int64_t dim, sortDim(node, "dim", self));
  TC_ASSIGN_OR_RETURN(bool largest, node.boolArg("largest"));
  TC_ASSIGN_OR_RETURN(std::optional<ir::Dim> k, node.optionalSymInt("k"));
  if (!k)
    return invalidInput("topk k is None in node '" + node.name() + "'");
  ir::Dim extent = self->type().rank() == 0 ? ir::Dim(1) : self->type().shape[static_cast<size_t>(dim)];
  if (k->isStatic() && (k->value() < 0 || (extent.isStatic() && k->value() > extent.value())))
    return invalidInput("topk k " + std::to_string(k->value()) + " is out of range: the dim " +
                        "has " + extent.str() + " elements, in node '" + node.name() + "'");
  std::vector<Value *> sorted = emitSortOp(node, self, dim, largest);
  for (int i = 0; i < 2; ++i) {
    Value *result = sorted[static_cast<size_t>(i)];
    if (self->type().rank() > 0 && !(*k == extent))
      result = sliceAlong(node, result, dim, 0, *k);
    bindNamed(node, i, result);
  }
  return Status::success();
}

/// kthvalue.default: the (k-1)-th of an ascending sort along dim, kept as a size-1 dim with
/// keepdim.
Status importKthvalue(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(int64_t dim, sortDim(node, "dim", self));
  TC_ASSIGN_OR_RETURN(int64_t k, node.intArg("k"));
  TC_ASSIGN_OR_RETURN(bool keepdim, node.boolArg("keepdim"));
  int64_t rank = self->type().rank();
  ir::Dim extent = rank == 0 ? ir::Dim(1) : self->type().shape[static_cast<size_t>(dim)];
  if (k < 1 || (extent.isStatic() && k > extent.value()))
    return invalidInput("kthvalue k " + std::to_string(k) + " is out of range: the dim has " +
                        extent.str() + " elements, in node '" + node.name() + "'");
  std::vector<Value *> sorted = emitSortOp(node, self, dim, false);
  for (int i = 0; i < 2; ++i) {
    Value *result = sorted[static_cast<size_t>(i)];
    if (rank > 0) {
      result = sliceAlong(node, result, dim, k - 1, ir::Dim(1));
      if (!keepdim) {
        AttrMap attrs;
        attrs.set("dims", std::vector<int64_t>{dim});
        TC_ASSIGN_OR_RETURN(result, node.emitInferred(OpKind::Squeeze, {result}, std::move(attrs)));
      }
    }
    bindNamed(node, i, result);
  }
  return Status::success();
}

/// _embedding_bag, _embedding_bag_forward_only, embedding_bag and embedding_bag.padding_idx:
/// the embedding_bag op for the first output (the others, used only by gradients, must be
/// unused).
Status importEmbeddingBag(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * weight, node.tensor("weight"));
  TC_ASSIGN_OR_RETURN(Value * indices, node.tensor("indices"));
  TC_ASSIGN_OR_RETURN(Value * offsets, node.tensor("offsets"));
  TC_ASSIGN_OR_RETURN(int64_t mode, node.intArg("mode"));
  TC_ASSIGN_OR_RETURN(bool includeLast, node.boolArg("include_last_offset"));
  TC_ASSIGN_OR_RETURN(Value * perSample, node.optionalTensor("per_sample_weights"));
  int64_t padding = -1;
  if (node.schema().findArg("padding_idx") != nullptr) {
    TC_ASSIGN_OR_RETURN(std::optional<int64_t> given, node.optionalInt("padding_idx"));
    padding = given.value_or(-1);
    // embedding_bag.padding_idx wraps a negative padding_idx; _embedding_bag takes -1 as none.
    bool wraps = node.schema().name == "embedding_bag";
    const ir::Dim &rows = weight->type().shape.at(0);
    if (wraps && given && padding < 0 && rows.isStatic())
      padding += rows.value();
  }
  static const char *const kModes[] = {"sum", "mean", "max"};
  if (mode < 0 || mode > 2)
    return invalidInput("embedding_bag mode " + std::to_string(mode) +
                        " is not 0 (sum), 1 (mean) or 2 (max), in node '" + node.name() + "'");
  std::vector<Value *> operands{weight, indices, node.castTo(offsets, indices->type().dtype)};
  if (perSample != nullptr)
    operands.push_back(node.castTo(perSample, weight->type().dtype));
  AttrMap attrs;
  attrs.set("include_last_offset", includeLast);
  attrs.set("mode", std::string(kModes[mode]));
  attrs.set("padding_idx", padding);
  TC_ASSIGN_OR_RETURN(ir::Node * emitted,
                      node.emit(OpKind::EmbeddingBag, std::move(operands), std::move(attrs)));
  (void)emitted;
  return Status::success();
}

namespace {

Expected<Value *> reduceLast(NodeImport &node, OpKind op, Value *x) {
  AttrMap attrs;
  attrs.set("dims", std::vector<int64_t>{x->type().rank() - 1});
  attrs.set("keepdim", false);
  return node.emitInferred(op, {x}, std::move(attrs));
}

/// ||a[.., i, :] - b[.., j, :]||_p for a [.., P, M] and b [.., R, M]: the differences over
/// [.., P, R, M] (which fusion folds into the reduction's prologue) reduced over M, like
/// PyTorch's direct kernel: p = 0 counts the nonzero differences, p = inf takes the largest.
Expected<Value *> directDistance(NodeImport &node, Value *a, Value *b, double p) {
  DType dtype = a->type().dtype;
  AttrMap rows;
  rows.set("dim", a->type().rank() - 1); // [.., P, 1, M]
  TC_ASSIGN_OR_RETURN(Value * left, node.emitInferred(OpKind::Unsqueeze, {a}, rows));
  AttrMap columns;
  columns.set("dim", b->type().rank() - 2); // [.., 1, R, M]
  TC_ASSIGN_OR_RETURN(Value * right, node.emitInferred(OpKind::Unsqueeze, {b}, columns));
  TC_ASSIGN_OR_RETURN(Value * diff, node.emitInferred(OpKind::Sub, {left, right}));
  if (p == 0) {
    TC_ASSIGN_OR_RETURN(Value * nonzero,
                        node.emitInferred(OpKind::Ne, {diff, node.scalarConstant(0, dtype)}));
    return reduceLast(node, OpKind::Sum, node.castTo(nonzero, dtype));
  }
  if (p == 2) {
    TC_ASSIGN_OR_RETURN(Value * square, node.emitInferred(OpKind::Mul, {diff, diff}));
    TC_ASSIGN_OR_RETURN(Value * sum, reduceLast(node, OpKind::Sum, square));
    return node.emitInferred(OpKind::Sqrt, {sum});
  }
  TC_ASSIGN_OR_RETURN(Value * magnitude, node.emitInferred(OpKind::Abs, {diff}));
  if (p == 1)
    return reduceLast(node, OpKind::Sum, magnitude);
  if (std::isinf(p))
    return reduceLast(node, OpKind::Amax, magnitude);
  TC_ASSIGN_OR_RETURN(Value * powered, node.emitInferred(OpKind::Pow,
                                                    {magnitude, node.scalarConstant(p, dtype)}));
  TC_ASSIGN_OR_RETURN(Value * sum, reduceLast(node, OpKind::Sum, powered));
  return node.emitInferred(OpKind::Pow, {sum, node.scalarConstant(1.0 / p, dtype)});
}

/// PyTorch's _euclidean_dist: [-2a, |a|^2, 1] @ [b, 1, |b|^2]^T, clamped at 0, square root.
Expected<Value *> productDistance(NodeImport &node, Value *a, Value *b) {
  DType dtype = a->type().dtype;
  auto normAndOne = [&](Value *x) -> Expected<std::pair<Value *, Value *>> {
    TC_ASSIGN_OR_RETURN(Value * square, node.emitInferred(OpKind::Mul, {x, x}));
    AttrMap attrs;
    attrs.set("dims", std::vector<int64_t>{x->type().rank() - 1});
    attrs.set("keepdim", true);
    TC_ASSIGN_OR_RETURN(Value * norm, node.emitInferred(OpKind::Sum, {square}, attrs));
    AttrMap one;
    one.set("value", 1.0);
    Value *ones = node.emitTemp(OpKind::Full, {}, norm->type(), std::move(one));
    return std::make_pair(norm, ones);
  };
  TC_ASSIGN_OR_RETURN(auto left, normAndOne(a));
  TC_ASSIGN_OR_RETURN(auto right, normAndOne(b));
  TC_ASSIGN_OR_RETURN(Value * scaled,
                      node.emitInferred(OpKind::Mul, {a, node.scalarConstant(-2, dtype)}));
  AttrMap last;
  last.set("dim", a->type().rank() - 1);
  TC_ASSIGN_OR_RETURN(Value * lhs,
                      node.emitInferred(OpKind::Concat, {scaled, left.first, left.second}, last));
  TC_ASSIGN_OR_RETURN(Value * rhs,
                      node.emitInferred(OpKind::Concat, {b, right.second, right.first}, last));
  std::vector<int64_t> order;
  for (int64_t d = 0; d < rhs->type().rank(); ++d)
    order.push_back(d);
  std::swap(order[order.size() - 1], order[order.size() - 2]);
  AttrMap permute;
  permute.set("dims", order);
  TC_ASSIGN_OR_RETURN(Value * transposed, node.emitInferred(OpKind::Permute, {rhs}, permute));
  TC_ASSIGN_OR_RETURN(Value * product, node.emitInferred(OpKind::Matmul, {lhs, transposed}));
  AttrMap clamp;
  clamp.set("min", 0.0);
  TC_ASSIGN_OR_RETURN(Value * clamped, node.emitInferred(OpKind::Clamp, {product}, clamp));
  return node.emitInferred(OpKind::Sqrt, {clamped});
}

Expected<double> distanceOrder(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(double p, node.floatArg("p"));
  if (std::isnan(p) || p < 0)
    return invalidInput("the norm order p must be a non-negative number, got " +
                        std::to_string(p) + " in node '" + node.name() + "'");
  return p;
}

} // namespace

/// cdist.default and _cdist_forward.default: elementwise differences reduced over the last
/// dim, or, for p = 2 where PyTorch takes its matrix-product path, that same product.
Status importCdist(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * a, node.tensor("x1"));
  TC_ASSIGN_OR_RETURN(Value * b, node.tensor("x2"));
  TC_ASSIGN_OR_RETURN(double p, distanceOrder(node));
  TC_ASSIGN_OR_RETURN(std::optional<int64_t> computeMode, node.optionalInt("compute_mode"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  if (a->type().rank() < 2 || b->type().rank() < 2)
    return invalidInput("cdist needs inputs of rank 2 or more, got " + a->type().str() + " and " +
                        b->type().str() + " in node '" + node.name() + "'");
  if (!ir::isFloatingPoint(out.dtype))
    return invalidInput("cdist needs floating inputs, got " + a->type().str());
  a = node.castTo(a, out.dtype);
  b = node.castTo(b, out.dtype);
  // PyTorch: compute_mode 0 (None) takes the matrix product for p = 2 when either input has
  // more than 25 rows, 1 always, 2 never. Rows of unknown size take the direct path, the exact
  // one of the two.
  auto manyRows = [](const Value *x) {
    const ir::Dim &rows = x->type().shape[x->type().shape.size() - 2];
    return rows.isStatic() && rows.value() > 25;
  };
  int64_t mode = computeMode.value_or(0);
  bool product = p == 2 && (mode == 1 || (mode == 0 && (manyRows(a) || manyRows(b))));
  Expected<Value *> distance = product ? productDistance(node, a, b) : directDistance(node, a, b, p);
  if (!distance.ok())
    return std::move(distance).error();
  Value *result = distance.value();
  if (!(result->type() == out))
    return invalidInput("cdist of " + a->type().str() + " and " + b->type().str() + " gives " +
                        result->type().str() + ", but the node declares " + out.str());
  bindNamed(node, 0, node.emitTemp(OpKind::Copy, {result}, out));
  return Status::success();
}

/// pdist.default and _pdist_forward.default: the upper triangle of the direct cdist(x, x),
/// picked with an index computed from arange.
Status importPdist(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * x, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(double p, distanceOrder(node));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  if (x->type().rank() != 2 || !ir::isFloatingPoint(x->type().dtype))
    return invalidInput("pdist needs a 2-d floating input, got " + x->type().str() +
                        " in node '" + node.name() + "'");
  const ir::Dim &rowsDim = x->type().shape[0];
  if (!rowsDim.isStatic())
    return node.unsupportedFeature("pdist over a symbolic number of rows");
  int64_t n = rowsDim.value();
  int64_t pairs = n * (n - 1) / 2;
  TC_ASSIGN_OR_RETURN(Value * all, directDistance(node, x, x, p));
  AttrMap flat;
  flat.set("shape", ir::makeDimsAttr({ir::Dim(n * n)}));
  Value *flattened = node.emitTemp(OpKind::Reshape, {all}, ir::TensorType{out.dtype, {n * n}},
                                   std::move(flat));
  // Pair k = (i, j), i < j, in row-major order: row i starts at s(i) = i (2n - i - 1) / 2, so
  // i = floor((2n - 1 - sqrt((2n - 1)^2 - 8k)) / 2) (exact in f64: the square root lands on an
  // integer exactly at the rows' starts and at least 1/(4n) away from one elsewhere) and
  // j = k - s(i) + i + 1; the flat index is i n + j.
  ir::TensorType f64{DType::F64, {pairs}};
  AttrMap range;
  range.set("start", 0.0);
  range.set("step", 1.0);
  Value *k = node.emitTemp(OpKind::Arange, {}, f64, std::move(range));
  auto constant = [&](double value) { return node.scalarConstant(value, DType::F64); };
  auto binary = [&](OpKind op, Value *lhs, Value *rhs) { return node.emitInferred(op, {lhs, rhs}); };
  double edge = 2.0 * static_cast<double>(n) - 1.0;
  TC_ASSIGN_OR_RETURN(Value * eightK, binary(OpKind::Mul, k, constant(8)));
  TC_ASSIGN_OR_RETURN(Value * disc, binary(OpKind::Sub, constant(edge * edge), eightK));
  TC_ASSIGN_OR_RETURN(Value * root, node.emitInferred(OpKind::Sqrt, {disc}));
  TC_ASSIGN_OR_RETURN(Value * twiceRow, binary(OpKind::Sub, constant(edge), root));
  TC_ASSIGN_OR_RETURN(Value * halfRow, binary(OpKind::Mul, twiceRow, constant(0.5)));
  TC_ASSIGN_OR_RETURN(Value * row, node.emitInferred(OpKind::Floor, {halfRow}));
  // flat = i n + (k - i (2n - i - 1) / 2 + i + 1)
  TC_ASSIGN_OR_RETURN(Value * width, binary(OpKind::Sub, constant(edge), row));
  TC_ASSIGN_OR_RETURN(Value * start2, binary(OpKind::Mul, row, width));
  TC_ASSIGN_OR_RETURN(Value * start, binary(OpKind::Mul, start2, constant(0.5)));
  TC_ASSIGN_OR_RETURN(Value * offset, binary(OpKind::Sub, k, start));
  TC_ASSIGN_OR_RETURN(Value * rowScaled, binary(OpKind::Mul, row, constant(static_cast<double>(n + 1))));
  TC_ASSIGN_OR_RETURN(Value * sum, binary(OpKind::Add, offset, rowScaled));
  TC_ASSIGN_OR_RETURN(Value * flatIndex, binary(OpKind::Add, sum, constant(1)));
  AttrMap select;
  select.set("dim", int64_t{0});
  TC_ASSIGN_OR_RETURN(Value * picked,
                      node.emitInferred(OpKind::IndexSelect,
                                   {flattened, node.castTo(flatIndex, DType::I64)}, select));
  bindNamed(node, 0, picked);
  return Status::success();
}

namespace {

// clang-format off
constexpr Converter kConverters[] = {
    {"aten.sort.default", importSort},
    {"aten.sort.stable", importSort},
    {"aten.argsort.default", importArgsort},
    {"aten.argsort.stable", importArgsort},
    {"aten.msort.default", importMsort},
    {"aten.topk.default", importTopk},
    {"aten.kthvalue.default", importKthvalue},
    {"aten._embedding_bag.default", importEmbeddingBag},
    {"aten._embedding_bag_forward_only.default", importEmbeddingBag},
    {"aten.embedding_bag.default", importEmbeddingBag},
    {"aten.embedding_bag.padding_idx", importEmbeddingBag},
    {"aten.cdist.default", importCdist},
    {"aten._cdist_forward.default", importCdist},
    {"aten.pdist.default", importPdist},
    {"aten._pdist_forward.default", importPdist},
};
// clang-format on

} // namespace

std::span<const Converter> sortConverters() { return kConverters; }

} // namespace thunderc::frontend
