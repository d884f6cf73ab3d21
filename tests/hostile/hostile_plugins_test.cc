// The hostile corpus (hostile_plugin.cc, README.md): each broken plugin
// yields its exact load record, the process goes on, and the cpu plugin
// loaded beside it still computes.
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "dispatcher/loading/plugin_library.h"
#include "gtest/gtest.h"
#include "tests/dispatcher/test_util.h"

namespace sy::core {
namespace {

using ::sy::testing::ExpectCpuAddWorks;
using ::sy::testing::FindRecord;
using ::sy::testing::MakeRuntime;

namespace fs = std::filesystem;

std::string Manifest(const std::string& kind) {
  return std::string(HOSTILE_PLUGIN_DIR) + "/" + kind + "/hostile_" + kind + ".json";
}

// Loads cpu + the manifests, checks cpu still works, returns `name`'s record.
LoadRecord Record(const std::vector<std::string>& manifests, const std::string& name) {
  auto runtime = MakeRuntime(manifests);
  if (runtime == nullptr) return {};
  ExpectCpuAddWorks(*runtime);
  std::vector<LoadRecord> records = runtime->LoadRecords();
  EXPECT_EQ(FindRecord(records, "cpu")->outcome, LoadOutcome::kLoaded);
  const LoadRecord* record = FindRecord(records, name);
  EXPECT_NE(record, nullptr) << "no record for " << name;
  return record != nullptr ? *record : LoadRecord{};
}

struct Case {
  const char* kind;
  LoadStage stage;
  const char* reason;
};

class HostilePluginTest : public ::testing::TestWithParam<Case> {};

TEST_P(HostilePluginTest, FailsWithItsExactRecordAndHarmsNothing) {
  const Case& c = GetParam();
  LoadRecord r = Record({Manifest(c.kind)}, std::string("hostile_") + c.kind);
  EXPECT_EQ(r.outcome, LoadOutcome::kFailed);
  EXPECT_EQ(LoadStageName(r.stage), std::string(LoadStageName(c.stage)));
  EXPECT_EQ(r.reason, c.reason);
}

constexpr const char kRegisterFailed[] = "the plugin's load slot failed: ";

INSTANTIATE_TEST_SUITE_P(
    Corpus, HostilePluginTest,
    ::testing::Values(
        Case{"init_throws", LoadStage::kInit,
             "sy_plugin_init: hostile_init_throws: sy_plugin_init: unexpected C++ "
             "exception: the frobnicator driver is not installed; this is a bug in "
             "the plugin; report it"},
        Case{"null_message", LoadStage::kInit,
             "sy_plugin_init: the plugin reported UNAVAILABLE with no message (NULL "
             "or empty); ask the plugin's author to say what went wrong"},
        Case{"null_table", LoadStage::kInit,
             "sy_plugin_init returned success but left *out_plugin null; it must "
             "point at the plugin's static sy_plugin_api_t"},
        Case{"null_load_slot", LoadStage::kInit,
             "the plugin table's required slot 'load' is null"},
        Case{"tiny_table", LoadStage::kInit,
             "the plugin table's struct_size is 8 bytes, smaller than ABI 1.0's 48; "
             "set struct_size = sizeof(sy_plugin_api_t) and rebuild"},
        Case{"null_device_slot", LoadStage::kRegister,
             "the plugin's load slot failed: register_device: device type "
             "'hostiledev' leaves the required slot allocate null; every device "
             "slot is required in ABI 1.0"},
        Case{"duplicate_kernel", LoadStage::kRegister,
             "the plugin's load slot failed: register_kernel 'relu_f32' for 'relu' "
             "on cpu with dtypes (f32) is registered twice"},
        Case{"unknown_op", LoadStage::kRegister,
             "the plugin's load slot failed: register_kernel 'frobnicate_f32' for "
             "'frobnicate': no op of that name; use a full schema name such as "
             "'add.Tensor' (see `switchyard ops`), or register your own schema first"},
        Case{"unknown_dtype", LoadStage::kRegister,
             "the plugin's load slot failed: register_kernel 'relu_f99' for 'relu': "
             "dtype #0 (argument 'x') is 0x63, not one of f32 f64 f16 bf16 i32 i64 "
             "i8 u8 bool"},
        Case{"bad_device_type", LoadStage::kRegister,
             "the plugin's load slot failed: register_kernel 'relu_f32' for 'relu': "
             "device_type 'Not A Device!' is not a device type name; use a "
             "lowercase identifier ([a-z_][a-z0-9_]*) such as 'cpu'"},
        Case{"core_schema", LoadStage::kRegister,
             "the plugin's load slot failed: register_schema: 'relu' must be in the "
             "plugin's own namespace; name it 'hostile_core_schema::relu'"},
        Case{"foreign_namespace", LoadStage::kRegister,
             "the plugin's load slot failed: register_schema: 'cpu::relu_fast' must "
             "be in the plugin's own namespace; name it "
             "'hostile_foreign_namespace::relu_fast'"},
        Case{"conflicting_schema", LoadStage::kRegister,
             "the plugin's load slot failed: register_schema: op "
             "'hostile_conflicting_schema::blend' is already registered by this "
             "plugin; give each signature its own overload name, as in "
             "'hostile_conflicting_schema::blend.variant(…)'"},
        Case{"bad_output_layout", LoadStage::kRegister,
             "the plugin's load slot failed: register_schema: "
             "'hostile_bad_output_layout::spread' asks for output layout 7, which "
             "is not a sy_output_layout_t; use SY_OUTPUT_LAYOUT_CONTIGUOUS (0), "
             "SY_OUTPUT_LAYOUT_CHANNELS_LAST_LIKE_INPUTS (1) or "
             "SY_OUTPUT_LAYOUT_LIKE_FIRST_FULL_INPUT (2)"},
        Case{"bad_schema_text", LoadStage::kRegister,
             "the plugin's load slot failed: register_schema: schema "
             "'hostile_bad_schema_text::oops(Tensor x -> Tensor': at column 40: "
             "expected ',' or ')' after an argument, found '->'"}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.kind); });

// Symbols besides the entry point: refused before the library is opened.
TEST(HostilePluginsTest, ExtraExportsAreRefusedBeforeOpening) {
  const std::string dir = std::string(HOSTILE_PLUGIN_DIR) + "/extra_exports";
  LoadRecord r = Record({dir + "/hostile_extra_exports.json"}, "hostile_extra_exports");
  EXPECT_EQ(r.outcome, LoadOutcome::kFailed);
  EXPECT_EQ(r.stage, LoadStage::kSymbol);
  // AddressSanitizer gives each exported global an ODR indicator symbol; the
  // loader lists it too, because it is exported like any other.
#if defined(__SANITIZE_ADDRESS__)
  const std::string extra = "3 symbols besides sy_plugin_init "
                            "(__odr_asan.hostile_counter, hostile_counter, hostile_helper)";
#else
  const std::string extra = "2 symbols besides sy_plugin_init (hostile_counter, hostile_helper)";
#endif
  EXPECT_EQ(r.reason,
            "library " + dir + "/libswitchyard_hostile_extra_exports.so exports " +
            extra + "; a "
            "plugin must export only its entry point, or its symbols may collide "
            "with the host's and other plugins'; build it with "
            "switchyard_add_plugin (hidden visibility and a version script)");
}

// A plugin folder anyone may write to is refused, unless the user opts in.
TEST(HostilePluginsTest, WorldWritableFolderIsRefusedUnlessAllowed) {
  const fs::path dir = fs::temp_directory_path() /
                       ("switchyard_hostile_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path good = fs::path(SWITCHYARD_TEST_PLUGIN_DIR) / "test_good";
  fs::copy(good / "test_good.json", dir / "test_good.json");
  fs::copy(good / "libswitchyard_test_good.so", dir / "libswitchyard_test_good.so");
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
  const std::string manifest = (dir / "test_good.json").string();

  ::unsetenv("SWITCHYARD_ALLOW_INSECURE_PLUGIN_DIRS");
  LoadRecord refused = Record({manifest}, "test_good");
  EXPECT_EQ(refused.outcome, LoadOutcome::kFailed);
  EXPECT_EQ(refused.stage, LoadStage::kPolicy);
  EXPECT_EQ(refused.reason,
            dir.string() + " is writable by every user (mode 0777), so anyone on "
            "this machine could replace the plugin's code; make it writable by its "
            "owner only (chmod o-w '" + dir.string() + "'), or set "
            "SWITCHYARD_ALLOW_INSECURE_PLUGIN_DIRS=1 to load it anyway");

  ::setenv("SWITCHYARD_ALLOW_INSECURE_PLUGIN_DIRS", "1", 1);
  LoadRecord allowed = Record({manifest}, "test_good");
  ::unsetenv("SWITCHYARD_ALLOW_INSECURE_PLUGIN_DIRS");
  EXPECT_EQ(allowed.outcome, LoadOutcome::kLoaded) << allowed.reason;

  // A world-writable library in a safe folder is refused too.
  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  ASSERT_EQ(::chmod((dir / "libswitchyard_test_good.so").c_str(), 0757), 0);
  LoadRecord library = Record({manifest}, "test_good");
  EXPECT_EQ(library.stage, LoadStage::kPolicy);
  EXPECT_NE(library.reason.find("libswitchyard_test_good.so is writable by every "
                                "user (mode 0757)"),
            std::string::npos)
      << library.reason;
  fs::remove_all(dir);
}

// Issue 14, point 8: a plugin that leaves a thread running in its own code.
// Closing its library would unmap that code under the thread (SIGSEGV); the
// host sees the thread, keeps the library mapped, and says so in the log
// and the record. A reload runs on the same mapping.
TEST(HostilePluginsTest, ThreadLeftRunningKeepsTheLibraryMapped) {
  // ThreadSanitizer starts its background thread at the process's first
  // pthread_create. Were that the plugin's thread, the host would count
  // both as started while the plugin was loaded, and the busy one as
  // "may still run its code" (a CI failure: "2 thread(s)"). So the first
  // thread is started here, before the plugin's library opens.
  std::thread([] {}).join();
  auto runtime = MakeRuntime({Manifest("thread_left_running")});
  ASSERT_NE(runtime, nullptr);
  const std::string name = "hostile_thread_left_running";
  ASSERT_EQ(FindRecord(runtime->LoadRecords(), name)->outcome, LoadOutcome::kLoaded);
  ASSERT_TRUE(runtime->UnloadPlugin(name).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // it still ticks
  const std::vector<LoadRecord> records = runtime->LoadRecords();
  const LoadRecord* record = FindRecord(records, name);
  ASSERT_NE(record, nullptr);
  ASSERT_EQ(record->notes.size(), 1u);
  const std::string library = std::string(HOSTILE_PLUGIN_DIR) +
                              "/thread_left_running/libswitchyard_hostile_thread_left_running.so";
  EXPECT_TRUE(record->notes[0].starts_with(
      "plugin library " + library + " stays mapped: 1 thread(s) started while it "
      "was loaded were still running after its unload slot returned (thread id "))
      << record->notes[0];
  EXPECT_TRUE(record->notes[0].ends_with(
      "), and closing the library would pull their code from under them; a plugin "
      "must join its threads in unload, or declare itself resident "
      "(SY_PLUGIN_FLAG_RESIDENT)"))
      << record->notes[0];
  ExpectCpuAddWorks(*runtime);
  // Loaded again on the kept mapping, and unloaded again: no second note
  // (the mapping was kept already), no crash.
  ASSERT_TRUE(runtime->LoadPlugin(Manifest("thread_left_running")).ok());
  ASSERT_TRUE(runtime->UnloadPlugin(name).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ExpectCpuAddWorks(*runtime);
}

// The same worker joined in unload: the library is closed (unmapped).
TEST(HostilePluginsTest, ThreadJoinedInUnloadLetsTheLibraryClose) {
  const std::string library = "libswitchyard_hostile_thread_joined.so";
  auto mapped = [&] {
    std::ifstream maps("/proc/self/maps");
    std::stringstream text;
    text << maps.rdbuf();
    return text.str().find(library) != std::string::npos;
  };
  auto runtime = MakeRuntime({Manifest("thread_joined")});
  ASSERT_NE(runtime, nullptr);
  const std::string name = "hostile_thread_joined";
  ASSERT_EQ(FindRecord(runtime->LoadRecords(), name)->outcome, LoadOutcome::kLoaded);
  EXPECT_TRUE(mapped());
  ASSERT_TRUE(runtime->UnloadPlugin(name).ok());
  EXPECT_TRUE(FindRecord(runtime->LoadRecords(), name)->notes.empty());
  EXPECT_FALSE(mapped());
  ExpectCpuAddWorks(*runtime);
}

// A plugin that leaks memory in load: the host cannot see it and is not
// harmed; it loads and serves its kernel. (LSan reports the leak against
// the plugin's library, so this case runs in hostile_leak_test.)

}  // namespace
}  // namespace sy::core
