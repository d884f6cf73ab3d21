// One source, one broken plugin per HOSTILE_KIND: each misbehaves in exactly
// one way a real plugin could (tests/hostile/README.md lists them). Built by
// switchyard_add_plugin like any vendor plugin, except `extra_exports`.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"

#define KIND(name) (std::strcmp(HOSTILE_KIND, name) == 0)

namespace {

sy_error_t* SameShape(const sy_shape_call_t* call) {
  call->outputs[0] = call->inputs[0];
  return nullptr;
}

sy_error_t* Noop(const sy_kernel_call_t*) { return nullptr; }

sy_error_t* Kernel(const sy_host_api_t* host, sy_host_context_t* context,
                   const char* op, const char* device_type, const char* name,
                   sy_dtype_t dtype) {
  sy_kernel_desc_t desc{};
  desc.struct_size = sizeof(desc);
  desc.op = op;
  desc.device_type = device_type;
  desc.name = name;
  desc.dtypes = &dtype;
  desc.num_dtypes = 1;
  desc.fn = Noop;
  return host->register_kernel(context, &desc);
}

sy_error_t* Schema(const sy_host_api_t* host, sy_host_context_t* context,
                   const char* text) {
  sy_schema_desc_t desc{};
  desc.struct_size = sizeof(desc);
  desc.schema = text;
  desc.shape_fn = SameShape;
  return host->register_schema(context, &desc);
}

// A device table with every slot but `allocate`.
sy_error_t* RegisterDeviceWithNullSlot(const sy_host_api_t* host,
                                       sy_host_context_t* context) {
  static int self;
  sy_device_api_t api{};
  api.struct_size = sizeof(api);
  api.device_type = "hostiledev";
  api.device_data = &self;
  // Every slot but allocate gets a placeholder: the host must refuse the
  // table for its NULL slot before it calls any of them.
  using Fn = sy_error_t* (*)();
  static const Fn fail = [] { return static_cast<sy_error_t*>(nullptr); };
  void** slots = reinterpret_cast<void**>(&api.device_count);
  void** end = reinterpret_cast<void**>(&api.event_elapsed_ms) + 1;
  for (void** slot = slots; slot != end; ++slot) *slot = reinterpret_cast<void*>(fail);
  api.allocate = nullptr;
  return host->register_device(context, &api);
}

// thread_left_running: a worker the plugin starts in load and never stops
// (as an OpenMP or driver runtime might); it runs this library's code for
// as long as the process lives. thread_joined: the same worker, stopped and
// joined in unload, as the contract asks.
std::atomic<bool> g_stop{false};
std::atomic<long> g_ticks{0};
std::thread* g_worker = nullptr;

void Work() {
  while (!g_stop.load()) {
    g_ticks.fetch_add(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void Unload() {
  if (g_worker != nullptr) {
    g_stop.store(true);
    g_worker->join();
    delete g_worker;
    g_worker = nullptr;
  }
}

sy_error_t* Load(const sy_host_api_t* host, sy_host_context_t* context) {
  if (KIND("exits_in_load")) std::exit(0);  // "success", as a process
  if (KIND("thread_left_running")) {
    std::thread(Work).detach();
    return nullptr;
  }
  if (KIND("thread_joined")) {
    g_stop.store(false);
    g_worker = new std::thread(Work);
    return nullptr;
  }
  if (KIND("duplicate_kernel")) {
    SY_PLUGIN_RETURN_IF_ERROR(Kernel(host, context, "relu", "cpu", "relu_f32", SY_DTYPE_F32));
    return Kernel(host, context, "relu", "cpu", "relu_f32", SY_DTYPE_F32);
  }
  if (KIND("unknown_op")) {
    return Kernel(host, context, "frobnicate", "cpu", "frobnicate_f32", SY_DTYPE_F32);
  }
  if (KIND("unknown_dtype")) {
    return Kernel(host, context, "relu", "cpu", "relu_f99", static_cast<sy_dtype_t>(99));
  }
  if (KIND("bad_device_type")) {
    return Kernel(host, context, "relu", "Not A Device!", "relu_f32", SY_DTYPE_F32);
  }
  if (KIND("core_schema")) {
    return Schema(host, context, "relu(Tensor x) -> Tensor");
  }
  if (KIND("foreign_namespace")) {
    return Schema(host, context, "cpu::relu_fast(Tensor x) -> Tensor");
  }
  if (KIND("conflicting_schema")) {  // one name, two different signatures
    SY_PLUGIN_RETURN_IF_ERROR(
        Schema(host, context, HOSTILE_NAME "::blend(Tensor x) -> Tensor"));
    return Schema(host, context, HOSTILE_NAME "::blend(Tensor x, int k) -> Tensor");
  }
  if (KIND("bad_output_layout")) {  // a 1.4 plugin asking for a rule that does not exist
    sy_schema_desc_t desc{};
    desc.struct_size = sizeof(desc);
    desc.schema = HOSTILE_NAME "::spread(Tensor x) -> Tensor";
    desc.shape_fn = SameShape;
    desc.output_layout = 7;
    return host->register_schema(context, &desc);
  }
  if (KIND("bad_schema_text")) {
    return Schema(host, context, "hostile_bad_schema_text::oops(Tensor x -> Tensor");
  }
  if (KIND("null_device_slot")) return RegisterDeviceWithNullSlot(host, context);
  if (KIND("leaks")) {
    // 4 KiB per load, never freed: the host cannot see it, and must not
    // be harmed by it; LSan attributes it to this library.
    volatile char* lost = static_cast<char*>(std::malloc(4096));
    lost[0] = 1;
    return Kernel(host, context, "relu", "cpu", "relu_leaky", SY_DTYPE_F32);
  }
  return nullptr;
}

// crash_in_constructor: dies while the dynamic loader opens the library,
// before sy_plugin_init could run (the probe must say so).
__attribute__((constructor)) void Constructor() {
  if (KIND("crash_in_constructor")) std::raise(SIGSEGV);
}

sy_plugin_api_t g_table = {sizeof(sy_plugin_api_t), nullptr, SY_PLUGIN_ABI_MAJOR, 0,
                           HOSTILE_NAME, "6.6.6", Load, nullptr, /*flags=*/0,
                           /*num_options=*/0, /*options=*/nullptr};

}  // namespace

extern "C" SY_PLUGIN_EXPORT sy_error_t* sy_plugin_init(
    const sy_host_api_t* host, const sy_plugin_api_t** out_plugin) {
  if (KIND("crash_in_init")) std::raise(SIGSEGV);
  if (KIND("null_table")) return nullptr;  // no table and no error
  if (KIND("null_message")) return host->error_create(SY_STATUS_UNAVAILABLE, nullptr);
  if (KIND("init_throws")) {
    return sy::plugin::Guard(host, HOSTILE_NAME ": sy_plugin_init", []() -> sy_error_t* {
      throw std::runtime_error("the frobnicator driver is not installed");
    });
  }
  if (KIND("null_load_slot")) g_table.load = nullptr;
  if (KIND("tiny_table")) g_table.struct_size = 8;
  if (KIND("bad_output_layout")) g_table.abi_minor = SY_PLUGIN_ABI_MINOR;
  if (KIND("thread_joined")) g_table.unload = Unload;
  *out_plugin = &g_table;
  return nullptr;
}

#if defined(HOSTILE_EXTRA_EXPORTS)
// Built without the version script: these leak into the process's symbol
// namespace, where they could interpose the host's own.
extern "C" __attribute__((visibility("default"))) int hostile_helper(int x) { return x + 1; }
extern "C" {  // a block: a definition, without "initialized and declared extern"
__attribute__((visibility("default"))) int hostile_counter = 0;
}
#endif
