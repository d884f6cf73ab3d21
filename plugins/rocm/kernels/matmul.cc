// matmul and linear on the rocm plugin's own GEMM: the SDK reads the views
// into a GemmProblem (switchyard/gpu/gemm_problem.h), RunGemm runs it
// (gemm.h, Note [ROCm GEMM]). Each kernel registers the GEMM's variants
// ("tiled", "mfma") for the autotuner.
#include <span>
#include <string>

#include "kernels/gemm.h"
#include "kernels/kernel_list.h"
#include "switchyard/gpu/gemm_problem.h"
#include "switchyard/gpu/kernel_list.h"
#include "switchyard/gpu/kernel_util.h"
#include "switchyard/gpu/target.h"
#include "switchyard/plugin.hpp"

namespace sy::rocm {
namespace {

using ::sy::gpu::GemmEpilogue;
using ::sy::gpu::GemmProblem;

template <sy_dtype_t D>
sy_error_t* MatmulKernel(const sy_kernel_call_t* call) {
  static const std::string where = gpu::Where("matmul");
  return plugin::Guard(where, [&]() -> sy_error_t* {
    gpu::Stream* stream = nullptr;
    GemmProblem p;
    SY_PLUGIN_RETURN_IF_ERROR(gpu::BeginMatmul(call, D, &stream, &p));
    return RunGemm(*stream, p, call->variant, "matmul");
  });
}

template <sy_dtype_t D>
sy_error_t* LinearKernel(const sy_kernel_call_t* call) {
  static const std::string where = gpu::Where("linear");
  return plugin::Guard(where, [&]() -> sy_error_t* {
    gpu::Stream* stream = nullptr;
    GemmProblem p;
    SY_PLUGIN_RETURN_IF_ERROR(gpu::BeginLinear(
        call, D, "linear", GemmEpilogue::kNone, &stream, &p));
    return RunGemm(*stream, p, call->variant, "linear");
  });
}

// The variants every GEMM kernel registers, by GemmKernel value.
struct Variants {
  int32_t configs[kGemmVariants];
  sy_kernel_variant_t variants[kGemmVariants];
  Variants() {
    static constexpr const char* kNames[kGemmVariants] = {"tiled", "mfma"};
    static_assert(static_cast<int>(GemmKernel::kTiled) == 0 &&
                  static_cast<int>(GemmKernel::kMfma) == 1);
    for (int i = 0; i < kGemmVariants; ++i) {
      configs[i] = i;
      variants[i] = {sizeof(sy_kernel_variant_t), nullptr, kNames[i],
                     &configs[i], sizeof(int32_t)};
    }
  }
};

sy_error_t* Register(const sy_host_api_t* host, sy_host_context_t* context,
                     const char* op, std::span<const sy_dtype_t> dtypes,
                     sy_kernel_fn fn) {
  static const Variants variants;
  const std::string name = gpu::KernelName(op, dtypes);
  sy_kernel_desc_t desc{};
  desc.struct_size = sizeof(desc);
  desc.op = op;
  desc.device_type = "rocm";
  desc.name = name.c_str();
  desc.dtypes = dtypes.data();
  desc.num_dtypes = static_cast<int32_t>(dtypes.size());
  desc.priority = gpu::ThisTarget().priority;
  desc.fn = fn;
  desc.variants = variants.variants;
  desc.num_variants = kGemmVariants;
  return host->register_kernel(context, &desc);
}

template <sy_dtype_t D>
sy_error_t* RegisterFor(const sy_host_api_t* host,
                        sy_host_context_t* context) {
  using gpu::DtypeList;
  constexpr sy_dtype_t N = SY_DTYPE_NONE;
  SY_PLUGIN_RETURN_IF_ERROR(
      Register(host, context, "matmul", DtypeList<D, D>, MatmulKernel<D>));
  SY_PLUGIN_RETURN_IF_ERROR(
      Register(host, context, "linear", DtypeList<D, D, D>, LinearKernel<D>));
  return Register(host, context, "linear", DtypeList<D, D, N>,
                  LinearKernel<D>);
}

}  // namespace

sy_error_t* RegisterGemmKernels(const sy_host_api_t* host,
                                sy_host_context_t* context) {
  // The GEMM's own dtypes (gemm.h), not the shared lists of dtypes.h.
  SY_PLUGIN_RETURN_IF_ERROR(RegisterFor<SY_DTYPE_F32>(host, context));
  SY_PLUGIN_RETURN_IF_ERROR(RegisterFor<SY_DTYPE_F16>(host, context));
  return RegisterFor<SY_DTYPE_BF16>(host, context);
}

}  // namespace sy::rocm
