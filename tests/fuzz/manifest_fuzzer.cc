// Fuzzes ParseManifest (dispatcher/manifest.h) with arbitrary text.
//
// Beyond "no crash" (nothing thrown out of the parser, no sanitizer
// report), every input checks the header's contract:
// - a failure is InvalidArgument with a message that names the file;
// - a success holds exactly what the JSON says, read here a second time,
//   independently: format_version 1; a lowercase-identifier name; a
//   non-empty relative library resolved against the manifest's folder;
//   the ABI numbers as written (not wrapped into 32 bits); a non-empty list
//   of lowercase-identifier device types; an optional 64-hex-digit sha256,
//   lowercased.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "dispatcher/loading/manifest.h"
#include "fuzz_check.h"
#include "nlohmann/json.hpp"

namespace {

constexpr char kPath[] = "/fuzz/plugins/example.json";

bool IsLowercaseIdentifier(const std::string& s) {
  if (s.empty() || s.size() > 64 || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
      return false;
    }
  }
  return true;
}

bool IsLowercaseHex64(const std::string& s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// A field as written, for messages.
std::string Dump(const nlohmann::json& doc, const char* field) {
  auto it = doc.find(field);
  return it == doc.end() ? "(missing)"
                         : it->dump(-1, ' ', true,
                                    nlohmann::json::error_handler_t::replace);
}

void CheckAgainstJson(const sy::core::Manifest& m, const std::string& text) {
  // The parser accepted it, so it is a JSON object.
  const nlohmann::json doc = nlohmann::json::parse(text);
  FUZZ_CHECK(m.path == kPath, "path '%s'", m.path.c_str());
  FUZZ_CHECK(m.format_version == sy::core::kManifestFormatVersion &&
                 doc.at("format_version") == sy::core::kManifestFormatVersion,
             "format_version %d accepted (JSON %s)", m.format_version,
             Dump(doc, "format_version").c_str());

  FUZZ_CHECK(IsLowercaseIdentifier(m.name) &&
                 doc.at("name") == nlohmann::json(m.name),
             "name '%s' (JSON %s)", m.name.c_str(), Dump(doc, "name").c_str());

  FUZZ_CHECK(!m.library.empty() && doc.at("library") == nlohmann::json(m.library),
             "library '%s' (JSON %s)", m.library.c_str(),
             Dump(doc, "library").c_str());
  const std::filesystem::path library(m.library);
  FUZZ_CHECK(library.is_relative(), "absolute library '%s' accepted",
             m.library.c_str());
  const std::string resolved =
      (std::filesystem::path(kPath).parent_path() / library)
          .lexically_normal()
          .string();
  FUZZ_CHECK(m.library_path == resolved, "library_path '%s', expected '%s'",
             m.library_path.c_str(), resolved.c_str());

  const nlohmann::json& abi = doc.at("abi");
  FUZZ_CHECK(abi.at("major") == nlohmann::json(m.abi_major) &&
                 abi.at("minor") == nlohmann::json(m.abi_minor),
             "abi read as %u.%u but the manifest says %s", m.abi_major,
             m.abi_minor, Dump(doc, "abi").c_str());

  FUZZ_CHECK(!m.device_types.empty() &&
                 doc.at("device_types") == nlohmann::json(m.device_types),
             "device_types %s", Dump(doc, "device_types").c_str());
  for (const std::string& type : m.device_types) {
    FUZZ_CHECK(IsLowercaseIdentifier(type), "device type '%s'", type.c_str());
  }

  if (m.sha256.has_value()) {
    std::string written = doc.at("sha256").get<std::string>();
    for (char& c : written) c = (c >= 'A' && c <= 'F') ? c - 'A' + 'a' : c;
    FUZZ_CHECK(IsLowercaseHex64(*m.sha256) && *m.sha256 == written,
               "sha256 '%s' (JSON %s)", m.sha256->c_str(),
               Dump(doc, "sha256").c_str());
  } else {
    FUZZ_CHECK(!doc.contains("sha256"), "sha256 %s dropped",
               Dump(doc, "sha256").c_str());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<sy::core::Manifest> parsed = sy::core::ParseManifest(text, kPath);
  if (!parsed.ok()) {
    const absl::Status& status = parsed.status();
    FUZZ_CHECK(status.code() == absl::StatusCode::kInvalidArgument,
               "code %d", static_cast<int>(status.code()));
    const std::string message(status.message());
    FUZZ_CHECK(message.find(kPath) != std::string::npos,
               "message '%s' does not name the file", message.c_str());
    return 0;
  }
  CheckAgainstJson(*parsed, text);
  return 0;
}
