// View/layout analysis: with views as aliases, where every value's elements live.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "ir/graph.h"
#include "optimizer/pass.h"

namespace thunderc::opt {

/// Elements of a value as a strided window on the storage of `storage` (a graph input or a
/// non-view node's result): element (i0, i1, ...) is at storage[offset + sum(ik * strides[k])]
/// (elements, not bytes). For a value with its own buffer: itself, offset 0, contiguous.
struct ValueLayout {
  const ir::Value *storage = nullptr;
  ir::Dim offset;
  std::vector<ir::Dim> strides;
};

/// The layout of a value with its own buffer: itself, offset 0, contiguous strides.
ValueLayout ownLayout(const ir::Value *value);

/// Layouts of every value of `graph` (not of fusion bodies), treating every view op as an
/// alias. A reshape aliases only a contiguous operand; otherwise it is its own storage.
std::map<const ir::Value *, ValueLayout> computeLayouts(const ir::Graph &graph);

/// True if `layout` addresses a dense row-major block of `shape` (offset may be nonzero).
bool isContiguous(const ValueLayout &layout, const ir::Shape &shape);

/// True if `consumer` reads operand `index` through arbitrary strides (elementwise ops,
/// fusions, view ops other than reshape); false if it needs a contiguous buffer.
bool acceptsStridedOperand(const ir::Node &consumer, int index);

/// "layout": inserts a `copy` where a consumer that needs contiguous data (or a graph output,
/// or a reshape) reads a non-contiguous view, so that afterwards every view op can alias.
std::unique_ptr<Pass> createLayoutPass();

} // namespace thunderc::opt
