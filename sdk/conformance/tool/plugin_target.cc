#include "sdk/conformance/tool/plugin_target.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "switchyard/plugin.h"
#include "switchyard/switchyard.hpp"

namespace sy::conformance {
namespace {

namespace fs = std::filesystem;

constexpr char kReferenceManifest[] = "cpu.json";

bool IsFile(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

std::string Canonical(const fs::path& path) {
  std::error_code ec;
  fs::path c = fs::canonical(path, ec);
  return ec ? path.lexically_normal().string() : c.string();
}

// "libswitchyard_cuda.so" → "cuda"; "libfoo.so.1" → "foo".
std::string NameFromLibrary(const fs::path& library) {
  std::string stem = library.filename().string();
  if (size_t so = stem.find(".so"); so != std::string::npos) stem.resize(so);
  if (absl::StartsWith(stem, "libswitchyard_")) return stem.substr(14);
  if (absl::StartsWith(stem, "lib")) return stem.substr(3);
  return stem;
}

// A manifest beside `library` that names it, if any.
std::optional<std::string> ManifestBeside(const fs::path& library) {
  const std::string target = Canonical(library);
  const fs::path dir = library.parent_path().empty() ? fs::path(".")
                                                      : library.parent_path();
  std::vector<fs::path> candidates = {dir / (NameFromLibrary(library) + ".json")};
  std::error_code ec;
  std::vector<fs::path> others;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".json") others.push_back(e.path());
  }
  std::sort(others.begin(), others.end());
  candidates.insert(candidates.end(), others.begin(), others.end());
  for (const fs::path& candidate : candidates) {
    if (!IsFile(candidate)) continue;
    absl::StatusOr<ManifestFields> m = ReadManifestFields(candidate.string());
    if (m.ok() && Canonical(m->library_path) == target) return candidate.string();
  }
  return std::nullopt;
}

absl::StatusOr<PluginTarget> Synthesize(const fs::path& library,
                                        const std::string& name) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      (fs::path(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") /
       "switchyard-conformance.XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot create a temporary folder (", pattern, ") for the manifest of ",
        library.string(), "; set TMPDIR to a writable folder, or pass the "
        "plugin's manifest instead of its library"));
  }
  const fs::path dir(pattern);
  const std::string canonical = Canonical(library);
  nlohmann::json doc = {
      {"format_version", 1},
      {"name", name},
      // The loader takes only relative paths, so the pair can move together.
      {"library", fs::relative(canonical, dir).string()},
      {"abi", {{"major", SY_PLUGIN_ABI_MAJOR}, {"minor", SY_PLUGIN_ABI_MINOR}}},
      {"device_types", {"unknown"}}};
  const fs::path manifest = dir / (name + ".json");
  std::ofstream(manifest) << doc.dump(2) << "\n";
  absl::StatusOr<ManifestFields> m = ReadManifestFields(manifest.string());
  if (!m.ok()) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    return absl::InvalidArgumentError(absl::StrCat(
        "no manifest found beside ", library.string(), ", and none could be "
        "made from its file name: ", m.status().message(),
        "; pass --name <plugin name>, or the plugin's manifest"));
  }
  PluginTarget target;
  target.manifest = *std::move(m);
  target.library_path = canonical;
  target.synthesized = true;
  target.temporary_dir = dir.string();
  return target;
}

}  // namespace

absl::StatusOr<ManifestFields> ReadManifestFields(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot read the manifest ", path));
  }
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the manifest ", path, " ", why, "; regenerate it with the plugin's build "
        "(switchyard_add_plugin) or pass the plugin's library"));
  };
  if (doc.is_discarded() || !doc.is_object()) return bad("is not a JSON object");
  ManifestFields m;
  m.path = path;
  if (!doc.contains("name") || !doc["name"].is_string()) return bad("has no \"name\"");
  if (!doc.contains("library") || !doc["library"].is_string()) {
    return bad("has no \"library\"");
  }
  m.name = doc["name"].get<std::string>();
  const fs::path library(doc["library"].get<std::string>());
  m.library_path = (fs::path(path).parent_path() / library).lexically_normal().string();
  if (doc.contains("abi") && doc["abi"].is_object()) {
    const nlohmann::json& abi = doc["abi"];
    if (abi.contains("major") && abi["major"].is_number_unsigned()) {
      m.abi_major = abi["major"].get<uint32_t>();
    }
    if (abi.contains("minor") && abi["minor"].is_number_unsigned()) {
      m.abi_minor = abi["minor"].get<uint32_t>();
    }
  }
  if (doc.contains("device_types") && doc["device_types"].is_array()) {
    for (const nlohmann::json& t : doc["device_types"]) {
      if (t.is_string()) m.device_types.push_back(t.get<std::string>());
    }
  }
  return m;
}

absl::StatusOr<PluginTarget> ResolveTarget(const std::string& argument,
                                           const std::string& name_override) {
  const fs::path path(argument);
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    return absl::NotFoundError(absl::StrCat(
        "'", argument, "' does not exist; pass a plugin manifest (NAME.json) "
        "or a plugin library (libswitchyard_NAME.so)"));
  }
  if (!IsFile(path)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", argument, "' is not a file; pass a plugin manifest (NAME.json) "
        "or a plugin library (libswitchyard_NAME.so)"));
  }
  std::string manifest_path;
  if (path.extension() == ".json") {
    manifest_path = argument;
  } else if (std::optional<std::string> beside = ManifestBeside(path);
             beside && name_override.empty()) {
    manifest_path = *beside;
  } else {
    return Synthesize(path, name_override.empty() ? NameFromLibrary(path)
                                                  : name_override);
  }
  absl::StatusOr<ManifestFields> manifest = ReadManifestFields(manifest_path);
  if (!manifest.ok()) return manifest.status();
  PluginTarget target;
  target.manifest = *std::move(manifest);
  target.library_path = Canonical(target.manifest.library_path);
  return target;
}

void RemoveTemporary(const PluginTarget& target) {
  if (!target.synthesized || target.temporary_dir.empty()) return;
  std::error_code ec;
  fs::remove_all(target.temporary_dir, ec);
}

absl::StatusOr<std::string> FindReference(const std::string& explicit_path) {
  if (!explicit_path.empty()) {
    fs::path p(explicit_path);
    std::error_code ec;
    if (fs::is_directory(p, ec)) p /= kReferenceManifest;
    if (!IsFile(p)) {
      return absl::NotFoundError(absl::StrCat(
          "--reference ", explicit_path, ": ", p.string(), " does not exist; "
          "name the cpu plugin's manifest (cpu.json) or the folder holding it"));
    }
    return p.string();
  }
  std::vector<fs::path> places;
  if (const char* env = secure_getenv("SWITCHYARD_PLUGIN_PATH"); env != nullptr) {
    for (absl::string_view entry : absl::StrSplit(env, ':', absl::SkipEmpty())) {
      fs::path p{std::string(entry)};
      if (!p.is_absolute()) continue;  // as the loader: never the current dir
      places.push_back(p.filename() == kReferenceManifest ? p : p / kReferenceManifest);
    }
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    places.push_back(exe.parent_path().parent_path() / "lib" / "switchyard" /
                     "plugins" / kReferenceManifest);
  }
  // The plugin folder next to libswitchyard.so: what discovery finds there
  // with the environment left out.
  sy::ContextOptions default_folder;
  default_folder.use_environment = false;
  for (const std::string& manifest : sy::DiscoverPlugins(default_folder).value_or({})) {
    if (fs::path(manifest).filename() == kReferenceManifest) places.push_back(manifest);
  }
#ifdef SWITCHYARD_BUILD_PLUGIN_DIR
  places.push_back(fs::path(SWITCHYARD_BUILD_PLUGIN_DIR) / kReferenceManifest);
#endif
  std::vector<std::string> looked;
  for (const fs::path& p : places) {
    if (IsFile(p)) return p.lexically_normal().string();
    looked.push_back(p.lexically_normal().string());
  }
  return absl::NotFoundError(absl::StrCat(
      "cannot find the cpu reference plugin; looked at ",
      absl::StrJoin(looked, ", "),
      ". Pass --reference <path to cpu.json>, or add its folder to "
      "SWITCHYARD_PLUGIN_PATH"));
}

}  // namespace sy::conformance
