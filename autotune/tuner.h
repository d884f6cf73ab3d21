// sy::autotune::Tuner — a runtime's autotuner (docs/autotune.md). It is the
// runtime's RuntimeTuner (dispatcher/dispatch/tuning.h): the runtime makes it
// through MakeTunerFactory() (the api layer passes that in RuntimeOptions),
// owns it, and switches its mode; this header is also the C++ API that the
// C API, Python and `switchyard tune` wrap.
//
//   core::RuntimeOptions options;
//   options.tuner_factory = autotune::MakeTunerFactory();
//   auto runtime = core::Runtime::Create(options).value();      // mode: cached
//   auto* tuner = static_cast<autotune::Tuner*>(runtime->tuner());
//   autotune::TuneReport r = tuner->TuneCall(matmul, args).value();
//   // r.verdict.kernel now runs calls of that bucket; it is in the cache.
//
// Modes (SWITCHYARD_AUTOTUNE, RuntimeOptions::autotune, per runtime with
// Runtime::SetAutotuneMode):
//   off     no verdicts; nothing is read or measured.
//   cached  the cache's verdicts for this machine and these plugins are
//           folded into the dispatch tables when the runtime starts (and
//           again when plugins come or go); no call is ever measured.
//   on      as cached, and the first call of an untuned bucket is measured
//           on the thread that makes it (that call waits, the budget of
//           TunerOptions::measure bounds it); calls of that bucket on other
//           threads meanwhile run the current choice. The verdict is
//           written to the cache at once and used by every later call.
//
// Thread-safety: every method is thread-safe. TuneCall and the hook may run
// on many threads at once; a key is measured by one of them.
#ifndef SWITCHYARD_AUTOTUNE_TUNER_H_
#define SWITCHYARD_AUTOTUNE_TUNER_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "autotune/cache.h"
#include "autotune/candidates.h"
#include "autotune/measure.h"
#include "autotune/tuning_key.h"
#include "dispatcher/dispatch/dispatcher.h"
#include "dispatcher/dispatch/tuning.h"

namespace sy::autotune {

struct TunerOptions {
  // The cache's folder; default DefaultCacheDir() (SWITCHYARD_CACHE_DIR,
  // $XDG_CACHE_HOME/switchyard, ~/.cache/switchyard). The file in it is
  // kCacheFileName.
  std::optional<std::string> cache_dir;
  // Keep verdicts in memory only, never touching a file (tests, benchmarks).
  bool in_memory = false;
  // How calls are measured in mode "on" (TuneCall takes its own).
  MeasureOptions measure;
};

// What tuning one key found.
struct TuneReport {
  TuningKey key;
  std::string key_hash;
  std::string bucket;                  // the bucket as messages show it
  std::string device;                  // "cpu:0"
  std::vector<Candidate> candidates;   // in the fixed order
  std::optional<Measurement> measurement;  // absent when the cache had it
  Verdict verdict;       // the verdict in effect (the cache's)
  bool written = false;  // this measurement's verdict is the cache's now
  bool applied = false;  // folded into the dispatch table
  std::string note;      // e.g. "another process stored a verdict first"
};

struct TuneCallOptions {
  // Measure even when the cache holds a verdict; the cache keeps its first
  // verdict (first writer wins), so a forced measurement only reports.
  bool force = false;
  MeasureOptions measure;
};

class Tuner : public core::RuntimeTuner {
 public:
  // A tuner over `dispatcher` (the runtime that owns it), in mode kOff until
  // the runtime sets one. Never fails for want of a cache: without a folder
  // it keeps verdicts in memory (and says so at info level).
  static std::unique_ptr<Tuner> Create(core::Dispatcher& dispatcher,
                                       TunerOptions options);
  ~Tuner() override;

  // ---- core::RuntimeTuner ----------------------------------------------------
  void OnUntunedCall(const core::BoundCall& bound,
                     const core::DispatchSlot& slot) override;
  absl::Status SetMode(core::AutotuneMode mode) override;
  core::AutotuneMode mode() const override;
  void OnPluginsChanged() override;

  // ---- Tuning on request ---------------------------------------------------
  // Tunes the bucket of the call `args` of `op` (as Dispatcher::Execute
  // takes it; outputs and route are ignored) now, on this thread: the
  // cache's verdict when there is one (unless options.force), else
  // measures, stores and — unless the mode is off — folds the verdict in.
  // Errors: the call does not bind (InvalidArgument, as a call would say);
  // NotFound when no kernel serves its dispatch key (nothing to tune);
  // FailedPrecondition when every candidate declines the bucket or none
  // matches the reference (the report's notes in the message).
  absl::StatusOr<TuneReport> TuneCall(core::OpHandle op, const core::CallArgs& args,
                                      const TuneCallOptions& options = {});

  // ---- The cache -----------------------------------------------------------
  // Reads an export (export_format.h) and stores each verdict that applies
  // here: same device fingerprint as one of this runtime's device types,
  // same plugins and candidate set, a kernel and variant that exist. Others
  // are ignored, each with a reason in the record, which the cache keeps.
  // Verdicts the cache already holds for a key are kept. Errors: the file
  // cannot be read or is not an export.
  absl::StatusOr<ImportRecord> Import(const std::string& path);
  // Writes the verdicts for this runtime's devices (all of them with
  // `all_devices`) to `path` (atomically: a temporary file, then rename).
  // Returns how many.
  absl::StatusOr<size_t> Export(const std::string& path, bool all_devices = false);
  absl::StatusOr<CacheSummary> Summary() { return cache_->Summarize(); }
  absl::StatusOr<std::string> Verify() { return cache_->Verify(); }
  TuningCache& cache() { return *cache_; }

  // Verdicts folded into the dispatch tables at the last fold, and those in
  // the cache for this machine that no longer apply (plugins changed).
  size_t verdicts_applied() const { return applied_.load(); }
  size_t verdicts_stale() const { return stale_.load(); }

 private:
  Tuner(core::Dispatcher& dispatcher, TunerOptions options, std::string path);

  // Reads the cache's verdicts for every device type and publishes those
  // that apply (replacing all earlier verdicts).
  absl::Status FoldVerdicts();
  absl::StatusOr<TuneReport> TuneBound(const core::BoundCall& bound,
                                       const core::DispatchSlot& slot,
                                       const TuneCallOptions& options);
  bool Apply(const core::BoundCall& bound, const Verdict& verdict);

  core::Dispatcher& dispatcher_;
  const TunerOptions options_;
  std::unique_ptr<TuningCache> cache_;
  std::atomic<core::AutotuneMode> mode_{core::AutotuneMode::kOff};
  std::atomic<size_t> applied_{0};
  std::atomic<size_t> stale_{0};
  std::atomic<bool> warned_cache_{false};

  // Buckets the hook has taken (tuned, being tuned, or given up on), so each
  // is measured once per runtime.
  using SeenKey = std::tuple<const core::OpDef*, core::DispatchKey, core::ShapeBucket>;
  std::mutex seen_mu_;
  absl::flat_hash_set<SeenKey> seen_;
};

// The factory a runtime calls to make its tuner (RuntimeOptions::tuner_factory).
core::TunerFactory MakeTunerFactory(TunerOptions options = {});

}  // namespace sy::autotune

#endif  // SWITCHYARD_AUTOTUNE_TUNER_H_
