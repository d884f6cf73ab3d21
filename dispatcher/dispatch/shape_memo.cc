#include "dispatcher/dispatch/shape_memo.h"

#include <algorithm>
#include <memory>

namespace sy::core {
namespace {

constexpr int kEntries = 64;       // per thread, direct-mapped by op serial
constexpr int kMaxOutputs = 4;     // ops with more are not remembered

struct Entry {
  uint64_t op_serial = 0;          // 0: empty
  ShapeKey key;
  int num_outputs = 0;
  sy_tensor_meta_t outputs[kMaxOutputs];
};

// Allocated on a thread's first call, freed when the thread ends.
Entry* Table() {
  thread_local std::unique_ptr<Entry[]> table(new Entry[kEntries]);
  return table.get();
}

}  // namespace

bool RecallShapes(uint64_t op_serial, const ShapeKey& key,
                  absl::Span<sy_tensor_meta_t> outputs) {
  const Entry& e = Table()[op_serial % kEntries];
  if (e.op_serial != op_serial || e.num_outputs != static_cast<int>(outputs.size()) ||
      !(e.key == key)) {
    return false;
  }
  std::copy(e.outputs, e.outputs + e.num_outputs, outputs.begin());
  return true;
}

void RememberShapes(uint64_t op_serial, const ShapeKey& key,
                    absl::Span<const sy_tensor_meta_t> outputs) {
  if (!key.usable() || outputs.size() > kMaxOutputs) return;
  Entry& e = Table()[op_serial % kEntries];
  e.op_serial = op_serial;
  e.key = key;
  e.num_outputs = static_cast<int>(outputs.size());
  std::copy(outputs.begin(), outputs.end(), e.outputs);
}

}  // namespace sy::core
