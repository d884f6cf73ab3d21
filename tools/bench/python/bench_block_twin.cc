// bench_block_twin: the transformer block of bench_python.py, op for op and
// in the same order, called from C++ straight through the C API
// (sy_op_call, as the Python binding calls it), over the default plugin
// set. bench_python.py runs it in the same session and subtracts: what the
// block costs to issue from Python minus what the same calls cost from C
// is the binding's own overhead (docs/performance.md, "Python per-call
// cost").
//
// Timing is bench_python.py's: 7 loops of --blocks blocks, host time to
// issue them ("issue"), then one synchronize ("streamed"); and 21 blocks
// issued one at a time with the device idle before each ("idle issue": no
// queue effects). Medians, µs per block. Weights are random (values do not
// change the time).
//
//   bench_block_twin --device=cuda:0 --seq=1024 --d_model=1024 --heads=16
//                    --d_ff=4096 --vocab=32000 --blocks=20
// prints "issue_us=<x> streamed_us=<y> idle_issue_us=<z>" on its last line.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../bench_util.h"
#include "switchyard/switchyard.hpp"

namespace {

using sy::Attr;
using sy::Tensor;
using sy::bench::Must;

struct Config {
  std::string device = "cpu";
  int64_t seq = 32, d = 128, heads = 4, d_ff = 512, vocab = 512;
  int blocks = 200;
};

// One op, called as the binding calls it: one sy_op_call, a new output.
class Step {
 public:
  Step(const sy::Context& context, const char* name)
      : name_(name), op_(Must(context.op(name), name)) {}

  Tensor operator()(std::initializer_list<sy_tensor_t> inputs,
                    std::initializer_list<Attr> attrs = {}) const {
    sy_tensor_t out = nullptr;
    const sy_status_code_t code = sy_op_call(
        op_.get(), inputs.begin(), static_cast<int32_t>(inputs.size()), attrs.begin(),
        static_cast<int32_t>(attrs.size()), &out, 1);
    if (code != SY_STATUS_OK) sy::bench::Die(name_, sy::Status::FromCode(code));
    return Tensor::Adopt(out);
  }

 private:
  const char* name_;
  sy::Op op_;
};

class Block {
 public:
  Block(const sy::Context& context, const sy::Device& dev, const Config& c)
      : c_(c),
        embedding_(context, "embedding"),
        rms_norm_(context, "rms_norm"),
        linear_(context, "linear"),
        reshape_(context, "reshape"),
        transpose_(context, "transpose"),
        attention_(context, "scaled_dot_product_attention"),
        add_(context, "add"),
        gelu_(context, "gelu") {
    const float wd = 1.0f / static_cast<float>(c.d);
    const float wf = 1.0f / static_cast<float>(c.d_ff);
    uint32_t seed = 2026;
    auto random = [&](std::vector<int64_t> shape, float lo, float hi) {
      return sy::bench::RandomF32(dev, shape, seed++, lo, hi);
    };
    std::vector<int64_t> tokens(static_cast<size_t>(c.seq));
    for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = (i * 7919) % c.vocab;
    tokens_ = Must(Tensor::FromVector<int64_t>(dev, {c.seq}, tokens), "tokens");
    wte_ = random({c.vocab, c.d}, -1, 1);
    norm1_ = random({c.d}, 0.9f, 1.1f);
    norm2_ = random({c.d}, 0.9f, 1.1f);
    wq_ = random({c.d, c.d}, -wd, wd);
    wk_ = random({c.d, c.d}, -wd, wd);
    wv_ = random({c.d, c.d}, -wd, wd);
    wo_ = random({c.d, c.d}, -wd, wd);
    w1_ = random({c.d_ff, c.d}, -wd, wd);
    b1_ = random({c.d_ff}, -0.1f, 0.1f);
    w2_ = random({c.d, c.d_ff}, -wf, wf);
    b2_ = random({c.d}, -0.1f, 0.1f);
  }

  // bench_python.py's switchyard_steps, in order.
  Tensor Run() const {
    const double eps = 1e-6;
    const int64_t dh = c_.d / c_.heads;
    const std::vector<int64_t> split = {c_.seq, c_.heads, dh};
    const std::vector<int64_t> merged = {c_.seq, c_.d};
    auto heads = [&](const Tensor& t) {
      Tensor r = reshape_({t.get()}, {Attr(split)});
      return transpose_({r.get()}, {Attr(int64_t{0}), Attr(int64_t{1})});
    };
    Tensor x = embedding_({wte_.get(), tokens_.get()});
    Tensor n1 = rms_norm_({x.get(), norm1_.get()}, {Attr(eps)});
    Tensor q = linear_({n1.get(), wq_.get(), nullptr});
    Tensor k = linear_({n1.get(), wk_.get(), nullptr});
    Tensor v = linear_({n1.get(), wv_.get(), nullptr});
    Tensor qh = heads(q), kh = heads(k), vh = heads(v);
    Tensor a = attention_({qh.get(), kh.get(), vh.get(), nullptr}, {Attr(true), Attr()});
    Tensor at = transpose_({a.get()}, {Attr(int64_t{0}), Attr(int64_t{1})});
    Tensor m = reshape_({at.get()}, {Attr(merged)});
    Tensor o = linear_({m.get(), wo_.get(), nullptr});
    Tensor x2 = add_({x.get(), o.get()});
    Tensor n2 = rms_norm_({x2.get(), norm2_.get()}, {Attr(eps)});
    Tensor u = linear_({n2.get(), w1_.get(), b1_.get()});
    Tensor g = gelu_({u.get()});
    Tensor dn = linear_({g.get(), w2_.get(), b2_.get()});
    return add_({x2.get(), dn.get()});
  }

 private:
  Config c_;
  Step embedding_, rms_norm_, linear_, reshape_, transpose_, attention_, add_, gelu_;
  Tensor tokens_, wte_, norm1_, norm2_, wq_, wk_, wv_, wo_, w1_, b1_, w2_, b2_;
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

bool Flag(const char* arg, const char* name, std::string* value) {
  const size_t n = std::strlen(name);
  if (std::strncmp(arg, name, n) != 0 || arg[n] != '=') return false;
  *value = arg + n + 1;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  Config c;
  for (int i = 1; i < argc; ++i) {
    std::string v;
    if (Flag(argv[i], "--device", &v)) c.device = v;
    else if (Flag(argv[i], "--seq", &v)) c.seq = std::atoll(v.c_str());
    else if (Flag(argv[i], "--d_model", &v)) c.d = std::atoll(v.c_str());
    else if (Flag(argv[i], "--heads", &v)) c.heads = std::atoll(v.c_str());
    else if (Flag(argv[i], "--d_ff", &v)) c.d_ff = std::atoll(v.c_str());
    else if (Flag(argv[i], "--vocab", &v)) c.vocab = std::atoll(v.c_str());
    else if (Flag(argv[i], "--blocks", &v)) c.blocks = std::atoi(v.c_str());
    else {
      std::fprintf(stderr, "bench_block_twin: unknown argument '%s'\n", argv[i]);
      return 2;
    }
  }
  const sy::Context context = sy::bench::DefaultContext();
  const sy::Device dev = Must(context.device(c.device), c.device);
  Block block(context, dev, c);
  using Clock = std::chrono::steady_clock;
  auto us = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::micro>(b - a).count();
  };
  Tensor y = block.Run();
  Must(dev.synchronize(), "synchronize");
  std::vector<double> issue, streamed;
  for (int r = 0; r < 7; ++r) {
    const auto start = Clock::now();
    for (int b = 0; b < c.blocks; ++b) y = block.Run();
    const auto issued = Clock::now();
    Must(dev.synchronize(), "synchronize");
    const auto end = Clock::now();
    issue.push_back(us(start, issued) / c.blocks);
    streamed.push_back(us(start, end) / c.blocks);
  }
  std::vector<double> idle_issue;
  for (int r = 0; r < 21; ++r) {
    Must(dev.synchronize(), "synchronize");
    const auto start = Clock::now();
    y = block.Run();
    idle_issue.push_back(us(start, Clock::now()));
  }
  Must(dev.synchronize(), "synchronize");
  std::printf("issue_us=%.2f streamed_us=%.2f idle_issue_us=%.2f\n", Median(issue),
              Median(streamed), Median(idle_issue));
  return 0;
}
