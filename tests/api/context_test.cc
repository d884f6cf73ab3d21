// Contexts: options, plugin loading, the load report, introspection,
// destruction and what happens to handles afterwards.
#include <cstring>
#include <string>
#include <vector>

#include "c_api_test_util.h"

namespace sy_test {
namespace {

TEST(ContextTest, DefaultOptionsFindTheBuildTreesPlugins) {
  // NULL options: environment and the folder next to libswitchyard.so,
  // which in the build tree holds the cpu plugin.
  sy_context_t context = nullptr;
  ASSERT_EQ(sy_context_create(nullptr, &context), SY_STATUS_OK) << sy_last_error_message();
  sy_device_handle_t cpu = nullptr;
  EXPECT_EQ(sy_device_find(context, "cpu", &cpu), SY_STATUS_OK) << sy_last_error_message();
  EXPECT_EQ(sy_context_destroy(context), SY_STATUS_OK);
}

TEST(ContextTest, OptionsAreValidated) {
  sy_context_t context = nullptr;
  sy_context_options_t options;
  sy_context_options_init(&options);
  EXPECT_EQ(options.struct_size, sizeof(sy_context_options_t));
  EXPECT_EQ(options.use_environment, 1);
  EXPECT_EQ(options.use_default_path, 1);
  EXPECT_EQ(options.cpu_fallback, -1);
  EXPECT_EQ(options.num_plugin_paths, 0);
  EXPECT_SY_ERROR(sy_context_create(&options, nullptr), SY_STATUS_INVALID_ARGUMENT,
                  "sy_context_create: out_context is NULL");

  sy_context_options_t small = options;
  small.struct_size = 8;
  EXPECT_SY_ERROR(sy_context_create(&small, &context), SY_STATUS_INVALID_ARGUMENT,
                  "sy_context_create: options->struct_size is 8; set it to "
                  "sizeof(sy_context_options_t) (88 in API 1.0) before the call");

  sy_context_options_t negative = options;
  negative.num_plugin_paths = -1;
  EXPECT_SY_ERROR(sy_context_create(&negative, &context), SY_STATUS_INVALID_ARGUMENT,
                  "sy_context_create: the number of options->plugin_paths is -1; "
                  "it must be >= 0");

  sy_context_options_t null_array = options;
  null_array.num_allow = 2;
  EXPECT_SY_ERROR(sy_context_create(&null_array, &context), SY_STATUS_INVALID_ARGUMENT,
                  "sy_context_create: options->allow is NULL but its count is 2");

  const char* with_null[2] = {"cpu", nullptr};
  sy_context_options_t null_entry = options;
  null_entry.deny = with_null;
  null_entry.num_deny = 2;
  EXPECT_SY_ERROR(sy_context_create(&null_entry, &context), SY_STATUS_INVALID_ARGUMENT,
                  "sy_context_create: options->deny[1] is NULL");

  sy_context_options_t fallback = options;
  fallback.cpu_fallback = 2;
  EXPECT_SY_ERROR(sy_context_create(&fallback, &context), SY_STATUS_INVALID_ARGUMENT,
                  "sy_context_create: options->cpu_fallback is 2; use 1 (on), 0 "
                  "(off) or -1 (SWITCHYARD_CPU_FALLBACK decides)");
  EXPECT_EQ(context, nullptr);  // no failure wrote it
}

TEST(ContextTest, ARequestedManifestThatFailsFailsCreation) {
  const std::string broken = BrokenManifest("missing_library");
  const std::string cpu = CpuManifest();
  const char* manifests[1] = {broken.c_str()};
  const char* paths[1] = {cpu.c_str()};
  sy_context_options_t options;
  sy_context_options_init(&options);
  options.use_environment = 0;
  options.use_default_path = 0;
  options.plugin_paths = paths;
  options.num_plugin_paths = 1;
  options.plugin_manifests = manifests;
  options.num_plugin_manifests = 1;
  sy_context_t context = nullptr;
  EXPECT_SY_ERROR_LIKE(sy_context_create(&options, &context),
                       SY_STATUS_FAILED_PRECONDITION,
                       "sy_context_create: plugin 'missing_library'",
                       "libswitchyard_missing.so");
  EXPECT_EQ(context, nullptr);

  // The same plugin merely discovered is recorded, not fatal.
  sy_context_t ok = MakeContext({cpu, broken});
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(sy_context_destroy(ok), SY_STATUS_OK);
}

TEST(ContextTest, AllowListNamesWhatMustLoad) {
  const std::string cpu = CpuManifest();
  const char* paths[1] = {cpu.c_str()};
  const char* allow[1] = {"not_there"};
  sy_context_options_t options;
  sy_context_options_init(&options);
  options.use_environment = 0;
  options.use_default_path = 0;
  options.plugin_paths = paths;
  options.num_plugin_paths = 1;
  options.allow = allow;
  options.num_allow = 1;
  sy_context_t context = nullptr;
  EXPECT_SY_ERROR_LIKE(sy_context_create(&options, &context),
                       SY_STATUS_FAILED_PRECONDITION,
                       "sy_context_create: plugin 'not_there' was requested",
                       "SWITCHYARD_PLUGIN_PATH");
}

TEST(ContextTest, LoadReportExplainsEveryAttempt) {
  const std::string broken_dir = std::string(SWITCHYARD_TEST_PLUGIN_DIR) + "/broken";
  sy_context_t context = MakeContext({CpuManifest(), broken_dir});
  ASSERT_NE(context, nullptr);
  int32_t count = 0;
  ASSERT_EQ(sy_context_plugin_record_count(context, &count), SY_STATUS_OK);
  ASSERT_GE(count, 5);  // cpu and the broken manifests
  bool saw_cpu = false, saw_bad_json = false, saw_wrong_major = false;
  for (int32_t i = 0; i < count; ++i) {
    sy_plugin_record_t record{};
    record.struct_size = sizeof record;
    ASSERT_EQ(sy_context_plugin_record(context, i, &record), SY_STATUS_OK)
        << sy_last_error_message();
    EXPECT_EQ(record.struct_size, sizeof record);
    ASSERT_NE(record.name, nullptr);
    ASSERT_NE(record.description, nullptr);
    const std::string name = record.name;
    if (name == "cpu") {
      saw_cpu = true;
      EXPECT_EQ(record.outcome, SY_LOAD_LOADED);
      EXPECT_STREQ(record.reason, "");
      EXPECT_EQ(record.num_devices, 1);
      EXPECT_GT(record.num_kernels, 0);
      EXPECT_EQ(record.host_abi_major, static_cast<uint32_t>(SY_PLUGIN_ABI_MAJOR));
    } else if (name == "wrong_major") {
      saw_wrong_major = true;
      EXPECT_EQ(record.outcome, SY_LOAD_FAILED);
      EXPECT_STREQ(record.stage, "version");
      EXPECT_NE(std::string(record.description).find("wrong_major"), std::string::npos);
    } else if (std::string(record.manifest_path).find("bad_json") != std::string::npos) {
      saw_bad_json = true;
      EXPECT_EQ(record.outcome, SY_LOAD_FAILED);
      EXPECT_STREQ(record.stage, "manifest");
      EXPECT_STRNE(record.reason, "");
    }
  }
  EXPECT_TRUE(saw_cpu && saw_bad_json && saw_wrong_major);

  sy_plugin_record_t record{};
  record.struct_size = sizeof record;
  EXPECT_SY_ERROR(sy_context_plugin_record(context, count, &record),
                  SY_STATUS_OUT_OF_RANGE,
                  "sy_context_plugin_record: load record index " + std::to_string(count) +
                      " is out of range: there are " + std::to_string(count) +
                      " (see sy_context_plugin_record_count)");
  EXPECT_SY_ERROR(sy_context_plugin_record(context, -1, &record), SY_STATUS_OUT_OF_RANGE,
                  "sy_context_plugin_record: load record index -1 is out of range: "
                  "there are " + std::to_string(count) +
                      " (see sy_context_plugin_record_count)");
  record.struct_size = 16;
  EXPECT_SY_ERROR(sy_context_plugin_record(context, 0, &record), SY_STATUS_INVALID_ARGUMENT,
                  "sy_context_plugin_record: out_record->struct_size is 16; set it to "
                  "sizeof(sy_plugin_record_t) (" +
                      std::to_string(SY_STRUCT_SIZE(sy_plugin_record_t, load_ms)) +
                      " in API 1.0) before the call");
  EXPECT_SY_ERROR(sy_context_plugin_record(context, 0, nullptr), SY_STATUS_INVALID_ARGUMENT,
                  "sy_context_plugin_record: out_record is NULL");
  EXPECT_EQ(sy_context_destroy(context), SY_STATUS_OK);
}

TEST(ContextTest, OutStructsOfANewerSizeGetOnlyOurFields) {
  sy_context_t context = MakeContext();
  // A caller compiled against a later minor, whose struct has grown.
  struct {
    sy_plugin_record_t record;
    unsigned char later_fields[8];
  } buffer;
  std::memset(&buffer, 0x7f, sizeof buffer);
  buffer.record.struct_size = sizeof buffer;
  ASSERT_EQ(sy_context_plugin_record(context, 0, &buffer.record), SY_STATUS_OK);
  EXPECT_EQ(buffer.record.struct_size, sizeof buffer);
  EXPECT_STREQ(buffer.record.name, "cpu");
  for (unsigned char c : buffer.later_fields) EXPECT_EQ(c, 0x7f);
  EXPECT_EQ(sy_context_destroy(context), SY_STATUS_OK);
}

TEST(ContextTest, LoadAndUnloadAPluginAtRunTime) {
  sy_context_t context = MakeContext();
  int32_t devices_before = 0, records_before = 0;
  ASSERT_EQ(sy_device_count(context, &devices_before), SY_STATUS_OK);
  ASSERT_EQ(sy_context_plugin_record_count(context, &records_before), SY_STATUS_OK);
  sy_op_t double_it = nullptr;
  EXPECT_EQ(sy_op_find(context, "test_good::double_it", &double_it), SY_STATUS_NOT_FOUND);

  ASSERT_EQ(sy_context_load_plugin(context, TestPlugin("test_good").c_str()), SY_STATUS_OK)
      << sy_last_error_message();
  int32_t devices_after = 0, records_after = 0;
  ASSERT_EQ(sy_device_count(context, &devices_after), SY_STATUS_OK);
  ASSERT_EQ(sy_context_plugin_record_count(context, &records_after), SY_STATUS_OK);
  EXPECT_EQ(devices_after, devices_before + 1);
  EXPECT_EQ(records_after, records_before + 1);
  ASSERT_EQ(sy_op_find(context, "test_good::double_it", &double_it), SY_STATUS_OK);
  sy_device_handle_t fake = nullptr;
  ASSERT_EQ(sy_device_find(context, "fakedev:0", &fake), SY_STATUS_OK);

  // A tensor on its device keeps the plugin loaded.
  sy_tensor_t x = F32(fake, {3}, {1, 2, 3});
  sy_tensor_t y = Call1(double_it, {x});
  EXPECT_EQ(ReadF32(y), (std::vector<float>{2, 4, 6}));
  EXPECT_SY_ERROR_LIKE(sy_context_unload_plugin(context, "test_good"),
                       SY_STATUS_FAILED_PRECONDITION,
                       "sy_context_unload_plugin: cannot unload plugin 'test_good'",
                       "still alive");
  ASSERT_EQ(sy_tensor_release(x), SY_STATUS_OK);
  ASSERT_EQ(sy_tensor_release(y), SY_STATUS_OK);
  ASSERT_EQ(sy_context_unload_plugin(context, "test_good"), SY_STATUS_OK)
      << sy_last_error_message();

  // Its device handle now says the device is gone; its info still reads.
  EXPECT_SY_ERROR(sy_device_synchronize(fake), SY_STATUS_FAILED_PRECONDITION,
                  "sy_device_synchronize: device 'fakedev:0' is gone: plugin "
                  "'test_good' that provided it was unloaded; look the device up "
                  "again after loading a plugin that provides it");
  sy_device_info_t info{};
  info.struct_size = sizeof info;
  ASSERT_EQ(sy_device_get_info(fake, &info), SY_STATUS_OK);
  EXPECT_STREQ(info.label, "fakedev:0");
  // Its op handle fails cleanly.
  sy_op_info_t op_info{};
  op_info.struct_size = sizeof op_info;
  ASSERT_EQ(sy_op_get_info(double_it, &op_info), SY_STATUS_OK);
  EXPECT_EQ(op_info.live, 0);
  sy_tensor_t on_cpu = F32(Cpu(context), {1}, {1});
  sy_tensor_t out = nullptr;
  EXPECT_NE(sy_op_call(double_it, &on_cpu, 1, nullptr, 0, &out, 1), SY_STATUS_OK);
  EXPECT_EQ(out, nullptr);

  EXPECT_SY_ERROR_LIKE(sy_context_unload_plugin(context, "test_good"),
                       SY_STATUS_NOT_FOUND,
                       "sy_context_unload_plugin: cannot unload plugin 'test_good'",
                       "no plugin of that name");
  EXPECT_SY_ERROR_LIKE(sy_context_load_plugin(context, BrokenManifest("bad_json").c_str()),
                       SY_STATUS_FAILED_PRECONDITION, "sy_context_load_plugin: ",
                       "bad_json");
  EXPECT_SY_ERROR(sy_context_load_plugin(context, nullptr), SY_STATUS_INVALID_ARGUMENT,
                  "sy_context_load_plugin: manifest_path is NULL");
  EXPECT_EQ(sy_context_destroy(context), SY_STATUS_OK);
}

TEST(ContextTest, InfoJsonDescribesPluginsDevicesAndOps) {
  sy_context_t context = MakeContext();
  const char* json = nullptr;
  ASSERT_EQ(sy_context_info_json(context, &json), SY_STATUS_OK);
  const std::string text = json;
  EXPECT_NE(text.find("\"plugins\""), std::string::npos);
  EXPECT_NE(text.find("\"cpu:0\""), std::string::npos);
  EXPECT_NE(text.find("add.Tensor"), std::string::npos);
  EXPECT_SY_ERROR(sy_context_info_json(context, nullptr), SY_STATUS_INVALID_ARGUMENT,
                  "sy_context_info_json: out_json is NULL");
  EXPECT_EQ(sy_context_synchronize(context), SY_STATUS_OK);
  EXPECT_EQ(sy_context_destroy(context), SY_STATUS_OK);
}

TEST(ContextTest, EverythingFailsCleanlyAfterDestroy) {
  sy_context_t context = MakeContext();
  sy_device_handle_t cpu = Cpu(context);
  sy_op_t relu = Op(context, "relu");
  sy_tensor_t x = F32(cpu, {2}, {-1, 1});
  ASSERT_EQ(sy_context_destroy(context), SY_STATUS_OK);

  const std::string stale_context =
      " (" + Hex(context) + ") is a stale context handle: the context was destroyed";
  EXPECT_SY_ERROR(sy_context_destroy(context), SY_STATUS_INVALID_ARGUMENT,
                  "sy_context_destroy: context" + stale_context);
  int32_t n = 0;
  EXPECT_SY_ERROR(sy_device_count(context, &n), SY_STATUS_INVALID_ARGUMENT,
                  "sy_device_count: context" + stale_context);
  sy_op_t op = nullptr;
  EXPECT_SY_ERROR(sy_op_find(context, "relu", &op), SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_find: context" + stale_context);
  EXPECT_SY_ERROR(sy_device_synchronize(cpu), SY_STATUS_INVALID_ARGUMENT,
                  "sy_device_synchronize: device (" + Hex(cpu) +
                      ") is a stale device handle: its context was destroyed");
  sy_tensor_t y = nullptr;
  EXPECT_SY_ERROR(sy_op_call(relu, &x, 1, nullptr, 0, &y, 1), SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_call: op (" + Hex(relu) +
                      ") is a stale op handle: its context was destroyed");
  EXPECT_SY_ERROR(sy_tensor_release(x), SY_STATUS_INVALID_ARGUMENT,
                  "sy_tensor_release: tensor (" + Hex(x) +
                      ") is a stale tensor handle: it was released, or its context "
                      "was destroyed");
  EXPECT_EQ(y, nullptr);
  EXPECT_EQ(op, nullptr);

  // A new context works.
  sy_context_t fresh = MakeContext();
  sy_tensor_t z = Call1(Op(fresh, "relu"), {F32(Cpu(fresh), {2}, {-1, 1})});
  EXPECT_EQ(ReadF32(z), (std::vector<float>{0, 1}));
  EXPECT_EQ(sy_context_destroy(fresh), SY_STATUS_OK);
}

TEST(ContextTest, ContextsAreIndependent) {
  sy_context_t a = MakeContext();
  sy_context_t b = MakeContext();
  sy_op_t relu_a = Op(a, "relu");
  sy_op_t relu_b = Op(b, "relu");
  EXPECT_NE(relu_a, relu_b);
  EXPECT_EQ(Op(a, "relu"), relu_a);  // one handle per op and context
  sy_tensor_t x = F32(Cpu(a), {2}, {-3, 3});
  ASSERT_EQ(sy_context_destroy(b), SY_STATUS_OK);
  EXPECT_EQ(ReadF32(Call1(relu_a, {x})), (std::vector<float>{0, 3}));
  EXPECT_EQ(sy_context_destroy(a), SY_STATUS_OK);
}

// API 1.1: plugin options from the context, and what the load record says
// of them.
TEST(ContextTest, PluginOptionsReachThePluginAndItsRecord) {
  const std::string cpu = CpuManifest();
  const char* paths[] = {cpu.c_str()};
  const char* plugin_options[] = {"cpu.num_threads=2"};
  sy_context_options_t options;
  sy_context_options_init(&options);
  options.plugin_paths = paths;
  options.num_plugin_paths = 1;
  options.use_environment = 0;
  options.use_default_path = 0;
  options.plugin_options = plugin_options;
  options.num_plugin_options = 1;
  sy_context_t context = nullptr;
  ASSERT_EQ(sy_context_create(&options, &context), SY_STATUS_OK) << sy_last_error_message();
  sy_plugin_record_t record{};
  record.struct_size = sizeof record;
  ASSERT_EQ(sy_context_plugin_record(context, 0, &record), SY_STATUS_OK);
  EXPECT_EQ(std::string(record.name), "cpu");
  ASSERT_EQ(record.num_options, 2);
  bool saw_threads = false;
  for (int32_t i = 0; i < record.num_options; ++i) {
    sy_plugin_option_info_t option{};
    option.struct_size = sizeof option;
    ASSERT_EQ(sy_context_plugin_record_option(context, 0, i, &option), SY_STATUS_OK)
        << sy_last_error_message();
    EXPECT_NE(std::string(option.help), "");
    if (std::string(option.name) != "num_threads") continue;
    saw_threads = true;
    EXPECT_EQ(std::string(option.type), "int");
    EXPECT_EQ(std::string(option.value), "2");
    EXPECT_EQ(std::string(option.source), "context");
  }
  EXPECT_TRUE(saw_threads);
  sy_plugin_option_info_t option{};
  option.struct_size = sizeof option;
  EXPECT_SY_ERROR(sy_context_plugin_record_option(context, 0, 2, &option),
                  SY_STATUS_OUT_OF_RANGE,
                  "sy_context_plugin_record_option: option index 2 is out of range: "
                  "plugin 'cpu' declares 2 option(s) (see num_options)");
  const char* note = nullptr;
  EXPECT_SY_ERROR(sy_context_plugin_record_note(context, 0, record.num_notes, &note),
                  SY_STATUS_OUT_OF_RANGE,
                  "sy_context_plugin_record_note: note index " +
                      std::to_string(record.num_notes) +
                      " is out of range: the record of plugin 'cpu' has " +
                      std::to_string(record.num_notes) + " note(s) (see num_notes)");
  ASSERT_EQ(sy_context_destroy(context), SY_STATUS_OK);

  // A malformed entry is refused before anything loads; an unknown option
  // fails the plugin's load, with a record naming it.
  const char* malformed[] = {"num_threads=2"};
  options.plugin_options = malformed;
  EXPECT_SY_ERROR_LIKE(sy_context_create(&options, &context), SY_STATUS_INVALID_ARGUMENT,
                       "sy_context_create: options->plugin_options: ", "num_threads=2");
  const char* unknown[] = {"cpu.no_such_option=1"};
  options.plugin_options = unknown;
  ASSERT_EQ(sy_context_create(&options, &context), SY_STATUS_OK) << sy_last_error_message();
  ASSERT_EQ(sy_context_plugin_record(context, 0, &record), SY_STATUS_OK);
  EXPECT_EQ(record.outcome, SY_LOAD_FAILED);
  EXPECT_NE(std::string(record.reason).find("no_such_option"), std::string::npos)
      << record.reason;
  ASSERT_EQ(sy_context_destroy(context), SY_STATUS_OK);
}

// API 1.1: discovery without loading, and manifests a tool refuses (the
// CLI's --probe) recorded in their place.
TEST(ContextTest, DiscoverAndRefuse) {
  const std::string good = TestPlugin("test_good");
  const std::string cpu = CpuManifest();
  const char* paths[] = {cpu.c_str(), good.c_str()};
  sy_context_options_t options;
  sy_context_options_init(&options);
  options.plugin_paths = paths;
  options.num_plugin_paths = 2;
  options.use_environment = 0;
  options.use_default_path = 0;
  const char* const* found = nullptr;
  int32_t count = 0;
  ASSERT_EQ(sy_plugin_discover(&options, &found, &count), SY_STATUS_OK)
      << sy_last_error_message();
  ASSERT_EQ(count, 2);
  EXPECT_EQ(std::string(found[0]), cpu);
  EXPECT_EQ(std::string(found[1]), good);

  sy_plugin_refusal_t refusal;
  refusal.struct_size = sizeof refusal;
  refusal.extension = nullptr;
  refusal.manifest_path = good.c_str();
  refusal.reason = "it crashed a probe process";
  options.refused = &refusal;
  options.num_refused = 1;
  sy_context_t context = nullptr;
  ASSERT_EQ(sy_context_create(&options, &context), SY_STATUS_OK) << sy_last_error_message();
  sy_plugin_record_t record{};
  record.struct_size = sizeof record;
  ASSERT_EQ(sy_context_plugin_record(context, 1, &record), SY_STATUS_OK);
  EXPECT_EQ(std::string(record.name), "test_good");
  EXPECT_EQ(record.outcome, SY_LOAD_FAILED);
  EXPECT_EQ(std::string(record.stage), "probe");
  EXPECT_EQ(std::string(record.reason), "it crashed a probe process");
  ASSERT_EQ(sy_context_destroy(context), SY_STATUS_OK);

  refusal.reason = nullptr;
  EXPECT_SY_ERROR(sy_context_create(&options, &context), SY_STATUS_INVALID_ARGUMENT,
                  "sy_context_create: options->refused[0] has a NULL manifest_path or "
                  "reason");
}

}  // namespace
}  // namespace sy_test
