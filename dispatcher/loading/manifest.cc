#include "absl/strings/string_view.h"
#include "dispatcher/loading/manifest.h"

#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "dispatcher/base/identifier.h"
#include "nlohmann/json.hpp"

namespace sy::core {
namespace {

using nlohmann::json;

absl::Status FieldError(const std::string& path, absl::string_view field,
                        absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("manifest ", path, ": field \"", field, "\" ", what));
}

}  // namespace

absl::StatusOr<Manifest> ParseManifest(const std::string& text,
                                       const std::string& path,
                                       const std::string& folder) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for 1e999
    return absl::InvalidArgumentError(absl::StrCat(
        "manifest ", path, " is not valid JSON: ", e.what(),
        "; fix the file or remove it from the plugin path"));
  }
  if (!doc.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "manifest ", path, " must be a JSON object, found ", doc.type_name()));
  }
  Manifest m;
  m.path = path;

  auto version = doc.find("format_version");
  if (version == doc.end() || !version->is_number_integer()) {
    return FieldError(path, "format_version", "is required and must be an integer (1)");
  }
  // Compared as JSON, not after get<int>(), which would wrap 2^32 + 1 to 1.
  m.format_version = *version == kManifestFormatVersion ? kManifestFormatVersion : -1;
  if (m.format_version != kManifestFormatVersion) {
    return FieldError(path, "format_version",
                      absl::StrCat("is ", version->dump(),
                                   " but this Switchyard reads format ",
                                   kManifestFormatVersion,
                                   "; upgrade Switchyard or regenerate the "
                                   "manifest with a matching SDK"));
  }

  auto name = doc.find("name");
  if (name == doc.end() || !name->is_string() ||
      !IsLowercaseIdentifier(name->get<std::string>())) {
    return FieldError(path, "name",
                      "is required and must be a lowercase identifier "
                      "([a-z_][a-z0-9_]*, at most 64 characters)");
  }
  m.name = name->get<std::string>();

  auto library = doc.find("library");
  if (library == doc.end() || !library->is_string() ||
      library->get<std::string>().empty()) {
    return FieldError(path, "library",
                      "is required: the plugin's shared library file, "
                      "relative to the manifest");
  }
  m.library = library->get<std::string>();
  std::filesystem::path lib(m.library);
  if (lib.is_absolute()) {
    return FieldError(path, "library",
                      absl::StrCat("is the absolute path '", m.library,
                                   "'; give it relative to the manifest so "
                                   "the pair can be moved together"));
  }
  const std::filesystem::path base =
      folder.empty() ? std::filesystem::path(path).parent_path()
                     : std::filesystem::path(folder);
  m.library_path = (base / lib).lexically_normal().string();

  auto abi = doc.find("abi");
  if (abi == doc.end() || !abi->is_object() || !abi->contains("major") ||
      !(*abi)["major"].is_number_unsigned() || !abi->contains("minor") ||
      !(*abi)["minor"].is_number_unsigned() ||
      (*abi)["major"].get<uint64_t>() > UINT32_MAX ||
      (*abi)["minor"].get<uint64_t>() > UINT32_MAX) {
    return FieldError(path, "abi",
                      "is required: {\"major\": <n>, \"minor\": <n>} with the "
                      "plugin ABI the library was built against");
  }
  m.abi_major = (*abi)["major"].get<uint32_t>();
  m.abi_minor = (*abi)["minor"].get<uint32_t>();

  auto types = doc.find("device_types");
  if (types == doc.end() || !types->is_array() || types->empty()) {
    return FieldError(path, "device_types",
                      "is required: a non-empty list of device type names "
                      "the plugin provides or adds kernels to");
  }
  for (const json& t : *types) {
    if (!t.is_string() || !IsLowercaseIdentifier(t.get<std::string>())) {
      return FieldError(path, "device_types",
                        absl::StrCat("contains ", t.dump(),
                                     "; each entry must be a lowercase "
                                     "identifier such as \"cpu\""));
    }
    m.device_types.push_back(t.get<std::string>());
  }

  if (auto sha = doc.find("sha256"); sha != doc.end()) {
    std::string digest = sha->is_string() ? sha->get<std::string>() : "";
    bool hex = digest.size() == 64;
    for (char c : digest) hex = hex && absl::ascii_isxdigit(c);
    if (!hex) {
      return FieldError(path, "sha256",
                        "must be 64 hexadecimal digits (the SHA-256 of the "
                        "library), or be left out");
    }
    m.sha256 = absl::AsciiStrToLower(digest);
  }

  if (auto options = doc.find("options"); options != doc.end()) {
    if (!options->is_object() || options->size() > 256) {
      return FieldError(path, "options",
                        "must be an object of at most 256 plugin options, "
                        "e.g. {\"num_threads\": 4}");
    }
    for (const auto& [key, value] : options->items()) {
      if (!IsLowercaseIdentifier(key) ||
          !(value.is_string() || value.is_number() || value.is_boolean())) {
        return FieldError(path, "options",
                          absl::StrCat("has the entry \"", key, "\": ",
                                       value.dump(), "; each key must be an "
                                       "option name and each value a string, "
                                       "number or bool"));
      }
      m.options[key] = value.is_string() ? value.get<std::string>() : value.dump();
    }
  }
  return m;
}

absl::StatusOr<Manifest> ReadManifest(const PluginFile& file) {
  // PluginFile::Open bounded the size (a manifest is a few hundred bytes;
  // 1 MiB at most) and refused anything but a regular file.
  absl::StatusOr<std::string> text = file.ReadAll();
  if (!text.ok()) return text.status();
  const std::string& real = file.resolved_path();
  return ParseManifest(*text, file.path(), real.substr(0, real.rfind('/') + 1));
}

absl::StatusOr<Manifest> ReadManifest(const std::string& path) {
  absl::StatusOr<PluginFile> file = PluginFile::Open(path, PluginFileKind::kManifest);
  if (!file.ok()) return file.status();
  return ReadManifest(*file);
}

}  // namespace sy::core
