// myvendor's kernels for myaccel, in registration order.
#ifndef MYVENDOR_KERNELS_H_
#define MYVENDOR_KERNELS_H_

#include <span>

#include "switchyard/plugin.hpp"

namespace myvendor {

std::span<const sy::plugin::KernelSpec> Kernels();

}  // namespace myvendor

#endif  // MYVENDOR_KERNELS_H_
