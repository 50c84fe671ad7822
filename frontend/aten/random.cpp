// The random-number ops (see aten/random.h). Each random op gets the next stream number of
// the import (ImportState::nextRandomStream), so that no two draw the same numbers.
#include "frontend/aten/random.h"

#include <string>

namespace thunderc::frontend {
namespace {

/// A random op reads the context's generator: an explicit torch.Generator cannot be honoured.
Status checkDefaultGenerator(NodeImport &node) {
  if (node.schema().findArg("generator") == nullptr || node.isNone("generator"))
    return Status::success();
  return node.unsupportedFeature("an explicit torch.Generator (bundles seed their random numbers "
                                 "per context: <name>_context_set_seed)");
}

AttrMap randomAttributes(NodeImport &node, const std::string &distribution) {
  AttrMap attrs;
  attrs.set("distribution", distribution);
  // A plain counter: one stream per random node, in import order.
  attrs.set("stream", node.state().nextRandomStream++);
  return attrs;
}

Status emitRandom(NodeImport &node, const std::string &distribution) {
  TC_TRY(checkDefaultGenerator(node));
  TC_ASSIGN_OR_RETURN(ir::TensorType type, node.outputType(0));
  if (!ir::isFloatingPoint(type.dtype))
    return invalidInput("node '" + node.name() + "': " + distribution +
                        " random numbers need a floating dtype, got " + type.str());
  TC_ASSIGN_OR_RETURN(ir::Node * emitted,
                      node.emit(OpKind::Random, {}, randomAttributes(node, distribution)));
  (void)emitted;
  return Status::success();
}

} // namespace

Status importRand(NodeImport &node) { return emitRandom(node, "uniform"); }
Status importRandn(NodeImport &node) { return emitRandom(node, "normal"); }

Status importRandint(NodeImport &node) {
  TC_TRY(checkDefaultGenerator(node));
  int64_t low = 0;
  if (node.schema().findArg("low") != nullptr) {
    TC_ASSIGN_OR_RETURN(low, node.intArg("low"));
  }
  TC_ASSIGN_OR_RETURN(int64_t high, node.intArg("high"));
  if (high <= low)
    return invalidInput("node '" + node.name() + "': randint needs low < high, got low " +
                        std::to_string(low) + " and high " + std::to_string(high));
  AttrMap attrs = randomAttributes(node, "integer");
  attrs.set("low", low);
  attrs.set("high", high);
  TC_ASSIGN_OR_RETURN(ir::Node * emitted, node.emit(OpKind::Random, {}, std::move(attrs)));
  (void)emitted;
  return Status::success();
}

Status importRandperm(NodeImport &node) {
  TC_TRY(checkDefaultGenerator(node));
  TC_ASSIGN_OR_RETURN(ir::TensorType type, node.outputType(0));
  if (type.rank() != 1)
    return invalidInput("node '" + node.name() + "': randperm result must have rank 1, got " +
                        type.str());
  ir::TensorType keysType{DType::I64, type.shape};
  AttrMap attrs = randomAttributes(node, "integer");
  attrs.set("low", int64_t{0});
  attrs.set("high", int64_t{1} << 53);
  Value *keys = node.emitTemp(OpKind::Random, {}, keysType, std::move(attrs));
  AttrMap sortAttrs;
  sortAttrs.set("descending", false);
  sortAttrs.set("dim", int64_t{0});
  std::vector<Value *> sorted =
      node.emitTemps(OpKind::Sort, {keys}, {keysType, keysType}, std::move(sortAttrs));
  Value *permutation = node.castTo(sorted[1], type.dtype);
  permutation->setName(node.outputName(0));
  node.bindOutput(0, permutation);
  return Status::success();
}

} // namespace thunderc::frontend
