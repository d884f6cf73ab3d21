// Fused-kernel IR (Note [Fused-kernel IR], plugin.h) built by hand for the
// code generators' tests (cuda_codegen_test.cc, glsl_codegen_test.cc):
// the builder Ir and kernels that reach every path of a generator — an
// elementwise chain with a broadcast and a bool output, softmax in three
// stages, rms_norm over one or several dims with a per-row output, and
// every op on a rank-0 value with integer storage.
#ifndef SWITCHYARD_TESTS_FUSION_IR_KERNELS_H_
#define SWITCHYARD_TESTS_FUSION_IR_KERNELS_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "switchyard/plugin.h"

namespace sy::fusion::testing {

// A kernel in the ABI's form, built by hand.
struct Ir {
  std::string name = "k";
  int ndim = 1, reduce_ndim = 0;
  std::vector<int64_t> shape;
  std::vector<sy_fused_operand_t> in, out;
  std::vector<sy_fused_instr_t> instrs;
  int stages = 1;

  int Input(sy_dtype_t d, std::vector<int64_t> strides) { return Operand(in, d, strides); }
  int Output(sy_dtype_t d, std::vector<int64_t> strides) { return Operand(out, d, strides); }
  int Add(int op, sy_dtype_t d, int a = -1, int b = -1, int c = -1, int index = 0,
          int stage = 0, int row = 0, double imm = 0) {
    sy_fused_instr_t i{};
    i.op = op;
    i.dtype = d;
    i.a = a;
    i.b = b;
    i.c = c;
    i.index = index;
    i.stage = stage;
    i.row_level = row;
    i.imm = imm;
    instrs.push_back(i);
    stages = std::max(stages, stage + 1);
    return static_cast<int>(instrs.size()) - 1;
  }
  sy_fused_kernel_t Abi() const {
    sy_fused_kernel_t k{};
    k.struct_size = sizeof(k);
    k.name = name.c_str();
    k.ndim = ndim;
    k.reduce_ndim = reduce_ndim;
    for (int d = 0; d < ndim; ++d) k.shape[d] = shape[d];
    k.num_inputs = static_cast<int32_t>(in.size());
    k.num_outputs = static_cast<int32_t>(out.size());
    k.inputs = in.data();
    k.outputs = out.data();
    k.num_instrs = static_cast<int32_t>(instrs.size());
    k.num_stages = stages;
    k.instrs = instrs.data();
    return k;
  }

 private:
  static int Operand(std::vector<sy_fused_operand_t>& list, sy_dtype_t d,
                     const std::vector<int64_t>& strides) {
    sy_fused_operand_t o{};
    o.dtype = d;
    for (size_t i = 0; i < strides.size(); ++i) o.strides[i] = strides[i];
    list.push_back(o);
    return static_cast<int>(list.size()) - 1;
  }
};

inline sy_dtype_t Compute(sy_dtype_t d) { return d == SY_DTYPE_F64 ? SY_DTYPE_F64 : SY_DTYPE_F32; }

inline std::vector<int64_t> Contiguous(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t acc = 1;
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    strides[i] = acc;
    acc *= shape[i];
  }
  return strides;
}

// relu(sigmoid(tanh(x*y + 1)*2 - y)) + x over [rows, cols], y broadcast
// over rows, plus a bool output (x > result) and a where.
inline Ir Chain(sy_dtype_t d, int64_t rows, int64_t cols, std::vector<int64_t> x_strides) {
  Ir b;
  b.name = "chain";
  b.ndim = 2;
  b.shape = {rows, cols};
  b.Input(d, x_strides);
  b.Input(d, {0, 1});
  b.Output(d, {cols, 1});
  b.Output(SY_DTYPE_BOOL, {cols, 1});
  const sy_dtype_t c = Compute(d);
  const int x = b.Add(SY_FUSED_CAST, c, b.Add(SY_FUSED_LOAD, d, -1, -1, -1, 0));
  const int y = b.Add(SY_FUSED_CAST, c, b.Add(SY_FUSED_LOAD, d, -1, -1, -1, 1));
  const int one = b.Add(SY_FUSED_CONST, c, -1, -1, -1, 0, 0, 0, 1.0);
  const int two = b.Add(SY_FUSED_CONST, c, -1, -1, -1, 0, 0, 0, 2.0);
  int a = b.Add(SY_FUSED_ADD, c, b.Add(SY_FUSED_MUL, c, x, y), one);
  a = b.Add(SY_FUSED_SUB, c, b.Add(SY_FUSED_MUL, c, b.Add(SY_FUSED_TANH, c, a), two), y);
  a = b.Add(SY_FUSED_ADD, c, b.Add(SY_FUSED_RELU, c, b.Add(SY_FUSED_SIGMOID, c, a)), x);
  b.Add(SY_FUSED_STORE, d, a, -1, -1, 0);
  const int gt = b.Add(SY_FUSED_GT, SY_DTYPE_BOOL, x, a);
  const int w = b.Add(SY_FUSED_WHERE, c, gt, x, y);
  b.Add(SY_FUSED_STORE, SY_DTYPE_BOOL, b.Add(SY_FUSED_NE, SY_DTYPE_BOOL, w, x), -1, -1, 1);
  return b;
}

// softmax over the last dim of [rows, n] in three stages, computing in f32
// (f64 for f64) — or, with `as_the_pass_lowers_it`, in d itself, as the
// fusion pass lowers f16 and bf16 ops (Note [16-bit intermediates] in
// plugins/cuda/fused/cuda_spelling.cc).
inline Ir Softmax(sy_dtype_t d, int64_t rows, int64_t n, bool as_the_pass_lowers_it = false) {
  Ir b;
  b.name = "softmax";
  b.ndim = 2;
  b.reduce_ndim = 1;
  b.shape = {rows, n};
  b.Input(d, {n, 1});
  b.Output(d, {n, 1});
  const sy_dtype_t c = as_the_pass_lowers_it ? d : Compute(d);
  auto x = [&](int stage) {
    const int load = b.Add(SY_FUSED_LOAD, d, -1, -1, -1, 0, stage);
    return as_the_pass_lowers_it ? load : b.Add(SY_FUSED_CAST, c, load, -1, -1, 0, stage);
  };
  const int m = b.Add(SY_FUSED_REDUCE_MAX, c, x(0));
  const int e1 = b.Add(SY_FUSED_EXP, c, b.Add(SY_FUSED_SUB, c, x(1), m, -1, 0, 1), -1, -1, 0, 1);
  const int sum = b.Add(SY_FUSED_REDUCE_SUM, c, e1, -1, -1, 0, 1);
  const int e2 = b.Add(SY_FUSED_EXP, c, b.Add(SY_FUSED_SUB, c, x(2), m, -1, 0, 2), -1, -1, 0, 2);
  b.Add(SY_FUSED_STORE, d, b.Add(SY_FUSED_DIV, c, e2, sum, -1, 0, 2), -1, -1, 0, 2);
  return b;
}

// rms_norm over the trailing `reduce_ndim` dims with a weight broadcast
// over rows, the per-row rstd as a second (f32) output, and a cast through
// i32 (truncation) on the way.
inline Ir RmsNorm(sy_dtype_t d, const std::vector<int64_t>& shape, int reduce_ndim) {
  Ir b;
  b.name = "rms_norm";
  b.ndim = static_cast<int>(shape.size());
  b.reduce_ndim = reduce_ndim;
  b.shape = shape;
  const std::vector<int64_t> st = Contiguous(shape);
  std::vector<int64_t> ws(shape.size(), 0), rs(shape.size(), 0);
  ws.back() = 1;
  int64_t acc = 1;
  for (int i = b.ndim - 1 - reduce_ndim; i >= 0; --i) {
    rs[i] = acc;
    acc *= shape[i];
  }
  b.Input(d, st);
  b.Input(d, ws);
  b.Output(d, st);
  b.Output(SY_DTYPE_F32, rs);
  const sy_dtype_t c = Compute(d);
  const int x0 = b.Add(SY_FUSED_CAST, c, b.Add(SY_FUSED_LOAD, d, -1, -1, -1, 0));
  const int s = b.Add(SY_FUSED_REDUCE_SUM, c, b.Add(SY_FUSED_SQUARE, c, x0));
  const int n = b.Add(SY_FUSED_CONST, c, -1, -1, -1, 0, 1, 1, 1.0 / 64);
  const int eps = b.Add(SY_FUSED_CONST, c, -1, -1, -1, 0, 1, 1, 1e-6);
  const int mean = b.Add(SY_FUSED_MUL, c, s, n, -1, 0, 1, 1);
  const int r = b.Add(SY_FUSED_RSQRT, c, b.Add(SY_FUSED_ADD, c, mean, eps, -1, 0, 1, 1), -1,
                      -1, 0, 1, 1);
  b.Add(SY_FUSED_STORE, SY_DTYPE_F32, b.Add(SY_FUSED_CAST, SY_DTYPE_F32, r, -1, -1, 0, 1, 1),
        -1, -1, 1, 1, 1);
  const int x1 = b.Add(SY_FUSED_CAST, c, b.Add(SY_FUSED_LOAD, d, -1, -1, -1, 0, 1), -1, -1, 0, 1);
  const int w = b.Add(SY_FUSED_CAST, c, b.Add(SY_FUSED_LOAD, d, -1, -1, -1, 1, 1), -1, -1, 0, 1);
  const int y = b.Add(SY_FUSED_MUL, c, b.Add(SY_FUSED_MUL, c, x1, r, -1, 0, 1), w, -1, 0, 1);
  const int i = b.Add(SY_FUSED_CAST, SY_DTYPE_I32, y, -1, -1, 0, 1);
  const int f = b.Add(SY_FUSED_CAST, c, i, -1, -1, 0, 1);
  b.Add(SY_FUSED_STORE, d, b.Add(SY_FUSED_ADD, c, f, y, -1, 0, 1), -1, -1, 0, 1);
  return b;
}

// Every unary, binary and compare op on one value, rank 0, integer
// storage in and out.
inline Ir EveryOpRank0(sy_dtype_t in_dtype, sy_dtype_t out_dtype, sy_dtype_t c) {
  Ir b;
  b.name = "every-op";
  b.ndim = 0;
  b.Input(in_dtype, {});
  b.Output(out_dtype, {});
  const int x = b.Add(SY_FUSED_CAST, c, b.Add(SY_FUSED_LOAD, in_dtype));
  int v = x;
  for (int op = SY_FUSED_NEG; op <= SY_FUSED_GELU_TANH; ++op) v = b.Add(op, c, v);
  for (int op = SY_FUSED_ADD; op <= SY_FUSED_MINIMUM; ++op) v = b.Add(op, c, v, x);
  for (int op = SY_FUSED_EQ; op <= SY_FUSED_GE; ++op) {
    v = b.Add(SY_FUSED_WHERE, c, b.Add(op, SY_DTYPE_BOOL, v, x), v, x);
  }
  b.Add(SY_FUSED_STORE, out_dtype, v);
  return b;
}

}  // namespace sy::fusion::testing

#endif  // SWITCHYARD_TESTS_FUSION_IR_KERNELS_H_
