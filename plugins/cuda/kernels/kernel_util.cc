#include "kernels/kernel_util.h"

#include <array>
#include <atomic>

#include "cuda_util.h"
#include "switchyard/plugin.hpp"

namespace sy::cuda {

using ::sy::plugin::StrCat;

sy_error_t* OpError(std::string_view op, std::string_view what) {
  return plugin::OpError({"cuda plugin", op}, what);
}

sy_error_t* BeginCall(const sy_kernel_call_t* call, std::string_view op,
                      int num_inputs, int num_outputs, int num_attrs,
                      Stream** out_stream) {
  SY_PLUGIN_RETURN_IF_ERROR(plugin::CheckCall(call, {"cuda plugin", op},
                                              num_inputs, num_outputs, num_attrs));
  // The host always passes a stream it created from this plugin's table;
  // the kernel path skips the registry lookup that the device slots make.
  auto* stream = reinterpret_cast<Stream*>(call->stream);
  if (stream == nullptr) {
    return OpError(op, "the call has no stream; pass a stream of the outputs' "
                       "cuda device");
  }
  SY_PLUGIN_RETURN_IF_ERROR(
      UseDevice(stream->device, StrCat("cuda plugin: ", op)));
  *out_stream = stream;
  return nullptr;
}

sy_error_t* CheckView(const sy_tensor_view_t& view, std::string_view op,
                      std::string_view arg, sy_dtype_t dtype,
                      const Stream& stream) {
  return plugin::CheckView(view, {"cuda plugin", op}, arg, dtype, kDlpackCuda,
                           stream.device);
}

sy_error_t* CheckLaunched(std::string_view op) {
  return CheckLaunch(StrCat("cuda plugin: ", op));
}

int SmCount(int device) {
  static std::array<std::atomic<int>, 64> cache{};
  if (device < 0 || device >= 64) return 132;
  int sms = cache[device].load(std::memory_order_relaxed);
  if (sms == 0) {
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) !=
        cudaSuccess) {
      (void)cudaGetLastError();
      sms = 80;
    }
    cache[device].store(sms, std::memory_order_relaxed);
  }
  return sms;
}

}  // namespace sy::cuda
