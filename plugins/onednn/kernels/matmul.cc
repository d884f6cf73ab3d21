// matmul and linear over oneDNN's matmul primitive (f32; bf16 with f32
// accumulation). See matmul.h for how the operands are laid out.
#include "kernels/matmul.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <utility>

#include "context.h"
#include "kernels/kernel_list.h"

namespace sy::onednn {
namespace {

// True when one of the last `count` dims of `view` is broadcast (stride 0,
// size > 1): those dims cannot become broadcast dims of the primitive.
bool InnerZeroStride(const sy_tensor_view_t& view, int count) {
  for (int d = view.ndim - count; d < view.ndim; ++d) {
    if (d >= 0 && view.shape[d] > 1 && view.strides[d] == 0) return true;
  }
  return false;
}

Operand MatrixInput(const sy_tensor_view_t& view, Scratch& scratch) {
  return Input(view, scratch,
               InnerZeroStride(view, 2) ? ZeroStride::kCopy
                                        : ZeroStride::kBroadcast);
}

// The output view as an operand of rank `ndim`, even for rank 0.
Operand OutputOperand(const sy_tensor_view_t& out) {
  if (out.ndim > 0) return Output(out);
  Operand op = Output(out);
  op.dims.clear();
  op.strides.clear();
  return op;
}

constexpr std::string_view kMatmul = "onednn plugin: matmul";
constexpr std::string_view kLinear = "onednn plugin: linear";

sy_error_t* Matmul(const sy_kernel_call_t* call) {
  return RunKernel(kMatmul, call, Work::kMatmul, [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckCall(call, kMatmul, 2, 1, 0));
    if (call->inputs[0].ndim < 1 || call->inputs[1].ndim < 1) {
      return OpError(kMatmul, "both operands must have rank >= 1");
    }
    if (plugin::NumElements(call->outputs[0]) == 0) return nullptr;
    Scratch scratch;
    RunMatmul(MatmulLayout(call->inputs[0], call->inputs[1], call->outputs[0],
                           scratch));
    return nullptr;
  });
}

sy_error_t* Linear(const sy_kernel_call_t* call) {
  return RunKernel(kLinear, call, Work::kMatmul, [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckCall(call, kLinear, 3, 1, 0));
    if (call->inputs[0].ndim < 1 || call->inputs[1].ndim != 2) {
      return OpError(kLinear, "x must have rank >= 1 and weight rank 2");
    }
    if (plugin::NumElements(call->outputs[0]) == 0) return nullptr;
    Scratch scratch;
    RunMatmul(LinearLayout(call->inputs[0], call->inputs[1], Arg(call, 2),
                           call->outputs[0], scratch));
    return nullptr;
  });
}

}  // namespace

MatmulOperands MatmulLayout(const sy_tensor_view_t& a,
                            const sy_tensor_view_t& b,
                            const sy_tensor_view_t& out, Scratch& scratch) {
  // `broadcast`: stride-0 batch dims become broadcast dims of the primitive.
  auto build = [&](bool broadcast) {
    MatmulOperands m;
    m.out_rank = out.ndim;
    m.src = broadcast ? MatrixInput(a, scratch) : Input(a, scratch);
    m.weights = broadcast ? MatrixInput(b, scratch) : Input(b, scratch);
    m.dst = OutputOperand(out);
    if (a.ndim == 1) {
      m.src = Unsqueeze(m.src, 0);  // [K] → [1, K]
      m.unsqueeze_m = true;
    }
    if (b.ndim == 1) {
      m.weights = Unsqueeze(m.weights, 1);  // [K] → [K, 1]
      m.unsqueeze_n = true;
    }
    if (m.unsqueeze_n) m.dst = Unsqueeze(m.dst, m.dst.rank());
    if (m.unsqueeze_m) m.dst = Unsqueeze(m.dst, m.dst.rank() - 1);
    const int rank = std::max({m.src.rank(), m.weights.rank(), m.dst.rank()});
    m.src = PadLeading(m.src, rank);
    m.weights = PadLeading(m.weights, rank);
    m.dst = PadLeading(m.dst, rank);
    return m;
  };
  MatmulOperands m = build(true);
  // oneDNN broadcasts a batch dim of one operand against the other's, never
  // both against dst's: where both became 1 (stride-0 views) but dst's is
  // not, the views are copied densely instead.
  for (int d = 0; d + 2 < m.dst.rank(); ++d) {
    if (m.dst.dims[d] > 1 && m.src.dims[d] != m.dst.dims[d] &&
        m.weights.dims[d] != m.dst.dims[d]) {
      return build(false);
    }
  }
  return m;
}

MatmulOperands LinearLayout(const sy_tensor_view_t& x,
                            const sy_tensor_view_t& weight,
                            const sy_tensor_view_t* bias,
                            const sy_tensor_view_t& out, Scratch& scratch) {
  MatmulOperands m;
  m.out_rank = out.ndim;
  // x keeps its full dims (a broadcast x is copied): the batch dims are
  // flattened into M below, and dst has no size-1 dims to broadcast into.
  m.src = Input(x, scratch);
  m.dst = Output(out);
  if (x.ndim == 1) {
    m.src = Unsqueeze(m.src, 0);
    m.dst = Unsqueeze(m.dst, 0);
    m.unsqueeze_m = true;
  }
  // Flatten [..., M, K] to [M', K] when both x and out allow it: one large
  // GEMM instead of a batch of small ones.
  Operand src2, dst2;
  if (m.src.rank() > 2 && CollapseLeading(m.src, 1, &src2) &&
      CollapseLeading(m.dst, 1, &dst2)) {
    m.src = std::move(src2);
    m.dst = std::move(dst2);
  }
  Operand w = MatrixInput(weight, scratch);  // [N, K]
  std::swap(w.dims[0], w.dims[1]);           // read as [K, N]
  std::swap(w.strides[0], w.strides[1]);
  const int rank = m.src.rank();
  m.weights = PadLeading(w, rank);
  if (bias != nullptr) {
    // oneDNN 2.6's matmul reads the bias densely whatever its strides.
    Operand b = Input(*bias, scratch);  // [N]
    if (!b.IsDense()) b = DenseCopy(b, scratch);
    m.bias = PadLeading(b, rank);
  }
  return m;
}

Operand AlignToDst(const sy_tensor_view_t& c, const MatmulOperands& m,
                   Scratch& scratch) {
  Operand op = Input(c, scratch, ZeroStride::kBroadcast);
  // Post-op operands are read densely too (as the bias).
  if (!op.IsDense()) op = DenseCopy(op, scratch);
  if (c.ndim == 0) {
    op.dims.clear();
    op.strides.clear();
  }
  op = PadLeading(op, m.out_rank);
  if (m.unsqueeze_n) op = Unsqueeze(op, op.rank());
  if (m.unsqueeze_m) op = Unsqueeze(op, op.rank() - 1);
  return PadLeading(op, m.dst.rank());
}

void RunMatmul(const MatmulOperands& m, const dnnl::primitive_attr& attr,
               const std::unordered_map<int, dnnl::memory>& extra) {
  Operand src = m.src;
  Operand weights = m.weights;
  Scratch scratch;
  if (src.dims.back() == 0) {
    // K = 0: oneDNN skips primitives with an empty operand and would leave
    // dst unwritten. A K of 1 over zeros gives the same result (0, plus
    // bias and post-ops) through the same primitive.
    src.dims.back() = 1;
    weights.dims[weights.rank() - 2] = 1;
    for (Operand* op : {&src, &weights}) {
      int64_t n = 1;
      for (int d = op->rank(); d-- > 0;) {
        op->strides[d] = n;
        n *= op->dims[d];
      }
      const size_t bytes = static_cast<size_t>(n) * (op->type == dt::bf16 ? 2 : 4);
      op->data = scratch.Allocate(bytes);
      std::memset(op->data, 0, bytes);
    }
  }
  std::unordered_map<int, dnnl::memory> args = extra;
  args[DNNL_ARG_SRC] = src.memory();
  args[DNNL_ARG_WEIGHTS] = weights.memory();
  args[DNNL_ARG_DST] = m.dst.memory();
  dnnl::matmul::primitive_desc pd;
  if (m.bias) {
    args[DNNL_ARG_BIAS] = m.bias->memory();
    pd = dnnl::matmul::primitive_desc(
        {src.desc(), weights.desc(), m.bias->desc(), m.dst.desc()}, attr,
        Engine());
  } else {
    pd = dnnl::matmul::primitive_desc(
        {src.desc(), weights.desc(), m.dst.desc()}, attr, Engine());
  }
  Execute(dnnl::matmul(pd), args);
}

void AddMatmulKernels(KernelList& list, bool bf16) {
  for (sy_dtype_t d : FloatDtypes(bf16)) {
    list.Add("matmul", {d, d}, Matmul);
    list.Add("linear", {d, d, d}, Linear);
    list.Add("linear", {d, d, SY_DTYPE_NONE}, Linear);
  }
}

}  // namespace sy::onednn
