#include "exhaustive.h"

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "../bench_util.h"

namespace sy::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Milliseconds(Clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

}  // namespace

void UseFreshCache(const std::string& program) {
  std::string dir =
      (std::filesystem::temp_directory_path() / (program + ".XXXXXX")).string();
  if (mkdtemp(dir.data()) == nullptr) {
    Die("cache", sy::Status(SY_STATUS_PERMISSION_DENIED, "cannot make a temporary folder"));
  }
  setenv("SWITCHYARD_CACHE_DIR", dir.c_str(), 1);
  std::fprintf(stderr, "%s: cache in %s\n", program.c_str(), dir.c_str());
}

double Candidate::Median() const {
  if (samples.empty()) return 0;
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  return sorted[sorted.size() / 2];
}

std::string WinnerLabel(const nlohmann::json& report) {
  const nlohmann::json& winner = report["winner"];
  std::string label = winner["kernel"].get<std::string>();
  if (winner["variant"].get<int>() >= 0) {
    label += " [" + winner["variant_name"].get<std::string>() + "]";
  }
  return label;
}

std::vector<Candidate> PassedCandidates(const sy::Op& op, const nlohmann::json& report) {
  const std::vector<sy::KernelInfo> kernels = Must(op.kernels(), "kernels");
  std::vector<Candidate> out;
  for (const nlohmann::json& entry : report["candidates"]) {
    const std::string outcome = entry["outcome"].get<std::string>();
    if (outcome != "measured" && outcome != "stopped early") continue;
    Candidate c;
    c.label = entry["candidate"].get<std::string>();
    const size_t bracket = c.label.find(" [");
    c.kernel = c.label.substr(0, bracket);
    if (bracket != std::string::npos) {
      const std::string name = c.label.substr(bracket + 2, c.label.size() - bracket - 3);
      for (const sy::KernelInfo& k : kernels) {
        if (k.name != c.kernel) continue;
        for (size_t v = 0; v < k.variants.size(); ++v) {
          if (k.variants[v] == name) c.variant = static_cast<int32_t>(v);
        }
      }
      if (c.variant < 0) {
        Die("candidate " + c.label,
            sy::Status(SY_STATUS_NOT_FOUND, "no such variant of the op's kernels"));
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

void Exhaustive(const sy::Op& op, const sy::Device& device,
                const std::vector<sy::Tensor>& inputs, const std::vector<sy::Attr>& attrs,
                std::vector<Candidate>& candidates, const ExhaustiveOptions& options) {
  auto sample = [&](Candidate& c) {
    const sy::Route route = sy::Route::Kernel(c.kernel, c.variant);
    const auto start = Clock::now();
    for (int64_t i = 0; i < c.batch; ++i) {
      Must(op.call_out(inputs, attrs, c.outputs, route), "call " + c.label);
    }
    Must(device.synchronize(), "synchronize");
    return Milliseconds(Clock::now() - start) * 1e6 / static_cast<double>(c.batch);
  };
  for (Candidate& c : candidates) {
    c.outputs = Must(op.call(inputs, attrs, sy::Route::Kernel(c.kernel, c.variant)),
                     "first call of " + c.label);
    double ns = sample(c);
    for (const auto start = Clock::now(); Milliseconds(Clock::now() - start) < 2;) {
      ns = std::min(ns, sample(c));
    }
    c.batch = std::clamp<int64_t>(static_cast<int64_t>(options.sample_ns / std::max(ns, 1.0)),
                                  1, 10000);
  }
  const auto start = Clock::now();
  for (int round = 0; round < 200; ++round) {
    if (round >= options.min_rounds && Milliseconds(Clock::now() - start) >= options.budget_ms) {
      break;
    }
    for (size_t k = 0; k < candidates.size(); ++k) {
      Candidate& c = candidates[(k + static_cast<size_t>(round)) % candidates.size()];
      c.samples.push_back(sample(c));
    }
  }
}

}  // namespace sy::bench
