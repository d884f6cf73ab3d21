#include "onednn_test_util.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

#include "switchyard/plugin.hpp"

namespace sy::onednn_test {
namespace {

struct Shared {
  std::unique_ptr<Runtime> runtime;
  Device* cpu = nullptr;
};

Shared& Get() {
  static Shared* const shared = [] {
    auto* s = new Shared;
    RuntimeOptions options;
    options.loader.use_environment = false;
    options.loader.use_default_path = false;
    options.loader.search_paths = {
        std::string(SWITCHYARD_PLUGIN_DIR) + "/cpu.json",
        std::string(SWITCHYARD_PLUGIN_DIR) + "/onednn.json"};
    // Every onednn kernel takes every call: the tests check its kernels,
    // and selection_test checks declining with a runtime of its own.
    options.loader.plugin_options = {"onednn.min_elements=1",
                                     "onednn.min_matmul_flops=1"};
    auto runtime = Runtime::Create(options);
    if (!runtime.ok()) {
      std::cerr << "cannot create the runtime: " << runtime.status() << "\n";
      std::abort();
    }
    s->runtime = std::move(runtime).value();
    s->cpu = s->runtime->GetDevice("cpu").value();
    return s;
  }();
  return *shared;
}

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t s = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = s;
    s *= shape[d];
  }
  return strides;
}

// Bytes of `values` in `dtype`.
std::vector<char> ToBytes(sy_dtype_t dtype, const std::vector<double>& values) {
  std::vector<char> bytes;
  if (dtype == SY_DTYPE_BF16) {
    bytes.resize(values.size() * 2);
    auto* p = reinterpret_cast<plugin::BFloat16*>(bytes.data());
    for (size_t i = 0; i < values.size(); ++i) {
      p[i] = plugin::BFloat16(static_cast<float>(values[i]));
    }
  } else {
    bytes.resize(values.size() * 4);
    auto* p = reinterpret_cast<float*>(bytes.data());
    for (size_t i = 0; i < values.size(); ++i) p[i] = static_cast<float>(values[i]);
  }
  return bytes;
}

Tensor UploadValues(sy_dtype_t dtype, const std::vector<int64_t>& shape,
                    const std::vector<double>& values) {
  const std::vector<char> bytes = ToBytes(dtype, values);
  auto t = TestRuntime().FromHost(Cpu(), dtype, shape, bytes.data(), bytes.size());
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : Tensor();
}

}  // namespace

int64_t HostTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Runtime& TestRuntime() { return *Get().runtime; }
Device& Cpu() { return *Get().cpu; }

OpHandle Op(const char* name) {
  auto op = TestRuntime().FindOp(name);
  EXPECT_TRUE(op.ok()) << op.status();
  return op.ok() ? *op : OpHandle();
}

bool ExpectBf16Kernels() {
  const char* cap = std::getenv("DNNL_MAX_CPU_ISA");
  if (cap == nullptr) cap = std::getenv("ONEDNN_MAX_CPU_ISA");
  if (cap != nullptr && *cap != '\0') {
    const std::string c(cap);
    if (c != "ALL" && c.find("BF16") == std::string::npos &&
        c.find("AMX") == std::string::npos) {
      return false;
    }
  }
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) == 0) {
      return line.find(" avx512_bf16") != std::string::npos ||
             line.find(" amx_bf16") != std::string::npos;
    }
  }
  return false;
}

uint32_t Seed() {
  static const uint32_t seed = [] {
    const char* env = std::getenv("SWITCHYARD_ONEDNN_TEST_SEED");
    const uint32_t s = env != nullptr ? static_cast<uint32_t>(std::strtoul(env, nullptr, 0))
                                      : std::random_device{}();
    std::cerr << "onednn tests: SWITCHYARD_ONEDNN_TEST_SEED=" << s << "\n";
    return s;
  }();
  return seed;
}

double RoundTo(sy_dtype_t dtype, double value) {
  const float f = static_cast<float>(value);
  if (dtype == SY_DTYPE_BF16) return static_cast<float>(plugin::BFloat16(f));
  return f;
}

HostTensor Random(std::mt19937& gen, sy_dtype_t dtype,
                  std::vector<int64_t> shape, double lo, double hi) {
  HostTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  std::uniform_real_distribution<double> dist(lo, hi);
  t.values.resize(static_cast<size_t>(t.numel()));
  for (double& v : t.values) v = RoundTo(dtype, dist(gen));
  return t;
}

Tensor Upload(const HostTensor& host) {
  return UploadValues(host.dtype, host.shape, host.values);
}

HostTensor Download(const Tensor& tensor) {
  HostTensor host;
  host.dtype = tensor.dtype();
  host.shape.assign(tensor.shape().begin(), tensor.shape().end());
  std::vector<char> bytes(tensor.nbytes());
  const absl::Status status = TestRuntime().ToHost(tensor, bytes.data(), bytes.size());
  EXPECT_TRUE(status.ok()) << status;
  host.values.resize(static_cast<size_t>(host.numel()));
  for (size_t i = 0; i < host.values.size(); ++i) {
    if (host.dtype == SY_DTYPE_BF16) {
      host.values[i] = static_cast<float>(reinterpret_cast<const plugin::BFloat16*>(bytes.data())[i]);
    } else {
      host.values[i] = reinterpret_cast<const float*>(bytes.data())[i];
    }
  }
  return host;
}

Tensor UploadTransposed(const HostTensor& host) {
  const int r = static_cast<int>(host.shape.size());
  std::vector<int64_t> reversed(host.shape.rbegin(), host.shape.rend());
  const std::vector<int64_t> src_strides = RowMajorStrides(host.shape);
  const std::vector<int64_t> dst_strides = RowMajorStrides(reversed);
  std::vector<double> values(host.values.size());
  for (int64_t i = 0; i < host.numel(); ++i) {
    int64_t rest = i, dst = 0;
    for (int d = 0; d < r; ++d) {
      const int64_t idx = rest / src_strides[d];
      rest %= src_strides[d];
      dst += idx * dst_strides[r - 1 - d];
    }
    values[static_cast<size_t>(dst)] = host.values[static_cast<size_t>(i)];
  }
  Tensor t = UploadValues(host.dtype, reversed, values);
  std::vector<int64_t> perm(static_cast<size_t>(r));
  for (int d = 0; d < r; ++d) perm[static_cast<size_t>(d)] = r - 1 - d;
  return CallOne("permute", {t}, {Attr(absl::Span<const int64_t>(perm))});
}

Tensor UploadStrided(const HostTensor& host) {
  std::vector<int64_t> padded = host.shape;
  const int64_t n = padded.back();
  padded.back() = 2 * n + 1;
  const int64_t rows = host.numel() / std::max<int64_t>(n, 1);
  std::vector<double> values(static_cast<size_t>(rows * (2 * n + 1)),
                             std::numeric_limits<double>::quiet_NaN());
  for (int64_t row = 0; row < rows; ++row) {
    for (int64_t i = 0; i < n; ++i) {
      values[static_cast<size_t>(row * (2 * n + 1) + 2 * i + 1)] =
          host.values[static_cast<size_t>(row * n + i)];
    }
  }
  Tensor t = UploadValues(host.dtype, padded, values);
  return CallOne("slice", {t}, {Attr(int64_t{-1}), Attr(int64_t{1}), Attr(), Attr(int64_t{2})});
}

Tensor CallOne(const char* op, std::vector<Tensor> inputs, std::vector<Attr> attrs) {
  auto out = TestRuntime().Call(Op(op), inputs, attrs);
  EXPECT_TRUE(out.ok()) << op << ": " << out.status();
  if (!out.ok() || out->size() != 1) return Tensor();
  return (*out)[0];
}

std::string Explain(const char* op, std::vector<Tensor> inputs, std::vector<Attr> attrs) {
  auto text = TestRuntime().Explain(Op(op), inputs, attrs);
  return text.ok() ? *text : std::string(text.status().ToString());
}

HostTensor RefLinear(const HostTensor& x, const HostTensor& w,
                     const HostTensor* b, std::vector<double>* scale) {
  const int64_t n = w.shape[0], k = w.shape[1];
  const int64_t m = x.numel() / k;
  HostTensor out;
  out.dtype = x.dtype;
  out.shape = x.shape;
  out.shape.back() = n;
  out.values.resize(static_cast<size_t>(m * n));
  scale->assign(out.values.size(), 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double acc = b != nullptr ? b->values[static_cast<size_t>(j)] : 0.0;
      double sq = acc * acc;
      for (int64_t p = 0; p < k; ++p) {
        const double term = x.values[static_cast<size_t>(i * k + p)] *
                            w.values[static_cast<size_t>(j * k + p)];
        acc += term;
        sq += term * term;
      }
      out.values[static_cast<size_t>(i * n + j)] = acc;
      (*scale)[static_cast<size_t>(i * n + j)] = std::sqrt(sq);
    }
  }
  return out;
}

HostTensor RefMatmul(const HostTensor& a, const HostTensor& b,
                     std::vector<double>* scale) {
  const int ra = static_cast<int>(a.shape.size()), rb = static_cast<int>(b.shape.size());
  const int64_t m = a.shape[ra - 2], k = a.shape[ra - 1], n = b.shape[rb - 1];
  const int batch_rank = std::max(ra, rb) - 2;
  std::vector<int64_t> batch(static_cast<size_t>(batch_rank));
  for (int d = 0; d < batch_rank; ++d) {
    const int da = d - (batch_rank - (ra - 2)), db = d - (batch_rank - (rb - 2));
    const int64_t sa = da >= 0 ? a.shape[da] : 1, sb = db >= 0 ? b.shape[db] : 1;
    batch[static_cast<size_t>(d)] = std::max(sa, sb);
  }
  HostTensor out;
  out.dtype = a.dtype;
  out.shape = batch;
  out.shape.push_back(m);
  out.shape.push_back(n);
  int64_t nb = 1;
  for (int64_t d : batch) nb *= d;
  out.values.resize(static_cast<size_t>(nb * m * n));
  scale->assign(out.values.size(), 0.0);
  for (int64_t bi = 0; bi < nb; ++bi) {
    // Batch index → offsets into a and b (size-1 dims broadcast).
    int64_t rest = bi, off_a = 0, off_b = 0, stride_a = m * k, stride_b = k * n;
    for (int d = batch_rank - 1; d >= 0; --d) {
      const int64_t idx = rest % batch[static_cast<size_t>(d)];
      rest /= batch[static_cast<size_t>(d)];
      const int da = d - (batch_rank - (ra - 2)), db = d - (batch_rank - (rb - 2));
      if (da >= 0) {
        if (a.shape[da] > 1) off_a += idx * stride_a;
        stride_a *= a.shape[da];
      }
      if (db >= 0) {
        if (b.shape[db] > 1) off_b += idx * stride_b;
        stride_b *= b.shape[db];
      }
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0, sq = 0;
        for (int64_t p = 0; p < k; ++p) {
          const double t = a.values[static_cast<size_t>(off_a + i * k + p)] *
                           b.values[static_cast<size_t>(off_b + p * n + j)];
          acc += t;
          sq += t * t;
        }
        out.values[static_cast<size_t>((bi * m + i) * n + j)] = acc;
        (*scale)[static_cast<size_t>((bi * m + i) * n + j)] = std::sqrt(sq);
      }
    }
  }
  return out;
}

HostTensor RefConv2d(const HostTensor& x, const HostTensor& w,
                     const HostTensor* b, std::vector<int64_t> stride,
                     std::vector<int64_t> padding,
                     std::vector<int64_t> dilation, int64_t groups,
                     std::vector<double>* scale) {
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], wd = x.shape[3];
  const int64_t oc = w.shape[0], icg = w.shape[1], kh = w.shape[2], kw = w.shape[3];
  const int64_t oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) / stride[0] + 1;
  const int64_t ow = (wd + 2 * padding[1] - dilation[1] * (kw - 1) - 1) / stride[1] + 1;
  const int64_t ocg = oc / groups;
  HostTensor out;
  out.dtype = x.dtype;
  out.shape = {n, oc, oh, ow};
  out.values.resize(static_cast<size_t>(out.numel()));
  scale->assign(out.values.size(), 0.0);
  for (int64_t in = 0; in < n; ++in)
    for (int64_t o = 0; o < oc; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xx = 0; xx < ow; ++xx) {
          double acc = b != nullptr ? b->values[static_cast<size_t>(o)] : 0.0;
          double sq = acc * acc;
          const int64_t g = o / ocg;
          for (int64_t ic = 0; ic < icg; ++ic)
            for (int64_t ky = 0; ky < kh; ++ky)
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t iy = y * stride[0] - padding[0] + ky * dilation[0];
                const int64_t ix = xx * stride[1] - padding[1] + kx * dilation[1];
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                const int64_t ch = g * icg + ic;
                const double t =
                    x.values[static_cast<size_t>(((in * c + ch) * h + iy) * wd + ix)] *
                    w.values[static_cast<size_t>(((o * icg + ic) * kh + ky) * kw + kx)];
                acc += t;
                sq += t * t;
              }
          const size_t idx = static_cast<size_t>(((in * oc + o) * oh + y) * ow + xx);
          out.values[idx] = acc;
          (*scale)[idx] = std::sqrt(sq);
        }
  return out;
}

double Gelu(double x, bool tanh_form) {
  if (tanh_form) {
    const double k = std::sqrt(2.0 / M_PI);
    return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
  }
  return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
}

void ExpectNear(const HostTensor& got, const HostTensor& want,
                const std::vector<double>& scale, double rtol, double atol,
                double acc, const std::string& context) {
  ASSERT_EQ(got.shape, want.shape) << context;
  ASSERT_EQ(got.dtype, want.dtype) << context;
  int bad = 0;
  std::ostringstream report;
  for (size_t i = 0; i < want.values.size(); ++i) {
    const double g = got.values[i], w = want.values[i];
    const double allowed = atol + rtol * std::fabs(w) + (scale.empty() ? 0 : acc * scale[i]);
    const bool ok = std::isnan(w) ? std::isnan(g) : std::fabs(g - w) <= allowed;
    if (!ok && ++bad <= 5) {
      report << "  at flat index " << i << ": got " << g << ", expected " << w
             << " (allowed " << allowed << ")\n";
    }
  }
  EXPECT_EQ(bad, 0) << context << " (seed " << Seed() << "): " << bad << " of "
                    << want.values.size() << " differ\n" << report.str();
}

double ContractionTol(sy_dtype_t dtype) {
  return dtype == SY_DTYPE_BF16 ? 2.0 / 128 : 1e-5;
}

}  // namespace sy::onednn_test
