// The implicit-GEMM convolution (Note [Implicit GEMM conv],
// conv2d_implicit_gemm.h).
#include "kernels/conv2d_implicit_gemm.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>

#include "kernels/cp_async.cuh"
#include "kernels/mma_fragments.cuh"
#include "kernels/smem_limit.cuh"
#include "switchyard/plugin.h"

namespace sy::cuda {
namespace {

constexpr int kThreads = 128;  // 4 warps, 32 output pixels each
constexpr int kBM = 128;       // output pixels per tile
constexpr int kBN = 64;        // output channels per block
constexpr int kMaxReduction = 256;
// More input channels make the patch a tile loads grow past what the
// tensor cores hide, and cuDNN's f32-accumulating engines are at parity
// there (1×1 256→64 at 56²: 0.5–1.7 ms for this kernel's first version,
// 0.02 ms for cuDNN's): the measured pick need not time it.
constexpr int64_t kMaxChannels = 16;
constexpr int kMaxSmem = 160 * 1024;

// The problem as the kernel reads it; everything derived on the host.
struct Params {
  const void* x;
  const void* w;
  const void* bias;  // NULL: none
  void* y;
  int n, c, h, w_in, k, r, s, oh, ow;
  int sh, sw, ph, pw, dh, dw;
  int crs, kp;              // the reduction, and it padded to a multiple of 16
  int patch_rows, patch_cols;
  int prow;                 // patch row stride in elements (a multiple of 8)
  int m_stride;             // patch elements from one output pixel to the next
  int ow_tiles, tiles;      // tiles per output row, and in all
  int w_bytes, koff_bytes, out_bytes;  // shared-memory regions before the patch
  bool relu;
  bool vec_load;            // input rows load in aligned 16-byte chunks
  bool vec_store;           // 16-byte output stores are aligned
};

int64_t RoundUp(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

// Fills `p` from `a`; false when the kernel does not take the problem.
bool Derive(const ImplicitGemmConvArgs& a, Params* p, int* smem) {
  if (a.dtype != SY_DTYPE_F16 && a.dtype != SY_DTYPE_BF16) return false;
  if (a.w_shape[1] != a.x_shape[1]) return false;  // groups > 1
  if (a.x_shape[1] > kMaxChannels) return false;
  for (int d = 0; d < 4; ++d) {
    if (a.x_shape[d] < 1 || a.w_shape[d] < 1 || a.y_shape[d] < 1) return false;
    if (a.x_shape[d] > INT_MAX || a.y_shape[d] > INT_MAX) return false;
  }
  for (int d = 0; d < 2; ++d) {  // tile origins (oh·stride − padding) fit an int
    if (a.stride[d] > 64 || a.dilation[d] > 64 ||
        a.x_shape[2 + d] + 2 * a.padding[d] > INT_MAX / 2) {
      return false;
    }
  }
  const int64_t crs = a.w_shape[1] * a.w_shape[2] * a.w_shape[3];
  if (crs > kMaxReduction) return false;
  const int64_t rows = a.dilation[0] * (a.w_shape[2] - 1) + 1;
  const int64_t cols = (kBM - 1) * a.stride[1] + a.dilation[1] * (a.w_shape[3] - 1) + 1;
  // A patch row is one run of x: NHWC columns × C, or NCHW columns of
  // one channel. Its stride leaves room for the run to start anywhere in
  // a 16-byte chunk, so that chunks of x land on chunks of the patch.
  const int64_t patch_rows = a.nhwc ? rows : rows * a.x_shape[1];
  const int64_t prow = RoundUp((a.nhwc ? cols * a.x_shape[1] : cols) + 7, 8);
  const int64_t kp = RoundUp(crs, 16);
  const int64_t w_bytes = kBN * (kp + 8) * 2;
  const int64_t koff_bytes = kp * 4;
  const int64_t out_bytes = a.nhwc ? kBM * (kBN + 8) * 2 : kBN * (kBM + 8) * 2;
  const int64_t bytes = w_bytes + koff_bytes + out_bytes + patch_rows * prow * 2;
  if (bytes > kMaxSmem) return false;
  const int64_t ow_tiles = (a.y_shape[3] + kBM - 1) / kBM;
  const int64_t tiles = a.y_shape[0] * a.y_shape[2] * ow_tiles;
  // INT_MAX / 2: a block's run of tiles (below) ends past the last tile
  // by less than the grid, which is at most the tile count.
  if (tiles > INT_MAX / 2 || (a.y_shape[1] + kBN - 1) / kBN > 65535) return false;
  p->x = a.x;
  p->w = a.w;
  p->bias = a.bias;
  p->y = a.y;
  p->n = static_cast<int>(a.x_shape[0]);
  p->c = static_cast<int>(a.x_shape[1]);
  p->h = static_cast<int>(a.x_shape[2]);
  p->w_in = static_cast<int>(a.x_shape[3]);
  p->k = static_cast<int>(a.y_shape[1]);
  p->r = static_cast<int>(a.w_shape[2]);
  p->s = static_cast<int>(a.w_shape[3]);
  p->oh = static_cast<int>(a.y_shape[2]);
  p->ow = static_cast<int>(a.y_shape[3]);
  p->sh = static_cast<int>(a.stride[0]);
  p->sw = static_cast<int>(a.stride[1]);
  p->ph = static_cast<int>(a.padding[0]);
  p->pw = static_cast<int>(a.padding[1]);
  p->dh = static_cast<int>(a.dilation[0]);
  p->dw = static_cast<int>(a.dilation[1]);
  p->crs = static_cast<int>(crs);
  p->kp = static_cast<int>(kp);
  p->patch_rows = static_cast<int>(rows);
  p->patch_cols = static_cast<int>(cols);
  p->prow = static_cast<int>(prow);
  p->m_stride = a.nhwc ? p->sw * p->c : p->sw;
  p->ow_tiles = static_cast<int>(ow_tiles);
  p->tiles = static_cast<int>(tiles);
  p->w_bytes = static_cast<int>(w_bytes);
  p->koff_bytes = static_cast<int>(koff_bytes);
  p->out_bytes = static_cast<int>(out_bytes);
  p->relu = a.relu;
  // Every patch row then starts at the same place in its chunk (x's row
  // and plane strides are whole chunks).
  const int64_t x_row = a.nhwc ? a.x_shape[3] * a.x_shape[1] : a.x_shape[3];
  p->vec_load = reinterpret_cast<uintptr_t>(a.x) % 16 == 0 && x_row % 8 == 0;
  const bool aligned = reinterpret_cast<uintptr_t>(a.y) % 16 == 0;
  p->vec_store = aligned && (a.nhwc ? p->k % 8 == 0 : p->ow % 8 == 0);
  *smem = static_cast<int>(bytes);
  return true;
}

// Two patch values as one A register; a k past the reduction (offset -1)
// reads zero.
__device__ __forceinline__ uint32_t PatchPair(const uint16_t* patch, int base,
                                              int lo, int hi) {
  const uint32_t a = lo >= 0 ? patch[base + lo] : 0u;
  const uint32_t b = hi >= 0 ? patch[base + hi] : 0u;
  return a | (b << 16);
}

__device__ __forceinline__ float Activate(float v, bool relu) {
  return relu && !(v > 0.f) && v == v ? 0.f : v;  // ReLU keeps NaN
}

template <class T, bool kNhwc>
__global__ void __launch_bounds__(kThreads)
    ImplicitGemmConvKernel(const __grid_constant__ Params p) {
  extern __shared__ __align__(16) unsigned char smem[];
  T* ws = reinterpret_cast<T*>(smem);
  int* koff = reinterpret_cast<int*>(smem + p.w_bytes);
  T* out = reinterpret_cast<T*>(smem + p.w_bytes + p.koff_bytes);
  uint16_t* patch =
      reinterpret_cast<uint16_t*>(smem + p.w_bytes + p.koff_bytes + p.out_bytes);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int g = lane / 4, t = lane % 4;
  const int k0 = blockIdx.y * kBN;
  const int ws_stride = p.kp + 8;
  constexpr int kOutStride = kNhwc ? kBN + 8 : kBM + 8;

  // The block's weight tile [n][k] (the weight's own order along k),
  // zeros past the channels and the reduction.
  const uint16_t* w = static_cast<const uint16_t*>(p.w);
  uint16_t* ws_bits = reinterpret_cast<uint16_t*>(ws);
  for (int i = tid; i < kBN * p.kp; i += kThreads) {
    const int n = i / p.kp, kk = i - n * p.kp;
    ws_bits[n * ws_stride + kk] =
        k0 + n < p.k && kk < p.crs ? w[static_cast<int64_t>(k0 + n) * p.crs + kk] : 0;
  }
  // Each k's offset in the patch for output pixel 0 of a tile.
  for (int kk = tid; kk < p.kp; kk += kThreads) {
    int off = -1;
    if (kk < p.crs) {
      if constexpr (kNhwc) {  // k = (r·S + s)·C + c; patch [row][col][c]
        const int c = kk % p.c, s = (kk / p.c) % p.s, r = kk / (p.c * p.s);
        off = r * p.dh * p.prow + s * p.dw * p.c + c;
      } else {  // k = (c·R + r)·S + s; patch [c][row][col]
        const int s = kk % p.s, r = (kk / p.s) % p.r, c = kk / (p.r * p.s);
        off = (c * p.patch_rows + r * p.dh) * p.prow + s * p.dw;
      }
    }
    koff[kk] = off;
  }
  // The bias of this thread's accumulator columns (nt·8 + 2t, + 1).
  float bias[kBN / 8][2];
  const T* b = static_cast<const T*>(p.bias);
#pragma unroll
  for (int nt = 0; nt < kBN / 8; ++nt) {
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int kc = k0 + nt * 8 + 2 * t + j;
      bias[nt][j] = b != nullptr && kc < p.k ? ToF(b[kc]) : 0.f;
    }
  }

  const uint16_t* x = static_cast<const uint16_t*>(p.x);
  T* y = static_cast<T*>(p.y);
  const int n_valid = p.k - k0 < kBN ? p.k - k0 : kBN;
  // Each block walks a run of consecutive tiles: neighbouring output rows
  // read mostly the same input rows (5 of 7 for the stem), which the last
  // tile left in L1. Striding by the grid instead read every patch from
  // L2, and NHWC f16 conv1 ran about 6 % slower.
  const int per_block = (p.tiles + gridDim.x - 1) / gridDim.x;
  const int first = blockIdx.x * per_block;
  const int last = first + per_block < p.tiles ? first + per_block : p.tiles;
  for (int tile = first; tile < last; ++tile) {
    const int row = tile / p.ow_tiles;  // n·OH + oh
    const int ow0 = (tile - row * p.ow_tiles) * kBM;
    const int oh = row % p.oh, n = row / p.oh;
    const int ih0 = oh * p.sh - p.ph, iw0 = ow0 * p.sw - p.pw;
    __syncthreads();  // the last tile's patch and output stage are read
    // The patch: input rows ih0.. and columns iw0.., zeros outside x. A
    // patch row is one run of x (NHWC: columns × C; NCHW: columns of one
    // channel), so the bounds are two compares per element and nothing is
    // divided: loads and their index arithmetic were two thirds of the
    // kernel's instructions when each element's place was computed with
    // divisions. Where x's rows are whole 16-byte chunks (vec_load), the
    // run moves in chunks by cp.async, the patch starting `shift`
    // elements into its first chunk: 8 times fewer loads, all in flight
    // at once (NHWC f16 conv1 0.103 → 0.080–0.086 ms on the H200). x's row ends
    // then fall on chunk edges, so a chunk is all zeros (outside the row)
    // or all inside the row, even where it runs past the patch (the
    // elements past it are never read).
    const int elems = kNhwc ? p.patch_cols * p.c : p.patch_cols;  // per patch row
    // (unsigned: iw0·C may pass INT_MAX; its low bits are what count)
    const int shift =
        p.vec_load ? static_cast<int>((kNhwc ? static_cast<unsigned>(iw0) * p.c
                                             : static_cast<unsigned>(iw0)) & 7u)
                   : 0;
    {
      const int col_lo = iw0 < 0 ? -iw0 : 0;
      const int col_hi = p.w_in - iw0 < p.patch_cols ? p.w_in - iw0 : p.patch_cols;
      const int lo = kNhwc ? col_lo * p.c : col_lo;
      const int hi = kNhwc ? col_hi * p.c : col_hi;
      const int rows = kNhwc ? p.patch_rows : p.c * p.patch_rows;
      const int chunks = (shift + elems + 7) / 8;
      for (int pr = 0; pr < rows; ++pr) {
        const int c = kNhwc ? 0 : pr / p.patch_rows;
        const int ih = ih0 + (kNhwc ? pr : pr - c * p.patch_rows);
        const bool inside = ih >= 0 && ih < p.h;
        const int64_t at =
            kNhwc ? ((static_cast<int64_t>(n) * p.h + ih) * p.w_in + iw0) * p.c
                  : ((static_cast<int64_t>(n) * p.c + c) * p.h + ih) * p.w_in + iw0;
        uint16_t* dst = patch + pr * p.prow;
        if (p.vec_load) {
          for (int j = tid; j < chunks; j += kThreads) {
            const int e0 = 8 * j - shift;  // the patch element at dst[8j]
            uint16_t* d = dst + 8 * j;
            if (!inside || e0 + 8 <= lo || e0 >= hi) {
              *reinterpret_cast<uint4*>(d) = make_uint4(0, 0, 0, 0);
            } else {
              CpAsync16Cached(d, x + at + e0);
            }
          }
        } else {
#pragma unroll 4
          for (int e = tid; e < elems; e += kThreads) {
            dst[e] = inside && e >= lo && e < hi ? __ldg(x + at + e) : 0;
          }
        }
      }
      CpAsyncCommit();
      CpAsyncWait<0>();
    }
    __syncthreads();
    const uint16_t* origin = patch + shift;  // patch element 0

    float acc[2][kBN / 8][4] = {};
    for (int kk0 = 0; kk0 < p.kp; kk0 += 16) {
      const int o0 = koff[kk0 + 2 * t], o1 = koff[kk0 + 2 * t + 1];
      const int o2 = koff[kk0 + 2 * t + 8], o3 = koff[kk0 + 2 * t + 9];
      uint32_t a[2][4];
#pragma unroll
      for (int mi = 0; mi < 2; ++mi) {
        const int base = (warp * 32 + mi * 16 + g) * p.m_stride;
        const int base8 = base + 8 * p.m_stride;
        a[mi][0] = PatchPair(origin, base, o0, o1);
        a[mi][1] = PatchPair(origin, base8, o0, o1);
        a[mi][2] = PatchPair(origin, base, o2, o3);
        a[mi][3] = PatchPair(origin, base8, o2, o3);
      }
#pragma unroll
      for (int nt = 0; nt < kBN / 8; nt += 2) {
        uint32_t bf[4];
        LdMatrixX4(bf, ws + (nt * 8 + (lane % 8) + (lane / 16) * 8) * ws_stride + kk0 +
                           ((lane / 8) % 2) * 8);
#pragma unroll
        for (int mi = 0; mi < 2; ++mi) {
          Mma<T>(acc[mi][nt], a[mi], bf[0], bf[1]);
          Mma<T>(acc[mi][nt + 1], a[mi], bf[2], bf[3]);
        }
      }
    }

    // Bias, ReLU and the one rounding, into the output stage.
#pragma unroll
    for (int mi = 0; mi < 2; ++mi) {
#pragma unroll
      for (int nt = 0; nt < kBN / 8; ++nt) {
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int m = warp * 32 + mi * 16 + g + half * 8;
          const int nn = nt * 8 + 2 * t;
          const float v0 = Activate(acc[mi][nt][2 * half] + bias[nt][0], p.relu);
          const float v1 = Activate(acc[mi][nt][2 * half + 1] + bias[nt][1], p.relu);
          const uint32_t pair = Pack<T>(v0, v1);
          if constexpr (kNhwc) {
            *reinterpret_cast<uint32_t*>(out + m * kOutStride + nn) = pair;
          } else {
            reinterpret_cast<uint16_t*>(out)[nn * kOutStride + m] =
                static_cast<uint16_t>(pair & 0xffffu);
            reinterpret_cast<uint16_t*>(out)[(nn + 1) * kOutStride + m] =
                static_cast<uint16_t>(pair >> 16);
          }
        }
      }
    }
    __syncthreads();

    // The stage to y in the output's layout, 16 bytes a store where aligned.
    const int m_valid = p.ow - ow0 < kBM ? p.ow - ow0 : kBM;
    if constexpr (kNhwc) {
      T* dst = y + (static_cast<int64_t>(row) * p.ow + ow0) * p.k + k0;
      for (int i = tid; i < kBM * (kBN / 8); i += kThreads) {
        const int m = i / (kBN / 8), c8 = (i % (kBN / 8)) * 8;
        if (m >= m_valid) break;
        const T* src = out + m * kOutStride + c8;
        if (p.vec_store && c8 + 8 <= n_valid) {
          *reinterpret_cast<uint4*>(dst + static_cast<int64_t>(m) * p.k + c8) =
              *reinterpret_cast<const uint4*>(src);
        } else {
          for (int j = 0; j < 8 && c8 + j < n_valid; ++j) {
            dst[static_cast<int64_t>(m) * p.k + c8 + j] = src[j];
          }
        }
      }
    } else {
      for (int i = tid; i < kBN * (kBM / 8); i += kThreads) {
        const int nn = i / (kBM / 8), m8 = (i % (kBM / 8)) * 8;
        if (nn >= n_valid) break;
        if (m8 >= m_valid) continue;
        T* dst = y + ((static_cast<int64_t>(n) * p.k + k0 + nn) * p.oh + oh) * p.ow + ow0 + m8;
        const T* src = out + nn * kOutStride + m8;
        if (p.vec_store && m8 + 8 <= m_valid) {
          *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
        } else {
          for (int j = 0; j < 8 && m8 + j < m_valid; ++j) dst[j] = src[j];
        }
      }
    }
  }
}

// How many blocks of kernel K with `smem` bytes each the device runs at
// once (the grid: every block then walks its run of tiles in one wave).
// The occupancy query is host work on every call, so the last answer is
// kept per kernel: a network's calls repeat the same few problems.
template <auto K>
cudaError_t ResidentBlocks(int device, int smem, int64_t* resident) {
  // The key (valid bit, device, smem) in the high 32 bits, the answer low.
  static std::atomic<uint64_t> last{0};
  const uint64_t key = (uint64_t{1} << 63) | (static_cast<uint64_t>(device & 0x7f) << 56) |
                       (static_cast<uint64_t>(smem) << 32);
  const bool cacheable = device < 128 && smem < (1 << 24);
  const uint64_t seen = last.load(std::memory_order_relaxed);
  if (cacheable && (seen & ~uint64_t{0xffffffff}) == key) {
    *resident = static_cast<int64_t>(seen & 0xffffffff);
    return cudaSuccess;
  }
  int sms = 0, per_sm = 0;
  cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (e == cudaSuccess) {
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, K, kThreads, smem);
  }
  if (e != cudaSuccess) return e;
  *resident = static_cast<int64_t>(std::max(sms, 1)) * std::max(per_sm, 1);
  if (cacheable) last.store(key | static_cast<uint64_t>(*resident), std::memory_order_relaxed);
  return cudaSuccess;
}

template <class T, bool kNhwc>
cudaError_t Launch(const Params& p, int smem, cudaStream_t stream) {
  constexpr auto kernel = ImplicitGemmConvKernel<T, kNhwc>;
  int device = 0;
  int64_t resident = 1;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = AllowSmem<kernel>(kMaxSmem);
  if (e == cudaSuccess) e = ResidentBlocks<kernel>(device, smem, &resident);
  if (e != cudaSuccess) return e;
  const dim3 grid(static_cast<unsigned>(std::min<int64_t>(p.tiles, resident)),
                  static_cast<unsigned>((p.k + kBN - 1) / kBN));
  kernel<<<grid, kThreads, smem, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace

bool ImplicitGemmConvTakes(const ImplicitGemmConvArgs& args) {
  Params p{};
  int smem = 0;
  return Derive(args, &p, &smem);
}

cudaError_t LaunchImplicitGemmConv(const ImplicitGemmConvArgs& args,
                                   cudaStream_t stream) {
  Params p{};
  int smem = 0;
  if (!Derive(args, &p, &smem)) return cudaErrorInvalidValue;
  if (args.dtype == SY_DTYPE_BF16) {
    return args.nhwc ? Launch<__nv_bfloat16, true>(p, smem, stream)
                     : Launch<__nv_bfloat16, false>(p, smem, stream);
  }
  return args.nhwc ? Launch<__half, true>(p, smem, stream)
                   : Launch<__half, false>(p, smem, stream);
}

}  // namespace sy::cuda
