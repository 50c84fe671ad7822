// Complex values in the importer. The IR has no complex dtype: a complex64 tensor of shape S is
// an f32 value of shape [S..., 2] (real, imaginary: torch.view_as_real's layout) that the
// import state lists (ImportState::complexValues). Only the ops of the complex table read such
// values; any other op on one is refused, never computed on the pairs as if they were real.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "frontend/aten/node_importer.h"
#include "ir/host_tensor.h"

namespace thunderc::frontend {

/// Whether `value` is a complex pair.
bool isComplexValue(const ImportState &state, const ir::Value *value);

/// The import function for `target` when a tensor it reads or one it writes is complex, or null
/// (the caller refuses the node). Covers the FFT ops, stft, view_as_real / view_as_complex,
/// real, imag, abs, angle, the conj family, casts, complex multiply / divide / add / subtract,
/// and ops that act the same on both components (views, slices, concatenation, copies, sums,
/// products with a real tensor), which are imported once per component and restacked.
ImportFunction findComplexImportFunction(std::string_view target);

/// One line naming what the complex table covers, for the error that refuses a complex op.
std::string complexOpsSummary();

// ---- helpers shared with the FFT imports (frontend/aten/fft.cpp) ----

/// A graph constant the importer computes (a DFT matrix, a window): added once per `key` (a
/// C identifier naming what it holds, also its weight name after "generated."), then shared.
ir::Value *generatedConstant(NodeImport &node, const std::string &key, ir::HostTensor data);
/// Component `part` (0 real, 1 imaginary) of a pair: a select of its trailing dim.
Expected<ir::Value *> complexComponent(NodeImport &node, ir::Value *pair, int part);
/// The pair of two real tensors of equal shape; marked complex.
Expected<ir::Value *> makeComplex(NodeImport &node, ir::Value *real, ir::Value *imaginary);
/// Binds output `index`, declared complex64, to `pair` (checked against the exported type).
Status bindComplexOutput(NodeImport &node, int index, ir::Value *pair);
/// Binds output `index`, declared real, to `value` (checked against the exported type).
Status bindRealOutput(NodeImport &node, int index, ir::Value *value);

} // namespace thunderc::frontend
