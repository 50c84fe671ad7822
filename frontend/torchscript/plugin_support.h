// Helpers of the TorchScript importer plugin (torchscript_plugin.cpp, their only user): the
// serialized JSON of sizes and tensor metadata, and the scan that refuses ops acting outside
// the model (file, network, process, print, and the like) before anything in the module runs.
#pragma once

#include <torch/script.h>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

namespace thunderc::frontend::plugin {

using nlohmann::json;
using torch::jit::Node;
using torch::jit::Value;

inline json intList(c10::IntArrayRef values) {
  json list = json::array();
  for (int64_t value : values)
    list.push_back(json{{"as_int", value}});
  return list;
}
inline json floatJson(double value) {
  if (std::isnan(value))
    return "NaN";
  if (std::isinf(value))
    return value > 0 ? "Infinity" : "-Infinity";
  return value;
}

// Nodes whose outputs are fixed once the input shapes are: they read sizes, not data.
inline bool readsOnlyMetadata(const Node *node) {
  static const std::set<std::string> kinds = {
      "aten::size",   "aten::dim",         "aten::numel",     "aten::len",
      "aten::stride", "aten::is_floating_point", "aten::is_complex", "aten::__is__",
      "aten::__isnot__", "prim::shape",    "prim::dtype",     "prim::device",
      "prim::layout", "prim::is_cuda",     "prim::requires_grad", "aten::element_size"};
  return kinds.count(node->kind().toQualString()) != 0;
}

inline bool holdsTensor(const c10::IValue &value) {
  if (value.isTensor())
    return true;
  if (value.isList()) {
    for (const c10::IValue &item : value.toListRef())
      if (holdsTensor(item))
        return true;
  }
  if (value.isTuple()) {
    for (const c10::IValue &item : value.toTupleRef().elements())
      if (holdsTensor(item))
        return true;
  }
  return false;
}

// Why running `node` would act outside the model, or null when it would not. Refused: file
// I/O, printing, the global random state, the network and distributed ops, Python calls, and
// calls into C++ code thunderc cannot see (custom classes, namespaces of device, profiler and
// debugging ops). aten::warn stays (warnings are silenced) and so does prim::RaiseException.
inline const char *sideEffectOf(const Node *node) {
  static const std::map<std::string, const char *, std::less<>> kRefused = {
      {"aten::save", "it writes a file"},
      {"aten::from_file", "it reads a file"},
      {"aten::_print", "it prints"},
      {"prim::Print", "it prints"},
      {"aten::manual_seed", "it changes the global random state"},
      {"aten::seed", "it changes the random state"},
      {"prim::rpc_async", "it calls another process over the network"},
      {"prim::rpc_sync", "it calls another process over the network"},
      {"prim::rpc_remote", "it calls another process over the network"},
      {"prim::PythonOp", "it calls Python"},
      {"prim::IgnoredPythonOp", "it calls Python"},
      {"prim::AddStatValue", "it changes global statistics"},
      {"prim::TimePoint", "it reads the clock"},
      {"prim::CallMethod", "it calls a method of a C++ class thunderc cannot see"},
      {"prim::CallFunction", "it calls a function thunderc cannot see"},
      {"aten::record_stream", "it changes device state"},
      {"aten::_cufft_set_plan_cache_max_size", "it changes device state"},
      {"aten::_cufft_clear_plan_cache", "it changes device state"},
  };
  static const std::set<std::string, std::less<>> kPureNamespaces = {
      "aten", "prim", "prims", "quantized", "_quantized", "quantization", "mkldnn",
      "mkldnn_prepacked", "onednn", "mkl", "sparse", "_native", "onnx"};
  const std::string kind = node->kind().toQualString();
  if (auto it = kRefused.find(kind); it != kRefused.end())
    return it->second;
  const std::string space = kind.substr(0, kind.find("::"));
  if (!kPureNamespaces.count(space))
    return "its namespace holds distributed, device, profiler or debugging ops, which act "
           "outside the model";
  return nullptr;
}

// The first node of `block` (nested blocks included) that acts outside the model.
inline const Node *findSideEffect(const torch::jit::Block *block, const char **why) {
  for (const Node *node : block->nodes()) {
    if ((*why = sideEffectOf(node)) != nullptr)
      return node;
    for (const torch::jit::Block *inner : node->blocks())
      if (const Node *found = findSideEffect(inner, why))
        return found;
  }
  return nullptr;
}

} // namespace thunderc::frontend::plugin
