// The op schema registry: every op the runtime knows, core and plugin-defined,
// each with its schema, shape function, kind, optional decomposition and the
// dispatch table snapshot that calls read.
#ifndef SWITCHYARD_DISPATCHER_REGISTRY_OP_REGISTRY_H_
#define SWITCHYARD_DISPATCHER_REGISTRY_OP_REGISTRY_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "dispatcher/ops/schema.h"
#include "dispatcher/ops/shape_context.h"
#include "switchyard/plugin.h"

namespace sy::core {

class Dispatcher;
class Tensor;
struct OpDispatch;  // kernel_table.h
class OpDef;

// What a decomposition receives: the call's tensors (flattened like kernel
// inputs; an omitted optional tensor spans zero entries) and its attributes
// with defaults filled in.
struct DecompositionArgs {
  absl::Span<const Tensor> inputs;
  absl::Span<const int32_t> input_offsets;
  absl::Span<const sy_attr_t> attrs;
  const OpDef* op = nullptr;  // the op being decomposed
};

// Computes an op from other ops (each call goes through the dispatcher, so
// it runs on whatever device the inputs are on). Returns the op's outputs.
using DecompositionFn = absl::StatusOr<std::vector<Tensor>> (*)(
    Dispatcher& dispatcher, const DecompositionArgs& args);

// Whether a decomposition applies to a call with these input metas
// (flattened like kernel inputs). A decomposition without one applies to
// every call; one that does not apply (a dtype promotion when the dtypes
// already agree) is skipped by resolution as if the op had none. Resolve
// asks before choosing the route, so `explain` and the call agree.
using DecompositionApplies = bool (*)(const OpDef& op,
                                      absl::Span<const sy_tensor_meta_t> inputs);

// Computes a view op's result from its input without running a kernel.
// `out` is the shape function's result. May fall back to copying (a reshape
// of a layout that cannot be viewed).
using ViewFn = absl::StatusOr<Tensor> (*)(Dispatcher& dispatcher, const Tensor& input,
                                          const ShapeContext& ctx,
                                          const sy_tensor_meta_t& out);

class OpDef {
 public:
  // Builds the attribute defaults; fails if a default cannot be expressed.
  OpDef(int32_t id, Schema schema, OpKind kind, CoreShapeFn core_shape,
        sy_shape_fn plugin_shape, void* plugin_shape_data, std::string owner);
  OpDef(const OpDef&) = delete;
  OpDef& operator=(const OpDef&) = delete;

  int32_t id() const { return id_; }
  // Unique in the process, never reused (an OpDef's address may be, by a
  // later runtime): what per-thread caches key an op by.
  uint64_t serial() const { return serial_; }
  const Schema& schema() const { return schema_; }
  const std::string& full_name() const { return full_name_; }
  OpKind kind() const { return kind_; }
  // "" for core ops, else the name of the plugin that registered the schema.
  const std::string& owner() const { return owner_; }
  int num_tensor_args() const { return static_cast<int>(schema_.tensor_args.size()); }
  int num_attrs() const { return static_cast<int>(schema_.attr_args.size()); }
  int num_outputs() const { return schema_.num_returns; }
  // Index of the Tensor[] argument among tensor args, or -1.
  int list_arg() const { return list_arg_; }

  // Default for attribute j (kind SY_ATTR_NONE with `attr_required(j)` when
  // the schema gives none). Pointers inside point into this OpDef.
  const sy_attr_t& default_attr(int j) const { return defaults_[j]; }
  bool attr_required(int j) const { return required_[j]; }

  // Runs the shape function (core or plugin) for a bound call.
  absl::Status InferShapes(const ShapeContext& ctx,
                           absl::Span<sy_tensor_meta_t> outputs) const;

  DecompositionFn decomposition() const {
    return decomposition_.load(std::memory_order_acquire);
  }
  // True when the op has a decomposition and it applies to these inputs.
  bool decomposition_applies(absl::Span<const sy_tensor_meta_t> inputs) const {
    if (decomposition() == nullptr) return false;
    DecompositionApplies applies = applies_.load(std::memory_order_acquire);
    return applies == nullptr || applies(*this, inputs);
  }
  // Set before the op is published (Runtime::Create), or by a single writer.
  void set_decomposition(DecompositionFn fn,
                         DecompositionApplies applies = nullptr) {
    applies_.store(applies, std::memory_order_release);
    decomposition_.store(fn, std::memory_order_release);
  }

  // Set once, before any call, for ops of kind kView.
  ViewFn view_fn() const { return view_fn_; }
  void set_view_fn(ViewFn fn) { view_fn_ = fn; }

  // How the core lays out outputs it allocates; set once, before any call.
  OutputLayout output_layout() const { return output_layout_; }
  void set_output_layout(OutputLayout layout) { output_layout_ = layout; }

  // The published dispatch snapshot (may be null: no kernels yet). Read
  // lock-free on every call; written only by KernelRegistry.
  const OpDispatch* dispatch() const {
    return dispatch_.load(std::memory_order_acquire);
  }
  void publish_dispatch(const OpDispatch* table) {
    dispatch_.store(table, std::memory_order_release);
  }

  // False once the plugin that owned this schema was unloaded; handles to
  // it then fail with a clear error instead of calling into freed code.
  bool live() const { return live_.load(std::memory_order_acquire); }
  void set_live(bool live) { live_.store(live, std::memory_order_release); }

 private:
  int32_t id_;
  uint64_t serial_;
  Schema schema_;
  std::string full_name_;
  OpKind kind_;
  CoreShapeFn core_shape_;
  sy_shape_fn plugin_shape_;
  void* plugin_shape_data_;
  std::string owner_;
  int list_arg_ = -1;
  std::vector<sy_attr_t> defaults_;
  std::vector<bool> required_;
  ViewFn view_fn_ = nullptr;
  OutputLayout output_layout_ = OutputLayout::kContiguous;
  std::atomic<DecompositionFn> decomposition_{nullptr};
  std::atomic<DecompositionApplies> applies_{nullptr};
  std::atomic<const OpDispatch*> dispatch_{nullptr};
  std::atomic<bool> live_{true};
};

// Owns every OpDef for the life of the runtime (addresses are stable, so an
// op handle is a plain pointer). Thread-safe.
class OpRegistry {
 public:
  // Registers core op set v1.
  absl::Status AddCoreOps();

  // Adds a schema. Fails with AlreadyExists if the full name is taken,
  // naming who registered it first. Plugin schemas must live in a
  // namespace (`vendor::op`) so they never collide with the core set.
  absl::StatusOr<OpDef*> Add(Schema schema, OpKind kind, CoreShapeFn core_shape,
                             sy_shape_fn plugin_shape, void* plugin_shape_data,
                             std::string owner);

  // By full name ("add.Tensor") or base name ("add": the first overload
  // registered under it). Null when unknown or no longer live.
  OpDef* Find(absl::string_view name) const;

  // Every live op, in registration order.
  std::vector<OpDef*> All() const;

  // Marks every op `owner` registered as dead (plugin unload).
  void Retire(absl::string_view owner);

 private:
  mutable std::mutex mu_;
  std::deque<std::unique_ptr<OpDef>> ops_;
  absl::flat_hash_map<std::string, OpDef*> by_full_name_;
  absl::flat_hash_map<std::string, OpDef*> by_base_name_;
};

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_REGISTRY_OP_REGISTRY_H_
