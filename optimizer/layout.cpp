// View/layout analysis and the `layout` pass.
//
// computeLayouts walks the graph once, in order. Graph inputs and non-view results own a
// contiguous buffer. A view op computes its result's window from its operand's:
//   permute    strides permuted;
//   expand     stride 0 on broadcast dims (new leading dims and size-1 dims that grow);
//   slice      offset += start * stride[dim], stride[dim] *= step;
//   select     offset += index * stride[dim], the dim dropped;
//   squeeze    the (size-1) dims dropped;  unsqueeze: a size-1 dim inserted;
//   split      piece k: offset += (sizes before k) * stride[dim];
//   flip       offset += (size - 1) * stride[dim], stride[dim] negated, per flipped dim;
//   diagonal   both dims dropped, a last dim of stride stride[dim1] + stride[dim2] appended,
//              offset += offset * stride[dim2] (or -offset * stride[dim1] below the diagonal);
//   reshape    the same storage with contiguous strides when the operand is contiguous;
//              otherwise the reshape needs its own buffer (the pass below prevents that).
// Offsets and strides are symbolic (ir::Dim), so one analysis serves dynamic shapes.
//
// The pass: a consumer that needs a contiguous buffer (a library call, a reshape, a graph
// output) and reads a non-contiguous view gets a `copy` of it, inserted before the first such
// consumer and shared by the later ones. Elementwise ops and fusions read any window, so views
// feeding them stay free.
#include "optimizer/layout.h"

#include <algorithm>

#include "ir/op_attributes.h"

namespace thunderc::opt {
namespace {

ir::Dim mulDims(const ir::Dim &a, const ir::Dim &b) {
  return ir::Dim(ir::SymExpr::mul(a.asExpr(), b.asExpr()));
}

ir::Dim addDims(const ir::Dim &a, const ir::Dim &b) {
  return ir::Dim(ir::SymExpr::add(a.asExpr(), b.asExpr()));
}

std::vector<ir::Dim> contiguousStrides(const ir::Shape &shape) {
  std::vector<ir::Dim> strides(shape.size(), ir::Dim(1));
  ir::Dim running(1);
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = running;
    running = mulDims(running, shape[i]);
  }
  return strides;
}


// The window of view result `resultIndex` of `node` on its operand's window `in`.
ValueLayout viewLayout(const ir::Node &node, int resultIndex, const ValueLayout &in) {
  const ir::AttrMap &attrs = node.attrs();
  const ir::Shape &inShape = node.operand(0)->type().shape;
  const ir::Shape &outShape = node.result(resultIndex)->type().shape;
  ValueLayout out = in;
  switch (node.op()) {
  case ir::OpKind::Permute: {
    out.strides.clear();
    for (int64_t dim : ir::attr::dims(attrs))
      out.strides.push_back(in.strides[static_cast<size_t>(dim)]);
    return out;
  }
  case ir::OpKind::Expand: {
    size_t lead = outShape.size() - inShape.size();
    out.strides.assign(outShape.size(), ir::Dim(0));
    for (size_t i = 0; i < inShape.size(); ++i) {
      bool broadcast = inShape[i] == ir::Dim(1) && !(outShape[i + lead] == ir::Dim(1));
      out.strides[i + lead] = broadcast ? ir::Dim(0) : in.strides[i];
    }
    return out;
  }
  case ir::OpKind::Slice: {
    auto dim = static_cast<size_t>(ir::attr::dim(attrs));
    out.offset = addDims(in.offset, mulDims(ir::Dim(ir::attr::start(attrs)), in.strides[dim]));
    out.strides[dim] = mulDims(in.strides[dim], ir::Dim(ir::attr::step(attrs)));
    return out;
  }
  case ir::OpKind::Select: {
    auto dim = static_cast<size_t>(ir::attr::dim(attrs));
    out.offset = addDims(in.offset, mulDims(ir::Dim(ir::attr::index(attrs)), in.strides[dim]));
    out.strides.erase(out.strides.begin() + static_cast<long>(dim));
    return out;
  }
  case ir::OpKind::Squeeze: {
    out.strides.clear();
    std::vector<int64_t> dims = ir::attr::dims(attrs);
    for (size_t i = 0; i < inShape.size(); ++i)
      if (std::find(dims.begin(), dims.end(), static_cast<int64_t>(i)) == dims.end() ||
          !(inShape[i] == ir::Dim(1)))
        out.strides.push_back(in.strides[i]);
    return out;
  }
  case ir::OpKind::Unsqueeze: {
    auto dim = static_cast<size_t>(ir::attr::dim(attrs));
    out.strides.insert(out.strides.begin() + static_cast<long>(dim), ir::Dim(1));
    return out;
  }
  case ir::OpKind::Split: {
    auto dim = static_cast<size_t>(ir::attr::dim(attrs));
    ir::Dim start(0);
    for (int k = 0; k < resultIndex; ++k)
      start = addDims(start, node.result(k)->type().shape[dim]);
    out.offset = addDims(in.offset, mulDims(start, in.strides[dim]));
    return out;
  }
  case ir::OpKind::Flip: {
    for (int64_t dim : ir::attr::dims(attrs)) {
      auto at = static_cast<size_t>(dim);
      ir::Dim last = inShape[at].isStatic()
                         ? ir::Dim(std::max<int64_t>(inShape[at].value() - 1, 0))
                         : ir::Dim(ir::SymExpr::add(inShape[at].asExpr(), ir::SymExpr::constant(-1)));
      out.offset = addDims(out.offset, mulDims(last, in.strides[at]));
      out.strides[at] = mulDims(ir::Dim(-1), in.strides[at]);
    }
    return out;
  }
  case ir::OpKind::Diagonal: {
    std::vector<int64_t> dims = ir::attr::dims(attrs);
    auto first = static_cast<size_t>(dims[0]);
    auto second = static_cast<size_t>(dims[1]);
    int64_t offset = ir::attr::diagonal(attrs);
    out.strides.clear();
    for (size_t i = 0; i < inShape.size(); ++i)
      if (i != first && i != second)
        out.strides.push_back(in.strides[i]);
    out.strides.push_back(addDims(in.strides[first], in.strides[second]));
    if (!(outShape.back() == ir::Dim(0)))
      out.offset = addDims(in.offset, offset >= 0 ? mulDims(ir::Dim(offset), in.strides[second])
                                                  : mulDims(ir::Dim(-offset), in.strides[first]));
    return out;
  }
  case ir::OpKind::Reshape:
    out.strides = contiguousStrides(outShape);
    return out;
  default:
    TC_CHECK(false, "viewLayout on a non-view op");
  }
}

bool isView(const ir::Node &node) { return ir::hasTrait(node.op(), ir::kView); }

} // namespace

ValueLayout ownLayout(const ir::Value *value) {
  return ValueLayout{value, ir::Dim(0), contiguousStrides(value->type().shape)};
}

bool isContiguous(const ValueLayout &layout, const ir::Shape &shape) {
  ir::Dim expected(1);
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == ir::Dim(1))
      continue;
    if (!(layout.strides[i] == expected))
      return false;
    expected = mulDims(expected, shape[i]);
  }
  return true;
}

std::map<const ir::Value *, ValueLayout> computeLayouts(const ir::Graph &graph) {
  std::map<const ir::Value *, ValueLayout> layouts;
  for (const auto &input : graph.inputs())
    layouts.emplace(input.get(), ownLayout(input.get()));
  for (const auto &node : graph.nodes()) {
    const ValueLayout *in = node->numOperands() > 0 ? &layouts.at(node->operand(0)) : nullptr;
    bool aliases = isView(*node) &&
                   (node->op() != ir::OpKind::Reshape ||
                    isContiguous(*in, node->operand(0)->type().shape));
    for (int r = 0; r < node->numResults(); ++r)
      layouts.emplace(node->result(r),
                      aliases ? viewLayout(*node, r, *in) : ownLayout(node->result(r)));
  }
  return layouts;
}

bool acceptsStridedOperand(const ir::Node &consumer, int index) {
  if (ir::hasTrait(consumer.op(), ir::kElementwise))
    return true;
  if (isView(consumer))
    return consumer.op() != ir::OpKind::Reshape;
  if (consumer.op() != ir::OpKind::Fusion)
    return false;
  if (ir::attr::kind(consumer) != "epilogue")
    return true;
  // An epilogue's library op (its first body node) needs contiguous operands; the elementwise
  // ops after it read any window.
  const ir::Value *input = consumer.body()->input(index);
  const ir::Node &library = *consumer.body()->nodes().front();
  return std::none_of(library.operands().begin(), library.operands().end(),
                      [&](const ir::Value *operand) { return operand == input; });
}

namespace {

class LayoutPass final : public Pass {
public:
  std::string_view name() const override { return "layout"; }

  Expected<bool> run(ir::Graph &graph, PassContext &context) override {
    std::map<const ir::Value *, ValueLayout> layouts = computeLayouts(graph);
    auto needsCopy = [&](const ir::Value *value) {
      return !isContiguous(layouts.at(value), value->type().shape);
    };
    std::map<ir::Value *, ir::Value *> copies; // view -> its contiguous copy
    auto copyOf = [&](ir::Value *value, ir::Node *before) {
      auto [it, inserted] = copies.emplace(value, nullptr);
      if (inserted) {
        ir::Node *copy = before ? graph.insertNodeBefore(before, ir::OpKind::Copy, {value},
                                                         {value->type()})
                                : graph.appendNode(ir::OpKind::Copy, {value}, {value->type()});
        // Shared by every consumer: it runs when the value exists (the producer's guard).
        copy->attrs().erase(ir::kGuardAttr);
        if (value->producer() != nullptr)
          copy->source() = value->producer()->source();
        if (const ir::AttrValue *guard =
                value->producer() ? value->producer()->attrs().find(ir::kGuardAttr) : nullptr)
          copy->attrs().set(ir::kGuardAttr, *guard);
        it->second = copy->result();
      }
      return it->second;
    };
    std::vector<ir::Node *> order;
    for (const auto &node : graph.nodes())
      order.push_back(node.get());
    int64_t inserted = 0;
    for (ir::Node *node : order) {
      for (int i = 0; i < node->numOperands(); ++i) {
        ir::Value *operand = node->operand(i);
        if (acceptsStridedOperand(*node, i) || !needsCopy(operand))
          continue;
        node->setOperand(i, copyOf(operand, node));
        ++inserted;
      }
    }
    std::vector<ir::Value *> outputs = graph.outputs();
    for (ir::Value *&output : outputs)
      if (needsCopy(output)) {
        output = copyOf(output, nullptr);
        ++inserted;
      }
    graph.setOutputs(outputs);
    if (copies.empty())
      return false;
    context.statistics["layout.copies-inserted"] += static_cast<int64_t>(copies.size());
    context.statistics["layout.operands-rewired"] += inserted;
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> createLayoutPass() { return std::make_unique<LayoutPass>(); }

} // namespace thunderc::opt
