#include "autotune/export_format.h"

#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace sy::autotune {
namespace {

using nlohmann::json;

constexpr size_t kMaxField = 4096;
constexpr size_t kMaxDetail = size_t{1} << 20;
constexpr int64_t kMaxVariant = 65535;

bool IsHex16(const std::string& s) {
  if (s.size() != 16) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// Reads string field `name` of `entry` into `out`; "" or a reason.
std::string ReadString(const json& entry, const char* name, bool required_non_empty,
                       size_t max, std::string& out) {
  auto it = entry.find(name);
  if (it == entry.end()) return absl::StrCat("'", name, "' is missing");
  if (!it->is_string()) return absl::StrCat("'", name, "' is not a string");
  out = it->get<std::string>();
  if (required_non_empty && out.empty()) return absl::StrCat("'", name, "' is empty");
  if (out.size() > max) {
    return absl::StrCat("'", name, "' is longer than ", max, " bytes");
  }
  if (out.find('\0') != std::string::npos) {
    return absl::StrCat("'", name, "' holds a NUL character");
  }
  return "";
}

// "" or why `entry` is not a verdict.
std::string ReadEntry(const json& entry, Verdict& v) {
  if (!entry.is_object()) return "is not an object";
  struct Field {
    const char* name;
    std::string* out;
    bool non_empty;
    size_t max;
  };
  const Field fields[] = {
      {"fingerprint", &v.key.fingerprint, true, kMaxField},
      {"op", &v.key.op, true, kMaxField},
      {"dtypes", &v.key.dtypes, true, kMaxField},
      {"bucket", &v.key.bucket, true, kMaxField},
      {"plugins", &v.key.plugins, true, kMaxField},
      {"candidates", &v.key.candidates, true, kMaxField},
      {"kernel", &v.kernel, true, kMaxField},
      {"variant_name", &v.variant_name, false, kMaxField},
      {"detail", &v.detail, false, kMaxDetail},
      {"source", &v.source, false, kMaxField},
  };
  for (const Field& f : fields) {
    std::string problem = ReadString(entry, f.name, f.non_empty, f.max, *f.out);
    if (!problem.empty()) return problem;
  }
  auto variant = entry.find("variant");
  if (variant == entry.end()) return "'variant' is missing";
  if (!variant->is_number_integer()) return "'variant' is not an integer";
  if (variant->is_number_unsigned() ? variant->get<uint64_t>() > kMaxVariant
                                    : (variant->get<int64_t>() < -1 ||
                                       variant->get<int64_t>() > kMaxVariant)) {
    return absl::StrCat("'variant' is ", variant->dump(), ", not -1..", kMaxVariant);
  }
  v.variant = static_cast<int32_t>(variant->get<int64_t>());
  if ((v.variant < 0) != v.variant_name.empty()) {
    return v.variant < 0 ? "'variant_name' is given for variant -1"
                         : "'variant_name' is empty for a variant";
  }
  auto time = entry.find("time_ns");
  if (time == entry.end()) return "'time_ns' is missing";
  if (!time->is_number()) return "'time_ns' is not a number";
  v.time_ns = time->get<double>();
  if (!std::isfinite(v.time_ns) || v.time_ns < 0) {
    return "'time_ns' is not a finite number >= 0";
  }
  auto created = entry.find("created");
  if (created != entry.end()) {
    if (!created->is_number_integer() ||
        (created->is_number_unsigned()
             ? created->get<uint64_t>() > uint64_t{INT64_MAX}
             : created->get<int64_t>() < 0)) {
      return "'created' is not an integer >= 0";
    }
    v.created = created->get<int64_t>();
  }
  if (!ParseBucketText(v.key.bucket).has_value()) {
    return absl::StrCat("'bucket' \"", v.key.bucket.substr(0, 80),
                        "\" is not a shape bucket");
  }
  if (!ParseDTypesText(v.key.dtypes).has_value()) {
    return absl::StrCat("'dtypes' \"", v.key.dtypes.substr(0, 80),
                        "\" is not a dtype list");
  }
  if (!IsHex16(v.key.candidates)) return "'candidates' is not 16 hex digits";
  return "";
}

}  // namespace

absl::StatusOr<ParsedExport> ParseExport(absl::string_view text) {
  if (text.size() > kMaxExportBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "autotune export: the file has ", text.size(), " bytes, more than the ",
        kMaxExportBytes, " an export may have"));
  }
  const json doc = json::parse(text.begin(), text.end(), nullptr,
                               /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return absl::InvalidArgumentError(
        "autotune export: the file is not JSON; give a file written by "
        "`switchyard tune --export`");
  }
  if (!doc.is_object()) {
    return absl::InvalidArgumentError(
        "autotune export: the file is not a JSON object");
  }
  auto format = doc.find("format");
  if (format == doc.end() || !format->is_string() ||
      format->get<std::string>() != kExportFormat) {
    return absl::InvalidArgumentError(absl::StrCat(
        "autotune export: \"format\" is not \"", kExportFormat,
        "\"; give a file written by `switchyard tune --export`"));
  }
  auto version = doc.find("version");
  if (version == doc.end() || !version->is_number_integer()) {
    return absl::InvalidArgumentError(
        "autotune export: \"version\" is missing or not an integer");
  }
  if (version->is_number_unsigned() ? version->get<uint64_t>() > kExportVersion
                                    : version->get<int64_t>() > kExportVersion) {
    return absl::InvalidArgumentError(absl::StrCat(
        "autotune export: written by a newer Switchyard (export version ",
        version->dump(), "; this one reads version ", kExportVersion,
        "); export it again with this version, or upgrade"));
  }
  if (version->get<int64_t>() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "autotune export: version ", version->dump(), " does not exist"));
  }
  auto verdicts = doc.find("verdicts");
  if (verdicts == doc.end() || !verdicts->is_array()) {
    return absl::InvalidArgumentError(
        "autotune export: \"verdicts\" is missing or not a list");
  }
  ParsedExport parsed;
  for (size_t i = 0; i < verdicts->size(); ++i) {
    Verdict v;
    std::string problem = ReadEntry((*verdicts)[i], v);
    if (!problem.empty()) {
      parsed.rejected.push_back(absl::StrCat("entry ", i, ": ", problem));
      continue;
    }
    parsed.verdicts.push_back(std::move(v));
  }
  return parsed;
}

std::string SerializeExport(const std::vector<Verdict>& verdicts) {
  json list = json::array();
  for (const Verdict& v : verdicts) {
    list.push_back({{"fingerprint", v.key.fingerprint},
                    {"op", v.key.op},
                    {"dtypes", v.key.dtypes},
                    {"bucket", v.key.bucket},
                    {"plugins", v.key.plugins},
                    {"candidates", v.key.candidates},
                    {"kernel", v.kernel},
                    {"variant", v.variant},
                    {"variant_name", v.variant_name},
                    {"time_ns", v.time_ns},
                    {"detail", v.detail},
                    {"source", v.source},
                    {"created", v.created}});
  }
  json doc = {{"format", kExportFormat}, {"version", kExportVersion},
              {"verdicts", std::move(list)}};
  // Invalid UTF-8 cannot come from a parsed file; from a cache row written
  // by a plugin's odd kernel name it is replaced rather than thrown.
  return doc.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace sy::autotune
