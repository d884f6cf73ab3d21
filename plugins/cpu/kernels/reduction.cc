// Reductions: sum (f32).
//
// Note [Sum order]: the input is walked in memory order (dims sorted by
// stride, largest first) while a double accumulator per output element
// collects it; the accumulator has stride 0 on reduced dims. So a reduction
// over any set of dims, of any layout, reads the input once and sequentially:
// a run along a reduced dim becomes one SumRun, a run along a kept
// dim becomes a vector add into the accumulators. Doubles keep a 16M-element
// f32 sum within ~1e-9 of the exact value, far inside f32's own precision.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/kernel_list.h"
#include "kernels/kernel_util.h"
#include "switchyard/plugin.hpp"

namespace sy::cpu {
namespace {

using ::sy::plugin::DataPtr;
using ::sy::plugin::ForEachStridedRun;
using ::sy::plugin::Guard;
using ::sy::plugin::Shape;
using ::sy::plugin::ShapeToString;
using ::sy::plugin::StrCat;

constexpr std::string_view kOp = "sum";

// What the attributes ask for, checked against the input.
struct SumPlan {
  bool reduce[SY_MAX_RANK] = {};
  std::vector<int64_t> out_shape;
};

std::string DimsToString(const sy_attr_t& dims) {
  return ShapeToString(
      {dims.value.ints.data, static_cast<size_t>(dims.value.ints.size)});
}

// schema: sum(Tensor x, int[] dims=[], bool keepdim=False) -> Tensor
sy_error_t* PlanSum(const sy_kernel_call_t* call, SumPlan* plan) {
  SY_PLUGIN_RETURN_IF_ERROR(CheckCall(call, kOp, 1, 1, 2));
  const sy_tensor_view_t& x = call->inputs[0];
  SY_PLUGIN_RETURN_IF_ERROR(CheckView(x, kOp, "input 'x'", SY_DTYPE_F32));
  SY_PLUGIN_RETURN_IF_ERROR(
      CheckView(call->outputs[0], kOp, "output", SY_DTYPE_F32));
  const sy_attr_t& dims = call->attrs[0];
  const sy_attr_t& keepdim = call->attrs[1];
  if (dims.kind != SY_ATTR_INTS || keepdim.kind != SY_ATTR_BOOL) {
    return OpError(kOp, StrCat("attributes have kinds ", dims.kind, " and ",
                               keepdim.kind, " but sum takes an int list (",
                               SY_ATTR_INTS, ") and a bool (", SY_ATTR_BOOL,
                               "); the call does not match sum's schema"));
  }
  const int64_t count = dims.value.ints.size;
  if (count < 0 || (count > 0 && dims.value.ints.data == nullptr)) {
    return OpError(kOp,
                   StrCat("attribute 'dims' has size ", count, " and data ",
                          static_cast<const void*>(dims.value.ints.data),
                          "; pass a size >= 0 and its values"));
  }
  // A scalar accepts dim 0 or -1 and reduces nothing, as in PyTorch.
  const int rank = x.ndim;
  const int64_t bound = rank == 0 ? 1 : rank;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t d = dims.value.ints.data[i];
    if (d < -bound || d >= bound) {
      return OpError(
          kOp, StrCat("attribute 'dims' = ", DimsToString(dims), " has dim ", d,
                      ", out of range for input 'x' of rank ", rank,
                      "; dims must be in [", -bound, ", ", bound - 1, "]"));
    }
    if (rank == 0) continue;
    const int64_t wrapped = d < 0 ? d + rank : d;
    if (plan->reduce[wrapped]) {
      return OpError(
          kOp, StrCat("attribute 'dims' = ", DimsToString(dims), " names dim ",
                      wrapped, " more than once; name each dim once"));
    }
    plan->reduce[wrapped] = true;
  }
  for (int d = 0; d < rank; ++d) {
    if (count == 0) plan->reduce[d] = true;  // dims=[] reduces every dim.
    if (!plan->reduce[d]) {
      plan->out_shape.push_back(x.shape[d]);
    } else if (keepdim.value.b != 0) {
      plan->out_shape.push_back(1);
    }
  }
  return CheckShape(
      call->outputs[0], plan->out_shape, kOp, "output",
      StrCat("summing input 'x' of shape ", ShapeToString(Shape(x)),
             " over dims ", DimsToString(dims),
             " with keepdim=", keepdim.value.b != 0, " gives"),
      "allocate the output from sum's shape function");
}

// Sum of n floats at stride s, in double. Eight independent partial sums let
// the compiler vectorize the unit-stride case.
double SumRun(const float* x, int64_t n, int64_t s) {
  double total = 0.0;
  int64_t i = 0;
  if (s == 1) {
    double part[8] = {};
    for (; i + 8 <= n; i += 8) {
      for (int j = 0; j < 8; ++j) part[j] += x[i + j];
    }
    total = ((part[0] + part[1]) + (part[2] + part[3])) +
            ((part[4] + part[5]) + (part[6] + part[7]));
  }
  for (; i < n; ++i) total += x[i * s];
  return total;
}

// Adds x into `acc`, one double per output element (see Note [Sum order]).
void Accumulate(const sy_tensor_view_t& x, const SumPlan& plan, double* acc) {
  const int rank = x.ndim;
  int64_t acc_strides[SY_MAX_RANK];
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    acc_strides[d] = plan.reduce[d] ? 0 : stride;
    if (!plan.reduce[d]) stride *= x.shape[d];
  }
  std::array<int, SY_MAX_RANK> order;
  std::iota(order.begin(), order.begin() + rank, 0);
  std::stable_sort(order.begin(), order.begin() + rank, [&](int p, int q) {
    return std::llabs(x.strides[p]) > std::llabs(x.strides[q]);
  });
  int64_t shape[SY_MAX_RANK], x_strides[SY_MAX_RANK], a_strides[SY_MAX_RANK];
  for (int i = 0; i < rank; ++i) {
    shape[i] = x.shape[order[i]];
    x_strides[i] = x.strides[order[i]];
    a_strides[i] = acc_strides[order[i]];
  }
  const float* px = DataPtr<const float>(x);
  ForEachStridedRun<2>(std::span<const int64_t>(shape, rank),
                       {x_strides, a_strides},
                       [&](const auto& off, int64_t n, const auto& st) {
                         const float* in = px + off[0];
                         double* out = acc + off[1];
                         if (st[1] == 0) {
                           *out += SumRun(in, n, st[0]);
                         } else if (st[0] == 1 && st[1] == 1) {
                           for (int64_t i = 0; i < n; ++i) out[i] += in[i];
                         } else {
                           for (int64_t i = 0; i < n; ++i)
                             out[i * st[1]] += in[i * st[0]];
                         }
                       });
}

sy_error_t* Sum(const sy_kernel_call_t* call) {
  SumPlan plan;
  SY_PLUGIN_RETURN_IF_ERROR(PlanSum(call, &plan));
  const sy_tensor_view_t& out = call->outputs[0];
  const int64_t out_count = plugin::NumElements(out);
  if (out_count == 0) return nullptr;
  std::vector<double> acc(static_cast<size_t>(out_count), 0.0);
  Accumulate(call->inputs[0], plan, acc.data());
  // acc is dense over the output's shape, in row-major order.
  int64_t acc_strides[SY_MAX_RANK];
  int64_t stride = 1;
  for (int d = out.ndim - 1; d >= 0; --d) {
    acc_strides[d] = stride;
    stride *= out.shape[d];
  }
  float* po = DataPtr<float>(out);
  const double* pa = acc.data();
  ForEachStridedRun<2>(Shape(out), {out.strides, acc_strides},
                       [&](const auto& off, int64_t n, const auto& st) {
                         for (int64_t i = 0; i < n; ++i) {
                           po[off[0] + i * st[0]] =
                               static_cast<float>(pa[off[1] + i * st[1]]);
                         }
                       });
  return nullptr;
}

}  // namespace

sy_error_t* SumF32(const sy_kernel_call_t* call) {
  // The accumulators are the only allocation: bad_alloc → RESOURCE_EXHAUSTED.
  return Guard("cpu plugin: sum", [&] { return Sum(call); });
}

}  // namespace sy::cpu

namespace sy::cpu {

std::span<const plugin::KernelSpec> ReductionKernels() {
  static const KernelList* const list = [] {
    auto* l = new KernelList;
    l->Add("sum", DtypeList<SY_DTYPE_F32>, SumF32);
    return l;
  }();
  return list->specs();
}

}  // namespace sy::cpu
