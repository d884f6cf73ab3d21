#include "sdk/conformance/tool/kernel_checks.h"

#include <fnmatch.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "sdk/conformance/harness/error_cases.h"
#include "sdk/conformance/harness/harness.h"
#include "sdk/conformance/harness/op_specs.h"
#include "sdk/conformance/harness/runtime_backend.h"
#include "nlohmann/json.hpp"
#include "sdk/conformance/tool/plugin_only_backend.h"

namespace sy::conformance {
namespace {

// Failing tests whose first message is kept, per op.
constexpr size_t kFailuresPerOp = 3;

// Where a selected gtest test's result goes.
struct TestSlot {
  size_t row;           // index into Report::ops
  std::string variant;  // "f32", "Errors.div_Tensor_by_zero/i32"
};

// Skipped tests of one op, folded into one skip-list entry.
struct SkippedTests {
  std::vector<std::string> variants;
  std::string first_reason;
};

// The reason a skipped test gives, on one line: the harness prefixes the
// backend's message with the case and inputs.
// A skip without the wrapper's words came from the runtime itself: no
// kernel of any plugin for those dtypes on the device.
std::string SkipReason(const std::string& message, const std::string& plugin) {
  const size_t at = message.find("not registered by ");
  std::string line;
  if (at != std::string::npos) {
    line = message.substr(at);
  } else {
    constexpr std::string_view kHarness = "not provided by this backend: ";
    const size_t from = message.find(kHarness);
    line = absl::StrCat(
        "not registered by ", plugin, " (no kernel for these dtypes on the device); first: ",
        message.substr(from == std::string::npos ? 0 : from + kHarness.size()));
  }
  if (size_t nl = line.find('\n'); nl != std::string::npos) line.resize(nl);
  return line;
}

// Collects every selected test's outcome into the report, and nothing of
// GoogleTest's own printing reaches the terminal.
class Collector : public testing::EmptyTestEventListener {
 public:
  Collector(Report& report, std::string plugin,
            const std::map<std::string, TestSlot>& slots,
            std::map<size_t, SkippedTests>& skipped)
      : report_(report), plugin_(std::move(plugin)), slots_(slots),
        skipped_(skipped) {}

  void OnTestStart(const testing::TestInfo&) override {
    failures_.clear();
    skip_message_.clear();
  }
  void OnTestPartResult(const testing::TestPartResult& result) override {
    if (result.failed()) failures_.push_back(result.message());
    if (result.skipped() && skip_message_.empty()) skip_message_ = result.message();
  }
  void OnTestEnd(const testing::TestInfo& info) override {
    auto it = slots_.find(absl::StrCat(info.test_suite_name(), ".", info.name()));
    if (it == slots_.end()) return;
    OpRow& row = report_.ops[it->second.row];
    const testing::TestResult& result = *info.result();
    if (result.Failed()) {
      ++row.failed;
      // One message per failing test (its first), for the first few tests.
      if (row.failures.size() < kFailuresPerOp && !failures_.empty()) {
        std::string first = failures_.front();
        if (first.rfind("Failed\n", 0) == 0) first.erase(0, 7);  // ADD_FAILURE's
        row.failures.push_back(absl::StrCat("[", it->second.variant, "] ", first));
      }
    } else if (result.Skipped()) {
      ++row.skipped;
      SkippedTests& s = skipped_[it->second.row];
      s.variants.push_back(it->second.variant);
      if (s.first_reason.empty()) s.first_reason = SkipReason(skip_message_, plugin_);
    } else {
      ++row.passed;
    }
  }

 private:
  Report& report_;
  std::string plugin_;
  const std::map<std::string, TestSlot>& slots_;
  std::map<size_t, SkippedTests>& skipped_;
  std::vector<std::string> failures_;
  std::string skip_message_;
};

std::string SuitePrefix(const std::string& device_type) {
  std::string prefix = device_type;
  if (!prefix.empty()) prefix[0] = static_cast<char>(std::toupper(prefix[0]));
  return prefix;
}

std::string BaseName(const std::string& op) { return op.substr(0, op.find('.')); }

// The plugin's kernels on `device_type`, per op, highest priority first
// (registration order among equals): what a call may be routed to.
KernelsByOp KernelsOn(const std::vector<PluginKernel>& kernels,
                      const std::string& device_type) {
  std::vector<const PluginKernel*> order;
  for (const PluginKernel& k : kernels) {
    if (k.device_type == device_type) order.push_back(&k);
  }
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) {
    return a->priority > b->priority;
  });
  KernelsByOp by_op;
  for (const PluginKernel* k : order) by_op[k->op_name].push_back(k->name);
  return by_op;
}

// What the op is, by full name.
struct OpKind {
  bool view = false;
  bool decomposition = false;
};
std::map<std::string, OpKind> OpKinds(const sy::Context& context) {
  std::map<std::string, OpKind> kinds;
  sy::Result<std::string> json = context.info_json();
  if (!json.ok()) return kinds;
  const nlohmann::json info = nlohmann::json::parse(*json, nullptr, false);
  if (info.is_discarded()) return kinds;
  for (const auto& op : info["ops"]) {
    kinds[op["name"].get<std::string>()] = {op["view"].get<bool>(),
                                            op["decomposition"].get<bool>()};
  }
  return kinds;
}

}  // namespace

bool OpSelected(const std::vector<std::string>& filter, const std::string& op) {
  if (filter.empty()) return true;
  const std::string base = BaseName(op);
  for (const std::string& pattern : filter) {
    if (fnmatch(pattern.c_str(), op.c_str(), 0) == 0 ||
        fnmatch(pattern.c_str(), base.c_str(), 0) == 0) {
      return true;
    }
  }
  return false;
}

void RunKernelChecks(const sy::Context& context, const std::vector<std::string>& devices,
                     const std::vector<PluginKernel>& kernels,
                     const KernelCheckOptions& options, Report& report) {
  const std::map<std::string, OpKind> op_kinds = OpKinds(context);
  const std::vector<op_harness::OpTest> tests = op_harness::AllOpTests();
  const std::vector<op_harness::ErrorCase> errors = op_harness::ErrorCases();
  std::set<std::string> harness_ops;
  for (const auto& t : tests) harness_ops.insert(t.op);
  for (const auto& e : errors) harness_ops.insert(e.op);

  std::map<std::string, TestSlot> slots;  // gtest full name → row
  std::vector<std::string> gtest_names;  // the tests to run
  for (const std::string& spec : devices) {
    sy::Result<sy::Device> device = context.device(spec);
    sy::Result<sy::DeviceInfo> info =
        device.ok() ? device->info() : sy::Result<sy::DeviceInfo>(device.status());
    if (!info.ok()) {
      report.skips.push_back({"kernels on " + spec, info.status().message()});
      continue;
    }
    const std::string type = info->type;
    const std::string label = info->label;
    const bool own_device = info->plugin == options.plugin;
    // The plugin's ops on this device type, with the dtypes it registers.
    std::map<std::string, std::vector<std::string>> claimed;
    for (const PluginKernel& k : kernels) {
      if (k.device_type != type || !OpSelected(options.filter, k.op_name)) continue;
      std::vector<std::string>& d = claimed[k.op_name];
      if (std::find(d.begin(), d.end(), k.dtypes) == d.end()) d.push_back(k.dtypes);
    }
    // On its own device, ops the core computes without a kernel of their
    // own (views, decompositions) run on the plugin's kernels: test those
    // too, as a user of the device would call them.
    if (own_device) {
      for (const std::string& op : harness_ops) {
        auto kind = op_kinds.find(op);
        if (claimed.contains(op) || kind == op_kinds.end() || !OpSelected(options.filter, op)) {
          continue;
        }
        if (kind->second.view) claimed[op] = {"(view)"};
        else if (kind->second.decomposition) claimed[op] = {"(decomposed)"};
      }
    }
    for (const std::string& op : harness_ops) {
      if (!claimed.contains(op) && OpSelected(options.filter, op)) {
        report.skips.push_back({absl::StrCat("op ", op, " on ", label),
                                "not registered by " + options.plugin});
      }
    }
    const std::string prefix = SuitePrefix(type);
    for (const auto& [op, dtypes] : claimed) {
      if (!harness_ops.contains(op)) {
        report.skips.push_back(
            {absl::StrCat("op ", op, " on ", label),
             "the op harness has no tests for it (it covers core op set v1; "
             "test the plugin's own ops in its own test suite)"});
        continue;
      }
      OpRow op_row;
      op_row.device = label;
      op_row.op = op;
      op_row.dtypes = dtypes;
      report.ops.push_back(std::move(op_row));
      const size_t row = report.ops.size() - 1;
      for (const auto& t : tests) {
        if (t.op != op) continue;
        const std::string name = absl::StrCat(prefix, "/", t.family, ".", t.TestName());
        slots[name] = {row, absl::StrCat(t.family, "/", t.variant)};
        gtest_names.push_back(name);
      }
      for (const auto& e : errors) {
        if (e.op != op) continue;
        const std::string name =
            absl::StrCat(prefix, "/Errors.", e.name, "/", e.variant);
        slots[name] = {row, absl::StrCat("Errors.", e.name, "/", e.variant)};
        gtest_names.push_back(name);
      }
    }
    report.devices.push_back(label);

    op_harness::HarnessOptions harness;
    harness.suite_prefix = prefix;
    harness.require_every_kernel = false;  // skips are reported, not failed
    if (options.seed) harness.seed = *options.seed;
    harness.make_backend = [&context, spec, plugin = options.plugin, own_device,
                            routes = KernelsOn(kernels, type)]()
        -> op_harness::Result<std::unique_ptr<op_harness::BackendUnderTest>> {
      auto inner = op_harness::CreateRuntimeBackendOn(context, spec);
      if (!inner.ok()) return inner.status();
      return MakePluginOnlyBackend(std::move(*inner), plugin, own_device, routes);
    };
    op_harness::RegisterOpHarnessTests(harness);
  }
  if (gtest_names.empty()) return;

  int argc = 1;
  char program[] = "switchyard-conformance";
  char* argv[] = {program, nullptr};
  testing::InitGoogleTest(&argc, argv);
  GTEST_FLAG_SET(filter, absl::StrJoin(gtest_names, ":"));
  std::map<size_t, SkippedTests> skipped;
  testing::TestEventListeners& listeners =
      testing::UnitTest::GetInstance()->listeners();
  delete listeners.Release(listeners.default_result_printer());
  listeners.Append(new Collector(report, options.plugin, slots, skipped));
  // The harness notes partial coverage on std::cout; the report says it.
  std::ostringstream notes;
  std::streambuf* saved = std::cout.rdbuf(notes.rdbuf());
  // The verdicts are in the report; RUN_ALL_TESTS's summary adds nothing.
  [[maybe_unused]] const int gtest_status = RUN_ALL_TESTS();
  std::cout.rdbuf(saved);

  for (const auto& [row, s] : skipped) {
    const OpRow& r = report.ops[row];
    report.skips.push_back(
        {absl::StrCat("tests of ", r.op, " on ", r.device, " (",
                      absl::StrJoin(s.variants, ", "), ")"),
         s.first_reason});
  }
}

}  // namespace sy::conformance
