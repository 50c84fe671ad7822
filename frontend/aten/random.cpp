// The random-number converters (aten/converters.h). Each random op gets the next stream number of
// the import (ImportState::nextRandomStream), so that no two draw the same numbers.
#include "frontend/aten/converters.h"

#include <string>

namespace thunderc::frontend {

AttrMap randomAttributes(NodeImport &node, const std::string &distribution) {
  AttrMap attrs;
  attrs.set("distribution", distribution);
  // A plain counter: one stream per random node, in import order.
  attrs.set("stream", node.state().nextRandomStream++);
  return attrs;
}

namespace {

/// A random op reads the context's generator: an explicit torch.Generator cannot be honoured.
Status checkDefaultGenerator(NodeImport &node) {
  if (node.schema().findArg("generator") == nullptr || node.isNone("generator"))
    return Status::success();
  return node.unsupportedFeature("an explicit torch.Generator (bundles seed their random numbers "
                                 "per context: <name>_context_set_seed)");
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

/// rand.default / .generator, rand_like.default: random {distribution="uniform"}.
Status importRand(NodeImport &node) { return emitRandom(node, "uniform"); }
/// randn.default / .generator, randn_like.default: random {distribution="normal"}.
Status importRandn(NodeImport &node) { return emitRandom(node, "normal"); }

/// randint.default / .low / .generator / .low_generator, randint_like.default / .low_dtype:
/// random {distribution="integer", low (0 when absent), high}; high <= low is an error.
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

/// randperm.default / .generator: the indices of a stable ascending sort of n random integer
/// keys in [0, 2^53) (exact in the interpreter's doubles; equal keys, which a sort of n keys
/// meets with probability about n^2 / 2^54, keep index order), cast to the result dtype.
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

namespace {

// clang-format off
constexpr Converter kConverters[] = {
    // random numbers (frontend/aten/random.cpp)
    {"aten.rand.default", importRand},
    {"aten.rand.generator", importRand},
    {"aten.rand_like.default", importRand},
    {"aten.randn.default", importRandn},
    {"aten.randn.generator", importRandn},
    {"aten.randn_like.default", importRandn},
    {"aten.randint.default", importRandint},
    {"aten.randint.low", importRandint},
    {"aten.randint.generator", importRandint},
    {"aten.randint.low_generator", importRandint},
    {"aten.randint_like.default", importRandint},
    {"aten.randint_like.low_dtype", importRandint},
    {"aten.randperm.default", importRandperm},
    {"aten.randperm.generator", importRandperm},
};
// clang-format on

} // namespace

std::span<const Converter> randomConverters() { return kConverters; }

} // namespace thunderc::frontend
