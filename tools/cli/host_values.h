// Reading results back for checking: a tensor's values as float64 on the
// host, and the error measure the CLI's checks use.
#ifndef SWITCHYARD_TOOLS_CLI_HOST_VALUES_H_
#define SWITCHYARD_TOOLS_CLI_HOST_VALUES_H_

#include <vector>

#include "switchyard/switchyard.hpp"

namespace sy::cli {

// `tensor`'s values, densely in row-major order, as float64: copied to the
// cpu device and cast there (bool reads as 0/1).
sy::Result<std::vector<double>> ReadAsDouble(const sy::Context& context,
                                             const sy::Device& cpu, const sy::Tensor& tensor);

// A copy of `tensor` cast to `dtype` (the tensor itself when it has it).
sy::Result<sy::Tensor> Cast(const sy::Context& context, const sy::Tensor& tensor,
                            sy_dtype_t dtype);

// max |got − ref| / max(1, |ref|) over the elements. A NaN where the
// reference has none (or the other way round), or a length mismatch,
// counts as infinitely wrong; NaN against NaN matches.
double MaxError(const std::vector<double>& got, const std::vector<double>& ref);

}  // namespace sy::cli

#endif  // SWITCHYARD_TOOLS_CLI_HOST_VALUES_H_
