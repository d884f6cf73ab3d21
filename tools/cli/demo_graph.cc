#include "demo_graph.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

#include "cli_util.h"
#include "host_values.h"

namespace sy::cli {
namespace {

// Runs per timed block: enough for a stable mean on a busy machine, few
// enough that the demo stays well under a second on cpu.
constexpr int kRuns = 10;

// Mean microseconds of `run` (after one warm-up), each run ending in a
// device synchronize.
sy::Result<double> MeanMicros(const sy::Device& device,
                              const std::function<sy::Status()>& run) {
  if (sy::Status s = run(); !s.ok()) return s;
  if (sy::Status s = device.synchronize(); !s.ok()) return s;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kRuns; ++i) {
    if (sy::Status s = run(); !s.ok()) return s;
  }
  if (sy::Status s = device.synchronize(); !s.ok()) return s;
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
             .count() /
         kRuns;
}

bool Failed(const char* what, const sy::Status& status) {
  std::printf("  FAILED (%s): %s\n", what, Message(status).c_str());
  return false;
}

}  // namespace

bool RunCapturedBlock(const sy::Context& context, const TransformerBlock& block,
                      const sy::Device& device, const sy::Device& cpu,
                      const std::vector<double>& expected, double tolerance) {
  const sy::DeviceInfo info = device.info().value_or({});
  std::printf("\nThe same block captured as a graph and compiled on %s, against running "
              "it op by op\n",
              info.label.c_str());
  sy::Result<BlockWeights> weights = block.UploadWeights(context, device, SY_DTYPE_F32);
  if (!weights.ok()) return Failed("weights", weights.status());

  // Capture: the tokens are the graph's input; the weights, real tensors
  // the ops read, are its constants.
  sy::Result<sy::GraphCapture> capture = sy::GraphCapture::Begin(context);
  if (!capture.ok()) return Failed("capture", capture.status());
  sy::Result<sy::Tensor> tokens = capture->Input(weights->tokens, "tokens");
  if (!tokens.ok()) return Failed("capture", tokens.status());
  sy::Result<sy::Tensor> y = block.Forward(context, device, *weights, *tokens);
  if (!y.ok()) return Failed("capture", y.status());
  if (sy::Status s = capture->Output(*y, "y"); !s.ok()) return Failed("capture", s);
  sy::Result<sy::Graph> graph = std::move(*capture).End();
  if (!graph.ok()) return Failed("capture", graph.status());
  if (sy::Status s = graph->Compile(); !s.ok()) return Failed("compile", s);

  sy::Result<double> eager = MeanMicros(device, [&]() -> sy::Status {
    return block.Forward(context, device, *weights, weights->tokens).status();
  });
  if (!eager.ok()) return Failed("eager run", eager.status());
  std::vector<sy::Tensor> out;
  sy::Result<double> fused = MeanMicros(device, [&]() -> sy::Status {
    sy::Result<std::vector<sy::Tensor>> launched = graph->Launch({weights->tokens});
    if (!launched.ok()) return launched.status();
    out = *std::move(launched);
    return sy::Status();
  });
  if (!fused.ok()) return Failed("launch", fused.status());

  sy::Result<std::vector<double>> got = ReadAsDouble(context, cpu, out[0]);
  const double error = got.ok() ? MaxError(*got, expected) : INFINITY;
  const bool good = error <= tolerance;
  const sy_graph_info_t stats = graph->info().value_or({});
  std::printf("  %d ops captured; %d fused group(s) of %d op(s) in all, %d group(s) "
              "unfused; compiled in %.2f ms\n",
              stats.num_ops, stats.fused_groups, stats.fused_ops, stats.unfused_groups,
              stats.compile_ms);
  std::printf("  %-30s %10.1f us per run\n", "eager (op by op)", *eager);
  std::printf("  %-30s %10.1f us per run  (%.2fx)\n", "compiled graph (fused)", *fused,
              *eager / *fused);
  std::printf("  graph output: max error %.1e vs the float64 cpu run%s\n", error,
              good ? "" : "  <-- WRONG");
  std::printf("  plan (sy_graph_explain):\n");
  const std::string plan = graph->explain().value_or("");
  size_t begin = 0;
  while (begin < plan.size()) {
    const size_t end = plan.find('\n', begin);
    std::printf("    %s\n", plan.substr(begin, end - begin).c_str());
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return good;
}

}  // namespace sy::cli
