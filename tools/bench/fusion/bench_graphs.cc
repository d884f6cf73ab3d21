#include "bench_graphs.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>

#include "dispatcher/ops/dtype.h"

namespace sy::bench {
namespace {

using core::Attr;
using core::Tensor;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "bench_fusion: %s\n", what.c_str());
  std::exit(1);
}

template <class T>
T Value(absl::StatusOr<T> s, const std::string& what) {
  if (!s.ok()) Die(what + ": " + std::string(s.status().message()));
  return *std::move(s);
}

Tensor Op(core::Runtime& rt, const char* op, std::vector<Tensor> in,
          std::vector<Attr> attrs = {}) {
  const core::OpHandle h = Value(rt.FindOp(op), op);
  return Value(rt.Call(h, in, attrs), op)[0];
}

int64_t Numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Workload Capture(core::Runtime& rt, std::vector<Tensor> inputs, int64_t bytes,
                 const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& body) {
  auto capture = Value(fusion::Capture::Begin(rt), "capture");
  std::vector<Tensor> symbolic;
  for (const Tensor& t : inputs) symbolic.push_back(Value(capture->Input(t), "input"));
  for (const Tensor& t : body(symbolic)) {
    absl::Status s = capture->Output(t);
    if (!s.ok()) Die(std::string(s.message()));
  }
  Workload w;
  w.graph = Value(capture->End(), "capture");
  w.inputs = std::move(inputs);
  w.bytes = bytes;
  return w;
}

}  // namespace

Tensor RandomTensor(core::Runtime& rt, core::Device& device, sy_dtype_t dtype,
                    std::vector<int64_t> shape, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> data(static_cast<size_t>(Numel(shape)));
  for (float& x : data) x = dist(gen);
  Tensor t = Value(rt.FromHost(device, SY_DTYPE_F32, shape, data.data(), data.size() * 4),
                   "FromHost");
  return dtype == SY_DTYPE_F32 ? t : Op(rt, "cast", {t}, {Attr::DType(dtype)});
}

Workload Chain(core::Runtime& rt, core::Device& device, sy_dtype_t dtype,
               std::vector<int64_t> shape) {
  const int64_t bytes = 3 * Numel(shape) * static_cast<int64_t>(core::DTypeSize(dtype));
  return Capture(rt, {RandomTensor(rt, device, dtype, shape, 1), RandomTensor(rt, device, dtype, shape, 2)},
                 bytes, [&](const std::vector<Tensor>& in) {
                   Tensor a = Op(rt, "mul.Tensor", {in[0], in[1]});
                   a = Op(rt, "add.Scalar", {a}, {Attr(1.0)});
                   a = Op(rt, "tanh", {a});
                   a = Op(rt, "mul.Scalar", {a}, {Attr(2.0)});
                   a = Op(rt, "sub.Tensor", {a, in[1]});
                   a = Op(rt, "sigmoid", {a});
                   a = Op(rt, "relu", {a});
                   return std::vector<Tensor>{Op(rt, "add.Tensor", {a, in[0]})};
                 });
}

Workload SoftmaxComposed(core::Runtime& rt, core::Device& device, sy_dtype_t dtype,
                         int64_t rows, int64_t cols) {
  const int64_t bytes = 2 * rows * cols * static_cast<int64_t>(core::DTypeSize(dtype));
  return Capture(rt, {RandomTensor(rt, device, dtype, {rows, cols}, 3)}, bytes,
                 [&](const std::vector<Tensor>& in) {
                   const Tensor m = Op(rt, "max", {in[0]}, {Attr({-1}), Attr(true)});
                   const Tensor e = Op(rt, "exp", {Op(rt, "sub.Tensor", {in[0], m})});
                   const Tensor s = Op(rt, "sum", {e}, {Attr({-1}), Attr(true)});
                   return std::vector<Tensor>{Op(rt, "div.Tensor", {e, s})};
                 });
}

Workload RmsNormComposed(core::Runtime& rt, core::Device& device, sy_dtype_t dtype,
                         int64_t rows, int64_t cols) {
  const int64_t bytes = 2 * rows * cols * static_cast<int64_t>(core::DTypeSize(dtype));
  return Capture(rt, {RandomTensor(rt, device, dtype, {rows, cols}, 4),
                      RandomTensor(rt, device, dtype, {cols}, 5)},
                 bytes, [&](const std::vector<Tensor>& in) {
                   const Tensor ms = Op(rt, "mean", {Op(rt, "mul.Tensor", {in[0], in[0]})},
                                        {Attr({-1}), Attr(true)});
                   const Tensor inv = Op(rt, "rsqrt", {Op(rt, "add.Scalar", {ms}, {Attr(1e-6)})});
                   return std::vector<Tensor>{
                       Op(rt, "mul.Tensor", {Op(rt, "mul.Tensor", {in[0], inv}), in[1]})};
                 });
}

Workload GeluComposed(core::Runtime& rt, core::Device& device, sy_dtype_t dtype,
                      int64_t rows, int64_t cols) {
  const int64_t bytes = 2 * rows * cols * static_cast<int64_t>(core::DTypeSize(dtype));
  return Capture(rt, {RandomTensor(rt, device, dtype, {rows, cols}, 6)}, bytes,
                 [&](const std::vector<Tensor>& in) {
                   const Tensor e = Op(rt, "erf", {Op(rt, "mul.Scalar", {in[0]}, {Attr(0.7071067811865476)})});
                   const Tensor h = Op(rt, "mul.Scalar", {Op(rt, "add.Scalar", {e}, {Attr(1.0)})}, {Attr(0.5)});
                   return std::vector<Tensor>{Op(rt, "mul.Tensor", {in[0], h})};
                 });
}

Workload TransformerBlock(core::Runtime& rt, core::Device& device, sy_dtype_t dtype,
                          int64_t batch, int64_t tokens, int64_t dim, int64_t heads) {
  const int64_t head = dim / heads;
  std::vector<Tensor> inputs = {
      RandomTensor(rt, device, dtype, {batch, tokens, dim}, 7),
  };
  // Weights are constants of the graph (not inputs), as in a model.
  auto scaled = [&](std::vector<int64_t> shape, uint32_t seed, double scale) {
    return Op(rt, "mul.Scalar", {RandomTensor(rt, device, dtype, shape, seed)}, {Attr(scale)});
  };
  const Tensor w_norm1 = RandomTensor(rt, device, dtype, {dim}, 8);
  const Tensor w_norm2 = RandomTensor(rt, device, dtype, {dim}, 9);
  const double s_in = 1.0 / std::sqrt(static_cast<double>(dim));
  const Tensor w_qkv = scaled({3 * dim, dim}, 10, s_in);
  const Tensor w_out = scaled({dim, dim}, 11, s_in);
  const Tensor w_up = scaled({4 * dim, dim}, 12, s_in);
  const Tensor b_up = scaled({4 * dim}, 13, 0.1);
  const Tensor w_down = scaled({dim, 4 * dim}, 14, 0.5 * s_in);
  const int64_t bytes = 2 * batch * tokens * dim * static_cast<int64_t>(core::DTypeSize(dtype));
  return Capture(rt, inputs, bytes, [&](const std::vector<Tensor>& in) {
    const Tensor& x = in[0];
    const Tensor n1 = Op(rt, "rms_norm", {x, w_norm1}, {Attr(1e-6)});
    const Tensor qkv = Op(rt, "linear", {n1, w_qkv, Tensor()});  // [B, T, 3D]
    const Tensor split = Op(rt, "permute",
                            {Op(rt, "reshape", {qkv}, {Attr({batch, tokens, 3, heads, head})})},
                            {Attr({2, 0, 3, 1, 4})});  // [3, B, H, T, hd]
    auto part = [&](int64_t i) {
      const Tensor s = Op(rt, "slice", {split}, {Attr(0), Attr(i), Attr(i + 1), Attr(1)});
      return Op(rt, "reshape", {s}, {Attr({batch, heads, tokens, head})});
    };
    const Tensor attn = Op(rt, "scaled_dot_product_attention",
                           {part(0), part(1), part(2), Tensor()}, {Attr(true)});
    const Tensor merged = Op(rt, "reshape",
                             {Op(rt, "permute", {attn}, {Attr({0, 2, 1, 3})})},
                             {Attr({batch, tokens, dim})});
    const Tensor h = Op(rt, "add.Tensor", {x, Op(rt, "linear", {merged, w_out, Tensor()})});
    const Tensor n2 = Op(rt, "rms_norm", {h, w_norm2}, {Attr(1e-6)});
    const Tensor up = Op(rt, "gelu", {Op(rt, "linear", {n2, w_up, b_up})}, {Attr("tanh")});
    return std::vector<Tensor>{
        Op(rt, "add.Tensor", {h, Op(rt, "linear", {up, w_down, Tensor()})})};
  });
}

}  // namespace sy::bench
