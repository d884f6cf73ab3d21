// Every way a plugin load can go wrong leaves its exact record, and the
// other plugins keep working.
#include <string>

#include "dispatcher/base/plugin_instance.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace sy::core {
namespace {

using ::sy::testing::BrokenManifest;
using ::sy::testing::ExpectCpuAddWorks;
using ::sy::testing::FindRecord;
using ::sy::testing::MakeRuntime;
using ::sy::testing::TestPlugin;

std::string Dir() { return SWITCHYARD_TEST_PLUGIN_DIR; }

// Loads cpu + `manifest`, returns the record named `name`, checks cpu works.
LoadRecord LoadAndGetRecord(const std::string& manifest, const std::string& name) {
  auto runtime = MakeRuntime({manifest});
  if (runtime == nullptr) return {};
  ExpectCpuAddWorks(*runtime);
  std::vector<LoadRecord> records = runtime->LoadRecords();
  const LoadRecord* record = FindRecord(records, name);
  EXPECT_NE(record, nullptr) << "no record for " << name;
  EXPECT_EQ(FindRecord(records, "cpu")->outcome, LoadOutcome::kLoaded);
  return record ? *record : LoadRecord{};
}

TEST(PluginLoaderTest, GoodPluginLoadsWithFullRecord) {
  LoadRecord r = LoadAndGetRecord(TestPlugin("test_good"), "test_good");
  EXPECT_EQ(r.outcome, LoadOutcome::kLoaded);
  EXPECT_EQ(r.stage, LoadStage::kDone);
  EXPECT_EQ(r.reason, "");
  EXPECT_EQ(r.plugin_version, "9.9.9");
  EXPECT_EQ(r.plugin_abi_major, 1u);
  EXPECT_EQ(r.plugin_abi_minor, SY_PLUGIN_ABI_MINOR);
  EXPECT_EQ(r.manifest_abi_major, 1u);
  EXPECT_EQ(r.num_devices, 1);
  EXPECT_EQ(r.num_schemas, 2);
  EXPECT_EQ(r.num_kernels, 6);
  EXPECT_EQ(r.library_path, Dir() + "/test_good/libswitchyard_test_good.so");
}

TEST(PluginLoaderTest, MissingLibrary) {
  LoadRecord r = LoadAndGetRecord(BrokenManifest("missing_library"), "missing_library");
  EXPECT_EQ(r.outcome, LoadOutcome::kFailed);
  EXPECT_EQ(r.stage, LoadStage::kManifest);
  EXPECT_EQ(r.reason,
            "the library 'libswitchyard_missing.so' named by the manifest does "
            "not exist at " + Dir() + "/broken/libswitchyard_missing.so; "
            "reinstall the plugin or fix \"library\"");
}

TEST(PluginLoaderTest, BadJson) {
  LoadRecord r = LoadAndGetRecord(BrokenManifest("bad_json"), "bad_json");
  EXPECT_EQ(r.outcome, LoadOutcome::kFailed);
  EXPECT_EQ(r.stage, LoadStage::kManifest);
  EXPECT_EQ(r.reason,
            "manifest " + BrokenManifest("bad_json") +
                " is not valid JSON: [json.exception.parse_error.101] parse "
                "error at line 3, column 1: syntax error while parsing value - "
                "unexpected end of input; expected '[', '{', or a literal; fix "
                "the file or remove it from the plugin path");
}

TEST(PluginLoaderTest, FutureManifestFormat) {
  LoadRecord r = LoadAndGetRecord(BrokenManifest("future_format"), "future_format");
  EXPECT_EQ(r.outcome, LoadOutcome::kFailed);
  EXPECT_EQ(r.stage, LoadStage::kManifest);
  EXPECT_EQ(r.reason, "manifest " + BrokenManifest("future_format") +
                          ": field \"format_version\" is 7 but this Switchyard "
                          "reads format 1; upgrade Switchyard or regenerate the "
                          "manifest with a matching SDK");
}

TEST(PluginLoaderTest, WrongAbiMajorInManifestIsRefusedBeforeOpening) {
  LoadRecord r = LoadAndGetRecord(BrokenManifest("wrong_major"), "wrong_major");
  EXPECT_EQ(r.outcome, LoadOutcome::kFailed);
  EXPECT_EQ(r.stage, LoadStage::kVersion);
  EXPECT_EQ(r.reason,
            absl::StrCat("the manifest says the plugin was built for plugin "
                         "ABI 2.0, but this Switchyard speaks ABI 1.",
                         SY_PLUGIN_ABI_MINOR, "; rebuild the plugin against "
                         "Switchyard SDK 1.x"));
  EXPECT_EQ(r.plugin_version, "");  // never opened
}

TEST(PluginLoaderTest, WrongAbiMajorInTable) {
  LoadRecord r = LoadAndGetRecord(TestPlugin("test_reports_major2"),
                                  "test_reports_major2");
  EXPECT_EQ(r.outcome, LoadOutcome::kFailed);
  EXPECT_EQ(r.stage, LoadStage::kVersion);
  EXPECT_EQ(r.reason,
            absl::StrCat("the library reports plugin ABI 2.", SY_PLUGIN_ABI_MINOR,
                         ", but this Switchyard speaks ABI 1.", SY_PLUGIN_ABI_MINOR,
                         "; rebuild the plugin against Switchyard SDK 1.x"));
}

TEST(PluginLoaderTest, OlderTableWithoutTrailingSlotsLoads) {
  // Its table ends before `unload`, whose pointer aborts if called: the host
  // must read no slot past struct_size (and unloading must not call it).
  LoadRecord r = LoadAndGetRecord(TestPlugin("test_truncated_table"),
                                  "test_truncated_table");
  EXPECT_EQ(r.outcome, LoadOutcome::kLoaded) << r.reason;
  EXPECT_EQ(r.num_kernels, 1);
}

TEST(PluginLoaderTest, NewerMinorThatInsistsIsRefused) {
  LoadRecord r = LoadAndGetRecord(TestPlugin("test_needs_newer_minor"),
                                  "test_needs_newer_minor");
  EXPECT_EQ(r.outcome, LoadOutcome::kFailed);
  EXPECT_EQ(r.stage, LoadStage::kVersion);
  EXPECT_EQ(r.reason,
            absl::StrCat("the plugin needs plugin ABI 1.", SY_PLUGIN_ABI_MINOR + 1,
                         ", but this Switchyard provides at most 1.",
                         SY_PLUGIN_ABI_MINOR, "; upgrade Switchyard, or build "
                         "the plugin to answer the host's minor "
                         "(sy_host_api_t.abi_minor)"));
}

TEST(PluginLoaderTest, NewerMinorThatNegotiatesLoads) {
  LoadRecord r = LoadAndGetRecord(TestPlugin("test_negotiates_minor"),
                                  "test_negotiates_minor");
  EXPECT_EQ(r.outcome, LoadOutcome::kLoaded) << r.reason;
  EXPECT_EQ(r.plugin_abi_minor, SY_PLUGIN_ABI_MINOR);
}

TEST(PluginLoaderTest, NoEntrySymbol) {
  LoadRecord r = LoadAndGetRecord(TestPlugin("test_no_entry"), "test_no_entry");
  EXPECT_EQ(r.outcome, LoadOutcome::kFailed);
  EXPECT_EQ(r.stage, LoadStage::kSymbol);
  EXPECT_EQ(r.reason, "library " + Dir() +
                          "/test_no_entry/libswitchyard_test_no_entry.so does "
                          "not export sy_plugin_init; it is not a Switchyard "
                          "plugin, or was built without SY_PLUGIN_EXPORT on its "
                          "entry point");
}

TEST(PluginLoaderTest, InitReturnsError) {
  LoadRecord r = LoadAndGetRecord(TestPlugin("test_init_error"), "test_init_error");
  EXPECT_EQ(r.outcome, LoadOutcome::kFailed);
  EXPECT_EQ(r.stage, LoadStage::kInit);
  EXPECT_EQ(r.reason,
            "sy_plugin_init: test_init_error: this plugin needs a "
            "frobnicator; none found");
}

TEST(PluginLoaderTest, LoadErrorWithdrawsWhatWasRegistered) {
  auto runtime = MakeRuntime({TestPlugin("test_load_error")});
  ASSERT_NE(runtime, nullptr);
  std::vector<LoadRecord> records = runtime->LoadRecords();
  const LoadRecord* r = FindRecord(records, "test_load_error");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->outcome, LoadOutcome::kFailed);
  EXPECT_EQ(r->stage, LoadStage::kRegister);
  EXPECT_EQ(r->reason,
            "the plugin's load slot failed: test_load_error: device lost "
            "during load");
  // Its relu (priority 100, writes 13) was registered before the failure
  // and must not be visible.
  Device* cpu = runtime->GetDevice("cpu").value();
  Tensor x = testing::MakeF32(*runtime, *cpu, {2}, {-1, 2});
  auto out = runtime->Call(runtime->FindOp("relu").value(), {x});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(testing::ReadF32(*runtime, (*out)[0]), (std::vector<float>{0, 2}));
}

TEST(PluginLoaderTest, Sha256Mismatch) {
  LoadRecord r = LoadAndGetRecord(BrokenManifest("sha_mismatch"), "test_good");
  EXPECT_EQ(r.outcome, LoadOutcome::kFailed);
  EXPECT_EQ(r.stage, LoadStage::kChecksum);
  EXPECT_TRUE(r.reason.starts_with("the library's SHA-256 is "));
  EXPECT_TRUE(r.reason.ends_with(
      " but the manifest pins "
      "0000000000000000000000000000000000000000000000000000000000000000; the "
      "file was changed after the manifest was written — reinstall the plugin "
      "or update the pin"))
      << r.reason;
}

TEST(PluginLoaderTest, Sha256PinThatMatchesLoads) {
  LoadRecord r = LoadAndGetRecord(TestPlugin("test_pinned"), "test_pinned");
  EXPECT_EQ(r.outcome, LoadOutcome::kLoaded) << r.reason;
}

TEST(PluginLoaderTest, ManifestNameMustMatchLibrary) {
  LoadRecord r = LoadAndGetRecord(BrokenManifest("impostor"), "impostor");
  EXPECT_EQ(r.outcome, LoadOutcome::kFailed);
  EXPECT_EQ(r.stage, LoadStage::kInit);
  EXPECT_EQ(r.reason,
            "the manifest names the plugin 'impostor' but the library calls "
            "itself 'test_good'; the manifest and library do not belong "
            "together");
}

TEST(PluginLoaderTest, WholeCorpusAtOnceLeavesGoodPluginsWorking) {
  std::vector<std::string> all = {Dir() + "/broken"};
  for (const char* name :
       {"test_good", "test_reports_major2", "test_truncated_table",
        "test_needs_newer_minor", "test_negotiates_minor", "test_init_error",
        "test_load_error", "test_no_entry", "test_pinned"}) {
    all.push_back(TestPlugin(name));
  }
  auto runtime = MakeRuntime(all);
  ASSERT_NE(runtime, nullptr);
  ExpectCpuAddWorks(*runtime);
  int loaded = 0, failed = 0, skipped = 0;
  for (const LoadRecord& r : runtime->LoadRecords()) {
    loaded += r.outcome == LoadOutcome::kLoaded;
    failed += r.outcome == LoadOutcome::kFailed;
    skipped += r.outcome == LoadOutcome::kSkipped;
  }
  // cpu, test_good, truncated, negotiates, pinned.
  EXPECT_EQ(loaded, 5);
  // broken/ (read before test_good's own manifest): bad_json future_format
  // impostor missing_library sha_mismatch wrong_major; then major2, newer
  // minor, init error, load error, no entry.
  EXPECT_EQ(failed, 11);
  EXPECT_EQ(skipped, 0);
  // fakedev, provided by test_good, works.
  Device* fake = runtime->GetDevice("fakedev:0").value();
  Tensor a = testing::MakeF32(*runtime, *fake, {2}, {1, 2});
  auto out = runtime->Call(runtime->FindOp("test_good::double_it").value(), {a});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(testing::ReadF32(*runtime, (*out)[0]), (std::vector<float>{2, 4}));
}

TEST(PluginLoaderTest, RequestedPluginThatFailsFailsCreate) {
  RuntimeOptions options;
  options.loader.use_environment = false;
  options.loader.use_default_path = false;
  options.loader.search_paths = {testing::CpuManifest(), TestPlugin("test_init_error")};
  options.loader.allow = {"cpu", "test_init_error"};
  absl::StatusOr<std::unique_ptr<Runtime>> runtime = Runtime::Create(options);
  ASSERT_FALSE(runtime.ok());
  EXPECT_EQ(runtime.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(runtime.status().message(),
            "plugin 'test_init_error' (" + TestPlugin("test_init_error") +
                "): failed at the init step — sy_plugin_init: test_init_error: "
                "this plugin needs a frobnicator; none found");
}

TEST(PluginLoaderTest, RequestedPluginNotFound) {
  RuntimeOptions options;
  options.loader.use_environment = false;
  options.loader.use_default_path = false;
  options.loader.search_paths = {testing::CpuManifest()};
  options.loader.allow = {"cpu", "nonexistent"};
  absl::StatusOr<std::unique_ptr<Runtime>> runtime = Runtime::Create(options);
  ASSERT_FALSE(runtime.ok());
  EXPECT_EQ(runtime.status().message(),
            "plugin 'nonexistent' was requested but no manifest named "
            "'nonexistent' was found in: " + testing::CpuManifest() +
                "; add its folder to SWITCHYARD_PLUGIN_PATH");
}

TEST(PluginLoaderTest, DenyListSkips) {
  RuntimeOptions options;
  options.loader.use_environment = false;
  options.loader.use_default_path = false;
  options.loader.search_paths = {testing::CpuManifest(), TestPlugin("test_good")};
  options.loader.deny = {"test_good"};
  auto runtime = Runtime::Create(options).value();
  std::vector<LoadRecord> records = runtime->LoadRecords();
  const LoadRecord* r = FindRecord(records, "test_good");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->outcome, LoadOutcome::kSkipped);
  EXPECT_EQ(r->reason, "denied by the deny list (SWITCHYARD_PLUGINS=-test_good)");
  EXPECT_FALSE(runtime->GetDevice("fakedev").ok());
}

TEST(PluginLoaderTest, RelativePluginPathEntriesAreIgnored) {
  setenv("SWITCHYARD_PLUGIN_PATH", ("relative/dir::" + testing::CpuManifest()).c_str(), 1);
  RuntimeOptions options;
  options.loader.use_default_path = false;
  auto runtime = Runtime::Create(options).value();
  unsetenv("SWITCHYARD_PLUGIN_PATH");
  std::vector<LoadRecord> records = runtime->LoadRecords();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].outcome, LoadOutcome::kSkipped);
  EXPECT_EQ(records[0].stage, LoadStage::kDiscovery);
  EXPECT_EQ(records[0].reason,
            "relative entry 'relative/dir' in SWITCHYARD_PLUGIN_PATH ignored: "
            "plugins are never loaded from the current directory unless named "
            "by an absolute path");
  EXPECT_EQ(records[1].reason,
            "relative entry '' in SWITCHYARD_PLUGIN_PATH ignored: plugins are "
            "never loaded from the current directory unless named by an "
            "absolute path");
  EXPECT_EQ(records[2].name, "cpu");
  EXPECT_EQ(records[2].outcome, LoadOutcome::kLoaded);
}

TEST(PluginLoaderTest, UnloadRefusedWhileTensorsLiveThenSucceeds) {
  auto runtime = MakeRuntime({TestPlugin("test_good")});
  ASSERT_NE(runtime, nullptr);
  {
    Device* fake = runtime->GetDevice("fakedev").value();
    Tensor t = testing::MakeF32(*runtime, *fake, {4}, {1, 2, 3, 4});
    absl::Status status = runtime->UnloadPlugin("test_good");
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_EQ(status.message(),
              "cannot unload plugin 'test_good': 1 tensor storage block(s) on "
              "its devices are still alive; release every tensor on its "
              "devices first");
    EXPECT_EQ(testing::ReadF32(*runtime, t), (std::vector<float>{1, 2, 3, 4}));
  }
  ASSERT_TRUE(runtime->UnloadPlugin("test_good").ok());
  EXPECT_FALSE(runtime->GetDevice("fakedev").ok());
  EXPECT_FALSE(runtime->FindOp("test_good::double_it").ok());
  ExpectCpuAddWorks(*runtime);
  // Loading it again works.
  ASSERT_TRUE(runtime->LoadPlugin(TestPlugin("test_good")).ok());
  EXPECT_TRUE(runtime->FindOp("test_good::double_it").ok());
  EXPECT_EQ(runtime->UnloadPlugin("nope").message(),
            "cannot unload plugin 'nope': no plugin of that name is loaded (see "
            "`switchyard info`)");
}

TEST(PluginLoaderTest, TwoRuntimesShareOneLibrary) {
  auto first = MakeRuntime({TestPlugin("test_good")});
  auto second = MakeRuntime({TestPlugin("test_good")});
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  first.reset();  // the library stays open for the second runtime
  Device* fake = second->GetDevice("fakedev").value();
  Tensor a = testing::MakeF32(*second, *fake, {1}, {3});
  auto out = second->Call(second->FindOp("test_good::double_it").value(), {a});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(testing::ReadF32(*second, (*out)[0]), (std::vector<float>{6}));
}

}  // namespace
}  // namespace sy::core
