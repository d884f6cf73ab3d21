// Integer matmul (i32 i64 i8 u8): a plain shared-memory tiled kernel over
// the SDK's GemmProblem (any strides, broadcast batch dims). cuBLASLt has
// no GEMM that wraps modulo 2^bits into an 8-bit or 64-bit output, and the
// op's semantics are NumPy's: the exact product modulo 2^bits, never UB.
// Products and sums run in an unsigned type of at least 32 bits (uint32 for
// 8- and 32-bit types, uint64 for i64), whose wrap-around agrees with the
// result's modulo 2^bits. Not tuned: integer matmul is rare in models, and
// this is about 16x16 tiles of plain multiply-adds.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

#include "kernels/gemm.h"
#include "switchyard/gpu/kernel_util.h"
#include "switchyard/plugin.hpp"

namespace sy::cuda {
namespace {

using ::sy::gpu::GemmProblem;
using ::sy::plugin::MakeError;
using ::sy::plugin::StrCat;

constexpr int kTile = 16;

struct IntGemmArgs {
  const void* a;
  const void* b;
  void* c;
  int64_t m, n, k;
  int64_t ars, acs, brs, bcs, crs, ccs;
  int64_t batches;
  int batch_ndim;
  int64_t batch_shape[SY_MAX_RANK];
  int64_t batch_stride[3][SY_MAX_RANK];
};

template <class T>
using Wide = std::conditional_t<(sizeof(T) <= 4), uint32_t, uint64_t>;

template <class T>
__global__ void IntGemmKernel(IntGemmArgs g) {
  using U = Wide<T>;
  __shared__ U as[kTile][kTile + 1];
  __shared__ U bs[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t row = static_cast<int64_t>(blockIdx.y) * kTile + ty;
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kTile + tx;
  for (int64_t batch = blockIdx.z; batch < g.batches; batch += gridDim.z) {
    int64_t off[3] = {0, 0, 0};
    int64_t rem = batch;
    for (int d = g.batch_ndim - 1; d >= 0; --d) {
      const int64_t idx = rem % g.batch_shape[d];
      rem /= g.batch_shape[d];
      for (int w = 0; w < 3; ++w) off[w] += idx * g.batch_stride[w][d];
    }
    const T* a = static_cast<const T*>(g.a) + off[0];
    const T* b = static_cast<const T*>(g.b) + off[1];
    T* c = static_cast<T*>(g.c) + off[2];
    U acc = 0;
    for (int64_t k0 = 0; k0 < g.k; k0 += kTile) {
      as[ty][tx] = row < g.m && k0 + tx < g.k
                       ? static_cast<U>(a[row * g.ars + (k0 + tx) * g.acs])
                       : U{0};
      bs[ty][tx] = k0 + ty < g.k && col < g.n
                       ? static_cast<U>(b[(k0 + ty) * g.brs + col * g.bcs])
                       : U{0};
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < kTile; ++kk) acc += as[ty][kk] * bs[kk][tx];
      __syncthreads();
    }
    if (row < g.m && col < g.n) c[row * g.crs + col * g.ccs] = static_cast<T>(acc);
  }
}

template <class T>
sy_error_t* Launch(const gpu::Stream& stream, const IntGemmArgs& g,
                   std::string_view op) {
  const int64_t gx = (g.n + kTile - 1) / kTile, gy = (g.m + kTile - 1) / kTile;
  if (gy > 65535 || gx > 0x7fffffff) {
    return MakeError(SY_STATUS_UNIMPLEMENTED,
                     StrCat("cuda plugin: ", op, ": an integer product of ",
                            g.m, " x ", g.n, " is larger than the integer "
                            "GEMM's grid; split it, or cast to a floating "
                            "dtype"));
  }
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy),
                  static_cast<unsigned>(g.batches < 65535 ? g.batches : 65535));
  IntGemmKernel<T><<<grid, dim3(kTile, kTile), 0, stream.stream>>>(g);
  return gpu::CheckLaunched(op);
}

}  // namespace

sy_error_t* RunIntGemm(const gpu::Stream& stream, const GemmProblem& p,
                       std::string_view op) {
  IntGemmArgs g{};
  g.a = p.a.data;
  g.b = p.b.data;
  g.c = p.c.data;
  g.m = p.a.rows;
  g.k = p.a.cols;
  g.n = p.b.cols;
  g.ars = p.a.rs;
  g.acs = p.a.cs;
  g.brs = p.b.rs;
  g.bcs = p.b.cs;
  g.crs = p.c.rs;
  g.ccs = p.c.cs;
  g.batch_ndim = p.batch_ndim;
  g.batches = 1;
  for (int d = 0; d < p.batch_ndim; ++d) {
    g.batch_shape[d] = p.batch_shape[d];
    g.batches *= p.batch_shape[d];
    for (int w = 0; w < 3; ++w) g.batch_stride[w][d] = p.batch_stride[w][d];
  }
  if (g.batches == 0 || g.m == 0 || g.n == 0) return nullptr;
  switch (p.dtype) {
    case SY_DTYPE_I32: return Launch<int32_t>(stream, g, op);
    case SY_DTYPE_I64: return Launch<int64_t>(stream, g, op);
    case SY_DTYPE_I8: return Launch<int8_t>(stream, g, op);
    case SY_DTYPE_U8: return Launch<uint8_t>(stream, g, op);
    default:
      return gpu::OpError(op, StrCat("the integer GEMM takes i32, i64, i8 or "
                                     "u8, not ", plugin::DtypeName(p.dtype)));
  }
}

}  // namespace sy::cuda
