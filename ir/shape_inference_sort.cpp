// Shape functions of sort (values and i64 indices shaped like the operand) and embedding_bag
// ([bags, embedding dim] from the weight and the offsets).
#include "ir/shape_inference_internal.h"

namespace thunderc::ir::inference {

Expected<TypeList> inferSort(const TensorType &x, const AttrMap &attrs) {
  TC_TRY(normalizeDimWrapScalar(attr::dim(attrs), x.rank()));
  return TypeList{x, TensorType{DType::I64, x.shape}};
}

Expected<TensorType> inferEmbeddingBag(const TypeList &operands, const AttrMap &attrs) {
  const TensorType &weight = operands[0];
  const TensorType &indices = operands[1];
  const TensorType &offsets = operands[2];
  TC_TRY(requireRank(OpKind::EmbeddingBag, "weight", weight, 2, 2));
  TC_TRY(requireFloating(OpKind::EmbeddingBag, weight));
  TC_TRY(requireRank(OpKind::EmbeddingBag, "indices", indices, 1, 1));
  TC_TRY(requireRank(OpKind::EmbeddingBag, "offsets", offsets, 1, 1));
  if (indices.dtype != DType::I64 && indices.dtype != DType::I32)
    return invalidInput("embedding_bag indices must be i64 or i32, got " + indices.str());
  if (offsets.dtype != indices.dtype)
    return invalidInput("embedding_bag offsets " + offsets.str() + " and indices " +
                        indices.str() + " differ in dtype");
  const std::string &mode = attr::mode(attrs);
  if (mode != "sum" && mode != "mean" && mode != "max")
    return invalidInput("embedding_bag mode must be sum, mean or max, got '" + mode + "'");
  if (operands.size() == 4) {
    const TensorType &weights = operands[3];
    if (mode != "sum")
      return invalidInput("embedding_bag per_sample_weights need mode sum, got '" + mode + "'");
    TC_TRY(requireSameDType(weight, weights));
    if (weights.rank() != 1 || !mayBeEqual(weights.shape[0], indices.shape[0]))
      return invalidInput("embedding_bag per_sample_weights " + weights.str() +
                          " must be shaped like the indices " + indices.str());
  }
  Dim bags = offsets.shape[0];
  if (attr::include_last_offset(attrs)) {
    if (bags == Dim(0))
      return invalidInput("embedding_bag with include_last_offset needs at least one offset");
    bags = bags.isStatic() ? Dim(bags.value() - 1)
                           : Dim(addLikeTerms(bags.expr(), SymExpr::constant(-1)));
  }
  return TensorType{weight.dtype, Shape{bags, weight.shape[1]}};
}

} // namespace thunderc::ir::inference
