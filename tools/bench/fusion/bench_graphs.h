// The graphs bench_fusion measures, captured through the public API
// (sy::GraphCapture, switchyard/graph.hpp): each with its inputs (random,
// on the device) and the bytes an ideal kernel moves (every input read
// once, every output written once). A Workload's graph is captured but not
// compiled: the benchmark compiles it fused or unfused.
#ifndef SWITCHYARD_TOOLS_BENCH_FUSION_BENCH_GRAPHS_H_
#define SWITCHYARD_TOOLS_BENCH_FUSION_BENCH_GRAPHS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "switchyard/switchyard.hpp"

namespace sy::bench {

struct Workload {
  sy::Graph graph;
  std::vector<sy::Tensor> inputs;
  int64_t bytes = 0;
  // The captured function itself, to call op by op outside a capture (the
  // eager baseline a replay must beat); set where the workload keeps it
  // (TransformerBlock).
  std::function<std::vector<sy::Tensor>(const std::vector<sy::Tensor>&)> ops;
};

// A random tensor of `dtype` on `device` (made in f32 on the host, cast
// there).
sy::Tensor RandomTensor(const sy::Context& ctx, const sy::Device& device, sy_dtype_t dtype,
                        std::vector<int64_t> shape, uint32_t seed);

// relu(sigmoid(tanh(x*y + 1)*2 - y)) + x, x and y of `shape`.
Workload Chain(const sy::Context& ctx, const sy::Device& device, sy_dtype_t dtype,
               std::vector<int64_t> shape);
// softmax over the last dim from primitives: exp(x - max) / sum(exp(x - max)).
Workload SoftmaxComposed(const sy::Context& ctx, const sy::Device& device, sy_dtype_t dtype,
                         int64_t rows, int64_t cols);
// rms_norm over the last dim from primitives: x·rsqrt(mean(x²) + eps)·w.
Workload RmsNormComposed(const sy::Context& ctx, const sy::Device& device, sy_dtype_t dtype,
                         int64_t rows, int64_t cols);
// The rms_norm op itself (eps 1e-6): one plugin kernel, fused or not —
// alone, its decomposition fuses with nothing (docs/fusion.md, "Native
// kernels"); against RmsNormComposed's fused kernel it measures that rule.
Workload RmsNormOp(const sy::Context& ctx, const sy::Device& device, sy_dtype_t dtype,
                   int64_t rows, int64_t cols);
// gelu from primitives: x/2·(1 + erf(x/√2)).
Workload GeluComposed(const sy::Context& ctx, const sy::Device& device, sy_dtype_t dtype,
                      int64_t rows, int64_t cols);
// A pre-norm transformer block: x + attn(rms_norm(x)), then + mlp(rms_norm(·))
// with causal scaled_dot_product_attention and a tanh-gelu MLP of 4× width.
// Keeps `ops` (the block op by op); `ctx` must outlive the workload.
Workload TransformerBlock(const sy::Context& ctx, const sy::Device& device, sy_dtype_t dtype,
                          int64_t batch, int64_t tokens, int64_t dim, int64_t heads);

}  // namespace sy::bench

#endif  // SWITCHYARD_TOOLS_BENCH_FUSION_BENCH_GRAPHS_H_
