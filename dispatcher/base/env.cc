#include "dispatcher/base/env.h"

#include <stdlib.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace sy::core {

std::optional<std::string> GetEnv(const char* name) {
  const char* value = secure_getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

bool GetEnvFlag(const char* name) {
  std::optional<std::string> value = GetEnv(name);
  if (!value) return false;
  std::string v = absl::AsciiStrToLower(absl::StripAsciiWhitespace(*value));
  return v == "1" || v == "true" || v == "yes" || v == "on";
}

std::vector<std::string> SplitList(const std::string& value, char separator) {
  std::vector<std::string> parts;
  for (absl::string_view part : absl::StrSplit(value, separator)) {
    part = absl::StripAsciiWhitespace(part);
    if (!part.empty()) parts.emplace_back(part);
  }
  return parts;
}

}  // namespace sy::core
