#include "switchyard/gpu/gemm_problem.h"

#include <algorithm>

#include "switchyard/gpu/kernel_util.h"
#include "switchyard/plugin.hpp"

namespace sy::gpu {
namespace {

using ::sy::plugin::StrCat;

// Batch strides of an operand whose batch dims are `dims` leading dims of
// `t`, right-aligned to `batch_ndim` output batch dims (size 1 or missing
// broadcasts: stride 0).
void BatchStrides(const sy_tensor_view_t& t, int dims, const GemmProblem& p,
                  int64_t* out) {
  for (int d = 0; d < p.batch_ndim; ++d) {
    const int td = d - (p.batch_ndim - dims);
    out[d] = (td >= 0 && t.shape[td] != 1) ? t.strides[td] : 0;
  }
}

}  // namespace

sy_error_t* BeginMatmul(const sy_kernel_call_t* call, sy_dtype_t dtype,
                        Stream** out_stream, GemmProblem* out_problem) {
  constexpr std::string_view op = "matmul";
  Stream* stream = nullptr;
  SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, 2, 1, 0, &stream));
  const sy_tensor_view_t& a = call->inputs[0];
  const sy_tensor_view_t& b = call->inputs[1];
  const sy_tensor_view_t& out = call->outputs[0];
  SY_PLUGIN_RETURN_IF_ERROR(CheckView(a, op, "input 'a'", dtype, *stream));
  SY_PLUGIN_RETURN_IF_ERROR(CheckView(b, op, "input 'b'", dtype, *stream));
  SY_PLUGIN_RETURN_IF_ERROR(CheckView(out, op, "output", dtype, *stream));
  if (a.ndim < 1 || b.ndim < 1) {
    return OpError(op, "both inputs need rank >= 1; matmul of a scalar has "
                       "no meaning, use mul");
  }
  const bool a1 = a.ndim == 1, b1 = b.ndim == 1;
  GemmProblem p;
  p.dtype = dtype;
  p.a.data = plugin::DataPtr<char>(a);
  p.b.data = plugin::DataPtr<char>(b);
  p.c.data = plugin::DataPtr<char>(out);
  if (a1) {
    p.a = {p.a.data, 1, a.shape[0], a.shape[0] * a.strides[0], a.strides[0]};
  } else {
    p.a = {p.a.data, a.shape[a.ndim - 2], a.shape[a.ndim - 1],
           a.strides[a.ndim - 2], a.strides[a.ndim - 1]};
  }
  if (b1) {
    p.b = {p.b.data, b.shape[0], 1, b.strides[0], 1};
  } else {
    p.b = {p.b.data, b.shape[b.ndim - 2], b.shape[b.ndim - 1],
           b.strides[b.ndim - 2], b.strides[b.ndim - 1]};
  }
  if (p.a.cols != p.b.rows) {
    return OpError(op, StrCat("input 'a' has ", p.a.cols, " columns but input "
                              "'b' has ", p.b.rows, " rows; the inner dims "
                              "must match"));
  }
  const int out_mat = (a1 ? 0 : 1) + (b1 ? 0 : 1);
  p.batch_ndim = out.ndim - out_mat;
  if (p.batch_ndim < 0) {
    return OpError(op, "the output's rank does not fit the inputs; allocate "
                       "it from the op's shape function");
  }
  const int64_t last_stride = out.ndim > 0 ? out.strides[out.ndim - 1] : 1;
  if (!a1 && !b1) {
    p.c = {p.c.data, p.a.rows, p.b.cols, out.strides[out.ndim - 2], last_stride};
  } else if (a1 && !b1) {
    p.c = {p.c.data, 1, p.b.cols, p.b.cols * last_stride, last_stride};
  } else if (!a1 && b1) {
    p.c = {p.c.data, p.a.rows, 1, last_stride, 1};
  } else {
    p.c = {p.c.data, 1, 1, 1, 1};
  }
  for (int d = 0; d < p.batch_ndim; ++d) {
    p.batch_shape[d] = out.shape[d];
    p.batch_stride[2][d] = out.strides[d];
  }
  BatchStrides(a, a1 ? 0 : a.ndim - 2, p, p.batch_stride[0]);
  BatchStrides(b, b1 ? 0 : b.ndim - 2, p, p.batch_stride[1]);
  *out_stream = stream;
  *out_problem = p;
  return nullptr;
}

sy_error_t* BeginLinear(const sy_kernel_call_t* call, sy_dtype_t dtype,
                        std::string_view op, GemmEpilogue epilogue,
                        Stream** out_stream, GemmProblem* out_problem) {
  Stream* stream = nullptr;
  SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, -1, 1, 0, &stream));
  if (call->num_inputs < 2 || call->num_inputs > 3) {
    return OpError(op, StrCat("expects 2 or 3 input tensors but the call has ",
                              call->num_inputs,
                              "; the call does not match the op's schema"));
  }
  const sy_tensor_view_t& x = call->inputs[0];
  const sy_tensor_view_t& w = call->inputs[1];
  const sy_tensor_view_t* bias = call->num_inputs == 3 ? &call->inputs[2] : nullptr;
  const sy_tensor_view_t& out = call->outputs[0];
  SY_PLUGIN_RETURN_IF_ERROR(CheckView(x, op, "input 'x'", dtype, *stream));
  SY_PLUGIN_RETURN_IF_ERROR(CheckView(w, op, "input 'weight'", dtype, *stream));
  SY_PLUGIN_RETURN_IF_ERROR(CheckView(out, op, "output", dtype, *stream));
  if (bias != nullptr) {
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(*bias, op, "input 'bias'", dtype, *stream));
  }
  if (x.ndim < 1 || w.ndim != 2 || x.shape[x.ndim - 1] != w.shape[1] ||
      out.ndim != x.ndim || (bias != nullptr && (bias->ndim != 1 ||
                                                 bias->shape[0] != w.shape[0]))) {
    return OpError(op, "expects x [..., in], weight [out, in], bias [out] "
                       "and an output [..., out]; pass tensors of those "
                       "shapes");
  }
  GemmProblem p;
  p.dtype = dtype;
  const int64_t in = w.shape[1], features = w.shape[0];
  p.b = {plugin::DataPtr<char>(w), in, features, w.strides[1], w.strides[0]};
  // The leading dims of x become M where they merge (for x and the
  // output alike); the rest are batch dims (weight broadcast).
  int lead = x.ndim - 1;
  int64_t rows = lead > 0 ? x.shape[lead - 1] : 1;
  int64_t x_rs = lead > 0 ? x.strides[lead - 1] : in * x.strides[x.ndim - 1];
  int64_t o_rs = lead > 0 ? out.strides[lead - 1] : features * out.strides[out.ndim - 1];
  int first = lead - 1;
  while (first > 0) {
    // Dim d joins M when it steps over the rows merged so far densely.
    const int d = first - 1;
    if (x.shape[d] != 1 && (x.strides[d] != x_rs * rows ||
                            out.strides[d] != o_rs * rows)) {
      break;
    }
    rows *= x.shape[d];
    first = d;
  }
  if (lead == 0) first = 0;
  p.a = {plugin::DataPtr<char>(x), rows, in, x_rs, x.strides[x.ndim - 1]};
  p.c = {plugin::DataPtr<char>(out), rows, features, o_rs,
         out.strides[out.ndim - 1]};
  p.batch_ndim = std::max(first, 0);
  for (int d = 0; d < p.batch_ndim; ++d) {
    p.batch_shape[d] = x.shape[d];
    p.batch_stride[0][d] = x.strides[d];
    p.batch_stride[1][d] = 0;
    p.batch_stride[2][d] = out.strides[d];
  }
  p.epilogue = epilogue;
  if (bias != nullptr) {
    p.epilogue = epilogue == GemmEpilogue::kGelu ? GemmEpilogue::kGeluBias
                                                 : GemmEpilogue::kBias;
    p.bias = plugin::DataPtr<char>(*bias);
    p.bias_stride = bias->strides[0];
  }
  *out_stream = stream;
  *out_problem = p;
  return nullptr;
}

}  // namespace sy::gpu
