// The `switchyard` subcommands, over the public C++ API (switchyard.hpp).
// Each returns the process exit status.
#ifndef SWITCHYARD_TOOLS_CLI_COMMANDS_H_
#define SWITCHYARD_TOOLS_CLI_COMMANDS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "switchyard/switchyard.hpp"

namespace sy::cli {

// Plugins with their load records in plain words and their options,
// devices, and an op × device type coverage matrix; or all of it as JSON.
int RunInfo(const sy::Context& context, bool json);

// Every op's schema; or JSON with kernels per op.
int RunOps(const sy::Context& context, bool json);

// A small transformer block through the dispatcher on every device,
// printing for each op which kernel ran it, its time, and its difference
// from a float64 reference run on cpu. Exit status 1 when a step is wrong.
int RunDemo(const sy::Context& context);

// `switchyard run`: one op on random inputs on one device, checked against
// the cpu device (in float64 where the op allows) and timed.
struct RunOptions {
  std::string op;                  // "add", "softmax.int", …
  std::vector<std::string> shapes;  // one per tensor argument ("64x128")
  std::vector<std::string> dtypes;  // none: f32; one: every input; else one each
  std::vector<std::string> attrs;   // "name=value"
  std::string device = "cpu";
  double low = -1, high = 1;        // floating inputs: uniform in [low, high)
  int repeat = 20;                  // timed calls
  uint32_t seed = 1;
};
// Exit status 0 when the result matches, 1 when it does not or the call
// fails, 2 for a command line that does not fit the op.
int RunOp(const sy::Context& context, const RunOptions& options);

// `switchyard tune` (docs/autotune.md): one case from `run`'s flags or a
// case file, each tuned through the context (sy_context_tune_cases), a row
// (and with `explain` every candidate's time) per case; --import first,
// --export last. Exit status 0 when every case was tuned, 1 when one
// failed (or the import or export did), 2 for a command line that does
// not fit (an unknown op, a bad mode, an unreadable case file).
struct TuneOptions {
  std::string op;                   // empty with cases_file
  std::vector<std::string> shapes;  // as RunOptions
  std::vector<std::string> dtypes;
  std::vector<std::string> attrs;
  std::vector<int> transposed;      // inputs stored with the last two dims swapped
  std::string device = "cpu";
  std::string cases_file;
  std::string import_file, export_file;
  bool all_devices = false;         // export every device's verdicts
  bool explain = false;
  bool force = false;
  bool json = false;
  std::string mode;                 // "" leaves the context's (SWITCHYARD_AUTOTUNE)
};
int RunTune(const sy::Context& context, const TuneOptions& options);

// `switchyard info --autotune`: what the autotune cache holds.
int RunAutotuneInfo(const sy::Context& context, bool json);

}  // namespace sy::cli

#endif  // SWITCHYARD_TOOLS_CLI_COMMANDS_H_
