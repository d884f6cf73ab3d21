// matmul, linear and cuda::linear_gelu kernels: shapes and strides into a
// GemmProblem (the SDK's switchyard/gpu/gemm_problem.h), then RunGemm
// (gemm.h). Registered with kGemmVariants variants each (Note [GEMM
// variants]); f64 matmul too; integer matmul (RunIntGemm) has none.
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "cuda_util.h"
#include "kernels/gemm.h"
#include "kernels/kernel_list.h"
#include "switchyard/gpu/gemm_problem.h"
#include "switchyard/gpu/target.h"
#include "switchyard/plugin.hpp"

namespace sy::cuda {
namespace {

using ::sy::gpu::GemmEpilogue;
using ::sy::gpu::GemmProblem;
using ::sy::plugin::StrCat;

sy_error_t* MatmulKernelImpl(const sy_kernel_call_t* call, sy_dtype_t dtype) {
  gpu::Stream* stream = nullptr;
  GemmProblem p;
  SY_PLUGIN_RETURN_IF_ERROR(gpu::BeginMatmul(call, dtype, &stream, &p));
  return RunGemm(*stream, p, call->variant, "matmul");
}

// x [..., in] · weight[out, in]^T (+ bias), with `epilogue` (kNone or
// kGelu; a bias upgrades it). cuBLASLt's epilogue reads the bias dense and
// 16-byte aligned: any other bias is copied into a temporary first.
sy_error_t* LinearImpl(const sy_kernel_call_t* call, sy_dtype_t dtype,
                       std::string_view op, GemmEpilogue epilogue) {
  gpu::Stream* stream = nullptr;
  GemmProblem p;
  SY_PLUGIN_RETURN_IF_ERROR(
      gpu::BeginLinear(call, dtype, op, epilogue, &stream, &p));
  void* dense_bias = nullptr;
  if (p.bias != nullptr &&
      (p.bias_stride != 1 || reinterpret_cast<uintptr_t>(p.bias) % 16 != 0)) {
    const int64_t features = p.b.cols;
    SY_PLUGIN_RETURN_IF_ERROR(CudaError(
        cudaMallocAsync(&dense_bias, features * plugin::DtypeSize(dtype),
                        stream->stream),
        StrCat("cuda plugin: ", op), "allocating a dense bias failed"));
    sy_error_t* error = CopyVector(*stream, dtype, dense_bias, p.bias,
                                   features, p.bias_stride, op);
    if (error != nullptr) {
      cudaFreeAsync(dense_bias, stream->stream);
      return error;
    }
    p.bias = dense_bias;
    p.bias_stride = 1;
  }
  sy_error_t* error = RunGemm(*stream, p, call->variant, op);
  if (dense_bias != nullptr) cudaFreeAsync(dense_bias, stream->stream);
  return error;
}

template <sy_dtype_t D>
sy_error_t* MatmulKernel(const sy_kernel_call_t* call) {
  return plugin::Guard("cuda plugin: matmul",
                       [&] { return MatmulKernelImpl(call, D); });
}

template <sy_dtype_t D>
sy_error_t* IntMatmulKernel(const sy_kernel_call_t* call) {
  return plugin::Guard("cuda plugin: matmul", [&]() -> sy_error_t* {
    gpu::Stream* stream = nullptr;
    GemmProblem p;
    SY_PLUGIN_RETURN_IF_ERROR(gpu::BeginMatmul(call, D, &stream, &p));
    return RunIntGemm(*stream, p, "matmul");
  });
}

template <sy_dtype_t D>
sy_error_t* LinearKernel(const sy_kernel_call_t* call) {
  return plugin::Guard("cuda plugin: linear", [&] {
    return LinearImpl(call, D, "linear", GemmEpilogue::kNone);
  });
}

template <sy_dtype_t D>
sy_error_t* LinearGeluKernel(const sy_kernel_call_t* call) {
  return plugin::Guard("cuda plugin: cuda::linear_gelu", [&] {
    return LinearImpl(call, D, "cuda::linear_gelu", GemmEpilogue::kGelu);
  });
}

// The variants every GEMM kernel registers: heuristic choice 0..n-1.
struct Variants {
  int32_t configs[kGemmVariants];
  std::string names[kGemmVariants];
  sy_kernel_variant_t variants[kGemmVariants];
  Variants() {
    for (int i = 0; i < kGemmVariants; ++i) {
      configs[i] = i;
      names[i] = StrCat("cublaslt_heuristic", i);
      variants[i] = {sizeof(sy_kernel_variant_t), nullptr, names[i].c_str(),
                     &configs[i], sizeof(int32_t)};
    }
  }
};

const Variants& GemmVariants() {
  static const Variants variants;
  return variants;
}

sy_error_t* Register(const sy_host_api_t* host, sy_host_context_t* context,
                     const char* op, std::vector<sy_dtype_t> dtypes,
                     sy_kernel_fn fn, bool variants = true) {
  std::string name = op;
  for (sy_dtype_t d : dtypes) name += StrCat(".", plugin::DtypeName(d));
  sy_kernel_desc_t desc{};
  desc.struct_size = sizeof(desc);
  desc.op = op;
  desc.device_type = "cuda";
  desc.name = name.c_str();
  desc.dtypes = dtypes.data();
  desc.num_dtypes = static_cast<int32_t>(dtypes.size());
  desc.priority = gpu::ThisTarget().priority;
  desc.fn = fn;
  desc.variants = variants ? GemmVariants().variants : nullptr;
  desc.num_variants = variants ? kGemmVariants : 0;
  return host->register_kernel(context, &desc);
}

template <sy_dtype_t D>
sy_error_t* RegisterFor(const sy_host_api_t* host, sy_host_context_t* context,
                        bool fused) {
  constexpr sy_dtype_t N = SY_DTYPE_NONE;
  if (fused) {
    SY_PLUGIN_RETURN_IF_ERROR(Register(host, context, "cuda::linear_gelu",
                                       {D, D, D}, LinearGeluKernel<D>));
    return Register(host, context, "cuda::linear_gelu", {D, D, N},
                    LinearGeluKernel<D>);
  }
  SY_PLUGIN_RETURN_IF_ERROR(
      Register(host, context, "matmul", {D, D}, MatmulKernel<D>));
  SY_PLUGIN_RETURN_IF_ERROR(
      Register(host, context, "linear", {D, D, D}, LinearKernel<D>));
  return Register(host, context, "linear", {D, D, N}, LinearKernel<D>);
}

}  // namespace

sy_error_t* RegisterGemmKernels(const sy_host_api_t* host,
                                sy_host_context_t* context) {
  SY_PLUGIN_RETURN_IF_ERROR(RegisterFor<SY_DTYPE_F32>(host, context, false));
  SY_PLUGIN_RETURN_IF_ERROR(RegisterFor<SY_DTYPE_F16>(host, context, false));
  SY_PLUGIN_RETURN_IF_ERROR(RegisterFor<SY_DTYPE_BF16>(host, context, false));
  // f64: matmul through cuBLASLt in FP64; linear decomposes onto it (the
  // bias epilogue is not promised for FP64).
  SY_PLUGIN_RETURN_IF_ERROR(Register(host, context, "matmul",
                                     {SY_DTYPE_F64, SY_DTYPE_F64},
                                     MatmulKernel<SY_DTYPE_F64>));
  // Integers: the plugin's own wrapping GEMM, no variants.
  SY_PLUGIN_RETURN_IF_ERROR(Register(host, context, "matmul",
                                     {SY_DTYPE_I32, SY_DTYPE_I32},
                                     IntMatmulKernel<SY_DTYPE_I32>, false));
  SY_PLUGIN_RETURN_IF_ERROR(Register(host, context, "matmul",
                                     {SY_DTYPE_I64, SY_DTYPE_I64},
                                     IntMatmulKernel<SY_DTYPE_I64>, false));
  SY_PLUGIN_RETURN_IF_ERROR(Register(host, context, "matmul",
                                     {SY_DTYPE_I8, SY_DTYPE_I8},
                                     IntMatmulKernel<SY_DTYPE_I8>, false));
  return Register(host, context, "matmul", {SY_DTYPE_U8, SY_DTYPE_U8},
                  IntMatmulKernel<SY_DTYPE_U8>, false);
}

sy_error_t* RegisterLinearGeluKernels(const sy_host_api_t* host,
                                      sy_host_context_t* context) {
  SY_PLUGIN_RETURN_IF_ERROR(RegisterFor<SY_DTYPE_F32>(host, context, true));
  SY_PLUGIN_RETURN_IF_ERROR(RegisterFor<SY_DTYPE_F16>(host, context, true));
  return RegisterFor<SY_DTYPE_BF16>(host, context, true);
}

}  // namespace sy::cuda
