// A BackendUnderTest that forwards only the calls one plugin's kernels
// serve, so the op harness judges that plugin and not the reference
// kernels loaded beside it. Every other call is answered UNIMPLEMENTED
// with the reason — the harness's signal for "not provided", which its
// lenient policy skips.
#ifndef SWITCHYARD_SDK_CONFORMANCE_TOOL_PLUGIN_ONLY_BACKEND_H_
#define SWITCHYARD_SDK_CONFORMANCE_TOOL_PLUGIN_ONLY_BACKEND_H_

#include <memory>
#include <string>

#include "sdk/conformance/harness/backend.h"

namespace sy::conformance {

// Wraps `inner` (a RuntimeBackend). A kDispatch call goes through when the
// runtime would run it with a kernel of `plugin` ("kernel <plugin>::…"), as
// a view (no kernel runs; the harness makes its input layouts with views),
// or when it would fail before any kernel (the expected-error tests check
// the core's refusal), or — when `plugin_provides_device` — as a
// decomposition (whose ops then all run on the plugin's kernels); a call
// that would run another plugin's kernel, the cpu fallback, or a
// decomposition on a device the plugin only adds kernels to is refused. kDecomposed calls go
// through only when `plugin_provides_device` (then every op the
// decomposition runs is the plugin's own).
std::unique_ptr<op_harness::BackendUnderTest> MakePluginOnlyBackend(
    std::unique_ptr<op_harness::BackendUnderTest> inner, std::string plugin,
    bool plugin_provides_device);

}  // namespace sy::conformance

#endif  // SWITCHYARD_SDK_CONFORMANCE_TOOL_PLUGIN_ONLY_BACKEND_H_
