// A byte form of the fused-kernel IR: what the disk cache stores beside a
// compiled kernel and hashes into its key. Little-endian, versioned, and
// canonical: Serialize(Deserialize(b)) == b for every accepted b, which the
// fuzz target (tests/fuzz/fused_ir_fuzzer.cc) checks.
//
// Thread-safety: pure functions.
#ifndef SWITCHYARD_FUSION_IR_SERIALIZE_H_
#define SWITCHYARD_FUSION_IR_SERIALIZE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "fusion/ir/fused_ir.h"

namespace sy::fusion {

// The first bytes of every serialized kernel: "SYFI" and format version 1.
inline constexpr char kFusedIrMagic[] = "SYFI\x01\x00\x00\x00";

std::string Serialize(const FusedKernel& kernel);

// Parses bytes from Serialize. Never trusts them: every length is checked
// against what is left, counts are capped, and the result passes Validate.
// InvalidArgument says which field is wrong and at which byte offset.
absl::StatusOr<FusedKernel> Deserialize(absl::string_view bytes);

}  // namespace sy::fusion

#endif  // SWITCHYARD_FUSION_IR_SERIALIZE_H_
