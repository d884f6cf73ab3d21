// bench_dispatch's columns for the core's own C++ call path
// (sy::core::Dispatcher::CallOut, Call, Execute), which has no public
// face. This folder is the one place in tools/ that sees the core
// (cmake/CheckLayers.cmake exempts it, and only it): the C API's overhead
// is defined against this path, so the two must be timed in one run.
#ifndef SWITCHYARD_TOOLS_BENCH_CORE_CORE_CALLS_H_
#define SWITCHYARD_TOOLS_BENCH_CORE_CORE_CALLS_H_

#include <string>
#include <vector>

namespace sy::bench {

// Registers BM_CoreCallOut, BM_CoreCall and BM_CoreExecute: a 1-element
// f32 add (preallocated output for CallOut and Execute) through a runtime
// of the core linked into this program, over `manifests` (copied with their
// libraries to a private folder first: a plugin library is initialized once
// per process, and libswitchyard.so loads the originals). And the parts of
// a tuned slot's verdict lookup, on a second runtime whose 16-element f32
// add has a verdict: BM_CoreBucketSignature, BM_CoreShapeBucket,
// BM_CoreBucketTableFind (bench_autotune times the whole lookup through the
// C API).
void RegisterCoreBenchmarks(const std::vector<std::string>& manifests);

}  // namespace sy::bench

#endif  // SWITCHYARD_TOOLS_BENCH_CORE_CORE_CALLS_H_
