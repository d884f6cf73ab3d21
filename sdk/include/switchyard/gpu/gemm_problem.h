// matmul and linear as one strided, batched GEMM problem: what a GPU
// plugin's GEMM engine (cuBLASLt in cuda, the plugin's own tiles in rocm)
// receives. Reading the views is shared; running the problem is each
// plugin's.
//
// A problem is C[M,N] = A[M,K]·B[K,N] (+ bias[N]), row-major *logical*
// matrices over views with any strides: element (r, c) of batch index b
// lives at data + (batch offset of b) + r*rs + c*cs elements. Nothing is
// copied: a transposed or sliced operand is just other strides (a 1-D
// operand a row or column vector). Batch dims are the output's leading
// dims; each operand has its own stride along them (0 broadcasts).
#ifndef SWITCHYARD_GPU_GEMM_PROBLEM_H_
#define SWITCHYARD_GPU_GEMM_PROBLEM_H_

#include <cstdint>
#include <string_view>

#include "switchyard/gpu/target.h"
#include "switchyard/plugin.h"

namespace sy::gpu {

// A logical row-major matrix view.
struct GemmMatrix {
  void* data = nullptr;
  int64_t rows = 0, cols = 0;
  int64_t rs = 0, cs = 0;
};

enum class GemmEpilogue { kNone, kBias, kGelu, kGeluBias };

struct GemmProblem {
  sy_dtype_t dtype = SY_DTYPE_F32;
  GemmMatrix a, b, c;  // a: M×K, b: K×N, c: M×N
  // Batch dims (at most SY_MAX_RANK), and each operand's stride along them
  // (0 broadcasts).
  int batch_ndim = 0;
  int64_t batch_shape[SY_MAX_RANK] = {};
  int64_t batch_stride[3][SY_MAX_RANK] = {};  // a, b, c
  GemmEpilogue epilogue = GemmEpilogue::kNone;
  const void* bias = nullptr;  // N elements, bias_stride apart, when used
  int64_t bias_stride = 1;
};

// matmul(a, b) with both inputs and the output of `dtype`: checks the call
// (BeginCall, CheckView; 2 inputs, 1 output, no attributes), maps it onto
// *out_problem (NumPy semantics: 1-D operands are vectors, batch dims
// broadcast) and stores the call's stream in *out_stream. Errors name
// "matmul" and the argument.
sy_error_t* BeginMatmul(const sy_kernel_call_t* call, sy_dtype_t dtype,
                        Stream** out_stream, GemmProblem* out_problem);

// linear(x, weight, bias?) — x [..., in] · weight[out, in]^T (+ bias) — and
// ops of that shape named `op` (cuda::linear_gelu): as BeginMatmul, with 2
// or 3 inputs. The epilogue is `epilogue` (kNone or kGelu), upgraded to
// kBias / kGeluBias when a bias is given; `bias` and `bias_stride` point at
// it. The leading dims of x become M where they merge (for x and the output
// alike); the rest are batch dims, over which the weight broadcasts.
sy_error_t* BeginLinear(const sy_kernel_call_t* call, sy_dtype_t dtype,
                        std::string_view op, GemmEpilogue epilogue,
                        Stream** out_stream, GemmProblem* out_problem);

}  // namespace sy::gpu

#endif  // SWITCHYARD_GPU_GEMM_PROBLEM_H_
