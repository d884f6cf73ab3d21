// The graphs bench_fusion measures, captured through fusion/graph.h: each
// with its inputs (random, on the device) and the bytes an ideal kernel
// moves (every input read once, every output written once).
#ifndef SWITCHYARD_TOOLS_BENCH_FUSION_BENCH_GRAPHS_H_
#define SWITCHYARD_TOOLS_BENCH_FUSION_BENCH_GRAPHS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "dispatcher/runtime/runtime.h"
#include "fusion/graph.h"

namespace sy::bench {

struct Workload {
  fusion::Graph graph;
  std::vector<core::Tensor> inputs;
  int64_t bytes = 0;
};

// A random tensor of `dtype` on `device` (made in f32 on the host, cast
// there).
core::Tensor RandomTensor(core::Runtime& rt, core::Device& device, sy_dtype_t dtype,
                          std::vector<int64_t> shape, uint32_t seed);

// relu(sigmoid(tanh(x*y + 1)*2 - y)) + x, x and y of `shape`.
Workload Chain(core::Runtime& rt, core::Device& device, sy_dtype_t dtype,
               std::vector<int64_t> shape);
// softmax over the last dim from primitives: exp(x - max) / sum(exp(x - max)).
Workload SoftmaxComposed(core::Runtime& rt, core::Device& device, sy_dtype_t dtype,
                         int64_t rows, int64_t cols);
// rms_norm over the last dim from primitives: x·rsqrt(mean(x²) + eps)·w.
Workload RmsNormComposed(core::Runtime& rt, core::Device& device, sy_dtype_t dtype,
                         int64_t rows, int64_t cols);
// gelu from primitives: x/2·(1 + erf(x/√2)).
Workload GeluComposed(core::Runtime& rt, core::Device& device, sy_dtype_t dtype,
                      int64_t rows, int64_t cols);
// A pre-norm transformer block: x + attn(rms_norm(x)), then + mlp(rms_norm(·))
// with causal scaled_dot_product_attention and a tanh-gelu MLP of 4× width.
Workload TransformerBlock(core::Runtime& rt, core::Device& device, sy_dtype_t dtype,
                          int64_t batch, int64_t tokens, int64_t dim, int64_t heads);

}  // namespace sy::bench

#endif  // SWITCHYARD_TOOLS_BENCH_FUSION_BENCH_GRAPHS_H_
