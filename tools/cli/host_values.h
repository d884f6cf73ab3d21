// Reading results back for checking: a tensor's values as float64 on the
// host, and the error measure the CLI's checks use.
#ifndef SWITCHYARD_TOOLS_CLI_HOST_VALUES_H_
#define SWITCHYARD_TOOLS_CLI_HOST_VALUES_H_

#include <vector>

#include "absl/status/statusor.h"
#include "dispatcher/runtime/runtime.h"

namespace sy::cli {
using namespace ::sy::core;  // NOLINT: until this file uses the public API only

// `tensor`'s values, densely in row-major order, as float64: copied to the
// cpu device and cast there (bool reads as 0/1).
absl::StatusOr<std::vector<double>> ReadAsDouble(Runtime& runtime, Device& cpu,
                                                 Tensor tensor);

// max |got − ref| / max(1, |ref|) over the elements. A NaN where the
// reference has none (or the other way round), or a length mismatch,
// counts as infinitely wrong; NaN against NaN matches.
double MaxError(const std::vector<double>& got, const std::vector<double>& ref);

}  // namespace sy::cli

#endif  // SWITCHYARD_TOOLS_CLI_HOST_VALUES_H_
