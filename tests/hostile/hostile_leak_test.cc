// A plugin that leaks memory on every load: the host cannot see the leak
// and must not be harmed by it. It loads, unloads and reloads, and the cpu
// plugin beside it keeps computing. Run with LSan's leak check off (the
// leak is the plugin's, by design; LSan would rightly report it).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/dispatcher/test_util.h"

namespace sy::core {
namespace {

using ::sy::testing::ExpectCpuAddWorks;
using ::sy::testing::FindRecord;
using ::sy::testing::MakeRuntime;

TEST(HostileLeakTest, LeakingPluginLoadsUnloadsAndReloadsHarmlessly) {
  const std::string manifest =
      std::string(HOSTILE_PLUGIN_DIR) + "/leaks/hostile_leaks.json";
  auto runtime = MakeRuntime({manifest});
  ASSERT_NE(runtime, nullptr);
  const std::vector<LoadRecord> records = runtime->LoadRecords();
  const LoadRecord* record = FindRecord(records, "hostile_leaks");
  ASSERT_NE(record, nullptr);
  EXPECT_EQ(record->outcome, LoadOutcome::kLoaded) << record->reason;
  EXPECT_EQ(record->num_kernels, 1);
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(runtime->UnloadPlugin("hostile_leaks").ok());
    ExpectCpuAddWorks(*runtime);
    ASSERT_TRUE(runtime->LoadPlugin(manifest).ok());
  }
  ExpectCpuAddWorks(*runtime);
}

}  // namespace
}  // namespace sy::core
