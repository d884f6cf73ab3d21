#include "dispatcher/loading/host_api.h"

#include <mutex>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "dispatcher/base/error.h"
#include "dispatcher/base/log.h"
#include "dispatcher/base/version.h"
#include "dispatcher/memory/call_workspace.h"

struct sy_host_context_t {
  sy::core::RegistrationSink* sink;
};

namespace sy::core {
namespace {

std::mutex& ContextMutex() {
  static std::mutex mu;
  return mu;
}
absl::flat_hash_set<const sy_host_context_t*>& LiveContexts() {
  static auto* live = new absl::flat_hash_set<const sy_host_context_t*>;
  return *live;
}

// The sink behind a live context, or null. Registration runs on the loading
// thread only, so the sink cannot die between this check and its use.
RegistrationSink* SinkFor(sy_host_context_t* context) {
  std::lock_guard<std::mutex> lock(ContextMutex());
  return LiveContexts().contains(context) ? context->sink : nullptr;
}

sy_error_t* NotLoading(const char* what) {
  return CreateError(
      SY_STATUS_FAILED_PRECONDITION,
      absl::StrCat(what, ": the context is not that of a load in progress; "
                         "register only from your plugin's load slot, with "
                         "the context it was given")
          .c_str());
}

sy_error_t* HostErrorCreate(int32_t code, const char* message) {
  return CreateError(code, message);
}

void HostErrorDestroy(sy_error_t* error) { DestroyError(error); }

void HostLog(sy_host_context_t* context, int32_t level, const char* message) {
  LogLevel lvl = LogLevel::kInfo;
  if (level <= SY_LOG_ERROR) lvl = LogLevel::kError;
  else if (level == SY_LOG_WARNING) lvl = LogLevel::kWarning;
  else if (level >= SY_LOG_DEBUG) lvl = LogLevel::kDebug;
  const char* text = message != nullptr ? message : "";
  if (RegistrationSink* sink = context ? SinkFor(context) : nullptr) {
    Log(lvl, absl::StrCat("plugin '", sink->plugin_name(), "': ", text));
    // What a plugin says while loading (no device found, an ISA it will
    // not use, …) belongs in its load record, not only in the log.
    if (lvl != LogLevel::kDebug) sink->Note(text);
  } else {
    Log(lvl, text);
  }
}

sy_error_t* HostRegisterSchema(sy_host_context_t* context,
                               const sy_schema_desc_t* desc) {
  RegistrationSink* sink = SinkFor(context);
  return sink ? sink->RegisterSchema(desc) : NotLoading("register_schema");
}

sy_error_t* HostRegisterKernel(sy_host_context_t* context,
                               const sy_kernel_desc_t* desc) {
  RegistrationSink* sink = SinkFor(context);
  return sink ? sink->RegisterKernel(desc) : NotLoading("register_kernel");
}

sy_error_t* HostRegisterDevice(sy_host_context_t* context,
                               const sy_device_api_t* desc) {
  RegistrationSink* sink = SinkFor(context);
  return sink ? sink->RegisterDevice(desc) : NotLoading("register_device");
}

sy_error_t* HostOptionGet(sy_host_context_t* context, const char* name,
                          sy_option_value_t* out) {
  RegistrationSink* sink = SinkFor(context);
  return sink ? sink->GetOption(name, out) : NotLoading("option_get");
}

sy_error_t* HostKernelWorkspace(sy_call_context_t* host_call, size_t size,
                                void** out_ptr) {
  if (host_call == nullptr || host_call->magic != sy_call_context_t::kMagic ||
      out_ptr == nullptr) {
    return CreateError(
        SY_STATUS_INVALID_ARGUMENT,
        "kernel_workspace: host_call is not a kernel call in progress (pass "
        "the sy_kernel_call_t.host_call your kernel was given, during the "
        "call) or out_ptr is NULL");
  }
  absl::StatusOr<void*> block = host_call->Allocate(size);
  if (!block.ok()) return ErrorFromStatus(block.status());
  *out_ptr = *block;
  return nullptr;
}

const sy_host_api_t kHostApi = {
    sizeof(sy_host_api_t),
    nullptr,
    SY_PLUGIN_ABI_MAJOR,
    SY_PLUGIN_ABI_MINOR,
    kSwitchyardVersion,
    HostErrorCreate,
    HostErrorDestroy,
    HostLog,
    HostRegisterSchema,
    HostRegisterKernel,
    HostRegisterDevice,
    HostOptionGet,
    HostKernelWorkspace,
};

}  // namespace

const sy_host_api_t* HostApi() { return &kHostApi; }

ScopedHostContext::ScopedHostContext(RegistrationSink& sink)
    : context_(new sy_host_context_t{&sink}) {
  std::lock_guard<std::mutex> lock(ContextMutex());
  LiveContexts().insert(context_);
}

ScopedHostContext::~ScopedHostContext() {
  {
    std::lock_guard<std::mutex> lock(ContextMutex());
    LiveContexts().erase(context_);
  }
  delete context_;
}

}  // namespace sy::core
