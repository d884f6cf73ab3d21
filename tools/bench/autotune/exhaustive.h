// What bench_autotune and bench_autotune_cuda share, over the public API
// (switchyard.hpp): a fresh cache for cold tuning, the candidates of a
// tuning report (sy_op_tune's JSON), and the exhaustive re-measurement that
// judges the tuner's choice — each candidate run by name (SY_ROUTE_KERNEL)
// into preallocated outputs and timed with the host clock and a device
// synchronize per sample, the candidates' samples interleaved in rounds.
// It is measured independently of the tuner's own measurement code, so a
// table built on it checks the tuner rather than repeating it.
#ifndef SWITCHYARD_TOOLS_BENCH_AUTOTUNE_EXHAUSTIVE_H_
#define SWITCHYARD_TOOLS_BENCH_AUTOTUNE_EXHAUSTIVE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "switchyard/switchyard.hpp"

namespace sy::bench {

// Points SWITCHYARD_CACHE_DIR at a new temporary folder (before any context
// is made): cold tuning, and no verdict of an earlier run or another
// program. Says where on stderr, prefixed by `program`.
void UseFreshCache(const std::string& program);

// One candidate of a key.
struct Candidate {
  std::string label;   // as the report names it: "kernel" or "kernel [variant]"
  std::string kernel;  // "onednn::matmul.f32.f32"
  int32_t variant = -1;
  std::vector<sy::Tensor> outputs;
  int64_t batch = 1;            // calls per sample
  std::vector<double> samples;  // ns per call

  double Median() const;
};

// The report's winner as a label ("kernel" or "kernel [variant name]").
std::string WinnerLabel(const nlohmann::json& report);

// The candidates of `report` that passed the tuner's check against the
// reference ("measured" or "stopped early"), in the report's order — the
// fixed order, so the first is what runs untuned. Stops the program when a
// label names no kernel variant of `op`.
std::vector<Candidate> PassedCandidates(const sy::Op& op, const nlohmann::json& report);

struct ExhaustiveOptions {
  int min_rounds = 9;
  double budget_ms = 1000;   // rounds go on until both are met (at most 200)
  double sample_ns = 50e3;   // calls per sample: about this long
};

// Times every candidate: warm-up (2 ms, which also sizes each sample), then
// rounds of one sample per candidate, in an order rotated per round, so
// drift hits all alike. No early stop. Stops the program on a failed call.
void Exhaustive(const sy::Op& op, const sy::Device& device,
                const std::vector<sy::Tensor>& inputs, const std::vector<sy::Attr>& attrs,
                std::vector<Candidate>& candidates, const ExhaustiveOptions& options = {});

}  // namespace sy::bench

#endif  // SWITCHYARD_TOOLS_BENCH_AUTOTUNE_EXHAUSTIVE_H_
