// The CPU target: C++17 loop nests for the fused kernels (loop_kernels.cpp), the portable
// kernel library (kernels/tc_kernels.h) for library calls, host memory for weights (mapped from
// weights.bin) and for the arena (the model base, kernels/tc_model_base.h).
#include "backend_cpu/cpu_backend.h"

#include <algorithm>
#include <cstdint>

#include "backend_cpu/kernels/tc_kernels_qgemm.h"
#include "backend_cpu/kernels/tc_kernels_sgemm.h"
#include "backend_cpu/loop_kernels.h"
#include "codegen/bundle.h"
#include "codegen/emit_state.h"
#include "codegen/template.h"
#include "ir/op_attributes.h"

namespace thunderc::cpu {
using namespace codegen;
namespace {

/// How a weight is read by GEMMs, when every use of it (directly or inside a fusion's body,
/// where the library op of a GEMM-epilogue fusion reads it) is the same kind of float GEMM
/// operand: the weight [n, k] of a linear, or the B [k, n] of an addmm.
enum class GemmWeight { None, Linear, Addmm };

GemmWeight gemmWeightUse(const ir::Value &value) {
  GemmWeight kind = GemmWeight::None;
  auto agree = [&kind](GemmWeight use) {
    if (kind != GemmWeight::None && kind != use)
      return false;
    kind = use;
    return true;
  };
  if (!value.hasUses())
    return GemmWeight::None;
  for (const ir::Use &use : value.uses()) {
    const ir::Node &user = *use.user;
    const bool floats = user.numResults() == 1 && user.result()->type().dtype == ir::DType::F32;
    if (user.op() == ir::OpKind::Linear && use.operandIndex == 1 && floats &&
        user.operand(0)->type().dtype == ir::DType::F32 && agree(GemmWeight::Linear))
      continue;
    if (user.op() == ir::OpKind::Addmm && use.operandIndex == 2 && floats &&
        user.operand(1)->type().dtype == ir::DType::F32 && agree(GemmWeight::Addmm))
      continue;
    if (user.op() == ir::OpKind::Fusion && user.body() != nullptr &&
        static_cast<size_t>(use.operandIndex) < user.body()->inputs().size()) {
      GemmWeight inner =
          gemmWeightUse(*user.body()->inputs()[static_cast<size_t>(use.operandIndex)]);
      if (inner != GemmWeight::None && agree(inner))
        continue;
    }
    return GemmWeight::None;
  }
  return kind;
}

/// Whether `use` reads its value as the int8 weight of an integer GEMM (tc_kernels_qgemm.h:
/// linear_wq with a quantized x, one float scale per output feature, no zeros; conv2d_wq
/// with one group and no zeros, its weight [O, C, kH, kW] read as [O, C * kH * kW]), directly
/// or inside a fusion's body.
bool integerGemmWeightUse(const ir::Use &use) {
  const ir::Node &user = *use.user;
  if (user.op() == ir::OpKind::Fusion && user.body() != nullptr &&
      static_cast<size_t>(use.operandIndex) < user.body()->inputs().size()) {
    const ir::Value &inner = *user.body()->inputs()[static_cast<size_t>(use.operandIndex)];
    return inner.hasUses() && std::all_of(inner.uses().begin(), inner.uses().end(),
                                          integerGemmWeightUse);
  }
  if (user.op() == ir::OpKind::Conv2dWq) {
    const ir::TensorType &weight = user.operand(1)->type();
    int64_t taps = 1;
    for (size_t d = 1; d < weight.shape.size(); ++d)
      taps = weight.shape[d].isStatic() ? taps * weight.shape[d].value() : -1;
    return use.operandIndex == 1 && ir::attr::groups(user) == 1 && !ir::attr::has_zeros(user) &&
           user.result()->type().dtype == ir::DType::F32 &&
           user.operand(2)->type().dtype == ir::DType::F32 && taps > 0 &&
           taps <= tc::qgemm::kMaxDepth;
  }
  if (user.op() != ir::OpKind::LinearWq || use.operandIndex != 1 ||
      !ir::attr::x_scale(user).has_value() || ir::attr::bits(user) != 8 ||
      ir::attr::has_zeros(user) || user.result()->type().dtype != ir::DType::F32)
    return false;
  const ir::TensorType &scales = user.operand(2)->type();
  const ir::Dim &k = user.operand(0)->type().shape.back();
  return scales.dtype == ir::DType::F32 && scales.shape[1].isStatic() &&
         scales.shape[1].value() == 1 && k.isStatic() && k.value() <= tc::qgemm::kMaxDepth;
}

class CpuBackend final : public TargetBackend {
public:
  Target target() const override { return Target::Cpu; }
  Status prepare(const ir::Graph &graph) override {
    needsLapack_ = false;
    for (const auto &node : graph.nodes())
      needsLapack_ = needsLapack_ || node->info().family == ir::OpFamily::Linalg;
    return Status::success();
  }

  // tc_model_base.h: load, contexts, state, threads; run_impl installs the context's pool
  // (tc_parallel.h) for its kernels.
  ModelBaseSpec modelBase() const override {
    return {".cpp", "tc_model_base.h", "tc", {"tc::PoolScope pool_scope(context->pool);"}, false};
  }

  // Float GEMM weights -- a linear's [n, k], an addmm's B [k, n] -- go into weights.bin
  // pre-packed in the GEMM's panels (tc_kernels_sgemm.h's pack_b_whole; the same layout for
  // every ISA), so that no run packs them: gemm_packed reads them. A weight read any other way
  // (also an output, a state, shared by name with another input, another op's operand)
  // stays row-major.
  std::map<std::string, StoredWeight> storedWeights(const ir::Graph &graph) const override {
    std::map<std::string, int> names;
    for (const auto &input : graph.inputs())
      if (input->inputKind() != ir::InputKind::User)
        ++names[input->weightName()];
    std::map<std::string, StoredWeight> stored;
    for (const auto &input : graph.inputs()) {
      const ir::TensorType &type = input->type();
      const ir::InputKind kind = input->inputKind();
      if (kind == ir::InputKind::User || kind == ir::InputKind::State ||
          names[input->weightName()] != 1 || type.rank() < 2 ||
          !std::all_of(type.shape.begin(), type.shape.end(),
                       [](const ir::Dim &dim) { return dim.isStatic(); }) ||
          graph.isOutput(input.get()))
        continue;
      if (type.dtype == ir::DType::I8 && input->hasUses() &&
          std::all_of(input->uses().begin(), input->uses().end(), integerGemmWeightUse)) {
        // An int8 weight [n, k] (a convolution's [O, C, kH, kW] as [O, C * kH * kW]) only
        // integer GEMMs read: their packed panels with column sums.
        const int64_t n = type.shape[0].value();
        int64_t k = 1;
        for (size_t d = 1; d < type.shape.size(); ++d)
          k *= type.shape[d].value();
        if (n == 0 || k == 0)
          continue;
        StoredWeight weight;
        weight.shape = {tc::qgemm::packed_bytes(n, k)};
        weight.dtype = ir::DType::I8;
        weight.pack = [n, k](const ir::TensorView &view) {
          ir::HostTensor rows = ir::contiguousCopy(view);
          std::vector<uint8_t> bytes(static_cast<size_t>(tc::qgemm::packed_bytes(n, k)));
          tc::qgemm::pack(n, k, reinterpret_cast<const int8_t *>(rows.bytes.data()), k,
                          reinterpret_cast<int8_t *>(bytes.data()));
          return bytes;
        };
        stored.emplace(input->weightName(), std::move(weight));
        continue;
      }
      if (type.dtype != ir::DType::F32 || type.rank() != 2)
        continue;
      const GemmWeight use = gemmWeightUse(*input);
      if (use == GemmWeight::None)
        continue;
      const bool linear = use == GemmWeight::Linear;
      const int64_t n = type.shape[linear ? 0 : 1].value();
      const int64_t k = type.shape[linear ? 1 : 0].value();
      if (n == 0 || k == 0)
        continue;
      StoredWeight weight;
      weight.shape = {tc::sgemm::packed_b_floats(n, k)};
      weight.dtype = ir::DType::F32;
      weight.pack = [n, k, linear](const ir::TensorView &view) {
        // A contiguous, float-aligned view (the mapped archive, a folded constant) is packed in
        // place; a strided one, or one at an odd offset of its archive member, is copied first.
        ir::HostTensor rows;
        const void *data = view.data;
        if (view.strides != ir::contiguousStrides(view.shape) ||
            reinterpret_cast<uintptr_t>(data) % alignof(float) != 0) {
          rows = ir::contiguousCopy(view);
          data = rows.bytes.data();
        }
        std::vector<uint8_t> bytes(static_cast<size_t>(tc::sgemm::packed_b_floats(n, k)) *
                                   sizeof(float));
        tc::sgemm::pack_b_whole(n, k, static_cast<const float *>(data), linear, linear ? k : n,
                                reinterpret_cast<float *>(bytes.data()));
        return bytes;
      };
      stored.emplace(input->weightName(), std::move(weight));
    }
    return stored;
  }

  Status emitKernel(const ir::Node &node, EmitState &state) override {
    return emitLoopKernel(node, state);
  }

  std::map<std::string, std::string> bundleFiles(const BundleOptions &options,
                                                 bool hasGolden) const override {
    return {{"CMakeLists.txt",
             renderEmbeddedTemplate("backend_cpu/templates/CMakeLists.txt.in",
                                    {{"NAME", options.name},
                                     {"SOURCE", options.sourceName},
                                     {"NEEDS_LAPACK", needsLapack_ ? "ON" : "OFF"}}) +
                 goldenTestCmake(options, hasGolden)}};
  }

  // The scalar layer shared with CUDA (tc_math.h, tc_random.h), the model base's common part
  // (tc_model_common.h) and the CPU kernel library.
  bool shipsKernelHeader(const std::string &path, const BundleOptions &) const override {
    return path == "runtime/kernels/tc_math.h" || path == "runtime/kernels/tc_random.h" ||
           path == "runtime/kernels/tc_lapack.h" ||
           path == "runtime/kernels/tc_model_common.h" ||
           path.rfind("backend_cpu/kernels/", 0) == 0;
  }

private:
  bool needsLapack_ = false; ///< a linalg op is in the graph: the bundle links LAPACK
};

} // namespace

std::unique_ptr<codegen::TargetBackend> makeCpuBackend() { return std::make_unique<CpuBackend>(); }

} // namespace thunderc::cpu
