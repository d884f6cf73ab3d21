// The C API's autotune functions (switchyard.h, "Autotuning") over the
// runtime's tuner (autotune/tuner.h): reports, records and summaries as the
// JSON documents the header describes. None of this is on a call's path:
// verdicts reach calls through the dispatch tables, never through here.
#ifndef SWITCHYARD_API_SRC_AUTOTUNE_JSON_H_
#define SWITCHYARD_API_SRC_AUTOTUNE_JSON_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "api/src/status.h"
#include "autotune/tuner.h"
#include "dispatcher/runtime/runtime.h"

namespace sy::capi {

// The runtime's tuner; FailedPrecondition when it has none.
absl::StatusOr<autotune::Tuner*> TunerOf(Runtime& runtime);

// The flags sy_op_tune and sy_context_tune_cases take, checked.
absl::StatusOr<autotune::TuneCallOptions> TuneOptionsOf(int32_t flags);

// sy_op_tune's work: tunes the call `args` of `op` and returns the report.
absl::StatusOr<std::string> TuneCallJson(Runtime& runtime, OpHandle op,
                                         const CallArgs& args, int32_t flags);

}  // namespace sy::capi

#endif  // SWITCHYARD_API_SRC_AUTOTUNE_JSON_H_
