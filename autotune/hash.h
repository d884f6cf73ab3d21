// Stable hashes for the cache: the same text hashes alike in every process,
// build and machine (absl::Hash is seeded per process, so it cannot serve).
#ifndef SWITCHYARD_AUTOTUNE_HASH_H_
#define SWITCHYARD_AUTOTUNE_HASH_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace sy::autotune {

// The first `hex_chars` (<= 64) lowercase hex digits of SHA-256(text).
std::string HashHex(absl::string_view text, size_t hex_chars = 32);

}  // namespace sy::autotune

#endif  // SWITCHYARD_AUTOTUNE_HASH_H_
