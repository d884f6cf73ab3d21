// The cpu plugin as a loader sees it: the exported symbols, the manifest,
// sy_plugin_init's version checks, and what `load` registers, in order.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <set>
#include <string>
#include <vector>

#include "switchyard/plugin.hpp"
#include "test_host.h"

namespace sy::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsSupersetOf;

TEST(CpuPluginExportsTest, ExportsOnlySyPluginInit) {
  const std::string command = std::string(SWITCHYARD_NM) +
                              " -D --defined-only " + CpuPluginPath() + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr) << command;
  std::vector<std::string> symbols;
  char line[512];
  while (std::fgets(line, sizeof line, pipe) != nullptr) {
    std::istringstream fields(line);
    std::string address, type, name;
    fields >> address >> type >> name;
    symbols.push_back(name.empty() ? line : name);
  }
  ASSERT_EQ(pclose(pipe), 0) << command;
  EXPECT_THAT(symbols, ElementsAre("sy_plugin_init"));
}

TEST(CpuPluginManifestTest, SitsNextToTheLibrary) {
  const std::filesystem::path library(CpuPluginPath());
  std::ifstream in(library.parent_path() / "cpu.json");
  ASSERT_TRUE(in) << "no cpu.json next to " << library;
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr("\"name\": \"cpu\""));
  EXPECT_THAT(text.str(),
              HasSubstr("\"library\": \"" + library.filename().string()));
  EXPECT_THAT(text.str(), HasSubstr("\"abi\": {\"major\": 1, \"minor\": " +
                                    std::to_string(SY_PLUGIN_ABI_MINOR) + "}"));
  EXPECT_THAT(text.str(), HasSubstr("\"device_types\": [\"cpu\"]"));
}

// Opens the library and finds sy_plugin_init without loading the plugin.
class CpuPluginInitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    library_ = dlopen(CpuPluginPath(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library_, nullptr) << dlerror();
    init_ = reinterpret_cast<sy_plugin_init_fn>(
        dlsym(library_, SY_PLUGIN_INIT_SYMBOL));
    ASSERT_NE(init_, nullptr);
  }
  void TearDown() override {
    if (library_ != nullptr) dlclose(library_);
  }
  TestHost host_;  // only its table; nothing is loaded through it
  void* library_ = nullptr;
  sy_plugin_init_fn init_ = nullptr;
};

TEST_F(CpuPluginInitTest, ReturnsItsTable) {
  const sy_plugin_api_t* plugin = nullptr;
  ASSERT_TRUE(TakeError(init_(host_.api(), &plugin)).ok());
  ASSERT_NE(plugin, nullptr);
  EXPECT_EQ(plugin->struct_size, sizeof(sy_plugin_api_t));
  EXPECT_EQ(plugin->extension, nullptr);
  EXPECT_EQ(plugin->abi_major, 1u);
  EXPECT_EQ(plugin->abi_minor, 3u);  // launch configurations
  EXPECT_STREQ(plugin->name, "cpu");
  EXPECT_STREQ(plugin->version, "0.2.0");
  EXPECT_NE(plugin->load, nullptr);
  EXPECT_NE(plugin->unload, nullptr);
  EXPECT_TRUE(host_.kernels().empty()) << "init must not register";
}

TEST_F(CpuPluginInitTest, AnswersItsOwnMinorToANewerHost) {
  sy_host_api_t newer = *host_.api();
  newer.abi_minor = 7;
  const sy_plugin_api_t* plugin = nullptr;
  ASSERT_TRUE(TakeError(init_(&newer, &plugin)).ok());
  EXPECT_EQ(plugin->abi_minor, 3u);
}

TEST_F(CpuPluginInitTest, RefusesAnotherMajor) {
  sy_host_api_t other = *host_.api();
  other.abi_major = 2;
  other.abi_minor = 3;
  static const sy_plugin_api_t kStale{};
  const sy_plugin_api_t* plugin = &kStale;  // must come back NULL
  const Status status = TakeError(init_(&other, &plugin));
  EXPECT_EQ(status.code, SY_STATUS_FAILED_PRECONDITION);
  EXPECT_EQ(status.message,
            "cpu plugin: the host speaks plugin ABI 2.3 but this plugin was "
            "built for ABI 1.3; rebuild the plugin against the host's SDK, or "
            "use a host that speaks plugin ABI 1");
  EXPECT_EQ(plugin, nullptr);
}

TEST_F(CpuPluginInitTest, RefusesATruncatedHostTable) {
  sy_host_api_t small = *host_.api();
  small.struct_size = offsetof(sy_host_api_t, register_schema);
  const sy_plugin_api_t* plugin = nullptr;
  const Status status = TakeError(init_(&small, &plugin));
  EXPECT_EQ(status.code, SY_STATUS_FAILED_PRECONDITION);
  EXPECT_THAT(status.message,
              HasSubstr("cpu plugin: needs plugin ABI 1.3 but the host offers ABI 1." +
                        std::to_string(SY_PLUGIN_ABI_MINOR) + " with a "));
}

TEST_F(CpuPluginInitTest, RejectsANullOutPointer) {
  const Status status = TakeError(init_(host_.api(), nullptr));
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: sy_plugin_init: out_plugin is NULL; pass the address "
            "of a const sy_plugin_api_t*");
}

TEST_F(CpuPluginInitTest, SurvivesANullHost) {
  const sy_plugin_api_t* plugin = nullptr;
  EXPECT_EQ(init_(nullptr, &plugin), nullptr);
  EXPECT_EQ(plugin, nullptr);
}

TEST(CpuPluginLoadTest, RegistersTheDeviceThenTheKernelsInOrder) {
  TestHost host;
  const Status status = host.Load(CpuPluginPath());
  ASSERT_TRUE(status.ok()) << status.message;
  ASSERT_EQ(host.devices().size(), 1u);
  const sy_device_api_t* device = host.devices()[0].api;
  EXPECT_EQ(host.devices()[0].device_type, "cpu");
  EXPECT_EQ(device->struct_size, sizeof(sy_device_api_t));
  EXPECT_EQ(device->dlpack_device_type, 1);

  // Every kernel is named after its key, "<op>.<dtype>…", so names are
  // unique and a pin names exactly one (op, dtypes) pair.
  std::set<std::string> names;
  for (const RegisteredKernel& k : host.kernels()) {
    EXPECT_EQ(k.device_type, "cpu") << k.name;
    EXPECT_EQ(k.priority, 0) << k.name;
    std::string expected = k.op;
    for (sy_dtype_t dtype : k.dtypes) {
      expected += ".";
      expected += plugin::DtypeName(dtype);
    }
    EXPECT_EQ(k.name, expected);
    EXPECT_TRUE(names.insert(k.name).second) << "duplicate " << k.name;
  }
  EXPECT_THAT(names, IsSupersetOf({"add.Tensor.f32.f32", "mul.Tensor.f32.f32",
                                   "relu.f32", "copy.f32", "sum.f32",
                                   "matmul.f32.f32"}));
  EXPECT_THAT(host.log(),
              ElementsAre(HasSubstr("2 [plugin] matmul uses the ")));
}

// Several runtimes in one process share the loaded plugin: each `load` gets
// its own context and registers the same static tables.
TEST(CpuPluginLoadTest, LoadsOncePerRuntime) {
  TestHost host;
  ASSERT_TRUE(host.Load(CpuPluginPath()).ok());
  const Status status = host.LoadAnotherRuntime();
  ASSERT_TRUE(status.ok()) << status.message;
  ASSERT_EQ(host.devices().size(), 2u);
  EXPECT_EQ(host.devices()[1].runtime, 1);
  EXPECT_EQ(host.devices()[0].api, host.devices()[1].api);
  // The second load registers exactly what the first did, in order.
  const size_t per_load = host.kernels().size() / 2;
  ASSERT_GT(per_load, 0u);
  ASSERT_EQ(host.kernels().size(), 2 * per_load);
  for (size_t i = 0; i < per_load; ++i) {
    EXPECT_EQ(host.kernels()[i].runtime, 0);
    EXPECT_EQ(host.kernels()[i + per_load].runtime, 1);
    EXPECT_EQ(host.kernels()[i].fn, host.kernels()[i + per_load].fn);
  }
}

TEST(CpuPluginLoadTest, StopsAtTheFirstFailedRegistration) {
  TestHost host;
  host.FailKernelRegistrationAt(2);
  const Status status = host.Load(CpuPluginPath());
  EXPECT_EQ(status.code, SY_STATUS_INTERNAL);
  EXPECT_EQ(status.message, "injected registration failure");
  EXPECT_EQ(host.kernel_registration_calls(), 3);
  EXPECT_EQ(host.kernels().size(), 2u);
}

TEST(CpuPluginLoadTest, WarnsAboutAnUnknownIsaRequest) {
  setenv("SWITCHYARD_CPU_ISA", "quantum", 1);
  TestHost host;
  const Status status = host.Load(CpuPluginPath());
  unsetenv("SWITCHYARD_CPU_ISA");
  ASSERT_TRUE(status.ok()) << status.message;
  EXPECT_THAT(host.log(),
              ElementsAre("1 cpu plugin: SWITCHYARD_CPU_ISA=quantum is not "
                          "one of generic, avx2, avx512; ignoring it",
                          HasSubstr("2 [plugin] matmul uses the ")));
}

TEST(CpuPluginLoadTest, LoadsAgainAfterUnload) {
  size_t first = 0;
  for (int i = 0; i < 3; ++i) {
    TestHost host;
    const Status status = host.Load(CpuPluginPath());
    ASSERT_TRUE(status.ok()) << status.message;
    if (i == 0) first = host.kernels().size();
    EXPECT_GT(host.kernels().size(), 0u);
    EXPECT_EQ(host.kernels().size(), first);
  }
}

}  // namespace
}  // namespace sy::testing
