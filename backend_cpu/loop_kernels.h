// The CPU target's kernels: each fusion node (and each elementwise node left alone) becomes a
// host loop nest around the TC_HD scalar functions that codegen/fusion_kernel.cpp writes once
// for both targets.
#pragma once

#include "codegen/emit_state.h"
#include "ir/graph.h"
#include "ir/status.h"

namespace thunderc::cpu {

/// A fusion node of any kind (elementwise, reduction, epilogue), or one elementwise node as a
/// one-op kernel. Operands are read through their layouts (any strides, broadcasting); results
/// are written contiguously. Unsupported for a fusion kind the emitter does not know.
Status emitLoopKernel(const ir::Node &node, codegen::EmitState &state);

} // namespace thunderc::cpu
