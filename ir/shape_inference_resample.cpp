// Result types of pad and upsample, following the ATen meta functions (constant_pad_nd,
// reflection/replication_pad*d, _pad_circular, upsample_*): pads and sizes are checked where
// they are static; symbolic dims are checked by the kernels' index arithmetic, which never
// reads outside the input.
#include <algorithm>

#include "ir/shape_inference.h"
#include "ir/shape_inference_internal.h"

namespace thunderc::ir::inference {
namespace {

bool isPadMode(const std::string &mode) {
  return mode == "constant" || mode == "reflect" || mode == "replicate" || mode == "circular";
}

bool isUpsampleMode(const std::string &mode) {
  return mode == "nearest" || mode == "nearest-exact" || mode == "linear";
}

// PyTorch's per-mode bound on the pads of a non-empty padded dim of static `size`.
Status checkPadAgainstSize(const std::string &mode, int64_t size, int64_t before, int64_t after,
                           size_t dim) {
  std::string where = "pad: mode '" + mode + "' pads [" + std::to_string(before) + ", " +
                      std::to_string(after) + "] of dim " + std::to_string(dim) + " (size " +
                      std::to_string(size) + ")";
  if (mode == "reflect" && (before >= size || after >= size))
    return invalidInput(where + " must be less than the size");
  if (mode == "replicate" && size == 0)
    return invalidInput(where + " cannot pad an empty dim");
  if (mode == "circular" && (before > size || after > size))
    return invalidInput(where + " must be at most the size");
  return Status::success();
}

} // namespace

Expected<TensorType> inferPad(const TensorType &x, const AttrMap &attrs) {
  const std::string &mode = attr::mode(attrs);
  if (!isPadMode(mode))
    return invalidInput("pad mode '" + mode +
                        "' is not one of constant, reflect, replicate, circular");
  std::vector<int64_t> pads = attr::pads(attrs);
  if (pads.size() != 2 * x.shape.size())
    return invalidInput("pad pads " + intsStr(pads) + " must have 2 entries per dim of " +
                        x.str());
  Shape shape = x.shape;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t before = pads[2 * d];
    int64_t after = pads[2 * d + 1];
    if (before == 0 && after == 0)
      continue;
    const Dim &size = x.shape[d];
    if (!size.isStatic()) {
      shape[d] = Dim(addLikeTerms(size.expr(), SymExpr::constant(before + after)));
      continue;
    }
    if (mode != "constant")
      TC_TRY(checkPadAgainstSize(mode, size.value(), before, after, d));
    int64_t padded = size.value() + before + after;
    if (padded < 0)
      return invalidInput("pad pads " + intsStr(pads) + " crop dim " + std::to_string(d) +
                          " of " + x.str() + " to a negative size " + std::to_string(padded));
    shape[d] = Dim(padded);
  }
  return TensorType{x.dtype, std::move(shape)};
}

Expected<TensorType> inferUpsample(const TensorType &x, const AttrMap &attrs) {
  const std::string &mode = attr::mode(attrs);
  if (!isUpsampleMode(mode))
    return invalidInput("upsample mode '" + mode +
                        "' is not one of nearest, nearest-exact, linear");
  if (mode == "linear")
    TC_TRY(requireFloating(OpKind::Upsample, x));
  size_t spatial = attr::scales(attrs).size();
  if (spatial < 1 || spatial > 3)
    return invalidInput("upsample scales must have 1 to 3 entries (one per spatial dim), got " +
                        std::to_string(spatial));
  TC_TRY(requireRank(OpKind::Upsample, "input", x, static_cast<int64_t>(spatial) + 1, -1));
  Shape shape = attr::shape(attrs);
  if (shape.size() != x.shape.size())
    return invalidInput("upsample result shape " + shapeStr(shape) + " differs in rank from " +
                        x.str());
  size_t leading = shape.size() - spatial;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d < leading && !mayBeEqual(shape[d], x.shape[d]))
      return invalidInput("upsample result shape " + shapeStr(shape) +
                          " differs from the input " + x.str() + " outside the spatial dims");
    bool empty = shape[d].isStatic() && shape[d].value() < 1;
    bool emptyInput = x.shape[d].isStatic() && x.shape[d].value() < 1;
    if (d >= leading && (empty || emptyInput))
      return invalidInput("upsample from " + x.str() + " to " + shapeStr(shape) +
                          ": spatial sizes must be positive");
  }
  return TensorType{x.dtype, std::move(shape)};
}

} // namespace thunderc::ir::inference
