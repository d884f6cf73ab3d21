#include "fusion/compile/verdicts.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "fusion/compile/node_calls.h"
#include "fusion/compile/op_table.h"

namespace sy::fusion {
namespace {

using Clock = std::chrono::steady_clock;

std::string NodeText(const OpGraph& g, int n) { return absl::StrCat(g.nodes[n].name(), " %", n); }

bool Fuses(const OpGraph& g, const Node& node, const FusionBackend& backend) {
  return Classify(g, node, backend, nullptr) != FusedRole::kNone;
}

// Runs `run` a few times per batch after a warm-up; the median over the
// batches of the time per run, in µs (host clock around a synchronize: the
// work is asynchronous on GPUs).
absl::StatusOr<double> TimePerRun(core::Dispatcher& d, core::Device& device,
                                  const std::function<absl::Status()>& run) {
  constexpr int kWarmup = 2, kBatches = 5, kRepeats = 8;
  for (int i = 0; i < kWarmup; ++i) {
    if (absl::Status s = run(); !s.ok()) return s;
  }
  if (absl::Status s = d.Synchronize(device); !s.ok()) return s;
  std::vector<double> times;
  for (int b = 0; b < kBatches; ++b) {
    const auto start = Clock::now();
    for (int i = 0; i < kRepeats; ++i) {
      if (absl::Status s = run(); !s.ok()) return s;
    }
    if (absl::Status s = d.Synchronize(device); !s.ok()) return s;
    times.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count() /
                    kRepeats);
  }
  std::nth_element(times.begin(), times.begin() + kBatches / 2, times.end());
  return times[kBatches / 2];
}

struct VerdictCache {
  std::mutex mu;
  std::map<std::string, bool> faster;
};
VerdictCache& Verdicts() {
  static VerdictCache* cache = new VerdictCache;  // outlives static destructors
  return *cache;
}

}  // namespace

Unreplaced PlanWithout(const OpGraph& g, const std::vector<int>& nodes,
                       const std::vector<std::vector<int>>& consumers,
                       const Backends& backends) {
  Unreplaced plan;
  plan.runs.assign(nodes.size(), Unreplaced::Run::kAlone);
  const Node& last = g.nodes[nodes.back()];
  const FusionBackend* backend =
      last.device != nullptr ? backends.For(last.device->type()) : nullptr;
  if (backend == nullptr) return plan;
  // The trailing run of ops the backend fuses, on the match's device.
  size_t first = nodes.size();
  while (first > 0) {
    const Node& node = g.nodes[nodes[first - 1]];
    if (node.device != last.device || !Fuses(g, node, *backend)) break;
    --first;
  }
  if (first == nodes.size()) return plan;
  // A consumer of the result that fuses too takes the run into its group.
  const int buffer = g.values[last.outputs[0]].buffer;
  for (int reader : consumers[buffer]) {
    const Node& node = g.nodes[reader];
    if (std::find(nodes.begin(), nodes.end(), reader) != nodes.end()) continue;
    if (node.device == last.device && Fuses(g, node, *backend)) {
      plan.consumer = reader;
      break;
    }
  }
  for (size_t p = first; p < nodes.size(); ++p) {
    plan.runs[p] =
        plan.consumer >= 0 ? Unreplaced::Run::kJoinsConsumer : Unreplaced::Run::kFusedGroup;
  }
  return plan;
}

std::string Unreplaced::Describe(const OpGraph& g, const std::vector<int>& nodes) const {
  std::vector<std::string> alone, fused;
  for (size_t p = 0; p < nodes.size(); ++p) {
    (runs[p] == Run::kAlone ? alone : fused).push_back(NodeText(g, nodes[p]));
  }
  if (fused.empty()) return "op by op";
  std::vector<std::string> parts;
  if (!alone.empty()) parts.push_back(absl::StrCat(absl::StrJoin(alone, ", "), " alone"));
  if (consumer >= 0) {
    parts.push_back(absl::StrCat(absl::StrJoin(fused, ", "), " in the fused group of ",
                                 NodeText(g, consumer), " (no time of ",
                                 fused.size() > 1 ? "their" : "its", " own)"));
  } else {
    parts.push_back(
        absl::StrCat(absl::StrJoin(fused, ", "), " fused (priced at the slowest alone)"));
  }
  return absl::StrCat("as the plan runs the match: ", absl::StrJoin(parts, "; "));
}

std::string Unreplaced::Key() const {
  std::string key;
  for (Run r : runs) key += r == Run::kAlone ? 'A' : r == Run::kFusedGroup ? 'F' : 'J';
  return key;
}

absl::StatusOr<VerdictTimes> MeasureVerdict(core::Dispatcher& d, const OpGraph& g,
                                            const std::vector<int>& nodes,
                                            const std::vector<int>& match_inputs,
                                            const Unreplaced& plan, const Node& replacement,
                                            const std::vector<core::Tensor>& inputs) {
  core::Device& device = *g.nodes[nodes.back()].device;
  // The match's values, computed once: each node is then timed alone on
  // its own inputs.
  std::map<int, core::Tensor> at;
  for (size_t i = 0; i < match_inputs.size(); ++i) at[match_inputs[i]] = inputs[i];
  std::vector<std::vector<core::Tensor>> node_inputs;
  for (int n : nodes) {
    const Node& node = g.nodes[n];
    std::vector<core::Tensor> tensors;
    for (int v : node.inputs) tensors.push_back(at.at(v));
    core::TensorList produced;
    if (absl::Status s = RunNode(d, node, tensors, produced); !s.ok()) return s;
    at[node.outputs[0]] = produced[0];
    node_inputs.push_back(std::move(tensors));
  }
  VerdictTimes times;
  double slowest_fused = 0;
  for (size_t p = 0; p < nodes.size(); ++p) {
    if (plan.runs[p] == Unreplaced::Run::kJoinsConsumer) continue;
    const Node& node = g.nodes[nodes[p]];
    absl::StatusOr<double> t = TimePerRun(d, device, [&]() {
      core::TensorList produced;
      return RunNode(d, node, node_inputs[p], produced);
    });
    if (!t.ok()) return t.status();
    if (plan.runs[p] == Unreplaced::Run::kAlone) {
      times.unreplaced_us += *t;
    } else {
      slowest_fused = std::max(slowest_fused, *t);
    }
  }
  times.unreplaced_us += slowest_fused;
  absl::StatusOr<double> t = TimePerRun(d, device, [&]() {
    core::TensorList produced;
    return RunNode(d, replacement, inputs, produced);
  });
  if (!t.ok()) return t.status();
  times.replacement_us = *t;
  return times;
}

std::optional<bool> FindVerdict(const std::string& key) {
  std::lock_guard<std::mutex> lock(Verdicts().mu);
  auto it = Verdicts().faster.find(key);
  if (it == Verdicts().faster.end()) return std::nullopt;
  return it->second;
}

void KeepVerdict(const std::string& key, bool faster) {
  std::lock_guard<std::mutex> lock(Verdicts().mu);
  Verdicts().faster[key] = faster;
}

}  // namespace sy::fusion
