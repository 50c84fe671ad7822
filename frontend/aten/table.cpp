// The registry of the ATen importer: from an exported overload to the function that imports it.
// The converters live with the code they call, one list per family (frontend/aten/converters.h);
// this file searches them, then the unary and binary ops of ir/ops.def, then the C++
// decompositions (decompositions.def), and knows the assertions an exported program may hold.
#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/aten/converters.h"
#include "frontend/aten/decompose.h"
#include "frontend/aten/node_importer.h"

namespace thunderc::frontend {
namespace {

/// Every converter family, searched in this order (a target is listed once).
constexpr std::span<const Converter> (*kFamilies[])() = {
    fftConverters,     elementwiseConverters, nnConverters,    shapeConverters,
    scatterConverters, convNormConverters,    rnnConverters,   sortConverters,
    spatialConverters, randomConverters,      complexAwareConverters};

constexpr std::string_view kDroppedAssertions[] = {
    "aten._assert_tensor_metadata.default", "aten._assert_scalar.default",
    "aten.sym_constrain_range_for_size.default", "aten.sym_constrain_range.default",
    "aten._assert_async.msg",
    // torch.linalg's check of its *_ex info (raises for a singular or non-positive-definite
    // input), exported behind a side-effect token (with_effects).
    "aten._linalg_check_errors.default"};

} // namespace

std::string_view stripTorchOps(std::string_view target) {
  constexpr std::string_view kPrefix = "torch.ops.";
  if (target.substr(0, kPrefix.size()) == kPrefix)
    target.remove_prefix(kPrefix.size());
  return target;
}

ImportFunction findImportFunction(std::string_view target) {
  target = stripTorchOps(target);
  for (auto converters : kFamilies)
    for (const Converter &converter : converters())
      if (converter.target == target)
        return converter.function;
  constexpr std::string_view kAten = "aten.";
  if (!target.starts_with(kAten))
    return findDecomposition(target); // another library's op stated in decompositions.def
  if (ImportFunction generic = findGenericImport(target.substr(kAten.size())))
    return generic;
  return findDecomposition(target);
}

std::vector<std::string> importTableTargets() {
  std::vector<std::string> targets;
  for (auto converters : kFamilies)
    for (const Converter &converter : converters())
      targets.emplace_back(converter.target);
  for (std::string &target : genericImportTargets())
    targets.push_back(std::move(target));
  for (std::string_view assertion : kDroppedAssertions)
    targets.emplace_back(assertion);
  for (std::string &target : decompositionTargets())
    targets.push_back(std::move(target));
  return targets;
}

bool isDroppedAssertion(std::string_view target) {
  target = stripTorchOps(target);
  return std::find(std::begin(kDroppedAssertions), std::end(kDroppedAssertions), target) !=
         std::end(kDroppedAssertions);
}

} // namespace thunderc::frontend
