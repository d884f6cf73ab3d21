// What switchyard-conformance found, and how it is printed: a table for
// people, JSON (--json) for CI. Every check lands in one Report; the exit
// status is derived from it (ExitCode), never decided elsewhere.
#ifndef SWITCHYARD_SDK_CONFORMANCE_TOOL_REPORT_H_
#define SWITCHYARD_SDK_CONFORMANCE_TOOL_REPORT_H_

#include <ostream>
#include <string>
#include <vector>

#include "nlohmann/json_fwd.hpp"

namespace sy::conformance {

enum class Outcome { kPass, kFail, kSkip };
const char* OutcomeName(Outcome outcome);  // "pass", "fail", "skip"

// One ABI or device check: "abi"/"only sy_plugin_init exported".
struct Check {
  std::string section;  // "abi", "device cpu", …
  std::string name;
  Outcome outcome = Outcome::kPass;
  std::string detail;   // what was seen; for a failure what is wrong and what to do
};

// The op harness's verdict on one op: one gtest test per dtype variant.
struct OpRow {
  std::string device;   // "cpu:0"
  std::string op;       // "add.Tensor"
  std::vector<std::string> dtypes;  // what the plugin registers: "f32,f32"
  int passed = 0, failed = 0, skipped = 0;
  // The first failure messages (at most a few, each trimmed).
  std::vector<std::string> failures;
};

// Something not tested, and why.
struct Skip {
  std::string what;    // "op mul.Tensor", "device checks", "test Cpu/Binary.add_Tensor/f64"
  std::string reason;
};

struct Report {
  std::string plugin;         // the plugin's name
  std::string manifest;       // the manifest it was loaded from
  bool manifest_synthesized = false;
  std::string reference;      // the cpu reference's manifest, or "" (alone)
  std::vector<std::string> devices;  // devices checked
  std::vector<Check> checks;
  std::vector<OpRow> ops;
  std::vector<Skip> skips;
  double seconds = 0;
  // Set when the run stopped before its checks were done (exit status 2):
  // a usage error, or a plugin that did not load.
  std::string error;

  void Add(Check check) { checks.push_back(std::move(check)); }
  void Pass(std::string section, std::string name, std::string detail = "") {
    checks.push_back({std::move(section), std::move(name), Outcome::kPass,
                      std::move(detail)});
  }
  void Fail(std::string section, std::string name, std::string detail) {
    checks.push_back({std::move(section), std::move(name), Outcome::kFail,
                      std::move(detail)});
  }
  void SkipCheck(std::string section, std::string name, std::string reason) {
    checks.push_back({std::move(section), std::move(name), Outcome::kSkip,
                      std::move(reason)});
  }

  // Totals over checks and op tests.
  int Failures() const;
};

// Exit status: 2 when the run stopped (`error`), else 0 when nothing failed
// (skips are fine), else 1.
int ExitCode(const Report& report);

// The human form: checks, the per-op table with the first failures, the
// skip list, a summary line.
void PrintText(const Report& report, std::ostream& out);

// {"plugin", "manifest", "manifest_synthesized", "reference", "devices",
//  "checks": [{"section","name","outcome","detail"}],
//  "ops": [{"device","op","dtypes","passed","failed","skipped","failures"}],
//  "skips": [{"what","reason"}],
//  "summary": {"checks_passed", …, "tests_failed", "exit_code"}, "seconds",
//  "error" (only when the run stopped)}
nlohmann::json ToJson(const Report& report);

}  // namespace sy::conformance

#endif  // SWITCHYARD_SDK_CONFORMANCE_TOOL_REPORT_H_
