#include "bench_graphs.h"

#include <cmath>
#include <functional>

#include "../bench_util.h"

namespace sy::bench {
namespace {

using sy::Attr;
using sy::Tensor;

Tensor Op(const sy::Context& ctx, const char* op, std::vector<Tensor> in,
          std::vector<Attr> attrs = {}) {
  const sy::Op handle = Must(ctx.op(op), op);
  return Must(handle.call1(in, attrs), op);
}

int64_t Bytes(int64_t elements, sy_dtype_t dtype) {
  return elements * static_cast<int64_t>(sy::DTypeSize(dtype));
}

Workload Capture(const sy::Context& ctx, std::vector<Tensor> inputs, int64_t bytes,
                 const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& body) {
  sy::GraphCapture capture = Must(sy::GraphCapture::Begin(ctx), "capture");
  std::vector<Tensor> symbolic;
  for (const Tensor& t : inputs) symbolic.push_back(Must(capture.Input(t), "input"));
  for (const Tensor& t : body(symbolic)) Must(capture.Output(t), "output");
  Workload w;
  w.graph = Must(std::move(capture).End(), "capture");
  w.inputs = std::move(inputs);
  w.bytes = bytes;
  return w;
}

}  // namespace

Tensor RandomTensor(const sy::Context& ctx, const sy::Device& device, sy_dtype_t dtype,
                    std::vector<int64_t> shape, uint32_t seed) {
  Tensor t = RandomF32(device, shape, seed);
  return dtype == SY_DTYPE_F32 ? t : Op(ctx, "cast", {t}, {Attr::DType(dtype)});
}

Workload Chain(const sy::Context& ctx, const sy::Device& device, sy_dtype_t dtype,
               std::vector<int64_t> shape) {
  const int64_t bytes = 3 * Bytes(Numel(shape), dtype);
  return Capture(ctx, {RandomTensor(ctx, device, dtype, shape, 1),
                       RandomTensor(ctx, device, dtype, shape, 2)},
                 bytes, [&](const std::vector<Tensor>& in) {
                   Tensor a = Op(ctx, "mul.Tensor", {in[0], in[1]});
                   a = Op(ctx, "add.Scalar", {a}, {Attr(1.0)});
                   a = Op(ctx, "tanh", {a});
                   a = Op(ctx, "mul.Scalar", {a}, {Attr(2.0)});
                   a = Op(ctx, "sub.Tensor", {a, in[1]});
                   a = Op(ctx, "sigmoid", {a});
                   a = Op(ctx, "relu", {a});
                   return std::vector<Tensor>{Op(ctx, "add.Tensor", {a, in[0]})};
                 });
}

Workload SoftmaxComposed(const sy::Context& ctx, const sy::Device& device, sy_dtype_t dtype,
                         int64_t rows, int64_t cols) {
  const int64_t bytes = 2 * Bytes(rows * cols, dtype);
  return Capture(ctx, {RandomTensor(ctx, device, dtype, {rows, cols}, 3)}, bytes,
                 [&](const std::vector<Tensor>& in) {
                   const Tensor m = Op(ctx, "max", {in[0]}, {Attr({-1}), Attr(true)});
                   const Tensor e = Op(ctx, "exp", {Op(ctx, "sub.Tensor", {in[0], m})});
                   const Tensor s = Op(ctx, "sum", {e}, {Attr({-1}), Attr(true)});
                   return std::vector<Tensor>{Op(ctx, "div.Tensor", {e, s})};
                 });
}

Workload RmsNormComposed(const sy::Context& ctx, const sy::Device& device, sy_dtype_t dtype,
                         int64_t rows, int64_t cols) {
  const int64_t bytes = 2 * Bytes(rows * cols, dtype);
  return Capture(ctx, {RandomTensor(ctx, device, dtype, {rows, cols}, 4),
                       RandomTensor(ctx, device, dtype, {cols}, 5)},
                 bytes, [&](const std::vector<Tensor>& in) {
                   const Tensor ms = Op(ctx, "mean", {Op(ctx, "mul.Tensor", {in[0], in[0]})},
                                        {Attr({-1}), Attr(true)});
                   const Tensor inv =
                       Op(ctx, "rsqrt", {Op(ctx, "add.Scalar", {ms}, {Attr(1e-6)})});
                   return std::vector<Tensor>{
                       Op(ctx, "mul.Tensor", {Op(ctx, "mul.Tensor", {in[0], inv}), in[1]})};
                 });
}

Workload RmsNormOp(const sy::Context& ctx, const sy::Device& device, sy_dtype_t dtype,
                   int64_t rows, int64_t cols) {
  const int64_t bytes = 2 * Bytes(rows * cols, dtype);
  return Capture(ctx, {RandomTensor(ctx, device, dtype, {rows, cols}, 4),
                       RandomTensor(ctx, device, dtype, {cols}, 5)},
                 bytes, [&](const std::vector<Tensor>& in) {
                   return std::vector<Tensor>{Op(ctx, "rms_norm", {in[0], in[1]}, {Attr(1e-6)})};
                 });
}

Workload GeluComposed(const sy::Context& ctx, const sy::Device& device, sy_dtype_t dtype,
                      int64_t rows, int64_t cols) {
  const int64_t bytes = 2 * Bytes(rows * cols, dtype);
  return Capture(ctx, {RandomTensor(ctx, device, dtype, {rows, cols}, 6)}, bytes,
                 [&](const std::vector<Tensor>& in) {
                   const Tensor e = Op(
                       ctx, "erf", {Op(ctx, "mul.Scalar", {in[0]}, {Attr(0.7071067811865476)})});
                   const Tensor h = Op(ctx, "mul.Scalar",
                                       {Op(ctx, "add.Scalar", {e}, {Attr(1.0)})}, {Attr(0.5)});
                   return std::vector<Tensor>{Op(ctx, "mul.Tensor", {in[0], h})};
                 });
}

Workload TransformerBlock(const sy::Context& ctx, const sy::Device& device, sy_dtype_t dtype,
                          int64_t batch, int64_t tokens, int64_t dim, int64_t heads) {
  const int64_t head = dim / heads;
  std::vector<Tensor> inputs = {RandomTensor(ctx, device, dtype, {batch, tokens, dim}, 7)};
  // Weights are constants of the graph (not inputs), as in a model.
  auto scaled = [&](std::vector<int64_t> shape, uint32_t seed, double scale) {
    return Op(ctx, "mul.Scalar", {RandomTensor(ctx, device, dtype, shape, seed)},
              {Attr(scale)});
  };
  const Tensor w_norm1 = RandomTensor(ctx, device, dtype, {dim}, 8);
  const Tensor w_norm2 = RandomTensor(ctx, device, dtype, {dim}, 9);
  const double s_in = 1.0 / std::sqrt(static_cast<double>(dim));
  const Tensor w_qkv = scaled({3 * dim, dim}, 10, s_in);
  const Tensor w_out = scaled({dim, dim}, 11, s_in);
  const Tensor w_up = scaled({4 * dim, dim}, 12, s_in);
  const Tensor b_up = scaled({4 * dim}, 13, 0.1);
  const Tensor w_down = scaled({dim, 4 * dim}, 14, 0.5 * s_in);
  const int64_t bytes = 2 * Bytes(batch * tokens * dim, dtype);
  // By value but for ctx: `ops` calls it after this function returns.
  auto block = [=, &ctx](const std::vector<Tensor>& in) {
    const Tensor& x = in[0];
    const Tensor n1 = Op(ctx, "rms_norm", {x, w_norm1}, {Attr(1e-6)});
    const Tensor qkv = Op(ctx, "linear", {n1, w_qkv, Tensor()});  // [B, T, 3D]
    const std::vector<int64_t> split_shape = {batch, tokens, 3, heads, head};
    const Tensor split = Op(ctx, "permute", {Op(ctx, "reshape", {qkv}, {Attr(split_shape)})},
                            {Attr({2, 0, 3, 1, 4})});  // [3, B, H, T, hd]
    const std::vector<int64_t> part_shape = {batch, heads, tokens, head};
    auto part = [&](int64_t i) {
      const Tensor s = Op(ctx, "slice", {split}, {Attr(0), Attr(i), Attr(i + 1), Attr(1)});
      return Op(ctx, "reshape", {s}, {Attr(part_shape)});
    };
    const Tensor attn = Op(ctx, "scaled_dot_product_attention",
                           {part(0), part(1), part(2), Tensor()}, {Attr(true)});
    const std::vector<int64_t> merged_shape = {batch, tokens, dim};
    const Tensor merged = Op(ctx, "reshape", {Op(ctx, "permute", {attn}, {Attr({0, 2, 1, 3})})},
                             {Attr(merged_shape)});
    const Tensor h = Op(ctx, "add.Tensor", {x, Op(ctx, "linear", {merged, w_out, Tensor()})});
    const Tensor n2 = Op(ctx, "rms_norm", {h, w_norm2}, {Attr(1e-6)});
    const Tensor up = Op(ctx, "gelu", {Op(ctx, "linear", {n2, w_up, b_up})}, {Attr("tanh")});
    return std::vector<Tensor>{
        Op(ctx, "add.Tensor", {h, Op(ctx, "linear", {up, w_down, Tensor()})})};
  };
  Workload w = Capture(ctx, inputs, bytes, block);
  w.ops = block;
  return w;
}

}  // namespace sy::bench
