#include "tests/op_harness/backend.h"

#include <cstdio>

#include "tests/op_harness/dtypes.h"

namespace sy::op_harness {

std::string_view StatusCodeName(sy_status_code_t code) {
  switch (code) {
    case SY_STATUS_OK: return "OK";
    case SY_STATUS_CANCELLED: return "CANCELLED";
    case SY_STATUS_UNKNOWN: return "UNKNOWN";
    case SY_STATUS_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case SY_STATUS_DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case SY_STATUS_NOT_FOUND: return "NOT_FOUND";
    case SY_STATUS_ALREADY_EXISTS: return "ALREADY_EXISTS";
    case SY_STATUS_PERMISSION_DENIED: return "PERMISSION_DENIED";
    case SY_STATUS_RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case SY_STATUS_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case SY_STATUS_ABORTED: return "ABORTED";
    case SY_STATUS_OUT_OF_RANGE: return "OUT_OF_RANGE";
    case SY_STATUS_UNIMPLEMENTED: return "UNIMPLEMENTED";
    case SY_STATUS_INTERNAL: return "INTERNAL";
    case SY_STATUS_UNAVAILABLE: return "UNAVAILABLE";
    case SY_STATUS_DATA_LOSS: return "DATA_LOSS";
  }
  return "UNKNOWN_CODE";
}

std::string AttrValue::ToString() const {
  switch (kind) {
    case Kind::kNone: return "None";
    case Kind::kInt: return std::to_string(i);
    case Kind::kFloat: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", f);
      std::string s = buf;
      if (s.find_first_of(".eni") == std::string::npos) s += ".0";
      return s;
    }
    case Kind::kBool: return b ? "True" : "False";
    case Kind::kInts: return ShapeString(ints);
    case Kind::kString: return "\"" + str + "\"";
    case Kind::kDtype: return std::string(DtypeName(dtype));
  }
  return "?";
}

}  // namespace sy::op_harness
