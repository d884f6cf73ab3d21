// The HIP runtime (libamdhip64.so.5), loaded at run time instead of linked.
//
// Note [HIP loaded at run time]: a plugin linked against libamdhip64 could
// not even be opened on a machine without ROCm — the loader would record
// "libamdhip64.so.5: cannot open shared object file" and nothing about
// ROCm devices. So the plugin has no DT_NEEDED on it: it carries, under
// HIP's own names, a forwarder for each HIP function it calls (the host
// API of rocm_device.cc and the portability layer, and the launch calls
// that hipcc's `<<<…>>>` expands to), each calling through a pointer that
// LoadHip fills with dlsym. hipcc also emits, for every translation unit
// with kernels, a constructor that registers its code objects with the
// runtime (__hipRegisterFatBinary, __hipRegisterFunction) as the library
// is opened — before sy_plugin_init runs and possibly on a machine without
// HIP. Those registrations are recorded, and RegisterCodeObjects replays
// them into the real runtime once devices are known to exist. The version
// script keeps every one of these names local to the plugin, so they never
// meet another library's HIP symbols.
//
// The plugin is linked -z nodelete: once opened it stays mapped until the
// process exits. hipcc's generated destructors unregister code objects at
// exit, after the runtime we dlopened may already have torn itself down
// (its destructors were registered later, so they run first); the
// unregister forwarder therefore does nothing, and nodelete guarantees
// there is never a second copy of the plugin whose kernels could be
// mistaken for the first's.
#ifndef SWITCHYARD_PLUGINS_ROCM_HIP_LIBRARY_H_
#define SWITCHYARD_PLUGINS_ROCM_HIP_LIBRARY_H_

#include <string>

namespace sy::rocm {

// The default file name dlopened; SWITCHYARD_HIP_LIBRARY (read with
// secure_getenv) names another file or path instead.
inline constexpr const char* kHipLibraryName = "libamdhip64.so.5";

struct HipLibrary {
  std::string path;         // the file that was opened (its real path)
  int runtime_version = 0;  // hipRuntimeGetVersion: 50221153 is 5.2.21153
};

// Opens and resolves the HIP runtime, once per process; later calls return
// the first result. NULL when it cannot, with *why_not set to the reason in
// words, e.g. "the HIP runtime library libamdhip64.so.5 could not be
// loaded (libamdhip64.so.5: cannot open shared object file: No such file
// or directory)". Until it succeeds every HIP call of the plugin returns
// hipErrorNotInitialized. Call from sy_plugin_init (no other call into the
// plugin in flight).
const HipLibrary* LoadHip(std::string* why_not);

// Replays the code-object registrations recorded while the plugin was
// opened into the loaded runtime (Note [HIP loaded at run time]). Once per
// process, after LoadHip succeeded and before any kernel launch; later
// calls return the first result. False with *why_not set when the runtime
// refuses a code object.
bool RegisterCodeObjects(std::string* why_not);

// "5.2.21153" for 50221153 (HIP_VERSION's layout: major·10⁷ + minor·10⁵ +
// patch).
std::string HipVersionString(int version);

}  // namespace sy::rocm

#endif  // SWITCHYARD_PLUGINS_ROCM_HIP_LIBRARY_H_
