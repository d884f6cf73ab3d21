// Reductions over a list of dims: sum, mean, max and min, for every dtype
// their shape functions accept (argmax lives in reduce_argmax.cc).
//
// Note [Reduction order]: one accumulator per output element (double for
// floating sums, uint64 for integer sums, the compute type for max/min).
// The input is walked in memory order (dims sorted by stride, largest
// first) with the accumulator's strides alongside, 0 on reduced dims; so a
// reduction over any set of dims, of any layout, reads x once and
// sequentially: a run along a reduced dim folds into one accumulator through
// a vectorized loop (reduce_simd.h), a run along a kept dim is a vectorized
// elementwise update of many. Threads split the walk along the kept dim
// with the most indices, so they never share an accumulator.
//
// When there are few outputs (fewer than kFewOutputs) and each reduces
// many elements (at least 2 * kBlock), each output's elements are cut into
// fixed blocks of kBlock in memory order instead, the blocks reduced in
// parallel (at least kBlocksPerThread of them a thread) and their partial
// results combined in block order.
//
// Neither split depends on the number of threads, and the vectorized loops
// add in a fixed lane order, so a result is bit-identical for any
// SWITCHYARD_NUM_THREADS (checked: same bits for 1, 2, 3, 5, 7 and 16
// threads). Double accumulators (fed by short float lanes, see LaneSum in
// reduce_simd.cc) keep a 16M-element f32 sum within ~1e-10 of the exact
// value before the final rounding; f16/bf16 results are rounded once from
// double (RoundToOddFloat). Integer sums wrap modulo 2^64 like NumPy's,
// without undefined behaviour; bool sums count nonzero bytes. NaN
// propagates as in NumPy: a sum, mean, max or min over a slice containing
// NaN is NaN. max/min of bool are any/all.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/kernel_list.h"
#include "kernels/kernel_util.h"
#include "kernels/parallel.h"
#include "kernels/reduce_argmax.h"
#include "kernels/reduce_simd.h"
#include "kernels/reduce_util.h"
#include "kernels/strided.h"
#include "switchyard/plugin.hpp"

namespace sy::cpu {
namespace {

using ::sy::plugin::CType;
using ::sy::plugin::DataPtr;
using ::sy::plugin::ForEachStridedRun;
using ::sy::plugin::Guard;
using ::sy::plugin::Shape;
using ::sy::plugin::ShapeToString;
using ::sy::plugin::StrCat;

constexpr int64_t kBlock = 32768;
constexpr int64_t kFewOutputs = 8;
// A thread's least share of the blocks: waking a worker costs more than
// summing a block or two. A 64 Ki-element f32 sum (two blocks) took 2.0 µs
// on one thread against 4.3 µs on two (2-core VM, bench_ops), and 30.8 µs
// on two threads of the GPU machine's 16-core host, whose wake-ups are
// slow (docs/onednn.md, "Narrow reductions"). Which blocks exist does not
// change, so results keep their bits.
constexpr int64_t kBlocksPerThread = 4;

enum class Kind { kSum, kMean, kMax, kMin };

constexpr std::string_view OpName(Kind kind) {
  switch (kind) {
    case Kind::kSum:
      return "sum";
    case Kind::kMean:
      return "mean";
    case Kind::kMax:
      return "max";
    case Kind::kMin:
      return "min";
  }
  return "";
}

// Runs shorter than this skip the call into reduce_simd.cc, which would
// cost more than the loop. The choice depends only on the length of a run
// along reduced dims, which no thread split changes (elementwise updates
// give the same bits either way), so results stay thread-count independent.
constexpr int64_t kShortRun = 64;

// ---- How each (op, element type) reduces ---------------------------------
// Acc: the accumulator; Identity(); Run(x, n, stride): a run folded into a
// fresh accumulator; Into(acc, x, n, x_stride, acc_stride): acc[i] ⊕= x[i];
// Merge; Finish(acc, count): the output element.

template <class T>
struct FloatSum {
  using Acc = double;
  static Acc Identity() { return 0.0; }
  static Acc Run(const T* x, int64_t n, int64_t s) {
    if (s == 1 && n >= kShortRun) return simd::SumF(x, n);
    double total = 0.0;
    for (int64_t i = 0; i < n; ++i) total += double(ReduceCompute<T>(x[i * s]));
    return total;
  }
  static void Into(Acc* acc, const T* x, int64_t n, int64_t xs, int64_t as) {
    if (xs == 1 && as == 1 && n >= kShortRun) return simd::AddF(acc, x, n);
    for (int64_t i = 0; i < n; ++i)
      acc[i * as] += double(ReduceCompute<T>(x[i * xs]));
  }
  static Acc Merge(Acc a, Acc b) { return a + b; }
  static T Finish(Acc a, int64_t) { return FromDouble<T>(a); }
};

template <class T>
struct FloatMean : FloatSum<T> {
  static T Finish(double a, int64_t count) {
    return FromDouble<T>(a / static_cast<double>(count));  // 0/0 is NaN
  }
};

template <class T>
struct IntSum {
  using Acc = uint64_t;  // wraps modulo 2^64 without UB
  static Acc Identity() { return 0; }
  static Acc Run(const T* x, int64_t n, int64_t s) {
    if (s == 1 && n >= kShortRun) return simd::SumI(x, n);
    Acc total = 0;
    for (int64_t i = 0; i < n; ++i) total += Acc(int64_t(x[i * s]));
    return total;
  }
  static void Into(Acc* acc, const T* x, int64_t n, int64_t xs, int64_t as) {
    if (xs == 1 && as == 1 && n >= kShortRun) return simd::AddI(acc, x, n);
    for (int64_t i = 0; i < n; ++i) acc[i * as] += Acc(int64_t(x[i * xs]));
  }
  static Acc Merge(Acc a, Acc b) { return a + b; }
  static int64_t Finish(Acc a, int64_t) { return static_cast<int64_t>(a); }
};

struct BoolSum {
  using Acc = uint64_t;
  static Acc Identity() { return 0; }
  static Acc Run(const uint8_t* x, int64_t n, int64_t s) {
    if (s == 1 && n >= kShortRun) return simd::CountNonzero(x, n);
    Acc total = 0;
    for (int64_t i = 0; i < n; ++i) total += x[i * s] != 0;
    return total;
  }
  static void Into(Acc* acc, const uint8_t* x, int64_t n, int64_t xs,
                   int64_t as) {
    if (xs == 1 && as == 1 && n >= kShortRun) {
      return simd::AddNonzero(acc, x, n);
    }
    for (int64_t i = 0; i < n; ++i) acc[i * as] += x[i * xs] != 0;
  }
  static Acc Merge(Acc a, Acc b) { return a + b; }
  static int64_t Finish(Acc a, int64_t) { return static_cast<int64_t>(a); }
};

// max/min; bool runs as its bytes, and the result is tested != 0.
template <class T, bool kMax, bool kBool = false>
struct Extreme {
  using Acc = ReduceCompute<T>;
  static Acc Identity() {
    if constexpr (std::numeric_limits<Acc>::has_infinity) {
      return kMax ? -std::numeric_limits<Acc>::infinity()
                  : std::numeric_limits<Acc>::infinity();
    } else {
      return kMax ? std::numeric_limits<Acc>::lowest()
                  : std::numeric_limits<Acc>::max();
    }
  }
  // NaN-propagating: once a is NaN no comparison is true.
  static Acc Merge(Acc a, Acc v) {
    if constexpr (kMax) {
      return (v > a || v != v) ? v : a;
    } else {
      return (v < a || v != v) ? v : a;
    }
  }
  static Acc Run(const T* x, int64_t n, int64_t s) {
    if (s == 1 && n >= kShortRun) {
      return kMax ? simd::Max(x, n) : simd::Min(x, n);
    }
    Acc a = Identity();
    for (int64_t i = 0; i < n; ++i) a = Merge(a, Acc(x[i * s]));
    return a;
  }
  static void Into(Acc* acc, const T* x, int64_t n, int64_t xs, int64_t as) {
    if (xs == 1 && as == 1 && n >= kShortRun) {
      return kMax ? simd::MaxInto(acc, x, n) : simd::MinInto(acc, x, n);
    }
    for (int64_t i = 0; i < n; ++i)
      acc[i * as] = Merge(acc[i * as], Acc(x[i * xs]));
  }
  static T Finish(Acc a, int64_t) {
    if constexpr (kBool) {
      return static_cast<T>(a != 0);
    } else {
      return T(a);
    }
  }
};

template <Kind K, sy_dtype_t D>
struct ReducerFor {
  using T = CType<D>;
  static constexpr bool kFloat = kIsFloating<T>;
  using type = std::conditional_t<
      K == Kind::kMax || K == Kind::kMin,
      Extreme<T, K == Kind::kMax, D == SY_DTYPE_BOOL>,
      std::conditional_t<
          K == Kind::kMean, FloatMean<T>,
          std::conditional_t<
              kFloat, FloatSum<T>,
              std::conditional_t<D == SY_DTYPE_BOOL, BoolSum, IntSum<T>>>>>;
};

// ---- The call -------------------------------------------------------------

struct Plan {
  bool reduce[SY_MAX_RANK] = {};
  std::vector<int64_t> out_shape;
  int64_t reduce_count = 1;
};

// schema: <op>(Tensor x, int[] dims=[], bool keepdim=False) -> Tensor
sy_error_t* MakePlan(const sy_kernel_call_t* call, Kind kind, sy_dtype_t dtype,
                     sy_dtype_t out_dtype, Plan* plan) {
  const std::string_view op = OpName(kind);
  SY_PLUGIN_RETURN_IF_ERROR(CheckCall(call, op, 1, 1, 2));
  const sy_tensor_view_t& x = call->inputs[0];
  SY_PLUGIN_RETURN_IF_ERROR(CheckTensor(x, op, "input 'x'", dtype));
  SY_PLUGIN_RETURN_IF_ERROR(
      CheckTensor(call->outputs[0], op, "output", out_dtype));
  SY_PLUGIN_RETURN_IF_ERROR(CheckAttr(call, op, 0, "dims", SY_ATTR_INTS));
  SY_PLUGIN_RETURN_IF_ERROR(CheckAttr(call, op, 1, "keepdim", SY_ATTR_BOOL));
  const sy_attr_t& dims = call->attrs[0];
  const bool keepdim = call->attrs[1].value.b != 0;
  const std::string what = StrCat("attribute 'dims' = ", IntsToString(dims));
  const int rank = x.ndim;
  bool named[SY_MAX_RANK] = {};
  for (int64_t d : Ints(dims)) {
    int wrapped = 0;
    SY_PLUGIN_RETURN_IF_ERROR(WrapDim(op, what, d, rank, "input 'x'",
                                      /*wrap_scalar=*/true, &wrapped));
    if (named[wrapped]) {
      return OpError(op, StrCat(what, " names dim ", wrapped,
                                " more than once; name each dim once"));
    }
    named[wrapped] = true;
    if (rank > 0) plan->reduce[wrapped] = true;
  }
  for (int d = 0; d < rank; ++d) {
    if (dims.value.ints.size == 0) plan->reduce[d] = true;  // [] = every dim
    if (!plan->reduce[d]) {
      plan->out_shape.push_back(x.shape[d]);
      continue;
    }
    if (keepdim) plan->out_shape.push_back(1);
    plan->reduce_count *= x.shape[d];
    // max and min have no identity element to return for nothing.
    if (x.shape[d] == 0 && (kind == Kind::kMax || kind == Kind::kMin)) {
      return OpError(
          op, StrCat("input 'x' has shape ", ShapeToString(Shape(x)), ", and ",
                     op, " over dim ", d,
                     " of size 0 has no result; reduce over non-empty dims "
                     "only"));
    }
  }
  return CheckShape(
      call->outputs[0], plan->out_shape, op, "output",
      StrCat(op, " of input 'x' (shape ", ShapeToString(Shape(x)),
             ") over dims ", IntsToString(dims), " with keepdim=", keepdim,
             " has shape"),
      StrCat("allocate the output from ", op, "'s shape function"));
}

// One dim of x in memory order, with the accumulator's stride.
struct WalkDim {
  int64_t size, x_stride, acc_stride;
  bool reduced;
};

template <class R, class T>
void Accumulate(const T* px, const std::vector<WalkDim>& walk,
                typename R::Acc* acc, int64_t out_count, int64_t reduce_count) {
  using Acc = typename R::Acc;
  const int n = static_cast<int>(walk.size());
  int64_t shape[SY_MAX_RANK], xs[SY_MAX_RANK], as[SY_MAX_RANK];
  int split = -1;  // the kept dim with the most indices
  for (int i = 0; i < n; ++i) {
    shape[i] = walk[i].size;
    xs[i] = walk[i].x_stride;
    as[i] = walk[i].acc_stride;
    if (!walk[i].reduced && (split < 0 || walk[i].size > walk[split].size)) {
      split = i;
    }
  }
  const auto body = [&](Acc* a, const T* x) {
    return [a, x](const auto& off, int64_t count, const auto& st) {
      if (st[1] == 0) {
        a[off[1]] = R::Merge(a[off[1]], R::Run(x + off[0], count, st[0]));
      } else {
        R::Into(a + off[1], x + off[0], count, st[0], st[1]);
      }
    };
  };
  if (split >= 0 && !(out_count < kFewOutputs && reduce_count >= 2 * kBlock)) {
    // Split along `split`: chunks own disjoint accumulators.
    const int64_t size = shape[split];
    const int64_t per_index = out_count / size * reduce_count;
    ParallelFor(size, GrainFor(per_index), [&](int64_t begin, int64_t end) {
      int64_t local[SY_MAX_RANK];
      std::copy(shape, shape + n, local);
      local[split] = end - begin;
      ForEachStridedRun<2>(
          std::span<const int64_t>(local, n), {xs, as},
          body(acc + begin * as[split], px + begin * xs[split]));
    });
    return;
  }
  // Few outputs: each one's reduced elements in fixed blocks (see the Note).
  int64_t red_shape[SY_MAX_RANK], red_strides[SY_MAX_RANK];
  int64_t keep_shape[SY_MAX_RANK], keep_strides[SY_MAX_RANK];
  int nr = 0, nk = 0;
  for (int i = 0; i < n; ++i) {
    if (walk[i].reduced) {
      red_shape[nr] = shape[i];
      red_strides[nr++] = xs[i];
    } else {
      keep_shape[nk] = shape[i];
      keep_strides[nk++] = as[i];
    }
  }
  const StridedLayout<1> layout(std::span<const int64_t>(red_shape, nr),
                                {red_strides});
  const int64_t blocks = (reduce_count + kBlock - 1) / kBlock;
  std::vector<Acc> partial(static_cast<size_t>(blocks));
  // Visit each output once, with its x offset (kept dims' x strides).
  int64_t keep_xs[SY_MAX_RANK];
  for (int i = 0, k = 0; i < n; ++i) {
    if (!walk[i].reduced) keep_xs[k++] = xs[i];
  }
  ForEachStridedRun<2>(
      std::span<const int64_t>(keep_shape, nk), {keep_xs, keep_strides},
      [&](const auto& off, int64_t count, const auto& st) {
        for (int64_t o = 0; o < count; ++o) {
          const T* x = px + off[0] + o * st[0];
          ParallelFor(blocks, kBlocksPerThread, [&](int64_t b0, int64_t b1) {
            for (int64_t b = b0; b < b1; ++b) {
              Acc a = R::Identity();
              layout.ForEachRun(
                  b * kBlock, std::min(reduce_count, (b + 1) * kBlock),
                  [&](const auto& roff, int64_t m, const auto& rst) {
                    a = R::Merge(a, R::Run(x + roff[0], m, rst[0]));
                  });
              partial[b] = a;
            }
          });
          Acc& out = acc[off[1] + o * st[1]];
          for (const Acc& p : partial) out = R::Merge(out, p);
        }
      });
}

template <Kind K, sy_dtype_t D, sy_dtype_t OutD>
sy_error_t* Reduce(const sy_kernel_call_t* call) {
  using T = CType<D>;
  using R = typename ReducerFor<K, D>::type;
  using Acc = typename R::Acc;
  Plan plan;
  SY_PLUGIN_RETURN_IF_ERROR(MakePlan(call, K, D, OutD, &plan));
  const sy_tensor_view_t& x = call->inputs[0];
  const sy_tensor_view_t& out = call->outputs[0];
  const int64_t out_count = plugin::NumElements(out);
  if (out_count == 0) return nullptr;
  std::vector<Acc> acc(static_cast<size_t>(out_count), R::Identity());
  if (plan.reduce_count > 0) {
    // Accumulator strides: dense over the kept dims in logical order.
    std::vector<WalkDim> walk;
    int64_t stride = out_count;
    for (int d = 0; d < x.ndim; ++d) {
      const int64_t size = x.shape[d];
      if (!plan.reduce[d]) stride /= size;
      if (size == 1) continue;
      walk.push_back(
          {size, x.strides[d], plan.reduce[d] ? 0 : stride, plan.reduce[d]});
    }
    std::stable_sort(walk.begin(), walk.end(),
                     [](const WalkDim& a, const WalkDim& b) {
                       return a.x_stride > b.x_stride;
                     });
    Accumulate<R>(DataPtr<const T>(x), walk, acc.data(), out_count,
                  plan.reduce_count);
  }
  // acc is dense in the output's row-major order.
  int64_t acc_strides[SY_MAX_RANK];
  int64_t stride = 1;
  for (int d = out.ndim - 1; d >= 0; --d) {
    acc_strides[d] = stride;
    stride *= out.shape[d];
  }
  using Out = CType<OutD>;
  Out* po = DataPtr<Out>(out);
  const Acc* pa = acc.data();
  const int64_t count = plan.reduce_count;
  const StridedLayout<2> layout(Shape(out), {out.strides, acc_strides});
  ParallelForEachRun(
      layout, kParallelGrain, [&](const auto& off, int64_t n, const auto& st) {
        for (int64_t i = 0; i < n; ++i) {
          po[off[0] + i * st[0]] = R::Finish(pa[off[1] + i * st[1]], count);
        }
      });
  return nullptr;
}

template <Kind K, sy_dtype_t D, sy_dtype_t OutD>
sy_error_t* ReduceKernel(const sy_kernel_call_t* call) {
  // The accumulators are the only allocations: bad_alloc →
  // RESOURCE_EXHAUSTED.
  static constexpr std::string_view kWhere[] = {
      "cpu plugin: sum", "cpu plugin: mean", "cpu plugin: max",
      "cpu plugin: min"};
  return Guard(kWhere[static_cast<int>(K)],
               [&] { return Reduce<K, D, OutD>(call); });
}

template <Kind K, sy_dtype_t D>
void Add(KernelList* list) {
  constexpr sy_dtype_t kOut =
      K == Kind::kSum && !kIsFloating<CType<D>> ? SY_DTYPE_I64 : D;
  list->Add(OpName(K), DtypeList<D>, ReduceKernel<K, D, kOut>);
}

template <Kind K>
void AddAll(KernelList* list) {
  // f32 first: the first kernel for an op is the one tests reach by name.
  Add<K, SY_DTYPE_F32>(list);
  Add<K, SY_DTYPE_F64>(list);
  Add<K, SY_DTYPE_F16>(list);
  Add<K, SY_DTYPE_BF16>(list);
  if constexpr (K != Kind::kMean) {  // mean is floating only
    Add<K, SY_DTYPE_I32>(list);
    Add<K, SY_DTYPE_I64>(list);
    Add<K, SY_DTYPE_I8>(list);
    Add<K, SY_DTYPE_U8>(list);
    Add<K, SY_DTYPE_BOOL>(list);
  }
}

}  // namespace

std::span<const plugin::KernelSpec> ReductionKernels() {
  static const KernelList list = [] {
    KernelList l;
    AddAll<Kind::kSum>(&l);
    AddAll<Kind::kMean>(&l);
    AddAll<Kind::kMax>(&l);
    AddAll<Kind::kMin>(&l);
    AddArgmaxKernels(&l);
    return l;
  }();
  return list.specs();
}

}  // namespace sy::cpu
