// A BackendUnderTest that forwards only the calls one plugin's kernels
// serve, so the op harness judges that plugin and not the reference
// kernels loaded beside it. Every other call is answered UNIMPLEMENTED
// with the reason — the harness's signal for "not provided", which its
// lenient policy skips.
#ifndef SWITCHYARD_SDK_CONFORMANCE_TOOL_PLUGIN_ONLY_BACKEND_H_
#define SWITCHYARD_SDK_CONFORMANCE_TOOL_PLUGIN_ONLY_BACKEND_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sdk/conformance/harness/backend.h"

namespace sy::conformance {

// The plugin's kernels on the device under test: op full name → kernel
// names ("plugin::name"), highest priority first.
using KernelsByOp = std::map<std::string, std::vector<std::string>>;

// Wraps `inner` (a RuntimeBackend). A kDispatch call goes through as the
// dispatcher would run it when that is with a kernel of `plugin` ("kernel
// <plugin>::…"), as a view (no kernel runs; the harness makes its input
// layouts with views), when it would fail before any kernel (the
// expected-error tests check the core's refusal), or — when
// `plugin_provides_device` — as a decomposition (whose ops then all run on
// the plugin's kernels). Otherwise, when one of the plugin's `kernels` for
// the op takes these inputs, the call runs on it by name (a route: its
// kernel may lose on priority to the reference's, or a pin may say
// otherwise); when none does (no kernel for these dtypes, or it declines
// them), the call is refused. kDecomposed calls go through only when
// `plugin_provides_device` (then every op the decomposition runs is the
// plugin's own).
std::unique_ptr<op_harness::BackendUnderTest> MakePluginOnlyBackend(
    std::unique_ptr<op_harness::BackendUnderTest> inner, std::string plugin,
    bool plugin_provides_device, KernelsByOp kernels);

}  // namespace sy::conformance

#endif  // SWITCHYARD_SDK_CONFORMANCE_TOOL_PLUGIN_ONLY_BACKEND_H_
