// Note [ROCm GEMM] (gemm.h): the tiled and MFMA kernels and RunGemm.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernels/gemm.h"
#include "rocm_device.h"
#include "switchyard/gpu/device_types.cuh"
#include "switchyard/gpu/kernel_util.h"
#include "switchyard/plugin.hpp"

namespace sy::rocm {
namespace {

using ::sy::gpu::Compute;
using ::sy::gpu::Convert;
using ::sy::gpu::GemmEpilogue;
using ::sy::gpu::GemmProblem;
using ::sy::gpu::Load;
using ::sy::gpu::OpError;
using ::sy::plugin::StrCat;

// The problem as the kernels read it (by value).
struct GemmArgs {
  int64_t m = 0, n = 0, k = 0;
  int64_t a_rs = 0, a_cs = 0, b_rs = 0, b_cs = 0, c_rs = 0, c_cs = 0;
  int batch_ndim = 0;
  int64_t batch = 1;  // product of batch_shape
  int64_t batch_shape[SY_MAX_RANK] = {};
  int64_t batch_stride[3][SY_MAX_RANK] = {};
  bool has_bias = false;
  int64_t bias_stride = 0;
};

constexpr int kThreads = 256;

// Element offsets of batch index `batch` for a, b, c.
__device__ __forceinline__ void BatchOffsets(const GemmArgs& g, int64_t batch,
                                             int64_t off[3]) {
  off[0] = off[1] = off[2] = 0;
  for (int d = g.batch_ndim - 1; d >= 0; --d) {
    const int64_t idx = batch % g.batch_shape[d];
    batch /= g.batch_shape[d];
    for (int w = 0; w < 3; ++w) off[w] += idx * g.batch_stride[w][d];
  }
}

// C[r, c] = acc (+ bias[c]), rounded once to S; outside C nothing.
template <class S>
__device__ __forceinline__ void Store(const GemmArgs& g, S* c, const S* bias,
                                      int64_t r, int64_t col, float acc) {
  if (r >= g.m || col >= g.n) return;
  if (g.has_bias) acc += Load(bias + col * g.bias_stride);
  c[r * g.c_rs + col * g.c_cs] = Convert<S>(acc);
}

// ---- The portable kernel ---------------------------------------------------

constexpr int kTile = 64;   // C tile per block, both dims
constexpr int kTileK = 16;  // K per LDS step

template <class S>
__global__ void __launch_bounds__(kThreads)
    TiledGemm(GemmArgs g, const S* __restrict__ a, const S* __restrict__ b,
              S* __restrict__ c, const S* __restrict__ bias) {
  __shared__ float as[kTileK][kTile + 4];  // as[k][m]
  __shared__ float bs[kTileK][kTile + 4];  // bs[k][n]
  const int tid = threadIdx.x;
  const int tx = tid % 16, ty = tid / 16;  // this thread's 4×4 of the tile
  const int64_t n0 = static_cast<int64_t>(blockIdx.x) * kTile;
  for (int64_t batch = blockIdx.z; batch < g.batch; batch += gridDim.z) {
    int64_t off[3];
    BatchOffsets(g, batch, off);
    const S* ab = a + off[0];
    const S* bb = b + off[1];
    S* cb = c + off[2];
    for (int64_t m0 = static_cast<int64_t>(blockIdx.y) * kTile; m0 < g.m;
         m0 += static_cast<int64_t>(gridDim.y) * kTile) {
      float acc[4][4] = {};
      for (int64_t k0 = 0; k0 < g.k; k0 += kTileK) {
        for (int e = tid; e < kTile * kTileK; e += kThreads) {
          // Consecutive threads walk A's unit-stride dim.
          const bool k_fast = g.a_cs == 1;
          const int mm = k_fast ? e / kTileK : e % kTile;
          const int kk = k_fast ? e % kTileK : e / kTile;
          const int64_t r = m0 + mm, kx = k0 + kk;
          as[kk][mm] = (r < g.m && kx < g.k)
                           ? static_cast<float>(Load(ab + r * g.a_rs + kx * g.a_cs))
                           : 0.0f;
        }
        for (int e = tid; e < kTile * kTileK; e += kThreads) {
          const bool n_fast = g.b_cs == 1;
          const int nn = n_fast ? e % kTile : e / kTileK;
          const int kk = n_fast ? e / kTile : e % kTileK;
          const int64_t col = n0 + nn, kx = k0 + kk;
          bs[kk][nn] = (col < g.n && kx < g.k)
                           ? static_cast<float>(Load(bb + kx * g.b_rs + col * g.b_cs))
                           : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < kTileK; ++kk) {
          float av[4], bv[4];
#pragma unroll
          for (int i = 0; i < 4; ++i) av[i] = as[kk][ty * 4 + i];
#pragma unroll
          for (int j = 0; j < 4; ++j) bv[j] = bs[kk][tx * 4 + j];
#pragma unroll
          for (int i = 0; i < 4; ++i) {
#pragma unroll
            for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
          }
        }
        __syncthreads();
      }
#pragma unroll
      for (int i = 0; i < 4; ++i) {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          Store(g, cb, bias, m0 + ty * 4 + i, n0 + tx * 4 + j, acc[i][j]);
        }
      }
    }
  }
}

// ---- The matrix-core kernel (gfx90a) ---------------------------------------

constexpr int kMfmaTile = 128;  // C tile per block, both dims

#if defined(__gfx90a__)
constexpr int kMfmaK = 16;  // K per LDS step
constexpr int kLdsPad = 4;  // elements after each LDS row

typedef _Float16 F16x4 __attribute__((ext_vector_type(4)));
typedef short I16x4 __attribute__((ext_vector_type(4)));
typedef float F32x16 __attribute__((ext_vector_type(16)));

// LDS holds 16-bit operands as their bits, f32 as float.
template <class S>
using LdsOf = std::conditional_t<sizeof(S) == 2, uint16_t, float>;

template <class S>
__device__ __forceinline__ LdsOf<S> ToLds(S v) {
  return __builtin_bit_cast(LdsOf<S>, v);
}

// Lane mappings (AMD's matrix instruction layouts, wave64; lane l, g = l/32):
//   32x32x8 f16/bf16: lane l holds A[l%32][4g + j] and B[4g + j][l%32] for
//                     j = 0..3;
//   32x32x2 f32:      lane l holds A[l%32][g] and B[g][l%32];
//   result (both):    element r of lane l is D[8(r/4) + 4g + r%4][l%32].
template <class S>
__device__ void MfmaGemmBody(const GemmArgs& g, const S* __restrict__ a,
                             const S* __restrict__ b, S* __restrict__ c,
                             const S* __restrict__ bias) {
  using L = LdsOf<S>;
  __shared__ L as[kMfmaTile][kMfmaK + kLdsPad];  // as[m][k]
  __shared__ L bs[kMfmaTile][kMfmaK + kLdsPad];  // bs[n][k]
  const int tid = threadIdx.x;
  const int lane = tid % 64, wave = tid / 64;
  const int wm = wave / 2, wn = wave % 2;  // this wave's 64×64 of the tile
  const int lrow = lane % 32, lgrp = lane / 32;
  const int64_t n0 = static_cast<int64_t>(blockIdx.x) * kMfmaTile;
  for (int64_t batch = blockIdx.z; batch < g.batch; batch += gridDim.z) {
    int64_t off[3];
    BatchOffsets(g, batch, off);
    const S* ab = a + off[0];
    const S* bb = b + off[1];
    S* cb = c + off[2];
    for (int64_t m0 = static_cast<int64_t>(blockIdx.y) * kMfmaTile; m0 < g.m;
         m0 += static_cast<int64_t>(gridDim.y) * kMfmaTile) {
      F32x16 acc[2][2];
#pragma unroll
      for (int tm = 0; tm < 2; ++tm) {
#pragma unroll
        for (int tn = 0; tn < 2; ++tn) {
#pragma unroll
          for (int r = 0; r < 16; ++r) acc[tm][tn][r] = 0.0f;
        }
      }
      for (int64_t k0 = 0; k0 < g.k; k0 += kMfmaK) {
        for (int e = tid; e < kMfmaTile * kMfmaK; e += kThreads) {
          const bool k_fast = g.a_cs == 1;
          const int mm = k_fast ? e / kMfmaK : e % kMfmaTile;
          const int kk = k_fast ? e % kMfmaK : e / kMfmaTile;
          const int64_t r = m0 + mm, kx = k0 + kk;
          as[mm][kk] = (r < g.m && kx < g.k)
                           ? ToLds(ab[r * g.a_rs + kx * g.a_cs])
                           : L(0);
        }
        for (int e = tid; e < kMfmaTile * kMfmaK; e += kThreads) {
          const bool n_fast = g.b_cs == 1;
          const int nn = n_fast ? e % kMfmaTile : e / kMfmaK;
          const int kk = n_fast ? e / kMfmaTile : e % kMfmaK;
          const int64_t col = n0 + nn, kx = k0 + kk;
          bs[nn][kk] = (col < g.n && kx < g.k)
                           ? ToLds(bb[kx * g.b_rs + col * g.b_cs])
                           : L(0);
        }
        __syncthreads();
        if constexpr (sizeof(S) == 2) {
#pragma unroll
          for (int ks = 0; ks < kMfmaK; ks += 8) {
            L x[2][4], y[2][4];
#pragma unroll
            for (int t = 0; t < 2; ++t) {
#pragma unroll
              for (int j = 0; j < 4; ++j) {
                x[t][j] = as[wm * 64 + t * 32 + lrow][ks + 4 * lgrp + j];
                y[t][j] = bs[wn * 64 + t * 32 + lrow][ks + 4 * lgrp + j];
              }
            }
#pragma unroll
            for (int tm = 0; tm < 2; ++tm) {
#pragma unroll
              for (int tn = 0; tn < 2; ++tn) {
                if constexpr (std::is_same_v<S, gpu::half>) {
                  const F16x4 xa = {
                      __builtin_bit_cast(_Float16, x[tm][0]),
                      __builtin_bit_cast(_Float16, x[tm][1]),
                      __builtin_bit_cast(_Float16, x[tm][2]),
                      __builtin_bit_cast(_Float16, x[tm][3])};
                  const F16x4 yb = {
                      __builtin_bit_cast(_Float16, y[tn][0]),
                      __builtin_bit_cast(_Float16, y[tn][1]),
                      __builtin_bit_cast(_Float16, y[tn][2]),
                      __builtin_bit_cast(_Float16, y[tn][3])};
                  acc[tm][tn] = __builtin_amdgcn_mfma_f32_32x32x8f16(
                      xa, yb, acc[tm][tn], 0, 0, 0);
                } else {
                  const I16x4 xa = {__builtin_bit_cast(short, x[tm][0]),
                                    __builtin_bit_cast(short, x[tm][1]),
                                    __builtin_bit_cast(short, x[tm][2]),
                                    __builtin_bit_cast(short, x[tm][3])};
                  const I16x4 yb = {__builtin_bit_cast(short, y[tn][0]),
                                    __builtin_bit_cast(short, y[tn][1]),
                                    __builtin_bit_cast(short, y[tn][2]),
                                    __builtin_bit_cast(short, y[tn][3])};
                  acc[tm][tn] = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(
                      xa, yb, acc[tm][tn], 0, 0, 0);
                }
              }
            }
          }
        } else {
#pragma unroll
          for (int ks = 0; ks < kMfmaK; ks += 2) {
            float x[2], y[2];
#pragma unroll
            for (int t = 0; t < 2; ++t) {
              x[t] = as[wm * 64 + t * 32 + lrow][ks + lgrp];
              y[t] = bs[wn * 64 + t * 32 + lrow][ks + lgrp];
            }
#pragma unroll
            for (int tm = 0; tm < 2; ++tm) {
#pragma unroll
              for (int tn = 0; tn < 2; ++tn) {
                acc[tm][tn] = __builtin_amdgcn_mfma_f32_32x32x2f32(
                    x[tm], y[tn], acc[tm][tn], 0, 0, 0);
              }
            }
          }
        }
        __syncthreads();
      }
#pragma unroll
      for (int tm = 0; tm < 2; ++tm) {
#pragma unroll
        for (int tn = 0; tn < 2; ++tn) {
#pragma unroll
          for (int r = 0; r < 16; ++r) {
            const int64_t row =
                m0 + wm * 64 + tm * 32 + 8 * (r / 4) + 4 * lgrp + r % 4;
            const int64_t col = n0 + wn * 64 + tn * 32 + lrow;
            Store(g, cb, bias, row, col, acc[tm][tn][r]);
          }
        }
      }
    }
  }
}
#endif  // __gfx90a__

template <class S>
__global__ void __launch_bounds__(kThreads)
    MfmaGemm(GemmArgs g, const S* __restrict__ a, const S* __restrict__ b,
             S* __restrict__ c, const S* __restrict__ bias) {
#if defined(__gfx90a__)
  MfmaGemmBody<S>(g, a, b, c, bias);
#else
  // Never launched: RunGemm picks this kernel only for gfx90a devices.
  __builtin_trap();
#endif
}

// ---- Launch ----------------------------------------------------------------

template <class S>
sy_error_t* Launch(const gpu::Stream& stream, const GemmArgs& g,
                   const GemmProblem& p, GemmKernel kernel,
                   std::string_view op) {
  const int tile = kernel == GemmKernel::kMfma ? kMfmaTile : kTile;
  const auto blocks = [](int64_t size, int64_t tile, int64_t cap) {
    return static_cast<unsigned>(
        std::clamp<int64_t>((size + tile - 1) / tile, 1, cap));
  };
  // x: N tiles (up to 2^31 - 1); y and z are looped past 65535 in-kernel.
  const dim3 grid(blocks(g.n, tile, 0x7fffffff), blocks(g.m, tile, 65535),
                  static_cast<unsigned>(std::clamp<int64_t>(g.batch, 1, 65535)));
  const auto* a = static_cast<const S*>(p.a.data);
  const auto* b = static_cast<const S*>(p.b.data);
  auto* c = static_cast<S*>(p.c.data);
  const auto* bias = static_cast<const S*>(p.bias);
  if (kernel == GemmKernel::kMfma) {
    MfmaGemm<S><<<grid, kThreads, 0, stream.stream>>>(g, a, b, c, bias);
  } else {
    TiledGemm<S><<<grid, kThreads, 0, stream.stream>>>(g, a, b, c, bias);
  }
  return gpu::CheckLaunched(op);
}

}  // namespace

sy_error_t* RunGemm(const gpu::Stream& stream, const GemmProblem& p,
                    int variant, std::string_view op) {
  const int64_t m = p.a.rows, k = p.a.cols, n = p.b.cols;
  if (p.b.rows != k || p.c.rows != m || p.c.cols != n) {
    return OpError(op, StrCat("operands of shapes [", m, ", ", k, "] x [",
                              p.b.rows, ", ", n, "] -> [", p.c.rows, ", ",
                              p.c.cols, "] do not chain; pass a [M, K] and a "
                              "[K, N] operand"));
  }
  if (p.epilogue == GemmEpilogue::kGelu ||
      p.epilogue == GemmEpilogue::kGeluBias) {
    return plugin::MakeError(
        SY_STATUS_UNIMPLEMENTED,
        StrCat(gpu::Where(op), ": the GEMM has no GELU epilogue; run gelu "
               "after it"));
  }
  GemmArgs g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a_rs = p.a.rs;
  g.a_cs = p.a.cs;
  g.b_rs = p.b.rs;
  g.b_cs = p.b.cs;
  g.c_rs = p.c.rs;
  g.c_cs = p.c.cs;
  g.batch_ndim = p.batch_ndim;
  for (int d = 0; d < p.batch_ndim; ++d) {
    g.batch_shape[d] = p.batch_shape[d];
    g.batch *= p.batch_shape[d];
    for (int w = 0; w < 3; ++w) g.batch_stride[w][d] = p.batch_stride[w][d];
  }
  g.has_bias = p.epilogue == GemmEpilogue::kBias && p.bias != nullptr;
  g.bias_stride = p.bias_stride;
  if (m == 0 || n == 0 || g.batch == 0) return nullptr;
  const RocmProbe& probe = ProbeRocm();
  const bool mfma = stream.device >= 0 &&
                    stream.device < static_cast<int>(probe.mfma.size()) &&
                    probe.mfma[stream.device];
  const GemmKernel kernel =
      mfma && variant != static_cast<int>(GemmKernel::kTiled)
          ? GemmKernel::kMfma
          : GemmKernel::kTiled;
  switch (p.dtype) {
    case SY_DTYPE_F32: return Launch<float>(stream, g, p, kernel, op);
    case SY_DTYPE_F16: return Launch<gpu::half>(stream, g, p, kernel, op);
    case SY_DTYPE_BF16: return Launch<gpu::bfloat16>(stream, g, p, kernel, op);
    default:
      return plugin::MakeError(
          SY_STATUS_UNIMPLEMENTED,
          StrCat(gpu::Where(op), ": the GEMM takes f32, f16 or bf16, not ",
                 plugin::DtypeName(p.dtype), "; cast the operands"));
  }
}

}  // namespace sy::rocm
