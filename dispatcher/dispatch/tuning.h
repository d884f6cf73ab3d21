// The seam the autotuner (autotune/) hooks into. The dispatcher defines the
// interface and never names an implementation, so the dependency points
// down, as with graph capture (capture.h).
//
// While a hook is installed (RuntimeState::tuning) and tuning is active
// (KernelRegistry::SetTuningActive), every dispatch slot with more than one
// choice — several kernels, or a kernel with variants — reads its bucket
// table (Note [Bucket tables] in registry/kernel_table.h). A call whose
// bucket has no entry is handed to the hook before it runs the slot's
// current choice; the hook may measure the candidates (on this thread or
// another) and publish a verdict with KernelRegistry::SetTunedChoice, which
// later calls of the bucket then read. A slot with one choice never calls
// the hook, and a published verdict costs a call one hash lookup.
//
// A runtime holds its tuner as a RuntimeTuner (below), made by a
// TunerFactory that the layer above passes in RuntimeOptions (the api layer
// passes autotune::MakeTunerFactory), so the runtime owns and drives a tuner
// it cannot name (runtime/runtime.h).
#ifndef SWITCHYARD_DISPATCHER_DISPATCH_TUNING_H_
#define SWITCHYARD_DISPATCHER_DISPATCH_TUNING_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/string_view.h"
#include "dispatcher/registry/kernel_table.h"

namespace sy::core {

struct BoundCall;  // bind.h
class Dispatcher;  // dispatcher.h

// SWITCHYARD_AUTOTUNE: what a runtime's tuner does (docs/autotune.md).
//   kOff     no verdicts: every call goes by the static order.
//   kCached  (the default) the cache's verdicts for this machine are folded
//            into the dispatch tables; nothing is measured on a call.
//   kOn      as kCached, and a call of an untuned bucket is measured once
//            (by the first thread that meets it) and its verdict stored.
enum class AutotuneMode : uint8_t { kOff, kCached, kOn };

inline const char* AutotuneModeName(AutotuneMode mode) {
  switch (mode) {
    case AutotuneMode::kOff: return "off";
    case AutotuneMode::kCached: return "cached";
    case AutotuneMode::kOn: return "on";
  }
  return "?";
}

// "off", "cached" or "on" (any case); nullopt for anything else.
inline std::optional<AutotuneMode> ParseAutotuneMode(absl::string_view text) {
  const std::string lower = absl::AsciiStrToLower(text);
  if (lower == "off") return AutotuneMode::kOff;
  if (lower == "cached") return AutotuneMode::kCached;
  if (lower == "on") return AutotuneMode::kOn;
  return std::nullopt;
}

class TuningHook {
 public:
  virtual ~TuningHook() = default;

  // A call of (op, key, bucket) that has no verdict yet. `slot` is the
  // call's dispatch slot (its choices are the candidates, best first by the
  // static order). Called on the calling thread, before the call runs; may
  // block while it measures, but must not call back into this call's
  // outputs. Thread-safe: calls of many threads arrive at once (the hook
  // decides which thread tunes a bucket while the others run the current
  // choice). Errors are the hook's to log; the call runs regardless.
  virtual void OnUntunedCall(const BoundCall& bound,
                             const DispatchSlot& slot) = 0;
};

// A runtime's tuner as the runtime drives it. The runtime installs it as
// the hook (RuntimeState::tuning) and turns tuning on in the kernel registry
// only in mode kOn; the tuner itself keeps the verdicts in the registry in
// step with its mode and the loaded plugins.
class RuntimeTuner : public TuningHook {
 public:
  // Makes the registry hold the verdicts `mode` asks for: kOff clears every
  // verdict; kCached and kOn fold in the cache's verdicts that apply to the
  // loaded plugins and devices. Errors are the cache's (the tuner logs and
  // goes on without it); the mode is taken regardless.
  virtual absl::Status SetMode(AutotuneMode mode) = 0;
  virtual AutotuneMode mode() const = 0;
  // A plugin was loaded or unloaded: the candidate sets changed, so the
  // verdicts folded in before may no longer apply. Re-folds them.
  virtual void OnPluginsChanged() = 0;
};

// Makes a runtime's tuner once its plugins are loaded. The dispatcher
// outlives the tuner (the runtime destroys its tuner first).
using TunerFactory =
    std::function<absl::StatusOr<std::unique_ptr<RuntimeTuner>>(Dispatcher&)>;

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_DISPATCH_TUNING_H_
