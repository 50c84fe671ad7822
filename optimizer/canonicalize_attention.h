// The "sdpa" rule of canonicalize: core ATen's decomposition of scaled_dot_product_attention
// recomposed into the single `attention` op the training IR has.
#pragma once

#include "ir/graph.h"

namespace thunderc::opt {

/// If `root` (a reshape or matmul) ends core ATen's math-path decomposition of
/// scaled_dot_product_attention -- scaled q and k^T multiplied, an optional additive mask,
/// softmax with the all -inf row guard of _safe_softmax, multiplied with v -- replaces it with
/// one `attention(q, k, v, mask?) {is_causal, scale?}` node (a causal arange mask becomes
/// is_causal=true) and erases what that leaves dead. Every intermediate of the pattern must
/// be read only inside it and every type must match exactly; returns false and leaves the
/// graph untouched otherwise.
bool recomposeAttention(ir::Graph &graph, ir::Node *root);

} // namespace thunderc::opt
