#include "autotune/hash.h"

#include <openssl/evp.h>

#include <algorithm>

namespace sy::autotune {

std::string HashHex(absl::string_view text, size_t hex_chars) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  // EVP_Digest fails only when OpenSSL cannot allocate; an all-zero digest
  // then makes keys collide (a cache miss or a wrong-key hit that the
  // stored key fields still reject), never a crash.
  if (EVP_Digest(text.data(), text.size(), digest, &length, EVP_sha256(),
                 nullptr) != 1) {
    length = 32;
    for (unsigned i = 0; i < length; ++i) digest[i] = 0;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < length && out.size() < hex_chars; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 15]);
  }
  out.resize(std::min(out.size(), hex_chars));
  return out;
}

}  // namespace sy::autotune
