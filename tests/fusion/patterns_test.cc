// Pattern substitution (compile/patterns.h) on cpu, with the test_patterns
// plugin (pattern_plugin.cc): a match is replaced by the plugin's op and
// computes what the ops it replaces compute (against float64); a match whose
// inner result is read elsewhere, whose replacement kernel declines or whose
// replacement op does not exist is left alone with a note saying why; an
// attribute the pattern fixes must match; the replacement takes the
// match's attributes of the same name, and ops that disagree on one keep
// their ops; under Patterns::kMeasured the replacement is timed against
// the match as the plan would run it (Note [Verdicts against the plan]) and
// the verdict is kept.
#include <cmath>
#include <string>
#include <vector>

#include "fusion/graph.h"
#include "fusion_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sy::fusion::testing {
namespace {

using ::testing::HasSubstr;

class Patterns : public WithTestPatterns {
 protected:
  absl::StatusOr<CompiledGraph> Compile(
      const std::vector<Tensor>& examples,
      const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& body,
      CompileOptions::Patterns patterns = CompileOptions::Patterns::kAlways) {
    absl::StatusOr<Graph> graph = CaptureGraph(*rt_, examples, body);
    if (!graph.ok()) return graph.status();
    CompileOptions options;
    options.patterns = patterns;
    return compiler_->Compile(*graph, options);
  }

  Tensor Op(const std::string& op, std::vector<Tensor> in, std::vector<Attr> attrs = {}) {
    return Call(*rt_, op, std::move(in), std::move(attrs));
  }

  // a·b + bias in float64, row-major [m, n].
  static std::vector<double> MatmulAdd(const std::vector<double>& a, const std::vector<double>& b,
                                       const std::vector<double>& bias, int m, int k, int n) {
    std::vector<double> y(static_cast<size_t>(m) * n);
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        double acc = bias[j];
        for (int p = 0; p < k; ++p) acc += a[i * k + p] * b[p * n + j];
        y[static_cast<size_t>(i) * n + j] = acc;
      }
    }
    return y;
  }

};

TEST_F(Patterns, AMatchRunsAsTheReplacementAndComputesTheSame) {
  const int m = 5, k = 7, n = 3;
  auto body = [&](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{Op("add.Tensor", {Op("matmul", {in[0], in[1]}), in[2]})};
  };
  const Tensor a = Random(*rt_, *cpu_, SY_DTYPE_F32, {m, k}, 1);
  const Tensor b = Random(*rt_, *cpu_, SY_DTYPE_F32, {k, n}, 2);
  const Tensor bias = Random(*rt_, *cpu_, SY_DTYPE_F32, {n}, 3);
  absl::StatusOr<CompiledGraph> g = Compile({a, b, bias}, body);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->stats().patterns, 1) << g->Describe();
  EXPECT_THAT(g->Describe(), HasSubstr("test_patterns::matmul_add"));
  EXPECT_THAT(g->Describe(), HasSubstr("pattern matmul_add (plugin 'test_patterns') at matmul"
                                       " %0 → add.Tensor %1: replaced by test_patterns::matmul_add"));
  // Launched on new inputs of the same shapes.
  const std::vector<double> va = RandomValues(m * k, 11), vb = RandomValues(k * n, 12),
                            vbias = RandomValues(n, 13);
  absl::StatusOr<std::vector<Tensor>> out =
      g->Launch({FromValues(*rt_, *cpu_, SY_DTYPE_F32, {m, k}, va),
                 FromValues(*rt_, *cpu_, SY_DTYPE_F32, {k, n}, vb),
                 FromValues(*rt_, *cpu_, SY_DTYPE_F32, {n}, vbias)});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> ra, rb, rbias;  // the inputs as f32 holds them
  for (double v : va) ra.push_back(RoundTo(SY_DTYPE_F32, v));
  for (double v : vb) rb.push_back(RoundTo(SY_DTYPE_F32, v));
  for (double v : vbias) rbias.push_back(RoundTo(SY_DTYPE_F32, v));
  ExpectClose(Read(*rt_, (*out)[0]), MatmulAdd(ra, rb, rbias, m, k, n), 1e-6, "matmul_add");
}

TEST_F(Patterns, AnInnerResultReadElsewhereKeepsTheOps) {
  auto body = [&](const std::vector<Tensor>& in) {
    const Tensor mm = Op("matmul", {in[0], in[1]});
    return std::vector<Tensor>{Op("add.Tensor", {mm, in[2]}), mm};
  };
  absl::StatusOr<CompiledGraph> g =
      Compile({Random(*rt_, *cpu_, SY_DTYPE_F32, {4, 4}, 1),
               Random(*rt_, *cpu_, SY_DTYPE_F32, {4, 4}, 2),
               Random(*rt_, *cpu_, SY_DTYPE_F32, {4}, 3)},
              body);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->stats().patterns, 0);
  EXPECT_THAT(g->Describe(), HasSubstr("not replaced: the result of matmul is a graph output"));
}

TEST_F(Patterns, ADecliningOrMissingReplacementKeepsTheOps) {
  auto body = [&](const std::vector<Tensor>& in) {
    const Tensor s = Op("add.Tensor", {in[0], in[1]});
    const Tensor t = Op("add.Tensor", {in[1], in[0]});
    const Tensor u = Op("add.Tensor", {in[0], in[0]});
    return std::vector<Tensor>{Op("gelu", {s}, {Attr("tanh")}), Op("exp", {t}),
                               Op("gelu", {u})};  // "none": the pattern wants "tanh"
  };
  const Tensor x = Random(*rt_, *cpu_, SY_DTYPE_F32, {8}, 1);
  const Tensor y = Random(*rt_, *cpu_, SY_DTYPE_F32, {8}, 2);
  absl::StatusOr<CompiledGraph> g = Compile({x, y}, body);
  ASSERT_TRUE(g.ok()) << g.status();
  const std::string text = g->Describe();
  EXPECT_EQ(g->stats().patterns, 0) << text;
  EXPECT_THAT(text, HasSubstr("pattern add_gelu (plugin 'test_patterns') at add.Tensor %0 → "
                              "gelu %3: not replaced: no kernel for test_patterns::add_gelu "
                              "with input dtypes (f32, f32) on device cpu:0."));
  EXPECT_THAT(text, HasSubstr("Declined: test_patterns::add_gelu_declines: test_patterns "
                              "declines every call."));
  EXPECT_THAT(text, HasSubstr("pattern add_exp (plugin 'test_patterns') at add.Tensor %1 → "
                              "exp %4: not replaced: no op named 'test_patterns::missing'"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("gelu %5")));  // attribute differs: no match
  // And the graph still computes what the ops do.
  absl::StatusOr<std::vector<Tensor>> got = g->Launch({x, y});
  ASSERT_TRUE(got.ok()) << got.status();
  const std::vector<double> e = Read(*rt_, Op("exp", {Op("add.Tensor", {y, x})}));
  ExpectClose(Read(*rt_, (*got)[1]), e, 1e-6, "exp(y + x)");
}

// sum(exp(x), dims = [0]) becomes test_patterns::exp_sum with dims [0],
// not its default (all dims): the launch sums down the columns.
TEST_F(Patterns, TheReplacementTakesTheMatchsAttributes) {
  const int rows = 6, cols = 5;
  auto body = [&](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{
        Op("sum", {Op("exp", {in[0]})}, {Attr(std::vector<int64_t>{0}), Attr(false)})};
  };
  absl::StatusOr<CompiledGraph> g =
      Compile({Random(*rt_, *cpu_, SY_DTYPE_F32, {rows, cols}, 1)}, body);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->stats().patterns, 1) << g->Describe();
  EXPECT_THAT(g->Describe(), HasSubstr("pattern exp_sum (plugin 'test_patterns') at exp %0 → "
                                       "sum %1: replaced by test_patterns::exp_sum"));
  const std::vector<double> vx = RandomValues(rows * cols, 21);
  absl::StatusOr<std::vector<Tensor>> out =
      g->Launch({FromValues(*rt_, *cpu_, SY_DTYPE_F32, {rows, cols}, vx)});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> want(cols);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) want[c] += std::exp(RoundTo(SY_DTYPE_F32, vx[r * cols + c]));
  }
  ExpectClose(Read(*rt_, (*out)[0]), want, 1e-6, "exp_sum over dim 0");
}

// sum and max both have `dims` and `keepdim`; the replacement takes one of
// each. Where the ops differ the match keeps them, and says why; where they
// agree the replacement is resolved (and its kernel declines).
TEST_F(Patterns, OpsThatDisagreeOnAnAttributeKeepTheirOps) {
  auto reduce = [&](const char* op, const Tensor& x, int64_t dim) {
    return Op(op, {x}, {Attr(std::vector<int64_t>{dim}), Attr(true)});
  };
  auto body = [&](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{reduce("max", reduce("sum", in[0], 0), 1),
                               reduce("max", reduce("sum", in[1], 0), 0)};
  };
  const Tensor x = Random(*rt_, *cpu_, SY_DTYPE_F32, {4, 3}, 1);
  const Tensor y = Random(*rt_, *cpu_, SY_DTYPE_F32, {4, 3}, 2);
  absl::StatusOr<CompiledGraph> g = Compile({x, y}, body);
  ASSERT_TRUE(g.ok()) << g.status();
  const std::string text = g->Describe();
  EXPECT_EQ(g->stats().patterns, 0) << text;
  EXPECT_THAT(text, HasSubstr("at sum %0 → max %1: not replaced: sum and max disagree on "
                              "'dims', which test_patterns::sum_max takes once"));
  EXPECT_THAT(text, HasSubstr("at sum %2 → max %3: not replaced: no kernel for "
                              "test_patterns::sum_max with input dtypes (f32) on device cpu:0."));
  EXPECT_THAT(text, HasSubstr("Declined: test_patterns::sum_max_declines"));
  absl::StatusOr<std::vector<Tensor>> got = g->Launch({x, y});
  ASSERT_TRUE(got.ok()) << got.status();
  ExpectClose(Read(*rt_, (*got)[0]), Read(*rt_, reduce("max", reduce("sum", x, 0), 1)), 1e-6,
              "max(sum(x, [0]), [1])");
  ExpectClose(Read(*rt_, (*got)[1]), Read(*rt_, reduce("max", reduce("sum", y, 0), 0)), 1e-6,
              "max(sum(y, [0]), [0])");
}

// A replacement that requires an attribute no op of the match has, and one
// that would write another layout than the match (attention's output is
// [B, L, H, E] in memory, Note [Attention output layout]; the
// replacement's is contiguous): both matches keep their ops.
TEST_F(Patterns, AReplacementMissingAnAttributeOrTheLayoutKeepsTheOps) {
  auto body = [&](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{
        Op("neg", {Op("exp", {in[0]})}),
        Op("scaled_dot_product_attention", {Op("exp", {in[1]}), in[1], in[1], Tensor()})};
  };
  const Tensor x = Random(*rt_, *cpu_, SY_DTYPE_F32, {4, 3}, 1);
  const Tensor q = Random(*rt_, *cpu_, SY_DTYPE_F32, {2, 2, 5, 4}, 2);
  absl::StatusOr<CompiledGraph> g = Compile({x, q}, body);
  ASSERT_TRUE(g.ok()) << g.status();
  const std::string text = g->Describe();
  EXPECT_EQ(g->stats().patterns, 0) << text;
  EXPECT_THAT(text, HasSubstr("pattern exp_neg (plugin 'test_patterns') at exp %0 → neg %1: "
                              "not replaced: test_patterns::scaled_exp_neg requires 'factor', "
                              "which no op of the match has"));
  EXPECT_THAT(text, HasSubstr("pattern exp_attention (plugin 'test_patterns') at exp %2 → "
                              "scaled_dot_product_attention %3: not replaced: "
                              "test_patterns::exp_attention writes its result with strides "
                              "[40, 20, 4, 1] where the match writes [40, 4, 8, 1]"));
  absl::StatusOr<std::vector<Tensor>> got = g->Launch({x, q});
  ASSERT_TRUE(got.ok()) << got.status();
  ExpectClose(Read(*rt_, (*got)[0]), Read(*rt_, Op("neg", {Op("exp", {x})})), 1e-6,
              "neg(exp(x))");
}

TEST_F(Patterns, MeasuredPatternsAreTimedOnceAndStillCorrect) {
  const int m = 16, k = 16, n = 16;
  auto body = [&](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{Op("add.Tensor", {Op("matmul", {in[0], in[1]}), in[2]})};
  };
  const std::vector<Tensor> inputs = {Random(*rt_, *cpu_, SY_DTYPE_F32, {m, k}, 1),
                                      Random(*rt_, *cpu_, SY_DTYPE_F32, {k, n}, 2),
                                      Random(*rt_, *cpu_, SY_DTYPE_F32, {n}, 3)};
  absl::StatusOr<CompiledGraph> first =
      Compile(inputs, body, CompileOptions::Patterns::kMeasured);
  ASSERT_TRUE(first.ok()) << first.status();
  // Either verdict is fine; the note gives both times. add is the graph's
  // output: left alone it is a fused group of its own.
  EXPECT_THAT(first->Describe(),
              ::testing::ContainsRegex("matmul_add.*\\(([0-9.e+-]+) µs vs ([0-9.e+-]+) µs as the "
                                       "plan runs the match: matmul %0 alone; add.Tensor %1 "
                                       "fused \\(priced at the slowest alone\\)\\)"));
  absl::StatusOr<CompiledGraph> second =
      Compile(inputs, body, CompileOptions::Patterns::kMeasured);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_THAT(second->Describe(), HasSubstr("measured earlier in this process"));
  EXPECT_EQ(first->stats().patterns, second->stats().patterns);
  absl::StatusOr<std::vector<Tensor>> got = second->Launch(inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  const Tensor want = Op("add.Tensor", {Op("matmul", {inputs[0], inputs[1]}), inputs[2]});
  ExpectClose(Read(*rt_, (*got)[0]), Read(*rt_, want), 1e-5, "measured matmul_add");
}

// Note [Verdicts against the plan]: a match's trailing elementwise ops are
// priced as the plan runs them without the replacement — in the fused
// group of a consumer that fuses too (no time of their own; here add
// joins gelu's group), else as one fused group (its slowest op:
// MeasuredPatternsAreTimedOnceAndStillCorrect) — and op by op where the
// device has no fusion backend. Either verdict is right; the notes say
// which plan was priced, and the values are right whichever was taken.
TEST_F(Patterns, MeasuredVerdictsPriceTheMatchAsThePlanRunsIt) {
  const int m = 24, k = 20, n = 12;
  const std::vector<Tensor> inputs = {Random(*rt_, *cpu_, SY_DTYPE_F32, {m, k}, 1),
                                      Random(*rt_, *cpu_, SY_DTYPE_F32, {k, n}, 2),
                                      Random(*rt_, *cpu_, SY_DTYPE_F32, {n}, 3)};
  auto body = [&](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{
        Op("gelu", {Op("add.Tensor", {Op("matmul", {in[0], in[1]}), in[2]})}, {Attr("none")})};
  };
  absl::StatusOr<Graph> graph = CaptureGraph(*rt_, inputs, body);
  ASSERT_TRUE(graph.ok()) << graph.status();
  CompileOptions options;
  options.patterns = CompileOptions::Patterns::kMeasured;
  absl::StatusOr<CompiledGraph> fused = compiler_->Compile(*graph, options);
  ASSERT_TRUE(fused.ok()) << fused.status();
  const std::string text = fused->Describe();
  EXPECT_THAT(text, ::testing::ContainsRegex(
                        "pattern matmul_add \\(plugin 'test_patterns'\\) at matmul %0 → "
                        "add.Tensor %1: .*\\([0-9.e+-]+ µs vs [0-9.e+-]+ µs as the plan runs "
                        "the match: matmul %0 alone; add.Tensor %1 in the fused group of gelu "
                        "%2 \\(no time of its own\\)\\)"))
      << text;
  // Without fusion backends every op of a match is a kernel of its own.
  options.plugin_compilers = false;
  absl::StatusOr<CompiledGraph> unfused = compiler_->Compile(*graph, options);
  ASSERT_TRUE(unfused.ok()) << unfused.status();
  EXPECT_THAT(unfused->Describe(),
              ::testing::ContainsRegex("at matmul %0 → add.Tensor %1: .*µs op by op\\)"))
      << unfused->Describe();

  const std::vector<double> va = RandomValues(m * k, 21), vb = RandomValues(k * n, 22),
                            vbias = RandomValues(n, 23);
  std::vector<double> ra, rb, rbias;
  for (double v : va) ra.push_back(RoundTo(SY_DTYPE_F32, v));
  for (double v : vb) rb.push_back(RoundTo(SY_DTYPE_F32, v));
  for (double v : vbias) rbias.push_back(RoundTo(SY_DTYPE_F32, v));
  std::vector<double> want = MatmulAdd(ra, rb, rbias, m, k, n);
  for (double& y : want) y = 0.5 * y * (1.0 + std::erf(y / std::sqrt(2.0)));
  for (CompiledGraph* g : {&*fused, &*unfused}) {
    absl::StatusOr<std::vector<Tensor>> got =
        g->Launch({FromValues(*rt_, *cpu_, SY_DTYPE_F32, {m, k}, va),
                   FromValues(*rt_, *cpu_, SY_DTYPE_F32, {k, n}, vb),
                   FromValues(*rt_, *cpu_, SY_DTYPE_F32, {n}, vbias)});
    ASSERT_TRUE(got.ok()) << got.status();
    ExpectClose(Read(*rt_, (*got)[0]), want, 1e-5, "gelu(a·b + bias)");
  }
}

}  // namespace
}  // namespace sy::fusion::testing
