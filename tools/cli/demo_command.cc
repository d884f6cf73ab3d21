// `switchyard demo`: a small transformer block (transformer_block.h) run
// through the dispatcher in f32 on every device present. For each op it
// prints which kernel — and so which plugin — ran it (or that it ran as a
// view or a decomposition), its time, and how far its output is from the
// same step of a float64 reference run on the cpu device. Then, per device,
// the same block captured as a graph and compiled (demo_graph.h): the
// eager and the compiled time, and the fused groups.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cli_util.h"
#include "commands.h"
#include "demo_graph.h"
#include "host_values.h"
#include "transformer_block.h"

namespace sy::cli {
namespace {

// f32 through ~a dozen ops: an error of 1e-4 relative to max(1, |ref|) is
// far above what correct kernels give (about 1e-6) and far below a bug.
constexpr double kTolerance = 1e-4;

}  // namespace

int RunDemo(const sy::Context& context) {
  sy::Result<sy::Device> cpu = context.device("cpu");
  if (!cpu.ok()) {
    std::printf("No cpu device: the cpu plugin did not load, and the demo "
                "needs it for its reference. `switchyard info` says why.\n");
    return 1;
  }
  const TransformerBlock block{BlockConfig{}};
  const BlockConfig& c = block.config();
  sy::Result<std::vector<BlockStep>> reference = block.Run(context, *cpu, SY_DTYPE_F64);
  if (!reference.ok()) {
    std::printf("The float64 reference run on cpu failed: %s\n",
                Message(reference.status()).c_str());
    return 1;
  }
  std::vector<std::vector<double>> expected;
  for (const BlockStep& step : *reference) {
    sy::Result<std::vector<double>> values = ReadAsDouble(context, *cpu, step.output);
    if (!values.ok()) {
      std::printf("Reading the reference failed: %s\n", Message(values.status()).c_str());
      return 1;
    }
    expected.push_back(*std::move(values));
  }

  bool ok = true;
  for (const sy::Device& device : context.devices().value_or({})) {
    const sy::DeviceInfo info = device.info().value_or({});
    std::printf(
        "\nTransformer block on %s (%s): %ld tokens, d_model %ld, %ld heads, "
        "d_ff %ld, f32; error vs the float64 cpu run\n",
        info.label.c_str(), info.name.c_str(), long(c.seq), long(c.d_model),
        long(c.heads), long(c.d_ff));
    sy::Result<std::vector<BlockStep>> steps = block.Run(context, device, SY_DTYPE_F32);
    if (!steps.ok()) {
      std::printf("  FAILED: %s\n", Message(steps.status()).c_str());
      ok = false;
      continue;
    }
    std::printf("  %-36s %-44s %10s  %s\n", "op", "ran as", "time", "max error");
    double total_us = 0;
    for (size_t i = 0; i < steps->size(); ++i) {
      const BlockStep& step = (*steps)[i];
      sy::Result<std::vector<double>> got = ReadAsDouble(context, *cpu, step.output);
      const double error = got.ok() ? MaxError(*got, expected[i]) : INFINITY;
      const bool good = error <= kTolerance;
      ok = ok && good;
      total_us += step.micros;
      std::printf("  %-36s %-44s %8.1f us  %.1e%s\n", step.op.c_str(),
                  step.how.c_str(), step.micros, error, good ? "" : "  <-- WRONG");
    }
    std::printf("  %-36s %-44s %8.1f us\n", "total", "", total_us);
    ok = RunCapturedBlock(context, block, device, *cpu, expected.back(), kTolerance) && ok;
  }
  std::printf(ok ? "\nEvery step matches the float64 reference within %.0e.\n"
                 : "\nSome steps were wrong or failed (tolerance %.0e); see above.\n",
              kTolerance);
  return ok ? 0 : 1;
}

}  // namespace sy::cli
