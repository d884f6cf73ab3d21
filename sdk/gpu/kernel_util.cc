#include "switchyard/gpu/kernel_util.h"

#include <array>
#include <atomic>

#include "switchyard/plugin.hpp"

namespace sy::gpu {

using ::sy::plugin::DtypeName;
using ::sy::plugin::MakeError;
using ::sy::plugin::ShapeToString;
using ::sy::plugin::StrCat;

sy_error_t* OpError(std::string_view op, std::string_view what) {
  return plugin::OpError(Site(op), what);
}

std::string Where(std::string_view op) {
  return StrCat(ThisTarget().plugin, " plugin: ", op);
}

sy_error_t* UseDevice(int device, std::string_view where) {
  int current = -1;
  if (GetDevice(&current) == kSuccess && current == device) return nullptr;
  return RuntimeError(SetDevice(device), where,
                      StrCat("cannot make device ", device, " current"));
}

sy_error_t* BeginCall(const sy_kernel_call_t* call, std::string_view op,
                      int num_inputs, int num_outputs, int num_attrs,
                      Stream** out_stream) {
  SY_PLUGIN_RETURN_IF_ERROR(
      plugin::CheckCall(call, Site(op), num_inputs, num_outputs, num_attrs));
  // The host always passes a stream it created from this plugin's table;
  // the kernel path skips the registry lookup that the device slots make.
  // Plugins make their handles from gpu::Stream addresses (target.h).
  auto* stream = reinterpret_cast<Stream*>(call->stream);
  if (stream == nullptr) {
    return OpError(op, StrCat("the call has no stream; pass a stream of the "
                              "outputs' ", ThisTarget().device_type, " device"));
  }
  SY_PLUGIN_RETURN_IF_ERROR(UseDevice(stream->device, Where(op)));
  *out_stream = stream;
  return nullptr;
}

sy_error_t* CheckView(const sy_tensor_view_t& view, std::string_view op,
                      std::string_view arg, sy_dtype_t dtype,
                      const Stream& stream) {
  return plugin::CheckView(view, Site(op), arg, dtype,
                           ThisTarget().dlpack_device_type, stream.device);
}

sy_error_t* CheckLaunched(std::string_view op) {
  return RuntimeError(GetLastError(), Where(op), "launching the kernel failed");
}

int SmCount(int device) {
  static std::array<std::atomic<int>, 64> cache{};
  if (device < 0 || device >= 64) return 132;
  int sms = cache[device].load(std::memory_order_relaxed);
  if (sms == 0) {
    if (MultiProcessorCount(device, &sms) != kSuccess) {
      (void)GetLastError();
      sms = 80;
    }
    cache[device].store(sms, std::memory_order_relaxed);
  }
  return sms;
}

}  // namespace sy::gpu
