// A small decoder-only transformer block with fixed-seed weights, run op by
// op through the dispatcher — the model `switchyard demo` runs:
//
//   h  = embedding(wte, tokens)                          [S, D]
//   a  = sdpa(heads(linear(rms_norm(h), wq/wk/wv)), causal) → linear(wo)
//   h2 = h + a
//   y  = h2 + linear(gelu(linear(rms_norm(h2), w1, b1)), w2, b2)
//
// Every op call is recorded (name, how the dispatcher ran it, wall time
// including a device synchronize, and its output), so a run on one device
// can be compared step by step with a reference run.
#ifndef SWITCHYARD_TOOLS_CLI_TRANSFORMER_BLOCK_H_
#define SWITCHYARD_TOOLS_CLI_TRANSFORMER_BLOCK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "switchyard/switchyard.hpp"

namespace sy::cli {

struct BlockConfig {
  int64_t vocab = 512;
  int64_t seq = 32;      // S tokens
  int64_t d_model = 128;  // D
  int64_t heads = 4;
  int64_t d_ff = 512;
  uint32_t seed = 2026;
};

// One recorded op call.
struct BlockStep {
  std::string op;     // "rms_norm", "linear (q)", …
  std::string how;    // Op::explain: "kernel cpu::… (priority)", …
  double micros = 0;  // call + synchronize
  sy::Tensor output;
};

// The block's weights (and its token ids) on one device.
struct BlockWeights {
  sy::Tensor tokens;  // i64 [S]
  sy::Tensor wte, norm1, wq, wk, wv, wo, norm2, w1, b1, w2, b2;
};

class BlockRecorder;  // transformer_block.cc

// The block's weights as host float32 arrays, drawn once from `seed`.
class TransformerBlock {
 public:
  explicit TransformerBlock(const BlockConfig& config);

  const BlockConfig& config() const { return config_; }

  // Runs the block on `device` with weights and activations in `dtype`
  // (f32, f64, f16, bf16), recording every step. Fails on the first op that
  // fails, naming the step.
  sy::Result<std::vector<BlockStep>> Run(const sy::Context& context,
                                         const sy::Device& device, sy_dtype_t dtype) const;

  // The same block without recording or synchronizing, for graph capture
  // and whole-block timing: the weights once, then the forward pass on
  // `tokens` (real, or a capture's symbolic input) — its output [S, D].
  sy::Result<BlockWeights> UploadWeights(const sy::Context& context,
                                         const sy::Device& device, sy_dtype_t dtype) const;
  sy::Result<sy::Tensor> Forward(const sy::Context& context, const sy::Device& device,
                                 const BlockWeights& weights, const sy::Tensor& tokens) const;

 private:
  BlockWeights Upload(BlockRecorder& r, sy_dtype_t dtype) const;
  sy::Tensor Forward(BlockRecorder& r, const BlockWeights& weights,
                     const sy::Tensor& tokens) const;

  BlockConfig config_;
  std::vector<int64_t> tokens_;
  std::vector<float> wte_, norm1_, wq_, wk_, wv_, wo_, norm2_, w1_, b1_, w2_,
      b2_;
};

}  // namespace sy::cli

#endif  // SWITCHYARD_TOOLS_CLI_TRANSFORMER_BLOCK_H_
