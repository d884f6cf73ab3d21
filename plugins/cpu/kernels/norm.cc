// softmax and log_softmax over one dim, for f32 f64 f16 bf16; the kernel
// list of the family (layer_norm and rms_norm are in norm_layer.cc).
//
// Both subtract the row's maximum before exp, so no finite input
// overflows. softmax is exp(x - max) * (1 / sum); log_softmax is
// (x - max) - log(sum), which stays accurate for very negative x (no
// log of a rounded-to-zero exp). Sums run in double; f16/bf16 compute in
// float and round once. A row containing NaN gives NaN throughout; a row of
// -inf gives NaN, as in PyTorch. See norm_rows.h for the walk,
// reduce_simd.h for the vectorized loops and vector_math.h for exp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "kernels/kernel_list.h"
#include "kernels/kernel_util.h"
#include "kernels/norm_layer.h"
#include "kernels/norm_rows.h"
#include "kernels/reduce_simd.h"
#include "kernels/reduce_util.h"
#include "kernels/vector_math.h"
#include "switchyard/plugin.hpp"

namespace sy::cpu {
namespace {

using ::sy::plugin::CType;
using ::sy::plugin::Guard;
using ::sy::plugin::Shape;
using ::sy::plugin::StrCat;

// exp over a run in L1-sized blocks: shift, exp in place (libmvec through
// VecMath), and sum while the block is still in cache. Writes y[i] =
// exp(x[i] - shift) when `store`, else uses scratch; returns the sum.
template <class C, bool kStore>
double ExpSum(C* y, const C* x, C shift, int64_t n) {
  constexpr int64_t kBlock = 1024;
  C scratch[kStore ? 1 : kBlock];
  double total = 0.0;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = std::min(kBlock, n - b);
    C* e = kStore ? y + b : scratch;
    simd::SubSub(e, x + b, shift, C(0), m);
    VecMath(VecFn::kExp, m, e, e);
    total += simd::SumF(e, m);
  }
  return total;
}

template <class C>
void SoftmaxRow(const C* x, C* y, int64_t n) {
  const C max = simd::Max(x, n);
  const double sum = ExpSum<C, true>(y, x, max, n);
  simd::Scale(y, y, static_cast<C>(1.0 / sum), n);
}

template <class C>
void LogSoftmaxRow(const C* x, C* y, int64_t n) {
  const C max = simd::Max(x, n);
  const double sum = ExpSum<C, false>(nullptr, x, max, n);
  simd::SubSub(y, x, max, static_cast<C>(std::log(sum)), n);
}

// schema: softmax / log_softmax(Tensor x, int dim=-1) -> Tensor
template <bool kLog, sy_dtype_t D>
sy_error_t* Softmax(const sy_kernel_call_t* call) {
  using T = CType<D>;
  using C = ReduceCompute<T>;
  constexpr std::string_view op = kLog ? "log_softmax" : "softmax";
  SY_PLUGIN_RETURN_IF_ERROR(CheckCall(call, op, 1, 1, 1));
  const sy_tensor_view_t& x = call->inputs[0];
  const sy_tensor_view_t& out = call->outputs[0];
  SY_PLUGIN_RETURN_IF_ERROR(CheckTensor(x, op, "input 'x'", D));
  SY_PLUGIN_RETURN_IF_ERROR(CheckTensor(out, op, "output", D));
  SY_PLUGIN_RETURN_IF_ERROR(CheckAttr(call, op, 0, "dim", SY_ATTR_INT));
  const int64_t dim = call->attrs[0].value.i;
  int wrapped = 0;
  SY_PLUGIN_RETURN_IF_ERROR(WrapDim(op, StrCat("attribute 'dim' = ", dim), dim,
                                    x.ndim, "input 'x'", /*wrap_scalar=*/true,
                                    &wrapped));
  SY_PLUGIN_RETURN_IF_ERROR(CheckShape(
      out, Shape(x), op, "output", StrCat(op, " keeps the shape of input 'x',"),
      StrCat("allocate the output from ", op, "'s shape function")));
  bool row_dim[SY_MAX_RANK] = {};
  if (x.ndim > 0) row_dim[wrapped] = true;
  ForEachRow<T>(x, out, row_dim, kLog ? LogSoftmaxRow<C> : SoftmaxRow<C>);
  return nullptr;
}

template <bool kLog, sy_dtype_t D>
sy_error_t* SoftmaxKernel(const sy_kernel_call_t* call) {
  // Scratch for gathered rows is the only allocation.
  return Guard(kLog ? "cpu plugin: log_softmax" : "cpu plugin: softmax",
               [&] { return Softmax<kLog, D>(call); });
}

template <bool kLog>
void AddSoftmax(KernelList* list) {
  constexpr std::string_view op = kLog ? "log_softmax" : "softmax";
  list->Add(op, DtypeList<SY_DTYPE_F32>, SoftmaxKernel<kLog, SY_DTYPE_F32>);
  list->Add(op, DtypeList<SY_DTYPE_F64>, SoftmaxKernel<kLog, SY_DTYPE_F64>);
  list->Add(op, DtypeList<SY_DTYPE_F16>, SoftmaxKernel<kLog, SY_DTYPE_F16>);
  list->Add(op, DtypeList<SY_DTYPE_BF16>, SoftmaxKernel<kLog, SY_DTYPE_BF16>);
}

}  // namespace

std::span<const plugin::KernelSpec> NormKernels() {
  static const KernelList list = [] {
    KernelList l;
    AddSoftmax<false>(&l);
    AddSoftmax<true>(&l);
    AddLayerNormKernels(&l);
    return l;
  }();
  return list.specs();
}

}  // namespace sy::cpu
