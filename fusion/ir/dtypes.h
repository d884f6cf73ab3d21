// Dtype questions the fused-kernel IR asks, over the core's dtype table
// (dispatcher/ops/dtype.h).
#ifndef SWITCHYARD_FUSION_IR_DTYPES_H_
#define SWITCHYARD_FUSION_IR_DTYPES_H_

#include <string>

#include "dispatcher/ops/dtype.h"
#include "switchyard/common.h"

namespace sy::fusion {

// One of the nine dtypes of the core op set.
inline bool IsKnownDtype(sy_dtype_t d) { return core::IsValidDType(d); }
// f32 f64 f16 bf16.
inline bool IsFloatDtype(sy_dtype_t d) { return core::IsFloatingPoint(d); }
// What an IR value other than a LOAD or STORE may be: floating or bool.
inline bool IsValueDtype(sy_dtype_t d) {
  return IsFloatDtype(d) || d == SY_DTYPE_BOOL;
}
inline std::string DtypeText(sy_dtype_t d) {
  return std::string(core::DTypeName(d));
}

}  // namespace sy::fusion

#endif  // SWITCHYARD_FUSION_IR_DTYPES_H_
