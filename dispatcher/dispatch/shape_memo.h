// Note [Shape memo]: a program calls the same op with the same shapes over
// and over, and shape functions are pure (plugin.h, sy_shape_fn: the host
// may reuse an earlier answer), so each thread remembers the last answer
// per op and Bind skips the shape function when the call's signature — the
// op, the layout of its tensor arguments, every input's dtype and shape, and
// every attribute's value — equals the remembered one. The table is
// direct-mapped by op serial (OpDef::serial, never reused), per thread (no
// lock, no sharing), and small; a signature longer than kMaxWords (many
// inputs, long int lists) or with a string attribute is not remembered.
// Only successes are remembered: an error is recomputed, so its message is
// always the shape function's own.
#ifndef SWITCHYARD_DISPATCHER_DISPATCH_SHAPE_MEMO_H_
#define SWITCHYARD_DISPATCHER_DISPATCH_SHAPE_MEMO_H_

#include <cstdint>
#include <cstring>

#include "absl/types/span.h"
#include "switchyard/plugin.h"

namespace sy::core {

// Appends one attribute's kind and value to a call's signature: `sink` is
// anything with Add(uint64_t) (ShapeKey here, the call plans' signature in
// call_plan.cc). False for what no signature holds: strings (compared by
// content, not worth it), communicators, unknown kinds, and int lists that
// are malformed or longer than kMaxListWords.
inline constexpr int64_t kMaxListWords = 64;
template <class Sink>
bool AppendAttrWords(const sy_attr_t& attr, Sink& sink) {
  sink.Add(static_cast<uint64_t>(static_cast<uint32_t>(attr.kind)));
  switch (attr.kind) {
    case SY_ATTR_NONE: return true;
    case SY_ATTR_INT: sink.Add(static_cast<uint64_t>(attr.value.i)); return true;
    case SY_ATTR_FLOAT: {
      uint64_t bits;
      std::memcpy(&bits, &attr.value.f, sizeof bits);
      sink.Add(bits);
      return true;
    }
    case SY_ATTR_BOOL: sink.Add(attr.value.b != 0 ? 1 : 0); return true;
    case SY_ATTR_DTYPE: sink.Add(static_cast<uint64_t>(attr.value.dtype)); return true;
    case SY_ATTR_INTS:
      if (attr.value.ints.size < 0 || attr.value.ints.size > kMaxListWords ||
          (attr.value.ints.size > 0 && attr.value.ints.data == nullptr)) {
        return false;
      }
      sink.Add(static_cast<uint64_t>(attr.value.ints.size));
      for (int64_t i = 0; i < attr.value.ints.size; ++i) {
        sink.Add(static_cast<uint64_t>(attr.value.ints.data[i]));
      }
      return true;
    default:
      return false;
  }
}

// The signature of one call, built as Bind walks it.
class ShapeKey {
 public:
  static constexpr int kMaxWords = 48;

  void Add(uint64_t word) {
    if (size_ < kMaxWords) words_[size_] = word;
    ++size_;
  }
  void AddMeta(const sy_tensor_meta_t& meta) {
    Add(uint64_t{meta.dtype} | uint64_t{static_cast<uint32_t>(meta.ndim)} << 32);
    for (int d = 0; d < meta.ndim; ++d) Add(static_cast<uint64_t>(meta.shape[d]));
  }
  // False for attributes the memo does not take (AppendAttrWords).
  bool AddAttr(const sy_attr_t& attr) { return AppendAttrWords(attr, *this); }
  // Too long, or holding an attribute it cannot take.
  void Spoil() { size_ = kMaxWords + 1; }
  bool usable() const { return size_ <= kMaxWords; }

  bool operator==(const ShapeKey& other) const {
    return size_ == other.size_ &&
           std::memcmp(words_, other.words_, size_ * sizeof(uint64_t)) == 0;
  }

 private:
  int size_ = 0;
  uint64_t words_[kMaxWords];
};

// The remembered outputs of (op serial, key) on this thread, copied to
// `outputs` (of the op's output count); false when there is none.
bool RecallShapes(uint64_t op_serial, const ShapeKey& key,
                  absl::Span<sy_tensor_meta_t> outputs);

// Remembers the outputs of (op serial, key) on this thread.
void RememberShapes(uint64_t op_serial, const ShapeKey& key,
                    absl::Span<const sy_tensor_meta_t> outputs);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_DISPATCH_SHAPE_MEMO_H_
