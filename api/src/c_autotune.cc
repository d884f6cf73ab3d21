// sy_context_*autotune* and sy_context_tune_cases: the context's tuner
// (autotune/tuner.h) through the C boundary, and the JSON documents
// switchyard.h describes. sy_op_tune's entry point lives with the other op
// calls (c_op_call.cc, which owns the call's handle lookups) and comes here
// through TuneCallJson.
//
// These functions look their context up like every entry point (lock-free,
// pinned for the body) and take no lock of the C layer: the tuner and its
// cache serialize what they must themselves. A tuning call can take the
// key's budget (~0.2 s) or, for a case file, many of them; released tensors
// of other threads are then freed when it returns (Note [Epoch
// reclamation]), never under it.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/src/autotune_json.h"
#include "api/src/context_state.h"
#include "api/src/lookups.h"
#include "api/src/status.h"
#include "autotune/cache.h"
#include "autotune/fingerprint.h"
#include "autotune/tune_cases.h"
#include "dispatcher/dispatch/tuning.h"
#include "nlohmann/json.hpp"

namespace sy::capi {
namespace {

using nlohmann::json;

std::string Dump(const json& doc) {
  return doc.dump(-1, ' ', false, json::error_handler_t::replace);
}

double Finite(double value) { return std::isfinite(value) ? value : -1.0; }

json ReportJson(const autotune::TuneReport& r) {
  json doc = {{"op", r.key.op},
              {"device", r.device},
              {"bucket", r.bucket},
              {"key_hash", r.key_hash},
              {"measured", r.measurement.has_value()},
              {"winner",
               {{"kernel", r.verdict.kernel},
                {"variant", r.verdict.variant},
                {"variant_name", r.verdict.variant_name},
                {"time_ns", Finite(r.verdict.time_ns)}}},
              {"source", r.verdict.source},
              {"written", r.written},
              {"applied", r.applied},
              {"note", r.note}};
  json candidates = json::array();
  if (r.measurement.has_value()) {
    const autotune::Measurement& m = *r.measurement;
    for (size_t i = 0; i < r.candidates.size() && i < m.results.size(); ++i) {
      const autotune::CandidateResult& c = m.results[i];
      candidates.push_back({{"candidate", r.candidates[i].Label()},
                            {"outcome", autotune::OutcomeName(c.outcome)},
                            {"median_ns", Finite(c.median_ns)},
                            {"samples", c.samples},
                            {"error", Finite(c.error)},
                            {"note", c.note}});
    }
    doc["reference"] = m.reference;
    doc["rounds"] = m.rounds;
    doc["input_sets"] = m.input_sets;
    doc["elapsed_ms"] = Finite(m.elapsed_ms);
    // A forced measurement that the cache did not take: what it found.
    if (m.winner >= 0 && static_cast<size_t>(m.winner) < r.candidates.size()) {
      doc["measured_winner"] = r.candidates[m.winner].Label();
    }
  } else {
    // The cache answered: the candidates' results are those stored with
    // the verdict when it was measured (tuner.cc, DetailJson).
    const json detail = json::parse(r.verdict.detail, nullptr, false);
    if (detail.is_object()) {
      if (detail.contains("candidates") && detail["candidates"].is_array()) {
        for (const json& c : detail["candidates"]) {
          json entry = c;
          if (!entry.contains("note")) entry["note"] = "";
          candidates.push_back(std::move(entry));
        }
      }
      for (const char* field : {"reference", "rounds", "input_sets", "elapsed_ms"}) {
        if (detail.contains(field)) doc[field] = detail[field];
      }
    }
  }
  doc["candidates"] = std::move(candidates);
  return doc;
}

json RecordJson(const autotune::ImportRecord& r) {
  return {{"file", r.file},         {"imported", r.imported}, {"present", r.present},
          {"ignored", r.ignored},   {"reasons", r.reasons},   {"created", r.created}};
}

// The fingerprints of the runtime's device types (device 0 of each).
std::vector<std::string> HereFingerprints(Runtime& runtime) {
  std::vector<std::string> out;
  for (DeviceType* type : runtime.state().devices.Types()) {
    if (!type->devices().empty()) {
      out.push_back(autotune::FingerprintOf(*type->device(0)).Text());
    }
  }
  return out;
}

absl::StatusOr<std::string> InfoJson(Runtime& runtime) {
  absl::StatusOr<autotune::Tuner*> tuner = TunerOf(runtime);
  if (!tuner.ok()) return tuner.status();
  absl::StatusOr<autotune::CacheSummary> summary = (*tuner)->Summary();
  if (!summary.ok()) return summary.status();
  const std::vector<std::string> here = HereFingerprints(runtime);
  json devices = json::array();
  for (const autotune::CacheSummary::Device& d : summary->devices) {
    json ops = json::object();
    for (const auto& [op, count] : d.ops) ops[op] = count;
    const bool is_here = std::find(here.begin(), here.end(), d.fingerprint) != here.end();
    devices.push_back({{"fingerprint", d.fingerprint},
                       {"here", is_here},
                       {"verdicts", d.verdicts},
                       {"ops", std::move(ops)}});
  }
  json imports = json::array();
  for (const autotune::ImportRecord& r : summary->imports) imports.push_back(RecordJson(r));
  json entries = json::array();
  for (const std::string& fingerprint : here) {
    absl::StatusOr<std::vector<autotune::Verdict>> rows =
        (*tuner)->cache().List(fingerprint);
    if (!rows.ok()) return rows.status();
    const std::string device_type = fingerprint.substr(0, fingerprint.find('|'));
    for (const autotune::Verdict& v : *rows) {
      entries.push_back({{"op", v.key.op},
                         {"dtypes", v.key.dtypes},
                         {"bucket", v.key.bucket},
                         {"device", device_type},
                         {"kernel", v.kernel},
                         {"variant", v.variant},
                         {"variant_name", v.variant_name},
                         {"time_ns", Finite(v.time_ns)},
                         {"source", v.source},
                         {"created", v.created}});
    }
  }
  const json doc = {{"mode", core::AutotuneModeName((*tuner)->mode())},
                    {"path", summary->path},
                    {"exists", summary->exists},
                    {"file_bytes", summary->file_bytes},
                    {"verdicts", summary->verdicts},
                    {"applied", (*tuner)->verdicts_applied()},
                    {"stale", (*tuner)->verdicts_stale()},
                    {"devices", std::move(devices)},
                    {"imports", std::move(imports)},
                    {"entries", std::move(entries)}};
  return Dump(doc);
}

absl::Status SetMode(sy_context_t context, const char* mode) {
  auto state = ContextOf(context);
  if (!state.ok()) return state.status();
  if (absl::Status s = CheckNotNull(mode, "mode"); !s.ok()) return s;
  std::optional<AutotuneMode> parsed = ParseAutotuneMode(mode);
  if (!parsed.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown autotune mode '", mode, "'; use off, cached or on"));
  }
  Runtime& runtime = *(*state)->runtime;
  if (absl::StatusOr<autotune::Tuner*> tuner = TunerOf(runtime); !tuner.ok()) {
    return tuner.status();
  }
  // A cache that cannot be read is the tuner's warning, not the caller's
  // error: the mode is switched either way (runtime.h).
  (void)runtime.SetAutotuneMode(*parsed);
  return absl::OkStatus();
}

absl::Status TuneCases(sy_context_t context, const char* cases_json, int32_t flags,
                       sy_tune_progress_fn progress, void* user_data,
                       const char** out_json) {
  auto state = ContextOf(context);
  if (!state.ok()) return state.status();
  if (absl::Status s = CheckNotNull(cases_json, "cases_json"); !s.ok()) return s;
  if (absl::Status s = CheckNotNull(out_json, "out_json"); !s.ok()) return s;
  absl::StatusOr<autotune::TuneCallOptions> options = TuneOptionsOf(flags);
  if (!options.ok()) return options.status();
  Runtime& runtime = *(*state)->runtime;
  absl::StatusOr<autotune::Tuner*> tuner = TunerOf(runtime);
  if (!tuner.ok()) return tuner.status();
  absl::StatusOr<std::vector<autotune::TuneCase>> cases =
      autotune::ParseTuneCases(cases_json);
  if (!cases.ok()) return cases.status();
  auto row_json = [](const autotune::TuneRow& row) {
    json doc = {{"case", row.tune_case.Describe()},
                {"ok", row.status.ok()},
                {"seconds", row.seconds}};
    if (row.status.ok()) {
      doc["report"] = ReportJson(row.report);
    } else {
      doc["error"] = std::string(row.status.message());
    }
    return doc;
  };
  std::vector<autotune::TuneRow> rows = autotune::RunTuneCases(
      runtime, **tuner, *cases, *options,
      [&](size_t done, size_t total, const autotune::TuneRow& row) {
        if (progress == nullptr) return;
        const std::string text = Dump(row_json(row));
        progress(user_data, static_cast<int32_t>(done), static_cast<int32_t>(total),
                 text.c_str());
      });
  json list = json::array();
  for (const autotune::TuneRow& row : rows) list.push_back(row_json(row));
  *out_json = KeepThreadText(Dump(json{{"rows", std::move(list)}}));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<autotune::Tuner*> TunerOf(Runtime& runtime) {
  if (runtime.tuner() == nullptr) {
    return absl::FailedPreconditionError(
        "this context has no autotuner (its runtime was made without one); "
        "calls go by the static order");
  }
  // libswitchyard makes every runtime with autotune::MakeTunerFactory()
  // (c_context.cc), so the tuner is an autotune::Tuner.
  return static_cast<autotune::Tuner*>(runtime.tuner());
}

absl::StatusOr<autotune::TuneCallOptions> TuneOptionsOf(int32_t flags) {
  if ((flags & ~SY_TUNE_FORCE) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "flags is ", flags, "; use 0 or SY_TUNE_FORCE (1)"));
  }
  autotune::TuneCallOptions options;
  options.force = (flags & SY_TUNE_FORCE) != 0;
  return options;
}

absl::StatusOr<std::string> TuneCallJson(Runtime& runtime, OpHandle op,
                                         const CallArgs& args, int32_t flags) {
  absl::StatusOr<autotune::TuneCallOptions> options = TuneOptionsOf(flags);
  if (!options.ok()) return options.status();
  absl::StatusOr<autotune::Tuner*> tuner = TunerOf(runtime);
  if (!tuner.ok()) return tuner.status();
  absl::StatusOr<autotune::TuneReport> report = (*tuner)->TuneCall(op, args, *options);
  if (!report.ok()) return report.status();
  return Dump(ReportJson(*report));
}

}  // namespace sy::capi

using sy::capi::CheckNotNull;
using sy::capi::ContextOf;
using sy::capi::Guard;

extern "C" {

SY_API sy_status_code_t sy_context_set_autotune(sy_context_t context,
                                                const char* mode) {
  return Guard("sy_context_set_autotune",
               [&] { return sy::capi::SetMode(context, mode); });
}

SY_API sy_status_code_t sy_context_autotune(sy_context_t context,
                                            const char** out_mode) {
  return Guard("sy_context_autotune", [&]() -> absl::Status {
    auto state = ContextOf(context);
    if (!state.ok()) return state.status();
    if (absl::Status s = CheckNotNull(out_mode, "out_mode"); !s.ok()) return s;
    *out_mode = sy::core::AutotuneModeName((*state)->runtime->autotune_mode());
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_context_tune_cases(sy_context_t context,
                                              const char* cases_json, int32_t flags,
                                              sy_tune_progress_fn progress,
                                              void* user_data,
                                              const char** out_json) {
  return Guard("sy_context_tune_cases", [&] {
    return sy::capi::TuneCases(context, cases_json, flags, progress, user_data,
                               out_json);
  });
}

SY_API sy_status_code_t sy_context_autotune_export(sy_context_t context,
                                                   const char* path,
                                                   int32_t all_devices,
                                                   int64_t* out_count) {
  return Guard("sy_context_autotune_export", [&]() -> absl::Status {
    auto state = ContextOf(context);
    if (!state.ok()) return state.status();
    if (absl::Status s = CheckNotNull(path, "path"); !s.ok()) return s;
    if (all_devices != 0 && all_devices != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "all_devices is ", all_devices, "; use 0 (this context's devices) or 1 (all)"));
    }
    absl::StatusOr<sy::autotune::Tuner*> tuner = sy::capi::TunerOf(*(*state)->runtime);
    if (!tuner.ok()) return tuner.status();
    absl::StatusOr<size_t> count = (*tuner)->Export(path, all_devices == 1);
    if (!count.ok()) return count.status();
    if (out_count != nullptr) *out_count = static_cast<int64_t>(*count);
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_context_autotune_import(sy_context_t context,
                                                   const char* path,
                                                   const char** out_json) {
  return Guard("sy_context_autotune_import", [&]() -> absl::Status {
    auto state = ContextOf(context);
    if (!state.ok()) return state.status();
    if (absl::Status s = CheckNotNull(path, "path"); !s.ok()) return s;
    if (absl::Status s = CheckNotNull(out_json, "out_json"); !s.ok()) return s;
    absl::StatusOr<sy::autotune::Tuner*> tuner = sy::capi::TunerOf(*(*state)->runtime);
    if (!tuner.ok()) return tuner.status();
    absl::StatusOr<sy::autotune::ImportRecord> record = (*tuner)->Import(path);
    if (!record.ok()) return record.status();
    *out_json = sy::capi::KeepThreadText(sy::capi::Dump(sy::capi::RecordJson(*record)));
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_context_autotune_info_json(sy_context_t context,
                                                      const char** out_json) {
  return Guard("sy_context_autotune_info_json", [&]() -> absl::Status {
    auto state = ContextOf(context);
    if (!state.ok()) return state.status();
    if (absl::Status s = CheckNotNull(out_json, "out_json"); !s.ok()) return s;
    absl::StatusOr<std::string> text = sy::capi::InfoJson(*(*state)->runtime);
    if (!text.ok()) return text.status();
    *out_json = sy::capi::KeepThreadText(*std::move(text));
    return absl::OkStatus();
  });
}

}  // extern "C"
