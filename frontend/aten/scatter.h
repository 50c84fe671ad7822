// Imports of the ATen data-movement ops beyond views: flip, repeat/tile, diagonal,
// as_strided, stack, roll, and the scatters (slice_scatter, select_scatter, scatter,
// scatter_add, scatter_reduce, index_put, masked_scatter). frontend/aten/table.cpp lists them.
#pragma once

#include "frontend/aten/node_importer.h"

namespace thunderc::frontend {

/// flip.default: a flip view of the named dims.
Status importFlip(NodeImport &node);
/// repeat.default and tile.default: reshape to [1, s0, 1, s1, ..] -> expand [r0, s0, ..] ->
/// reshape [r0 * s0, ..] (tile pads the repeats with leading ones).
Status importRepeat(NodeImport &node);
/// diagonal.default: the diagonal view.
Status importDiagonal(NodeImport &node);
/// as_strided.default over an input of static size; the input is read in row-major order.
Status importAsStrided(NodeImport &node);
/// stack.default: unsqueeze each tensor, then concat.
Status importStack(NodeImport &node);
/// roll.default (training IR): per rolled dim, two slices concatenated; dims=[] rolls the
/// flattened tensor. The rolled dims must be static.
Status importRoll(NodeImport &node);
/// slice_scatter.default: start/end clamped like slice.
Status importSliceScatter(NodeImport &node);
/// select_scatter.default: slice_scatter of the source unsqueezed at dim.
Status importSelectScatter(NodeImport &node);
/// scatter.src, scatter.value, scatter_add.default, scatter_reduce.two (mean as a sum over
/// counts, as PyTorch computes it).
Status importScatter(NodeImport &node);
/// index_put.default and index_put_.default: integer indices (None entries, broadcasting,
/// negative indices) become one scatter over rows of the indexed dims; a single bool mask
/// becomes where() (or masked_scatter's decomposition for a source of masked elements).
Status importIndexPut(NodeImport &node);
Status importIndexCopy(NodeImport &node);
/// masked_scatter.default: where(mask, source[cumsum(mask) - 1], self).
Status importMaskedScatter(NodeImport &node);

} // namespace thunderc::frontend
