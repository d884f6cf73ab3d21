// For dispatcher/ and its tests. The packaged Abseil (20220623, Debian) is
// built with ABSL_OPTION_USE_STD_STRING_VIEW 0, so absl::string_view is a
// class of its own and absl::StrCat takes no std::string_view. Switchyard's
// C++ interfaces speak std::string_view; text crossing into Abseil goes
// through AsAbsl(). With an Abseil that aliases std::string_view it is the
// identity.
#ifndef SWITCHYARD_DISPATCHER_OPS_ABSL_COMPAT_H_
#define SWITCHYARD_DISPATCHER_OPS_ABSL_COMPAT_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace sy::core {

inline absl::string_view AsAbsl(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_OPS_ABSL_COMPAT_H_
