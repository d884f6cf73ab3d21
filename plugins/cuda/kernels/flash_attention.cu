// The fused attention kernel (Note [Flash attention], flash_attention.h).
//
// Fragments are those of mma_fragments.cuh. Q [row][e] gives A, K
// [key][e] gives B of S = Q·Kᵀ as it is, and V [key][ev] gives B of
// O = P·V transposed (.trans). Two adjacent C tiles of S (16 keys) are one
// A fragment of P (FlashAttention-2's trick), so P never leaves registers.
#include "kernels/flash_attention.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>

#include "kernels/cp_async.cuh"
#include "kernels/mma_fragments.cuh"
#include "kernels/smem_limit.cuh"

namespace sy::cuda {
namespace {

constexpr float kLog2e = 1.4426950408889634f;

// 2^x with the hardware's approximation (2 ulp; 2^-inf = 0, NaN stays NaN):
// the probabilities are rounded to 16 bits before P·V anyway.
__device__ __forceinline__ float Exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// Rows [r0, r0 + kRows) of a [rows, cols] operand (row stride `rs`, unit
// column stride) into shared memory (row stride D + 8), 16 bytes per
// cp.async; rows past `rows` and columns past `cols` (a multiple of 8)
// become zeros, so padded keys and values contribute nothing.
template <class T, int D, int kRows, int kThreads>
__device__ __forceinline__ void LoadTile(T* s, const T* g, int64_t r0,
                                         int64_t rows, int64_t rs, int64_t cols,
                                         int tid) {
  constexpr int kChunks = D / 8;
#pragma unroll 4
  for (int i = tid; i < kRows * kChunks; i += kThreads) {
    const int r = i / kChunks;
    const int c = (i % kChunks) * 8;
    T* dst = s + r * (D + 8) + c;
    if (r0 + r < rows && c < cols) {
      CpAsync16(dst, g + (r0 + r) * rs + c);
    } else {
      *reinterpret_cast<uint4*>(dst) = make_uint4(0, 0, 0, 0);
    }
  }
}

template <class T, int D, int Br, int Bc, bool kMask>
__global__ void __launch_bounds__(Br / 16 * 32)
    FlashKernel(const __grid_constant__ FlashParams p) {
  constexpr int kThreads = Br / 16 * 32;
  constexpr int kStride = D + 8;
  constexpr int kNt = Bc / 8;  // n-tiles of S
  constexpr int kDt = D / 8;   // n-tiles of O
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* sq = reinterpret_cast<T*>(smem_raw);
  T* sk = sq + Br * kStride;
  T* sv = sk + Bc * kStride;

  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;
  const int64_t n_qtiles = (p.lq + Br - 1) / Br;
  const int64_t batch = static_cast<int64_t>(blockIdx.x) / n_qtiles;
  // The heaviest query tiles (the last, under a causal mask) start first.
  const int64_t q0 = (n_qtiles - 1 - static_cast<int64_t>(blockIdx.x) % n_qtiles) * Br;

  int64_t off[kAttnOperands] = {};
  {
    int64_t rem = batch;
    for (int d = p.batch_ndim - 1; d >= 0; --d) {
      const int64_t idx = rem % p.batch_shape[d];
      rem /= p.batch_shape[d];
#pragma unroll
      for (int k = 0; k < kAttnOperands; ++k) off[k] += idx * p.batch_stride[k][d];
    }
  }
  const T* q = static_cast<const T*>(p.q) + off[kAttnQ];
  const T* k = static_cast<const T*>(p.k) + off[kAttnK];
  const T* v = static_cast<const T*>(p.v) + off[kAttnV];

  LoadTile<T, D, Br, kThreads>(sq, q, q0, p.lq, p.q_rs, p.e, tid);
  CpAsyncCommit();
  const int64_t kv_end = p.causal ? (p.lk < q0 + Br ? p.lk : q0 + Br) : p.lk;
  const int n_kv = static_cast<int>((kv_end + Bc - 1) / Bc);
  if (n_kv > 0) LoadTile<T, D, Bc, kThreads>(sk, k, 0, p.lk, p.k_rs, p.e, tid);
  CpAsyncCommit();

  // Q's A fragments stay in registers where they fit (D <= 128: 32
  // registers), sparing a shared-memory read of Q per key tile.
  constexpr bool kQInRegs = D <= 128;
  uint32_t qf[kQInRegs ? D / 16 : 1][4];
  float o[kDt][4];
#pragma unroll
  for (int i = 0; i < kDt; ++i) o[i][0] = o[i][1] = o[i][2] = o[i][3] = 0.f;
  float row_max[2] = {-INFINITY, -INFINITY};
  float row_sum[2] = {0.f, 0.f};
  const float scale_log2 = p.scale * kLog2e;
  const int64_t warp_row0 = q0 + warp * 16;
  const int64_t my_row = warp_row0 + lane / 4;  // and my_row + 8

  for (int j = 0; j < n_kv; ++j) {
    const int64_t kv0 = static_cast<int64_t>(j) * Bc;
    __syncthreads();  // every warp is done with the last V tile
    LoadTile<T, D, Bc, kThreads>(sv, v, kv0, p.lk, p.v_rs, p.ev, tid);
    CpAsyncCommit();
    CpAsyncWait<1>();  // Q and this K tile are in
    __syncthreads();

    if (kQInRegs && j == 0) {
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk) {
        LdMatrixX4(qf[kk], sq + (warp * 16 + (lane % 8) + ((lane / 8) % 2) * 8) * kStride +
                               kk * 16 + (lane / 16) * 8);
      }
    }
    float s[kNt][4];
#pragma unroll
    for (int i = 0; i < kNt; ++i) s[i][0] = s[i][1] = s[i][2] = s[i][3] = 0.f;
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
      uint32_t a[4];
      if constexpr (kQInRegs) {
        a[0] = qf[kk][0];
        a[1] = qf[kk][1];
        a[2] = qf[kk][2];
        a[3] = qf[kk][3];
      } else {
        LdMatrixX4(a, sq + (warp * 16 + (lane % 8) + ((lane / 8) % 2) * 8) * kStride +
                          kk * 16 + (lane / 16) * 8);
      }
#pragma unroll
      for (int nt = 0; nt < kNt; nt += 2) {
        uint32_t b[4];
        LdMatrixX4(b, sk + (nt * 8 + (lane % 8) + (lane / 16) * 8) * kStride +
                          kk * 16 + ((lane / 8) % 2) * 8);
        Mma<T>(s[nt], a, b[0], b[1]);
        Mma<T>(s[nt + 1], a, b[2], b[3]);
      }
    }
    __syncthreads();  // every warp is done with this K tile
    if (j + 1 < n_kv) {
      LoadTile<T, D, Bc, kThreads>(sk, k, kv0 + Bc, p.lk, p.k_rs, p.e, tid);
    }
    CpAsyncCommit();

    // Scores in the log2 domain, masked.
    const bool edge = kv0 + Bc > p.lk || (p.causal && kv0 + Bc - 1 > warp_row0);
#pragma unroll
    for (int nt = 0; nt < kNt; ++nt) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int64_t row = my_row + (e >= 2 ? 8 : 0);
        const int64_t col = kv0 + nt * 8 + (lane % 4) * 2 + (e & 1);
        float x;
        if constexpr (kMask) {
          x = s[nt][e] * p.scale;
          if (row < p.lq && col < p.lk) {
            const int64_t mo = off[kAttnMask] + row * p.m_rs + col * p.m_cs;
            if (p.mask_is_bool) {
              if (static_cast<const uint8_t*>(p.mask)[mo] == 0) x = -INFINITY;
            } else {
              x += ToF(static_cast<const T*>(p.mask)[mo]);
            }
          }
          x *= kLog2e;
        } else {
          x = s[nt][e] * scale_log2;
        }
        if (edge && (col >= p.lk || (p.causal && col > row))) x = -INFINITY;
        s[nt][e] = x;
      }
    }

    // Online softmax: rows my_row (r = 0) and my_row + 8 (r = 1).
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float mx = row_max[r];
#pragma unroll
      for (int nt = 0; nt < kNt; ++nt) mx = fmaxf(mx, fmaxf(s[nt][2 * r], s[nt][2 * r + 1]));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      // Every score so far masked: subtract 0 so that exp gives 0, not NaN.
      const float base = mx == -INFINITY ? 0.f : mx;
      const float alpha = Exp2(row_max[r] - base);
      row_max[r] = mx;
      float sum = 0.f;
#pragma unroll
      for (int nt = 0; nt < kNt; ++nt) {
        s[nt][2 * r] = Exp2(s[nt][2 * r] - base);
        s[nt][2 * r + 1] = Exp2(s[nt][2 * r + 1] - base);
        sum += s[nt][2 * r] + s[nt][2 * r + 1];
      }
      row_sum[r] = row_sum[r] * alpha + sum;
#pragma unroll
      for (int dt = 0; dt < kDt; ++dt) {
        o[dt][2 * r] *= alpha;
        o[dt][2 * r + 1] *= alpha;
      }
    }

    CpAsyncWait<1>();  // this V tile is in (the next K may still load)
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < Bc / 16; ++kk) {
      uint32_t a[4];
      a[0] = Pack<T>(s[2 * kk][0], s[2 * kk][1]);
      a[1] = Pack<T>(s[2 * kk][2], s[2 * kk][3]);
      a[2] = Pack<T>(s[2 * kk + 1][0], s[2 * kk + 1][1]);
      a[3] = Pack<T>(s[2 * kk + 1][2], s[2 * kk + 1][3]);
#pragma unroll
      for (int dt = 0; dt < kDt; dt += 2) {
        uint32_t b[4];
        LdMatrixX4Trans(b, sv + (kk * 16 + (lane % 8) + ((lane / 8) % 2) * 8) * kStride +
                               dt * 8 + (lane / 16) * 8);
        Mma<T>(o[dt], a, b[0], b[1]);
        Mma<T>(o[dt + 1], a, b[2], b[3]);
      }
    }
  }
  CpAsyncWait<0>();

  // Normalize; a fully masked row has sum 0 and o 0, and 0 · (1/0) is NaN,
  // as in the decomposition.
  float inv[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float l = row_sum[r];
    l += __shfl_xor_sync(0xffffffffu, l, 1);
    l += __shfl_xor_sync(0xffffffffu, l, 2);
    inv[r] = 1.f / l;
  }
  // Stage this warp's 16 rows in its own rows of the Q tile (only this
  // warp ever read them), then write them out row by row.
  T* stage = sq + warp * 16 * kStride;
#pragma unroll
  for (int dt = 0; dt < kDt; ++dt) {
    const int c = dt * 8 + (lane % 4) * 2;
    *reinterpret_cast<uint32_t*>(stage + (lane / 4) * kStride + c) =
        Pack<T>(o[dt][0] * inv[0], o[dt][1] * inv[0]);
    *reinterpret_cast<uint32_t*>(stage + (lane / 4 + 8) * kStride + c) =
        Pack<T>(o[dt][2] * inv[1], o[dt][3] * inv[1]);
  }
  __syncwarp();
  T* out = static_cast<T*>(p.out) + off[kAttnOut];
  if (p.out_vectorized) {
    const int chunks = static_cast<int>(p.ev / 8);
    for (int i = lane; i < 16 * chunks; i += 32) {
      const int r = i / chunks, c = (i % chunks) * 8;
      if (warp_row0 + r < p.lq) {
        *reinterpret_cast<uint4*>(out + (warp_row0 + r) * p.o_rs + c) =
            *reinterpret_cast<const uint4*>(stage + r * kStride + c);
      }
    }
  } else {
    const int ev = static_cast<int>(p.ev);
    for (int i = lane; i < 16 * ev; i += 32) {
      const int r = i / ev, c = i % ev;
      if (warp_row0 + r < p.lq) {
        out[(warp_row0 + r) * p.o_rs + c * p.o_cs] = stage[r * kStride + c];
      }
    }
  }
}

template <class T, int D, int Br, int Bc>
cudaError_t Launch(const FlashParams& p, cudaStream_t stream) {
  constexpr int kThreads = Br / 16 * 32;
  constexpr size_t kSmem = static_cast<size_t>(Br + 2 * Bc) * (D + 8) * sizeof(T);
  const int64_t blocks = (p.lq + Br - 1) / Br * p.batches;
  if (blocks == 0) return cudaSuccess;
  if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
  if (p.mask != nullptr) {
    constexpr auto kernel = FlashKernel<T, D, Br, Bc, true>;
    if (cudaError_t e = AllowSmem<kernel>(kSmem); e != cudaSuccess) return e;
    kernel<<<static_cast<unsigned>(blocks), kThreads, kSmem, stream>>>(p);
  } else {
    constexpr auto kernel = FlashKernel<T, D, Br, Bc, false>;
    if (cudaError_t e = AllowSmem<kernel>(kSmem); e != cudaSuccess) return e;
    kernel<<<static_cast<unsigned>(blocks), kThreads, kSmem, stream>>>(p);
  }
  return cudaGetLastError();
}

// Tiles: 64 query rows (4 warps) a block by default, so that two or three
// blocks share a multiprocessor and one's softmax overlaps another's
// matrix products; 128 rows (8 warps, K and V tiles shared by twice the
// rows) when `wide`. D = 256 has room for one shape only.
template <class T>
cudaError_t LaunchFor(const FlashParams& p, cudaStream_t stream) {
  switch (FlashHeadDim(p.e, p.ev)) {
    case 64:
      return p.wide ? Launch<T, 64, 128, 64>(p, stream) : Launch<T, 64, 64, 64>(p, stream);
    case 128:
      return p.wide ? Launch<T, 128, 128, 64>(p, stream) : Launch<T, 128, 64, 64>(p, stream);
    case 256: return Launch<T, 256, 64, 32>(p, stream);
    default: return cudaErrorInvalidValue;
  }
}

// [batches, rows, e_pad] ← a strided operand, zero-padded past `cols`.
__global__ void PackKernel(FlashParams p, int operand, const uint16_t* src,
                           int64_t rows, int64_t cols, int64_t rs, int64_t cs,
                           uint16_t* dst, int64_t e_pad) {
  const int64_t total = p.batches * rows * e_pad;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < total; i += step) {
    const int64_t c = i % e_pad;
    const int64_t r = (i / e_pad) % rows;
    int64_t rem = i / e_pad / rows;
    int64_t off = 0;
    for (int d = p.batch_ndim - 1; d >= 0; --d) {
      off += (rem % p.batch_shape[d]) * p.batch_stride[operand][d];
      rem /= p.batch_shape[d];
    }
    dst[i] = c < cols ? src[off + r * rs + c * cs] : uint16_t{0};
  }
}

}  // namespace

int FlashHeadDim(int64_t e, int64_t ev) {
  const int64_t d = e > ev ? e : ev;
  return d <= 64 ? 64 : d <= 128 ? 128 : d <= 256 ? 256 : 0;
}

cudaError_t LaunchFlashAttention(const FlashParams& p, sy_dtype_t dtype,
                                 cudaStream_t stream) {
  if (dtype == SY_DTYPE_BF16) return LaunchFor<__nv_bfloat16>(p, stream);
  if (dtype == SY_DTYPE_F16) return LaunchFor<__half>(p, stream);
  return cudaErrorInvalidValue;
}

cudaError_t PackAttentionOperand(const FlashParams& p, int operand,
                                 const void* src, int64_t rows, int64_t cols,
                                 int64_t row_stride, int64_t col_stride,
                                 void* dst, int64_t e_pad, cudaStream_t stream) {
  const int64_t total = p.batches * rows * e_pad;
  if (total == 0) return cudaSuccess;
  const int64_t blocks = (total + 255) / 256;
  PackKernel<<<static_cast<unsigned>(blocks < 4096 ? blocks : 4096), 256, 0,
               stream>>>(p, operand, static_cast<const uint16_t*>(src), rows,
                         cols, row_stride, col_stride,
                         static_cast<uint16_t*>(dst), e_pad);
  return cudaGetLastError();
}

}  // namespace sy::cuda
