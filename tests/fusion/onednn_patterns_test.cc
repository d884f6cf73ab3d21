// The onednn plugin's patterns (plugins/onednn/patterns.h) in the fusion
// pass on cpu, where `linear` is decomposed into matmul and add first:
// matmul → add → gelu becomes onednn::matmul_add_gelu with gelu's
// `approximate` carried over (tanh and erf), matmul → add becomes
// onednn::matmul_add, and each computes what the ops do (compiled without
// patterns for the reference); a relu stays its own op (oneDNN's relu
// post-op maps NaN to 0), and so does a gelu without an add before it;
// under Patterns::kMeasured the note gives both times.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fusion/graph.h"
#include "fusion_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sy::fusion::testing {
namespace {

using ::testing::HasSubstr;

class OnednnPatterns : public ::testing::Test {
 protected:
  void SetUp() override {
    rt_ = MakeRuntime({std::string(SWITCHYARD_PLUGIN_DIR) + "/onednn.json"});
    ASSERT_NE(rt_, nullptr);
    cpu_ = rt_->GetDevice("cpu").value();
    CompilerOptions options;
    options.disk_cache = false;
    compiler_ = std::make_unique<Compiler>(*rt_, options);
  }

  Tensor Op(const std::string& op, std::vector<Tensor> in, std::vector<Attr> attrs = {}) {
    return Call(*rt_, op, std::move(in), std::move(attrs));
  }

  // `body` compiled under `patterns` and without, both launched on
  // `inputs`: the first's description, its outputs checked against the
  // second's.
  std::string CompareWithoutPatterns(
      const std::vector<Tensor>& inputs,
      const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& body,
      CompileOptions::Patterns patterns, int* replaced) {
    absl::StatusOr<Graph> graph = CaptureGraph(*rt_, inputs, body);
    EXPECT_TRUE(graph.ok()) << graph.status();
    if (!graph.ok()) return "";
    CompileOptions with, without;
    with.patterns = patterns;
    without.patterns = CompileOptions::Patterns::kOff;
    absl::StatusOr<CompiledGraph> a = compiler_->Compile(*graph, with);
    absl::StatusOr<CompiledGraph> b = compiler_->Compile(*graph, without);
    EXPECT_TRUE(a.ok() && b.ok());
    if (!a.ok() || !b.ok()) return "";
    *replaced = a->stats().patterns;
    absl::StatusOr<std::vector<Tensor>> got = a->Launch(inputs);
    absl::StatusOr<std::vector<Tensor>> want = b->Launch(inputs);
    EXPECT_TRUE(got.ok() && want.ok());
    if (!got.ok() || !want.ok()) return "";
    for (size_t i = 0; i < got->size(); ++i) {
      // oneDNN's GEMM sums in another order than the cpu plugin's.
      ExpectClose(Read(*rt_, (*got)[i]), Read(*rt_, (*want)[i]), 2e-5,
                  "output " + std::to_string(i) + "\n" + a->Describe());
    }
    return a->Describe();
  }

  std::unique_ptr<Runtime> rt_;
  Device* cpu_ = nullptr;
  std::unique_ptr<Compiler> compiler_;
};

// Each chain reads its own weight, so that clean-up merges none of them.
TEST_F(OnednnPatterns, MatmulAddAndGeluBecomeTheFusedOps) {
  const Tensor x = Random(*rt_, *cpu_, SY_DTYPE_F32, {3, 5, 24}, 1);
  const Tensor b = Random(*rt_, *cpu_, SY_DTYPE_F32, {16}, 2);
  std::vector<Tensor> inputs = {x, b};
  for (uint32_t seed = 3; seed < 8; ++seed) {  // weights [out, in] for linear
    inputs.push_back(Random(*rt_, *cpu_, SY_DTYPE_F32, {16, 24}, seed, -0.5, 0.5));
  }
  const Tensor m = Random(*rt_, *cpu_, SY_DTYPE_F32, {24, 16}, 8, -0.5, 0.5);
  inputs.push_back(m);  // [in, out] for matmul
  auto body = [&](const std::vector<Tensor>& in) {
    const Tensor none;
    return std::vector<Tensor>{
        Op("gelu", {Op("linear", {in[0], in[2], in[1]})}, {Attr("tanh")}),
        Op("gelu", {Op("linear", {in[0], in[3], in[1]})}),  // approximate "none": erf
        Op("add.Tensor", {Op("matmul", {in[0], in[7]}), in[1]}),
        Op("gelu", {Op("linear", {in[0], in[4], none})}),
        Op("relu", {Op("linear", {in[0], in[5], in[1]})})};
  };
  int replaced = 0;
  const std::string text =
      CompareWithoutPatterns(inputs, body, CompileOptions::Patterns::kAlways, &replaced);
  // Two matmul_add_gelu (tanh, erf), and matmul_add for the plain sum and
  // under the relu; the gelu of a matmul without a bias stays.
  EXPECT_EQ(replaced, 4) << text;
  EXPECT_THAT(text, ::testing::ContainsRegex(
                        "at matmul %[0-9]+ → add.Tensor %[0-9]+ → gelu %[0-9]+: "
                        "replaced by onednn::matmul_add_gelu"));
  EXPECT_THAT(text, ::testing::ContainsRegex("at matmul %[0-9]+ → add.Tensor %[0-9]+: "
                                             "replaced by onednn::matmul_add"));
  EXPECT_THAT(text, HasSubstr("relu on cpu:0")) << text;
  EXPECT_THAT(text, ::testing::Not(HasSubstr("not replaced"))) << text;
}

TEST_F(OnednnPatterns, MeasuredVerdictsGiveBothTimes) {
  const Tensor x = Random(*rt_, *cpu_, SY_DTYPE_F32, {64, 128}, 1);
  const Tensor w = Random(*rt_, *cpu_, SY_DTYPE_F32, {96, 128}, 2, -0.5, 0.5);
  const Tensor b = Random(*rt_, *cpu_, SY_DTYPE_F32, {96}, 3);
  auto body = [&](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{
        Op("gelu", {Op("linear", {in[0], in[1], in[2]})}, {Attr("tanh")})};
  };
  int replaced = 0;
  const std::string text =
      CompareWithoutPatterns({x, w, b}, body, CompileOptions::Patterns::kMeasured, &replaced);
  // Either verdict is fine; the note gives both times.
  EXPECT_THAT(text, ::testing::ContainsRegex(
                        "matmul_add_gelu.*\\(([0-9.e+-]+) µs vs ([0-9.e+-]+) µs as the plan "
                        "runs the match: .* alone; .* fused \\(priced at the slowest alone\\)\\)"))
      << text;
}

}  // namespace
}  // namespace sy::fusion::testing
