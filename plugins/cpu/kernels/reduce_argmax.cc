// argmax (see reduce_argmax.h).
//
// With dim=None the flattened tensor is cut into fixed blocks in row-major
// order, reduced in parallel and combined in block order; with a dim, each
// output element scans its row, rows split across threads. A row with unit
// stride goes through the vectorized max (simd::ArgMax: the maximum first,
// then the first index holding it); strided rows are scanned 64 at a time,
// one element of each per step, so a row-major input reduced over an outer
// dim reads memory in order. Ties and NaN resolve to the first index in
// both, so results do not depend on the number of threads.
#include "kernels/reduce_argmax.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/parallel.h"
#include "kernels/reduce_simd.h"
#include "kernels/reduce_util.h"
#include "kernels/strided.h"
#include "switchyard/plugin.hpp"

namespace sy::cpu {
namespace {

using ::sy::plugin::CType;
using ::sy::plugin::DataPtr;
using ::sy::plugin::Guard;
using ::sy::plugin::Shape;
using ::sy::plugin::ShapeToString;
using ::sy::plugin::StrCat;

constexpr std::string_view kOp = "argmax";
constexpr int64_t kBlock = 32768;
constexpr int kTile = 64;

// The value argmax compares: bool bytes tested != 0, f16/bf16 as float.
template <sy_dtype_t D>
struct Values {
  using T = CType<D>;
  using V = std::conditional_t<D == SY_DTYPE_BOOL, uint8_t, ReduceCompute<T>>;
  static V Load(T x) {
    if constexpr (D == SY_DTYPE_BOOL) {
      return x != 0;
    } else {
      return V(x);
    }
  }
  // Whether v, seen after best, replaces it: larger, or the first NaN.
  static bool Better(V v, V best) {
    return best == best && (v > best || v != v);
  }
};

template <sy_dtype_t D>
struct Found {
  typename Values<D>::V value;
  int64_t index;
};

// The first best of n elements at stride s (n >= 1).
template <sy_dtype_t D>
Found<D> ArgMaxRun(const CType<D>* x, int64_t n, int64_t s) {
  using Vs = Values<D>;
  if (s == 1 && D != SY_DTYPE_BOOL) {
    const int64_t i = simd::ArgMax(x, n);
    return {Vs::Load(x[i]), i};
  }
  Found<D> best{Vs::Load(x[0]), 0};
  for (int64_t i = 1; i < n; ++i) {
    const auto v = Vs::Load(x[i * s]);
    if (Vs::Better(v, best.value)) best = {v, i};
  }
  return best;
}

struct Plan {
  bool all = true;  // dim=None
  int dim = 0;
  std::vector<int64_t> out_shape;
};

sy_error_t* MakePlan(const sy_kernel_call_t* call, sy_dtype_t dtype,
                     Plan* plan) {
  SY_PLUGIN_RETURN_IF_ERROR(CheckCall(call, kOp, 1, 1, 2));
  const sy_tensor_view_t& x = call->inputs[0];
  SY_PLUGIN_RETURN_IF_ERROR(CheckTensor(x, kOp, "input 'x'", dtype));
  SY_PLUGIN_RETURN_IF_ERROR(
      CheckTensor(call->outputs[0], kOp, "output", SY_DTYPE_I64));
  const sy_attr_t& dim = call->attrs[0];
  if (dim.kind != SY_ATTR_NONE) {
    SY_PLUGIN_RETURN_IF_ERROR(CheckAttr(call, kOp, 0, "dim", SY_ATTR_INT));
  }
  SY_PLUGIN_RETURN_IF_ERROR(CheckAttr(call, kOp, 1, "keepdim", SY_ATTR_BOOL));
  const bool keepdim = call->attrs[1].value.b != 0;
  const int rank = x.ndim;
  if (dim.kind == SY_ATTR_INT) {
    SY_PLUGIN_RETURN_IF_ERROR(
        WrapDim(kOp, StrCat("attribute 'dim' = ", dim.value.i), dim.value.i,
                rank, "input 'x'", /*wrap_scalar=*/true, &plan->dim));
    plan->all = false;
  }
  for (int d = 0; d < rank; ++d) {
    const bool reduced = plan->all || d == plan->dim;
    if (!reduced) {
      plan->out_shape.push_back(x.shape[d]);
      continue;
    }
    if (keepdim) plan->out_shape.push_back(1);
    if (x.shape[d] == 0) {
      return OpError(kOp,
                     StrCat("input 'x' has shape ", ShapeToString(Shape(x)),
                            ", and argmax over dim ", d,
                            " of size 0 has no result; reduce over "
                            "non-empty dims only"));
    }
  }
  return CheckShape(
      call->outputs[0], plan->out_shape, kOp, "output",
      StrCat("argmax of input 'x' (shape ", ShapeToString(Shape(x)), ") over ",
             plan->all ? std::string("all dims") : StrCat("dim ", plan->dim),
             " with keepdim=", keepdim, " has shape"),
      "allocate the output from argmax's shape function");
}

// dim=None: the flattened tensor in fixed blocks.
template <sy_dtype_t D>
int64_t ArgMaxAll(const sy_tensor_view_t& x) {
  using Vs = Values<D>;
  const CType<D>* px = DataPtr<const CType<D>>(x);
  const StridedLayout<1> layout(Shape(x), {x.strides});
  const int64_t n = layout.numel();
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  std::vector<Found<D>> partial(static_cast<size_t>(blocks));
  ParallelFor(blocks, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      int64_t pos = b * kBlock;
      Found<D> best{};
      bool any = false;
      layout.ForEachRun(pos, std::min(n, pos + kBlock),
                        [&](const auto& off, int64_t m, const auto& st) {
                          const Found<D> f =
                              ArgMaxRun<D>(px + off[0], m, st[0]);
                          if (!any || Vs::Better(f.value, best.value)) {
                            best = {f.value, pos + f.index};
                            any = true;
                          }
                          pos += m;
                        });
      partial[b] = best;
    }
  });
  Found<D> best = partial[0];
  for (const Found<D>& f : partial) {
    if (Vs::Better(f.value, best.value)) best = f;
  }
  return best.index;
}

template <sy_dtype_t D>
void ArgMaxDim(const sy_tensor_view_t& x, int dim, const sy_tensor_view_t& out,
               bool keepdim) {
  using Vs = Values<D>;
  using V = typename Vs::V;
  int64_t shape[SY_MAX_RANK], xs[SY_MAX_RANK], os[SY_MAX_RANK];
  int n = 0;
  for (int d = 0, o = 0; d < x.ndim; ++d) {
    if (d == dim) {
      if (keepdim) ++o;
      continue;
    }
    shape[n] = x.shape[d];
    xs[n] = x.strides[d];
    os[n++] = out.strides[o++];
  }
  const StridedLayout<2> rows(std::span<const int64_t>(shape, n), {xs, os});
  const int64_t len = x.shape[dim];
  const int64_t step = x.strides[dim];
  const CType<D>* px = DataPtr<const CType<D>>(x);
  int64_t* po = DataPtr<int64_t>(out);
  ParallelFor(rows.numel(), GrainFor(len), [&](int64_t begin, int64_t end) {
    rows.ForEachRun(
        begin, end, [&](const auto& off, int64_t count, const auto& st) {
          if (step == 1 || count == 1) {
            for (int64_t t = 0; t < count; ++t) {
              po[off[1] + t * st[1]] =
                  ArgMaxRun<D>(px + off[0] + t * st[0], len, step).index;
            }
            return;
          }
          for (int64_t t0 = 0; t0 < count; t0 += kTile) {
            const int tn =
                static_cast<int>(std::min<int64_t>(kTile, count - t0));
            const CType<D>* base = px + off[0] + t0 * st[0];
            V best[kTile];
            int64_t index[kTile] = {};
            for (int t = 0; t < tn; ++t) best[t] = Vs::Load(base[t * st[0]]);
            for (int64_t r = 1; r < len; ++r) {
              const CType<D>* row = base + r * step;
              for (int t = 0; t < tn; ++t) {
                const V v = Vs::Load(row[t * st[0]]);
                if (Vs::Better(v, best[t])) {
                  best[t] = v;
                  index[t] = r;
                }
              }
            }
            for (int t = 0; t < tn; ++t)
              po[off[1] + (t0 + t) * st[1]] = index[t];
          }
        });
  });
}

template <sy_dtype_t D>
sy_error_t* ArgMax(const sy_kernel_call_t* call) {
  Plan plan;
  SY_PLUGIN_RETURN_IF_ERROR(MakePlan(call, D, &plan));
  const sy_tensor_view_t& x = call->inputs[0];
  const sy_tensor_view_t& out = call->outputs[0];
  if (plugin::NumElements(out) == 0) return nullptr;
  if (plan.all || x.ndim == 0) {
    *DataPtr<int64_t>(out) = ArgMaxAll<D>(x);
  } else {
    ArgMaxDim<D>(x, plan.dim, out, call->attrs[1].value.b != 0);
  }
  return nullptr;
}

template <sy_dtype_t D>
sy_error_t* ArgMaxKernel(const sy_kernel_call_t* call) {
  return Guard("cpu plugin: argmax", [&] { return ArgMax<D>(call); });
}

template <sy_dtype_t... D>
void AddEach(KernelList* list) {
  (list->Add(kOp, DtypeList<D>, ArgMaxKernel<D>), ...);
}

}  // namespace

void AddArgmaxKernels(KernelList* list) {
  AddEach<SY_DTYPE_F32, SY_DTYPE_F64, SY_DTYPE_F16, SY_DTYPE_BF16, SY_DTYPE_I32,
          SY_DTYPE_I64, SY_DTYPE_I8, SY_DTYPE_U8, SY_DTYPE_BOOL>(list);
}

}  // namespace sy::cpu
