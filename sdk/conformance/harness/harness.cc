#include "sdk/conformance/harness/harness.h"

#include <cstdlib>
#include <iostream>
#include <set>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "sdk/conformance/harness/case_runner.h"
#include "sdk/conformance/harness/error_cases.h"
#include "sdk/conformance/harness/op_specs.h"
#include "sdk/conformance/harness/random_inputs.h"

namespace sy::op_harness {
namespace {

// At most this many failing runs are printed per test; the rest are counted.
constexpr size_t kMaxPrintedFailures = 6;

// The backend, made on first use and shared by every test of the process.
class SharedBackend {
 public:
  explicit SharedBackend(HarnessOptions options) : options_(std::move(options)) {}

  const HarnessOptions& options() const { return options_; }

  // nullptr (with the reason in `error`) if it could not be made.
  BackendUnderTest* Get(std::string& error) {
    if (!tried_) {
      tried_ = true;
      if (!options_.make_backend) {
        error_ = "HarnessOptions::make_backend is not set";
      } else {
        Result<std::unique_ptr<BackendUnderTest>> made = options_.make_backend();
        if (made.ok()) {
          backend_ = std::move(*made);
        } else {
          error_ = std::string(StatusCodeName(made.status().code)) + ": " +
                   made.status().message;
        }
      }
    }
    error = error_;
    return backend_.get();
  }

  // Tensors the tests made are gone by now; the runtime may go too.
  void Release() { backend_.reset(); }

 private:
  HarnessOptions options_;
  bool tried_ = false;
  std::string error_;
  std::unique_ptr<BackendUnderTest> backend_;
};

class ReleaseBackend : public testing::Environment {
 public:
  explicit ReleaseBackend(std::shared_ptr<SharedBackend> shared)
      : shared_(std::move(shared)) {}
  void TearDown() override { shared_->Release(); }

 private:
  std::shared_ptr<SharedBackend> shared_;
};

// Reports the runs that found no kernel, per the policy: a failure, a skip
// of the whole test (nothing else ran), or a note.
void ReportMissing(const std::vector<std::string>& missing, int passed,
                   bool failed, const HarnessOptions& options) {
  if (missing.empty()) return;
  const std::string& first = missing.front();
  const std::string count =
      std::to_string(missing.size()) + " case(s) found no kernel";
  if (options.require_every_kernel) {
    ADD_FAILURE() << count
                  << "; this backend must provide every dtype combination "
                     "the spec allows (require_every_kernel). First:\n  "
                  << first;
    return;
  }
  if (passed == 0 && !failed) {
    GTEST_SKIP() << "not provided by this backend: " << first;
  }
  testing::Test::RecordProperty("missing_kernels", static_cast<int>(missing.size()));
  std::cout << "[ NOTE     ] " << count << " (skipped by policy); first:\n  "
            << first << "\n";
}

uint64_t SeedFromEnvironment(uint64_t fallback) {
  const char* text = std::getenv("SWITCHYARD_OP_HARNESS_SEED");
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 0);
  return end != nullptr && *end == '\0' ? v : fallback;
}

void RunErrorCase(BackendUnderTest& backend, const ErrorCase& error,
                  const HarnessOptions& options, const std::string& full_name) {
  const LayoutRun contiguous{"contiguous", {}};
  OpCase call;
  call.label = "the refused call";
  call.inputs = error.inputs;
  Result<MadeInputs> made =
      MakeInputs(backend, call, contiguous, MixSeed(options.seed, full_name, 0, 0));
  ASSERT_TRUE(made.ok()) << "could not make the inputs: " << made.status().message;
  const std::string what = error.op + " with inputs " +
                           DescribeInputs(made->host, contiguous);
  Result<std::vector<DeviceTensor>> out =
      backend.Call(error.op, made->device, error.attrs, error.list_sizes,
                   CallMode::kDispatch);
  Status failure = out.ok() ? Status() : out.status();
  std::string when = "the call";
  if (out.ok() && error.found_in_data && !out->empty()) {
    // A device may find a bad value on the device and report it when the
    // stream next synchronizes (Note [Deferred device checks]): reading the
    // output back must fail then.
    Result<RefTensor> read = backend.Download(out->front());
    if (!read.ok()) {
      failure = read.status();
      when = "reading the output back";
    }
  }
  if (failure.ok()) {
    ADD_FAILURE() << what << ": the call succeeded"
                  << (error.found_in_data ? ", and so did reading its output back," : ",")
                  << " but the spec refuses it (" << error.name
                  << "); it must fail with INVALID_ARGUMENT";
  } else if (failure.code == SY_STATUS_UNIMPLEMENTED) {
    ReportMissing({what + ": " + failure.message}, 0, false, options);
    return;
  } else {
    EXPECT_EQ(failure.code, SY_STATUS_INVALID_ARGUMENT)
        << what << ": " << when << " failed with " << StatusCodeName(failure.code)
        << ", expected INVALID_ARGUMENT; message: " << failure.message;
    for (const std::string& problem :
         CheckErrorMessage(error.op, failure.message, error.mentions)) {
      ADD_FAILURE() << what << ": the error message (from " << when << ") " << problem
                    << ". Message: " << failure.message;
    }
  }
  // The backend must still work: the follow-up, a valid call of the op.
  OpTest follow{"Errors", error.op, error.variant, CallMode::kDispatch, {}};
  const RunReport report =
      RunCase(backend, follow, error.follow_up, contiguous,
              MixSeed(options.seed, full_name, 1, 0));
  if (report.outcome == Outcome::kFail) {
    ADD_FAILURE() << "after the refused call, a valid call failed:\n  " << report.message;
  } else if (report.outcome == Outcome::kMissing) {
    ReportMissing({report.message}, 0, false, options);
  }
}

class HarnessTest : public testing::Test {
 public:
  HarnessTest(std::shared_ptr<SharedBackend> shared, std::string full_name,
              std::function<void(BackendUnderTest&, const HarnessOptions&,
                                 const std::string&)> body)
      : shared_(std::move(shared)), full_name_(std::move(full_name)),
        body_(std::move(body)) {}

  void TestBody() override {
    std::string error;
    BackendUnderTest* backend = shared_->Get(error);
    ASSERT_NE(backend, nullptr) << "the backend under test could not be made: "
                                << error;
    body_(*backend, shared_->options(), full_name_);
  }

 private:
  std::shared_ptr<SharedBackend> shared_;
  std::string full_name_;
  std::function<void(BackendUnderTest&, const HarnessOptions&, const std::string&)> body_;
};

void Register(const std::shared_ptr<SharedBackend>& shared, const std::string& suite,
              const std::string& name,
              std::function<void(BackendUnderTest&, const HarnessOptions&,
                                 const std::string&)> body) {
  const std::string full_name = suite + "." + name;
  testing::RegisterTest(
      suite.c_str(), name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
      [shared, full_name, body]() -> testing::Test* {
        return new HarnessTest(shared, full_name, body);
      });
}

}  // namespace

void RunOpTest(BackendUnderTest& backend, const OpTest& test,
               const HarnessOptions& options) {
  const std::string name = test.family + "." + test.TestName();
  const std::vector<OpCase> cases = test.cases();
  std::vector<std::string> failures, missing;
  int passed = 0;
  for (size_t c = 0; c < cases.size(); ++c) {
    const std::vector<LayoutRun> runs = LayoutRunsFor(cases[c]);
    for (size_t r = 0; r < runs.size(); ++r) {
      const uint64_t seed = MixSeed(options.seed, name, c, r);
      RunReport report = RunCase(backend, test, cases[c], runs[r], seed);
      if (report.outcome == Outcome::kPass) {
        ++passed;
      } else if (report.outcome == Outcome::kFail) {
        failures.push_back(std::move(report.message));
      } else {
        // Kernels are chosen by dtypes, not layouts: the other layouts of
        // this case would find none either.
        missing.push_back(std::move(report.message));
        break;
      }
    }
  }
  for (size_t i = 0; i < failures.size() && i < kMaxPrintedFailures; ++i) {
    ADD_FAILURE() << failures[i];
  }
  if (failures.size() > kMaxPrintedFailures) {
    ADD_FAILURE() << "… and " << failures.size() - kMaxPrintedFailures
                  << " more failing runs of " << test.op << " (" << passed
                  << " passed)";
  }
  ReportMissing(missing, passed, !failures.empty(), options);
}

void RegisterOpHarnessTests(const HarnessOptions& given) {
  HarnessOptions options = given;
  options.seed = SeedFromEnvironment(options.seed);
  auto shared = std::make_shared<SharedBackend>(options);
  testing::AddGlobalTestEnvironment(new ReleaseBackend(shared));
  for (OpTest& test : AllOpTests()) {
    const std::string suite = options.suite_prefix + "/" + test.family;
    const std::string name = test.TestName();  // before `test` moves
    Register(shared, suite, name,
             [test = std::move(test)](BackendUnderTest& backend,
                                      const HarnessOptions& opts, const std::string&) {
               RunOpTest(backend, test, opts);
             });
  }
  for (ErrorCase& error : ErrorCases()) {
    const std::string suite = options.suite_prefix + "/Errors";
    const std::string name = error.name + "/" + error.variant;
    Register(shared, suite, name,
             [error = std::move(error)](BackendUnderTest& backend,
                                        const HarnessOptions& opts,
                                        const std::string& full_name) {
               RunErrorCase(backend, error, opts, full_name);
             });
  }
}

}  // namespace sy::op_harness
