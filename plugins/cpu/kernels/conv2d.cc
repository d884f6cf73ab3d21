// conv2d (NCHW) for f32, f64, f16 and bf16, as an implicit GEMM: for image n
// and group g, out[n, g] (C_out/groups × OH·OW) = W[g] (C_out/groups ×
// C_in/groups·kH·kW) · im2col(x[n, g]). The im2col matrix is never built:
// packing B (gemm_pack.h's layout) gathers it straight from x, padding
// included, so RunGemm (gemm_driver.h) blocks and threads the convolution
// over images × groups × output-channel blocks × pixel blocks like any
// product. Store adds the bias and rounds once.
#include "kernels/conv2d.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include "kernels/gemm_driver.h"
#include "kernels/gemm_pack.h"
#include "kernels/gemm_util.h"
#include "kernels/kernel_util.h"
#include "switchyard/plugin.hpp"

namespace sy::cpu {
namespace {

using ::sy::plugin::CType;
using ::sy::plugin::DataPtr;
using ::sy::plugin::Guard;
using ::sy::plugin::Shape;
using ::sy::plugin::ShapeToString;
using ::sy::plugin::StrCat;

constexpr std::string_view kOp = "conv2d";
constexpr const char* kAttrNames[] = {"stride", "padding", "dilation"};

// The checked call: sizes, attributes and element strides.
struct ConvLayout {
  int64_t batch = 0, channels = 0, height = 0, width = 0;  // x
  int64_t out_channels = 0, kh = 0, kw = 0;                // weight
  int64_t out_h = 0, out_w = 0;
  int64_t stride[2] = {}, padding[2] = {}, dilation[2] = {};
  int64_t groups = 1;
  int64_t xs[4] = {}, ws[4] = {}, ys[4] = {};
  int64_t bias_stride = 0;
  bool has_bias = false;

  int64_t group_in() const { return channels / groups; }
  int64_t group_out() const { return out_channels / groups; }
  int64_t k() const { return group_in() * kh * kw; }
};

// The output size along one dim, floor((in + 2p - d(k-1) - 1) / s) + 1, as
// the shape function computes it; an error when it would be 0 or overflow.
sy_error_t* OutputSize(std::string_view what, int64_t in, int64_t kernel,
                       int64_t stride, int64_t padding, int64_t dilation,
                       int64_t* out) {
  int64_t span = 0, padded = 0;
  if (__builtin_mul_overflow(dilation, kernel - 1, &span) ||
      __builtin_add_overflow(span, 1, &span) ||
      __builtin_mul_overflow(padding, 2, &padded) ||
      __builtin_add_overflow(padded, in, &padded)) {
    return OpError(kOp, StrCat("the output ", what,
                               " arithmetic overflows int64; use smaller "
                               "padding or dilation"));
  }
  if (padded < span) {
    return OpError(
        kOp, StrCat("the output ", what, " would be 0: the input ", what, " ",
                    in, " plus padding 2 * ", padding,
                    " is smaller than the dilated kernel ", what, " ", span,
                    " (dilation ", dilation, " * (", kernel,
                    " - 1) + 1); pad more, or use a smaller kernel or "
                    "dilation"));
  }
  *out = (padded - span) / stride + 1;
  return nullptr;
}

// The call's tensor arguments: x, weight and an optional bias, flattened
// with input_offsets as plugin.h describes (an omitted bias spans zero
// inputs).
sy_error_t* CheckArguments(const sy_kernel_call_t* call, bool* has_bias) {
  constexpr size_t kMinSize = SY_STRUCT_SIZE(sy_kernel_call_t, kernel_data);
  const bool three =
      call != nullptr && call->struct_size >= kMinSize && call->num_inputs == 3;
  SY_PLUGIN_RETURN_IF_ERROR(CheckCall(call, kOp, three ? 3 : 2, 1, 4));
  const int32_t* off = call->input_offsets;
  const int32_t n = call->num_inputs;
  if (call->num_tensor_args != 3 || off == nullptr || off[0] != 0 ||
      off[1] != 1 || off[2] != 2 || off[3] != n) {
    return OpError(kOp,
                   StrCat("expects 3 tensor arguments (x, weight, bias) with "
                          "input_offsets [0, 1, 2, ",
                          n, "] but the call has ", call->num_tensor_args,
                          off == nullptr ? " and NULL input_offsets" : "",
                          "; the call does not match the op's schema"));
  }
  *has_bias = n == 3;
  return nullptr;
}

sy_error_t* CheckAttributes(const sy_kernel_call_t* call, ConvLayout* l) {
  int64_t* const lists[] = {l->stride, l->padding, l->dilation};
  for (int j = 0; j < 3; ++j) {
    const sy_attr_t& attr = call->attrs[j];
    if (attr.kind != SY_ATTR_INTS || attr.value.ints.size != 2 ||
        attr.value.ints.data == nullptr) {
      return OpError(
          kOp,
          StrCat("attribute '", kAttrNames[j],
                 "' must be a list of 2 ints [height, width] "
                 "(attribute kind ",
                 attr.kind, ", ",
                 attr.kind == SY_ATTR_INTS ? attr.value.ints.size : int64_t{0},
                 " values); pass the op's attributes in "
                 "schema order"));
    }
    const int64_t min = j == 1 ? 0 : 1;
    const int64_t* v = attr.value.ints.data;
    if (v[0] < min || v[1] < min) {
      return OpError(kOp, StrCat("attribute '", kAttrNames[j], "' is [", v[0],
                                 ", ", v[1], "]; each value must be >= ", min));
    }
    lists[j][0] = v[0];
    lists[j][1] = v[1];
  }
  const sy_attr_t& groups = call->attrs[3];
  if (groups.kind != SY_ATTR_INT) {
    return OpError(kOp, StrCat("attribute 'groups' must be an int (attribute "
                               "kind ",
                               groups.kind,
                               "); pass the op's attributes in schema order"));
  }
  if (groups.value.i < 1) {
    return OpError(kOp, StrCat("attribute 'groups' is ", groups.value.i,
                               "; it must be >= 1"));
  }
  l->groups = groups.value.i;
  return nullptr;
}

sy_error_t* CheckRank(const sy_tensor_view_t& v, std::string_view arg, int rank,
                      std::string_view dims) {
  if (v.ndim == rank) return nullptr;
  return OpError(kOp, StrCat(arg, " has shape ", ShapeToString(Shape(v)),
                             " but must have rank ", rank, ": ", dims));
}

// Checks the call and fills `l`.
sy_error_t* Prepare(const sy_kernel_call_t* call, sy_dtype_t dtype,
                    ConvLayout* l) {
  SY_PLUGIN_RETURN_IF_ERROR(CheckArguments(call, &l->has_bias));
  SY_PLUGIN_RETURN_IF_ERROR(CheckAttributes(call, l));
  const sy_tensor_view_t& x = call->inputs[0];
  const sy_tensor_view_t& w = call->inputs[1];
  const sy_tensor_view_t& y = call->outputs[0];
  const char* const names[] = {"input 'x'", "input 'weight'", "input 'bias'"};
  for (int i = 0; i < call->num_inputs; ++i) {
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckKernelDtype(call->inputs[i], kOp, names[i], dtype));
  }
  SY_PLUGIN_RETURN_IF_ERROR(CheckKernelDtype(y, kOp, "output", dtype));
  for (int i = 0; i < call->num_inputs; ++i) {
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(call->inputs[i], kOp, names[i], dtype));
  }
  SY_PLUGIN_RETURN_IF_ERROR(CheckView(y, kOp, "output", dtype));
  SY_PLUGIN_RETURN_IF_ERROR(CheckRank(x, names[0], 4, "[N, C, H, W]"));
  SY_PLUGIN_RETURN_IF_ERROR(
      CheckRank(w, names[1], 4, "[C_out, C_in / groups, kH, kW]"));
  l->batch = x.shape[0];
  l->channels = x.shape[1];
  l->height = x.shape[2];
  l->width = x.shape[3];
  l->out_channels = w.shape[0];
  l->kh = w.shape[2];
  l->kw = w.shape[3];
  const int64_t g = l->groups;
  if (l->channels % g != 0) {
    return OpError(kOp, StrCat("input 'x' has ", l->channels,
                               " channels (shape ", ShapeToString(Shape(x)),
                               "), which is not a multiple of groups=", g));
  }
  if (l->out_channels % g != 0) {
    return OpError(kOp,
                   StrCat("input 'weight' has ", l->out_channels,
                          " output channels (shape ", ShapeToString(Shape(w)),
                          "), which is not a multiple of groups=", g));
  }
  if (w.shape[1] != l->channels / g) {
    return OpError(
        kOp, StrCat("input 'weight' has shape ", ShapeToString(Shape(w)),
                    ", so it takes ", w.shape[1],
                    " input channels per group, but input 'x' (shape ",
                    ShapeToString(Shape(x)), ") has ", l->channels,
                    " channels in ", g, g == 1 ? " group" : " groups",
                    "; the second dim of 'weight' must be ", l->channels / g));
  }
  if (l->kh < 1 || l->kw < 1) {
    return OpError(kOp,
                   StrCat("input 'weight' has shape ", ShapeToString(Shape(w)),
                          ", an empty kernel; kernel sizes must be >= 1"));
  }
  if (l->has_bias) {
    const sy_tensor_view_t& bias = call->inputs[2];
    if (bias.ndim != 1 || bias.shape[0] != l->out_channels) {
      return OpError(
          kOp, StrCat("input 'bias' has shape ", ShapeToString(Shape(bias)),
                      " but must be [", l->out_channels,
                      "]: one value per output channel"));
    }
    l->bias_stride = bias.strides[0];
  }
  SY_PLUGIN_RETURN_IF_ERROR(OutputSize("height", l->height, l->kh, l->stride[0],
                                       l->padding[0], l->dilation[0],
                                       &l->out_h));
  SY_PLUGIN_RETURN_IF_ERROR(OutputSize("width", l->width, l->kw, l->stride[1],
                                       l->padding[1], l->dilation[1],
                                       &l->out_w));
  const int64_t expected[] = {l->batch, l->out_channels, l->out_h, l->out_w};
  SY_PLUGIN_RETURN_IF_ERROR(CheckShape(
      y, expected, kOp, "output",
      StrCat("conv2d of input 'x' ", ShapeToString(Shape(x)),
             " with input 'weight' ", ShapeToString(Shape(w)), " gives"),
      "allocate the output from conv2d's shape function"));
  std::copy_n(x.strides, 4, l->xs);
  std::copy_n(w.strides, 4, l->ws);
  std::copy_n(y.strides, 4, l->ys);
  return nullptr;
}

// RunGemm's view of one conv2d call: batch index = image * groups + group;
// A = the group's weights as a C_out/groups × K matrix (K = C_in/groups ·
// kH · kW, in weight's (c, kh, kw) order), B = im2col of the image's group,
// K × OH·OW, gathered while packing.
template <class T>
class ConvProblem {
 public:
  using Compute = GemmCompute<T>;
  using S = Compute;
  static constexpr bool kBuffered = true;  // Store adds the bias

  // `w` holds the weights as rows of K elements, `w_rs` apart.
  ConvProblem(const ConvLayout& l, const S* w, int64_t w_rs, const T* x,
              const T* bias, T* y)
      : l_(l), w_(w), w_rs_(w_rs), x_(x), bias_(bias), y_(y) {}

  bool shared_b() const { return false; }
  bool b_columns_contiguous() const { return false; }  // im2col rows

  void PackA(int64_t batch, int64_t i0, int64_t p0, int64_t mc, int64_t kc,
             S* out) const {
    const int64_t row = batch % l_.groups * l_.group_out() + i0;
    cpu::PackA<S>(StridedMatrix<S>{w_ + row * w_rs_ + p0, w_rs_, 1}, mc, kc,
                  out);
  }

  // Rows [p0, p0+kc) × pixels [j0, j0+nc) of im2col, into NR-column
  // slivers: for each row (c, kh, kw), walks the output rows the pixels
  // span, each split into left padding, inside, right padding.
  template <int NR>
  void PackB(int64_t batch, int64_t p0, int64_t j0, int64_t kc, int64_t nc,
             S* out, int64_t sliver) const {
    const int64_t khw = l_.kh * l_.kw;
    const int64_t x0 = batch / l_.groups * l_.xs[0] +
                       batch % l_.groups * l_.group_in() * l_.xs[1];
    const int64_t sh = l_.stride[0], sw = l_.stride[1];
    const int64_t padded = gemm_internal::RoundUp(nc, NR);
    for (int64_t kk = 0; kk < kc; ++kk) {
      const int64_t r = (p0 + kk) % khw;
      const int64_t c = (p0 + kk) / khw;
      const int64_t ih0 = r / l_.kw * l_.dilation[0] - l_.padding[0];
      const int64_t iw0 = r % l_.kw * l_.dilation[1] - l_.padding[1];
      // Output columns whose input column iw0 + ow * sw is inside [0, W).
      const int64_t ow_lo =
          iw0 >= 0 ? 0 : std::min(l_.out_w, (-iw0 + sw - 1) / sw);
      const int64_t ow_hi = std::max(
          ow_lo, iw0 >= l_.width
                     ? 0
                     : std::min(l_.out_w, (l_.width - 1 - iw0) / sw + 1));
      // Writes values value(0..count) at pixels q.. of this row.
      auto put = [&](int64_t q, int64_t count, auto value) {
        for (int64_t t = 0; t < count;) {
          const int64_t lane = (q + t) % NR;
          const int64_t run = std::min(count - t, NR - lane);
          S* dst = out + (q + t) / NR * sliver + kk * NR + lane;
          for (int64_t u = 0; u < run; ++u) dst[u] = value(t + u);
          t += run;
        }
      };
      const auto zero = [](int64_t) { return S{}; };
      int64_t oh = j0 / l_.out_w, ow = j0 % l_.out_w;
      for (int64_t q = 0; q < nc; ++oh, ow = 0) {
        const int64_t seg = std::min(l_.out_w - ow, nc - q);
        const int64_t ih = ih0 + oh * sh;
        if (ih < 0 || ih >= l_.height) {
          put(q, seg, zero);
        } else {
          const int64_t lo = std::clamp(ow_lo, ow, ow + seg);
          const int64_t hi = std::clamp(ow_hi, lo, ow + seg);
          put(q, lo - ow, zero);
          if (hi > lo) {  // (x may be empty, its data NULL, otherwise)
            const T* first = x_ + x0 + c * l_.xs[1] + ih * l_.xs[2] +
                             (iw0 + lo * sw) * l_.xs[3];
            const int64_t step = sw * l_.xs[3];
            put(q + lo - ow, hi - lo,
                [&](int64_t t) { return static_cast<S>(first[t * step]); });
          }
          put(q + hi - ow, ow + seg - hi, zero);
        }
        q += seg;
      }
      put(nc, padded - nc, zero);
    }
  }

  void Store(int64_t batch, int64_t i0, int64_t j0, int64_t mc, int64_t nc,
             const S* buf, int64_t ld) const {
    const int64_t image = batch / l_.groups;
    const int64_t first = batch % l_.groups * l_.group_out() + i0;
    for (int64_t i = 0; i < mc; ++i) {
      const int64_t oc = first + i;
      const S bias =
          bias_ != nullptr ? static_cast<S>(bias_[oc * l_.bias_stride]) : S{};
      T* plane = y_ + image * l_.ys[0] + oc * l_.ys[1];
      const S* src = buf + i * ld;
      int64_t oh = j0 / l_.out_w, ow = j0 % l_.out_w;
      for (int64_t q = 0; q < nc; ++oh, ow = 0) {
        const int64_t seg = std::min(l_.out_w - ow, nc - q);
        T* row = plane + oh * l_.ys[2] + ow * l_.ys[3];
        for (int64_t t = 0; t < seg; ++t) {
          row[t * l_.ys[3]] = static_cast<T>(src[q + t] + bias);
        }
        q += seg;
      }
    }
  }

 private:
  const ConvLayout& l_;
  const S* w_;
  int64_t w_rs_;
  const T* x_;
  const T* bias_;
  T* y_;
};

// True when weight's (C_in/groups, kH, kW) dims are dense in row-major
// order, so each output channel's K weights are one run.
bool RowsAreDense(const ConvLayout& l) {
  const int64_t sizes[] = {l.group_in(), l.kh, l.kw};
  int64_t expected = 1;
  for (int d = 2; d >= 0; --d) {
    if (sizes[d] != 1 && l.ws[d + 1] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

template <sy_dtype_t D>
sy_error_t* Conv2d(const sy_kernel_call_t* call) {
  using T = CType<D>;
  using S = GemmCompute<T>;
  ConvLayout l;
  SY_PLUGIN_RETURN_IF_ERROR(Prepare(call, D, &l));
  const int64_t rows = l.out_channels, k = l.k();
  if (l.batch == 0 || rows == 0) return nullptr;  // nothing to write
  // K = 0 (no input channels) reads no weights: the output is the bias.
  const T* w = DataPtr<const T>(call->inputs[1]);
  const S* weights = nullptr;
  int64_t w_rs = k;
  if constexpr (std::is_same_v<T, S>) {
    if (k > 0 && RowsAreDense(l)) {
      weights = w;
      w_rs = l.ws[0];
    }
  }
  std::optional<GemmScratch> converted;
  if (k > 0 && weights == nullptr) {
    // f16/bf16, or strided weights: one contiguous f32/f64 copy.
    converted.emplace(static_cast<size_t>(rows * k) * sizeof(S));
    S* dst = converted->as<S>();
    for (int64_t o = 0; o < rows; ++o) {
      for (int64_t c = 0; c < l.group_in(); ++c) {
        for (int64_t i = 0; i < l.kh; ++i) {
          for (int64_t j = 0; j < l.kw; ++j) {
            *dst++ = static_cast<S>(
                w[o * l.ws[0] + c * l.ws[1] + i * l.ws[2] + j * l.ws[3]]);
          }
        }
      }
    }
    weights = converted->as<S>();
  }
  const ConvProblem<T> problem(
      l, weights, w_rs, DataPtr<const T>(call->inputs[0]),
      l.has_bias ? DataPtr<const T>(call->inputs[2]) : nullptr,
      DataPtr<T>(call->outputs[0]));
  RunGemm(problem, {l.batch * l.groups, l.group_out(), l.out_h * l.out_w, k});
  return nullptr;
}

template <sy_dtype_t D>
sy_error_t* Conv2dKernel(const sy_kernel_call_t* call) {
  // Scratch is the only allocation: bad_alloc → RESOURCE_EXHAUSTED.
  return Guard("cpu plugin: conv2d", [&] { return Conv2d<D>(call); });
}

template <sy_dtype_t D>
void AddConv2d(KernelList& list) {
  list.Add("conv2d", DtypeList<D, D, D>, Conv2dKernel<D>);
  list.Add("conv2d", DtypeList<D, D, SY_DTYPE_NONE>, Conv2dKernel<D>);
}

}  // namespace

void AddConv2dKernels(KernelList& list) {
  AddConv2d<SY_DTYPE_F32>(list);
  AddConv2d<SY_DTYPE_F64>(list);
  AddConv2d<SY_DTYPE_F16>(list);
  AddConv2d<SY_DTYPE_BF16>(list);
}

}  // namespace sy::cpu
