// sy::core::Runtime — the C++ API over the core, and what the C API wraps.
//
//   auto runtime = sy::core::Runtime::Create().value();
//   sy::core::Device* cpu = runtime->GetDevice("cpu").value();
//   sy::core::Tensor a = runtime->FromHost(*cpu, SY_DTYPE_F32, {2, 3}, data).value();
//   sy::core::OpHandle add = runtime->FindOp("add").value();   // once
//   std::vector<sy::core::Tensor> out = runtime->Call(add, {a, a}).value();
//
// Thread-safety: every method may be called from any thread concurrently,
// including plugin loading and kernel pinning while calls run.
// Errors: absl::Status with a message that says what was wrong, where (op,
// argument, device, plugin) and what to do. A failed call changes nothing.
#ifndef SWITCHYARD_DISPATCHER_RUNTIME_RUNTIME_H_
#define SWITCHYARD_DISPATCHER_RUNTIME_RUNTIME_H_

#include <memory>
#include <optional>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "dispatcher/dispatch/attr.h"
#include "dispatcher/memory/device.h"
#include "dispatcher/registry/load_record.h"
#include "dispatcher/loading/plugin_loader.h"
#include "dispatcher/registry/runtime_state.h"
#include "dispatcher/memory/tensor.h"
#include "nlohmann/json_fwd.hpp"

namespace sy::core {

class OpDef;

// A found op. Cheap to copy; valid for the runtime's life. If the plugin
// that defined the op is unloaded, calls through it fail cleanly.
class OpHandle {
 public:
  OpHandle() = default;
  explicit OpHandle(OpDef* def) : def_(def) {}
  OpDef* def() const { return def_; }
  bool valid() const { return def_ != nullptr; }

 private:
  OpDef* def_ = nullptr;
};

struct RuntimeOptions {
  LoaderOptions loader;
  // Run ops that have no kernel on the inputs' device on cpu, with copies.
  // Default: SWITCHYARD_CPU_FALLBACK=1 in the environment.
  std::optional<bool> cpu_fallback;
};

class Runtime {
 public:
  // Registers core op set v1 and its decompositions, then discovers and
  // loads plugins (plugin_loader.h). Fails if a plugin the user asked for
  // by name did not load; other plugin failures are only recorded.
  static absl::StatusOr<std::unique_ptr<Runtime>> Create(
      RuntimeOptions options = {});
  // Tensors must be released before the runtime; if some are still alive,
  // their devices are leaked (with a warning) instead of freed under them.
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // ---- Ops -----------------------------------------------------------------
  // By full name ("add.Tensor") or base name ("add" → its first overload).
  // NotFound suggests similarly named ops.
  absl::StatusOr<OpHandle> FindOp(absl::string_view name) const;

  // Calls an op. `inputs` has one entry per tensor argument of the schema
  // (an undefined Tensor for an omitted optional one), except that a
  // Tensor[] argument takes `list_sizes[0]` consecutive entries. `attrs`
  // gives the leading non-tensor arguments in schema order; the rest take
  // their defaults. Outputs are allocated on the inputs' device. The work is
  // queued on that device's stream; read results with ToHost.
  absl::StatusOr<std::vector<Tensor>> Call(
      OpHandle op, absl::Span<const Tensor> inputs,
      absl::Span<const Attr> attrs = {},
      absl::Span<const int32_t> list_sizes = {});

  // The same into caller-provided outputs, which must have exactly the
  // dtype, shape and device the op produces and must not share storage with
  // an input. Allocates nothing.
  absl::Status CallOut(OpHandle op, absl::Span<const Tensor> inputs,
                       absl::Span<const Attr> attrs,
                       absl::Span<const Tensor> outputs,
                       absl::Span<const int32_t> list_sizes = {});

  // Runs the op's decomposition even when a kernel would be chosen: to check
  // a decomposition against the reference kernels, or a backend's
  // primitives against its own composite kernels. FailedPrecondition when
  // the op has no decomposition or it does not apply to these inputs.
  absl::StatusOr<std::vector<Tensor>> CallDecomposed(
      OpHandle op, absl::Span<const Tensor> inputs,
      absl::Span<const Attr> attrs = {},
      absl::Span<const int32_t> list_sizes = {});

  // How a call with these inputs would run, without running it:
  // "kernel cpu::add.Tensor.f32.f32 (priority)", "view", "decomposition",
  // "cpu fallback", or the error the call would return.
  absl::StatusOr<std::string> Explain(OpHandle op,
                                      absl::Span<const Tensor> inputs,
                                      absl::Span<const Attr> attrs = {},
                                      absl::Span<const int32_t> list_sizes = {});

  // Forces a kernel ("plugin::name" or "name") for an op on a device type.
  absl::Status PinKernel(absl::string_view op, absl::string_view device_type,
                         absl::string_view kernel);
  absl::Status UnpinKernel(absl::string_view op, absl::string_view device_type);

  // ---- Devices and tensors -------------------------------------------------
  // "cpu", "cpu:0", "cuda:1". NotFound lists the devices there are.
  absl::StatusOr<Device*> GetDevice(absl::string_view spec) const;
  std::vector<Device*> Devices() const;

  absl::StatusOr<Tensor> Empty(Device& device, sy_dtype_t dtype,
                               absl::Span<const int64_t> shape);
  // Copies `bytes` (= numel × dtype size) from host memory into a new
  // tensor; `data` may be reused as soon as this returns.
  absl::StatusOr<Tensor> FromHost(Device& device, sy_dtype_t dtype,
                                  absl::Span<const int64_t> shape,
                                  const void* data, size_t bytes);
  // Waits for the tensor's pending work and copies it, densely in row-major
  // order, into `dst` (`bytes` must equal tensor.nbytes()).
  absl::Status ToHost(const Tensor& tensor, void* dst, size_t bytes);
  // A copy of `tensor` on `device` (the same tensor if already there).
  absl::StatusOr<Tensor> To(const Tensor& tensor, Device& device);
  absl::Status Synchronize(Device& device);

  // ---- Plugins -------------------------------------------------------------
  absl::Status LoadPlugin(const std::string& manifest_path);
  absl::Status UnloadPlugin(absl::string_view name);
  std::vector<LoadRecord> LoadRecords() const;

  // ---- Introspection -------------------------------------------------------
  // {"version", "abi", "plugins": [load records], "devices": […],
  //  "ops": [{"name", "schema", "kernels": […]}]}
  nlohmann::json Info() const;

  RuntimeState& state() { return *state_; }
  const RuntimeState& state() const { return *state_; }

 private:
  Runtime();

  std::unique_ptr<RuntimeState> state_;
};

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_RUNTIME_RUNTIME_H_
