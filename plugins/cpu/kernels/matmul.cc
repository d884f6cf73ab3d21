// matmul for f32, f64, f16, bf16, i32, i64, i8 and u8, with NumPy's rules: a
// 1-D `a` is a row and a 1-D `b` a column, each dropped from the result;
// batch dims (all but the last two) broadcast. This file maps the views onto
// RunGemm (gemm_driver.h), one M×K by K×N product per batch index; the
// products, the packing and the threading are the driver's.
//
// f16/bf16 are converted to f32 while packing, accumulated in f32 and
// rounded once. Integers wrap like NumPy's: the result is the exact product
// modulo 2^bits of the dtype (gemm_util.h), never undefined behaviour.
#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "kernels/conv2d.h"
#include "kernels/gemm_driver.h"
#include "kernels/gemm_pack.h"
#include "kernels/gemm_util.h"
#include "kernels/kernel_list.h"
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

constexpr std::string_view kOp = "matmul";

// The call mapped onto matrices: element strides of A (m×k), B (k×n) and C
// (m×n) within one batch index, and the batch dims (size-1 dims dropped)
// with each operand's stride along them (0 where it broadcasts).
struct MatmulLayout {
  int64_t m = 0, n = 0, k = 0;
  int64_t a_rs = 0, a_cs = 0, b_rs = 0, b_cs = 0, c_rs = 0, c_cs = 0;
  int batch_rank = 0;
  int64_t batch = 1;
  int64_t dims[SY_MAX_RANK] = {};
  int64_t strides[3][SY_MAX_RANK] = {};  // a, b, c
  bool shared_b = true;                  // B's batch strides are all 0

  // Offset of operand `which` (0 a, 1 b, 2 c) at batch index `index`.
  int64_t Offset(int64_t index, int which) const {
    int64_t offset = 0;
    for (int d = batch_rank - 1; d >= 0 && index > 0; --d) {
      offset += index % dims[d] * strides[which][d];
      index /= dims[d];
    }
    return offset;
  }

  // When every batch index shares B and A's and C's batch dims are laid out
  // like extra rows, the batch is one product with more rows (`linear` on a
  // [batch, tokens, features] input, say): one large GEMM threads and packs
  // better than many small ones.
  void FoldBatchIntoRows() {
    if (!shared_b || batch_rank == 0) return;
    int64_t size[SY_MAX_RANK + 1], sa[SY_MAX_RANK + 1], sc[SY_MAX_RANK + 1];
    int r = 0;
    for (int d = 0; d < batch_rank; ++d, ++r) {
      size[r] = dims[d];
      sa[r] = strides[0][d];
      sc[r] = strides[2][d];
    }
    if (m > 1) {
      size[r] = m;
      sa[r] = a_rs;
      sc[r] = c_rs;
      ++r;
    }
    for (int d = 0; d + 1 < r; ++d) {
      if (sa[d] != sa[d + 1] * size[d + 1] ||
          sc[d] != sc[d + 1] * size[d + 1]) {
        return;
      }
    }
    m *= batch;
    a_rs = sa[r - 1];
    c_rs = sc[r - 1];
    batch = 1;
    batch_rank = 0;
  }
};

// One operand as a batch of matrices (rows, cols and their strides).
struct Operand {
  int batch_rank;
  int64_t rows, cols, rs, cs;
};

Operand AsMatrices(const sy_tensor_view_t& v, bool is_a) {
  if (v.ndim == 1) {  // a row of `a`, or a column of `b`
    return is_a ? Operand{0, 1, v.shape[0], 0, v.strides[0]}
                : Operand{0, v.shape[0], 1, v.strides[0], 0};
  }
  const int r = v.ndim;
  return {r - 2, v.shape[r - 2], v.shape[r - 1], v.strides[r - 2],
          v.strides[r - 1]};
}

// Checks the call and maps it onto a MatmulLayout.
sy_error_t* Prepare(const sy_kernel_call_t* call, sy_dtype_t dtype,
                    MatmulLayout* layout) {
  SY_PLUGIN_RETURN_IF_ERROR(CheckCall(call, kOp, 2, 1, 0));
  const sy_tensor_view_t& a = call->inputs[0];
  const sy_tensor_view_t& b = call->inputs[1];
  const sy_tensor_view_t& out = call->outputs[0];
  SY_PLUGIN_RETURN_IF_ERROR(CheckKernelDtype(a, kOp, "input 'a'", dtype));
  SY_PLUGIN_RETURN_IF_ERROR(CheckKernelDtype(b, kOp, "input 'b'", dtype));
  SY_PLUGIN_RETURN_IF_ERROR(CheckKernelDtype(out, kOp, "output", dtype));
  SY_PLUGIN_RETURN_IF_ERROR(CheckView(a, kOp, "input 'a'", dtype));
  SY_PLUGIN_RETURN_IF_ERROR(CheckView(b, kOp, "input 'b'", dtype));
  SY_PLUGIN_RETURN_IF_ERROR(CheckView(out, kOp, "output", dtype));
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
  std::vector<int64_t> expected;
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
    expected.push_back(da == 1 ? db : da);  // 0 against 1 broadcasts to 0
  }
  if (a.ndim > 1) expected.push_back(ma.rows);
  if (b.ndim > 1) expected.push_back(mb.cols);
  SY_PLUGIN_RETURN_IF_ERROR(
      CheckShape(out, expected, kOp, "output",
                 StrCat("matmul of input 'a' ", ShapeToString(Shape(a)),
                        " and input 'b' ", ShapeToString(Shape(b)), " gives"),
                 "allocate the output from matmul's shape function"));

  MatmulLayout& l = *layout;
  l.m = ma.rows;
  l.n = mb.cols;
  l.k = ma.cols;
  l.a_rs = ma.rs;
  l.a_cs = ma.cs;
  l.b_rs = mb.rs;
  l.b_cs = mb.cs;
  // A dropped dim of the result has size 1, so its stride never matters.
  l.c_rs = a.ndim > 1 ? out.strides[batch_rank] : 0;
  l.c_cs = b.ndim > 1 ? out.strides[out.ndim - 1] : 0;
  for (int i = 0; i < batch_rank; ++i) {
    const int64_t size = expected[i];
    l.batch *= size;
    if (size == 1) continue;  // contributes nothing to any offset
    const int ia = i - (batch_rank - ma.batch_rank);
    const int ib = i - (batch_rank - mb.batch_rank);
    const int d = l.batch_rank++;
    l.dims[d] = size;
    l.strides[0][d] = ia >= 0 && a.shape[ia] != 1 ? a.strides[ia] : 0;
    l.strides[1][d] = ib >= 0 && b.shape[ib] != 1 ? b.strides[ib] : 0;
    l.strides[2][d] = out.strides[i];
    l.shared_b = l.shared_b && l.strides[1][d] == 0;
  }
  l.FoldBatchIntoRows();
  return nullptr;
}

// RunGemm's view of one matmul call (see RunGemm's contract).
template <class T>
class MatmulProblem {
 public:
  using Compute = GemmCompute<T>;
  using S = Compute;

  MatmulProblem(const MatmulLayout& l, const T* a, const T* b, T* c)
      : l_(l), a_(a), b_(b), c_(c) {}

  static constexpr bool kBuffered = !kGemmInPlace<T>;
  bool shared_b() const { return l_.shared_b; }
  bool b_columns_contiguous() const { return l_.b_rs == 1 && l_.b_cs != 1; }

  void PackA(int64_t batch, int64_t i0, int64_t p0, int64_t mc, int64_t kc,
             S* out) const {
    const T* base = a_ + l_.Offset(batch, 0) + i0 * l_.a_rs + p0 * l_.a_cs;
    cpu::PackA<S>(StridedMatrix<T>{base, l_.a_rs, l_.a_cs}, mc, kc, out);
  }

  template <int NR>
  void PackB(int64_t batch, int64_t p0, int64_t j0, int64_t kc, int64_t nc,
             S* out, int64_t sliver) const {
    const T* base = b_ + l_.Offset(batch, 1) + p0 * l_.b_rs + j0 * l_.b_cs;
    cpu::PackB<NR, S>(StridedMatrix<T>{base, l_.b_rs, l_.b_cs}, kc, nc, out,
                      sliver);
  }

  // Only for in-place types, where T and S have one size and signedness
  // at most differs (an allowed alias).
  S* CAt(int64_t batch, int64_t i, int64_t j) const {
    return reinterpret_cast<S*>(c_ + l_.Offset(batch, 2) + i * l_.c_rs +
                                j * l_.c_cs);
  }
  int64_t c_rs() const { return l_.c_rs; }
  int64_t c_cs() const { return l_.c_cs; }

  void Store(int64_t batch, int64_t i0, int64_t j0, int64_t mc, int64_t nc,
             const S* buf, int64_t ld) const {
    T* base = c_ + l_.Offset(batch, 2) + i0 * l_.c_rs + j0 * l_.c_cs;
    for (int64_t i = 0; i < mc; ++i) {
      T* row = base + i * l_.c_rs;
      const S* src = buf + i * ld;
      for (int64_t j = 0; j < nc; ++j) {
        row[j * l_.c_cs] = static_cast<T>(src[j]);  // rounds, or wraps
      }
    }
  }

 private:
  const MatmulLayout& l_;
  const T* a_;
  const T* b_;
  T* c_;
};

template <sy_dtype_t D>
sy_error_t* Matmul(const sy_kernel_call_t* call) {
  using T = CType<D>;
  MatmulLayout layout;
  SY_PLUGIN_RETURN_IF_ERROR(Prepare(call, D, &layout));
  const MatmulProblem<T> problem(layout, DataPtr<const T>(call->inputs[0]),
                                 DataPtr<const T>(call->inputs[1]),
                                 DataPtr<T>(call->outputs[0]));
  RunGemm(problem, {layout.batch, layout.m, layout.n, layout.k});
  return nullptr;
}

template <sy_dtype_t D>
sy_error_t* MatmulKernel(const sy_kernel_call_t* call) {
  // Scratch is the only allocation: bad_alloc → RESOURCE_EXHAUSTED.
  return Guard("cpu plugin: matmul", [&] { return Matmul<D>(call); });
}

template <sy_dtype_t D>
void AddMatmul(KernelList& list) {
  list.Add("matmul", DtypeList<D, D>, MatmulKernel<D>);
}

}  // namespace

std::span<const plugin::KernelSpec> LinalgKernels() {
  static const KernelList list = [] {
    KernelList l;
    AddMatmul<SY_DTYPE_F32>(l);
    AddMatmul<SY_DTYPE_F64>(l);
    AddMatmul<SY_DTYPE_F16>(l);
    AddMatmul<SY_DTYPE_BF16>(l);
    AddMatmul<SY_DTYPE_I32>(l);
    AddMatmul<SY_DTYPE_I64>(l);
    AddMatmul<SY_DTYPE_I8>(l);
    AddMatmul<SY_DTYPE_U8>(l);
    AddConv2dKernels(l);
    return l;
  }();
  return list.specs();
}

}  // namespace sy::cpu
