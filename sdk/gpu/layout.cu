// Layout kernels that move data: concat (one strided copy per input into
// its slice of the output) and embedding (a gather of weight rows).
//
// embedding checks its indices on the device: an index outside [0, rows)
// writes zeros and raises the stream's flag, so a bad index is an
// INVALID_ARGUMENT error, never an out-of-bounds read. The error comes at
// the stream's next synchronization, or at the call with
// SWITCHYARD_GPU_SYNC_CHECKS=1 (Note [Deferred device checks]).
#include <string>

#include "switchyard/gpu/device_checks.h"
#include "switchyard/gpu/dtypes.h"
#include "switchyard/gpu/elementwise.cuh"
#include "switchyard/gpu/kernel_list.h"
#include "switchyard/gpu/portability.h"
#include "switchyard/gpu/row_layout.h"
#include "switchyard/gpu/target.h"
#include "switchyard/plugin.hpp"

namespace sy::gpu {
namespace {

using ::sy::plugin::DtypeName;
using ::sy::plugin::StrCat;

struct Identity {
  template <class T>
  __device__ __forceinline__ T operator()(T v) const {
    return v;
  }
};

template <sy_dtype_t D>
sy_error_t* ConcatKernel(const sy_kernel_call_t* call) {
  constexpr std::string_view op = "concat";
  static const std::string where = Where(op);
  return plugin::Guard(where, [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, -1, 1, 1, &stream));
    const sy_tensor_view_t& out = call->outputs[0];
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(out, op, "output", D, *stream));
    int64_t dim = 0;
    SY_PLUGIN_RETURN_IF_ERROR(ReadInt(call, 0, op, "dim", dim));
    int d = 0;
    SY_PLUGIN_RETURN_IF_ERROR(WrapDim(dim, out.ndim, op, "dim", d));
    int64_t offset = 0;
    using S = Storage<D>;
    for (int i = 0; i < call->num_inputs; ++i) {
      const sy_tensor_view_t& in = call->inputs[i];
      const std::string arg = StrCat("input 'tensors[", i, "]'");
      SY_PLUGIN_RETURN_IF_ERROR(CheckView(in, op, arg, D, *stream));
      if (plugin::NumElements(in) == 0) continue;  // incl. legacy 1-D empty
      if (in.ndim != out.ndim) {
        return OpError(op, StrCat(arg, " has rank ", in.ndim, " but the output ",
                                  out.ndim, "; pass tensors of one rank"));
      }
      for (int j = 0; j < out.ndim; ++j) {
        if (j != d && in.shape[j] != out.shape[j]) {
          return OpError(op, StrCat(arg, " differs from the output in dim ", j,
                                    "; all dims but 'dim' must be equal"));
        }
      }
      if (offset + in.shape[d] > out.shape[d]) {
        return OpError(op, "the inputs are longer along 'dim' than the "
                           "output; allocate it from the op's shape function");
      }
      sy_tensor_view_t slice = out;
      slice.shape = in.shape;
      slice.byte_offset += static_cast<uint64_t>(offset * out.strides[d]) *
                           sizeof(S);
      SY_PLUGIN_RETURN_IF_ERROR((LaunchElementwise<S, S>(
          Identity{}, *stream, slice, {&in}, op)));
      offset += in.shape[d];
    }
    return nullptr;
  });
}

// Operand 0: the output over all its dims; operand 1: the indices over the
// outer dims. Rows are index positions; a row's elements are one weight
// row.
template <class S, class I>
__global__ void EmbeddingKernel(RowLayout l, const S* __restrict__ weight,
                                int64_t num_rows, int64_t w_row_stride,
                                int64_t w_col_stride,
                                const I* __restrict__ indices,
                                S* __restrict__ out, unsigned int* bad) {
  const int64_t total = l.rows * l.row_len;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       e < total; e += step) {
    const int64_t row = e / l.row_len;
    const int64_t col = e % l.row_len;
    const int64_t idx = static_cast<int64_t>(indices[l.RowOffset(row, 1)]);
    S* o = out + l.RowOffset(row, 0) + l.InnerOffset(col, 0);
    if (idx < 0 || idx >= num_rows) {
      *o = S{};
      *bad = 1;
    } else {
      *o = weight[idx * w_row_stride + col * w_col_stride];
    }
  }
}

template <sy_dtype_t D, sy_dtype_t ID>
sy_error_t* EmbeddingKernelFn(const sy_kernel_call_t* call) {
  constexpr std::string_view op = "embedding";
  static const std::string where = Where(op);
  return plugin::Guard(where, [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, 2, 1, 0, &stream));
    const sy_tensor_view_t& w = call->inputs[0];
    const sy_tensor_view_t& idx = call->inputs[1];
    const sy_tensor_view_t& out = call->outputs[0];
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(w, op, "input 'weight'", D, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(idx, op, "input 'indices'", ID, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(out, op, "output", D, *stream));
    if (w.ndim != 2 || out.ndim != idx.ndim + 1) {
      return OpError(op, "input 'weight' must be 2-D and the output "
                         "indices.shape + [weight.shape[1]]; allocate it from "
                         "the op's shape function");
    }
    if (plugin::NumElements(out) == 0) return nullptr;
    bool inner[SY_MAX_RANK] = {};
    inner[out.ndim - 1] = true;
    int64_t strides[kRowOperands][SY_MAX_RANK] = {};
    for (int i = 0; i < out.ndim; ++i) {
      strides[0][i] = out.strides[i];
      strides[1][i] = i < idx.ndim ? idx.strides[i] : 0;
    }
    const RowLayout l = MakeRowLayout(out.shape, out.ndim, inner, 2, strides);
    const int64_t total = l.rows * l.row_len;
    EmbeddingKernel<Storage<D>, Storage<ID>>
        <<<GridFor(total, stream->device), kThreads, 0, stream->stream>>>(
            l, ElementPtr<const Storage<D>>(w), w.shape[0], w.strides[0],
            w.strides[1], ElementPtr<const Storage<ID>>(idx),
            ElementPtr<Storage<D>>(out),
            CheckFlag(*stream, DeviceCheck::kEmbeddingIndex));
    SY_PLUGIN_RETURN_IF_ERROR(RuntimeError(
        GetLastError(), where, "gathering the embedding rows failed"));
    return FinishCheckedCall(*stream, DeviceCheck::kEmbeddingIndex, op, [&] {
      return StrCat("input 'indices' holds an index outside [0, ", w.shape[0],
                    ") (the rows of input 'weight'); pass indices in range");
    });
  });
}

template <sy_dtype_t D>
void AddAll(KernelList& l) {
  l.Add("concat", DtypeList<D>, ConcatKernel<D>);
  ForEachDtype<kIndexDtypes>([&]<sy_dtype_t I>() {
    l.Add("embedding", DtypeList<D, I>, EmbeddingKernelFn<D, I>);
  });
}

}  // namespace

std::span<const plugin::KernelSpec> LayoutKernels() {
  static const KernelList list = [] {
    KernelList l;
    ForEachDtype<kFloatDtypes, kIntDtypes, kBoolDtypes>(
        [&]<sy_dtype_t D>() { AddAll<D>(l); });
    return l;
  }();
  return list.specs();
}

}  // namespace sy::gpu
