#include "autotune/tuner.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "autotune/cache_file.h"
#include "autotune/export_format.h"
#include "autotune/fingerprint.h"
#include "dispatcher/base/call_tracker.h"
#include "dispatcher/base/log.h"
#include "dispatcher/dispatch/bind.h"
#include "dispatcher/registry/op_registry.h"
#include "nlohmann/json.hpp"

namespace sy::autotune {
namespace {

// Set while this thread tunes: the calls the tuner makes itself (the
// reference, copies) never reach the hook again.
thread_local bool t_tuning = false;

class TuningScope {
 public:
  TuningScope() : was_(t_tuning) { t_tuning = true; }
  ~TuningScope() { t_tuning = was_; }

 private:
  bool was_;
};

// The notes of the candidates that are out, for an error message.
std::string WhyNone(const std::vector<Candidate>& candidates, const Measurement& m) {
  std::vector<std::string> lines;
  for (size_t i = 0; i < candidates.size(); ++i) {
    lines.push_back(absl::StrCat(candidates[i].Label(), ": ",
                                 OutcomeName(m.results[i].outcome),
                                 m.results[i].note.empty() ? "" : " (",
                                 m.results[i].note,
                                 m.results[i].note.empty() ? "" : ")"));
  }
  return absl::StrJoin(lines, "; ");
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::error_code error;
  const uintmax_t size = std::filesystem::file_size(path, error);
  if (error) {
    return absl::NotFoundError(absl::StrCat("cannot read ", path, ": ", error.message()));
  }
  if (size > kMaxExportBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, " has ", size, " bytes, more than an autotune export may have (",
        kMaxExportBytes, ")"));
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof()) {
    return absl::InternalError(absl::StrCat("cannot read ", path));
  }
  return text.str();
}

}  // namespace

Tuner::Tuner(core::Dispatcher& dispatcher, TunerOptions options, std::string path)
    : dispatcher_(dispatcher),
      options_(std::move(options)),
      cache_(std::make_unique<TuningCache>(std::move(path))) {}

Tuner::~Tuner() = default;

std::unique_ptr<Tuner> Tuner::Create(core::Dispatcher& dispatcher,
                                     TunerOptions options) {
  std::string path;
  if (!options.in_memory) {
    const std::string dir = options.cache_dir.value_or(DefaultCacheDir());
    if (dir.empty()) {
      core::Log(core::LogLevel::kInfo,
                "autotune: no cache folder (set SWITCHYARD_CACHE_DIR, "
                "XDG_CACHE_HOME or HOME); verdicts are kept in memory only");
    } else {
      path = (std::filesystem::path(dir) / kCacheFileName).string();
    }
  }
  return std::unique_ptr<Tuner>(new Tuner(dispatcher, std::move(options), std::move(path)));
}

core::AutotuneMode Tuner::mode() const { return mode_.load(); }

absl::Status Tuner::SetMode(core::AutotuneMode mode) {
  mode_.store(mode);
  if (mode == core::AutotuneMode::kOff) {
    dispatcher_.state().kernels.SetTunedChoices({}, /*replace_all=*/true);
    applied_.store(0);
    return absl::OkStatus();
  }
  return FoldVerdicts();
}

void Tuner::OnPluginsChanged() {
  {
    std::lock_guard<std::mutex> lock(seen_mu_);
    seen_.clear();  // candidate sets changed: buckets may be tuned anew
  }
  if (mode_.load() != core::AutotuneMode::kOff) (void)FoldVerdicts();
}

absl::Status Tuner::FoldVerdicts() {
  core::RuntimeState& state = dispatcher_.state();
  std::vector<core::KernelRegistry::TunedChoice> choices;
  size_t stale = 0;
  absl::Status failure = absl::OkStatus();
  for (core::DeviceType* type : state.devices.Types()) {
    if (type->devices().empty()) continue;
    const std::string fingerprint = FingerprintOf(*type->device(0)).Text();
    absl::StatusOr<std::vector<Verdict>> rows = cache_->List(fingerprint);
    if (!rows.ok()) {
      failure = rows.status();
      continue;
    }
    // (op, dtypes) → the slot's plugins and candidate hash, computed once.
    struct SlotKey {
      core::OpDef* op = nullptr;
      core::DispatchKey key = 0;
      std::string plugins, candidates;
    };
    std::map<std::pair<std::string, std::string>, std::optional<SlotKey>> slots;
    for (const Verdict& v : *rows) {
      if (IsFusionCompilerVerdict(v.key)) continue;  // the fusion compiler's own
      auto [it, fresh] = slots.try_emplace({v.key.op, v.key.dtypes});
      if (fresh) {
        core::OpDef* op = state.ops.Find(v.key.op);
        std::optional<std::vector<sy_dtype_t>> dtypes = ParseDTypesText(v.key.dtypes);
        if (op != nullptr && op->full_name() == v.key.op && dtypes.has_value()) {
          const core::DispatchKey key = core::MakeDispatchKey(type->id(), *dtypes);
          const core::OpDispatch* table = op->dispatch();
          const core::DispatchSlot* slot = table != nullptr ? table->Find(key) : nullptr;
          if (slot != nullptr) {
            std::vector<Candidate> candidates = SlotCandidates(*slot);
            it->second = SlotKey{op, key, PluginsText(state, candidates),
                                 CandidateSetHash(candidates)};
          }
        }
      }
      const std::optional<SlotKey>& slot = it->second;
      std::optional<core::ShapeBucket> bucket = ParseBucketText(v.key.bucket);
      if (!slot.has_value() || slot->plugins != v.key.plugins ||
          slot->candidates != v.key.candidates || !bucket.has_value()) {
        ++stale;
        continue;
      }
      choices.push_back({slot->op, slot->key, *bucket, v.kernel, v.variant});
    }
  }
  const size_t taken = state.kernels.SetTunedChoices(choices, /*replace_all=*/true);
  applied_.store(taken);
  stale_.store(stale + (choices.size() - taken));
  if (!failure.ok()) {
    core::Log(core::LogLevel::kWarning,
              absl::StrCat("autotune: cannot read the cache (", failure.message(),
                           "); calls go by the static order where it had verdicts"));
  } else if (taken > 0 || stale > 0) {
    core::Log(core::LogLevel::kDebug,
              absl::StrCat("autotune: folded ", taken, " verdict(s) from ",
                           cache_->persistent() ? cache_->path() : "memory", "; ",
                           stale, " do not apply to the loaded plugins"));
  }
  return failure;
}

void Tuner::OnUntunedCall(const core::BoundCall& bound, const core::DispatchSlot& slot) {
  if (t_tuning || mode_.load(std::memory_order_relaxed) != core::AutotuneMode::kOn) {
    return;
  }
  for (const core::Tensor* t : bound.tensors) {
    if (t->symbolic()) return;  // a graph capture: nothing to measure with
  }
  {
    std::lock_guard<std::mutex> lock(seen_mu_);
    if (!seen_.insert(SeenKey{bound.op, bound.key(), bound.bucket()}).second) return;
  }
  TuningScope scope;
  TuneCallOptions options;
  options.measure = options_.measure;
  absl::StatusOr<TuneReport> report = TuneBound(bound, slot, options);
  if (!report.ok()) {
    core::Log(core::LogLevel::kWarning,
              absl::StrCat("autotune: cannot tune ", bound.op->full_name(), " on ",
                           bound.device->label(), " for shapes ",
                           bound.bucket().ToString(), ": ", report.status().message(),
                           "; its calls keep the static order"));
    return;
  }
  core::Log(core::LogLevel::kDebug,
            absl::StrCat("autotune: ", bound.op->full_name(), " on ",
                         bound.device->label(), " for shapes ", report->bucket, " → ",
                         report->verdict.kernel,
                         report->verdict.variant >= 0
                             ? absl::StrCat(" [", report->verdict.variant_name, "]")
                             : "",
                         report->measurement.has_value() ? " (measured)" : " (cached)"));
}

bool Tuner::Apply(const core::BoundCall& bound, const Verdict& verdict) {
  if (mode_.load() == core::AutotuneMode::kOff) return false;
  absl::Status status = dispatcher_.state().kernels.SetTunedChoice(
      const_cast<core::OpDef*>(bound.op), bound.key(), bound.bucket(), verdict.kernel,
      verdict.variant);
  if (!status.ok()) {
    core::Log(core::LogLevel::kWarning,
              absl::StrCat("autotune: the verdict for ", bound.op->full_name(),
                           " does not apply: ", status.message()));
  }
  return status.ok();
}

absl::StatusOr<TuneReport> Tuner::TuneBound(const core::BoundCall& bound,
                                            const core::DispatchSlot& slot,
                                            const TuneCallOptions& options) {
  core::RuntimeState& state = dispatcher_.state();
  const core::ShapeBucket bucket = bound.bucket();
  TuneReport report;
  report.candidates = SlotCandidates(slot);
  report.key = MakeKey(state, *bound.op, slot, bucket, *bound.device, report.candidates);
  report.key_hash = report.key.Hash();
  report.bucket = bucket.ToString();
  report.device = bound.device->label();

  auto cache_trouble = [&](const absl::Status& status) {
    if (!warned_cache_.exchange(true)) {
      core::Log(core::LogLevel::kWarning,
                absl::StrCat("autotune: the cache is unusable (", status.message(),
                             "); verdicts are kept in this process only"));
    }
  };
  if (!options.force) {
    absl::StatusOr<std::optional<Verdict>> cached = cache_->Lookup(report.key);
    if (!cached.ok()) {
      cache_trouble(cached.status());
    } else if (cached->has_value()) {
      report.verdict = **cached;
      report.applied = Apply(bound, report.verdict);
      return report;
    }
  }

  absl::Status declines = MarkDecliners(bound, report.candidates);
  if (!declines.ok()) return declines;
  std::vector<std::string> declined;
  for (const Candidate& c : report.candidates) {
    if (!c.declined.empty()) declined.push_back(absl::StrCat(c.Label(), ": ", c.declined));
  }
  if (declined.size() == report.candidates.size()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "every candidate declines this bucket (", absl::StrJoin(declined, "; "),
        "); calls of it run the op's decomposition or fail"));
  }
  absl::StatusOr<Measurement> measured = MeasureCandidates(
      dispatcher_, bound, slot, report.candidates, options.measure);
  if (!measured.ok()) return measured.status();
  report.measurement = *std::move(measured);
  const Measurement& m = *report.measurement;
  if (m.winner < 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no candidate passed the check against the reference (",
        m.reference, "): ", WhyNone(report.candidates, m)));
  }
  const Candidate& winner = report.candidates[m.winner];
  Verdict verdict;
  verdict.key = report.key;
  verdict.kernel = winner.kernel_name;
  verdict.variant = winner.variant;
  verdict.variant_name = winner.variant_name;
  verdict.time_ns = m.results[m.winner].median_ns;
  std::vector<std::string> labels;
  for (const Candidate& c : report.candidates) labels.push_back(c.Label());
  verdict.detail = DetailJson(labels, m);
  verdict.source = "measured";
  verdict.created = static_cast<int64_t>(std::time(nullptr));
  report.verdict = verdict;
  absl::StatusOr<TuningCache::Stored> stored = cache_->Insert(verdict);
  if (!stored.ok()) {
    cache_trouble(stored.status());
  } else {
    report.verdict = stored->verdict;
    report.written = stored->inserted;
    if (!stored->inserted) {
      report.note = options.force
                        ? "the cache keeps its earlier verdict (first writer wins)"
                        : "another process stored a verdict first; it is used";
    }
  }
  report.applied = Apply(bound, report.verdict);
  return report;
}

absl::StatusOr<TuneReport> Tuner::TuneCall(core::OpHandle op, const core::CallArgs& args,
                                           const TuneCallOptions& options) {
  if (!op.valid()) {
    return absl::InvalidArgumentError("op handle is empty; get one from FindOp");
  }
  const core::OpDef& def = *op.def();
  if (!def.live()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "op '", def.full_name(), "' was removed when its plugin was unloaded"));
  }
  core::RuntimeState& state = dispatcher_.state();
  core::CallTracker::Scope in_flight(state.calls);
  core::BoundCall bound;
  absl::Status status = core::BindCall(def, args.inputs, args.attrs, args.list_sizes, bound);
  if (!status.ok()) return status;
  const core::OpDispatch* table = def.dispatch();
  const core::DispatchSlot* slot = table != nullptr ? table->Find(bound.key()) : nullptr;
  if (def.kind() == core::OpKind::kView || slot == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "nothing to tune: ", def.full_name(), " has no kernel for these dtypes on ",
        bound.device->label(),
        def.kind() == core::OpKind::kView ? " (it is a view op)" : ""));
  }
  if (def.kind() == core::OpKind::kCollective) {
    // Timing one rank's collective alone would wait for peers that never
    // join the measurement.
    return absl::FailedPreconditionError(absl::StrCat(
        "nothing to tune: ", def.full_name(), " is a collective op; its "
        "engine (NCCL, Gloo) picks its own algorithms"));
  }
  TuningScope scope;
  return TuneBound(bound, *slot, options);
}

absl::StatusOr<ImportRecord> Tuner::Import(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<ParsedExport> parsed = ParseExport(*text);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", parsed.status().message()));
  }
  core::RuntimeState& state = dispatcher_.state();
  ImportRecord record;
  record.file = path;
  record.created = static_cast<int64_t>(std::time(nullptr));
  auto ignore = [&](std::string reason) {
    ++record.ignored;
    if (record.reasons.size() < 100) record.reasons.push_back(std::move(reason));
  };
  for (std::string& reason : parsed->rejected) ignore(std::move(reason));

  std::map<std::string, core::DeviceType*> here;  // fingerprint → device type
  for (core::DeviceType* type : state.devices.Types()) {
    if (!type->devices().empty()) here[FingerprintOf(*type->device(0)).Text()] = type;
  }
  std::vector<std::string> here_names;
  for (const auto& [fingerprint, type] : here) here_names.push_back(fingerprint);
  const std::string source =
      absl::StrCat("imported from ", std::filesystem::path(path).filename().string());
  for (Verdict& v : parsed->verdicts) {
    const std::string what = absl::StrCat(v.key.op, " (", v.key.dtypes, ") ", v.key.bucket);
    auto device = here.find(v.key.fingerprint);
    if (device == here.end()) {
      ignore(absl::StrCat(what, ": measured on another device (", v.key.fingerprint,
                          "); here: ", absl::StrJoin(here_names, "; ")));
      continue;
    }
    core::OpDef* op = state.ops.Find(v.key.op);
    if (op == nullptr || op->full_name() != v.key.op) {
      ignore(absl::StrCat(what, ": no op ", v.key.op, " here"));
      continue;
    }
    const core::DispatchKey key =
        core::MakeDispatchKey(device->second->id(), *ParseDTypesText(v.key.dtypes));
    const core::OpDispatch* table = op->dispatch();
    const core::DispatchSlot* slot = table != nullptr ? table->Find(key) : nullptr;
    if (slot == nullptr) {
      ignore(absl::StrCat(what, ": no kernel for these dtypes on ",
                          device->second->name(), " here"));
      continue;
    }
    const std::vector<Candidate> candidates = SlotCandidates(*slot);
    const std::string plugins = PluginsText(state, candidates);
    if (plugins != v.key.plugins) {
      ignore(absl::StrCat(what, ": plugins differ (file: ", v.key.plugins,
                          "; here: ", plugins, ")"));
      continue;
    }
    if (CandidateSetHash(candidates) != v.key.candidates) {
      ignore(absl::StrCat(what, ": the candidate kernels differ from the file's"));
      continue;
    }
    bool known = false;
    for (const Candidate& c : candidates) {
      known |= c.kernel_name == v.kernel && c.variant == v.variant &&
               c.variant_name == v.variant_name;
    }
    if (!known) {
      ignore(absl::StrCat(what, ": names ", v.kernel, " variant ", v.variant,
                          ", which is not a candidate here"));
      continue;
    }
    v.source = source;
    absl::StatusOr<TuningCache::Stored> stored = cache_->Insert(v);
    if (!stored.ok()) return stored.status();
    ++(stored->inserted ? record.imported : record.present);
  }
  absl::Status recorded = cache_->RecordImport(record);
  if (!recorded.ok()) return recorded;
  core::Log(core::LogLevel::kInfo,
            absl::StrCat("autotune: imported ", record.imported, " verdict(s) from ", path,
                         "; ", record.present, " already present, ", record.ignored,
                         " ignored"));
  if (mode_.load() != core::AutotuneMode::kOff) (void)FoldVerdicts();
  return record;
}

absl::StatusOr<size_t> Tuner::Export(const std::string& path, bool all_devices) {
  std::vector<Verdict> verdicts;
  if (all_devices) {
    absl::StatusOr<std::vector<Verdict>> rows = cache_->List("");
    if (!rows.ok()) return rows.status();
    verdicts = *std::move(rows);
  } else {
    for (core::DeviceType* type : dispatcher_.state().devices.Types()) {
      if (type->devices().empty()) continue;
      absl::StatusOr<std::vector<Verdict>> rows =
          cache_->List(FingerprintOf(*type->device(0)).Text());
      if (!rows.ok()) return rows.status();
      verdicts.insert(verdicts.end(), rows->begin(), rows->end());
    }
  }
  // The fusion compiler's verdicts stay where they were measured: their
  // key is a kernel's IR, which an importing process cannot check against
  // its plugins (docs/autotune.md, "Fused kernels").
  std::erase_if(verdicts, [](const Verdict& v) { return IsFusionCompilerVerdict(v.key); });
  const std::string temporary = absl::StrCat(path, ".tmp-", ::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << SerializeExport(verdicts);
    out.close();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      return absl::PermissionDeniedError(absl::StrCat("cannot write ", temporary));
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::filesystem::remove(temporary, error);
    return absl::PermissionDeniedError(absl::StrCat("cannot write ", path));
  }
  return verdicts.size();
}

core::TunerFactory MakeTunerFactory(TunerOptions options) {
  return [options](core::Dispatcher& dispatcher)
             -> absl::StatusOr<std::unique_ptr<core::RuntimeTuner>> {
    return std::unique_ptr<core::RuntimeTuner>(Tuner::Create(dispatcher, options));
  };
}

}  // namespace sy::autotune
