#include "sdk/conformance/harness/backend.h"

#include <cstdio>

#include "switchyard/plugin.hpp"
#include "sdk/conformance/harness/dtypes.h"

namespace sy::op_harness {

std::string_view StatusCodeName(sy_status_code_t code) {
  return plugin::StatusName(code);
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
