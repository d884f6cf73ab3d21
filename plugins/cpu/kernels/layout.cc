// concat and embedding, for every dtype: both are copies, so they move
// elements as their storage type without converting anything.
//
//   concat(Tensor[] tensors, int dim=0) -> Tensor        (equal dtypes)
//   embedding(Tensor weight, Tensor indices) -> Tensor   (indices i32/i64)
//
// concat copies each input into its slice of the output; embedding copies
// row indices[p] of weight [num_embeddings, embedding_dim] to output row p.
// Copies run on the thread pool in chunks of at least kParallelGrain
// elements, as one memcpy per run where both sides are dense. embedding
// checks every index before writing anything: the first one (in row-major
// order) outside [0, num_embeddings) is an INVALID_ARGUMENT error naming its
// value and position, never an out-of-bounds read.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/kernel_list.h"
#include "kernels/kernel_util.h"
#include "kernels/parallel.h"
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

// n elements from `src` (step ss) to `dst` (step ds).
template <class T>
void CopyRun(T* dst, int64_t ds, const T* src, int64_t ss, int64_t n) {
  if (ds == 1 && ss == 1) {
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(T));
    return;
  }
  for (int64_t i = 0; i < n; ++i) dst[i * ds] = src[i * ss];
}

// ---- concat -----------------------------------------------------------------

template <sy_dtype_t D>
sy_error_t* Concat(const sy_kernel_call_t* call) {
  using T = CType<D>;
  constexpr std::string_view op = "concat";
  const bool readable =
      call != nullptr &&
      call->struct_size >= SY_STRUCT_SIZE(sy_kernel_call_t, kernel_data);
  SY_PLUGIN_RETURN_IF_ERROR(
      CheckCall(call, op, readable ? call->num_inputs : 0, 1, 1));
  int first = 0, count = 0;
  SY_PLUGIN_RETURN_IF_ERROR(TensorArg(call, op, 1, 0, &first, &count));
  if (count == 0) {
    return OpError(op,
                   "input 'tensors' is an empty list; concat needs at "
                   "least one tensor");
  }
  const sy_tensor_view_t* in = call->inputs + first;
  const sy_tensor_view_t& out = call->outputs[0];
  for (int i = 0; i < count; ++i) {
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckTensor(in[i], op, StrCat("input 'tensors[", i, "]'"), D));
  }
  SY_PLUGIN_RETURN_IF_ERROR(CheckTensor(out, op, "output", D));
  SY_PLUGIN_RETURN_IF_ERROR(CheckAttr(call, op, 0, "dim", SY_ATTR_INT));
  const int rank = in[0].ndim;
  int dim = 0;
  SY_PLUGIN_RETURN_IF_ERROR(
      WrapDim(op, StrCat("attribute 'dim' = ", call->attrs[0].value.i),
              call->attrs[0].value.i, rank, "input 'tensors[0]'",
              /*wrap_scalar=*/false, &dim));
  std::vector<int64_t> shape(Shape(in[0]).begin(), Shape(in[0]).end());
  shape[dim] = 0;
  for (int i = 0; i < count; ++i) {
    bool same = in[i].ndim == rank;
    for (int d = 0; same && d < rank; ++d) {
      same = d == dim || in[i].shape[d] == in[0].shape[d];
    }
    if (!same) {
      return OpError(
          op, StrCat("input 'tensors[", i, "]' has shape ",
                     ShapeToString(Shape(in[i])), " but 'tensors[0]' has ",
                     ShapeToString(Shape(in[0])), "; all dims except dim ", dim,
                     " must be equal"));
    }
    if (__builtin_add_overflow(shape[dim], in[i].shape[dim], &shape[dim])) {
      return OpError(op, StrCat("the inputs have more elements along dim ", dim,
                                " than int64 can count"));
    }
  }
  SY_PLUGIN_RETURN_IF_ERROR(CheckShape(
      out, shape, op, "output",
      StrCat("concatenating ", count, " inputs along dim ", dim, " gives"),
      "allocate the output from concat's shape function"));
  T* po = DataPtr<T>(out);
  int64_t at = 0;  // where the next input starts along dim
  for (int i = 0; i < count; ++i) {
    const int64_t size = in[i].shape[dim];
    if (plugin::NumElements(in[i]) > 0) {
      const T* px = DataPtr<const T>(in[i]);
      T* dst = po + at * out.strides[dim];
      const StridedLayout<2> layout(Shape(in[i]), {in[i].strides, out.strides});
      ParallelForEachRun(layout, kParallelGrain,
                         [&](const auto& off, int64_t n, const auto& st) {
                           CopyRun(dst + off[1], st[1], px + off[0], st[0], n);
                         });
    }
    at += size;
  }
  return nullptr;
}

// ---- embedding --------------------------------------------------------------

// The index of position `flat` (row-major) of `shape`, as "[1, 2]".
std::string PositionString(std::span<const int64_t> shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return ShapeToString(index);
}

template <sy_dtype_t D, sy_dtype_t ID>
sy_error_t* Embedding(const sy_kernel_call_t* call) {
  using T = CType<D>;
  using I = CType<ID>;
  constexpr std::string_view op = "embedding";
  SY_PLUGIN_RETURN_IF_ERROR(CheckCall(call, op, 2, 1, 0));
  const sy_tensor_view_t& weight = call->inputs[0];
  const sy_tensor_view_t& indices = call->inputs[1];
  const sy_tensor_view_t& out = call->outputs[0];
  SY_PLUGIN_RETURN_IF_ERROR(CheckTensor(weight, op, "input 'weight'", D));
  SY_PLUGIN_RETURN_IF_ERROR(CheckTensor(indices, op, "input 'indices'", ID));
  SY_PLUGIN_RETURN_IF_ERROR(CheckTensor(out, op, "output", D));
  if (weight.ndim != 2) {
    return OpError(
        op, StrCat("input 'weight' has shape ", ShapeToString(Shape(weight)),
                   "; embedding needs a 2-D weight "
                   "[num_embeddings, embedding_dim]"));
  }
  const int64_t rows = weight.shape[0];
  const int64_t width = weight.shape[1];
  std::vector<int64_t> shape(Shape(indices).begin(), Shape(indices).end());
  shape.push_back(width);
  SY_PLUGIN_RETURN_IF_ERROR(CheckShape(
      out, shape, op, "output",
      StrCat("input 'indices' of shape ", ShapeToString(Shape(indices)),
             " into a weight with rows of ", width, " gives"),
      "allocate the output from embedding's shape function"));
  const StridedLayout<2> layout(Shape(indices), {indices.strides, out.strides});
  const int64_t positions = layout.numel();
  if (positions == 0) return nullptr;
  const I* pi = DataPtr<const I>(indices);

  // Find the first bad index (the smallest position) before writing.
  const StridedLayout<1> index_layout(Shape(indices), {indices.strides});
  std::atomic<int64_t> first_bad{std::numeric_limits<int64_t>::max()};
  ParallelFor(positions, kParallelGrain, [&](int64_t begin, int64_t end) {
    int64_t pos = begin;
    bool found = false;
    index_layout.ForEachRun(
        begin, end, [&](const auto& off, int64_t n, const auto& st) {
          for (int64_t i = 0; i < n && !found; ++i) {
            const int64_t v = static_cast<int64_t>(pi[off[0] + i * st[0]]);
            if (v < 0 || v >= rows) {
              found = true;
              int64_t seen = first_bad.load(std::memory_order_relaxed);
              while (pos + i < seen &&
                     !first_bad.compare_exchange_weak(
                         seen, pos + i, std::memory_order_relaxed)) {
              }
            }
          }
          pos += n;
        });
  });
  const int64_t bad = first_bad.load();
  if (bad != std::numeric_limits<int64_t>::max()) {
    int64_t value = 0;
    index_layout.ForEachRun(bad, bad + 1,
                            [&](const auto& off, int64_t, const auto&) {
                              value = static_cast<int64_t>(pi[off[0]]);
                            });
    return OpError(
        op, StrCat("input 'indices' holds ", value, " at position ",
                   PositionString(Shape(indices), bad),
                   ", but input 'weight' has ", rows, " rows",
                   rows > 0 ? StrCat("; indices must be in [0, ", rows - 1, "]")
                            : std::string(", so no index is valid")));
  }
  if (width == 0) return nullptr;
  const T* pw = DataPtr<const T>(weight);
  T* po = DataPtr<T>(out);
  const int64_t w_row = weight.strides[0], w_col = weight.strides[1];
  const int64_t o_col = out.strides[out.ndim - 1];
  ParallelForEachRun(
      layout, GrainFor(width), [&](const auto& off, int64_t n, const auto& st) {
        for (int64_t i = 0; i < n; ++i) {
          const int64_t row = static_cast<int64_t>(pi[off[0] + i * st[0]]);
          CopyRun(po + off[1] + i * st[1], o_col, pw + row * w_row, w_col,
                  width);
        }
      });
  return nullptr;
}

template <sy_dtype_t D>
sy_error_t* ConcatKernel(const sy_kernel_call_t* call) {
  return Guard("cpu plugin: concat", [&] { return Concat<D>(call); });
}

template <sy_dtype_t D, sy_dtype_t ID>
sy_error_t* EmbeddingKernel(const sy_kernel_call_t* call) {
  return Guard("cpu plugin: embedding", [&] { return Embedding<D, ID>(call); });
}

template <sy_dtype_t... D>
void AddAll(KernelList* list) {
  (list->Add("concat", DtypeList<D>, ConcatKernel<D>), ...);
  (list->Add("embedding", DtypeList<D, SY_DTYPE_I64>,
             EmbeddingKernel<D, SY_DTYPE_I64>),
   ...);
  (list->Add("embedding", DtypeList<D, SY_DTYPE_I32>,
             EmbeddingKernel<D, SY_DTYPE_I32>),
   ...);
}

}  // namespace

std::span<const plugin::KernelSpec> LayoutKernels() {
  static const KernelList list = [] {
    KernelList l;
    AddAll<SY_DTYPE_F32, SY_DTYPE_F64, SY_DTYPE_F16, SY_DTYPE_BF16,
           SY_DTYPE_I32, SY_DTYPE_I64, SY_DTYPE_I8, SY_DTYPE_U8, SY_DTYPE_BOOL>(
        &l);
    return l;
  }();
  return list.specs();
}

}  // namespace sy::cpu
