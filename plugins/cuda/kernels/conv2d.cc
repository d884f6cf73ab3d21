// conv2d and cuda::conv2d_relu (conv2d.h): check the call, choose the
// layout, pack what cuDNN cannot read in place, run the cached plan
// (conv2d_plans.h) or, for f64, the direct kernel.
#include "kernels/conv2d.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <string>
#include <vector>

#include "cuda_util.h"
#include "kernels/conv2d_direct.h"
#include "kernels/conv2d_plans.h"
#include "kernels/cudnn_library.h"
#include "kernels/scratch.h"
#include "kernels/strided_copy4d.h"
#include "switchyard/gpu/kernel_list.h"
#include "switchyard/gpu/kernel_util.h"

namespace sy::cuda {
namespace {

// The plugin options conv2d_reduced_precision and conv2d_graphs.
std::atomic<bool> g_reduced_precision{false};
std::atomic<bool> g_graphs{true};

using ::sy::gpu::BeginCall;
using ::sy::gpu::CheckLaunched;
using ::sy::gpu::CheckView;
using ::sy::gpu::OpError;
using ::sy::gpu::ReadInt;
using ::sy::gpu::ReadInts;
using ::sy::gpu::Stream;
using ::sy::plugin::DataPtr;
using ::sy::plugin::MakeError;
using ::sy::plugin::Shape;
using ::sy::plugin::ShapeToString;
using ::sy::plugin::StrCat;

constexpr std::string_view kConv = "conv2d";
constexpr std::string_view kConvRelu = "cuda::conv2d_relu";
constexpr const char* kReluSchema =
    "cuda::conv2d_relu(Tensor x, Tensor weight, Tensor? bias=None, "
    "int[] stride=[1, 1], int[] padding=[0, 0], int[] dilation=[1, 1], "
    "int groups=1) -> Tensor";

// The checked call.
struct ConvProblem {
  sy_dtype_t dtype = SY_DTYPE_NONE;
  int64_t x[4] = {};  // N C H W
  int64_t w[4] = {};  // K C/g kH kW
  int64_t y[4] = {};  // N K OH OW
  int64_t stride[2] = {}, padding[2] = {}, dilation[2] = {};
  int64_t groups = 1;
  bool has_bias = false;
};

sy_error_t* ReadPair(const sy_kernel_call_t* call, int index, std::string_view op,
                     std::string_view name, int64_t min, int64_t* out) {
  std::span<const int64_t> v;
  SY_PLUGIN_RETURN_IF_ERROR(ReadInts(call, index, op, name, v));
  if (v.size() != 2) {
    return OpError(op, StrCat("attribute '", name, "' has ", v.size(),
                              " values; pass 2 ints [height, width]"));
  }
  if (v[0] < min || v[1] < min || v[0] > INT_MAX || v[1] > INT_MAX) {
    return OpError(op, StrCat("attribute '", name, "' is [", v[0], ", ", v[1],
                              "]; each value must be in [", min, ", ", INT_MAX,
                              "]"));
  }
  out[0] = v[0];
  out[1] = v[1];
  return nullptr;
}

// The output shape of x and weight, or an error (also the shape function of
// cuda::conv2d_relu).
std::string OutputShape(ConvProblem& p) {
  const int64_t g = p.groups;
  if (p.x[1] % g != 0 || p.w[0] % g != 0 || p.w[1] * g != p.x[1]) {
    return StrCat("input 'x' has shape ", ShapeToString(p.x), " and 'weight' ",
                  ShapeToString(p.w), " with groups=", g,
                  "; C and C_out must be multiples of groups and weight's "
                  "second dim must be C / groups");
  }
  if (p.w[2] < 1 || p.w[3] < 1) {
    return StrCat("input 'weight' has shape ", ShapeToString(p.w),
                  ", an empty kernel; kernel sizes must be >= 1");
  }
  p.y[0] = p.x[0];
  p.y[1] = p.w[0];
  for (int d = 0; d < 2; ++d) {
    const int64_t span = p.dilation[d] * (p.w[2 + d] - 1) + 1;
    const int64_t padded = p.x[2 + d] + 2 * p.padding[d];
    if (padded < span) {
      return StrCat("the output ", d == 0 ? "height" : "width",
                    " would be 0: the padded input is ", padded,
                    " but the dilated kernel spans ", span,
                    "; pad more, or use a smaller kernel or dilation");
    }
    p.y[2 + d] = (padded - span) / p.stride[d] + 1;
  }
  return "";
}

sy_error_t* Prepare(const sy_kernel_call_t* call, sy_dtype_t dtype,
                    std::string_view op, Stream** stream, ConvProblem* p) {
  SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, -1, 1, 4, stream));
  if (call->num_inputs < 2 || call->num_inputs > 3) {
    return OpError(op, StrCat("expects 2 or 3 input tensors (x, weight, "
                              "bias) but the call has ", call->num_inputs,
                              "; the call does not match the op's schema"));
  }
  p->dtype = dtype;
  p->has_bias = call->num_inputs == 3;
  const char* const names[] = {"input 'x'", "input 'weight'", "input 'bias'"};
  for (int i = 0; i < call->num_inputs; ++i) {
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->inputs[i], op, names[i], dtype, **stream));
  }
  const sy_tensor_view_t& x = call->inputs[0];
  const sy_tensor_view_t& w = call->inputs[1];
  const sy_tensor_view_t& y = call->outputs[0];
  SY_PLUGIN_RETURN_IF_ERROR(CheckView(y, op, "output", dtype, **stream));
  SY_PLUGIN_RETURN_IF_ERROR(ReadPair(call, 0, op, "stride", 1, p->stride));
  SY_PLUGIN_RETURN_IF_ERROR(ReadPair(call, 1, op, "padding", 0, p->padding));
  SY_PLUGIN_RETURN_IF_ERROR(ReadPair(call, 2, op, "dilation", 1, p->dilation));
  SY_PLUGIN_RETURN_IF_ERROR(ReadInt(call, 3, op, "groups", p->groups));
  if (p->groups < 1 || p->groups > INT_MAX) {
    return OpError(op, StrCat("attribute 'groups' is ", p->groups,
                              "; it must be >= 1"));
  }
  if (x.ndim != 4) {
    return OpError(op, StrCat("input 'x' has shape ", ShapeToString(Shape(x)),
                              " but must have rank 4: [N, C, H, W]"));
  }
  if (w.ndim != 4) {
    return OpError(op, StrCat("input 'weight' has shape ",
                              ShapeToString(Shape(w)), " but must have rank "
                              "4: [C_out, C_in / groups, kH, kW]"));
  }
  for (int d = 0; d < 4; ++d) {
    p->x[d] = x.shape[d];
    p->w[d] = w.shape[d];
  }
  if (const std::string why = OutputShape(*p); !why.empty()) return OpError(op, why);
  if (p->has_bias) {
    const sy_tensor_view_t& b = call->inputs[2];
    if (b.ndim != 1 || b.shape[0] != p->w[0]) {
      return OpError(op, StrCat("input 'bias' has shape ",
                                ShapeToString(Shape(b)),
                                "; pass a bias of shape [", p->w[0], "]"));
    }
  }
  for (int d = 0; d < 4; ++d) {
    if (y.ndim != 4 || y.shape[d] != p->y[d]) {
      return OpError(op, StrCat("the output has shape ",
                                ShapeToString(Shape(y)), " but the call "
                                "gives ", ShapeToString(p->y), "; allocate "
                                "it from the op's shape function"));
    }
  }
  return nullptr;
}

// Element strides of a dense 4-d tensor (logical NCHW dims) in `nhwc` or
// NCHW order.
void LayoutStrides(const int64_t* d, bool nhwc, int64_t* s) {
  if (nhwc) {
    s[1] = 1;
    s[3] = d[1];
    s[2] = d[3] * d[1];
    s[0] = d[2] * d[3] * d[1];
  } else {
    s[3] = 1;
    s[2] = d[3];
    s[1] = d[2] * d[3];
    s[0] = d[1] * d[2] * d[3];
  }
}

// Whether `strides` are the dense layout's (dims of size 1 may have any).
bool IsDense(const int64_t* shape, const int64_t* strides, bool nhwc) {
  int64_t want[4];
  LayoutStrides(shape, nhwc, want);
  for (int d = 0; d < 4; ++d) {
    if (shape[d] != 1 && strides[d] != want[d]) return false;
  }
  return true;
}

int32_t Alignment(const void* p) {
  int32_t a = 16;
  while (a > 1 && reinterpret_cast<uintptr_t>(p) % a != 0) a /= 2;
  return a;
}

// A pointer to `shape` in the dense layout: `data` itself when already
// dense, else a scratch copy.
sy_error_t* Dense(Scratch& scratch, cudaStream_t stream, const void* data,
                  const int64_t* shape, const int64_t* strides, bool nhwc,
                  size_t elem, std::string_view op, std::string_view what,
                  const void** out) {
  if (IsDense(shape, strides, nhwc)) {
    *out = data;
    return nullptr;
  }
  int64_t dense[4];
  LayoutStrides(shape, nhwc, dense);
  const size_t n = static_cast<size_t>(shape[0] * shape[1] * shape[2] * shape[3]);
  void* copy = nullptr;
  SY_PLUGIN_RETURN_IF_ERROR(scratch.Get(n * elem, op,
                                        StrCat("allocating a dense copy of ", what),
                                        &copy));
  SY_PLUGIN_RETURN_IF_ERROR(
      CudaError(CopyStrided4d(data, strides, copy, dense, shape, elem, stream),
                StrCat("cuda plugin: ", op), StrCat("packing ", what, " failed")));
  *out = copy;
  return nullptr;
}

sy_error_t* RunDirect(const sy_kernel_call_t* call, const ConvProblem& p,
                      const Stream& stream, bool relu, std::string_view op) {
  DirectConvArgs a;
  const sy_tensor_view_t& x = call->inputs[0];
  const sy_tensor_view_t& w = call->inputs[1];
  const sy_tensor_view_t& y = call->outputs[0];
  a.dtype = p.dtype;
  a.x = DataPtr<const char>(x);
  a.w = DataPtr<const char>(w);
  a.y = DataPtr<char>(y);
  if (p.has_bias) {
    a.bias = DataPtr<const char>(call->inputs[2]);
    a.bias_stride = call->inputs[2].strides[0];
  }
  for (int d = 0; d < 4; ++d) {
    a.x_shape[d] = p.x[d];
    a.w_shape[d] = p.w[d];
    a.y_shape[d] = p.y[d];
    a.x_strides[d] = x.strides[d];
    a.w_strides[d] = w.strides[d];
    a.y_strides[d] = y.strides[d];
  }
  for (int d = 0; d < 2; ++d) {
    a.stride[d] = p.stride[d];
    a.padding[d] = p.padding[d];
    a.dilation[d] = p.dilation[d];
  }
  a.groups = p.groups;
  a.relu = relu;
  return CudaError(LaunchDirectConv2d(a, stream.stream), StrCat("cuda plugin: ", op),
                   "launching the direct convolution failed");
}

sy_error_t* ConvImpl(const sy_kernel_call_t* call, sy_dtype_t dtype, bool relu) {
  const std::string_view op = relu ? kConvRelu : kConv;
  Stream* stream = nullptr;
  ConvProblem p;
  SY_PLUGIN_RETURN_IF_ERROR(Prepare(call, dtype, op, &stream, &p));
  const sy_tensor_view_t& y = call->outputs[0];
  if (plugin::NumElements(y) == 0) return nullptr;  // N, C_out or a size is 0
  // f64 and zero input channels (the output is the bias): the direct
  // kernel.
  if (dtype == SY_DTYPE_F64 || p.x[1] == 0) {
    return RunDirect(call, p, *stream, relu, op);
  }
  const CudnnLibrary* lib = CudnnLibrary::Get(nullptr);
  if (lib == nullptr) {
    return MakeError(SY_STATUS_FAILED_PRECONDITION,
                     StrCat("cuda plugin: ", op, ": cuDNN is not loaded; "
                            "install cuDNN 9 or run it on cpu"));
  }
  Scratch scratch(call, stream->stream);
  const size_t elem = plugin::DtypeSize(dtype);
  const sy_tensor_view_t& x = call->inputs[0];
  const sy_tensor_view_t& w = call->inputs[1];
  // Channels-last when x is dense NHWC (and not also dense NCHW).
  const bool nhwc = IsDense(p.x, x.strides, true) && !IsDense(p.x, x.strides, false);
  ConvKey key;
  key.device = stream->device;
  key.dtype = dtype;
  key.nhwc = nhwc ? 1 : 0;
  key.bias = p.has_bias ? 1 : 0;
  key.relu = relu ? 1 : 0;
  key.variant = call->variant;
  key.reduced = g_reduced_precision.load(std::memory_order_relaxed) ? 1 : 0;
  key.graphs = g_graphs.load(std::memory_order_relaxed) ? 1 : 0;
  for (int d = 0; d < 4; ++d) {
    key.x[d] = p.x[d];
    key.w[d] = p.w[d];
  }
  for (int d = 0; d < 2; ++d) {
    key.stride[d] = p.stride[d];
    key.padding[d] = p.padding[d];
    key.dilation[d] = p.dilation[d];
  }
  ConvPointers ptrs;
  SY_PLUGIN_RETURN_IF_ERROR(Dense(scratch, stream->stream, DataPtr<const char>(x), p.x,
                                  x.strides, nhwc, elem, op, "input 'x'", &ptrs.x));
  SY_PLUGIN_RETURN_IF_ERROR(Dense(scratch, stream->stream, DataPtr<const char>(w), p.w,
                                  w.strides, nhwc, elem, op, "input 'weight'", &ptrs.w));
  if (p.has_bias) {
    const sy_tensor_view_t& b = call->inputs[2];
    const int64_t shape[4] = {1, p.w[0], 1, 1};
    const int64_t strides[4] = {0, b.strides[0], 0, 0};
    SY_PLUGIN_RETURN_IF_ERROR(Dense(scratch, stream->stream, DataPtr<const char>(b),
                                    shape, strides, false, elem, op, "input 'bias'",
                                    &ptrs.bias));
  }
  const bool y_dense = IsDense(p.y, y.strides, nhwc);
  ptrs.y = DataPtr<char>(y);
  if (!y_dense) {
    SY_PLUGIN_RETURN_IF_ERROR(scratch.Get(plugin::NumElements(y) * elem, op,
                                          "allocating a temporary output", &ptrs.y));
  }
  key.align[0] = Alignment(ptrs.x);
  key.align[1] = Alignment(ptrs.w);
  key.align[2] = Alignment(ptrs.y);
  key.align[3] = p.has_bias ? Alignment(ptrs.bias) : 0;
  bool no_engine = false;
  {
    CudnnHandleLease handle;  // acquired by RunConvPlan when it calls cuDNN
    SY_PLUGIN_RETURN_IF_ERROR(
        RunConvPlan(*lib, handle, *stream, scratch, key, ptrs, op, &no_engine));
  }
  if (no_engine) {
    // No cuDNN engine takes the problem (Note [Conv plans]): the direct
    // kernel computes it, slowly but right.
    return RunDirect(call, p, *stream, relu, op);
  }
  if (!y_dense) {
    int64_t dense[4];
    LayoutStrides(p.y, nhwc, dense);
    SY_PLUGIN_RETURN_IF_ERROR(CudaError(
        CopyStrided4d(ptrs.y, dense, DataPtr<char>(y), y.strides, p.y, elem,
                      stream->stream),
        StrCat("cuda plugin: ", op), "writing the strided output failed"));
  }
  return CheckLaunched(op);
}

template <sy_dtype_t D, bool kRelu>
sy_error_t* ConvKernel(const sy_kernel_call_t* call) {
  return plugin::Guard(kRelu ? "cuda plugin: cuda::conv2d_relu" : "cuda plugin: conv2d",
                       [&] { return ConvImpl(call, D, kRelu); });
}

// cuda::conv2d_relu's shape function: conv2d's rules.
sy_error_t* ConvReluShape(const sy_shape_call_t* call) {
  return plugin::Guard("cuda::conv2d_relu shape", [&]() -> sy_error_t* {
    const auto invalid = [](std::string_view what) {
      return MakeError(SY_STATUS_INVALID_ARGUMENT, StrCat("cuda::conv2d_relu: ", what));
    };
    if (call == nullptr || call->num_inputs < 2 || call->num_outputs != 1 ||
        call->num_attrs < 4) {
      return invalid("expects x, weight, an optional bias and 4 attributes");
    }
    const sy_tensor_meta_t& x = call->inputs[0];
    const sy_tensor_meta_t& w = call->inputs[1];
    if (x.dtype != SY_DTYPE_F32 && x.dtype != SY_DTYPE_F64 &&
        x.dtype != SY_DTYPE_F16 && x.dtype != SY_DTYPE_BF16) {
      return invalid(StrCat("input 'x' has dtype ", plugin::DtypeName(x.dtype),
                            "; it must be floating"));
    }
    if (w.dtype != x.dtype ||
        (call->num_inputs == 3 && call->inputs[2].dtype != x.dtype)) {
      return invalid("x, weight and bias must have one dtype; cast them");
    }
    if (x.ndim != 4 || w.ndim != 4) {
      return invalid("x and weight must have rank 4 ([N, C, H, W] and [C_out, "
                     "C_in / groups, kH, kW])");
    }
    ConvProblem p;
    for (int d = 0; d < 4; ++d) {
      p.x[d] = x.shape[d];
      p.w[d] = w.shape[d];
    }
    const sy_attr_t* attrs = call->attrs;
    int64_t* pairs[3] = {p.stride, p.padding, p.dilation};
    for (int i = 0; i < 3; ++i) {
      if (attrs[i].kind != SY_ATTR_INTS || attrs[i].value.ints.size != 2) {
        return invalid("stride, padding and dilation must be 2 ints each");
      }
      for (int j = 0; j < 2; ++j) {
        pairs[i][j] = attrs[i].value.ints.data[j];
        if (pairs[i][j] < (i == 1 ? 0 : 1)) {
          return invalid("stride and dilation must be >= 1, padding >= 0");
        }
      }
    }
    if (attrs[3].kind != SY_ATTR_INT || attrs[3].value.i < 1) {
      return invalid("groups must be an int >= 1");
    }
    p.groups = attrs[3].value.i;
    if (const std::string why = OutputShape(p); !why.empty()) return invalid(why);
    if (call->num_inputs == 3) {
      const sy_tensor_meta_t& b = call->inputs[2];
      if (b.ndim != 1 || b.shape[0] != p.w[0]) {
        return invalid(StrCat("input 'bias' must have shape [", p.w[0], "]"));
      }
    }
    sy_tensor_meta_t& out = call->outputs[0];
    out.dtype = x.dtype;
    out.ndim = 4;
    for (int d = 0; d < 4; ++d) out.shape[d] = p.y[d];
    return nullptr;
  });
}

// The variants of the cuDNN kernels: heuristic choices, then the plugin's
// implicit GEMM (conv2d.h).
struct Variants {
  int32_t configs[kConv2dVariants];
  std::string names[kConv2dVariants];
  sy_kernel_variant_t variants[kConv2dVariants];
  Variants() {
    for (int i = 0; i < kConv2dVariants; ++i) {
      configs[i] = i;
      names[i] = i == kConv2dImplicitGemmVariant ? std::string("implicit_gemm")
                                                  : StrCat("cudnn_heuristic", i);
      variants[i] = {sizeof(sy_kernel_variant_t), nullptr, names[i].c_str(),
                     &configs[i], sizeof(int32_t)};
    }
  }
};

sy_error_t* Register(const sy_host_api_t* host, sy_host_context_t* context,
                     std::string_view op, sy_dtype_t d, bool bias,
                     sy_kernel_fn fn) {
  static const Variants variants;
  const sy_dtype_t dtypes[3] = {d, d, bias ? d : SY_DTYPE_NONE};
  const std::string name = plugin::KernelName(op, dtypes);
  const std::string op_name(op);
  sy_kernel_desc_t desc{};
  desc.struct_size = sizeof(desc);
  desc.op = op_name.c_str();
  desc.device_type = "cuda";
  desc.name = name.c_str();
  desc.dtypes = dtypes;
  desc.num_dtypes = 3;
  desc.priority = gpu::ThisTarget().priority;
  desc.fn = fn;
  // The direct f64 kernel has no variants; f32 has no implicit_gemm (the
  // kernel takes 16-bit problems only, and the variant would time the
  // measured pick a second time).
  const bool tuned = d != SY_DTYPE_F64;
  const bool own = d == SY_DTYPE_F16 || d == SY_DTYPE_BF16;
  desc.variants = tuned ? variants.variants : nullptr;
  desc.num_variants = !tuned ? 0 : own ? kConv2dVariants : kConv2dHeuristicVariants;
  return host->register_kernel(context, &desc);
}

template <sy_dtype_t D>
sy_error_t* RegisterFor(const sy_host_api_t* host, sy_host_context_t* context) {
  for (bool bias : {true, false}) {
    SY_PLUGIN_RETURN_IF_ERROR(
        Register(host, context, kConv, D, bias, ConvKernel<D, false>));
    SY_PLUGIN_RETURN_IF_ERROR(
        Register(host, context, kConvRelu, D, bias, ConvKernel<D, true>));
  }
  return nullptr;
}

}  // namespace

void SetConv2dPlanCacheCapacity(size_t problems) {
  SetConvPlanCacheCapacity(problems);
}

void SetConv2dGraphs(bool enabled) { g_graphs.store(enabled, std::memory_order_relaxed); }

void SetConv2dReducedPrecision(bool allowed) {
  g_reduced_precision.store(allowed, std::memory_order_relaxed);
}

sy_error_t* RegisterConv2dKernels(const sy_host_api_t* host,
                                  sy_host_context_t* context, bool cudnn) {
  sy_schema_desc_t schema{};
  schema.struct_size = sizeof(schema);
  schema.schema = kReluSchema;
  schema.shape_fn = ConvReluShape;
  // conv2d's layout rule: a channels-last network stays channels-last
  // through the fused op as through conv2d → relu (docs/ops.md).
  schema.output_layout = SY_OUTPUT_LAYOUT_CHANNELS_LAST_LIKE_INPUTS;
  SY_PLUGIN_RETURN_IF_ERROR(host->register_schema(context, &schema));
  if (cudnn) {
    SY_PLUGIN_RETURN_IF_ERROR(RegisterFor<SY_DTYPE_F32>(host, context));
  }
  SY_PLUGIN_RETURN_IF_ERROR(RegisterFor<SY_DTYPE_F64>(host, context));
  if (!cudnn) return nullptr;
  SY_PLUGIN_RETURN_IF_ERROR(RegisterFor<SY_DTYPE_F16>(host, context));
  return RegisterFor<SY_DTYPE_BF16>(host, context);
}

}  // namespace sy::cuda
