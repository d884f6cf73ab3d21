// The seams the passes build on: a graph capture records resolved calls
// without running them (dispatch/capture.h), symbolic tensors, and the
// trace (trace/trace.h) — which is also how these tests see what a call
// ran, so that "explain equals what ran" is checked for every route.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "dispatcher/base/log.h"
#include "dispatcher/dispatch/bind.h"
#include "dispatcher/dispatch/capture.h"
#include "dispatcher/trace/trace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "test_util.h"

namespace sy::testing {
namespace {

using ::testing::HasSubstr;

// Records every call it is handed and answers with symbolic outputs.
class Recorder : public CallInterceptor {
 public:
  struct Entry {
    std::string op;
    std::string route;
  };
  absl::StatusOr<TensorList> Record(const BoundCall& bound,
                                    const Resolution& resolution,
                                    absl::Span<const Tensor* const> provided) override {
    entries.push_back({bound.op->full_name(), DescribeResolution(resolution)});
    TensorList outputs;
    if (!provided.empty()) return outputs;
    for (const sy_tensor_meta_t& meta : bound.outputs) {
      outputs.push_back(Tensor::Symbolic(*bound.device, meta));
    }
    return outputs;
  }
  std::vector<Entry> entries;
};

class SeamsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    runtime_ = MakeRuntime();
    ASSERT_NE(runtime_, nullptr);
    cpu_ = runtime_->GetDevice("cpu").value();
  }
  Tensor Ones(std::vector<int64_t> shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<float> data(static_cast<size_t>(n), 1.0f);
    return runtime_->FromHost(*cpu_, SY_DTYPE_F32, shape, data.data(), data.size() * 4)
        .value();
  }
  OpHandle Op(const char* name) { return runtime_->FindOp(name).value(); }

  std::unique_ptr<Runtime> runtime_;
  Device* cpu_ = nullptr;
};

TEST_F(SeamsTest, ACaptureRecordsResolvedCallsWithoutRunningThem) {
  const Tensor x = Ones({2, 3});
  const uint64_t allocated = cpu_->allocator().stats().num_allocations;
  Recorder recorder;
  std::vector<Tensor> y, z, v;
  {
    ScopedInterception capture(&recorder);
    y = runtime_->Call(Op("exp"), {x}).value();
    // Ops on symbolic tensors work inside the capture, views included.
    z = runtime_->Call(Op("add"), {y[0], x}).value();
    v = runtime_->Call(Op("reshape"), {z[0]}, {Attr({3, 2})}).value();
  }
  ASSERT_EQ(recorder.entries.size(), 3u);
  EXPECT_EQ(recorder.entries[0].op, "exp");
  EXPECT_EQ(recorder.entries[0].route, "kernel cpu::exp.f32 (priority)");
  EXPECT_EQ(recorder.entries[1].op, "add.Tensor");
  EXPECT_EQ(recorder.entries[2].route, "view");
  EXPECT_TRUE(y[0].symbolic());
  EXPECT_EQ(v[0].Describe(), "symbolic f32[3, 2] on cpu:0");
  // Nothing ran: no output memory was allocated.
  EXPECT_EQ(cpu_->allocator().stats().num_allocations, allocated);
  // Outside the capture a symbolic tensor is refused, with a reason.
  absl::StatusOr<std::vector<Tensor>> outside = runtime_->Call(Op("exp"), {y[0]});
  EXPECT_EQ(outside.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(outside.status().message(),
            "exp: argument 'x' is a symbolic tensor of a graph capture, which "
            "has no values; call ops on it inside the capture, or launch the "
            "captured graph to get real tensors");
  std::vector<float> host(6);
  EXPECT_EQ(runtime_->ToHost(y[0], host.data(), 24).code(),
            absl::StatusCode::kFailedPrecondition);
  // Calls on other threads, and after the capture, run as usual.
  EXPECT_TRUE(runtime_->Call(Op("exp"), {x}).ok());
}

// The trace's call events, in order.
std::vector<nlohmann::json> CallEvents(const std::string& path) {
  std::ifstream in(path);
  nlohmann::json doc = nlohmann::json::parse(in);
  std::vector<nlohmann::json> calls;
  for (const nlohmann::json& e : doc["traceEvents"]) {
    if (e.value("cat", "") == "op") calls.push_back(e);
  }
  return calls;
}

TEST_F(SeamsTest, ATraceHasOneEventPerCallAndExplainEqualsWhatRanOnEveryRoute) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "switchyard_seams_trace.json").string();
  const Tensor x = Ones({2, 3});
  const Tensor w = Ones({4, 3});
  static const int64_t kShape[] = {3, 2};  // Attr borrows its list
  // (op, inputs, attrs, route) for every route.
  struct Case {
    const char* op;
    std::vector<Tensor> inputs;
    std::vector<Attr> attrs;
    RouteRequest route;
  };
  const std::vector<Case> cases = {
      {"exp", {x}, {}, {}},                                  // kernel
      {"reshape", {x}, {Attr(absl::MakeConstSpan(kShape))}, {}},  // view
      {"linear", {x, w, Tensor()}, {}, {}},                  // decomposition (no cpu linear)
      {"gelu", {x}, {}, RouteRequest::Decomposition()},      // requested decomposition
      {"neg", {x}, {}, RouteRequest::Kernel("cpu::neg.f32")},  // requested kernel
  };
  std::vector<std::string> explained;
  for (const Case& c : cases) {
    absl::StatusOr<std::string> how =
        runtime_->Explain(Op(c.op), c.inputs, c.attrs, {}, c.route);
    ASSERT_TRUE(how.ok()) << c.op << ": " << how.status();
    explained.push_back(*how);
  }
  ASSERT_TRUE(trace::Start(path).ok());
  struct StopAtEnd {
    ~StopAtEnd() { (void)trace::Stop(); }
  } stop_at_end;  // a failed ASSERT must not leave the trace running
  for (const Case& c : cases) {
    std::vector<const Tensor*> in;
    for (const Tensor& t : c.inputs) in.push_back(&t);
    TensorList produced;
    CallArgs args;
    args.inputs = in;
    args.attrs = absl::MakeConstSpan(static_cast<const sy_attr_t*>(c.attrs.data()),
                                     c.attrs.size());
    args.produced = &produced;
    args.route = c.route;
    const absl::Status ran = runtime_->Execute(Op(c.op), args);
    ASSERT_TRUE(ran.ok()) << c.op << ": " << ran;
  }
  ASSERT_TRUE(trace::Stop().ok());
  EXPECT_EQ(trace::Stop().code(), absl::StatusCode::kFailedPrecondition);
  const std::vector<nlohmann::json> calls = CallEvents(path);
  // Top-level calls in order; decompositions add their inner calls.
  std::vector<std::string> top_routes;
  size_t next = 0;
  for (const Case& c : cases) {
    const OpDef* def = Op(c.op).def();
    while (next < calls.size() && calls[next]["name"] != def->full_name()) ++next;
    ASSERT_LT(next, calls.size()) << "no event for " << c.op;
    top_routes.push_back(calls[next]["args"]["route"].get<std::string>());
    EXPECT_EQ(calls[next]["args"]["device"], "cpu:0");
    EXPECT_EQ(calls[next]["args"]["dtypes"].get<std::string>().substr(0, 3), "f32");
    ++next;
  }
  EXPECT_EQ(top_routes, explained);
  EXPECT_EQ(explained[0], "kernel cpu::exp.f32 (priority)");
  EXPECT_EQ(explained[1], "view");
  EXPECT_EQ(explained[2], "decomposition");
  EXPECT_EQ(explained[3], "decomposition (requested)");
  EXPECT_EQ(explained[4], "kernel cpu::neg.f32 (requested)");
  // The linear decomposition's inner matmul is its own event.
  bool inner = false;
  for (const nlohmann::json& e : calls) inner |= e["name"] == "matmul";
  EXPECT_TRUE(inner);
  std::filesystem::remove(path);
}

TEST_F(SeamsTest, DebugLoggingSaysHowEachCallResolved) {
  std::vector<std::string> lines;
  SetLogSink([&](LogLevel, absl::string_view line) { lines.emplace_back(line); });
  const LogLevel before = GetLogLevel();
  SetLogLevel(*ParseLogLevel("DEBUG"));
  const Tensor x = Ones({2, 3});
  EXPECT_TRUE(runtime_->Call(Op("exp"), {x}).ok());
  SetLogLevel(before);
  SetLogSink(nullptr);
  EXPECT_THAT(lines, ::testing::Contains(
                         "exp on cpu:0 (f32; [2, 3]): kernel cpu::exp.f32 (priority)"));
  EXPECT_EQ(ParseLogLevel("loud").status().message(),
            "unknown log level 'loud'; the levels are off, error, warning, "
            "info, debug");
  EXPECT_EQ(*ParseLogLevel("warn"), LogLevel::kWarning);
}

TEST(Trace, RefusesBadStartsAndRecordsNothingWhileOff) {
  EXPECT_EQ(trace::Start("").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(trace::Start("/nonexistent-dir/t.json").message()),
              HasSubstr("cannot create /nonexistent-dir/t.json"));
  EXPECT_FALSE(trace::Enabled());
  const std::string path =
      (std::filesystem::temp_directory_path() / "switchyard_second.json").string();
  ASSERT_TRUE(trace::Start(path).ok());
  EXPECT_EQ(trace::Start(path).code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(trace::Stop().ok());
  EXPECT_TRUE(CallEvents(path).empty());
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace sy::testing
