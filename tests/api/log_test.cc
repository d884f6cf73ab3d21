// API 1.1: the log level by name, a log callback, and the versions.
#include <mutex>
#include <string>
#include <vector>

#include "c_api_test_util.h"

namespace sy_test {
namespace {

struct Captured {
  std::mutex mu;
  std::vector<std::pair<int32_t, std::string>> lines;
};

void Capture(void* user_data, int32_t level, const char* message) {
  auto* captured = static_cast<Captured*>(user_data);
  std::lock_guard<std::mutex> lock(captured->mu);
  captured->lines.emplace_back(level, message);
}

// Restores the process-wide log after each test.
class LogTest : public CApiTest {
 protected:
  void SetUp() override {
    CApiTest::SetUp();
    saved_ = sy_log_level();
  }
  void TearDown() override {
    sy_log_set_callback(nullptr, nullptr);
    sy_log_set_level(saved_.c_str());
    CApiTest::TearDown();
  }
  std::string saved_;
};

TEST_F(LogTest, LevelsByNameAndAnUnknownOneListsThem) {
  ASSERT_EQ(sy_log_set_level("DEBUG"), SY_STATUS_OK) << sy_last_error_message();
  EXPECT_EQ(std::string(sy_log_level()), "debug");
  ASSERT_EQ(sy_log_set_level("off"), SY_STATUS_OK);
  EXPECT_EQ(std::string(sy_log_level()), "off");
  EXPECT_SY_ERROR(sy_log_set_level("loud"), SY_STATUS_INVALID_ARGUMENT,
                  "sy_log_set_level: unknown log level 'loud'; use one of off, error, "
                  "warning, info, debug (from quiet to chatty)");
  EXPECT_EQ(std::string(sy_log_level()), "off");  // unchanged
  EXPECT_SY_ERROR(sy_log_set_level(nullptr), SY_STATUS_INVALID_ARGUMENT,
                  "sy_log_set_level: level is NULL");
}

TEST_F(LogTest, DebugLogsEachCallsResolutionToTheCallback) {
  Captured captured;
  ASSERT_EQ(sy_log_set_callback(&Capture, &captured), SY_STATUS_OK);
  ASSERT_EQ(sy_log_set_level("debug"), SY_STATUS_OK);
  sy_tensor_t x = F32(cpu_, {2}, {1, -1});
  sy_tensor_t y = Call1(Op(context_, "relu"), {x});
  sy_tensor_release(y);
  ASSERT_EQ(sy_log_set_level("warning"), SY_STATUS_OK);
  sy_tensor_t z = Call1(Op(context_, "relu"), {x});  // not logged
  sy_tensor_release(z);
  std::lock_guard<std::mutex> lock(captured.mu);
  int calls = 0;
  for (const auto& [level, line] : captured.lines) {
    if (line.rfind("relu on cpu:0: ", 0) != 0) continue;
    ++calls;
    EXPECT_EQ(level, SY_LOG_DEBUG);
    EXPECT_EQ(line, "relu on cpu:0: kernel cpu::relu.f32 (priority)");
  }
  EXPECT_EQ(calls, 1);
}

TEST_F(LogTest, ACallbackGetsWarningsAndNullRestoresStderr) {
  Captured captured;
  ASSERT_EQ(sy_log_set_callback(&Capture, &captured), SY_STATUS_OK);
  ASSERT_EQ(sy_log_set_level("warning"), SY_STATUS_OK);
  // A broken manifest among the discovered ones is a warning.
  sy_context_t context = MakeContext({CpuManifest(), BrokenManifest("bad_json")});
  sy_context_destroy(context);
  ASSERT_EQ(sy_log_set_callback(nullptr, nullptr), SY_STATUS_OK);
  std::lock_guard<std::mutex> lock(captured.mu);
  bool warned = false;
  for (const auto& [level, line] : captured.lines) {
    if (line.find("plugin 'bad_json'") != std::string::npos) {
      warned = true;
      EXPECT_EQ(level, SY_LOG_WARNING);
    }
  }
  EXPECT_TRUE(warned);
}

TEST(VersionTest, LibraryApiAndPluginAbi) {
  uint32_t major = 0, minor = 0;
  ASSERT_EQ(sy_api_version(&major, &minor), SY_STATUS_OK);
  EXPECT_EQ(major, SY_API_VERSION_MAJOR);
  EXPECT_EQ(minor, 2u);  // 1.2: graphs and collectives
  ASSERT_EQ(sy_plugin_abi_version(&major, &minor), SY_STATUS_OK);
  EXPECT_EQ(major, SY_PLUGIN_ABI_MAJOR);
  EXPECT_EQ(minor, SY_PLUGIN_ABI_MINOR);
  EXPECT_EQ(sy_plugin_abi_version(nullptr, nullptr), SY_STATUS_OK);
  EXPECT_NE(std::string(sy_library_version()), "");
}

TEST(TraceTest, StartNeedsAPath) {
  EXPECT_SY_ERROR(sy_trace_start(nullptr), SY_STATUS_INVALID_ARGUMENT,
                  "sy_trace_start: path is NULL");
}

}  // namespace
}  // namespace sy_test
