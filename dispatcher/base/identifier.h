// The one rule for names that come from plugins and manifests (plugin names,
// device types): [a-z_][a-z0-9_]*, at most 64 characters.
#ifndef SWITCHYARD_DISPATCHER_BASE_IDENTIFIER_H_
#define SWITCHYARD_DISPATCHER_BASE_IDENTIFIER_H_

#include "absl/strings/ascii.h"
#include "absl/strings/string_view.h"

namespace sy::core {

inline bool IsLowercaseIdentifier(absl::string_view name) {
  if (name.empty() || name.size() > 64 || absl::ascii_isdigit(name[0])) {
    return false;
  }
  for (char c : name) {
    if (!(absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '_')) {
      return false;
    }
  }
  return true;
}

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_BASE_IDENTIFIER_H_
