// The `switchyard` subcommands. Each returns the process exit status.
#ifndef SWITCHYARD_TOOLS_CLI_COMMANDS_H_
#define SWITCHYARD_TOOLS_CLI_COMMANDS_H_

#include "dispatcher/runtime.h"

namespace sy::cli {

// Plugins with their load records in plain words, devices, and an op ×
// device type coverage matrix; or all of it as JSON.
int RunInfo(Runtime& runtime, bool json);

// Every op's schema (and owner); or JSON with kernels per op.
int RunOps(Runtime& runtime, bool json);

// A small transformer block through the dispatcher on every device,
// printing for each op which kernel ran it, its time, and its difference
// from a float64 reference run on cpu. Exit status 1 when a step is wrong.
int RunDemo(Runtime& runtime);

}  // namespace sy::cli

#endif  // SWITCHYARD_TOOLS_CLI_COMMANDS_H_
