#include "fusion/backend/disk_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include <openssl/evp.h>

#include "absl/strings/str_cat.h"
#include "dispatcher/base/env.h"
#include "dispatcher/base/log.h"
#include "fusion/ir/serialize.h"

namespace sy::fusion {
namespace {

constexpr char kMagic[8] = {'S', 'Y', 'F', 'K', 1, 0, 0, 0};
constexpr size_t kHeader = 8 + 32 + 8 + 8 + 32;
// A kernel's IR and code are kilobytes to a few megabytes; anything much
// larger is not an entry of ours.
constexpr uint64_t kMaxEntry = uint64_t{1} << 30;

void RawSha256(absl::string_view a, absl::string_view b, unsigned char out[32]) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  unsigned int size = 0;
  EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
  EVP_DigestUpdate(ctx, a.data(), a.size());
  EVP_DigestUpdate(ctx, b.data(), b.size());
  EVP_DigestFinal_ex(ctx, out, &size);
  EVP_MD_CTX_free(ctx);
}

bool HexToRaw(const std::string& hex, unsigned char out[32]) {
  if (hex.size() != 64) return false;
  for (int i = 0; i < 32; ++i) {
    unsigned value = 0;
    for (int j = 0; j < 2; ++j) {
      const char c = hex[2 * i + j];
      value <<= 4;
      if (c >= '0' && c <= '9') value |= c - '0';
      else if (c >= 'a' && c <= 'f') value |= c - 'a' + 10;
      else return false;
    }
    out[i] = static_cast<unsigned char>(value);
  }
  return true;
}

// One warning per bad file and process: a cache folder full of foreign
// files must not flood the log on every compile.
void WarnOnce(const std::string& path, absl::string_view why) {
  static std::mutex mu;
  static auto* warned = new std::set<std::string>;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (!warned->insert(path).second) return;
  }
  core::Log(core::LogLevel::kWarning,
            absl::StrCat("fusion cache: ignoring ", path, " (", why,
                         "); the kernel is compiled again and the entry replaced"));
}

bool ReadFile(const std::string& path, std::string* out, bool* missing) {
  *missing = false;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *missing = errno == ENOENT;
    return false;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size < 0 ||
      static_cast<uint64_t>(st.st_size) > kMaxEntry) {
    ::close(fd);
    return false;
  }
  out->resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < out->size()) {
    const ssize_t n = ::read(fd, out->data() + done, out->size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  out->resize(done);
  return true;
}

}  // namespace

std::string Sha256Hex(absl::string_view bytes) {
  unsigned char raw[32];
  RawSha256(bytes, {}, raw);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex(64, '0');
  for (int i = 0; i < 32; ++i) {
    hex[2 * i] = kHex[raw[i] >> 4];
    hex[2 * i + 1] = kHex[raw[i] & 15];
  }
  return hex;
}

std::string DiskCache::DefaultDir() {
  if (std::optional<std::string> off = core::GetEnv("SWITCHYARD_FUSION_CACHE");
      off.has_value() && (*off == "off" || *off == "0")) {
    return "";
  }
  if (std::optional<std::string> dir = core::GetEnv("SWITCHYARD_CACHE_DIR");
      dir.has_value() && !dir->empty()) {
    return absl::StrCat(*dir, "/fusion");
  }
  if (std::optional<std::string> xdg = core::GetEnv("XDG_CACHE_HOME");
      xdg.has_value() && !xdg->empty()) {
    return absl::StrCat(*xdg, "/switchyard/fusion");
  }
  if (std::optional<std::string> home = core::GetEnv("HOME");
      home.has_value() && !home->empty()) {
    return absl::StrCat(*home, "/.cache/switchyard/fusion");
  }
  return "";
}

std::string DiskCache::PathOf(const std::string& key) const {
  return absl::StrCat(dir_, "/", key, ".syk");
}

std::optional<std::string> DiskCache::Read(const std::string& key,
                                           absl::string_view ir) const {
  if (!enabled()) return std::nullopt;
  const std::string path = PathOf(key);
  std::string data;
  bool missing = false;
  if (!ReadFile(path, &data, &missing)) {
    if (!missing) WarnOnce(path, "it cannot be read, or is over 1 GiB");
    return std::nullopt;
  }
  unsigned char want_key[32];
  if (!HexToRaw(key, want_key)) return std::nullopt;
  if (data.size() < kHeader || std::memcmp(data.data(), kMagic, 8) != 0) {
    WarnOnce(path, "not a Switchyard kernel cache entry, or cut short");
    return std::nullopt;
  }
  if (std::memcmp(data.data() + 8, want_key, 32) != 0) {
    WarnOnce(path, "its key does not match its name");
    return std::nullopt;
  }
  uint64_t ir_size = 0, binary_size = 0;
  std::memcpy(&ir_size, data.data() + 40, 8);
  std::memcpy(&binary_size, data.data() + 48, 8);
  if (ir_size > kMaxEntry || binary_size > kMaxEntry ||
      kHeader + ir_size + binary_size != data.size()) {
    WarnOnce(path, "its sizes do not match the file (cut short?)");
    return std::nullopt;
  }
  const absl::string_view stored_ir(data.data() + kHeader, ir_size);
  const absl::string_view binary(data.data() + kHeader + ir_size, binary_size);
  unsigned char sum[32];
  RawSha256(stored_ir, binary, sum);
  if (std::memcmp(sum, data.data() + 56, 32) != 0) {
    WarnOnce(path, "its checksum does not match its contents");
    return std::nullopt;
  }
  // The IR must be the kernel asked for: a parse of what is stored, not
  // just equal bytes, so an entry from a newer format reads as a miss.
  absl::StatusOr<FusedKernel> kernel = Deserialize(stored_ir);
  if (!kernel.ok()) {
    WarnOnce(path, kernel.status().message());
    return std::nullopt;
  }
  if (Serialize(*kernel) != ir) {
    WarnOnce(path, "it holds another kernel under this key");
    return std::nullopt;
  }
  return std::string(binary);
}

absl::Status DiskCache::Write(const std::string& key, absl::string_view ir,
                              absl::string_view binary) const {
  if (!enabled()) return absl::OkStatus();
  unsigned char raw_key[32];
  if (!HexToRaw(key, raw_key)) {
    return absl::InvalidArgumentError(absl::StrCat("fusion cache: bad key ", key));
  }
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) {
    return absl::UnavailableError(absl::StrCat("fusion cache: cannot create ",
                                               dir_, ": ", ec.message()));
  }
  std::string data(kMagic, 8);
  data.append(reinterpret_cast<const char*>(raw_key), 32);
  const uint64_t sizes[2] = {ir.size(), binary.size()};
  data.append(reinterpret_cast<const char*>(sizes), 16);
  unsigned char sum[32];
  RawSha256(ir, binary, sum);
  data.append(reinterpret_cast<const char*>(sum), 32);
  data.append(ir.data(), ir.size());
  data.append(binary.data(), binary.size());

  static std::atomic<uint64_t> counter{0};
  const std::string path = PathOf(key);
  const std::string tmp = absl::StrCat(
      path, ".tmp.", ::getpid(), ".",
      std::hash<std::thread::id>()(std::this_thread::get_id()) % 1000000, ".",
      counter.fetch_add(1));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::UnavailableError(absl::StrCat("fusion cache: cannot create ", tmp,
                                               ": ", std::strerror(errno)));
  }
  size_t done = 0;
  bool ok = true;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = false;
      break;
    }
    done += static_cast<size_t>(n);
  }
  // fsync before the rename: after a crash the name holds a whole entry or
  // the old one, never a file whose data never reached the disk.
  ok = ok && ::fsync(fd) == 0;
  const int saved = errno;
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const int why = ok ? errno : saved;
    ::unlink(tmp.c_str());
    return absl::UnavailableError(absl::StrCat("fusion cache: cannot write ", path,
                                               ": ", std::strerror(why)));
  }
  return absl::OkStatus();
}

}  // namespace sy::fusion
