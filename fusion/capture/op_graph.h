// The captured op graph: what a capture (recorder.h) writes and every pass
// of the compiler (compile/) reads and rewrites.
//
// Note [Buffers and values]: ops produce *buffers* (one fresh, dense
// tensor per op output, laid out as the kernel writes it: contiguous, or
// for attention [B, L, H, E] under its [B, H, L, E] shape — Note [Attention
// output layout]; the node's output value carries that layout); graph inputs and constants (real tensors the
// captured code used without declaring them inputs) are buffers too. An op
// reads *values*: a layout — dtype, shape, strides, byte offset from the
// buffer's origin — over one buffer. Views (reshape, transpose, expand, …)
// are therefore not ops of the graph: a view is a value with another layout
// over the same buffer, exactly as the core makes it. At replay each
// buffer becomes a real tensor and each value a view of it (Tensor::View),
// so a graph input must come back with the layout it was captured with
// (compile/plan.h checks that).
//
// Nodes are kept in record order, which is a topological order: a node
// reads only buffers of inputs, constants and earlier nodes.
//
// Thread-safety: a value type; not synchronized.
#ifndef SWITCHYARD_FUSION_CAPTURE_OP_GRAPH_H_
#define SWITCHYARD_FUSION_CAPTURE_OP_GRAPH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "dispatcher/dispatch/resolve.h"
#include "dispatcher/memory/device.h"
#include "dispatcher/memory/tensor.h"
#include "dispatcher/registry/op_registry.h"
#include "switchyard/plugin.h"

namespace sy::fusion {

// An op's attributes, owning the lists and strings they point at (a
// call's sy_attr_t only borrows them). Copies re-point their pointers.
class OwnedAttrs {
 public:
  OwnedAttrs() = default;
  explicit OwnedAttrs(absl::Span<const sy_attr_t> attrs);
  OwnedAttrs(const OwnedAttrs& other) { *this = other; }
  OwnedAttrs& operator=(const OwnedAttrs& other);
  OwnedAttrs(OwnedAttrs&& other) noexcept { *this = other; }
  OwnedAttrs& operator=(OwnedAttrs&& other) noexcept { return *this = other; }

  absl::Span<const sy_attr_t> span() const { return attrs_; }
  size_t size() const { return attrs_.size(); }
  const sy_attr_t& operator[](size_t i) const { return attrs_[i]; }
  // "[1e-05, [-1], True]": for descriptions and as part of CSE keys.
  std::string ToString() const;

 private:
  void Repoint();
  std::vector<sy_attr_t> attrs_;
  std::vector<std::vector<int64_t>> lists_;  // one per attribute
  std::vector<std::string> strings_;         // one per attribute
};

struct Buffer {
  enum class Kind : uint8_t { kInput, kConstant, kProduced };
  Kind kind = Kind::kProduced;
  int input = -1;   // kInput: which graph input
  int node = -1;    // kProduced: the node and its output index
  int output = -1;
  core::Tensor constant;  // kConstant: the real tensor, kept alive
  core::Device* device = nullptr;
  sy_tensor_meta_t meta{};  // kProduced: the op's output (its layout: the node's output value)
};

struct Value {
  int buffer = -1;
  sy_tensor_meta_t meta{};
  int64_t strides[SY_MAX_RANK] = {};
  uint64_t byte_offset = 0;  // from the buffer's origin (Note above)

  absl::Span<const int64_t> shape() const {
    return {meta.shape, static_cast<size_t>(meta.ndim)};
  }
  absl::Span<const int64_t> stride_span() const {
    return {strides, static_cast<size_t>(meta.ndim)};
  }
  int64_t numel() const;
  // The contiguous layout of its shape at offset 0: what an op output is.
  bool is_identity() const;
};

struct Node {
  const core::OpDef* op = nullptr;
  // The defined input tensors, flattened like a kernel's inputs (an omitted
  // optional tensor spans nothing); offsets[k] is where tensor argument k
  // starts, with one more entry at the end (BoundCall::offsets).
  std::vector<int> inputs;  // values
  std::vector<int32_t> offsets;
  std::vector<int32_t> list_sizes;
  OwnedAttrs attrs;          // every attribute, defaults filled in
  std::vector<int> outputs;  // the node's buffers as it writes them (dense)
  core::Device* device = nullptr;
  // How the call resolved when it was recorded ("kernel cpu::add… ").
  core::Route route = core::Route::kKernel;
  std::string resolution;
  bool dead = false;  // removed by a pass; ignored everywhere

  const std::string& name() const { return op->full_name(); }
};

struct GraphInput {
  int buffer = -1;
  std::string name;  // "x", or "input 0" when none was given
  core::Device* device = nullptr;
  sy_tensor_meta_t meta{};
  int64_t strides[SY_MAX_RANK] = {};
  bool contiguous = true;
};

struct GraphOutput {
  int value = -1;
  std::string name;
};

class OpGraph {
 public:
  std::vector<Buffer> buffers;
  std::vector<Value> values;
  std::vector<Node> nodes;
  std::vector<GraphInput> inputs;
  std::vector<GraphOutput> outputs;

  // Adds `value` unless an equal one exists; returns its index.
  int AddValue(const Value& value);

  // The node that produces `value`'s buffer, or -1 (input, constant).
  int Producer(int value) const;

  // Live nodes that read each buffer (by index), from `nodes`.
  std::vector<std::vector<int>> ConsumersByBuffer() const;

  int num_live_nodes() const;

  // Whether `value` is its buffer as written: the producing node's output
  // value (whatever its layout), or an input's or constant's contiguous
  // layout. Descriptions mark the others "(view)".
  bool AsWritten(int value) const;
  // The strides `buffer` is written with, over its meta's shape: the
  // producing node's output value's (contiguous, channels-last or
  // attention's [B, L, H, E]), or an input's or constant's contiguous ones.
  void WrittenStrides(int buffer, int64_t strides[SY_MAX_RANK]) const;

  // "x: f32[4, 8] on cpu:0".
  std::string DescribeValue(int value) const;

 private:
  absl::flat_hash_map<std::string, int> value_index_;
};

// "f32[4, 8]".
std::string MetaText(const sy_tensor_meta_t& meta);

// The real tensor a value is at replay, over `buffer_tensor` (its buffer's
// tensor): a view with the value's layout. `origin` is the buffer's origin
// in bytes (a graph input's own byte_offset; 0 otherwise).
core::Tensor ViewOf(const Value& value, const core::Tensor& buffer_tensor,
                    uint64_t origin);

}  // namespace sy::fusion

#endif  // SWITCHYARD_FUSION_CAPTURE_OP_GRAPH_H_
