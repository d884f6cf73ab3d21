// Note [Importing CUDA memory]: a CUDA tensor from another library (PyTorch,
// CuPy) may still be being written on that library's stream. The DLPack
// protocol lets the consumer name the stream it will read on, and the
// producer makes that stream wait (an event); Switchyard's ops run on the
// cuda plugin's own non-blocking stream, whose native handle the plugin ABI
// does not expose (yet). So the package names the one stream every CUDA
// producer knows — the legacy default stream (DLPack's `stream=1`) — and
// then waits on the host, through the CUDA driver, for that stream to pass
// the producer's event. After that the memory is complete for any stream.
//
// The cost is one host wait per import of a CUDA tensor with pending work.
// When the device ABI can hand out a stream's native handle, the package
// passes Switchyard's stream instead and the wait moves to the GPU.
//
// The driver (libcuda.so.1) is opened on first use, only in processes that
// import CUDA memory; the package does not link it.
#include <dlfcn.h>

#include <mutex>
#include <string>

#include "dlpack_capsules.h"
#include "errors.h"

namespace sy::python {
namespace {

using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUstream = void*;
const CUstream kLegacyStream = reinterpret_cast<CUstream>(0x1);  // CU_STREAM_LEGACY

struct CudaDriver {
  CUresult (*init)(unsigned int) = nullptr;
  CUresult (*device_get)(CUdevice*, int) = nullptr;
  CUresult (*primary_retain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*primary_release)(CUdevice) = nullptr;
  CUresult (*push)(CUcontext) = nullptr;
  CUresult (*pop)(CUcontext*) = nullptr;
  CUresult (*stream_synchronize)(CUstream) = nullptr;
  CUresult (*error_string)(CUresult, const char**) = nullptr;
  std::string problem;  // why it could not be opened, or ""
};

template <typename Fn>
bool Load(void* library, const char* name, Fn* out) {
  *out = reinterpret_cast<Fn>(dlsym(library, name));
  return *out != nullptr;
}

const CudaDriver& Driver() {
  static CudaDriver driver;
  static std::once_flag once;
  std::call_once(once, [] {
    void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      driver.problem = std::string("cannot open the CUDA driver (libcuda.so.1): ") + dlerror();
      return;
    }
    const bool ok = Load(library, "cuInit", &driver.init) &&
                    Load(library, "cuDeviceGet", &driver.device_get) &&
                    Load(library, "cuDevicePrimaryCtxRetain", &driver.primary_retain) &&
                    Load(library, "cuDevicePrimaryCtxRelease_v2", &driver.primary_release) &&
                    Load(library, "cuCtxPushCurrent_v2", &driver.push) &&
                    Load(library, "cuCtxPopCurrent_v2", &driver.pop) &&
                    Load(library, "cuStreamSynchronize", &driver.stream_synchronize) &&
                    Load(library, "cuGetErrorString", &driver.error_string);
    if (!ok) driver.problem = "the CUDA driver lacks a function this package needs";
  });
  return driver;
}

std::string DriverError(const CudaDriver& d, CUresult result, const char* what) {
  const char* text = nullptr;
  if (d.error_string != nullptr) d.error_string(result, &text);
  return std::string(what) + " failed: " + (text ? text : "CUDA error ") +
         (text ? "" : std::to_string(result));
}

// Waits until device `ordinal`'s legacy default stream has done its work.
std::string WaitLegacyStream(int ordinal) {
  const CudaDriver& d = Driver();
  if (!d.problem.empty()) return d.problem;
  CUresult r = d.init(0);
  if (r != 0) return DriverError(d, r, "cuInit");
  CUdevice device;
  if ((r = d.device_get(&device, ordinal)) != 0) return DriverError(d, r, "cuDeviceGet");
  CUcontext context;
  if ((r = d.primary_retain(&context, device)) != 0) {
    return DriverError(d, r, "cuDevicePrimaryCtxRetain");
  }
  std::string problem;
  if ((r = d.push(context)) != 0) {
    problem = DriverError(d, r, "cuCtxPushCurrent");
  } else {
    if ((r = d.stream_synchronize(kLegacyStream)) != 0) {
      problem = DriverError(d, r, "cuStreamSynchronize");
    }
    CUcontext popped;
    d.pop(&popped);
  }
  d.primary_release(device);
  return problem;
}

}  // namespace

PyObject* CudaWaitLegacyStream(PyObject*, PyObject* arg) {
  const long ordinal = PyLong_AsLong(arg);
  if (ordinal == -1 && PyErr_Occurred()) return nullptr;
  std::string problem;
  Py_BEGIN_ALLOW_THREADS
  problem = WaitLegacyStream(static_cast<int>(ordinal));
  Py_END_ALLOW_THREADS
  if (!problem.empty()) {
    return RaiseStatus(SY_STATUS_FAILED_PRECONDITION,
                       "switchyard.from_dlpack: waiting for the producer's CUDA stream "
                       "on device " + std::to_string(ordinal) + ": " + problem);
  }
  Py_RETURN_NONE;
}

}  // namespace sy::python
