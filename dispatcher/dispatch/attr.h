// sy::core::Attr — an op attribute as the C++ API passes it. It *is* an ABI
// sy_attr_t (same layout, no conversion on the call path), with
// constructors. Lists and strings are borrowed: the memory they point at
// must outlive the call they are passed to.
#ifndef SWITCHYARD_DISPATCHER_DISPATCH_ATTR_H_
#define SWITCHYARD_DISPATCHER_DISPATCH_ATTR_H_

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>

#include "absl/types/span.h"
#include "switchyard/plugin.h"

namespace sy::core {

// An attribute of this kind takes its schema default: what the C API's
// SY_ATTR_DEFAULT is, so a caller can give a later attribute and leave an
// earlier one at its default.
inline constexpr int32_t kAttrDefault = -1;

struct Attr : sy_attr_t {
  Attr() : sy_attr_t{} { kind = SY_ATTR_NONE; }  // None
  Attr(int value) : Attr(static_cast<int64_t>(value)) {}
  Attr(int64_t value) : sy_attr_t{} {
    kind = SY_ATTR_INT;
    this->value.i = value;
  }
  Attr(double value) : sy_attr_t{} {
    kind = SY_ATTR_FLOAT;
    this->value.f = value;
  }
  Attr(bool value) : sy_attr_t{} {
    kind = SY_ATTR_BOOL;
    this->value.b = value ? 1 : 0;
  }
  // Borrows the list.
  Attr(absl::Span<const int64_t> list) : sy_attr_t{} {
    kind = SY_ATTR_INTS;
    value.ints.data = list.data();
    value.ints.size = static_cast<int64_t>(list.size());
  }
  Attr(std::initializer_list<int64_t> list)
      : Attr(absl::Span<const int64_t>(list.begin(), list.size())) {}
  // Borrows the NUL-terminated string.
  Attr(const char* text) : sy_attr_t{} {
    kind = SY_ATTR_STRING;
    value.str.data = text;
    value.str.size = static_cast<int64_t>(std::strlen(text));
  }
  Attr(const std::string& text) : sy_attr_t{} {
    kind = SY_ATTR_STRING;
    value.str.data = text.c_str();
    value.str.size = static_cast<int64_t>(text.size());
  }

  static Attr Default() {
    Attr attr;
    attr.kind = kAttrDefault;
    return attr;
  }

  static Attr DType(sy_dtype_t dtype) {
    Attr attr;
    attr.kind = SY_ATTR_DTYPE;
    attr.value.dtype = dtype;
    return attr;
  }
};

static_assert(sizeof(Attr) == sizeof(sy_attr_t));

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_DISPATCH_ATTR_H_
