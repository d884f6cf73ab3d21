#include "kernels/gemm.h"

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "cuda_device.h"
#include "cuda_util.h"
#include "switchyard/gpu/kernel_util.h"
#include "switchyard/plugin.hpp"

namespace sy::cuda {
namespace {

using ::sy::gpu::GemmEpilogue;
using ::sy::gpu::GemmMatrix;
using ::sy::gpu::GemmProblem;
using ::sy::gpu::OpError;
using ::sy::plugin::MakeError;
using ::sy::plugin::StrCat;

constexpr int kMaxDevices = 64;

sy_error_t* LtError(cublasStatus_t status, std::string_view op,
                    std::string_view what) {
  if (status == CUBLAS_STATUS_SUCCESS) return nullptr;
  return MakeError(
      status == CUBLAS_STATUS_NOT_SUPPORTED ? SY_STATUS_UNIMPLEMENTED
                                            : SY_STATUS_INTERNAL,
      StrCat("cuda plugin: ", op, ": ", what, " (cuBLASLt status ",
             static_cast<int>(status), ": ", cublasLtGetStatusName(status),
             "); check the operands' shapes and dtypes, or report it"));
}

// One cuBLASLt handle per device, created on first use and kept until the
// library closes. The stream-ordered memory pool keeps workspaces instead
// of returning them to the driver (release threshold: unlimited).
struct Handles {
  std::mutex mu;
  cublasLtHandle_t lt[kMaxDevices] = {};
  ~Handles() {
    for (cublasLtHandle_t h : lt) {
      if (h != nullptr) cublasLtDestroy(h);
    }
  }
};

Handles& State() {
  static Handles handles;
  return handles;
}

sy_error_t* HandleFor(int device, std::string_view op, cublasLtHandle_t* out) {
  if (device < 0 || device >= kMaxDevices) {
    return OpError(op, StrCat("device ", device, " is beyond the ", kMaxDevices,
                              " the cuda plugin supports"));
  }
  std::lock_guard<std::mutex> lock(State().mu);
  if (State().lt[device] == nullptr) {
    SY_PLUGIN_RETURN_IF_ERROR(
        LtError(cublasLtCreate(&State().lt[device]), op, "cublasLtCreate failed"));
    cudaMemPool_t pool = nullptr;
    if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess) {
      uint64_t threshold = UINT64_MAX;
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
    }
    (void)cudaGetLastError();
  }
  *out = State().lt[device];
  return nullptr;
}

// A matrix read as row-major (or column-major) and its leading dimension.
// A dim of size 1 has no meaningful stride, so a vector fits either order;
// the leading dimension must still cover the other dim for cuBLASLt.
struct Order {
  bool ok = false;
  int64_t ld = 0;
};
Order RowMajor(const GemmMatrix& m) {
  if (m.cols > 1 && m.cs != 1) return {};
  const int64_t ld = m.rows <= 1 ? std::max<int64_t>(m.cols, 1) : m.rs;
  return {ld >= std::max<int64_t>(m.cols, 1), ld};
}
Order ColMajor(const GemmMatrix& m) {
  if (m.rows > 1 && m.rs != 1) return {};
  const int64_t ld = m.cols <= 1 ? std::max<int64_t>(m.rows, 1) : m.cs;
  return {ld >= std::max<int64_t>(m.rows, 1), ld};
}

uint32_t AlignmentOf(const void* p, size_t elem) {
  uint32_t a = 256;
  const auto addr = reinterpret_cast<uintptr_t>(p);
  while (a > elem && addr % a != 0) a /= 2;
  return a;
}

cudaDataType_t DataType(sy_dtype_t dtype) {
  return dtype == SY_DTYPE_F16    ? CUDA_R_16F
         : dtype == SY_DTYPE_BF16 ? CUDA_R_16BF
         : dtype == SY_DTYPE_F64  ? CUDA_R_64F
                                  : CUDA_R_32F;
}

// RAII for the descriptors of one call.
struct Descriptors {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  ~Descriptors() {
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (desc) cublasLtMatmulDescDestroy(desc);
  }
};

// The cuBLASLt problem after Note [GEMM mapping]: "lt A" is our B, "lt B"
// our A, D is C^T. No padding (checked below), so its bytes are a key.
struct LtProblem {
  int32_t type = 0, trans_a = 0, trans_b = 0, epilogue = 0;
  int32_t batch = 1, device = 0;
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  uint32_t align_a = 0, align_b = 0, align_c = 0, align_bias = 0;

  bool operator==(const LtProblem& o) const {
    return std::memcmp(this, &o, sizeof o) == 0;
  }
};
static_assert(std::has_unique_object_representations_v<LtProblem>,
              "LtProblem's bytes are its key: no padding");

struct LtProblemHash {
  size_t operator()(const LtProblem& p) const {
    return std::hash<std::string_view>()(
        std::string_view(reinterpret_cast<const char*>(&p), sizeof p));
  }
};

template <class T>
cublasStatus_t SetLayout(cublasLtMatrixLayout_t l,
                         cublasLtMatrixLayoutAttribute_t attr, T value) {
  return cublasLtMatrixLayoutSetAttribute(l, attr, &value, sizeof(value));
}
template <class T>
cublasStatus_t SetDesc(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t attr,
                       T value) {
  return cublasLtMatmulDescSetAttribute(d, attr, &value, sizeof(value));
}
template <class T>
cublasStatus_t SetPref(cublasLtMatmulPreference_t p,
                       cublasLtMatmulPreferenceAttributes_t attr, T value) {
  return cublasLtMatmulPreferenceSetAttribute(p, attr, &value, sizeof(value));
}

// Everything but the bias pointer, which each call sets.
sy_error_t* MakeDescriptors(const LtProblem& lp, Descriptors& d,
                            std::string_view op) {
  const auto type = static_cast<cudaDataType_t>(lp.type);
  // f64 in full double precision (alpha and beta doubles too); everything
  // else accumulates in f32 (Note [GEMM mapping]).
  const bool f64 = type == CUDA_R_64F;
  SY_PLUGIN_RETURN_IF_ERROR(LtError(
      cublasLtMatmulDescCreate(&d.desc,
                               f64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F,
                               f64 ? CUDA_R_64F : CUDA_R_32F),
      op, "creating the matmul descriptor failed"));
  SY_PLUGIN_RETURN_IF_ERROR(LtError(
      SetDesc(d.desc, CUBLASLT_MATMUL_DESC_TRANSA,
              static_cast<cublasOperation_t>(lp.trans_a)), op, "TRANSA"));
  SY_PLUGIN_RETURN_IF_ERROR(LtError(
      SetDesc(d.desc, CUBLASLT_MATMUL_DESC_TRANSB,
              static_cast<cublasOperation_t>(lp.trans_b)), op, "TRANSB"));
  if (lp.epilogue != CUBLASLT_EPILOGUE_DEFAULT) {
    SY_PLUGIN_RETURN_IF_ERROR(LtError(
        SetDesc(d.desc, CUBLASLT_MATMUL_DESC_EPILOGUE,
                static_cast<cublasLtEpilogue_t>(lp.epilogue)), op, "EPILOGUE"));
  }
  if (lp.align_bias != 0) {
    SY_PLUGIN_RETURN_IF_ERROR(LtError(
        SetDesc(d.desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, type), op,
        "BIAS_DATA_TYPE"));
  }
  const bool ta = lp.trans_a == CUBLAS_OP_T, tb = lp.trans_b == CUBLAS_OP_T;
  SY_PLUGIN_RETURN_IF_ERROR(LtError(
      cublasLtMatrixLayoutCreate(&d.a, type, ta ? lp.k : lp.m,
                                 ta ? lp.m : lp.k, lp.lda), op, "layout A"));
  SY_PLUGIN_RETURN_IF_ERROR(LtError(
      cublasLtMatrixLayoutCreate(&d.b, type, tb ? lp.n : lp.k,
                                 tb ? lp.k : lp.n, lp.ldb), op, "layout B"));
  SY_PLUGIN_RETURN_IF_ERROR(LtError(
      cublasLtMatrixLayoutCreate(&d.c, type, lp.m, lp.n, lp.ldc), op,
      "layout C"));
  if (lp.batch > 1) {
    const std::pair<cublasLtMatrixLayout_t, int64_t> layouts[] = {
        {d.a, lp.stride_a}, {d.b, lp.stride_b}, {d.c, lp.stride_c}};
    for (const auto& [layout, stride] : layouts) {
      SY_PLUGIN_RETURN_IF_ERROR(LtError(
          SetLayout(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, lp.batch), op,
          "BATCH_COUNT"));
      SY_PLUGIN_RETURN_IF_ERROR(LtError(
          SetLayout(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, stride),
          op, "STRIDED_BATCH_OFFSET"));
    }
  }
  SY_PLUGIN_RETURN_IF_ERROR(LtError(cublasLtMatmulPreferenceCreate(&d.pref), op,
                                    "creating the preference failed"));
  SY_PLUGIN_RETURN_IF_ERROR(LtError(
      SetPref(d.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
              static_cast<uint64_t>(kGemmWorkspaceBytes)), op, "workspace"));
  const std::pair<cublasLtMatmulPreferenceAttributes_t, uint32_t> aligns[] = {
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, lp.align_a},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, lp.align_b},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, lp.align_c},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, lp.align_c}};
  for (const auto& [attr, value] : aligns) {
    SY_PLUGIN_RETURN_IF_ERROR(LtError(SetPref(d.pref, attr, value), op,
                                      "alignment preference"));
  }
  return nullptr;
}

// Merges batch dims that are dense over each other for every operand and
// drops size-1 ones.
void MergeBatch(GemmProblem& p) {
  int nd = 0;
  int64_t shape[SY_MAX_RANK];
  int64_t st[3][SY_MAX_RANK];
  for (int d = 0; d < p.batch_ndim; ++d) {
    if (p.batch_shape[d] == 1) continue;
    bool merge = nd > 0;
    for (int k = 0; k < 3 && merge; ++k) {
      merge = st[k][nd - 1] == p.batch_stride[k][d] * p.batch_shape[d];
    }
    if (merge) {
      shape[nd - 1] *= p.batch_shape[d];
      for (int k = 0; k < 3; ++k) st[k][nd - 1] = p.batch_stride[k][d];
    } else {
      shape[nd] = p.batch_shape[d];
      for (int k = 0; k < 3; ++k) st[k][nd] = p.batch_stride[k][d];
      ++nd;
    }
  }
  p.batch_ndim = nd;
  for (int d = 0; d < nd; ++d) {
    p.batch_shape[d] = shape[d];
    for (int k = 0; k < 3; ++k) p.batch_stride[k][d] = st[k][d];
  }
}

// Frees stream-ordered temporaries when the call returns.
struct Temporaries {
  cudaStream_t stream = nullptr;
  std::vector<void*> buffers;
  ~Temporaries() {
    for (void* b : buffers) cudaFreeAsync(b, stream);
  }
};

// Note [GEMM plans]: what a GEMM needs besides its pointers — the cuBLASLt
// descriptors and the heuristic's ranking — depends only on the problem
// (LtProblem), and making it costs more host time than the matmul's
// launch: five descriptors, a dozen attributes, a map lookup with a string
// key. So each thread keeps a plan per problem, made once; a call sets
// only the bias pointer (a descriptor attribute, read when cublasLtMatmul
// enqueues) and launches. Plans are per thread because that attribute is
// written per call; the heuristic's results are also shared between
// threads (Rankings()), since asking it is the slow part. A thread
// keeps at most kMaxThreadPlans plans and starts afresh when it has more
// (a model has a few dozen GEMM shapes). The workspace is the stream's
// (cuda::Stream::gemm_workspace): one buffer per stream, which its GEMMs
// use in stream order, instead of a cudaMallocAsync/cudaFreeAsync pair per
// call.
struct Plan {
  Descriptors d;
  std::vector<cublasLtMatmulHeuristicResult_t> results;
};
constexpr size_t kMaxThreadPlans = 256;

struct ThreadPlans {
  std::unordered_map<LtProblem, std::unique_ptr<Plan>, LtProblemHash> plans;
  cublasLtHandle_t handles[kMaxDevices] = {};
};
thread_local ThreadPlans t_plans;

// The heuristic's rankings, shared by every thread (Note [GEMM plans]).
struct SharedRankings {
  std::mutex mu;
  std::unordered_map<LtProblem, std::vector<cublasLtMatmulHeuristicResult_t>,
                     LtProblemHash>
      by_problem;
};

SharedRankings& Rankings() {
  static SharedRankings rankings;
  return rankings;
}

// The heuristic's ranking for `lp` with descriptors `d`: the shared one, or
// asked for and shared.
sy_error_t* RankAlgorithms(cublasLtHandle_t handle, const LtProblem& lp,
                           const Descriptors& d, std::string_view op,
                           std::vector<cublasLtMatmulHeuristicResult_t>* out) {
  SharedRankings& shared = Rankings();
  {
    std::lock_guard<std::mutex> lock(shared.mu);
    auto it = shared.by_problem.find(lp);
    if (it != shared.by_problem.end()) {
      *out = it->second;
      return nullptr;
    }
  }
  std::vector<cublasLtMatmulHeuristicResult_t> results(kGemmVariants);
  int found = 0;
  SY_PLUGIN_RETURN_IF_ERROR(LtError(
      cublasLtMatmulAlgoGetHeuristic(handle, d.desc, d.a, d.b, d.c, d.c, d.pref,
                                     kGemmVariants, results.data(), &found),
      op, "cuBLASLt's heuristic failed"));
  if (found == 0) {
    return MakeError(SY_STATUS_UNIMPLEMENTED,
                     StrCat("cuda plugin: ", op, ": cuBLASLt has no algorithm "
                            "for this problem (M=", lp.n, ", N=", lp.m, ", K=",
                            lp.k, "); make the operands contiguous"));
  }
  results.resize(found);
  std::lock_guard<std::mutex> lock(shared.mu);
  *out = shared.by_problem.emplace(lp, std::move(results)).first->second;
  return nullptr;
}

// This thread's plan for `lp` (Note [GEMM plans]), made on first use.
sy_error_t* PlanFor(cublasLtHandle_t handle, const LtProblem& lp,
                    std::string_view op, Plan** out) {
  auto it = t_plans.plans.find(lp);
  if (it != t_plans.plans.end()) {
    *out = it->second.get();
    return nullptr;
  }
  auto plan = std::make_unique<Plan>();
  SY_PLUGIN_RETURN_IF_ERROR(MakeDescriptors(lp, plan->d, op));
  SY_PLUGIN_RETURN_IF_ERROR(RankAlgorithms(handle, lp, plan->d, op, &plan->results));
  if (t_plans.plans.size() >= kMaxThreadPlans) t_plans.plans.clear();
  *out = t_plans.plans.emplace(lp, std::move(plan)).first->second.get();
  return nullptr;
}

// This thread's copy of the device's handle (HandleFor takes a lock).
sy_error_t* ThreadHandle(int device, std::string_view op, cublasLtHandle_t* out) {
  if (device >= 0 && device < kMaxDevices && t_plans.handles[device] != nullptr) {
    *out = t_plans.handles[device];
    return nullptr;
  }
  SY_PLUGIN_RETURN_IF_ERROR(HandleFor(device, op, out));
  t_plans.handles[device] = *out;
  return nullptr;
}

// The stream's workspace of at least `bytes`, made on first use.
sy_error_t* Workspace(gpu::Stream& stream, size_t bytes, std::string_view op,
                      void** out) {
  auto& s = static_cast<Stream&>(stream);  // every stream of the plugin is one
  if (s.gemm_workspace == nullptr) {
    SY_PLUGIN_RETURN_IF_ERROR(CudaError(
        cudaMalloc(&s.gemm_workspace, kGemmWorkspaceBytes),
        StrCat("cuda plugin: ", op), "allocating the GEMM workspace failed"));
  }
  if (bytes > kGemmWorkspaceBytes) {
    return MakeError(SY_STATUS_INTERNAL,
                     StrCat("cuda plugin: ", op, ": cuBLASLt asked for a ",
                            bytes, "-byte workspace, more than the ",
                            kGemmWorkspaceBytes, " it was offered; report it"));
  }
  *out = s.gemm_workspace;
  return nullptr;
}

}  // namespace

sy_error_t* RunGemm(gpu::Stream& stream, const GemmProblem& problem,
                    int variant, std::string_view op) {
  GemmProblem p = problem;
  const int64_t m = p.a.rows, k = p.a.cols, n = p.b.cols;
  if (p.b.rows != k || p.c.rows != m || p.c.cols != n) {
    return OpError(op, StrCat("operands of shapes [", m, ", ", k, "] x [",
                              p.b.rows, ", ", n, "] -> [", p.c.rows, ", ",
                              p.c.cols, "] do not chain; pass a [M, K] and a "
                              "[K, N] operand"));
  }
  for (int d = 0; d < p.batch_ndim; ++d) {
    if (p.batch_shape[d] == 0) return nullptr;
  }
  if (m == 0 || n == 0) return nullptr;
  const bool has_bias =
      p.epilogue == GemmEpilogue::kBias || p.epilogue == GemmEpilogue::kGeluBias;
  if (k == 0) {
    // The product is zero: the output is the epilogue of zero (gelu(0) = 0).
    if (has_bias) {
      return BiasOutput(stream, p, p.epilogue == GemmEpilogue::kGeluBias, op);
    }
    return ZeroOutput(stream, p, op);
  }
  const Order c_order = RowMajor(p.c);
  if (!c_order.ok) {
    return MakeError(SY_STATUS_UNIMPLEMENTED,
                     StrCat("cuda plugin: ", op, ": the output's last dim is "
                            "not at unit stride; pass a contiguous output"));
  }
  MergeBatch(p);
  Temporaries temps;
  temps.stream = stream.stream;
  for (int which = 0; which < 2; ++which) {
    GemmMatrix& mat = which == 0 ? p.a : p.b;
    if (!RowMajor(mat).ok && !ColMajor(mat).ok) {
      void* buffer = nullptr;
      sy_error_t* error = DensifyOperand(stream, p, which, &buffer, op);
      if (buffer != nullptr) temps.buffers.push_back(buffer);
      if (error != nullptr) return error;
      MergeBatch(p);
    }
  }
  const size_t elem = plugin::DtypeSize(p.dtype);
  LtProblem lp;
  lp.type = DataType(p.dtype);
  lp.m = n;
  lp.n = m;
  lp.k = k;
  // lt A = our B (op(ltA) is N×K): row-major B reads as N×K column-major.
  const Order b_row = RowMajor(p.b);
  lp.trans_a = b_row.ok ? CUBLAS_OP_N : CUBLAS_OP_T;
  lp.lda = b_row.ok ? b_row.ld : ColMajor(p.b).ld;
  const Order a_row = RowMajor(p.a);
  lp.trans_b = a_row.ok ? CUBLAS_OP_N : CUBLAS_OP_T;
  lp.ldb = a_row.ok ? a_row.ld : ColMajor(p.a).ld;
  lp.ldc = c_order.ld;
  const int inner = p.batch_ndim - 1;
  if (p.batch_ndim > 0) {
    lp.batch = static_cast<int32_t>(p.batch_shape[inner]);
    lp.stride_a = p.batch_stride[1][inner];
    lp.stride_b = p.batch_stride[0][inner];
    lp.stride_c = p.batch_stride[2][inner];
  }
  lp.epilogue = p.epilogue == GemmEpilogue::kBias       ? CUBLASLT_EPILOGUE_BIAS
                : p.epilogue == GemmEpilogue::kGelu     ? CUBLASLT_EPILOGUE_GELU
                : p.epilogue == GemmEpilogue::kGeluBias ? CUBLASLT_EPILOGUE_GELU_BIAS
                                                        : CUBLASLT_EPILOGUE_DEFAULT;
  // Alignment of every batch's pointer: the base and the strides.
  const auto align = [&](const void* base, int which) {
    uint32_t a = AlignmentOf(base, elem);
    for (int d = 0; d < p.batch_ndim; ++d) {
      a = std::min(a, AlignmentOf(reinterpret_cast<const void*>(
                                      p.batch_stride[which][d] * elem), elem));
    }
    return a;
  };
  lp.align_a = align(p.b.data, 1);
  lp.align_b = align(p.a.data, 0);
  lp.align_c = align(p.c.data, 2);
  const void* bias = has_bias ? p.bias : nullptr;
  if (bias != nullptr) lp.align_bias = AlignmentOf(bias, elem);

  lp.device = stream.device;

  cublasLtHandle_t handle = nullptr;
  SY_PLUGIN_RETURN_IF_ERROR(ThreadHandle(stream.device, op, &handle));
  Plan* plan = nullptr;
  SY_PLUGIN_RETURN_IF_ERROR(PlanFor(handle, lp, op, &plan));
  const Descriptors& d = plan->d;
  if (bias != nullptr) {
    SY_PLUGIN_RETURN_IF_ERROR(LtError(
        SetDesc(d.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias), op,
        "BIAS_POINTER"));
  }
  const std::vector<cublasLtMatmulHeuristicResult_t>& results = plan->results;
  const int choice = variant < 0 ? 0
                     : variant < static_cast<int>(results.size())
                         ? variant
                         : static_cast<int>(results.size()) - 1;
  const cublasLtMatmulHeuristicResult_t& algo = results[choice];
  void* workspace = nullptr;
  if (algo.workspaceSize > 0) {
    SY_PLUGIN_RETURN_IF_ERROR(
        Workspace(stream, algo.workspaceSize, op, &workspace));
  }
  const float alpha_f = 1.0f, beta_f = 0.0f;
  const double alpha_d = 1.0, beta_d = 0.0;
  const bool f64 = p.dtype == SY_DTYPE_F64;
  const void* alpha = f64 ? static_cast<const void*>(&alpha_d) : &alpha_f;
  const void* beta = f64 ? static_cast<const void*>(&beta_d) : &beta_f;
  // Outer batch dims that did not merge: one cuBLASLt call each.
  int64_t outer = 1;
  for (int dd = 0; dd < inner; ++dd) outer *= p.batch_shape[dd];
  for (int64_t o = 0; o < outer; ++o) {
    int64_t off[3] = {0, 0, 0};
    int64_t rem = o;
    for (int dd = inner - 1; dd >= 0; --dd) {
      const int64_t idx = rem % p.batch_shape[dd];
      rem /= p.batch_shape[dd];
      for (int w = 0; w < 3; ++w) off[w] += idx * p.batch_stride[w][dd];
    }
    const char* a = static_cast<const char*>(p.a.data) + off[0] * elem;
    const char* b = static_cast<const char*>(p.b.data) + off[1] * elem;
    char* c = static_cast<char*>(p.c.data) + off[2] * elem;
    SY_PLUGIN_RETURN_IF_ERROR(LtError(
        cublasLtMatmul(handle, d.desc, alpha, b, d.a, a, d.b, beta, c, d.c,
                       c, d.c, &algo.algo, workspace, algo.workspaceSize,
                       stream.stream),
        op, "cublasLtMatmul failed"));
  }
  return nullptr;
}

}  // namespace sy::cuda
