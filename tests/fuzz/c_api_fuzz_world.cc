// See c_api_fuzz_world.h.
#include "c_api_fuzz_world.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>

#include "fuzz_check.h"

namespace sy_fuzz {

sy_status_code_t Checked(sy_status_code_t status, const char* call) {
  FUZZ_CHECK(status >= SY_STATUS_OK && status <= SY_STATUS_DATA_LOSS,
             "%s returned %d", call, static_cast<int>(status));
  FUZZ_CHECK(sy_last_error_code() == status, "%s returned %d, last error %d",
             call, static_cast<int>(status),
             static_cast<int>(sy_last_error_code()));
  const char* message = sy_last_error_message();
  FUZZ_CHECK(message != nullptr, "%s: NULL message", call);
  if (status == SY_STATUS_OK) {
    FUZZ_CHECK(message[0] == '\0', "%s succeeded with message '%s'", call,
               message);
  } else {
    FUZZ_CHECK(message[0] != '\0', "%s failed (%s) with an empty message",
               call, sy_status_code_name(status));
  }
  return status;
}

void ExpectInvalid(sy_status_code_t status, const char* call) {
  FUZZ_CHECK(status == SY_STATUS_INVALID_ARGUMENT,
             "%s with a bad handle returned %s: %s", call,
             sy_status_code_name(status), sy_last_error_message());
}

bool World::IsAlive(uint64_t token, const std::vector<sy_tensor_t>& owned) const {
  if (token == Token(context) || token == Token(cpu) ||
      token == Token(other) || token == Token(other_cpu) ||
      token == Token(other_op) || token == Token(other_tensor)) {
    return true;
  }
  for (const OpEntry& op : ops) {
    if (token == Token(op.handle)) return true;
  }
  return std::any_of(owned.begin(), owned.end(),
                     [&](sy_tensor_t t) { return Token(t) == token; });
}

namespace {

// The cpu plugin of this build; SWITCHYARD_FUZZ_CPU_MANIFEST names another
// build's (e.g. one compiled differently), to fuzz the API over it.
sy_context_t MakeContext() {
  const char* manifest = std::getenv("SWITCHYARD_FUZZ_CPU_MANIFEST");
  if (manifest == nullptr || manifest[0] == '\0') manifest = SWITCHYARD_CPU_MANIFEST;
  sy_context_options_t options;
  sy_context_options_init(&options);
  options.plugin_manifests = &manifest;
  options.num_plugin_manifests = 1;
  options.use_environment = 0;
  options.use_default_path = 0;
  options.cpu_fallback = 0;
  sy_context_t context = nullptr;
  FUZZ_CHECK(sy_context_create(&options, &context) == SY_STATUS_OK,
             "cannot create a context with %s: %s", manifest,
             sy_last_error_message());
  return context;
}

sy_tensor_t MakeSmallTensor(sy_device_handle_t device) {
  const int64_t shape[1] = {3};
  const float data[3] = {1, 2, 3};
  sy_tensor_t t = nullptr;
  FUZZ_CHECK(sy_tensor_from_host(device, SY_DTYPE_F32, shape, 1, data,
                                 sizeof data, &t) == SY_STATUS_OK,
             "setup: %s", sy_last_error_message());
  return t;
}

}  // namespace

uint64_t AllocatedBytes(sy_device_handle_t device) {
  // What the runtime keeps for reuse (causal attention masks) is not the
  // input's: dropped first, so only what an input leaked remains.
  FUZZ_CHECK(sy_device_empty_cache(device) == SY_STATUS_OK, "empty cache: %s",
             sy_last_error_message());
  sy_allocator_stats_t stats{};
  stats.struct_size = sizeof stats;
  FUZZ_CHECK(sy_device_allocator_stats(device, &stats) == SY_STATUS_OK,
             "allocator stats: %s", sy_last_error_message());
  return stats.allocated_bytes;
}

World& GetWorld() {
  static World* world = [] {
    // Expected failures would each log a line.
    setenv("SWITCHYARD_LOG", "off", /*overwrite=*/0);
    auto* w = new World;
    w->context = MakeContext();
    FUZZ_CHECK(sy_device_find(w->context, "cpu:0", &w->cpu) == SY_STATUS_OK,
               "no cpu:0: %s", sy_last_error_message());
    int32_t count = 0;
    FUZZ_CHECK(sy_op_count(w->context, &count) == SY_STATUS_OK && count > 0,
               "no ops: %s", sy_last_error_message());
    for (int32_t i = 0; i < count; ++i) {
      OpEntry op;
      FUZZ_CHECK(sy_op_get(w->context, i, &op.handle) == SY_STATUS_OK, "op %d", i);
      op.info.struct_size = sizeof op.info;
      FUZZ_CHECK(sy_op_get_info(op.handle, &op.info) == SY_STATUS_OK, "op %d", i);
      FUZZ_CHECK(op.info.num_outputs <= kMaxOutputs, "%s has %d outputs",
                 op.info.full_name, op.info.num_outputs);
      for (int32_t a = 0; a < op.info.num_args; ++a) {
        sy_op_arg_t arg{};
        arg.struct_size = sizeof arg;
        FUZZ_CHECK(sy_op_get_arg(op.handle, a, &arg) == SY_STATUS_OK,
                   "op %s arg %d", op.info.full_name, a);
        if (arg.attr_index >= 0) op.attr_kinds.push_back(arg.kind);
      }
      w->ops.push_back(std::move(op));
    }

    w->other = MakeContext();
    FUZZ_CHECK(sy_device_find(w->other, "cpu", &w->other_cpu) == SY_STATUS_OK,
               "other cpu: %s", sy_last_error_message());
    FUZZ_CHECK(sy_op_find(w->other, "add", &w->other_op) == SY_STATUS_OK,
               "other add: %s", sy_last_error_message());
    w->other_tensor = MakeSmallTensor(w->other_cpu);

    // A context that dies at once leaves stale handles of every kind.
    sy_context_t doomed = MakeContext();
    sy_device_handle_t doomed_cpu = nullptr;
    sy_op_t doomed_op = nullptr;
    sy_device_find(doomed, "cpu", &doomed_cpu);
    sy_op_find(doomed, "relu", &doomed_op);
    sy_tensor_t doomed_tensor = MakeSmallTensor(doomed_cpu);
    w->stale = {Token(doomed), Token(doomed_cpu), Token(doomed_op),
                Token(doomed_tensor)};
    FUZZ_CHECK(sy_context_destroy(doomed) == SY_STATUS_OK, "destroy: %s",
               sy_last_error_message());

    FUZZ_CHECK(sy_context_synchronize(w->context) == SY_STATUS_OK, "sync");
    w->baseline_allocated = AllocatedBytes(w->cpu);
    return w;
  }();
  return *world;
}

}  // namespace sy_fuzz
