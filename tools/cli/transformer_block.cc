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

// Runs ops on one device, recording each; keeps the first error.
class Recorder {
 public:
  Recorder(Runtime& runtime, Device& device)
      : runtime_(runtime), device_(device) {}

  Tensor Upload(const std::vector<float>& values, std::vector<int64_t> shape,
                sy_dtype_t dtype) {
    if (!status_.ok()) return Tensor();
    absl::StatusOr<Tensor> t = runtime_.FromHost(
        device_, SY_DTYPE_F32, shape, values.data(), values.size() * 4);
    if (!t.ok()) {
      status_ = t.status();
      return Tensor();
    }
    return dtype == SY_DTYPE_F32 ? *t : Call("cast", {*t}, {Attr::DType(dtype)}, "", false);
  }

  Tensor UploadTokens(const std::vector<int64_t>& tokens) {
    absl::StatusOr<Tensor> t =
        runtime_.FromHost(device_, SY_DTYPE_I64, {int64_t(tokens.size())},
                          tokens.data(), tokens.size() * 8);
    if (!t.ok()) status_ = t.status();
    return t.ok() ? *t : Tensor();
  }

  // Calls `op`; records it as "op (label)" unless record is false.
  Tensor Call(const char* op, std::vector<Tensor> inputs,
              std::vector<Attr> attrs = {}, const char* label = "",
              bool record = true) {
    if (!status_.ok()) return Tensor();
    const std::string name =
        *label ? absl::StrCat(op, " (", label, ")") : std::string(op);
    absl::StatusOr<OpHandle> handle = runtime_.FindOp(op);
    if (!handle.ok()) {
      status_ = handle.status();
      return Tensor();
    }
    absl::StatusOr<std::string> how = runtime_.Explain(*handle, inputs, attrs);
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<std::vector<Tensor>> out =
        runtime_.Call(*handle, inputs, attrs);
    absl::Status sync = out.ok() ? runtime_.Synchronize(device_) : out.status();
    const double micros = std::chrono::duration<double, std::micro>(
                              std::chrono::steady_clock::now() - start)
                              .count();
    if (!sync.ok()) {
      status_ = absl::Status(sync.code(),
                             absl::StrCat("step ", name, ": ", sync.message()));
      return Tensor();
    }
    if (record) {
      steps_.push_back({name, how.ok() ? *how : std::string(how.status().message()),
                        micros, (*out)[0]});
    }
    return (*out)[0];
  }

  absl::StatusOr<std::vector<BlockStep>> Finish() {
    if (!status_.ok()) return status_;
    return std::move(steps_);
  }

 private:
  Runtime& runtime_;
  Device& device_;
  absl::Status status_;
  std::vector<BlockStep> steps_;
};

}  // namespace

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

absl::StatusOr<std::vector<BlockStep>> TransformerBlock::Run(
    Runtime& runtime, Device& device, sy_dtype_t dtype) const {
  const int64_t s = config_.seq, d = config_.d_model, f = config_.d_ff;
  const int64_t h = config_.heads, dh = d / h;
  Recorder r(runtime, device);
  const Tensor tokens = r.UploadTokens(tokens_);
  const Tensor wte = r.Upload(wte_, {config_.vocab, d}, dtype);
  const Tensor norm1 = r.Upload(norm1_, {d}, dtype);
  const Tensor wq = r.Upload(wq_, {d, d}, dtype), wk = r.Upload(wk_, {d, d}, dtype),
               wv = r.Upload(wv_, {d, d}, dtype), wo = r.Upload(wo_, {d, d}, dtype);
  const Tensor norm2 = r.Upload(norm2_, {d}, dtype);
  const Tensor w1 = r.Upload(w1_, {f, d}, dtype), b1 = r.Upload(b1_, {f}, dtype);
  const Tensor w2 = r.Upload(w2_, {d, f}, dtype), b2 = r.Upload(b2_, {d}, dtype);

  // [S, D] → [H, S, Dh] and back; views except the final reshape's copy.
  const auto split_heads = [&](const Tensor& x) {
    return r.Call("transpose", {r.Call("reshape", {x}, {Attr({s, h, dh})}, "", false)},
                  {Attr(0), Attr(1)}, "", false);
  };

  const Tensor x = r.Call("embedding", {wte, tokens});
  const Tensor n1 = r.Call("rms_norm", {x, norm1}, {Attr(1e-6)}, "attention");
  const Tensor q = r.Call("linear", {n1, wq, Tensor()}, {}, "q");
  const Tensor k = r.Call("linear", {n1, wk, Tensor()}, {}, "k");
  const Tensor v = r.Call("linear", {n1, wv, Tensor()}, {}, "v");
  const Tensor heads = r.Call("scaled_dot_product_attention",
                              {split_heads(q), split_heads(k), split_heads(v), Tensor()},
                              {Attr(true)}, "causal");
  const Tensor merged = r.Call(
      "reshape", {r.Call("transpose", {heads}, {Attr(0), Attr(1)}, "", false)},
      {Attr({s, d})}, "merge heads");
  const Tensor x2 = r.Call("add", {x, r.Call("linear", {merged, wo, Tensor()}, {}, "out")},
                           {}, "residual");
  const Tensor n2 = r.Call("rms_norm", {x2, norm2}, {Attr(1e-6)}, "mlp");
  const Tensor up = r.Call("gelu", {r.Call("linear", {n2, w1, b1}, {}, "up")});
  const Tensor y = r.Call("add", {x2, r.Call("linear", {up, w2, b2}, {}, "down")},
                          {}, "residual");
  (void)y;
  return r.Finish();
}

}  // namespace sy::cli
