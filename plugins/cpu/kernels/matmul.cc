// matmul (f32), with NumPy's rules: a 1-D `a` is a row and a 1-D `b` a
// column, each dropped from the result; batch dims (all but the last two)
// broadcast. The product itself is GemmF32's (gemm.h); this file maps the
// views onto it, one M×K by K×N product per batch index.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "kernels/gemm.h"
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

constexpr std::string_view kOp = "matmul";

// One operand seen as a batch of matrices.
struct Operand {
  int batch_rank;
  int64_t rows, cols;
  int64_t row_stride, col_stride;
};

// p + offset, except that an empty operand may have no storage at all, and
// offsetting NULL is undefined behaviour even when nothing is read.
template <class T>
T* Offset(T* p, int64_t offset) {
  return p == nullptr ? nullptr : p + offset;
}

Operand AsMatrices(const sy_tensor_view_t& v, bool is_a) {
  if (v.ndim == 1) {  // a row of `a`, or a column of `b`
    return is_a ? Operand{0, 1, v.shape[0], 0, v.strides[0]}
                : Operand{0, v.shape[0], 1, v.strides[0], 0};
  }
  const int r = v.ndim;
  return {r - 2, v.shape[r - 2], v.shape[r - 1], v.strides[r - 2],
          v.strides[r - 1]};
}

sy_error_t* Matmul(const sy_kernel_call_t* call) {
  SY_PLUGIN_RETURN_IF_ERROR(CheckCall(call, kOp, 2, 1, 0));
  const sy_tensor_view_t& a = call->inputs[0];
  const sy_tensor_view_t& b = call->inputs[1];
  const sy_tensor_view_t& out = call->outputs[0];
  SY_PLUGIN_RETURN_IF_ERROR(CheckView(a, kOp, "input 'a'", SY_DTYPE_F32));
  SY_PLUGIN_RETURN_IF_ERROR(CheckView(b, kOp, "input 'b'", SY_DTYPE_F32));
  SY_PLUGIN_RETURN_IF_ERROR(CheckView(out, kOp, "output", SY_DTYPE_F32));
  if (a.ndim == 0 || b.ndim == 0) {
    return OpError(kOp, StrCat(a.ndim == 0 ? "input 'a'" : "input 'b'",
                               " is a scalar (rank 0); matmul needs rank >= 1 "
                               "(use mul.Tensor to scale by a scalar)"));
  }
  const Operand ma = AsMatrices(a, /*is_a=*/true);
  const Operand mb = AsMatrices(b, /*is_a=*/false);
  if (ma.cols != mb.rows) {
    return OpError(
        kOp, StrCat("input 'a' has shape ", ShapeToString(Shape(a)),
                    " and input 'b' has shape ", ShapeToString(Shape(b)),
                    ": a's last dim (", ma.cols, ") must equal b's ",
                    b.ndim == 1 ? "only" : "second-to-last", " dim (", mb.rows,
                    "); transpose or reshape one of them"));
  }
  // Broadcast the batch dims, right-aligned; a stretched dim gets stride 0.
  const int batch_rank = std::max(ma.batch_rank, mb.batch_rank);
  int64_t batch[SY_MAX_RANK], a_bs[SY_MAX_RANK], b_bs[SY_MAX_RANK];
  for (int i = 0; i < batch_rank; ++i) {
    const int ia = i - (batch_rank - ma.batch_rank);
    const int ib = i - (batch_rank - mb.batch_rank);
    const int64_t da = ia >= 0 ? a.shape[ia] : 1;
    const int64_t db = ib >= 0 ? b.shape[ib] : 1;
    if (da != db && da != 1 && db != 1) {
      return OpError(kOp,
                     StrCat("the batch dims of input 'a' ",
                            ShapeToString({a.shape, size_t(ma.batch_rank)}),
                            " and input 'b' ",
                            ShapeToString({b.shape, size_t(mb.batch_rank)}),
                            " do not broadcast (", da, " vs ", db,
                            "); batch dims must be equal or 1"));
    }
    batch[i] = da == 1 ? db : da;  // 0 against 1 broadcasts to 0
    a_bs[i] = da == 1 ? 0 : a.strides[ia];
    b_bs[i] = db == 1 ? 0 : b.strides[ib];
  }
  std::vector<int64_t> expected(batch, batch + batch_rank);
  if (a.ndim > 1) expected.push_back(ma.rows);
  if (b.ndim > 1) expected.push_back(mb.cols);
  SY_PLUGIN_RETURN_IF_ERROR(
      CheckShape(out, expected, kOp, "output",
                 StrCat("matmul of input 'a' ", ShapeToString(Shape(a)),
                        " and input 'b' ", ShapeToString(Shape(b)), " gives"),
                 "allocate the output from matmul's shape function"));

  const int64_t m = ma.rows, n = mb.cols, k = ma.cols;
  // A dropped dim of the result has size 1, so its stride never matters.
  const int64_t c_rs = a.ndim > 1 ? out.strides[batch_rank] : 0;
  const int64_t c_cs = b.ndim > 1 ? out.strides[out.ndim - 1] : 0;
  const GemmKernel& gemm = ActiveGemmKernel();
  const size_t scratch_floats = gemm.scratch_floats(m, n, k);
  // 64-byte aligned scratch, shared by every batch index.
  std::unique_ptr<float[]> storage(new float[scratch_floats + 16]);
  void* aligned = storage.get();
  size_t space = (scratch_floats + 16) * sizeof(float);
  float* scratch = static_cast<float*>(
      std::align(64, scratch_floats * sizeof(float), aligned, space));
  const float* pa = DataPtr<const float>(a);
  const float* pb = DataPtr<const float>(b);
  float* pc = DataPtr<float>(out);
  ForEachStridedRun<3>(
      std::span<const int64_t>(batch, batch_rank), {out.strides, a_bs, b_bs},
      [&](const auto& off, int64_t count, const auto& st) {
        for (int64_t i = 0; i < count; ++i) {
          gemm.run(
              m, n, k,
              {Offset(pa, off[1] + i * st[1]), ma.row_stride, ma.col_stride},
              {Offset(pb, off[2] + i * st[2]), mb.row_stride, mb.col_stride},
              {Offset(pc, off[0] + i * st[0]), c_rs, c_cs}, scratch);
        }
      });
  return nullptr;
}

}  // namespace

sy_error_t* MatmulF32(const sy_kernel_call_t* call) {
  // The packing scratch is the only allocation: bad_alloc → RESOURCE_EXHAUSTED.
  return Guard("cpu plugin: matmul", [&] { return Matmul(call); });
}

}  // namespace sy::cpu

namespace sy::cpu {

std::span<const plugin::KernelSpec> LinalgKernels() {
  static const KernelList* const list = [] {
    auto* l = new KernelList;
    l->Add("matmul", DtypeList<SY_DTYPE_F32, SY_DTYPE_F32>, MatmulF32);
    return l;
  }();
  return list->specs();
}

}  // namespace sy::cpu
