// The converter families of the ATen importer: each file lists the overloads it imports next to
// the functions that import them (the torch-mlir `populate...Patterns` / Torch-TensorRT
// per-converter style), and findImportFunction (aten/table.cpp) searches the families in this
// order, then the ops ir/ops.def names, then the C++ decompositions (decompositions.def).
#pragma once

#include <span>

#include "frontend/aten/node_importer.h"

namespace thunderc::frontend {

/// Elementwise ops, casts and copies, reductions, constants, embedding and gather
/// (aten/elementwise.cpp).
std::span<const Converter> elementwiseConverters();
/// Views, concatenation and splits, triangles, advanced indexing (aten/shape.cpp).
std::span<const Converter> shapeConverters();
/// self[indices] (aten.index.Tensor's lowering, integer indices, None for a whole dim) as a
/// helper value of type `out` (aten/shape.cpp).
Expected<Value *> indexedValue(NodeImport &node, Value *self, std::vector<Value *> indices,
                               const ir::TensorType &out);
/// Softmax and normalizations, linear algebra and attention, 2-d and 1-d pools, padding and
/// resampling (aten/nn.cpp).
std::span<const Converter> nnConverters();
/// Convolutions and the normalizations built on batch statistics (aten/conv_norm.cpp).
std::span<const Converter> convNormConverters();
/// Recurrent layers and cells, unrolled (aten/rnn.cpp).
std::span<const Converter> rnnConverters();
/// Flips, repeats, diagonals, strided copies, stack, roll and the scatters (aten/scatter.cpp).
std::span<const Converter> scatterConverters();
/// Sorting, top-k, embedding bags, pairwise distances (aten/sort.cpp).
std::span<const Converter> sortConverters();
/// 3-d convolution padding modes and pools, grid sampling, im2col / col2im (aten/spatial.cpp).
std::span<const Converter> spatialConverters();
/// Random numbers (aten/random.cpp).
std::span<const Converter> randomConverters();
/// Windows and unfold of signal processing (aten/fft.cpp; the DFTs are complex-aware).
std::span<const Converter> fftConverters();
/// The complex-aware ops that also take real tensors (aten/complex.cpp).
std::span<const Converter> complexAwareConverters();
/// The generic import of the unary and binary ops whose ir/ops.def row names `overload`
/// ("add.Tensor"), or null (aten/elementwise.cpp).
ImportFunction findGenericImport(std::string_view overload);
/// Every "aten.<overload>" findGenericImport maps.
std::vector<std::string> genericImportTargets();

/// The positions of `self`'s non-zero elements, i64 [count, rank(self)], whose count is the
/// data-dependent symbol of `count` (the exporter's unbacked u<N>; a second call for the same
/// tensor and symbol reuses the first) (aten/nn.cpp).
Expected<ir::Value *> nonzeroPositions(NodeImport &node, ir::Value *self, const ir::Dim &count);
/// Whether `dim` is one symbol alone (a data-dependent count).
bool isCountSymbol(const ir::Dim &dim);
/// The attributes of a `random` node: its distribution and the import's next stream, so that
/// no two random nodes draw the same numbers (aten/random.cpp).
ir::AttrMap randomAttributes(NodeImport &node, const std::string &distribution);

} // namespace thunderc::frontend
