// bench_cuda: what the cuda plugin's ops cost on the GPU, through the whole
// dispatcher and the public API (sy::Op::call_out into preallocated
// outputs), timed with the host clock around `inner` back-to-back calls and
// a device synchronize (the public API has no events; for the large ops
// below the launch cost this adds is well under 1%): warm-up, then the
// median of `repeats` such timings.
//
//   bench_cuda [--repeats=N]      (prints a markdown table; docs/cuda.md)
//
// Rows: the per-call cost of a tiny add (launch- and dispatch-bound); a
// device-to-device copy (the `copy` op: the bandwidth ceiling, counting
// bytes read and written); add, gelu, softmax, rms_norm, layer_norm on 8192×8192 f32 and
// bf16 as GB/s and as a fraction of that copy; GEMMs 4096³ and 8192³ f32
// (full FP32, no TF32) and bf16 in TFLOP/s; conv2d (cuDNN) on ResNet-50's
// shapes at batch 32, f32 (no TF32), f16 and bf16, NCHW and channels-last,
// in TFLOP/s, and its host cost per call; scaled_dot_product_attention on
// Llama-class shapes (the flash and cudnn variants and the default).
// tools/bench/cuda/bench_cuda_torch.py measures the same rows with PyTorch.
//
//   bench_cuda --only=conv2d      (just the conv2d rows)
//   bench_cuda --only=attention   (just the attention rows)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "../bench_util.h"
#include "switchyard/plugin.hpp"
#include "switchyard/switchyard.hpp"

namespace {

int g_repeats = 20;
std::string g_only;  // "", "conv2d", "attention"

// ResNet-50's convolutions at batch 32 (NCHW, no bias: batch norm follows).
struct ConvShape {
  const char* label;
  int64_t c, h, k, kernel, stride, padding;
};
constexpr ConvShape kResnetConvs[] = {
    {"conv1 3->64 7x7 s2, 224^2", 3, 224, 64, 7, 2, 3},
    {"64->64 3x3, 56^2", 64, 56, 64, 3, 1, 1},
    {"1x1 256->64, 56^2", 256, 56, 64, 1, 1, 0},
    {"128->128 3x3, 28^2", 128, 28, 128, 3, 1, 1},
    {"256->256 3x3, 14^2", 256, 14, 256, 3, 1, 1},
    {"512->512 3x3, 7^2", 512, 7, 512, 3, 1, 1},
};

using sy::bench::Must;

class Bench {
 public:
  Bench()
      : context_(Context()),
        dev_(Must(context_.device("cuda:0"), "cuda:0")),
        info_(Must(dev_.info(), "cuda:0")) {}
  const sy::Context& context() const { return context_; }
  const sy::Device& dev() const { return dev_; }
  const sy::DeviceInfo& props() const { return info_; }
  sy::Op Op(const char* name) const { return Must(context_.op(name), name); }

  sy::Tensor Random(sy_dtype_t dtype, std::vector<int64_t> shape, uint32_t seed,
                    float lo = -2, float hi = 2) {
    const int64_t n = sy::bench::Numel(shape);
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    if (dtype == SY_DTYPE_F32) {
      std::vector<float> v(n);
      for (float& x : v) x = dist(gen);
      return Must(sy::Tensor::FromHost(dev_, dtype, shape, v.data(), n * 4), "upload");
    }
    if (dtype == SY_DTYPE_F16) {
      std::vector<sy::plugin::Half> v(n);
      for (auto& x : v) x = sy::plugin::Half(dist(gen));
      return Must(sy::Tensor::FromHost(dev_, dtype, shape, v.data(), n * 2), "upload");
    }
    std::vector<sy::plugin::BFloat16> v(n);
    for (auto& x : v) x = sy::plugin::BFloat16(dist(gen));
    return Must(sy::Tensor::FromHost(dev_, dtype, shape, v.data(), n * 2), "upload");
  }
  sy::Tensor Empty(sy_dtype_t dtype, std::vector<int64_t> shape) {
    return Must(sy::Tensor::Empty(dev_, dtype, shape), "empty");
  }

  // Median milliseconds per call of `fn`, timed in groups of `inner`
  // followed by a synchronize.
  double TimeMs(const std::function<void()>& fn, int inner) {
    for (int i = 0; i < 3; ++i) fn();
    Must(dev_.synchronize(), "sync");
    std::vector<double> ms;
    for (int r = 0; r < g_repeats; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < inner; ++i) fn();
      Must(dev_.synchronize(), "sync");
      const auto t1 = std::chrono::steady_clock::now();
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count() / inner);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  }

  // Median host microseconds per call over `calls` calls (then a sync).
  double HostUsPerCall(const std::function<void()>& fn, int calls) {
    return TimeMs(fn, calls) * 1000;
  }

  // Median host microseconds to enqueue one call of `fn` (the host's own
  // cost: no synchronization inside the timed loop of `calls` calls, few
  // enough that the device's launch queue never fills).
  double HostEnqueueUs(const std::function<void()>& fn, int calls) {
    for (int i = 0; i < 20; ++i) fn();
    std::vector<double> us;
    for (int r = 0; r < g_repeats; ++r) {
      Must(dev_.synchronize(), "sync");
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < calls; ++i) fn();
      const auto t1 = std::chrono::steady_clock::now();
      us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
    }
    Must(dev_.synchronize(), "sync");
    std::sort(us.begin(), us.end());
    return us[us.size() / 2];
  }

 private:
  static sy::Context Context() {
    sy::ContextOptions options;
    options.use_environment = false;
    options.use_default_path = false;
    options.plugin_manifests = {std::string(SWITCHYARD_PLUGIN_DIR) + "/cpu.json",
                                std::string(SWITCHYARD_PLUGIN_DIR) + "/cuda.json"};
    return Must(sy::Context::Create(options), "context");
  }
  sy::Context context_;
  sy::Device dev_;
  sy::DeviceInfo info_;
};

const char* Name(sy_dtype_t d) {
  return d == SY_DTYPE_F32 ? "f32" : d == SY_DTYPE_F16 ? "f16" : "bf16";
}

sy::Tensor Permute(const Bench& b, const sy::Tensor& t, std::vector<int64_t> dims) {
  const sy::Tensor inputs[1] = {t};
  const sy::Attr attrs[1] = {sy::Attr(dims)};
  return Must(b.Op("permute").call1(inputs, attrs), "permute");
}

// ResNet-50's convolutions at N = 32 in f32 (no TF32), f16 and bf16, NCHW
// and channels-last (x, weight and output NHWC, as PyTorch's
// channels_last), plus the host's cost of one call.
void ConvRows(Bench& b) {
  const sy::Op conv = b.Op("conv2d");
  for (bool nhwc : {false, true}) {
    for (sy_dtype_t dtype : {SY_DTYPE_F32, SY_DTYPE_F16, SY_DTYPE_BF16}) {
      for (const ConvShape& s : kResnetConvs) {
        const int64_t n = 32;
        const int64_t oh = (s.h + 2 * s.padding - s.kernel) / s.stride + 1;
        sy::Tensor x, w, out;
        if (nhwc) {
          x = Permute(b, b.Random(dtype, {n, s.h, s.h, s.c}, 10), {0, 3, 1, 2});
          w = Permute(b, b.Random(dtype, {s.k, s.kernel, s.kernel, s.c}, 11, -0.1f, 0.1f),
                      {0, 3, 1, 2});
          out = Permute(b, b.Empty(dtype, {n, oh, oh, s.k}), {0, 3, 1, 2});
        } else {
          x = b.Random(dtype, {n, s.c, s.h, s.h}, 10);
          w = b.Random(dtype, {s.k, s.c, s.kernel, s.kernel}, 11, -0.1f, 0.1f);
          out = b.Empty(dtype, {n, s.k, oh, oh});
        }
        const sy::Tensor outs[1] = {out};
        const std::vector<sy::Tensor> ins = {x, w, sy::Tensor()};
        // Attrs borrow their lists: these outlive the calls.
        const int64_t stride[2] = {s.stride, s.stride};
        const int64_t padding[2] = {s.padding, s.padding};
        const int64_t dilation[2] = {1, 1};
        const std::vector<sy::Attr> attrs = {
            sy::Attr(std::span<const int64_t>(stride)), sy::Attr(std::span<const int64_t>(padding)),
            sy::Attr(std::span<const int64_t>(dilation)), sy::Attr(int64_t{1})};
        const double ms =
            b.TimeMs([&] { Must(conv.call_out(ins, attrs, outs), "conv2d"); }, 10);
        const double flops = 2.0 * n * s.k * oh * oh * s.c * s.kernel * s.kernel;
        std::printf("| conv2d %s | N=32 %s | %s | %.3f ms | %.1f TFLOP/s | |\n",
                    nhwc ? "NHWC" : "NCHW", s.label, Name(dtype), ms,
                    flops / (ms * 1e-3) / 1e12);
      }
    }
  }
  // The host's cost of one call: a convolution small enough that the GPU
  // keeps up (N=1, 64->64 3x3 at 8^2), timed on the host clock.
  for (sy_dtype_t dtype : {SY_DTYPE_F32, SY_DTYPE_BF16}) {
    sy::Tensor x = b.Random(dtype, {1, 64, 8, 8}, 12);
    sy::Tensor w = b.Random(dtype, {64, 64, 3, 3}, 13, -0.1f, 0.1f);
    sy::Tensor out = b.Empty(dtype, {1, 64, 8, 8});
    const sy::Tensor outs[1] = {out};
    const std::vector<sy::Tensor> ins = {x, w, sy::Tensor()};
    const int64_t one[2] = {1, 1};
    const std::vector<sy::Attr> attrs = {
        sy::Attr(std::span<const int64_t>(one)), sy::Attr(std::span<const int64_t>(one)),
        sy::Attr(std::span<const int64_t>(one)), sy::Attr(int64_t{1})};
    const auto call = [&] { Must(conv.call_out(ins, attrs, outs), "conv2d"); };
    const double us = b.HostUsPerCall(call, 200);
    const double enqueue_us = b.HostEnqueueUs(call, 100);
    std::printf("| conv2d (per call incl. sync, host clock) | N=1 64->64 3x3, 8^2 | %s | %.1f us | | |\n",
                Name(dtype), us);
    std::printf("| conv2d (host time to enqueue one call) | N=1 64->64 3x3, 8^2 | %s | %.1f us | | |\n",
                Name(dtype), enqueue_us);
  }
}

// One attention call through a named kernel variant (-2: the dispatcher's
// choice).
sy::Status Sdpa(const sy::Op& op, const std::vector<sy::Tensor>& in, const sy::Tensor& out,
                bool causal, const std::string& kernel, int variant) {
  const sy::Tensor ins[4] = {in[0], in[1], in[2], sy::Tensor()};
  const sy::Tensor outs[1] = {out};
  const sy::Attr attrs[2] = {sy::Attr(causal), sy::Attr()};
  const sy::Route route =
      variant >= -1 ? sy::Route::Kernel(kernel, variant) : sy::Route::Default();
  return op.call_out(ins, attrs, outs, route);
}

// scaled_dot_product_attention on Llama-class shapes, bf16 and f16, causal
// and not: the plugin's flash kernel (64- and 128-row tiles), cuDNN's
// fused attention, and the dispatcher's default, in TFLOP/s (4·B·H·Lq·Lk·E flops, halved when
// causal, as FlashAttention counts).
void AttentionRows(Bench& b) {
  const sy::Op op = b.Op("scaled_dot_product_attention");
  struct Shape {
    int64_t batch, heads, len, dim;
  };
  constexpr Shape kShapes[] = {
      {16, 16, 512, 64}, {4, 16, 2048, 64}, {8, 32, 1024, 128}, {2, 32, 4096, 128},
      {1, 32, 8192, 128},
  };
  for (sy_dtype_t dtype : {SY_DTYPE_BF16, SY_DTYPE_F16}) {
    const std::string d = Name(dtype);
    const std::string kernel = "cuda::scaled_dot_product_attention." + d + "." + d + "." + d + ".none";
    for (const Shape& s : kShapes) {
      const std::vector<int64_t> shape = {s.batch, s.heads, s.len, s.dim};
      const std::vector<sy::Tensor> in = {b.Random(dtype, shape, 20, -1, 1),
                                               b.Random(dtype, shape, 21, -1, 1),
                                               b.Random(dtype, shape, 22, -1, 1)};
      sy::Tensor out = b.Empty(dtype, shape);
      for (bool causal : {false, true}) {
        const double flops = 4.0 * s.batch * s.heads * s.len * s.len * s.dim / (causal ? 2 : 1);
        // The dispatcher's choice first, as bench_cuda_torch.py times
        // PyTorch's default first. On the H200, of the default and the
        // cudnn variant (the same kernel at L >= 4096), whichever was timed
        // second read 5–15 % slower there, in either order (docs/
        // performance.md, 2026-11-28 (fifth)).
        for (int variant : {-2, 1, 0, 2}) {
          const char* label = variant == 0   ? "flash"
                              : variant == 2 ? "flash_wide"
                              : variant == 1 ? "cudnn"
                                             : "default";
          sy::Status first = Sdpa(op, in, out, causal, kernel, variant);
          if (!first.ok()) {
            std::printf("| sdpa %s | B=%lld H=%lld L=%lld E=%lld%s | %s | n/a | %s | |\n", label,
                        static_cast<long long>(s.batch), static_cast<long long>(s.heads),
                        static_cast<long long>(s.len), static_cast<long long>(s.dim),
                        causal ? " causal" : "", d.c_str(),
                        first.message().substr(0, 160).c_str());
            continue;
          }
          const double ms = b.TimeMs(
              [&] { Must(Sdpa(op, in, out, causal, kernel, variant), "sdpa"); },
              s.len >= 4096 ? 3 : 10);
          std::printf("| sdpa %s | B=%lld H=%lld L=%lld E=%lld%s | %s | %.3f ms | %.1f TFLOP/s | |\n",
                      label, static_cast<long long>(s.batch), static_cast<long long>(s.heads),
                      static_cast<long long>(s.len), static_cast<long long>(s.dim),
                      causal ? " causal" : "", d.c_str(), ms, flops / (ms * 1e-3) / 1e12);
        }
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // lines survive a timeout
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--repeats=", 10) == 0) g_repeats = std::atoi(argv[i] + 10);
    if (std::strncmp(argv[i], "--only=", 7) == 0) g_only = argv[i] + 7;
  }
  Bench b;
  std::printf("device: %s (%s), %d SMs\n", b.props().name.c_str(),
              b.props().driver_version.c_str(), b.props().compute_units);
  for (const sy::LoadRecord& r : Must(b.context().load_records(), "records")) {
    if (r.name != "cuda") continue;
    for (const std::string& note : r.notes) std::printf("cuda load: %s\n", note.c_str());
  }
  std::printf("| op | shape | dtype | median | rate | vs D2D copy |\n");
  std::printf("|---|---|---|---|---|---|\n");

  // Tiny add: the cost of one dispatch + launch.
  if (g_only.empty()) {
    sy::Tensor x = b.Random(SY_DTYPE_F32, {16}, 1);
    sy::Tensor y = b.Random(SY_DTYPE_F32, {16}, 2);
    sy::Tensor out = b.Empty(SY_DTYPE_F32, {16});
    const sy::Op add = b.Op("add");
    const sy::Tensor outs[1] = {out};
    const std::vector<sy::Tensor> ins = {x, y};
    auto call = [&] { Must(add.call_out(ins, {}, outs), "add"); };
    const double host_us = b.HostUsPerCall(call, 2000);
    std::printf("| add (tiny, per call, host clock) | [16] | f32 | %.2f us | | |\n", host_us);
  }

  const int64_t R = 8192, C = 8192;
  if (g_only.empty()) {
  const size_t f32_bytes = static_cast<size_t>(R * C) * 4;
  double copy_gbs = 0;
  {
    sy::Tensor a = b.Random(SY_DTYPE_F32, {R, C}, 3);
    sy::Tensor c = b.Empty(SY_DTYPE_F32, {R, C});
    const sy::Op copy = b.Op("copy");
    const sy::Tensor ins[1] = {a};
    const sy::Tensor outs[1] = {c};
    const double ms = b.TimeMs([&] { Must(copy.call_out(ins, {}, outs), "copy"); }, 10);
    copy_gbs = 2.0 * f32_bytes / (ms * 1e-3) / 1e9;
    std::printf("| D2D copy (the copy op) | 8192x8192 | f32 | %.3f ms | %.0f GB/s | 1.00 |\n",
                ms, copy_gbs);
  }

  for (sy_dtype_t dtype : {SY_DTYPE_F32, SY_DTYPE_BF16}) {
    const double bytes = static_cast<double>(R * C) * (dtype == SY_DTYPE_F32 ? 4 : 2);
    sy::Tensor x = b.Random(dtype, {R, C}, 4);
    sy::Tensor y = b.Random(dtype, {R, C}, 5);
    sy::Tensor w = b.Random(dtype, {C}, 6, 0.5f, 1.5f);
    sy::Tensor bias = b.Random(dtype, {C}, 7);
    sy::Tensor out = b.Empty(dtype, {R, C});
    const sy::Tensor outs[1] = {out};
    struct Row {
      const char* op;
      std::vector<sy::Tensor> in;
      std::vector<sy::Attr> attrs;
      double passes;  // tensor-sized reads + writes
    };
    const int64_t norm_shape[1] = {C};
    std::vector<Row> rows = {
        {"add", {x, y}, {}, 3},
        {"gelu", {x}, {}, 2},
        {"softmax", {x}, {}, 2},
        {"rms_norm", {x, w}, {}, 2},
        {"layer_norm", {x, w, bias}, {sy::Attr(std::span<const int64_t>(norm_shape))}, 2},
    };
    for (const Row& row : rows) {
      const sy::Op op = b.Op(row.op);
      const double ms =
          b.TimeMs([&] { Must(op.call_out(row.in, row.attrs, outs), row.op); }, 10);
      const double gbs = row.passes * bytes / (ms * 1e-3) / 1e9;
      std::printf("| %s | 8192x8192 | %s | %.3f ms | %.0f GB/s | %.2f |\n", row.op,
                  Name(dtype), ms, gbs, gbs / copy_gbs);
    }
  }

  for (sy_dtype_t dtype : {SY_DTYPE_F32, SY_DTYPE_BF16}) {
    for (int64_t n : {4096, 8192}) {
      sy::Tensor a = b.Random(dtype, {n, n}, 8);
      sy::Tensor c = b.Random(dtype, {n, n}, 9);
      sy::Tensor out = b.Empty(dtype, {n, n});
      const sy::Tensor outs[1] = {out};
      const std::vector<sy::Tensor> ins = {a, c};
      const sy::Op mm = b.Op("matmul");
      const int inner = dtype == SY_DTYPE_F32 && n == 8192 ? 2 : 5;
      const double ms = b.TimeMs([&] { Must(mm.call_out(ins, {}, outs), "matmul"); }, inner);
      const double tflops = 2.0 * n * n * n / (ms * 1e-3) / 1e12;
      std::printf("| matmul | %lldx%lldx%lld | %s | %.3f ms | %.1f TFLOP/s | |\n",
                  static_cast<long long>(n), static_cast<long long>(n),
                  static_cast<long long>(n), Name(dtype), ms, tflops);
    }
  }
  }

  if (g_only.empty() || g_only == "conv2d") ConvRows(b);
  if (g_only.empty() || g_only == "attention") AttentionRows(b);
  return 0;
}
