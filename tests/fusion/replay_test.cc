// What a replay pays that eager does not (docs/fusion.md, "Replay"), on
// cpu with the test_patterns plugin's attention kernel (pattern_plugin.cc):
// a capture records attention's output in the layout its kernel writes
// ([B, L, H, E] under [B, H, L, E]; Note [Attention output layout]), so
// the usual transpose(1, 2).reshape is a view in the graph as in eager, and
// a replay copies nothing — no copy op runs (counted in a trace); where the
// kernel declines at call time, the decomposition's output is copied into
// the recorded layout and the result is still right (against float64).
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "dispatcher/trace/trace.h"
#include "fusion/compile/plan.h"
#include "fusion/graph.h"
#include "fusion_test_util.h"
#include "gtest/gtest.h"

namespace sy::fusion::testing {
namespace {

// Causal attention in float64 over row-major [B, H, L, E] values, as
// row-major [B, L, H, E] (the transpose the graphs below return).
std::vector<double> CausalAttention(const std::vector<double>& q, const std::vector<double>& k,
                                    const std::vector<double>& v, int B, int H, int L, int E) {
  std::vector<double> out(static_cast<size_t>(B) * L * H * E);
  auto at = [&](const std::vector<double>& t, int b, int h, int i, int e) {
    return t[((static_cast<size_t>(b) * H + h) * L + i) * E + e];
  };
  for (int b = 0; b < B; ++b) {
    for (int h = 0; h < H; ++h) {
      for (int i = 0; i < L; ++i) {
        std::vector<double> p(i + 1);
        double max = -INFINITY, sum = 0;
        for (int j = 0; j <= i; ++j) {
          double dot = 0;
          for (int e = 0; e < E; ++e) dot += at(q, b, h, i, e) * at(k, b, h, j, e);
          p[j] = dot / std::sqrt(static_cast<double>(E));
          max = std::max(max, p[j]);
        }
        for (double& x : p) sum += x = std::exp(x - max);
        for (int e = 0; e < E; ++e) {
          double acc = 0;
          for (int j = 0; j <= i; ++j) acc += p[j] * at(v, b, h, j, e);
          out[((static_cast<size_t>(b) * L + i) * H + h) * E + e] = acc / sum;
        }
      }
    }
  }
  return out;
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class Replay : public WithTestPatterns {
 protected:
  Tensor Op(const std::string& op, std::vector<Tensor> in, std::vector<Attr> attrs = {}) {
    return Call(*rt_, op, std::move(in), std::move(attrs));
  }

  // Random f32 q, k and v of shape [B, H, L, E], from seeds seed..seed+2.
  std::vector<Tensor> RandomQkv(int64_t B, int64_t H, int64_t L, int64_t E, uint32_t seed) {
    std::vector<Tensor> qkv;
    for (uint32_t i = 0; i < 3; ++i) {
      qkv.push_back(Random(*rt_, *cpu_, SY_DTYPE_F32, {B, H, L, E}, seed + i));
    }
    return qkv;
  }

  // attention(q, k, v) → transpose(1, 2) → reshape [B, L, H·E]: the output
  // projection's input in a transformer block; and that times 2 (a fused
  // group reading it).
  std::vector<Tensor> Block(const std::vector<Tensor>& in, int64_t B, int64_t L,
                            int64_t HE) {
    const Tensor a = Op("scaled_dot_product_attention", {in[0], in[1], in[2], Tensor()},
                        {Attr(true), Attr()});
    const Tensor t = Op("reshape", {Op("transpose", {a}, {Attr(1), Attr(2)})}, {Attr({B, L, HE})});
    return {t, Op("mul.Scalar", {Op("add.Scalar", {t}, {Attr(1.0)})}, {Attr(2.0)})};
  }

  // Launches `compiled` under a trace and returns the trace's text.
  std::string TracedLaunch(const CompiledGraph& compiled, const std::vector<Tensor>& inputs,
                           std::vector<Tensor>* outputs) {
    const std::string path = ::testing::TempDir() + "replay_trace_" +
                              ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                              ".json";
    EXPECT_TRUE(core::trace::Start(path).ok());
    absl::StatusOr<std::vector<Tensor>> got = compiled.Launch(inputs);
    EXPECT_TRUE(core::trace::Stop().ok());
    EXPECT_TRUE(got.ok()) << got.status();
    if (got.ok()) *outputs = *std::move(got);
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
  }

};

TEST_F(Replay, AttentionOutputIsRecordedAsItsKernelWritesItAndNeverCopied) {
  const int B = 2, H = 3, L = 5, E = 4;
  const std::vector<Tensor> inputs = RandomQkv(B, H, L, E, 1);
  absl::StatusOr<Graph> graph = CaptureGraph(
      *rt_, inputs, [&](const std::vector<Tensor>& in) { return Block(in, B, L, H * E); });
  ASSERT_TRUE(graph.ok()) << graph.status();
  // Recorded: attention (a kernel of test_patterns) and the two scalar ops;
  // the transpose and reshape are views, not a copy.
  const std::string captured = graph->Describe();
  EXPECT_EQ(graph->num_ops(), 3) << captured;
  EXPECT_NE(captured.find("kernel test_patterns::attention_f32"), std::string::npos)
      << captured;
  EXPECT_EQ(captured.find("copy"), std::string::npos) << captured;
  EXPECT_EQ(captured.find("contiguous"), std::string::npos) << captured;
  absl::StatusOr<CompiledGraph> compiled = compiler_->Compile(*graph);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_EQ(compiled->Describe().find("copy"), std::string::npos) << compiled->Describe();

  // The replay runs attention and the fused group, and no copy.
  std::vector<Tensor> got;
  const std::string trace = TracedLaunch(*compiled, inputs, &got);
  EXPECT_EQ(Count(trace, "\"name\": \"scaled_dot_product_attention\""), 1) << trace;
  EXPECT_EQ(Count(trace, "\"name\": \"copy\""), 0) << trace;
  EXPECT_EQ(Count(trace, "\"name\": \"contiguous\""), 0) << trace;
  ASSERT_EQ(got.size(), 2u);
  const std::vector<double> want =
      CausalAttention(Read(*rt_, inputs[0]), Read(*rt_, inputs[1]), Read(*rt_, inputs[2]),
                      B, H, L, E);
  ExpectClose(Read(*rt_, got[0]), want, 2e-5, "attention, transposed");
  std::vector<double> want2 = want;
  for (double& x : want2) x = (x + 1) * 2;
  ExpectClose(Read(*rt_, got[1]), want2, 2e-5, "(attention + 1) * 2");
}

TEST_F(Replay, AKernelThatDeclinesAtReplayIsCopiedIntoTheRecordedLayout) {
  // Head dim 3: test_patterns' kernel takes the capture's query but
  // declines the call; the decomposition writes [B, H, L, E] contiguous,
  // which the replay copies into the recorded [B, L, H, E] buffer.
  const int B = 2, H = 2, L = 4, E = 3;
  const std::vector<Tensor> inputs = RandomQkv(B, H, L, E, 4);
  absl::StatusOr<Graph> graph = CaptureGraph(
      *rt_, inputs, [&](const std::vector<Tensor>& in) { return Block(in, B, L, H * E); });
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_NE(graph->Describe().find("kernel test_patterns::attention_f32"), std::string::npos)
      << graph->Describe();
  absl::StatusOr<CompiledGraph> compiled = compiler_->Compile(*graph);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  std::vector<Tensor> got;
  const std::string trace = TracedLaunch(*compiled, inputs, &got);
  EXPECT_EQ(Count(trace, "\"name\": \"copy\""), 1) << trace;
  ASSERT_EQ(got.size(), 2u);
  const std::vector<double> want =
      CausalAttention(Read(*rt_, inputs[0]), Read(*rt_, inputs[1]), Read(*rt_, inputs[2]),
                      B, H, L, E);
  ExpectClose(Read(*rt_, got[0]), want, 2e-5, "declined attention, transposed");
  // And the next replay is as right.
  absl::StatusOr<std::vector<Tensor>> again = compiled->Launch(inputs);
  ASSERT_TRUE(again.ok()) << again.status();
  ExpectClose(Read(*rt_, (*again)[0]), want, 2e-5, "declined attention, second replay");
}

}  // namespace
}  // namespace sy::fusion::testing
