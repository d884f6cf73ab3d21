// The C API fuzzer's process-wide state and its call checks: the contexts
// every input runs against (made once: creating one loads the cpu plugin,
// which would dominate the time per input), the registry's ops, and the
// error contract every call of the C API keeps.
#ifndef SWITCHYARD_TESTS_FUZZ_C_API_FUZZ_WORLD_H_
#define SWITCHYARD_TESTS_FUZZ_C_API_FUZZ_WORLD_H_

#include <cstdint>
#include <vector>

#include "switchyard/switchyard.h"

namespace sy_fuzz {

inline constexpr int32_t kMaxOutputs = 4;  // every core op has one or two

// Handles are 64-bit tokens (Note [Handle tokens], api/src/handle_table.h).
template <typename Handle>
Handle FromToken(uint64_t token) {
  return reinterpret_cast<Handle>(static_cast<uintptr_t>(token));
}
template <typename Handle>
uint64_t Token(Handle handle) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(handle));
}

// The error contract every call keeps (switchyard.h, "Errors"): a status
// within the enum, sy_last_error_code() equal to it, a message that is ""
// exactly on success. Aborts otherwise; returns `status`.
sy_status_code_t Checked(sy_status_code_t status, const char* call);
#define CALL(expr) ::sy_fuzz::Checked((expr), #expr)

// A call given a handle that cannot be valid must say INVALID_ARGUMENT.
void ExpectInvalid(sy_status_code_t status, const char* call);

struct OpEntry {
  sy_op_t handle = nullptr;
  sy_op_info_t info{};
  std::vector<int32_t> attr_kinds;  // sy_arg_kind_t of each attribute
};

// What lives for the whole process.
struct World {
  sy_context_t context = nullptr;  // over the cpu plugin only
  sy_device_handle_t cpu = nullptr;
  std::vector<OpEntry> ops;  // every op of the registry
  // Another live context: its handles are foreign to `context`.
  sy_context_t other = nullptr;
  sy_device_handle_t other_cpu = nullptr;
  sy_op_t other_op = nullptr;
  sy_tensor_t other_tensor = nullptr;
  // Handles of a destroyed context, stale: context, device, op, tensor.
  std::vector<uint64_t> stale;
  uint64_t baseline_allocated = 0;  // cpu's allocated bytes with no input

  // Whether a token names something alive (of the world, or in `owned`),
  // which a fuzzed call must not release or destroy.
  bool IsAlive(uint64_t token, const std::vector<sy_tensor_t>& owned) const;
};

// The world, made on first use. Its context loads SWITCHYARD_CPU_MANIFEST
// (this build's cpu plugin), or SWITCHYARD_FUZZ_CPU_MANIFEST when set.
World& GetWorld();

// The device allocator's bytes in use, after sy_device_empty_cache has
// dropped what the runtime keeps for reuse (causal attention masks).
uint64_t AllocatedBytes(sy_device_handle_t device);

}  // namespace sy_fuzz

#endif  // SWITCHYARD_TESTS_FUZZ_C_API_FUZZ_WORLD_H_
