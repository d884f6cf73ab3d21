#include "transformer_block.h"

#include <chrono>
#include <cmath>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"

namespace sy::cli {
namespace {

std::vector<float> Normal(size_t n, float stddev, std::mt19937& rng) {
  std::normal_distribution<float> dist(0.0f, stddev);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

}  // namespace

// Runs ops on one device, recording each (unless plain: then it only calls
// them, so that it can run inside a graph capture and be timed as a whole);
// keeps the first error.
class BlockRecorder {
 public:
  BlockRecorder(const sy::Context& context, const sy::Device& device, bool plain = false)
      : context_(context), device_(device), plain_(plain) {}

  sy::Tensor Upload(const std::vector<float>& values, std::vector<int64_t> shape,
                    sy_dtype_t dtype) {
    if (!status_.ok()) return sy::Tensor();
    sy::Result<sy::Tensor> t = sy::Tensor::FromVector<float>(device_, shape, values);
    if (!t.ok()) {
      status_ = t.status();
      return sy::Tensor();
    }
    return dtype == SY_DTYPE_F32
               ? *std::move(t)
               : Call("cast", {*t}, {sy::Attr::DType(dtype)}, "", false);
  }

  sy::Tensor UploadTokens(const std::vector<int64_t>& tokens) {
    sy::Result<sy::Tensor> t = sy::Tensor::FromVector<int64_t>(
        device_, {static_cast<int64_t>(tokens.size())}, tokens);
    if (!t.ok()) status_ = t.status();
    return t.ok() ? *std::move(t) : sy::Tensor();
  }

  // Calls `op`; records it as "op (label)" unless record is false.
  sy::Tensor Call(const char* op, std::vector<sy::Tensor> inputs,
                  std::vector<sy::Attr> attrs = {}, const char* label = "",
                  bool record = true) {
    if (!status_.ok()) return sy::Tensor();
    const std::string name =
        *label ? absl::StrCat(op, " (", label, ")") : std::string(op);
    sy::Result<sy::Op> handle = context_.op(op);
    if (!handle.ok()) {
      status_ = handle.status();
      return sy::Tensor();
    }
    if (plain_) {
      sy::Result<std::vector<sy::Tensor>> out = handle->call(inputs, attrs);
      if (!out.ok()) {
        status_ = sy::Status(out.status().code(),
                             absl::StrCat("step ", name, ": ", out.status().message()));
        return sy::Tensor();
      }
      return (*out)[0];
    }
    sy::Result<std::string> how = handle->explain(inputs, attrs);
    const auto start = std::chrono::steady_clock::now();
    sy::Result<std::vector<sy::Tensor>> out = handle->call(inputs, attrs);
    sy::Status sync = out.ok() ? device_.synchronize() : out.status();
    const double micros = std::chrono::duration<double, std::micro>(
                              std::chrono::steady_clock::now() - start)
                              .count();
    if (!sync.ok()) {
      status_ = sy::Status(sync.code(), absl::StrCat("step ", name, ": ", sync.message()));
      return sy::Tensor();
    }
    if (record) {
      steps_.push_back({name, how.ok() ? *how : how.status().message(), micros, (*out)[0]});
    }
    return (*out)[0];
  }

  sy::Result<std::vector<BlockStep>> Finish() {
    if (!status_.ok()) return status_;
    return std::move(steps_);
  }
  const sy::Status& status() const { return status_; }

 private:
  const sy::Context& context_;
  sy::Device device_;
  bool plain_;
  sy::Status status_;
  std::vector<BlockStep> steps_;
};

TransformerBlock::TransformerBlock(const BlockConfig& config) : config_(config) {
  std::mt19937 rng(config.seed);
  const int64_t d = config.d_model, f = config.d_ff;
  std::uniform_int_distribution<int64_t> token(0, config.vocab - 1);
  for (int64_t i = 0; i < config.seq; ++i) tokens_.push_back(token(rng));
  const float wd = 1.0f / std::sqrt(static_cast<float>(d));
  wte_ = Normal(config.vocab * d, 1.0f, rng);
  norm1_ = Normal(d, 0.1f, rng);
  for (float& g : norm1_) g += 1.0f;
  wq_ = Normal(d * d, wd, rng);
  wk_ = Normal(d * d, wd, rng);
  wv_ = Normal(d * d, wd, rng);
  wo_ = Normal(d * d, wd, rng);
  norm2_ = Normal(d, 0.1f, rng);
  for (float& g : norm2_) g += 1.0f;
  w1_ = Normal(f * d, wd, rng);
  b1_ = Normal(f, 0.1f, rng);
  w2_ = Normal(d * f, 1.0f / std::sqrt(static_cast<float>(f)), rng);
  b2_ = Normal(d, 0.1f, rng);
}

sy::Result<std::vector<BlockStep>> TransformerBlock::Run(const sy::Context& context,
                                                         const sy::Device& device,
                                                         sy_dtype_t dtype) const {
  BlockRecorder r(context, device);
  const sy::Tensor tokens = r.UploadTokens(tokens_);
  const BlockWeights w = Upload(r, dtype);
  (void)Forward(r, w, tokens);
  return r.Finish();
}

sy::Result<BlockWeights> TransformerBlock::UploadWeights(const sy::Context& context,
                                                         const sy::Device& device,
                                                         sy_dtype_t dtype) const {
  BlockRecorder r(context, device, /*plain=*/true);
  BlockWeights w = Upload(r, dtype);
  w.tokens = r.UploadTokens(tokens_);
  if (!r.status().ok()) return r.status();
  return w;
}

sy::Result<sy::Tensor> TransformerBlock::Forward(const sy::Context& context,
                                                 const sy::Device& device,
                                                 const BlockWeights& weights,
                                                 const sy::Tensor& tokens) const {
  BlockRecorder r(context, device, /*plain=*/true);
  sy::Tensor y = Forward(r, weights, tokens);
  if (!r.status().ok()) return r.status();
  return y;
}

BlockWeights TransformerBlock::Upload(BlockRecorder& r, sy_dtype_t dtype) const {
  const int64_t d = config_.d_model, f = config_.d_ff;
  BlockWeights w;
  w.wte = r.Upload(wte_, {config_.vocab, d}, dtype);
  w.norm1 = r.Upload(norm1_, {d}, dtype);
  w.wq = r.Upload(wq_, {d, d}, dtype);
  w.wk = r.Upload(wk_, {d, d}, dtype);
  w.wv = r.Upload(wv_, {d, d}, dtype);
  w.wo = r.Upload(wo_, {d, d}, dtype);
  w.norm2 = r.Upload(norm2_, {d}, dtype);
  w.w1 = r.Upload(w1_, {f, d}, dtype);
  w.b1 = r.Upload(b1_, {f}, dtype);
  w.w2 = r.Upload(w2_, {d, f}, dtype);
  w.b2 = r.Upload(b2_, {d}, dtype);
  return w;
}

sy::Tensor TransformerBlock::Forward(BlockRecorder& r, const BlockWeights& w,
                                     const sy::Tensor& tokens) const {
  const int64_t s = config_.seq, d = config_.d_model;
  const int64_t h = config_.heads, dh = d / h;
  const sy::Tensor &wte = w.wte, &norm1 = w.norm1, &wq = w.wq, &wk = w.wk, &wv = w.wv,
                   &wo = w.wo, &norm2 = w.norm2, &w1 = w.w1, &b1 = w.b1, &w2 = w.w2,
                   &b2 = w.b2;

  // [S, D] → [H, S, Dh] and back; views except the final reshape's copy.
  const std::vector<int64_t> head_shape = {s, h, dh}, model_shape = {s, d};
  const auto split_heads = [&](const sy::Tensor& x) {
    return r.Call("transpose",
                  {r.Call("reshape", {x}, {sy::Attr(head_shape)}, "", false)},
                  {sy::Attr(0), sy::Attr(1)}, "", false);
  };

  const sy::Tensor x = r.Call("embedding", {wte, tokens});
  const sy::Tensor n1 = r.Call("rms_norm", {x, norm1}, {sy::Attr(1e-6)}, "attention");
  const sy::Tensor q = r.Call("linear", {n1, wq, sy::Tensor()}, {}, "q");
  const sy::Tensor k = r.Call("linear", {n1, wk, sy::Tensor()}, {}, "k");
  const sy::Tensor v = r.Call("linear", {n1, wv, sy::Tensor()}, {}, "v");
  const sy::Tensor heads =
      r.Call("scaled_dot_product_attention",
             {split_heads(q), split_heads(k), split_heads(v), sy::Tensor()},
             {sy::Attr(true)}, "causal");
  const sy::Tensor merged = r.Call(
      "reshape", {r.Call("transpose", {heads}, {sy::Attr(0), sy::Attr(1)}, "", false)},
      {sy::Attr(model_shape)}, "merge heads");
  const sy::Tensor x2 =
      r.Call("add", {x, r.Call("linear", {merged, wo, sy::Tensor()}, {}, "out")}, {},
             "residual");
  const sy::Tensor n2 = r.Call("rms_norm", {x2, norm2}, {sy::Attr(1e-6)}, "mlp");
  const sy::Tensor up = r.Call("gelu", {r.Call("linear", {n2, w1, b1}, {}, "up")});
  return r.Call("add", {x2, r.Call("linear", {up, w2, b2}, {}, "down")}, {}, "residual");
}

}  // namespace sy::cli
