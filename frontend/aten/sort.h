// Imports of sorting (sort, argsort, msort, topk, kthvalue: one sort op and slices of it),
// embedding bags and pairwise distances (cdist, pdist: decompositions).
// frontend/aten/table.cpp lists them.
#pragma once

#include "frontend/aten/node_importer.h"

namespace thunderc::frontend {

/// sort.default and sort.stable: the sort op (always stable, which the default allows).
Status importSort(NodeImport &node);
/// argsort.default and argsort.stable (training IR): the sort op's indices.
Status importArgsort(NodeImport &node);
/// msort.default (training IR): the sort op's values along dim 0.
Status importMsort(NodeImport &node);
/// topk.default: sort (descending for largest) and the first k along dim. sorted=False allows
/// any order, so the sorted one is right too.
Status importTopk(NodeImport &node);
/// kthvalue.default: the (k-1)-th of an ascending sort along dim, kept as a size-1 dim with
/// keepdim.
Status importKthvalue(NodeImport &node);
/// _embedding_bag, _embedding_bag_forward_only, embedding_bag and embedding_bag.padding_idx:
/// the embedding_bag op for the first output (the others, used only by gradients, must be
/// unused).
Status importEmbeddingBag(NodeImport &node);
/// cdist.default and _cdist_forward.default: elementwise differences reduced over the last
/// dim, or, for p = 2 where PyTorch takes its matrix-product path, that same product.
Status importCdist(NodeImport &node);
/// pdist.default and _pdist_forward.default: the upper triangle of the direct cdist(x, x),
/// picked with an index computed from arange.
Status importPdist(NodeImport &node);

} // namespace thunderc::frontend
