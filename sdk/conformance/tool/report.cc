#include "sdk/conformance/tool/report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

namespace sy::conformance {
namespace {

struct Totals {
  int checks_passed = 0, checks_failed = 0, checks_skipped = 0;
  int tests_passed = 0, tests_failed = 0, tests_skipped = 0;
  int ops_passed = 0, ops_failed = 0;
};

Totals Count(const Report& report) {
  Totals t;
  for (const Check& c : report.checks) {
    if (c.outcome == Outcome::kPass) ++t.checks_passed;
    if (c.outcome == Outcome::kFail) ++t.checks_failed;
    if (c.outcome == Outcome::kSkip) ++t.checks_skipped;
  }
  for (const OpRow& row : report.ops) {
    t.tests_passed += row.passed;
    t.tests_failed += row.failed;
    t.tests_skipped += row.skipped;
    if (row.failed > 0) ++t.ops_failed;
    else if (row.passed > 0) ++t.ops_passed;
  }
  return t;
}

// Failure messages can be pages long (inputs, seeds, indices); the table
// shows the head of each and says where to see the rest.
std::string Indent(const std::string& text, size_t max_lines) {
  std::string out;
  size_t lines = 0, start = 0;
  while (start <= text.size() && lines < max_lines) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    absl::StrAppend(&out, "      ", text.substr(start, end - start), "\n");
    ++lines;
    start = end + 1;
  }
  if (start < text.size()) absl::StrAppend(&out, "      …\n");
  return out;
}

}  // namespace

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPass: return "pass";
    case Outcome::kFail: return "fail";
    case Outcome::kSkip: return "skip";
  }
  return "fail";
}

int Report::Failures() const {
  const Totals t = Count(*this);
  return t.checks_failed + t.tests_failed;
}

int ExitCode(const Report& report) {
  if (!report.error.empty()) return 2;
  return report.Failures() == 0 ? 0 : 1;
}

void PrintText(const Report& report, std::ostream& out) {
  out << "switchyard-conformance: plugin '" << report.plugin << "' ("
      << report.manifest
      << (report.manifest_synthesized ? ", manifest made from the library" : "")
      << ")\n";
  out << "  reference: "
      << (report.reference.empty() ? "none (the plugin is tested alone)"
                                   : report.reference)
      << "\n\n";

  std::string section;
  for (const Check& c : report.checks) {
    if (c.section != section) {
      section = c.section;
      out << "[" << section << "]\n";
    }
    char tag[16];
    std::snprintf(tag, sizeof(tag), "%-4s", OutcomeName(c.outcome));
    out << "  " << tag << "  " << c.name;
    if (!c.detail.empty()) out << ": " << c.detail;
    out << "\n";
  }

  if (!report.ops.empty()) {
    size_t op_width = 2, dtype_width = 6;
    std::vector<std::string> dtype_text;
    for (const OpRow& row : report.ops) {
      op_width = std::max(op_width, row.op.size());
      dtype_text.push_back(absl::StrJoin(row.dtypes, " "));
      dtype_width = std::max(dtype_width, std::min<size_t>(dtype_text.back().size(), 48));
    }
    out << "\n[kernels: op harness";
    if (!report.devices.empty()) out << " on " << absl::StrJoin(report.devices, ", ");
    out << "]\n";
    char line[512];
    std::snprintf(line, sizeof(line), "  %-6s %-8s %-*s %-*s %6s %6s %7s\n",
                  "result", "device", static_cast<int>(op_width), "op",
                  static_cast<int>(dtype_width), "dtypes", "passed", "failed",
                  "skipped");
    out << line;
    for (size_t i = 0; i < report.ops.size(); ++i) {
      const OpRow& row = report.ops[i];
      std::string dtypes = dtype_text[i];
      if (dtypes.size() > 48) dtypes = dtypes.substr(0, 45) + "...";
      const char* verdict =
          row.failed > 0 ? "FAIL" : row.passed > 0 ? "ok" : "skip";
      std::snprintf(line, sizeof(line), "  %-6s %-8s %-*s %-*s %6d %6d %7d\n",
                    verdict, row.device.c_str(), static_cast<int>(op_width),
                    row.op.c_str(), static_cast<int>(dtype_width),
                    dtypes.c_str(), row.passed, row.failed, row.skipped);
      out << line;
    }
    bool any_failure = false;
    for (const OpRow& row : report.ops) {
      if (row.failures.empty()) continue;
      if (!any_failure) out << "\nFailures (first of each op; --json has all listed):\n";
      any_failure = true;
      out << "  " << row.op << " on " << row.device << ":\n";
      for (const std::string& f : row.failures) out << Indent(f, 12);
    }
  }

  if (!report.skips.empty()) {
    out << "\n[skipped]\n";
    // "op X on D" entries that share a reason and a device are folded into
    // one line: a plugin with five ops would otherwise list sixty.
    std::map<std::pair<std::string, std::string>, std::vector<std::string>> folded;
    for (const Skip& s : report.skips) {
      const size_t on = s.what.rfind(" on ");
      if (s.what.rfind("op ", 0) == 0 && on != std::string::npos) {
        folded[{s.what.substr(on + 4), s.reason}].push_back(s.what.substr(3, on - 3));
      } else {
        out << "  " << s.what << ": " << s.reason << "\n";
      }
    }
    for (const auto& [key, ops] : folded) {
      out << "  " << ops.size() << " op(s) on " << key.first << ", " << key.second
          << ":\n";
      std::string line = "   ";
      for (const std::string& op : ops) {
        if (line.size() + op.size() > 96) {
          out << line << "\n";
          line = "   ";
        }
        absl::StrAppend(&line, " ", op);
      }
      out << line << "\n";
    }
  }

  const Totals t = Count(report);
  if (!report.error.empty()) {
    out << "\nStopped: " << report.error << "\n";
    return;
  }
  out << "\nSummary: " << (ExitCode(report) == 0 ? "PASS" : "FAIL") << " — checks "
      << t.checks_passed << " passed, " << t.checks_failed << " failed, "
      << t.checks_skipped << " skipped; ops " << t.ops_passed << " passed, "
      << t.ops_failed << " failed; op tests " << t.tests_passed << " passed, "
      << t.tests_failed << " failed, " << t.tests_skipped << " skipped; "
      << absl::StrFormat("%.1f", report.seconds) << " s\n";
}

nlohmann::json ToJson(const Report& report) {
  nlohmann::json j;
  j["plugin"] = report.plugin;
  j["manifest"] = report.manifest;
  j["manifest_synthesized"] = report.manifest_synthesized;
  j["reference"] = report.reference;
  j["devices"] = report.devices;
  j["checks"] = nlohmann::json::array();
  for (const Check& c : report.checks) {
    j["checks"].push_back({{"section", c.section},
                           {"name", c.name},
                           {"outcome", OutcomeName(c.outcome)},
                           {"detail", c.detail}});
  }
  j["ops"] = nlohmann::json::array();
  for (const OpRow& row : report.ops) {
    j["ops"].push_back({{"device", row.device},
                        {"op", row.op},
                        {"dtypes", row.dtypes},
                        {"passed", row.passed},
                        {"failed", row.failed},
                        {"skipped", row.skipped},
                        {"failures", row.failures}});
  }
  j["skips"] = nlohmann::json::array();
  for (const Skip& s : report.skips) {
    j["skips"].push_back({{"what", s.what}, {"reason", s.reason}});
  }
  const Totals t = Count(report);
  j["summary"] = {{"checks_passed", t.checks_passed},
                  {"checks_failed", t.checks_failed},
                  {"checks_skipped", t.checks_skipped},
                  {"ops_passed", t.ops_passed},
                  {"ops_failed", t.ops_failed},
                  {"tests_passed", t.tests_passed},
                  {"tests_failed", t.tests_failed},
                  {"tests_skipped", t.tests_skipped},
                  {"exit_code", ExitCode(report)}};
  j["seconds"] = report.seconds;
  if (!report.error.empty()) j["error"] = report.error;
  return j;
}

}  // namespace sy::conformance
