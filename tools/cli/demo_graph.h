// The captured and fused half of `switchyard demo`: the same transformer
// block run eagerly (op by op) and as a compiled graph (captured once,
// fused by the device's plugin, launched), with both times and the plan.
#ifndef SWITCHYARD_TOOLS_CLI_DEMO_GRAPH_H_
#define SWITCHYARD_TOOLS_CLI_DEMO_GRAPH_H_

#include <vector>

#include "switchyard/switchyard.hpp"
#include "transformer_block.h"

namespace sy::cli {

// Prints the comparison on `device`; the graph's output is checked against
// `expected` (the float64 reference's last step) within `tolerance`.
// False when something failed or the output is wrong.
bool RunCapturedBlock(const sy::Context& context, const TransformerBlock& block,
                      const sy::Device& device, const sy::Device& cpu,
                      const std::vector<double>& expected, double tolerance);

}  // namespace sy::cli

#endif  // SWITCHYARD_TOOLS_CLI_DEMO_GRAPH_H_
