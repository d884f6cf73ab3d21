#include "private_plugin.h"

#include <dlfcn.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <string>

// The host's error object (plugin.h leaves its definition to the host).
struct sy_error_t {
  int32_t code;
  std::string message;
};

struct sy_host_context_t {
  sy::bench::PrivatePlugin* plugin;
};

namespace sy::bench {

struct PrivatePluginAccess {
  static std::vector<PrivatePlugin::Kernel>& kernels(PrivatePlugin& p) { return p.kernels_; }
  static std::vector<const sy_device_api_t*>& devices(PrivatePlugin& p) { return p.devices_; }
};

namespace {

namespace fs = std::filesystem;

const sy_plugin_api_t* g_table = nullptr;  // for option_get during load

sy_error_t* ErrorCreate(int32_t code, const char* message) {
  return new sy_error_t{code, message != nullptr ? message : ""};
}
void ErrorDestroy(sy_error_t* error) { delete error; }
void Log(sy_host_context_t*, int32_t, const char*) {}
sy_error_t* Schema(sy_host_context_t*, const sy_schema_desc_t*) { return nullptr; }

sy_error_t* Kernel(sy_host_context_t* context, const sy_kernel_desc_t* desc) {
  PrivatePlugin::Kernel k;
  k.op = desc->op;
  k.name = desc->name;
  k.dtypes.assign(desc->dtypes, desc->dtypes + desc->num_dtypes);
  k.fn = desc->fn;
  k.data = desc->kernel_data;
  PrivatePluginAccess::kernels(*context->plugin).push_back(std::move(k));
  return nullptr;
}

sy_error_t* Device(sy_host_context_t* context, const sy_device_api_t* api) {
  PrivatePluginAccess::devices(*context->plugin).push_back(api);
  return nullptr;
}

// Declared defaults: the benchmark measures a plugin as shipped.
sy_error_t* OptionDefault(sy_host_context_t*, const char* name, sy_option_value_t* out) {
  for (int32_t i = 0; g_table != nullptr && i < g_table->num_options; ++i) {
    const sy_plugin_option_t& o = g_table->options[i];
    if (std::string(o.name) != name) continue;
    out->type = o.type;
    out->is_set = 0;
    if (o.type == SY_OPTION_INT) out->value.i = std::strtoll(o.default_value, nullptr, 10);
    else if (o.type == SY_OPTION_FLOAT) out->value.f = std::strtod(o.default_value, nullptr);
    else if (o.type == SY_OPTION_BOOL) out->value.b = std::string(o.default_value) == "true";
    else out->value.str = o.default_value;
    return nullptr;
  }
  return ErrorCreate(SY_STATUS_NOT_FOUND, "no such option");
}

sy_error_t* NoWorkspace(sy_call_context_t*, size_t, void**) {
  return ErrorCreate(SY_STATUS_UNIMPLEMENTED, "no workspace in the direct benchmark");
}

const sy_host_api_t kHost = {
    .struct_size = sizeof(sy_host_api_t),
    .extension = nullptr,
    .abi_major = SY_PLUGIN_ABI_MAJOR,
    .abi_minor = SY_PLUGIN_ABI_MINOR,
    .host_version = "bench_dispatch",
    .error_create = ErrorCreate,
    .error_destroy = ErrorDestroy,
    .log = Log,
    .register_schema = Schema,
    .register_kernel = Kernel,
    .register_device = Device,
    .option_get = OptionDefault,
    .kernel_workspace = NoWorkspace,
};

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "bench: the direct kernel's plugin: %s\n", what.c_str());
  std::exit(1);
}

}  // namespace

std::unique_ptr<PrivatePlugin> PrivatePlugin::Load(const std::string& library) {
  std::unique_ptr<PrivatePlugin> plugin(new PrivatePlugin);
  std::string dir = (fs::temp_directory_path() / "switchyard-bench.XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr) Fail("cannot make a temporary folder");
  plugin->copy_dir_ = dir;
  const fs::path copy = fs::path(dir) / fs::path(library).filename();
  std::error_code ec;
  fs::copy_file(library, copy, ec);
  if (ec) Fail("cannot copy " + library + ": " + ec.message());
  void* handle = dlopen(copy.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) Fail(dlerror());
  auto init = reinterpret_cast<sy_plugin_init_fn>(dlsym(handle, SY_PLUGIN_INIT_SYMBOL));
  if (init == nullptr) Fail("no " SY_PLUGIN_INIT_SYMBOL);
  const sy_plugin_api_t* table = nullptr;
  if (sy_error_t* e = init(&kHost, &table); e != nullptr) Fail(e->message);
  g_table = table;
  sy_host_context_t context{plugin.get()};
  if (sy_error_t* e = table->load(&kHost, &context); e != nullptr) Fail(e->message);
  g_table = nullptr;
  return plugin;
}

PrivatePlugin::~PrivatePlugin() {
  std::error_code ec;
  fs::remove_all(copy_dir_, ec);  // the mapping stays valid
}

const PrivatePlugin::Kernel* PrivatePlugin::Find(const std::string& op,
                                                 const std::vector<sy_dtype_t>& dtypes) const {
  for (const Kernel& k : kernels_) {
    if (k.op == op && k.dtypes == dtypes) return &k;
  }
  return nullptr;
}

const sy_device_api_t* PrivatePlugin::Device(const std::string& type) const {
  for (const sy_device_api_t* api : devices_) {
    if (type == api->device_type) return api;
  }
  return nullptr;
}

}  // namespace sy::bench
