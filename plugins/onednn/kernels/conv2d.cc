// conv2d (NCHW, stride, padding, dilation, groups; optional bias) over
// oneDNN's convolution primitive, direct algorithm.
//
// The primitive is created with `any` layouts so oneDNN picks its blocked
// formats (nChw16c, OIhw16i16o, …) for the ISA; the views (any strides) are
// reordered into them and the result back. The weights are reordered on
// every call: the plugin cannot know that a weight tensor stays constant
// between calls (a future fusion/prepack pass could).
#include <optional>
#include <string_view>
#include <unordered_map>

#include "context.h"
#include "kernels/kernel_list.h"
#include "memory.h"

namespace sy::onednn {
namespace {

constexpr std::string_view kWhere = "onednn plugin: conv2d";

// Writes bias[c] (or 0) everywhere: the result when the reduction over
// input channels and kernel window is empty.
void FillWithBias(const sy_tensor_view_t& out, const sy_tensor_view_t* bias) {
  const int64_t n = out.shape[0], c = out.shape[1], h = out.shape[2],
                w = out.shape[3];
  for (int64_t in = 0; in < n; ++in) {
    for (int64_t ic = 0; ic < c; ++ic) {
      float value = 0.f;
      if (bias != nullptr) {
        const int64_t off = ic * bias->strides[0];
        value = bias->dtype == SY_DTYPE_BF16
                    ? static_cast<float>(plugin::DataPtr<const plugin::BFloat16>(*bias)[off])
                    : plugin::DataPtr<const float>(*bias)[off];
      }
      for (int64_t y = 0; y < h; ++y) {
        for (int64_t x = 0; x < w; ++x) {
          const int64_t off = in * out.strides[0] + ic * out.strides[1] +
                              y * out.strides[2] + x * out.strides[3];
          if (out.dtype == SY_DTYPE_BF16) {
            plugin::DataPtr<plugin::BFloat16>(out)[off] = plugin::BFloat16(value);
          } else {
            plugin::DataPtr<float>(out)[off] = value;
          }
        }
      }
    }
  }
}

bool TwoInts(const sy_attr_t& attr) {
  return attr.kind == SY_ATTR_INTS && attr.value.ints.size == 2;
}

// `op` in the layout `want`: itself when it already is, else a reorder
// into new oneDNN-allocated memory.
dnnl::memory InLayout(const dnnl::memory& have, const dnnl::memory::desc& want) {
  if (have.get_desc() == want) return have;
  dnnl::memory converted(want, Engine());
  Reorder(have, converted);
  return converted;
}

sy_error_t* Conv2d(const sy_kernel_call_t* call) {
  return RunKernel(kWhere, call, Work::kConv, [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckCall(call, kWhere, 3, 1, 4));
    const sy_tensor_view_t& x = call->inputs[0];
    const sy_tensor_view_t& w = call->inputs[1];
    const sy_tensor_view_t* bias = Arg(call, 2);
    const sy_tensor_view_t& out = call->outputs[0];
    const sy_attr_t* attrs = call->attrs;
    if (!TwoInts(attrs[0]) || !TwoInts(attrs[1]) || !TwoInts(attrs[2]) ||
        attrs[3].kind != SY_ATTR_INT || x.ndim != 4 || w.ndim != 4 ||
        out.ndim != 4) {
      return OpError(kWhere, "expected 4-D x, weight and output and "
                             "attributes (int[2] stride, int[2] padding, "
                             "int[2] dilation, int groups); the host is "
                             "damaged");
    }
    const int64_t groups = attrs[3].value.i;
    if (groups < 1 || x.shape[1] % groups != 0 || w.shape[0] % groups != 0) {
      return OpError(kWhere, plugin::StrCat("groups ", groups,
                                            " must divide the channels; "
                                            "pass a divisor of C_in and C_out"));
    }
    if (plugin::NumElements(out) == 0) return nullptr;
    if (plugin::NumElements(x) == 0 || plugin::NumElements(w) == 0) {
      FillWithBias(out, bias);
      return nullptr;
    }
    const int64_t* stride = attrs[0].value.ints.data;
    const int64_t* padding = attrs[1].value.ints.data;
    const int64_t* dilation = attrs[2].value.ints.data;
    Scratch scratch;
    const Operand src = Input(x, scratch);
    Operand weights = Input(w, scratch);
    if (groups > 1) {  // [OC, IC/g, kh, kw] → [g, OC/g, IC/g, kh, kw]
      const int64_t oc_per_group = weights.dims[0] / groups;
      weights.dims.insert(weights.dims.begin(), groups);
      weights.dims[1] = oc_per_group;
      weights.strides.insert(weights.strides.begin(),
                             weights.strides[0] * oc_per_group);
    }
    const Operand dst = Output(out);
    auto any = [](const Operand& op) {
      return dnnl::memory::desc(op.dims, op.type, dnnl::memory::format_tag::any);
    };
    const dnnl::memory::dims strides = {stride[0], stride[1]};
    const dnnl::memory::dims dilates = {dilation[0] - 1, dilation[1] - 1};
    const dnnl::memory::dims pad = {padding[0], padding[1]};
    dnnl::convolution_forward::primitive_desc pd;
    std::optional<Operand> bias_op;
    if (bias != nullptr) {
      bias_op = Input(*bias, scratch);
      // oneDNN 2.6 reads the bias densely whatever its strides.
      if (!bias_op->IsDense()) bias_op = DenseCopy(*bias_op, scratch);
      pd = dnnl::convolution_forward::primitive_desc(
          {dnnl::prop_kind::forward_inference,
           dnnl::algorithm::convolution_direct, any(src), any(weights),
           bias_op->desc(), any(dst), strides, dilates, pad, pad},
          Engine());
    } else {
      pd = dnnl::convolution_forward::primitive_desc(
          {dnnl::prop_kind::forward_inference,
           dnnl::algorithm::convolution_direct, any(src), any(weights),
           any(dst), strides, dilates, pad, pad},
          Engine());
    }
    const dnnl::memory user_dst = dst.memory();
    const bool dst_direct = pd.dst_desc() == user_dst.get_desc();
    const dnnl::memory conv_dst =
        dst_direct ? user_dst : dnnl::memory(pd.dst_desc(), Engine());
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, InLayout(src.memory(), pd.src_desc())},
        {DNNL_ARG_WEIGHTS, InLayout(weights.memory(), pd.weights_desc())},
        {DNNL_ARG_DST, conv_dst}};
    if (bias_op) args[DNNL_ARG_BIAS] = bias_op->memory();
    Execute(dnnl::convolution_forward(pd), args);
    if (!dst_direct) Reorder(conv_dst, user_dst);
    return nullptr;
  });
}

}  // namespace

void AddConvKernels(KernelList& list, bool bf16) {
  for (sy_dtype_t d : FloatDtypes(bf16)) {
    list.Add("conv2d", {d, d, d}, Conv2d);
    list.Add("conv2d", {d, d, SY_DTYPE_NONE}, Conv2d);
  }
}

}  // namespace sy::onednn
