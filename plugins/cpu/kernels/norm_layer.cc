// layer_norm and rms_norm (see norm_layer.h).
//
// Per row, layer_norm takes the mean and then the mean squared deviation
// from it (two passes in double over a row that stays in cache; the biased
// variance, as PyTorch) and writes ((x - mean) * rstd) * w + b with
// rstd = 1 / sqrt(var + eps); rms_norm writes (x * rstd) * w with
// rstd = 1 / sqrt(mean(x^2) + eps). weight and bias are converted once per
// call into dense arrays of the compute type, so any strides work. Rows are
// walked by ForEachRow (norm_rows.h); the loops are in reduce_simd.h.
#include "kernels/norm_layer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/norm_rows.h"
#include "kernels/reduce_simd.h"
#include "kernels/reduce_util.h"
#include "switchyard/plugin.hpp"

namespace sy::cpu {
namespace {

using ::sy::plugin::CType;
using ::sy::plugin::DataPtr;
using ::sy::plugin::DtypeName;
using ::sy::plugin::ForEachStridedRun;
using ::sy::plugin::Guard;
using ::sy::plugin::Shape;
using ::sy::plugin::ShapeToString;
using ::sy::plugin::StrCat;

// The elements of `v` (dtype W) in row-major order, as C.
template <sy_dtype_t W, class C>
std::vector<C> LoadVector(const sy_tensor_view_t& v) {
  using TW = CType<W>;
  std::vector<C> out(static_cast<size_t>(plugin::NumElements(v)));
  const TW* p = DataPtr<const TW>(v);
  int64_t pos = 0;
  ForEachStridedRun<1>(Shape(v), {v.strides},
                       [&](const auto& off, int64_t n, const auto& st) {
                         for (int64_t i = 0; i < n; ++i) {
                           out[pos + i] = C(ReduceCompute<TW>(p[off[0] + i * st[0]]));
                         }
                         pos += n;
                       });
  return out;
}

sy_error_t* CheckEps(std::string_view op, const sy_attr_t& eps) {
  if (std::isfinite(eps.value.f) && eps.value.f >= 0) return nullptr;
  return OpError(op, StrCat("attribute 'eps' = ", eps.value.f,
                            " must be a finite number >= 0, such as 1e-05"));
}

// The view of optional tensor argument k, or NULL when the call omits it;
// the key says whether this kernel expects it (dtype != SY_DTYPE_NONE).
sy_error_t* OptionalArg(const sy_kernel_call_t* call, std::string_view op,
                        int k, std::string_view name, sy_dtype_t dtype,
                        const sy_tensor_view_t** out) {
  int first = 0, count = 0;
  SY_PLUGIN_RETURN_IF_ERROR(TensorArg(call, op, 3, k, &first, &count));
  const int want = dtype == SY_DTYPE_NONE ? 0 : 1;
  if (count != want) {
    return OpError(op, StrCat("tensor argument '", name, "' has ", count,
                              " inputs but this kernel was registered with ",
                              name, " dtype ", DtypeName(dtype), " (", want,
                              " inputs); the call does not match the "
                              "kernel's key"));
  }
  *out = count == 0 ? nullptr : &call->inputs[first];
  return nullptr;
}

// schema: layer_norm(Tensor x, int[] normalized_shape, Tensor? weight=None,
//                    Tensor? bias=None, float eps=1e-05) -> Tensor
template <sy_dtype_t D, sy_dtype_t WD, sy_dtype_t BD>
sy_error_t* LayerNorm(const sy_kernel_call_t* call) {
  using T = CType<D>;
  using C = ReduceCompute<T>;
  constexpr std::string_view op = "layer_norm";
  constexpr int kInputs = 1 + (WD != SY_DTYPE_NONE) + (BD != SY_DTYPE_NONE);
  SY_PLUGIN_RETURN_IF_ERROR(CheckCall(call, op, kInputs, 1, 2));
  const sy_tensor_view_t* weight = nullptr;
  const sy_tensor_view_t* bias = nullptr;
  SY_PLUGIN_RETURN_IF_ERROR(OptionalArg(call, op, 1, "weight", WD, &weight));
  SY_PLUGIN_RETURN_IF_ERROR(OptionalArg(call, op, 2, "bias", BD, &bias));
  const sy_tensor_view_t& x = call->inputs[0];
  const sy_tensor_view_t& out = call->outputs[0];
  SY_PLUGIN_RETURN_IF_ERROR(CheckTensor(x, op, "input 'x'", D));
  SY_PLUGIN_RETURN_IF_ERROR(CheckTensor(out, op, "output", D));
  if (weight != nullptr) {
    SY_PLUGIN_RETURN_IF_ERROR(CheckTensor(*weight, op, "input 'weight'", WD));
  }
  if (bias != nullptr) {
    SY_PLUGIN_RETURN_IF_ERROR(CheckTensor(*bias, op, "input 'bias'", BD));
  }
  SY_PLUGIN_RETURN_IF_ERROR(
      CheckAttr(call, op, 0, "normalized_shape", SY_ATTR_INTS));
  SY_PLUGIN_RETURN_IF_ERROR(CheckAttr(call, op, 1, "eps", SY_ATTR_FLOAT));
  const std::span<const int64_t> normalized = Ints(call->attrs[0]);
  const std::span<const int64_t> x_shape = Shape(x);
  const std::string x_text =
      StrCat("input 'x' (shape ", ShapeToString(x_shape), ")");
  const int k = static_cast<int>(normalized.size());
  if (k == 0 || k > x.ndim ||
      !std::ranges::equal(normalized, x_shape.last(k))) {
    return OpError(
        op, StrCat("attribute 'normalized_shape' = ", ShapeToString(normalized),
                   " is not a non-empty list of the trailing dims "
                   "of ",
                   x_text, "; pass e.g. ",
                   ShapeToString(x_shape.last(x.ndim > 0 ? 1 : 0))));
  }
  for (const sy_tensor_view_t* v : {weight, bias}) {
    if (v == nullptr) continue;
    SY_PLUGIN_RETURN_IF_ERROR(CheckShape(
        *v, normalized, op, v == weight ? "input 'weight'" : "input 'bias'",
        "attribute 'normalized_shape' is",
        "pass one value per normalized "
        "element"));
  }
  SY_PLUGIN_RETURN_IF_ERROR(CheckEps(op, call->attrs[1]));
  SY_PLUGIN_RETURN_IF_ERROR(CheckShape(
      out, x_shape, op, "output", "layer_norm keeps the shape of input 'x',",
      "allocate the output from layer_norm's shape function"));
  std::vector<C> w, b;
  if constexpr (WD != SY_DTYPE_NONE) w = LoadVector<WD, C>(*weight);
  if constexpr (BD != SY_DTYPE_NONE) b = LoadVector<BD, C>(*bias);
  const C* pw = WD != SY_DTYPE_NONE ? w.data() : nullptr;
  const C* pb = BD != SY_DTYPE_NONE ? b.data() : nullptr;
  const double eps = call->attrs[1].value.f;
  bool row_dim[SY_MAX_RANK] = {};
  for (int d = x.ndim - k; d < x.ndim; ++d) row_dim[d] = true;
  ForEachRow<T>(x, out, row_dim, [&](const C* in, C* y, int64_t n) {
    const double mean = simd::SumF(in, n) / static_cast<double>(n);
    const double var =
        simd::SumSquaredDeviations(in, mean, n) / static_cast<double>(n);
    simd::Normalize(y, in, static_cast<C>(mean),
                    static_cast<C>(1.0 / std::sqrt(var + eps)), pw, pb, n);
  });
  return nullptr;
}

// schema: rms_norm(Tensor x, Tensor weight, float eps=1e-06) -> Tensor
template <sy_dtype_t D, sy_dtype_t WD>
sy_error_t* RmsNorm(const sy_kernel_call_t* call) {
  using T = CType<D>;
  using C = ReduceCompute<T>;
  constexpr std::string_view op = "rms_norm";
  SY_PLUGIN_RETURN_IF_ERROR(CheckCall(call, op, 2, 1, 1));
  const sy_tensor_view_t& x = call->inputs[0];
  const sy_tensor_view_t& weight = call->inputs[1];
  const sy_tensor_view_t& out = call->outputs[0];
  SY_PLUGIN_RETURN_IF_ERROR(CheckTensor(x, op, "input 'x'", D));
  SY_PLUGIN_RETURN_IF_ERROR(CheckTensor(weight, op, "input 'weight'", WD));
  SY_PLUGIN_RETURN_IF_ERROR(CheckTensor(out, op, "output", D));
  SY_PLUGIN_RETURN_IF_ERROR(CheckAttr(call, op, 0, "eps", SY_ATTR_FLOAT));
  if (x.ndim == 0) {
    return OpError(op,
                   "input 'x' is a scalar (rank 0), but rms_norm "
                   "normalizes over the last dim; pass x with at least "
                   "1 dim");
  }
  const int64_t last[] = {x.shape[x.ndim - 1]};
  SY_PLUGIN_RETURN_IF_ERROR(CheckShape(
      weight, last, op, "input 'weight'",
      StrCat("rms_norm scales each element of the last dim of input 'x' "
             "(shape ",
             ShapeToString(Shape(x)), "), so it must be"),
      "pass a 1-D weight of that size"));
  SY_PLUGIN_RETURN_IF_ERROR(CheckEps(op, call->attrs[0]));
  SY_PLUGIN_RETURN_IF_ERROR(CheckShape(
      out, Shape(x), op, "output", "rms_norm keeps the shape of input 'x',",
      "allocate the output from rms_norm's shape function"));
  const std::vector<C> w = LoadVector<WD, C>(weight);
  const C* pw = w.data();
  const double eps = call->attrs[0].value.f;
  bool row_dim[SY_MAX_RANK] = {};
  row_dim[x.ndim - 1] = true;
  ForEachRow<T>(x, out, row_dim, [&](const C* in, C* y, int64_t n) {
    const double mean_square = simd::SumSquares(in, n) / static_cast<double>(n);
    simd::Normalize(y, in, C(0),
                    static_cast<C>(1.0 / std::sqrt(mean_square + eps)), pw,
                    static_cast<const C*>(nullptr), n);
  });
  return nullptr;
}

template <sy_dtype_t D, sy_dtype_t WD, sy_dtype_t BD>
sy_error_t* LayerNormKernel(const sy_kernel_call_t* call) {
  return Guard("cpu plugin: layer_norm",
               [&] { return LayerNorm<D, WD, BD>(call); });
}

template <sy_dtype_t D, sy_dtype_t WD>
sy_error_t* RmsNormKernel(const sy_kernel_call_t* call) {
  return Guard("cpu plugin: rms_norm", [&] { return RmsNorm<D, WD>(call); });
}

template <sy_dtype_t D, sy_dtype_t WD, sy_dtype_t BD>
void AddLayerNorm(KernelList* list) {
  list->Add("layer_norm", DtypeList<D, WD, BD>, LayerNormKernel<D, WD, BD>);
}

template <sy_dtype_t D, sy_dtype_t WD, sy_dtype_t... BD>
void AddLayerNormWith(KernelList* list) {
  (AddLayerNorm<D, WD, BD>(list), ...);
}

// Every (weight, bias) pair from `W`: x's dtype, absent, f32 for f16/bf16.
template <sy_dtype_t D, sy_dtype_t... W>
void AddLayerNormFor(KernelList* list) {
  (AddLayerNormWith<D, W, W...>(list), ...);
}

}  // namespace

void AddLayerNormKernels(KernelList* list) {
  constexpr sy_dtype_t kNone = SY_DTYPE_NONE;
  AddLayerNormFor<SY_DTYPE_F32, SY_DTYPE_F32, kNone>(list);
  AddLayerNormFor<SY_DTYPE_F64, SY_DTYPE_F64, kNone>(list);
  AddLayerNormFor<SY_DTYPE_F16, SY_DTYPE_F16, SY_DTYPE_F32, kNone>(list);
  AddLayerNormFor<SY_DTYPE_BF16, SY_DTYPE_BF16, SY_DTYPE_F32, kNone>(list);
  list->Add("rms_norm", DtypeList<SY_DTYPE_F32, SY_DTYPE_F32>,
            RmsNormKernel<SY_DTYPE_F32, SY_DTYPE_F32>);
  list->Add("rms_norm", DtypeList<SY_DTYPE_F64, SY_DTYPE_F64>,
            RmsNormKernel<SY_DTYPE_F64, SY_DTYPE_F64>);
  list->Add("rms_norm", DtypeList<SY_DTYPE_F16, SY_DTYPE_F16>,
            RmsNormKernel<SY_DTYPE_F16, SY_DTYPE_F16>);
  list->Add("rms_norm", DtypeList<SY_DTYPE_F16, SY_DTYPE_F32>,
            RmsNormKernel<SY_DTYPE_F16, SY_DTYPE_F32>);
  list->Add("rms_norm", DtypeList<SY_DTYPE_BF16, SY_DTYPE_BF16>,
            RmsNormKernel<SY_DTYPE_BF16, SY_DTYPE_BF16>);
  list->Add("rms_norm", DtypeList<SY_DTYPE_BF16, SY_DTYPE_F32>,
            RmsNormKernel<SY_DTYPE_BF16, SY_DTYPE_F32>);
}

}  // namespace sy::cpu
