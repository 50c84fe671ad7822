// Inference batch_norm folded into the preceding conv2d. Algorithm:
//   1. Walk a snapshot of the nodes in order. A batch_norm qualifies when its input is a
//      conv2d result read by nothing else (not a graph output either), every weight operand
//      of both (conv weight and bias; mean, var, gamma, beta) is a weight input or an
//      operand-less full/arange, and those operands have static types of the conv's floating
//      dtype, the parameters being [O] for the conv's O output channels.
//   2. Just before the batch_norm, emit the weight arithmetic (in f32 for f16/bf16 convs, so
//      the folded weights round once, then cast back):
//        scale = gamma * rsqrt(var + full(eps))          [O]        (rsqrt alone without gamma)
//        w'    = w * reshape(scale, [O,1,1,1])           [O,C/g,kH,kW]
//        b'    = (b - mean) * scale + beta               [O]        (neg(mean) without b)
//      Per-output-channel scaling is right for any `groups` (depthwise convs included).
//   3. Emit conv2d(x, w', b') with the conv's attributes; the batch_norm's users read it; the
//      batch_norm and the old conv are erased. The new conv takes the old conv's node name,
//      SSA name and source, since it is that convolution (messages and reports about it name
//      aten.convolution); the arithmetic nodes take the batch_norm's, since they compute it.
//   4. Report a change iff a batch_norm was folded. fold-constants then turns w' and b' into
//      weights; with no weight data (text IR) they stay as run-time nodes, still correct.
// The new nodes go right before the batch_norm rather than before the conv: every operand is
// defined there (a full feeding the batch_norm may come after the conv).
#include "optimizer/fold_batchnorm.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/op_attributes.h"

namespace thunderc::opt {
namespace {

bool isWeightLike(const ir::Value *value) {
  if (value->isGraphInput())
    return value->inputKind() != ir::InputKind::User &&
           value->inputKind() != ir::InputKind::State;
  const ir::Node &producer = *value->producer();
  return (producer.op() == ir::OpKind::Full || producer.op() == ir::OpKind::Arange) &&
         producer.numOperands() == 0;
}

/// A batch_norm over a conv2d, with its operands by role; nullptr for absent ones.
struct ConvBatchNorm {
  ir::Node *batchNorm = nullptr;
  ir::Node *conv = nullptr;
  ir::Value *input = nullptr;
  ir::Value *weight = nullptr;
  ir::Value *bias = nullptr;
  ir::Value *mean = nullptr;
  ir::Value *var = nullptr;
  ir::Value *gamma = nullptr;
  ir::Value *beta = nullptr;
  int64_t channels = 0;
};

/// A static [channels] operand of `dtype` (or an absent optional one).
bool isChannelVector(const ir::Value *value, ir::DType dtype, int64_t channels) {
  if (value == nullptr)
    return true;
  const ir::TensorType &type = value->type();
  return type.dtype == dtype && type.rank() == 1 && type.shape[0].isStatic() &&
         type.shape[0].value() == channels;
}

ir::Value *optionalOperand(const ir::Node &node, int index) {
  return index < node.numOperands() ? node.operand(index) : nullptr;
}

/// Step 1: the match, or nullopt when `node` is not a foldable batch_norm.
std::optional<ConvBatchNorm> matchConvBatchNorm(const ir::Graph &graph, ir::Node &node) {
  if (node.op() != ir::OpKind::BatchNorm)
    return std::nullopt;
  ir::Value *convResult = node.operand(0);
  if (convResult->isGraphInput() || convResult->producer()->op() != ir::OpKind::Conv2d)
    return std::nullopt;
  if (convResult->uses().size() != 1 || graph.isOutput(convResult))
    return std::nullopt;
  ir::Node &conv = *convResult->producer();
  ConvBatchNorm match{&node,
                      &conv,
                      conv.operand(0),
                      conv.operand(1),
                      optionalOperand(conv, 2),
                      node.operand(1),
                      node.operand(2),
                      optionalOperand(node, 3),
                      optionalOperand(node, 4)};
  for (const ir::Value *weight : {match.weight, match.bias, match.mean, match.var, match.gamma,
                                  match.beta})
    if (weight != nullptr && !isWeightLike(weight))
      return std::nullopt;

  ir::DType dtype = convResult->type().dtype;
  const ir::TensorType &weightType = match.weight->type();
  if (!ir::isFloatingPoint(dtype) || weightType.dtype != dtype || weightType.rank() != 4 ||
      !weightType.isStatic() || !(node.result()->type() == convResult->type()))
    return std::nullopt;
  match.channels = weightType.shape[0].value();
  for (const ir::Value *vector : {match.bias, match.mean, match.var, match.gamma, match.beta})
    if (!isChannelVector(vector, dtype, match.channels))
      return std::nullopt;
  return match;
}

/// Emits the new nodes of one fold just before the batch_norm, with unique SSA names
/// "<batch_norm's name>_<role>".
class FoldEmitter {
public:
  FoldEmitter(ir::Graph &graph, std::set<std::string> &usedNames, ir::Node &batchNorm)
      : graph_(graph), usedNames_(usedNames), batchNorm_(batchNorm),
        baseName_(batchNorm.result()->name().empty() ? "batch_norm"
                                                      : batchNorm.result()->name()) {}

  ir::Value *emit(ir::OpKind op, std::vector<ir::Value *> operands, ir::TensorType type,
                  const std::string &role, ir::AttrMap attrs = {}) {
    ir::Node *node =
        graph_.insertNodeBefore(&batchNorm_, op, std::move(operands), {std::move(type)},
                                std::move(attrs));
    node->setName(batchNorm_.name());
    node->source() = batchNorm_.source();
    node->result()->setName(uniqueName(baseName_ + "_" + role));
    return node->result();
  }

  ir::Value *cast(ir::Value *value, ir::DType dtype) {
    if (value == nullptr || value->type().dtype == dtype)
      return value;
    ir::AttrMap attrs;
    attrs.set("dtype", dtype);
    return emit(ir::OpKind::Cast, {value}, {dtype, value->type().shape}, "cast", attrs);
  }

  std::string uniqueName(const std::string &base) {
    std::string name = base;
    for (int suffix = 1; usedNames_.count(name); ++suffix)
      name = base + "_" + std::to_string(suffix);
    usedNames_.insert(name);
    return name;
  }

private:
  ir::Graph &graph_;
  std::set<std::string> &usedNames_;
  ir::Node &batchNorm_;
  std::string baseName_;
};

/// Steps 2 and 3.
void fold(ir::Graph &graph, std::set<std::string> &usedNames, const ConvBatchNorm &match) {
  FoldEmitter out(graph, usedNames, *match.batchNorm);
  ir::DType dtype = match.weight->type().dtype;
  ir::DType compute =
      dtype == ir::DType::F16 || dtype == ir::DType::BF16 ? ir::DType::F32 : dtype;
  ir::TensorType vectorType{compute, {ir::Dim(match.channels)}};
  ir::TensorType weightType{compute, match.weight->type().shape};
  ir::TensorType scalarType{compute, {}};

  ir::AttrMap epsAttrs;
  epsAttrs.set("value", ir::attr::eps(*match.batchNorm));
  ir::Value *eps = out.emit(ir::OpKind::Full, {}, scalarType, "eps", epsAttrs);
  ir::Value *shifted = out.emit(ir::OpKind::Add, {out.cast(match.var, compute), eps}, vectorType,
                                "var_eps");
  ir::Value *scale = out.emit(ir::OpKind::Rsqrt, {shifted}, vectorType, "inv_std");
  if (match.gamma != nullptr)
    scale = out.emit(ir::OpKind::Mul, {out.cast(match.gamma, compute), scale}, vectorType,
                     "scale");
  ir::AttrMap reshapeAttrs;
  reshapeAttrs.set("shape", std::vector<int64_t>{match.channels, 1, 1, 1});
  ir::Value *scaleOihw =
      out.emit(ir::OpKind::Reshape, {scale},
               {compute, {ir::Dim(match.channels), ir::Dim(1), ir::Dim(1), ir::Dim(1)}},
               "scale_oihw", reshapeAttrs);
  ir::Value *weight = out.emit(ir::OpKind::Mul, {out.cast(match.weight, compute), scaleOihw},
                               weightType, "weight");

  ir::Value *mean = out.cast(match.mean, compute);
  ir::Value *centered =
      match.bias != nullptr
          ? out.emit(ir::OpKind::Sub, {out.cast(match.bias, compute), mean}, vectorType,
                     "bias_centered")
          : out.emit(ir::OpKind::Neg, {mean}, vectorType, "bias_centered");
  ir::Value *bias = out.emit(ir::OpKind::Mul, {centered, scale}, vectorType,
                             match.beta != nullptr ? "bias_scaled" : "bias");
  if (match.beta != nullptr)
    bias = out.emit(ir::OpKind::Add, {bias, out.cast(match.beta, compute)}, vectorType, "bias");
  weight = out.cast(weight, dtype);
  bias = out.cast(bias, dtype);

  ir::Value *convResult = match.conv->result();
  ir::AttrMap convAttrs = match.conv->attrs();
  convAttrs.erase(ir::kArenaOffsetsAttr);
  ir::Node *conv = graph.insertNodeBefore(match.batchNorm, ir::OpKind::Conv2d,
                                          {match.input, weight, bias}, {convResult->type()},
                                          std::move(convAttrs));
  conv->setName(match.conv->name());
  conv->source() = match.conv->source();
  std::string convName = convResult->name();
  graph.replaceAllUsesWith(match.batchNorm->result(), conv->result());
  graph.eraseNode(match.batchNorm);
  graph.eraseNode(match.conv);
  conv->result()->setName(convName);
}

class FoldBatchnormPass final : public Pass {
public:
  std::string_view name() const override { return "fold-batchnorm"; }

  Expected<bool> run(ir::Graph &graph, PassContext &context) override {
    std::vector<ir::Node *> order;
    std::set<std::string> usedNames;
    for (const auto &input : graph.inputs())
      usedNames.insert(input->name());
    for (const auto &node : graph.nodes()) {
      order.push_back(node.get());
      for (int i = 0; i < node->numResults(); ++i)
        usedNames.insert(node->result(i)->name());
    }
    int64_t folded = 0;
    for (ir::Node *node : order) {
      std::optional<ConvBatchNorm> match = matchConvBatchNorm(graph, *node);
      if (!match)
        continue;
      fold(graph, usedNames, *match);
      ++folded;
    }
    if (folded == 0)
      return false;
    context.statistics["fold-batchnorm.folded"] += folded;
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> createFoldBatchnormPass() { return std::make_unique<FoldBatchnormPass>(); }

} // namespace thunderc::opt
