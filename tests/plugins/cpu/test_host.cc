#include "test_host.h"

#include <dlfcn.h>

#include <new>
#include <ranges>
#include <utility>

namespace sy::testing {
namespace {

// What error_create returns when it cannot allocate (plugin.h: it never
// returns NULL); never deleted.
sy_error_t g_out_of_memory{SY_STATUS_RESOURCE_EXHAUSTED, "out of memory"};

sy_error_t* ErrorCreate(int32_t code, const char* message) {
  try {
    return new sy_error_t{code, message != nullptr ? message : ""};
  } catch (const std::bad_alloc&) {
    return &g_out_of_memory;
  }
}

void ErrorDestroy(sy_error_t* error) {
  if (error != &g_out_of_memory) delete error;
}

sy_error_t* HostError(int32_t code, std::string message) {
  return ErrorCreate(code, message.c_str());
}

// Receives log lines written with a NULL context.
TestHost* g_log_host = nullptr;

}  // namespace

Status TakeError(sy_error_t* error) {
  if (error == nullptr) return {};
  Status status{error->code, std::move(error->message)};
  ErrorDestroy(error);
  return status;
}

const char* CpuPluginPath() { return SWITCHYARD_CPU_PLUGIN_PATH; }

TestHost::TestHost() {
  api_.struct_size = sizeof(api_);
  api_.abi_major = SY_PLUGIN_ABI_MAJOR;
  api_.abi_minor = SY_PLUGIN_ABI_MINOR;
  api_.host_version = "0.0.0-test";
  api_.error_create = ErrorCreate;
  api_.error_destroy = ErrorDestroy;
  api_.log = Log;
  api_.register_schema = RegisterSchema;
  api_.register_kernel = RegisterKernel;
  api_.register_device = RegisterDevice;
  g_log_host = this;
}

TestHost::~TestHost() {
  if (plugin_ != nullptr && plugin_->unload != nullptr) plugin_->unload();
  if (library_ != nullptr) dlclose(library_);
  if (g_log_host == this) g_log_host = nullptr;
}

Status TestHost::Load(const std::string& path) {
  library_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) return {SY_STATUS_NOT_FOUND, dlerror()};
  auto init = reinterpret_cast<sy_plugin_init_fn>(
      dlsym(library_, SY_PLUGIN_INIT_SYMBOL));
  if (init == nullptr) return {SY_STATUS_NOT_FOUND, "no sy_plugin_init"};
  const sy_plugin_api_t* plugin = nullptr;
  if (Status s = TakeError(init(&api_, &plugin)); !s.ok()) return s;
  if (plugin == nullptr) return {SY_STATUS_INTERNAL, "NULL plugin table"};
  plugin_ = plugin;
  return RunLoad();
}

Status TestHost::LoadAnotherRuntime() {
  if (plugin_ == nullptr) return {SY_STATUS_FAILED_PRECONDITION, "no plugin"};
  return RunLoad();
}

Status TestHost::RunLoad() {
  runtimes_.push_back(std::make_unique<Runtime>(
      Runtime{this, static_cast<int>(runtimes_.size())}));
  loading_ = runtimes_.back().get();
  Status status = TakeError(
      plugin_->load(&api_, reinterpret_cast<sy_host_context_t*>(loading_)));
  loading_ = nullptr;
  return status;
}

std::vector<std::string> TestHost::log() const {
  std::lock_guard<std::mutex> lock(log_mu_);
  return log_;
}

const RegisteredKernel* TestHost::FindKernel(
    std::string_view op, std::span<const sy_dtype_t> dtypes) const {
  for (const RegisteredKernel& k : kernels_) {
    if (k.op == op &&
        (dtypes.empty() || std::ranges::equal(k.dtypes, dtypes))) {
      return &k;
    }
  }
  return nullptr;
}

const sy_device_api_t* TestHost::FindDevice(
    std::string_view device_type) const {
  for (const RegisteredDevice& d : devices_) {
    if (d.device_type == device_type) return d.api;
  }
  return nullptr;
}

// The runtime whose `load` is running, if `context` is its context.
TestHost::Runtime* TestHost::Loading(sy_host_context_t* context) {
  auto* runtime = reinterpret_cast<Runtime*>(context);
  if (runtime == nullptr || runtime->host->loading_ != runtime) return nullptr;
  return runtime;
}

sy_error_t* TestHost::RegisterSchema(sy_host_context_t* context,
                                     const sy_schema_desc_t* /*schema*/) {
  if (Loading(context) == nullptr) {
    return HostError(SY_STATUS_FAILED_PRECONDITION, "not loading");
  }
  return HostError(SY_STATUS_UNIMPLEMENTED, "the test host takes no schemas");
}

sy_error_t* TestHost::RegisterKernel(sy_host_context_t* context,
                                     const sy_kernel_desc_t* desc) {
  Runtime* runtime = Loading(context);
  if (runtime == nullptr) {
    return HostError(SY_STATUS_FAILED_PRECONDITION, "not loading");
  }
  TestHost* self = runtime->host;
  if (self->kernel_calls_++ == self->fail_kernel_at_) {
    return HostError(SY_STATUS_INTERNAL, "injected registration failure");
  }
  if (desc == nullptr || desc->struct_size < sizeof(sy_kernel_desc_t) ||
      desc->op == nullptr || desc->device_type == nullptr ||
      desc->name == nullptr || desc->fn == nullptr || desc->num_dtypes < 0 ||
      (desc->num_dtypes > 0 && desc->dtypes == nullptr)) {
    return HostError(SY_STATUS_INVALID_ARGUMENT, "malformed kernel desc");
  }
  RegisteredKernel k;
  k.runtime = runtime->id;
  k.op = desc->op;
  k.device_type = desc->device_type;
  k.name = desc->name;
  k.dtypes.assign(desc->dtypes, desc->dtypes + desc->num_dtypes);
  k.priority = desc->priority;
  k.fn = desc->fn;
  k.kernel_data = desc->kernel_data;
  self->kernels_.push_back(std::move(k));
  return nullptr;
}

sy_error_t* TestHost::RegisterDevice(sy_host_context_t* context,
                                     const sy_device_api_t* device) {
  Runtime* runtime = Loading(context);
  if (runtime == nullptr) {
    return HostError(SY_STATUS_FAILED_PRECONDITION, "not loading");
  }
  if (device == nullptr || device->struct_size < sizeof(sy_device_api_t) ||
      device->device_type == nullptr) {
    return HostError(SY_STATUS_INVALID_ARGUMENT, "malformed device table");
  }
  runtime->host->devices_.push_back({runtime->id, device->device_type, device});
  return nullptr;
}

// "<level> <message>", with "[plugin] " before the message when a context
// was given (a real host prefixes the plugin's name).
void TestHost::Log(sy_host_context_t* context, int32_t level,
                   const char* message) {
  TestHost* self = context != nullptr
                       ? reinterpret_cast<Runtime*>(context)->host
                       : g_log_host;
  if (self == nullptr) return;
  std::lock_guard<std::mutex> lock(self->log_mu_);
  self->log_.push_back(std::to_string(level) +
                       (context != nullptr ? " [plugin] " : " ") + message);
}

Status RunKernel(const RegisteredKernel& kernel,
                 std::span<const sy_tensor_view_t> inputs,
                 std::span<const sy_tensor_view_t> outputs,
                 std::span<const sy_attr_t> attrs, sy_stream_t stream) {
  std::vector<int32_t> offsets;
  for (size_t i = 0; i <= inputs.size(); ++i) offsets.push_back(int32_t(i));
  sy_kernel_call_t call{};
  call.struct_size = sizeof(call);
  call.inputs = inputs.data();
  call.num_inputs = static_cast<int32_t>(inputs.size());
  call.num_tensor_args = static_cast<int32_t>(inputs.size());
  call.input_offsets = offsets.data();
  call.outputs = outputs.data();
  call.num_outputs = static_cast<int32_t>(outputs.size());
  call.num_attrs = static_cast<int32_t>(attrs.size());
  call.attrs = attrs.data();
  call.stream = stream;
  call.variant = -1;
  call.kernel_data = kernel.kernel_data;
  return TakeError(kernel.fn(&call));
}

}  // namespace sy::testing
