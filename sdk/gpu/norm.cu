// Row normalizations in one pass over memory: softmax, log_softmax (over
// any dim), layer_norm (over the trailing normalized_shape dims, optional
// weight and bias) and rms_norm (over the last dim, with weight).
//
// Note [One-pass rows]: one block per row. When a row is at unit stride for
// every operand, 16-byte aligned and short enough (at most kBlock × V ×
// kMaxIter elements: 16384 f32, 32768 f16/bf16), each thread loads its part
// of the row once, as V-element vectors, into registers; the statistics
// (max and sum of exponentials, mean and variance, mean square) are block
// reductions over those registers, and the output is written once: one
// read and one write of the tensor, which is the floor. softmax and
// log_softmax rows it does not take at unit stride go to SoftmaxRowsLong
// (Note [Long rows]: two reads, 16-byte vectors). Anything else takes
// the general path, which re-reads the row from memory for each statistic
// (through the L2 cache, which holds a row) with any strides.
// Statistics are computed in Accumulate<S> (float; double for f64);
// f16/bf16 round once on the way out. layer_norm and rms_norm of f16/bf16
// x also take f32 weight and bias (W below), as mixed-precision models
// keep them; the cpu plugin does the same.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "switchyard/gpu/block_reduce.cuh"
#include "switchyard/gpu/dtypes.h"
#include "switchyard/gpu/elementwise.cuh"
#include "switchyard/gpu/kernel_list.h"
#include "switchyard/gpu/row_layout.h"
#include "switchyard/plugin.hpp"

namespace sy::gpu {
namespace {

using ::sy::plugin::StrCat;

enum class Kind { kSoftmax, kLogSoftmax, kLayerNorm, kRmsNorm };

// Vectors a thread caches (Note [One-pass rows]); more would cost registers
// and with them the resident rows that hide each row's reduction latency.
constexpr int kMaxIter = 4;
constexpr int kBlock = 1024;  // the most threads a row's block may have
// Operands in a RowLayout: x, out, weight, bias.
constexpr int kX = 0, kOut = 1, kW = 2, kB = 3;

struct Params {
  double eps = 0;  // used in the row's accumulate type
  bool has_weight = false;
  bool has_bias = false;
};

// A row's two statistics (RowStats).
template <class A>
struct Stats {
  A x, y;
};

// The per-row statistics each kind needs, from a source of the row's
// values: `for_each(f)` calls f(value) for every element of the row that
// this thread owns. Returns (a, b): softmax (max, 1/sum exp), log_softmax
// (max, log sum exp), layer_norm (mean, rstd), rms_norm (unused, rstd).
// With kStoreExp (softmax in registers) the second pass replaces each value
// v by exp(v − max), so Apply need not compute it again.
template <Kind K, bool kStoreExp = false, class A, class ForEach>
__device__ __forceinline__ Stats<A> RowStats(ForEach for_each, int64_t n,
                                             A eps, A* scratch) {
  if constexpr (K == Kind::kSoftmax || K == Kind::kLogSoftmax) {
    constexpr A kInf = std::numeric_limits<A>::infinity();
    A m = -kInf;
    for_each([&](A& v) { m = math::Max(m, v); });
    m = BlockAllReduce(m, MaxOf{}, -kInf, scratch);
    A s = 0;
    for_each([&](A& v) {
      const A e = math::Exp(v - m);
      s += e;
      if constexpr (kStoreExp && K == Kind::kSoftmax) v = e;
    });
    s = BlockAllReduce(s, SumOf{}, A(0), scratch);
    if constexpr (K == Kind::kSoftmax) {
      return {m, A(1) / s};
    } else {
      return {m, math::Log(s)};
    }
  } else if constexpr (K == Kind::kLayerNorm) {
    A s = 0;
    for_each([&](A& v) { s += v; });
    const A mean = BlockAllReduce(s, SumOf{}, A(0), scratch) / n;
    A q = 0;
    for_each([&](A& v) { q += (v - mean) * (v - mean); });
    const A var = BlockAllReduce(q, SumOf{}, A(0), scratch) / n;
    return {mean, math::Rsqrt(var + eps)};
  } else {
    A q = 0;
    for_each([&](A& v) { q += v * v; });
    const A ms = BlockAllReduce(q, SumOf{}, A(0), scratch) / n;
    return {A(0), math::Rsqrt(ms + eps)};
  }
}

template <Kind K, bool kStoredExp = false, class A>
__device__ __forceinline__ A Apply(A v, Stats<A> st, A w, A b) {
  if constexpr (K == Kind::kSoftmax && kStoredExp) {
    return v * st.y;
  } else if constexpr (K == Kind::kSoftmax) {
    return math::Exp(v - st.x) * st.y;
  } else if constexpr (K == Kind::kLogSoftmax) {
    return v - st.x - st.y;
  } else if constexpr (K == Kind::kLayerNorm) {
    return (v - st.x) * st.y * w + b;
  } else {
    return v * st.y * w;
  }
}

// The one-pass kernel (Note [One-pass rows]). W: the storage of weight
// and bias (S, or f32 for 16-bit x).
template <Kind K, class S, int V, class W = S>
__global__ void __launch_bounds__(kBlock) NormRowsCached(RowLayout l, const S* __restrict__ x,
                               S* __restrict__ out, const W* __restrict__ w,
                               const W* __restrict__ b, Params p) {
  using A = Accumulate<S>;
  __shared__ A scratch[32];
  const int64_t row = blockIdx.x;
  const Vec<S, V>* xr =
      reinterpret_cast<const Vec<S, V>*>(x + l.RowOffset(row, kX));
  Vec<S, V>* orow = reinterpret_cast<Vec<S, V>*>(out + l.RowOffset(row, kOut));
  const int64_t nvec = l.row_len / V;
  A vals[kMaxIter][V];
#pragma unroll
  for (int k = 0; k < kMaxIter; ++k) {
    const int64_t j = threadIdx.x + static_cast<int64_t>(k) * blockDim.x;
    if (j < nvec) {
      const Vec<S, V> v = xr[j];
#pragma unroll
      for (int e = 0; e < V; ++e) vals[k][e] = Load(&v.v[e]);
    }
  }
  const auto for_each = [&](auto f) {
#pragma unroll
    for (int k = 0; k < kMaxIter; ++k) {
      if (threadIdx.x + static_cast<int64_t>(k) * blockDim.x < nvec) {
#pragma unroll
        for (int e = 0; e < V; ++e) f(vals[k][e]);
      }
    }
  };
  const Stats<A> st =
      RowStats<K, true>(for_each, l.row_len, static_cast<A>(p.eps), scratch);
#pragma unroll
  for (int k = 0; k < kMaxIter; ++k) {
    const int64_t j = threadIdx.x + static_cast<int64_t>(k) * blockDim.x;
    if (j < nvec) {
      Vec<W, V> wv, bv;
      Vec<S, V> o;
      if (p.has_weight) wv = reinterpret_cast<const Vec<W, V>*>(w)[j];
      if (p.has_bias) bv = reinterpret_cast<const Vec<W, V>*>(b)[j];
#pragma unroll
      for (int e = 0; e < V; ++e) {
        const A we = p.has_weight ? A(Load(&wv.v[e])) : A(1);
        const A be = p.has_bias ? A(Load(&bv.v[e])) : A(0);
        o.v[e] = Convert<S>(Apply<K, true>(vals[k][e], st, we, be));
      }
      orow[j] = o;
    }
  }
}

// The general path: any strides, any row length.
template <Kind K, class S, class W = S>
__global__ void NormRowsStrided(RowLayout l, const S* __restrict__ x,
                                S* __restrict__ out, const W* __restrict__ w,
                                const W* __restrict__ b, Params p) {
  using A = Accumulate<S>;
  __shared__ A scratch[32];
  const int64_t row = blockIdx.x;
  const S* xr = x + l.RowOffset(row, kX);
  S* orow = out + l.RowOffset(row, kOut);
  const auto for_each = [&](auto f) {
    for (int64_t i = threadIdx.x; i < l.row_len; i += blockDim.x) {
      A v = Load(xr + l.InnerOffset(i, kX));
      f(v);
    }
  };
  const Stats<A> st =
      RowStats<K>(for_each, l.row_len, static_cast<A>(p.eps), scratch);
  for (int64_t i = threadIdx.x; i < l.row_len; i += blockDim.x) {
    const A we = p.has_weight ? A(Load(w + l.InnerOffset(i, kW))) : A(1);
    const A be = p.has_bias ? A(Load(b + l.InnerOffset(i, kB))) : A(0);
    orow[l.InnerOffset(i, kOut)] = Convert<S>(
        Apply<K>(A(Load(xr + l.InnerOffset(i, kX))), st, we, be));
  }
}

// Note [Long rows]: softmax and log_softmax rows the one-pass kernel does
// not cache — longer than it keeps in registers (a language model's
// vocabulary: 32,000 … 128,256), of a length V does not divide (50,257),
// or starting off a 16-byte boundary — at unit stride, with x's and out's
// rows equally far from a 16-byte boundary. One block per row reads the
// row twice: first for its max and sum of exponentials together (each
// thread keeps (m, s) and rescales s when m grows, once per vector:
// Milakov and Gimelshein's online normalizer; the block combines the
// pairs; masked (-inf) and NaN entries as in the one-pass kernel), then
// to write; the second read comes mostly from L2, which holds the rows in
// flight. Both reads take 16-byte vectors over the row's aligned body and
// single elements before and after it. The general path
// (NormRowsStrided) reads such rows three times one element at a time:
// 0.20 of copy bandwidth at 2048 × 50,176 f32 on the H200, where
// PyTorch's softmax reads 0.48.
template <Kind K, class S, int V>
__global__ void __launch_bounds__(kBlock) SoftmaxRowsLong(RowLayout l, const S* __restrict__ x,
                                                          S* __restrict__ out) {
  using A = Accumulate<S>;
  constexpr A kInf = std::numeric_limits<A>::infinity();
  __shared__ A scratch[32];
  const int64_t row = blockIdx.x;
  const S* xr = x + l.RowOffset(row, kX);
  S* orow = out + l.RowOffset(row, kOut);
  const int64_t n = l.row_len;
  // Elements before the row's first 16-byte boundary, whole vectors, the rest.
  const int64_t misaligned = static_cast<int64_t>(reinterpret_cast<uintptr_t>(xr) % 16);
  const int64_t lead = misaligned == 0 ? 0 : (16 - misaligned) / static_cast<int64_t>(sizeof(S));
  const int64_t head = lead < n ? lead : n;
  const int64_t nvec = (n - head) / V;
  const int64_t tail = head + nvec * V;
  const Vec<S, V>* xv = reinterpret_cast<const Vec<S, V>*>(xr + head);
  Vec<S, V>* ov = reinterpret_cast<Vec<S, V>*>(orow + head);
  A m = -kInf, s = 0;
  // Folds `count` values whose max is `vm` into (m, s). While the max is
  // -inf the exponentials are taken against 0, so -inf entries add 0 (no
  // exp(-inf - (-inf))) and a NaN still makes the sum NaN (math::Max
  // passes NaN over, so it reaches the sum only through exp), as it does
  // in the one-pass kernel and in PyTorch: the whole row NaN.
  const auto fold = [&](const A* v, int count, A vm) {
    const A mn = math::Max(m, vm);
    const A base = mn == -kInf ? A(0) : mn;
    A t = 0;
    for (int e = 0; e < count; ++e) t += math::Exp(v[e] - base);
    s = s * math::Exp(m - base) + t;
    m = mn;
  };
  for (int64_t i = threadIdx.x; i < head; i += blockDim.x) {
    const A v = Load(xr + i);
    fold(&v, 1, v);
  }
  for (int64_t j = threadIdx.x; j < nvec; j += blockDim.x) {
    const Vec<S, V> in = xv[j];
    A v[V];
    A vm = -kInf;
#pragma unroll
    for (int e = 0; e < V; ++e) {
      v[e] = Load(&in.v[e]);
      vm = math::Max(vm, v[e]);
    }
    fold(v, V, vm);
  }
  for (int64_t i = tail + threadIdx.x; i < n; i += blockDim.x) {
    const A v = Load(xr + i);
    fold(&v, 1, v);
  }
  const A row_max = BlockAllReduce(m, MaxOf{}, -kInf, scratch);
  // A thread whose max is -inf holds 0 (or NaN, kept: s · 0).
  const A scaled = m == -kInf ? s * A(0) : s * math::Exp(m - row_max);
  const A sum = BlockAllReduce(scaled, SumOf{}, A(0), scratch);
  const Stats<A> st{row_max, K == Kind::kSoftmax ? A(1) / sum : math::Log(sum)};
  for (int64_t i = threadIdx.x; i < head; i += blockDim.x) {
    orow[i] = Convert<S>(Apply<K>(A(Load(xr + i)), st, A(1), A(0)));
  }
  for (int64_t j = threadIdx.x; j < nvec; j += blockDim.x) {
    const Vec<S, V> in = xv[j];
    Vec<S, V> o;
#pragma unroll
    for (int e = 0; e < V; ++e) o.v[e] = Convert<S>(Apply<K>(A(Load(&in.v[e])), st, A(1), A(0)));
    ov[j] = o;
  }
  for (int64_t i = tail + threadIdx.x; i < n; i += blockDim.x) {
    orow[i] = Convert<S>(Apply<K>(A(Load(xr + i)), st, A(1), A(0)));
  }
}

// Whether SoftmaxRowsLong takes rows of `l` (Note [Long rows]): softmax
// or log_softmax, one inner dim at unit stride for x and out, and every
// row of out as far from a 16-byte boundary as x's (bases congruent mod
// 16, equal row strides).
template <Kind K, class S>
bool LongRowsFit(const RowLayout& l, const S* x, const S* out) {
  if constexpr (K != Kind::kSoftmax && K != Kind::kLogSoftmax) {
    return false;
  } else {
    if (l.inner_ndim != 1 || l.inner_stride[kX][0] != 1 || l.inner_stride[kOut][0] != 1) {
      return false;
    }
    if ((reinterpret_cast<uintptr_t>(x) - reinterpret_cast<uintptr_t>(out)) % 16 != 0) {
      return false;
    }
    for (int d = 0; d < l.outer_ndim; ++d) {
      if (l.outer_stride[kX][d] != l.outer_stride[kOut][d] && l.outer_shape[d] != 1) return false;
    }
    return true;
  }
}

template <Kind K, class S, class W = S>
sy_error_t* LaunchNorm(const Stream& stream, const RowLayout& l,
                       const sy_tensor_view_t& x, const sy_tensor_view_t& out,
                       const sy_tensor_view_t* w, const sy_tensor_view_t* b,
                       Params p, std::string_view op) {
  if (l.rows == 0 || l.row_len == 0) return nullptr;
  if (l.rows > 0x7fffffff) {
    return OpError(op, StrCat("input 'x' has ", l.rows, " rows, more than a ",
                              ThisTarget().runtime, " grid holds; split the "
                              "tensor"));
  }
  const S* xp = ElementPtr<const S>(x);
  S* op_ = ElementPtr<S>(out);
  const W* wp = w != nullptr ? ElementPtr<const W>(*w) : nullptr;
  const W* bp = b != nullptr ? ElementPtr<const W>(*b) : nullptr;
  constexpr int V = 16 / sizeof(S);
  const int operands = 2 + (p.has_weight ? 1 : 0) + (p.has_bias ? 1 : 0);
  // Weight and bias are operands 2 and 3 whatever is present, so check
  // each one's strides directly.
  bool fast = l.inner_ndim == 1 && l.row_len % V == 0 &&
              l.row_len <= static_cast<int64_t>(kBlock) * V * kMaxIter;
  fast = fast && l.inner_stride[kX][0] == 1 && l.inner_stride[kOut][0] == 1;
  fast = fast && (!p.has_weight || l.inner_stride[kW][0] == 1);
  fast = fast && (!p.has_bias || l.inner_stride[kB][0] == 1);
  const auto aligned = [](const void* ptr) {
    return reinterpret_cast<uintptr_t>(ptr) % 16 == 0;
  };
  fast = fast && aligned(xp) && aligned(op_) && (wp == nullptr || aligned(wp)) &&
         (bp == nullptr || aligned(bp));
  for (int d = 0; d < l.outer_ndim && fast; ++d) {
    fast = (l.outer_stride[kX][d] * sizeof(S)) % 16 == 0 &&
           (l.outer_stride[kOut][d] * sizeof(S)) % 16 == 0;
  }
  (void)operands;
  const unsigned rows = static_cast<unsigned>(l.rows);
  // Blocks are whole warps (BlockAllReduce): at least kMaxWarpSize threads.
  if (fast) {
    const int64_t nvec = l.row_len / V;
    int threads = kMaxWarpSize;
    // Up to kMaxIter vectors a thread, in as small a block as holds the row.
    while (threads < kBlock && threads * kMaxIter < nvec) threads *= 2;
    NormRowsCached<K, S, V, W><<<rows, threads, 0, stream.stream>>>(
        l, xp, op_, wp, bp, p);
  } else if (LongRowsFit<K, S>(l, xp, op_)) {
    // Note [Long rows]: about 4 vectors a thread, up to a block of kBlock.
    int threads = kMaxWarpSize;
    while (threads < kBlock && threads * 4 * V < l.row_len) threads *= 2;
    SoftmaxRowsLong<K, S, V><<<rows, threads, 0, stream.stream>>>(l, xp, op_);
  } else {
    int threads = kMaxWarpSize;
    while (threads < 256 && threads < l.row_len) threads *= 2;
    NormRowsStrided<K, S, W><<<rows, threads, 0, stream.stream>>>(
        l, xp, op_, wp, bp, p);
  }
  return CheckLaunched(op);
}

// ---- The kernels --------------------------------------------------------

template <Kind K, sy_dtype_t D>
sy_error_t* SoftmaxKernel(const sy_kernel_call_t* call) {
  constexpr std::string_view op =
      K == Kind::kSoftmax ? "softmax" : "log_softmax";
  static const std::string where = Where(op);
  return plugin::Guard(where, [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, 1, 1, 1, &stream));
    const sy_tensor_view_t& x = call->inputs[0];
    const sy_tensor_view_t& out = call->outputs[0];
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(x, op, "input 'x'", D, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(out, op, "output", D, *stream));
    int64_t dim = 0;
    SY_PLUGIN_RETURN_IF_ERROR(ReadInt(call, 0, op, "dim", dim));
    int d = 0;
    SY_PLUGIN_RETURN_IF_ERROR(WrapDim(dim, x.ndim, op, "dim", d));
    bool inner[SY_MAX_RANK] = {};
    if (x.ndim > 0) inner[d] = true;
    int64_t strides[kRowOperands][SY_MAX_RANK] = {};
    for (int i = 0; i < x.ndim; ++i) {
      strides[kX][i] = x.strides[i];
      strides[kOut][i] = out.strides[i];
    }
    const RowLayout l = MakeRowLayout(x.shape, x.ndim, inner, 2, strides);
    return LaunchNorm<K, Storage<D>>(*stream, l, x, out, nullptr, nullptr,
                                     Params{}, op);
  });
}

// Which optional tensor arguments a call has: input k is present when its
// span in input_offsets is one tensor.
bool Present(const sy_kernel_call_t* call, int arg) {
  if (call->input_offsets == nullptr || call->num_tensor_args <= arg) {
    return call->num_inputs > arg;
  }
  return call->input_offsets[arg + 1] - call->input_offsets[arg] == 1;
}

const sy_tensor_view_t* Input(const sy_kernel_call_t* call, int arg) {
  if (!Present(call, arg)) return nullptr;
  const int index =
      call->input_offsets != nullptr ? call->input_offsets[arg] : arg;
  return &call->inputs[index];
}

// WD: the dtype of weight and bias (D, or f32 for f16/bf16 x).
template <Kind K, sy_dtype_t D, sy_dtype_t WD = D>
sy_error_t* NormKernel(const sy_kernel_call_t* call) {
  constexpr std::string_view op =
      K == Kind::kLayerNorm ? "layer_norm" : "rms_norm";
  static const std::string where = Where(op);
  return plugin::Guard(where, [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    constexpr int kAttrs = K == Kind::kLayerNorm ? 2 : 1;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, -1, 1, kAttrs, &stream));
    if (call->num_inputs < 1 || call->num_inputs > 3) {
      return OpError(op, StrCat("expects 1 to 3 input tensors but the call "
                                "has ", call->num_inputs,
                                "; the call does not match the op's schema"));
    }
    const sy_tensor_view_t& x = call->inputs[0];
    const sy_tensor_view_t& out = call->outputs[0];
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(x, op, "input 'x'", D, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(out, op, "output", D, *stream));
    const sy_tensor_view_t* w = Input(call, 1);
    const sy_tensor_view_t* b = K == Kind::kLayerNorm ? Input(call, 2) : nullptr;
    if (w != nullptr) {
      SY_PLUGIN_RETURN_IF_ERROR(CheckView(*w, op, "input 'weight'", WD, *stream));
    } else if (K == Kind::kRmsNorm) {
      return OpError(op, "input 'weight' is missing; pass a weight of the "
                         "last dim's size");
    }
    if (b != nullptr) {
      SY_PLUGIN_RETURN_IF_ERROR(CheckView(*b, op, "input 'bias'", WD, *stream));
    }
    int k = 1;  // normalized trailing dims
    double eps = 0;
    if constexpr (K == Kind::kLayerNorm) {
      std::span<const int64_t> normalized;
      SY_PLUGIN_RETURN_IF_ERROR(
          ReadInts(call, 0, op, "normalized_shape", normalized));
      SY_PLUGIN_RETURN_IF_ERROR(ReadFloat(call, 1, op, "eps", eps));
      k = static_cast<int>(normalized.size());
      if (k > x.ndim) {
        return OpError(op, StrCat("attribute 'normalized_shape' has ", k,
                                  " dims but input 'x' has rank ", x.ndim,
                                  "; pass trailing dims of x"));
      }
      for (int i = 0; i < k; ++i) {
        if (normalized[i] != x.shape[x.ndim - k + i]) {
          return OpError(op, "attribute 'normalized_shape' is not the "
                             "trailing dims of input 'x'; pass x's last dims");
        }
      }
    } else {
      SY_PLUGIN_RETURN_IF_ERROR(ReadFloat(call, 0, op, "eps", eps));
      if (x.ndim == 0) {
        return OpError(op, "input 'x' is a scalar; rms_norm needs a last dim");
      }
    }
    if (!(eps >= 0)) {
      return OpError(op, StrCat("attribute 'eps' is ", eps,
                                "; pass a non-negative eps"));
    }
    for (const sy_tensor_view_t* t : {w, b}) {
      if (t != nullptr && t->ndim != k) {
        return OpError(op, StrCat("weight and bias must have rank ", k,
                                  " (the normalized dims); got rank ", t->ndim));
      }
      for (int i = 0; t != nullptr && i < k; ++i) {
        if (t->shape[i] != x.shape[x.ndim - k + i]) {
          return OpError(op, "weight or bias does not match the normalized "
                             "dims of input 'x'; pass tensors of that shape");
        }
      }
    }
    bool inner[SY_MAX_RANK] = {};
    int64_t strides[kRowOperands][SY_MAX_RANK] = {};
    for (int i = 0; i < x.ndim; ++i) {
      const bool normalized = i >= x.ndim - k;
      inner[i] = normalized;
      strides[kX][i] = x.strides[i];
      strides[kOut][i] = out.strides[i];
      const int j = i - (x.ndim - k);
      strides[kW][i] = normalized && w != nullptr ? w->strides[j] : 0;
      strides[kB][i] = normalized && b != nullptr ? b->strides[j] : 0;
    }
    const RowLayout l = MakeRowLayout(x.shape, x.ndim, inner, 4, strides);
    Params p;
    p.eps = eps;
    p.has_weight = w != nullptr;
    p.has_bias = b != nullptr;
    return LaunchNorm<K, Storage<D>, Storage<WD>>(*stream, l, x, out, w, b, p,
                                                  op);
  });
}

template <sy_dtype_t D>
void AddAll(KernelList& l) {
  constexpr sy_dtype_t N = SY_DTYPE_NONE;
  l.Add("softmax", DtypeList<D>, SoftmaxKernel<Kind::kSoftmax, D>);
  l.Add("log_softmax", DtypeList<D>, SoftmaxKernel<Kind::kLogSoftmax, D>);
  l.Add("layer_norm", DtypeList<D, D, D>, NormKernel<Kind::kLayerNorm, D>);
  l.Add("layer_norm", DtypeList<D, D, N>, NormKernel<Kind::kLayerNorm, D>);
  l.Add("layer_norm", DtypeList<D, N, D>, NormKernel<Kind::kLayerNorm, D>);
  l.Add("layer_norm", DtypeList<D, N, N>, NormKernel<Kind::kLayerNorm, D>);
  l.Add("rms_norm", DtypeList<D, D>, NormKernel<Kind::kRmsNorm, D>);
  if constexpr (D == SY_DTYPE_F16 || D == SY_DTYPE_BF16) {
    constexpr sy_dtype_t F = SY_DTYPE_F32;
    l.Add("layer_norm", DtypeList<D, F, F>, NormKernel<Kind::kLayerNorm, D, F>);
    l.Add("layer_norm", DtypeList<D, F, N>, NormKernel<Kind::kLayerNorm, D, F>);
    l.Add("layer_norm", DtypeList<D, N, F>, NormKernel<Kind::kLayerNorm, D, F>);
    l.Add("rms_norm", DtypeList<D, F>, NormKernel<Kind::kRmsNorm, D, F>);
  }
}

}  // namespace

std::span<const plugin::KernelSpec> NormKernels() {
  static const KernelList list = [] {
    KernelList l;
    ForEachDtype<kFloatDtypes>([&]<sy_dtype_t D>() { AddAll<D>(l); });
    return l;
  }();
  return list.specs();
}

}  // namespace sy::gpu
