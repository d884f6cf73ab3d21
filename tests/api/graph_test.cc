// sy_graph_*: capture, compile and launch on cpu against float64
// references with random inputs, relaunch with new inputs, the queries,
// and bad input of every kind with its exact message (graph.h).
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "c_api_test_util.h"
#include "nlohmann/json.hpp"

namespace sy_test {
namespace {

constexpr int64_t kRows = 5, kCols = 37;

class GraphTest : public CApiTest {
 protected:
  void SetUp() override {
    CApiTest::SetUp();
    mul_ = Op(context_, "mul.Tensor");
    add_ = Op(context_, "add.Tensor");
    sub_ = Op(context_, "sub.Tensor");
    div_ = Op(context_, "div.Tensor");
    exp_ = Op(context_, "exp");
    max_ = Op(context_, "max");
    sum_ = Op(context_, "sum");
    w_values_ = RandomFloats(kCols, 7);
    w_ = F32(cpu_, {kCols}, w_values_);
  }
  void TearDown() override {
    for (sy_tensor_t t : owned_) EXPECT_EQ(sy_tensor_release(t), SY_STATUS_OK);
    CApiTest::TearDown();
  }

  sy_tensor_t Keep(sy_tensor_t t) {
    owned_.push_back(t);
    return t;
  }

  // softmax(x·w + y) over the last dim, from primitives; w is a constant.
  sy_tensor_t Softmax(sy_tensor_t x, sy_tensor_t y) {
    const std::vector<int64_t> last = {-1};
    sy_tensor_t z = Keep(Call1(add_, {Keep(Call1(mul_, {x, w_})), y}));
    sy_tensor_t m = Keep(Call1(max_, {z}, {IntsAttr(last), BoolAttr(true)}));
    sy_tensor_t e = Keep(Call1(exp_, {Keep(Call1(sub_, {z, m}))}));
    sy_tensor_t s = Keep(Call1(sum_, {e}, {IntsAttr(last), BoolAttr(true)}));
    return Keep(Call1(div_, {e, s}));
  }

  // Captures Softmax over inputs shaped like x0, y0 as a graph.
  sy_graph_t CaptureSoftmax() {
    sy_tensor_t x0 = Keep(F32(cpu_, {kRows, kCols}, RandomFloats(kRows * kCols, 1)));
    sy_tensor_t y0 = Keep(F32(cpu_, {kRows, kCols}, RandomFloats(kRows * kCols, 2)));
    EXPECT_EQ(sy_graph_capture_begin(context_, nullptr), SY_STATUS_OK) << sy_last_error_message();
    sy_tensor_t x = nullptr, y = nullptr;
    EXPECT_EQ(sy_graph_capture_input(context_, x0, "x", &x), SY_STATUS_OK);
    EXPECT_EQ(sy_graph_capture_input(context_, y0, "y", &y), SY_STATUS_OK);
    Keep(x);
    Keep(y);
    EXPECT_EQ(sy_graph_capture_output(context_, Softmax(x, y), "p"), SY_STATUS_OK)
        << sy_last_error_message();
    sy_graph_t graph = nullptr;
    EXPECT_EQ(sy_graph_capture_end(context_, &graph), SY_STATUS_OK) << sy_last_error_message();
    return graph;
  }

  std::vector<double> Reference(const std::vector<float>& x, const std::vector<float>& y) {
    std::vector<double> out(x.size());
    for (int64_t r = 0; r < kRows; ++r) {
      double m = -INFINITY, s = 0;
      for (int64_t c = 0; c < kCols; ++c) {
        out[r * kCols + c] = double(x[r * kCols + c]) * w_values_[c] + y[r * kCols + c];
        m = std::max(m, out[r * kCols + c]);
      }
      for (int64_t c = 0; c < kCols; ++c) s += out[r * kCols + c] = std::exp(out[r * kCols + c] - m);
      for (int64_t c = 0; c < kCols; ++c) out[r * kCols + c] /= s;
    }
    return out;
  }

  // Launches `graph` on fresh random inputs and checks the float64 result.
  void LaunchAndCheck(sy_graph_t graph, uint32_t seed) {
    const std::vector<float> x = RandomFloats(kRows * kCols, seed, -4, 4);
    const std::vector<float> y = RandomFloats(kRows * kCols, seed + 1, -4, 4);
    sy_tensor_t inputs[2] = {Keep(F32(cpu_, {kRows, kCols}, x)),
                             Keep(F32(cpu_, {kRows, kCols}, y))};
    sy_tensor_t out = nullptr;
    ASSERT_EQ(sy_graph_launch(graph, inputs, 2, &out, 1), SY_STATUS_OK)
        << sy_last_error_message();
    const std::vector<float> got = ReadF32(Keep(out));
    const std::vector<double> want = Reference(x, y);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 2e-6) << i;
  }

  sy_op_t mul_, add_, sub_, div_, exp_, max_, sum_;
  std::vector<float> w_values_;
  sy_tensor_t w_ = nullptr;
  std::vector<sy_tensor_t> owned_;
};

TEST_F(GraphTest, CapturedSoftmaxFusesAndMatchesFloat64OnNewInputs) {
  sy_graph_t graph = CaptureSoftmax();
  ASSERT_NE(graph, nullptr);
  ASSERT_EQ(sy_graph_compile(graph, nullptr), SY_STATUS_OK) << sy_last_error_message();
  for (uint32_t seed : {11u, 12u, 13u}) LaunchAndCheck(graph, seed);

  sy_graph_info_t info{};
  info.struct_size = sizeof info;
  ASSERT_EQ(sy_graph_get_info(graph, &info), SY_STATUS_OK);
  EXPECT_EQ(info.num_inputs, 2);
  EXPECT_EQ(info.num_outputs, 1);
  EXPECT_EQ(info.num_ops, 7);
  EXPECT_EQ(info.compiled, 1);
  EXPECT_EQ(info.fused_groups, 1);  // one row kernel: max, exp, sum, div and the rest
  EXPECT_EQ(info.fused_ops, 7);
  EXPECT_EQ(info.unfused_groups, 0);

  sy_graph_value_info_t value{};
  value.struct_size = sizeof value;
  ASSERT_EQ(sy_graph_get_value(graph, 0, 1, &value), SY_STATUS_OK);
  EXPECT_STREQ(value.name, "y");
  EXPECT_EQ(value.dtype, SY_DTYPE_F32);
  ASSERT_EQ(value.ndim, 2);
  EXPECT_EQ(value.shape[0], kRows);
  EXPECT_EQ(value.shape[1], kCols);
  EXPECT_EQ(value.device, cpu_);
  ASSERT_EQ(sy_graph_get_value(graph, 1, 0, &value), SY_STATUS_OK);
  EXPECT_STREQ(value.name, "p");

  const char* text = nullptr;
  ASSERT_EQ(sy_graph_explain(graph, SY_GRAPH_EXPLAIN_JSON, &text), SY_STATUS_OK);
  const nlohmann::json doc = nlohmann::json::parse(text);
  EXPECT_TRUE(doc["compiled"].get<bool>());
  ASSERT_EQ(doc["steps"].size(), 1u) << text;
  EXPECT_EQ(doc["steps"][0]["kind"], "fused");
  EXPECT_EQ(doc["steps"][0]["plugin"], "cpu");
  EXPECT_EQ(doc["steps"][0]["rows"], kRows);
  EXPECT_EQ(doc["steps"][0]["row_length"], kCols);
  EXPECT_EQ(doc["inputs"][1]["name"], "y");
  EXPECT_EQ(doc["captured"].size(), 7u);
  ASSERT_EQ(sy_graph_explain(graph, 0, &text), SY_STATUS_OK);
  EXPECT_NE(std::string(text).find("by plugin cpu"), std::string::npos) << text;

  // Unfused, the same graph gives the same values op by op.
  sy_graph_compile_args_t args;
  ASSERT_EQ(sy_graph_compile_args_init(&args), SY_STATUS_OK);
  args.fuse = 0;
  ASSERT_EQ(sy_graph_compile(graph, &args), SY_STATUS_OK) << sy_last_error_message();
  ASSERT_EQ(sy_graph_get_info(graph, &info), SY_STATUS_OK);
  EXPECT_EQ(info.fused_groups, 0);
  LaunchAndCheck(graph, 21);
  EXPECT_EQ(sy_graph_release(graph), SY_STATUS_OK);
}

// Ops outside a capture run as before; inside one they return symbolic
// tensors that cannot be read; a constant updated in place is seen.
TEST_F(GraphTest, SymbolicTensorsAndConstants) {
  sy_tensor_t x0 = Keep(F32(cpu_, {kCols}, RandomFloats(kCols, 3)));
  ASSERT_EQ(sy_graph_capture_begin(context_, nullptr), SY_STATUS_OK);
  sy_tensor_t x = nullptr;
  ASSERT_EQ(sy_graph_capture_input(context_, x0, nullptr, &x), SY_STATUS_OK);
  Keep(x);
  sy_tensor_t z = Keep(Call1(mul_, {x, w_}));
  float value = 0;
  EXPECT_SY_ERROR_LIKE(sy_tensor_to_host(z, &value, sizeof value), SY_STATUS_FAILED_PRECONDITION,
                       "sy_tensor_to_host: ToHost: symbolic f32[37]", "has no values");
  void* data = nullptr;
  EXPECT_SY_ERROR(sy_tensor_data_ptr(z, &data), SY_STATUS_FAILED_PRECONDITION,
                  "sy_tensor_data_ptr: the tensor is a symbolic tensor of a graph capture and "
                  "has no values; launch the captured graph (sy_graph_launch) and use its "
                  "outputs");
  sy_tensor_t moved = nullptr;
  EXPECT_SY_ERROR_LIKE(sy_tensor_to_device(z, cpu_, &moved), SY_STATUS_FAILED_PRECONDITION,
                       "sy_tensor_to_device: the tensor is a symbolic", "sy_graph_launch");
  ASSERT_EQ(sy_graph_capture_output(context_, z, nullptr), SY_STATUS_OK);
  sy_graph_t graph = nullptr;
  ASSERT_EQ(sy_graph_capture_end(context_, &graph), SY_STATUS_OK);
  sy_graph_value_info_t value_info{};
  value_info.struct_size = sizeof value_info;
  ASSERT_EQ(sy_graph_get_value(graph, 0, 0, &value_info), SY_STATUS_OK);
  EXPECT_STREQ(value_info.name, "input 0");
  ASSERT_EQ(sy_graph_compile(graph, nullptr), SY_STATUS_OK);

  // After the capture ops run again; the symbolic result stays unreadable.
  EXPECT_EQ(ReadF32(Keep(Call1(mul_, {x0, w_}))).size(), size_t(kCols));
  sy_tensor_t later = nullptr;
  sy_tensor_t z_w[2] = {z, w_};
  EXPECT_SY_ERROR(sy_op_call(mul_, z_w, 2, nullptr, 0, &later, 1),
                  SY_STATUS_FAILED_PRECONDITION,
                  "sy_op_call: mul.Tensor: argument 'a' is a symbolic tensor of a graph "
                  "capture, which has no values; call ops on it inside the capture, or launch "
                  "the captured graph to get real tensors");

  // w read at launch: write new values into it (outside the graph).
  const std::vector<float> x1 = RandomFloats(kCols, 5);
  const std::vector<float> w1 = RandomFloats(kCols, 6);
  sy_tensor_t w_new = Keep(F32(cpu_, {kCols}, w1));
  sy_op_t copy = Op(context_, "copy");
  sy_tensor_t inputs[1] = {w_new};
  ASSERT_EQ(sy_op_call_out(copy, inputs, 1, nullptr, 0, &w_, 1), SY_STATUS_OK)
      << sy_last_error_message();
  sy_tensor_t xin = Keep(F32(cpu_, {kCols}, x1)), out = nullptr;
  ASSERT_EQ(sy_graph_launch(graph, &xin, 1, &out, 1), SY_STATUS_OK) << sy_last_error_message();
  const std::vector<float> got = ReadF32(Keep(out));
  for (int64_t c = 0; c < kCols; ++c) EXPECT_FLOAT_EQ(got[c], x1[c] * w1[c]);
  EXPECT_EQ(sy_graph_release(graph), SY_STATUS_OK);
}

TEST_F(GraphTest, LaunchWithBadInputsSaysWhichAndWhatWasExpected) {
  sy_graph_t graph = CaptureSoftmax();
  sy_tensor_t good = Keep(F32(cpu_, {kRows, kCols}, RandomFloats(kRows * kCols, 8)));
  sy_tensor_t out = nullptr;
  sy_tensor_t two[2] = {good, good};
  EXPECT_SY_ERROR(sy_graph_launch(graph, two, 2, &out, 1), SY_STATUS_FAILED_PRECONDITION,
                  "sy_graph_launch: the graph was never compiled; call sy_graph_compile first");
  ASSERT_EQ(sy_graph_compile(graph, nullptr), SY_STATUS_OK);

  EXPECT_SY_ERROR(sy_graph_launch(graph, two, 1, &out, 1), SY_STATUS_INVALID_ARGUMENT,
                  "sy_graph_launch: the graph takes 2 input(s) ('x', 'y') but num_inputs is 1; "
                  "pass one tensor per declared input, in the order of sy_graph_capture_input");
  EXPECT_SY_ERROR(sy_graph_launch(graph, two, 2, &out, 2), SY_STATUS_INVALID_ARGUMENT,
                  "sy_graph_launch: the graph returns 1 output(s) but num_outputs is 2; pass "
                  "room for exactly that many");
  EXPECT_SY_ERROR(sy_graph_launch(graph, nullptr, 2, &out, 1), SY_STATUS_INVALID_ARGUMENT,
                  "sy_graph_launch: inputs is NULL but its count is 2");
  EXPECT_SY_ERROR(sy_graph_launch(graph, two, 2, nullptr, 1), SY_STATUS_INVALID_ARGUMENT,
                  "sy_graph_launch: out_outputs is NULL");

  sy_tensor_t wide = Keep(F32(cpu_, {kRows, kCols + 1}, RandomFloats(kRows * (kCols + 1), 9)));
  sy_tensor_t bad_shape[2] = {good, wide};
  EXPECT_SY_ERROR(sy_graph_launch(graph, bad_shape, 2, &out, 1), SY_STATUS_INVALID_ARGUMENT,
                  "sy_graph_launch: graph launch: input 'y' (#1) is f32[5, 38] but the graph "
                  "was captured with f32[5, 37]; launch it with inputs of the captured dtypes "
                  "and shapes, or capture it again for these");
  sy_tensor_t as_f64 = nullptr;
  sy_attr_t f64 = {};
  f64.kind = SY_ATTR_DTYPE;
  f64.value.dtype = SY_DTYPE_F64;
  as_f64 = Keep(Call1(Op(context_, "cast"), {good}, {f64}));
  sy_tensor_t bad_dtype[2] = {as_f64, good};
  EXPECT_SY_ERROR(sy_graph_launch(graph, bad_dtype, 2, &out, 1), SY_STATUS_INVALID_ARGUMENT,
                  "sy_graph_launch: graph launch: input 'x' (#0) is f64[5, 37] but the graph "
                  "was captured with f32[5, 37]; launch it with inputs of the captured dtypes "
                  "and shapes, or capture it again for these");

  ASSERT_EQ(sy_context_load_plugin(context_, TestPlugin("test_good").c_str()), SY_STATUS_OK);
  sy_device_handle_t fake = nullptr;
  ASSERT_EQ(sy_device_find(context_, "fakedev", &fake), SY_STATUS_OK);
  sy_tensor_t there = F32(fake, {kRows, kCols}, RandomFloats(kRows * kCols, 10));
  sy_tensor_t bad_device[2] = {good, there};
  EXPECT_SY_ERROR_LIKE(sy_graph_launch(graph, bad_device, 2, &out, 1),
                       SY_STATUS_INVALID_ARGUMENT,
                       "sy_graph_launch: graph launch: input 'y' (#1) is on fakedev:0 but the "
                       "graph was captured on cpu:0",
                       "move the input there");
  ASSERT_EQ(sy_tensor_release(there), SY_STATUS_OK);

  sy_tensor_t released = F32(cpu_, {kRows, kCols}, RandomFloats(kRows * kCols, 11));
  ASSERT_EQ(sy_tensor_release(released), SY_STATUS_OK);
  sy_tensor_t stale[2] = {good, released};
  EXPECT_SY_ERROR(sy_graph_launch(graph, stale, 2, &out, 1), SY_STATUS_INVALID_ARGUMENT,
                  "sy_graph_launch: input #1 ('y') (" + Hex(released) +
                      ") is a stale tensor handle: it was released, or its context was "
                      "destroyed");
  sy_context_t other = MakeContext();
  sy_tensor_t foreign = F32(Cpu(other), {kRows, kCols}, RandomFloats(kRows * kCols, 12));
  sy_tensor_t foreign_in[2] = {foreign, good};
  EXPECT_SY_ERROR(sy_graph_launch(graph, foreign_in, 2, &out, 1), SY_STATUS_INVALID_ARGUMENT,
                  "sy_graph_launch: input #0 ('x') belongs to another context than the graph; "
                  "move it over with DLPack or a host copy");
  ASSERT_EQ(sy_context_destroy(other), SY_STATUS_OK);
  EXPECT_EQ(out, nullptr);  // no failed launch wrote it

  // Still works; then the handle goes stale.
  LaunchAndCheck(graph, 31);
  ASSERT_EQ(sy_graph_release(graph), SY_STATUS_OK);
  EXPECT_SY_ERROR(sy_graph_release(graph), SY_STATUS_INVALID_ARGUMENT,
                  "sy_graph_release: graph (" + Hex(graph) +
                      ") is a stale graph handle: it was released, or its context was "
                      "destroyed");
  EXPECT_SY_ERROR(sy_graph_launch(graph, two, 2, &out, 1), SY_STATUS_INVALID_ARGUMENT,
                  "sy_graph_launch: graph (" + Hex(graph) +
                      ") is a stale graph handle: it was released, or its context was "
                      "destroyed");
  EXPECT_SY_ERROR(sy_graph_compile(reinterpret_cast<sy_graph_t>(good), nullptr),
                  SY_STATUS_INVALID_ARGUMENT,
                  "sy_graph_compile: graph (" + Hex(good) +
                      ") is a tensor handle, not a graph handle");
  EXPECT_SY_ERROR(sy_graph_compile(nullptr, nullptr), SY_STATUS_INVALID_ARGUMENT,
                  "sy_graph_compile: graph is NULL; pass a graph handle");
}

TEST_F(GraphTest, CaptureMisuse) {
  sy_graph_t graph = nullptr;
  sy_tensor_t x0 = Keep(F32(cpu_, {kCols}, RandomFloats(kCols, 3))), x = nullptr;
  EXPECT_SY_ERROR(sy_graph_capture_end(context_, &graph), SY_STATUS_FAILED_PRECONDITION,
                  "sy_graph_capture_end: this thread does not capture a graph; call "
                  "sy_graph_capture_begin first (a capture belongs to the thread that began "
                  "it)");
  EXPECT_SY_ERROR(sy_graph_capture_input(context_, x0, "x", &x), SY_STATUS_FAILED_PRECONDITION,
                  "sy_graph_capture_input: this thread does not capture a graph; call "
                  "sy_graph_capture_begin first (a capture belongs to the thread that began "
                  "it)");
  ASSERT_EQ(sy_graph_capture_begin(context_, nullptr), SY_STATUS_OK);
  EXPECT_SY_ERROR(sy_graph_capture_begin(context_, nullptr), SY_STATUS_FAILED_PRECONDITION,
                  "sy_graph_capture_begin: this thread already captures a graph of this "
                  "context; captures do not nest — end it with sy_graph_capture_end first");
  // Another thread is not capturing: its ops run, and it cannot end ours.
  std::thread([&] {
    sy_tensor_t out = Call1(mul_, {x0, w_});
    EXPECT_EQ(ReadF32(out).size(), size_t(kCols));
    EXPECT_EQ(sy_tensor_release(out), SY_STATUS_OK);
    sy_graph_t g = nullptr;
    EXPECT_EQ(sy_graph_capture_end(context_, &g), SY_STATUS_FAILED_PRECONDITION);
  }).join();
  EXPECT_SY_ERROR(sy_graph_capture_end(context_, &graph), SY_STATUS_FAILED_PRECONDITION,
                  "sy_graph_capture_end: Capture::End: no output was marked; call "
                  "Capture::Output on the results the graph should return");
  // That ended it.
  EXPECT_SY_ERROR(sy_graph_capture_end(context_, &graph), SY_STATUS_FAILED_PRECONDITION,
                  "sy_graph_capture_end: this thread does not capture a graph; call "
                  "sy_graph_capture_begin first (a capture belongs to the thread that began "
                  "it)");
  EXPECT_EQ(graph, nullptr);

  // Bad arguments leave the capture running.
  sy_graph_capture_args_t args;
  ASSERT_EQ(sy_graph_capture_args_init(&args), SY_STATUS_OK);
  args.struct_size = 8;
  EXPECT_SY_ERROR_LIKE(sy_graph_capture_begin(context_, &args), SY_STATUS_INVALID_ARGUMENT,
                       "sy_graph_capture_begin: args", "sy_graph_capture_args_t");
  ASSERT_EQ(sy_graph_capture_begin(context_, nullptr), SY_STATUS_OK);
  EXPECT_SY_ERROR(sy_graph_capture_end(context_, nullptr), SY_STATUS_INVALID_ARGUMENT,
                  "sy_graph_capture_end: out_graph is NULL");
  sy_context_t other = MakeContext();
  sy_tensor_t foreign = F32(Cpu(other), {kCols}, RandomFloats(kCols, 4));
  EXPECT_SY_ERROR(sy_graph_capture_input(context_, foreign, "x", &x), SY_STATUS_INVALID_ARGUMENT,
                  "sy_graph_capture_input: example belongs to another context than the "
                  "capture's; tensors and the capture must come from the same context");
  EXPECT_SY_ERROR(sy_graph_capture_output(other, foreign, nullptr),
                  SY_STATUS_FAILED_PRECONDITION,
                  "sy_graph_capture_output: this thread captures a graph of another context (" +
                      Hex(context_) + "); pass that context, or end its capture first");
  // An op of the other context inside this capture ends it, naming the op.
  sy_tensor_t out = nullptr;
  EXPECT_SY_ERROR(sy_op_call(Op(other, "neg"), &foreign, 1, nullptr, 0, &out, 1),
                  SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_call: graph capture ended: op 'neg' of another context was called "
                  "while this thread captures a graph of its own context; a capture records "
                  "one context's ops — end the capture before calling another context's");
  EXPECT_SY_ERROR_LIKE(sy_graph_capture_end(context_, &graph), SY_STATUS_INVALID_ARGUMENT,
                       "sy_graph_capture_end: graph capture ended: op 'neg' of another", "");
  ASSERT_EQ(sy_tensor_release(foreign), SY_STATUS_OK);

  // Destroying the context discards this thread's capture of it.
  ASSERT_EQ(sy_graph_capture_begin(other, nullptr), SY_STATUS_OK);
  ASSERT_EQ(sy_context_destroy(other), SY_STATUS_OK);
  ASSERT_EQ(sy_graph_capture_begin(context_, nullptr), SY_STATUS_OK);
  sy_tensor_t x1 = nullptr;
  ASSERT_EQ(sy_graph_capture_input(context_, x0, "x", &x1), SY_STATUS_OK);
  Keep(x1);
  ASSERT_EQ(sy_graph_capture_output(context_, x1, "same"), SY_STATUS_OK);
  ASSERT_EQ(sy_graph_capture_end(context_, &graph), SY_STATUS_OK);
  EXPECT_SY_ERROR(sy_graph_explain(graph, 4, nullptr), SY_STATUS_INVALID_ARGUMENT,
                  "sy_graph_explain: out_text is NULL");
  const char* text = nullptr;
  EXPECT_SY_ERROR(sy_graph_explain(graph, 4, &text), SY_STATUS_INVALID_ARGUMENT,
                  "sy_graph_explain: flags 4 has unknown bits; pass SY_GRAPH_EXPLAIN_JSON "
                  "and/or SY_GRAPH_EXPLAIN_KERNELS");
  ASSERT_EQ(sy_graph_explain(graph, 0, &text), SY_STATUS_OK);
  EXPECT_NE(std::string(text).find("not compiled yet"), std::string::npos) << text;
  sy_graph_value_info_t value{};
  value.struct_size = sizeof value;
  EXPECT_SY_ERROR(sy_graph_get_value(graph, 1, 1, &value), SY_STATUS_OUT_OF_RANGE,
                  "sy_graph_get_value: output index 1 is outside [0, 1)");
  EXPECT_SY_ERROR(sy_graph_get_value(graph, 2, 0, &value), SY_STATUS_INVALID_ARGUMENT,
                  "sy_graph_get_value: is_output is 2; pass 0 (inputs) or 1 (outputs)");
  sy_graph_compile_args_t compile;
  ASSERT_EQ(sy_graph_compile_args_init(&compile), SY_STATUS_OK);
  compile.patterns = 7;
  EXPECT_SY_ERROR(sy_graph_compile(graph, &compile), SY_STATUS_INVALID_ARGUMENT,
                  "sy_graph_compile: args->patterns is 7; pass SY_GRAPH_PATTERNS_MEASURED (0), "
                  "SY_GRAPH_PATTERNS_ALWAYS (1) or SY_GRAPH_PATTERNS_OFF (2)");
  compile.patterns = SY_GRAPH_PATTERNS_OFF;
  compile.decompose = 2;
  EXPECT_SY_ERROR(sy_graph_compile(graph, &compile), SY_STATUS_INVALID_ARGUMENT,
                  "sy_graph_compile: args->decompose is 2; pass 0 or 1");
  // An input passed through as the output: compiles, launches, copies nothing.
  ASSERT_EQ(sy_graph_compile(graph, nullptr), SY_STATUS_OK) << sy_last_error_message();
  sy_tensor_t result = nullptr;
  ASSERT_EQ(sy_graph_launch(graph, &x0, 1, &result, 1), SY_STATUS_OK) << sy_last_error_message();
  EXPECT_EQ(ReadF32(Keep(result)), ReadF32(x0));
  // The context's destruction makes the graph stale.
  ASSERT_EQ(sy_context_destroy(context_), SY_STATUS_OK);
  EXPECT_SY_ERROR(sy_graph_release(graph), SY_STATUS_INVALID_ARGUMENT,
                  "sy_graph_release: graph (" + Hex(graph) +
                      ") is a stale graph handle: it was released, or its context was "
                      "destroyed");
  context_ = nullptr;
  owned_.clear();
}

// The core op set has no op whose output shape depends on values; a
// plugin's would be named in args.uncapturable, as this test does.
TEST_F(GraphTest, DataDependentOpEndsTheCaptureNamingIt) {
  sy_graph_capture_args_t args;
  ASSERT_EQ(sy_graph_capture_args_init(&args), SY_STATUS_OK);
  const char* names[] = {"argmax"};
  args.uncapturable = names;
  args.num_uncapturable = 1;
  ASSERT_EQ(sy_graph_capture_begin(context_, &args), SY_STATUS_OK) << sy_last_error_message();
  sy_tensor_t x0 = Keep(F32(cpu_, {kCols}, RandomFloats(kCols, 3))), x = nullptr, out = nullptr;
  ASSERT_EQ(sy_graph_capture_input(context_, x0, "x", &x), SY_STATUS_OK);
  Keep(x);
  const std::string why =
      "graph capture ended: op 'argmax' cannot be captured: the shape of its output "
      "depends on the values of its inputs, which a capture does not have; call it "
      "outside the capture (capture the parts before and after it as graphs of their own)";
  EXPECT_SY_ERROR(sy_op_call(Op(context_, "argmax"), &x, 1, nullptr, 0, &out, 1),
                  SY_STATUS_UNIMPLEMENTED, "sy_op_call: " + why);
  // Every later call of the capture says the same.
  EXPECT_SY_ERROR(sy_op_call(exp_, &x, 1, nullptr, 0, &out, 1), SY_STATUS_UNIMPLEMENTED,
                  "sy_op_call: " + why);
  EXPECT_SY_ERROR(sy_graph_capture_output(context_, x, "x"), SY_STATUS_UNIMPLEMENTED,
                  "sy_graph_capture_output: " + why);
  sy_graph_t graph = nullptr;
  EXPECT_SY_ERROR(sy_graph_capture_end(context_, &graph), SY_STATUS_UNIMPLEMENTED,
                  "sy_graph_capture_end: " + why);
  EXPECT_EQ(graph, nullptr);
  // The thread runs ops again.
  EXPECT_EQ(ReadF32(Keep(Call1(exp_, {x0}))).size(), size_t(kCols));
}

}  // namespace
}  // namespace sy_test
