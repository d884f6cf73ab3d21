#include "kernels/kernel_list.h"

namespace sy::onednn {

std::vector<sy_dtype_t> FloatDtypes(bool bf16) {
  if (bf16) return {SY_DTYPE_F32, SY_DTYPE_BF16};
  return {SY_DTYPE_F32};
}

}  // namespace sy::onednn
