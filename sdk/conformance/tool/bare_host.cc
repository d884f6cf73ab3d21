#include "sdk/conformance/tool/bare_host.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

// The host's error object (plugin.h leaves its definition to the host).
struct sy_error_t {
  int32_t code;
  std::string message;
};

// One load in progress.
struct sy_host_context_t {
  sy::conformance::BareHost* host;
};

namespace sy::conformance {

struct BareHostAccess {
  static std::vector<const sy_device_api_t*>& devices(BareHost& h) { return h.devices_; }
  static std::vector<std::string>& refusals(BareHost& h) { return h.refusals_; }
  static const sy_plugin_api_t* plugin(BareHost& h) { return h.plugin_; }
};

namespace {

sy_error_t* ErrorCreate(int32_t code, const char* message) {
  return new sy_error_t{code, message != nullptr ? message : ""};
}
void ErrorDestroy(sy_error_t* error) { delete error; }
void LogLine(sy_host_context_t*, int32_t, const char*) {}  // the checks do not look
sy_error_t* AcceptSchema(sy_host_context_t*, const sy_schema_desc_t*) { return nullptr; }
sy_error_t* AcceptKernel(sy_host_context_t*, const sy_kernel_desc_t*) { return nullptr; }

sy_error_t* KeepDevice(sy_host_context_t* context, const sy_device_api_t* api) {
  BareHost& host = *context->host;
  if (api == nullptr || api->struct_size < SY_STRUCT_SIZE(sy_device_api_t, event_elapsed_ms)) {
    BareHostAccess::refusals(host).push_back(
        "a device table smaller than ABI 1.0's sy_device_api_t");
    return ErrorCreate(SY_STATUS_INVALID_ARGUMENT, "device table too small");
  }
  BareHostAccess::devices(host).push_back(api);
  return nullptr;
}

// The declared default of option `name`, parsed as its type.
sy_error_t* DefaultOption(sy_host_context_t* context, const char* name,
                          sy_option_value_t* out) {
  const sy_plugin_api_t* plugin = BareHostAccess::plugin(*context->host);
  if (name == nullptr || out == nullptr || plugin == nullptr ||
      !SY_STRUCT_HAS(plugin, sy_plugin_api_t, options)) {
    return ErrorCreate(SY_STATUS_NOT_FOUND, "no such option");
  }
  for (int32_t i = 0; i < plugin->num_options; ++i) {
    const sy_plugin_option_t& option = plugin->options[i];
    if (option.name == nullptr || std::strcmp(option.name, name) != 0) continue;
    const char* text = option.default_value != nullptr ? option.default_value : "";
    out->type = option.type;
    out->is_set = 0;
    switch (option.type) {
      case SY_OPTION_INT: out->value.i = std::strtoll(text, nullptr, 10); break;
      case SY_OPTION_FLOAT: out->value.f = std::strtod(text, nullptr); break;
      case SY_OPTION_BOOL: {
        const std::string t = absl::AsciiStrToLower(text);
        out->value.b = (t == "true" || t == "1" || t == "yes" || t == "on") ? 1 : 0;
        break;
      }
      default: out->value.str = text; break;
    }
    return nullptr;
  }
  return ErrorCreate(SY_STATUS_NOT_FOUND, "no such option");
}

sy_error_t* NoWorkspace(sy_call_context_t*, size_t, void**) {
  return ErrorCreate(SY_STATUS_INVALID_ARGUMENT,
                     "the conformance tool's device checks run no kernels");
}

const sy_host_api_t kHost = {
    .struct_size = sizeof(sy_host_api_t),
    .extension = nullptr,
    .abi_major = SY_PLUGIN_ABI_MAJOR,
    .abi_minor = SY_PLUGIN_ABI_MINOR,
    .host_version = "switchyard-conformance",
    .error_create = ErrorCreate,
    .error_destroy = ErrorDestroy,
    .log = LogLine,
    .register_schema = AcceptSchema,
    .register_kernel = AcceptKernel,
    .register_device = KeepDevice,
    .option_get = DefaultOption,
    .kernel_workspace = NoWorkspace,
};

absl::Status Failed(const std::string& step, const std::string& path, std::string why) {
  return absl::FailedPreconditionError(
      absl::StrCat("the device checks could not load ", path, " (", step, "): ", why));
}

}  // namespace

absl::Status BareHost::Check(sy_error_t* error, const std::string& where) {
  if (error == nullptr) return absl::OkStatus();
  absl::Status status(static_cast<absl::StatusCode>(error->code),
                      absl::StrCat(where, ": ", error->message));
  delete error;
  return status;
}

absl::StatusOr<std::unique_ptr<BareHost>> BareHost::Open(const std::string& path) {
  std::unique_ptr<BareHost> host(new BareHost);
  host->library_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (host->library_ == nullptr) {
    const char* why = dlerror();
    return Failed("open", path, why != nullptr ? why : "dlopen failed");
  }
  auto init = reinterpret_cast<sy_plugin_init_fn>(dlsym(host->library_, SY_PLUGIN_INIT_SYMBOL));
  if (init == nullptr) return Failed("symbol", path, "no " SY_PLUGIN_INIT_SYMBOL);
  const sy_plugin_api_t* plugin = nullptr;
  if (absl::Status s = Check(init(&kHost, &plugin), "sy_plugin_init"); !s.ok()) {
    return Failed("init", path, std::string(s.message()));
  }
  if (plugin == nullptr || plugin->struct_size < SY_STRUCT_SIZE(sy_plugin_api_t, load) ||
      plugin->load == nullptr) {
    return Failed("init", path, "no plugin table, or one without a load slot");
  }
  if (plugin->abi_major != SY_PLUGIN_ABI_MAJOR || plugin->abi_minor > SY_PLUGIN_ABI_MINOR) {
    return Failed("version", path,
                  absl::StrCat("plugin ABI ", plugin->abi_major, ".", plugin->abi_minor));
  }
  host->plugin_ = plugin;
  host->plugin_name_ = plugin->name != nullptr ? plugin->name : "";
  sy_host_context_t context{host.get()};
  if (absl::Status s = Check(plugin->load(&kHost, &context), "load"); !s.ok()) {
    return Failed("load", path, std::string(s.message()));
  }
  if (!host->refusals_.empty()) {
    return Failed("register", path, absl::StrJoin(host->refusals_, "; "));
  }
  return host;
}

BareHost::~BareHost() {
  if (plugin_ != nullptr && SY_STRUCT_HAS(plugin_, sy_plugin_api_t, unload) &&
      plugin_->unload != nullptr) {
    plugin_->unload();
  }
  const bool resident = plugin_ != nullptr && SY_STRUCT_HAS(plugin_, sy_plugin_api_t, flags) &&
                        (plugin_->flags & SY_PLUGIN_FLAG_RESIDENT) != 0;
  if (library_ != nullptr && !resident) dlclose(library_);
}

}  // namespace sy::conformance
