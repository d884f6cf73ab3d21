// The engine under every elementwise kernel of the shared GPU kernels
// (creation, unary, binary, compare, where), and of plugins' own helpers
// that move or fill strided data.
//
// Note [Elementwise launch]: the core hands elementwise kernels operands
// already broadcast to the output's shape (stride 0 on stretched dims). The
// host side takes the dims in the output's memory order (Note [Elementwise
// memory order] in switchyard/plugin/views.hpp), merges dimensions that are
// dense for every operand and drops size-1 ones (MakeLayout). Then:
//   - all operands dense and 16-byte aligned: ContigKernel, a grid-stride
//     loop over vectors of V elements (V = 16 bytes / widest element), so
//     each thread moves 16 bytes per access of its widest operand;
//   - anything else (transposed, sliced, broadcast): StridedKernel, one
//     element per thread, its offsets decomposed from the linear index over
//     at most 8 merged dims.
// An op is a functor over compute types (device_types.cuh): op(a, b, …)
// returns the output's compute value. Each (op, types) pair instantiates
// exactly these two kernels.
#ifndef SWITCHYARD_GPU_ELEMENTWISE_CUH_
#define SWITCHYARD_GPU_ELEMENTWISE_CUH_

#include <algorithm>
#include <array>
#include <cstdint>
#include <tuple>
#include <utility>

#include "switchyard/gpu/device_types.cuh"
#include "switchyard/gpu/kernel_util.h"
#include "switchyard/gpu/portability.h"
#include "switchyard/gpu/target.h"
#include "switchyard/plugin.h"
#include "switchyard/plugin/views.hpp"

namespace sy::gpu {

// N operands (output first) sharing one shape, each with its strides.
template <int N>
struct Layout {
  int ndim = 0;
  int64_t numel = 0;
  int64_t shape[SY_MAX_RANK] = {};
  int64_t stride[N][SY_MAX_RANK] = {};
};

// The kernels' copy of plugin::MergedDims (dims dense for every operand
// merged, size-1 dims dropped): a plain struct passed by value. strides[k]
// has ndim entries for operand k.
template <int N>
Layout<N> MakeLayout(const int64_t* shape, int ndim,
                     const std::array<const int64_t*, N>& strides) {
  const plugin::MergedDims<N> merged({shape, static_cast<size_t>(ndim)}, strides);
  Layout<N> l;
  l.numel = merged.numel();
  l.ndim = merged.ndim();
  for (int d = 0; d < l.ndim; ++d) {
    l.shape[d] = merged.shape()[d];
    for (int k = 0; k < N; ++k) l.stride[k][d] = merged.strides(k)[d];
  }
  return l;
}

template <int N>
bool IsDense(const Layout<N>& l) {
  if (l.ndim > 1) return false;
  for (int k = 0; k < N; ++k) {
    if (l.ndim == 1 && l.stride[k][0] != 1) return false;
  }
  return true;
}

template <class... T>
constexpr int VecWidth() {
  constexpr size_t widest = std::max({sizeof(T)...});
  return static_cast<int>(16 / widest);
}

template <int V, class Op, class Out, class... In>
__device__ __forceinline__ Vec<Out, V> ApplyVec(Op& op,
                                                const Vec<In, V>&... v) {
  Vec<Out, V> o;
#pragma unroll
  for (int j = 0; j < V; ++j) o.v[j] = Convert<Out>(op(Load(&v.v[j])...));
  return o;
}

// Two vectors a thread per iteration, both loaded before either is used,
// so that ops with real arithmetic (gelu on 16-bit floats) still keep
// enough bytes in flight to saturate memory.
template <int V, class Op, class Out, class... In>
__global__ void ContigKernel(Op op, int64_t n, Out* __restrict__ out,
                             const In* __restrict__... in) {
  using OutVec = Vec<Out, V>;
  const int64_t nvec = n / V;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + step < nvec; i += 2 * step) {
    const auto a = std::make_tuple(reinterpret_cast<const Vec<In, V>*>(in)[i]...);
    const auto b =
        std::make_tuple(reinterpret_cast<const Vec<In, V>*>(in)[i + step]...);
    reinterpret_cast<OutVec*>(out)[i] = std::apply(
        [&](const auto&... v) { return ApplyVec<V, Op, Out, In...>(op, v...); },
        a);
    reinterpret_cast<OutVec*>(out)[i + step] = std::apply(
        [&](const auto&... v) { return ApplyVec<V, Op, Out, In...>(op, v...); },
        b);
  }
  if (i < nvec) {
    reinterpret_cast<OutVec*>(out)[i] = ApplyVec<V, Op, Out, In...>(
        op, reinterpret_cast<const Vec<In, V>*>(in)[i]...);
  }
  // The tail: fewer than V elements, one thread each.
  const int64_t t = nvec * V + static_cast<int64_t>(blockIdx.x) * blockDim.x +
                    threadIdx.x;
  if (t < n) out[t] = Convert<Out>(op(Load(in + t)...));
}

template <int N, size_t... I, class Op, class Out, class... In>
__device__ __forceinline__ void ApplyAt(std::index_sequence<I...>, Op& op,
                                        const int64_t (&off)[N], Out* out,
                                        const In*... in) {
  out[off[0]] = Convert<Out>(op(Load(in + off[I + 1])...));
}

template <class Op, class Out, class... In>
__global__ void StridedKernel(Op op, Layout<1 + sizeof...(In)> l,
                              Out* __restrict__ out,
                              const In* __restrict__... in) {
  constexpr int N = 1 + sizeof...(In);
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < l.numel; i += step) {
    int64_t off[N] = {};
    int64_t rem = i;
    for (int d = l.ndim - 1; d >= 0; --d) {
      const int64_t size = l.shape[d];
      const int64_t idx = rem % size;
      rem /= size;
#pragma unroll
      for (int k = 0; k < N; ++k) off[k] += idx * l.stride[k][d];
    }
    ApplyAt<N>(std::index_sequence_for<In...>{}, op, off, out, in...);
  }
}

inline constexpr int kThreads = 256;

inline unsigned GridFor(int64_t work, int device) {
  const int64_t blocks = (work + kThreads - 1) / kThreads;
  const int64_t cap = static_cast<int64_t>(SmCount(device)) * 16;
  return static_cast<unsigned>(std::max<int64_t>(1, std::min(blocks, cap)));
}

template <class T>
T* ElementPtr(const sy_tensor_view_t& v) {
  if (v.data == nullptr) return nullptr;
  return reinterpret_cast<T*>(static_cast<char*>(v.data) + v.byte_offset);
}

// Runs `op` over `out` and `inputs` (views of storage types Out and In…,
// already checked and of the output's shape) on `stream`.
template <class Out, class... In, class Op>
sy_error_t* LaunchElementwise(Op op, const Stream& stream,
                              const sy_tensor_view_t& out,
                              std::array<const sy_tensor_view_t*, sizeof...(In)>
                                  inputs,
                              std::string_view name) {
  constexpr int N = 1 + sizeof...(In);
  std::array<const int64_t*, N> strides{};
  strides[0] = out.strides;
  for (size_t k = 0; k + 1 < N; ++k) strides[k + 1] = inputs[k]->strides;
  // Note [Elementwise memory order] (switchyard/plugin/views.hpp).
  const plugin::MemoryOrderedDims<N> dims({out.shape, static_cast<size_t>(out.ndim)}, strides);
  const Layout<N> l = MakeLayout<N>(dims.shape().data(), out.ndim, dims.strides());
  if (l.numel == 0) return nullptr;
  Out* o = ElementPtr<Out>(out);
  return [&]<size_t... I>(std::index_sequence<I...>) -> sy_error_t* {
    [[maybe_unused]] const auto ptrs = std::make_tuple(ElementPtr<const In>(*inputs[I])...);
    constexpr int V = VecWidth<Out, In...>();
    bool aligned = reinterpret_cast<uintptr_t>(o) % 16 == 0;
    ((aligned = aligned &&
                reinterpret_cast<uintptr_t>(std::get<I>(ptrs)) % 16 == 0),
     ...);
    if (IsDense(l) && aligned) {
      ContigKernel<V, Op, Out, In...>
          <<<GridFor(std::max<int64_t>(l.numel / V, 1), stream.device),
             kThreads, 0, stream.stream>>>(op, l.numel, o, std::get<I>(ptrs)...);
    } else {
      StridedKernel<Op, Out, In...>
          <<<GridFor(l.numel, stream.device), kThreads, 0, stream.stream>>>(
              op, l, o, std::get<I>(ptrs)...);
    }
    return CheckLaunched(name);
  }(std::index_sequence_for<In...>{});
}

}  // namespace sy::gpu

#endif  // SWITCHYARD_GPU_ELEMENTWISE_CUH_
