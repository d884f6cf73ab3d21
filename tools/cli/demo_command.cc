// `switchyard demo`: a small MLP layer — y = sum(relu(x·W + b)) — run through
// the dispatcher on every device present, showing for each op which kernel
// (and so which plugin) ran it, how long it took, and how far its result is
// from a float64 reference computed here on the host.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "commands.h"

namespace sy::cli {
namespace {

constexpr int64_t kRows = 64, kIn = 128, kOut = 96;

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 0.5f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

struct Step {
  const char* op;
  std::vector<Tensor> inputs;
  std::vector<Attr> attrs;
};

// Runs one op, prints a line, returns its output (undefined on failure).
Tensor RunStep(Runtime& runtime, const Step& step,
               const std::vector<double>& reference, bool* ok) {
  absl::StatusOr<OpHandle> op = runtime.FindOp(step.op);
  absl::StatusOr<std::string> how =
      op.ok() ? runtime.Explain(*op, step.inputs, step.attrs) : op.status();
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<Tensor>> out =
      op.ok() ? runtime.Call(*op, step.inputs, step.attrs) : op.status();
  absl::Status sync = out.ok() ? runtime.Synchronize((*out)[0].device()) : out.status();
  double us = std::chrono::duration<double, std::micro>(
                  std::chrono::steady_clock::now() - start).count();
  if (!sync.ok()) {
    std::printf("  %-10s FAILED: %s\n", step.op, std::string(sync.message()).c_str());
    *ok = false;
    return Tensor();
  }
  const Tensor& result = (*out)[0];
  std::vector<float> got(static_cast<size_t>(result.numel()));
  absl::Status read = runtime.ToHost(result, got.data(), got.size() * sizeof(float));
  double max_error = 0;
  for (size_t i = 0; read.ok() && i < got.size(); ++i) {
    double scale = std::max(1.0, std::abs(reference[i]));
    max_error = std::max(max_error, std::abs(got[i] - reference[i]) / scale);
  }
  const bool good = read.ok() && max_error < 1e-4;
  *ok = *ok && good;
  std::printf("  %-10s %-34s %9.1f us   max rel. error %.2e %s\n", step.op,
              how.ok() ? how->c_str() : "?", us, max_error, good ? "" : "  <-- WRONG");
  return result;
}

}  // namespace

int RunDemo(Runtime& runtime) {
  std::vector<float> x = Random(kRows * kIn, 1), w = Random(kIn * kOut, 2),
                     b = Random(kOut, 3);
  // float64 reference of every step.
  std::vector<double> xw(kRows * kOut, 0.0), h(kRows * kOut), r(kRows * kOut);
  for (int64_t i = 0; i < kRows; ++i)
    for (int64_t k = 0; k < kIn; ++k)
      for (int64_t j = 0; j < kOut; ++j)
        xw[i * kOut + j] += double(x[i * kIn + k]) * w[k * kOut + j];
  double total = 0;
  for (int64_t i = 0; i < kRows * kOut; ++i) {
    h[i] = xw[i] + b[i % kOut];
    r[i] = std::max(h[i], 0.0);
    total += r[i];
  }
  std::vector<double> squared(r.size());
  for (size_t i = 0; i < r.size(); ++i) squared[i] = r[i] * r[i];

  std::vector<Device*> devices = runtime.Devices();
  if (devices.empty()) {
    std::printf("No devices: no device plugin loaded. `switchyard info` says why.\n");
    return 1;
  }
  bool ok = true;
  for (Device* device : devices) {
    std::printf("On %s (%s): y = sum(relu(x[%ld,%ld] · W[%ld,%ld] + b)), then "
                "square(relu) by decomposition\n",
                device->label().c_str(), device->properties().name.c_str(),
                long(kRows), long(kIn), long(kIn), long(kOut));
    auto upload = [&](const std::vector<float>& v, std::vector<int64_t> shape) {
      return runtime.FromHost(*device, SY_DTYPE_F32, shape, v.data(), v.size() * 4);
    };
    auto tx = upload(x, {kRows, kIn}), tw = upload(w, {kIn, kOut}), tb = upload(b, {kOut});
    if (!tx.ok() || !tw.ok() || !tb.ok()) {
      std::printf("  could not upload inputs: %s\n",
                  std::string((!tx.ok() ? tx : !tw.ok() ? tw : tb).status().message()).c_str());
      ok = false;
      continue;
    }
    Tensor t1 = RunStep(runtime, {"matmul", {*tx, *tw}, {}}, xw, &ok);
    if (!t1.defined()) continue;
    Tensor t2 = RunStep(runtime, {"add", {t1, *tb}, {}}, h, &ok);
    if (!t2.defined()) continue;
    Tensor t3 = RunStep(runtime, {"relu", {t2}, {}}, r, &ok);
    if (!t3.defined()) continue;
    RunStep(runtime, {"sum", {t3}, {}}, {total}, &ok);
    RunStep(runtime, {"square", {t3}, {}}, squared, &ok);
  }
  std::printf(ok ? "All results match the float64 reference.\n"
                 : "Some results were wrong or failed; see above.\n");
  return ok ? 0 : 1;
}

}  // namespace sy::cli
