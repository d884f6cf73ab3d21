// Reduction kernels: sum mean max min over a list of dims (keepdim), and
// argmax over one dim or all (dim=None).
//
// Each output element is one row of the input (row_layout.h); a row is
// reduced by T threads (a power of two, 32..256, fitted to the row length),
// 256 / T rows per block: each thread folds a strided part of its row, then
// the row's threads combine in shared memory. Sums accumulate in double
// (floats) or wrapping int64 (integers and bool, which sum to i64), so a
// 100k-element f32 sum stays far inside the 1e-5 L2 bound. max/min and
// argmax propagate NaN; argmax returns the first NaN, else the first
// occurrence of the maximum. bool: sum counts the nonzero bytes, max and
// min are any and all.
#include <algorithm>
#include <cmath>
#include <string>

#include "switchyard/gpu/dtypes.h"
#include "switchyard/gpu/elementwise.cuh"
#include "switchyard/gpu/kernel_list.h"
#include "switchyard/gpu/row_layout.h"
#include "switchyard/plugin.hpp"

namespace sy::gpu {
namespace {

using ::sy::plugin::StrCat;

template <class In>
struct SumRed {
  static constexpr bool kFloat = kIsFloating<In>;
  using Acc = std::conditional_t<kFloat, double, uint64_t>;
  __device__ Acc Init() const { return 0; }
  __device__ Acc Take(In v, int64_t) const {
    if constexpr (kFloat) {
      return static_cast<double>(Load(&v));
    } else {
      return static_cast<uint64_t>(static_cast<int64_t>(Load(&v)));
    }
  }
  __device__ Acc Combine(Acc a, Acc b) const { return a + b; }
  bool mean = false;
  template <class Out>
  __device__ Out Finish(Acc a, int64_t n) const {
    if constexpr (kFloat) {
      // Through the output's compute type (float for f32/f16/bf16), as
      // every float result is rounded.
      return Convert<Out>(static_cast<Compute<Out>>(
          mean ? a / static_cast<double>(n) : a));
    } else {
      return static_cast<Out>(static_cast<int64_t>(a));
    }
  }
};

template <class In, bool kMax>
struct ExtremeRed {
  using C = Compute<In>;
  struct Acc {
    C v;
    bool any;
  };
  __device__ Acc Init() const { return {C{}, false}; }
  __device__ Acc Take(In v, int64_t) const { return {Load(&v), true}; }
  __device__ Acc Combine(Acc a, Acc b) const {
    if (!a.any) return b;
    if (!b.any) return a;
    if (a.v != a.v) return a;  // NaN wins
    if (b.v != b.v) return b;
    return (kMax ? a.v >= b.v : a.v <= b.v) ? a : b;
  }
  template <class Out>
  __device__ Out Finish(Acc a, int64_t) const {
    return Convert<Out>(a.v);
  }
};

template <class In>
struct ArgmaxRed {
  using C = Compute<In>;
  struct Acc {
    C v;
    int64_t i;  // -1: nothing yet
  };
  __device__ Acc Init() const { return {C{}, -1}; }
  __device__ Acc Take(In v, int64_t i) const { return {Load(&v), i}; }
  // The earlier index wins ties; NaN beats numbers.
  __device__ Acc Combine(Acc a, Acc b) const {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    const bool a_nan = a.v != a.v, b_nan = b.v != b.v;
    if (a_nan || b_nan) {
      if (a_nan && b_nan) return a.i < b.i ? a : b;
      return a_nan ? a : b;
    }
    if (a.v > b.v) return a;
    if (b.v > a.v) return b;
    return a.i < b.i ? a : b;
  }
  template <class Out>
  __device__ Out Finish(Acc a, int64_t) const {
    return static_cast<Out>(a.i < 0 ? 0 : a.i);
  }
};

constexpr int kBlock = 256;

// Operand 0 is x, operand 1 the output (inner strides 0).
template <class In, class Out, class Red>
__global__ void ReduceRows(Red red, RowLayout l, const In* __restrict__ x,
                           Out* __restrict__ out, int threads_per_row) {
  using Acc = typename Red::Acc;
  __shared__ Acc shared[kBlock];
  const int rows_per_block = kBlock / threads_per_row;
  const int lane = threadIdx.x % threads_per_row;
  const int64_t row =
      static_cast<int64_t>(blockIdx.x) * rows_per_block +
      threadIdx.x / threads_per_row;
  Acc acc = red.Init();
  if (row < l.rows) {
    const In* base = x + l.RowOffset(row, 0);
    if (l.inner_ndim <= 1) {
      const int64_t stride = l.inner_ndim == 1 ? l.inner_stride[0][0] : 0;
      for (int64_t i = lane; i < l.row_len; i += threads_per_row) {
        acc = red.Combine(acc, red.Take(base[i * stride], i));
      }
    } else {
      for (int64_t i = lane; i < l.row_len; i += threads_per_row) {
        acc = red.Combine(acc, red.Take(base[l.InnerOffset(i, 0)], i));
      }
    }
  }
  shared[threadIdx.x] = acc;
  __syncthreads();
  for (int s = threads_per_row / 2; s > 0; s >>= 1) {
    if (lane < s) {
      shared[threadIdx.x] =
          red.Combine(shared[threadIdx.x], shared[threadIdx.x + s]);
    }
    __syncthreads();
  }
  if (lane == 0 && row < l.rows) {
    out[l.RowOffset(row, 1)] =
        red.template Finish<Out>(shared[threadIdx.x], l.row_len);
  }
}

// x's dims marked in `reduced`, and the output's strides mapped onto x's
// dims (0 on reduced dims), from a keepdim or squeezed output.
sy_error_t* OutputStrides(const sy_tensor_view_t& x,
                          const sy_tensor_view_t& out, const bool* reduced,
                          bool keepdim, std::string_view op,
                          int64_t* strides) {
  int j = 0;
  for (int d = 0; d < x.ndim; ++d) {
    if (keepdim) {
      strides[d] = reduced[d] ? 0 : out.strides[d];
    } else if (reduced[d]) {
      strides[d] = 0;
    } else {
      if (j >= out.ndim) break;
      strides[d] = out.strides[j++];
    }
  }
  const int want = keepdim ? x.ndim : j;
  if (out.ndim != want) {
    return OpError(op, StrCat("the output has rank ", out.ndim, " but ", want,
                              " was expected for this reduction; allocate "
                              "it from the op's shape function"));
  }
  return nullptr;
}

template <class In, class Out, class Red>
sy_error_t* LaunchReduce(const Red& red, const Stream& stream,
                         const sy_tensor_view_t& x, const sy_tensor_view_t& out,
                         const bool* reduced, bool keepdim,
                         std::string_view op) {
  int64_t strides[kRowOperands][SY_MAX_RANK] = {};
  for (int d = 0; d < x.ndim; ++d) strides[0][d] = x.strides[d];
  SY_PLUGIN_RETURN_IF_ERROR(
      OutputStrides(x, out, reduced, keepdim, op, strides[1]));
  const RowLayout l = MakeRowLayout(x.shape, x.ndim, reduced, 2, strides);
  if (l.rows == 0) return nullptr;
  int threads = 32;
  while (threads < kBlock && threads < l.row_len) threads *= 2;
  const int rows_per_block = kBlock / threads;
  const int64_t blocks = (l.rows + rows_per_block - 1) / rows_per_block;
  ReduceRows<In, Out, Red><<<static_cast<unsigned>(blocks), kBlock, 0,
                             stream.stream>>>(red, l, ElementPtr<const In>(x),
                                              ElementPtr<Out>(out), threads);
  return CheckLaunched(op);
}

// Marks the dims to reduce: every dim for an empty list. Repeats and
// out-of-range dims are errors (the shape function refuses them first).
sy_error_t* ReducedDims(std::span<const int64_t> dims, int ndim,
                        std::string_view op, bool* reduced) {
  for (int d = 0; d < ndim; ++d) reduced[d] = dims.empty();
  for (int64_t dim : dims) {
    int d = 0;
    SY_PLUGIN_RETURN_IF_ERROR(WrapDim(dim, ndim, op, "dims", d));
    if (ndim == 0) continue;
    if (reduced[d]) {
      return OpError(op, StrCat("attribute 'dims' names dim ", dim,
                                " twice; list each dim once"));
    }
    reduced[d] = true;
  }
  return nullptr;
}

enum class Kind { kSum, kMean, kMax, kMin };

constexpr std::string_view KindName(Kind k) {
  return k == Kind::kSum ? "sum" : k == Kind::kMean ? "mean"
                                 : k == Kind::kMax ? "max" : "min";
}

template <Kind K, sy_dtype_t D>
sy_error_t* ReduceKernel(const sy_kernel_call_t* call) {
  constexpr std::string_view op = KindName(K);
  static const std::string where = Where(op);
  return plugin::Guard(where, [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, 1, 1, 2, &stream));
    const sy_tensor_view_t& x = call->inputs[0];
    const sy_tensor_view_t& out = call->outputs[0];
    using S = Storage<D>;
    constexpr bool kIntSum = K == Kind::kSum && !kIsFloating<S>;
    constexpr sy_dtype_t kOut = kIntSum ? SY_DTYPE_I64 : D;
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(x, op, "input 'x'", D, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(out, op, "output", kOut, *stream));
    std::span<const int64_t> dims;
    bool keepdim = false;
    SY_PLUGIN_RETURN_IF_ERROR(ReadInts(call, 0, op, "dims", dims));
    SY_PLUGIN_RETURN_IF_ERROR(ReadBool(call, 1, op, "keepdim", keepdim));
    bool reduced[SY_MAX_RANK] = {};
    SY_PLUGIN_RETURN_IF_ERROR(ReducedDims(dims, x.ndim, op, reduced));
    if constexpr (K == Kind::kSum || K == Kind::kMean) {
      SumRed<S> red;
      red.mean = K == Kind::kMean;
      return LaunchReduce<S, Storage<kOut>>(red, *stream, x, out, reduced,
                                            keepdim, op);
    } else {
      if constexpr (K == Kind::kMax || K == Kind::kMin) {
        for (int d = 0; d < x.ndim; ++d) {
          if (reduced[d] && x.shape[d] == 0) {
            return OpError(op, StrCat("input 'x' has size 0 along reduced dim ",
                                      d, ", and ", op, " of nothing has no "
                                      "value; reduce over non-empty dims"));
          }
        }
      }
      return LaunchReduce<S, S>(ExtremeRed<S, K == Kind::kMax>{}, *stream, x,
                                out, reduced, keepdim, op);
    }
  });
}

template <sy_dtype_t D>
sy_error_t* ArgmaxKernel(const sy_kernel_call_t* call) {
  constexpr std::string_view op = "argmax";
  static const std::string where = Where(op);
  return plugin::Guard(where, [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, 1, 1, 2, &stream));
    const sy_tensor_view_t& x = call->inputs[0];
    const sy_tensor_view_t& out = call->outputs[0];
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(x, op, "input 'x'", D, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(out, op, "output", SY_DTYPE_I64, *stream));
    int64_t dim = 0;
    bool none = false;
    bool keepdim = false;
    SY_PLUGIN_RETURN_IF_ERROR(ReadInt(call, 0, op, "dim", dim, &none));
    SY_PLUGIN_RETURN_IF_ERROR(ReadBool(call, 1, op, "keepdim", keepdim));
    bool reduced[SY_MAX_RANK] = {};
    if (none) {
      for (int d = 0; d < x.ndim; ++d) reduced[d] = true;
    } else {
      int d = 0;
      SY_PLUGIN_RETURN_IF_ERROR(WrapDim(dim, x.ndim, op, "dim", d));
      if (x.ndim > 0) reduced[d] = true;
    }
    for (int d = 0; d < x.ndim; ++d) {
      if (reduced[d] && x.shape[d] == 0) {
        return OpError(op, "input 'x' is empty along the reduced dims, and "
                           "argmax of nothing has no index; pass a non-empty "
                           "tensor");
      }
    }
    // dim=None flattens: the output is a scalar (or all ones with keepdim),
    // whose strides map like a full reduction's.
    return LaunchReduce<Storage<D>, int64_t>(ArgmaxRed<Storage<D>>{}, *stream,
                                             x, out, reduced, keepdim, op);
  });
}

template <sy_dtype_t D>
void AddFloat(KernelList& l) {
  l.Add("sum", DtypeList<D>, ReduceKernel<Kind::kSum, D>);
  l.Add("mean", DtypeList<D>, ReduceKernel<Kind::kMean, D>);
  l.Add("max", DtypeList<D>, ReduceKernel<Kind::kMax, D>);
  l.Add("min", DtypeList<D>, ReduceKernel<Kind::kMin, D>);
  l.Add("argmax", DtypeList<D>, ArgmaxKernel<D>);
}

template <sy_dtype_t D>
void AddInt(KernelList& l) {
  l.Add("sum", DtypeList<D>, ReduceKernel<Kind::kSum, D>);
  l.Add("max", DtypeList<D>, ReduceKernel<Kind::kMax, D>);
  l.Add("min", DtypeList<D>, ReduceKernel<Kind::kMin, D>);
  l.Add("argmax", DtypeList<D>, ArgmaxKernel<D>);
}

}  // namespace

std::span<const plugin::KernelSpec> ReductionKernels() {
  static const KernelList list = [] {
    KernelList l;
    ForEachDtype<kFloatDtypes>([&]<sy_dtype_t D>() { AddFloat<D>(l); });
    ForEachDtype<kIntDtypes>([&]<sy_dtype_t D>() { AddInt<D>(l); });
    // bool: sum counts, max/min are any/all, argmax finds the first true.
    ForEachDtype<kBoolDtypes>([&]<sy_dtype_t D>() { AddInt<D>(l); });
    return l;
  }();
  return list.specs();
}

}  // namespace sy::gpu
