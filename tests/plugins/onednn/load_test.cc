// What a user sees when libdnnl.so.2 is missing at run time: a copy of the
// plugin whose dependency is renamed to a library that does not exist
// fails at the `open` step with a reason that names the plugin's library
// and tells how to find the missing dependency, and the runtime goes on
// with the cpu plugin.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <unistd.h>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onednn_test_util.h"

namespace sy::onednn_test {
namespace {

namespace fs = std::filesystem;
using ::testing::AnyOf;
using ::testing::HasSubstr;

TEST(OnednnLoad, MissingLibdnnlGivesAClearLoadRecord) {
  const fs::path dir = fs::temp_directory_path() /
                       ("onednn_missing_dnnl_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path plugins(SWITCHYARD_PLUGIN_DIR);
  fs::copy_file(plugins / "onednn.json", dir / "onednn.json",
                fs::copy_options::overwrite_existing);
  {
    std::ifstream in(plugins / "libswitchyard_onednn.so", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    const std::string needed = "libdnnl.so.2";
    const size_t at = bytes.find(needed);
    ASSERT_NE(at, std::string::npos) << "the plugin does not name libdnnl.so.2";
    bytes.replace(at, needed.size(), "libdnnX.so.2");  // same length
    std::ofstream out(dir / "libswitchyard_onednn.so", std::ios::binary);
    out << bytes;
  }
  RuntimeOptions options;
  options.loader.use_environment = false;
  options.loader.use_default_path = false;
  options.loader.search_paths = {(plugins / "cpu.json").string()};
  auto runtime = Runtime::Create(options);
  ASSERT_TRUE(runtime.ok()) << runtime.status();

  const absl::Status status = (*runtime)->LoadPlugin((dir / "onednn.json").string());
  EXPECT_FALSE(status.ok());
  bool found = false;
  for (const LoadRecord& record : (*runtime)->LoadRecords()) {
    if (record.name != "onednn") continue;
    found = true;
    EXPECT_EQ(record.outcome, LoadOutcome::kFailed);
    EXPECT_EQ(record.stage, LoadStage::kOpen);
    EXPECT_THAT(record.reason, HasSubstr("libswitchyard_onednn.so"));
    // The dynamic loader's own words name the missing library.
    EXPECT_THAT(record.reason,
                HasSubstr("libdnnX.so.2: cannot open shared object file"));
  }
  EXPECT_TRUE(found);
  // The cpu plugin still serves the op.
  auto matmul = (*runtime)->FindOp("matmul");
  ASSERT_TRUE(matmul.ok());
  Device* cpu = (*runtime)->GetDevice("cpu").value();
  const float data[4] = {1, 2, 3, 4};
  const Tensor a = (*runtime)->FromHost(*cpu, SY_DTYPE_F32, {2, 2}, data, sizeof data).value();
  auto how = (*runtime)->Explain(*matmul, {a, a});
  ASSERT_TRUE(how.ok()) << how.status();
  EXPECT_THAT(*how, HasSubstr("kernel cpu::"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sy::onednn_test
