#include "sdk/conformance/tool/device_checks.h"

#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"
#include "sdk/conformance/tool/bare_host.h"
#include "sdk/conformance/tool/child_process.h"
#include "switchyard/plugin.h"

namespace sy::conformance {
namespace {

// What the child prints before its JSON line, so that anything a plugin
// writes to stdout cannot be mistaken for the result.
constexpr char kResultMarker[] = "switchyard-conformance device checks: ";
// A device table's checks take well under a second on a working device;
// this bounds a hang.
constexpr double kChildTimeoutSeconds = 300;

// Big enough to span several pages and not a multiple of anything a
// plugin might round to; the offsets make every copy start and end
// unaligned.
constexpr size_t kBytes = (1 << 16) + 37;
constexpr size_t kSrcOffset = 3, kDstOffset = 5, kTrim = 11;

// A device table's slots, each checked through BareHost::Check so that
// errors name the slot and carry the plugin's message and code.
class DeviceApi {
 public:
  DeviceApi(const sy_device_api_t& api, int32_t index)
      : api_(api), self_(api.device_data), index_(index),
        type_(api.device_type != nullptr ? api.device_type : "?") {}

  absl::Status Allocate(size_t size, size_t alignment, void** out) {
    *out = nullptr;
    return Check(api_.allocate(self_, index_, size, alignment, out),
                 absl::StrCat("allocate(", size, ", ", alignment, ")"));
  }
  absl::Status Free(void* ptr) {
    return Check(api_.deallocate(self_, index_, ptr), "deallocate");
  }
  absl::Status Copy(sy_stream_t stream, void* dst, const void* src, size_t size,
                    sy_copy_kind_t kind) {
    return Check(api_.memcpy_async(self_, stream, dst, src, size, kind),
                 absl::StrCat("memcpy_async(", KindName(kind), ", ", size, " bytes)"));
  }
  absl::Status Memset(sy_stream_t stream, void* dst, int value, size_t size) {
    return Check(api_.memset_async(self_, stream, dst, value, size),
                 absl::StrCat("memset_async(", value, ", ", size, " bytes)"));
  }
  absl::Status Sync(sy_stream_t stream) {
    return Check(api_.stream_synchronize(self_, stream), "stream_synchronize");
  }
  absl::Status CreateStream(sy_stream_t* out) {
    *out = nullptr;
    return Check(api_.stream_create(self_, index_, out), "stream_create");
  }
  absl::Status DestroyStream(sy_stream_t stream) {
    return Check(api_.stream_destroy(self_, stream), "stream_destroy");
  }
  absl::Status CreateEvent(sy_event_t* out) {
    *out = nullptr;
    return Check(api_.event_create(self_, index_, out), "event_create");
  }
  absl::Status DestroyEvent(sy_event_t event) {
    return Check(api_.event_destroy(self_, event), "event_destroy");
  }
  absl::Status Record(sy_event_t event, sy_stream_t stream) {
    return Check(api_.event_record(self_, event, stream), "event_record");
  }
  absl::Status SyncEvent(sy_event_t event) {
    return Check(api_.event_synchronize(self_, event), "event_synchronize");
  }
  absl::Status Wait(sy_stream_t stream, sy_event_t event) {
    return Check(api_.stream_wait_event(self_, stream, event), "stream_wait_event");
  }
  absl::Status Elapsed(sy_event_t start, sy_event_t end, float* ms) {
    return Check(api_.event_elapsed_ms(self_, start, end, ms), "event_elapsed_ms");
  }
  absl::Status Properties(sy_device_properties_t* out) {
    return Check(api_.get_properties(self_, index_, out), "get_properties");
  }

  static const char* KindName(sy_copy_kind_t kind) {
    switch (kind) {
      case SY_COPY_HOST_TO_DEVICE: return "host to device";
      case SY_COPY_DEVICE_TO_HOST: return "device to host";
      case SY_COPY_DEVICE_TO_DEVICE: return "device to device";
    }
    return "?";
  }

  // The stream the checks use as the device's own (the core's default
  // stream), made by Open and destroyed by the destructor.
  sy_stream_t stream() const { return stream_; }
  absl::Status Open() { return CreateStream(&stream_); }
  ~DeviceApi() {
    if (stream_ != nullptr) (void)DestroyStream(stream_);
  }

 private:
  absl::Status Check(sy_error_t* error, const std::string& what) {
    return BareHost::Check(error, absl::StrCat("device type '", type_, "': ", what));
  }

  const sy_device_api_t& api_;
  void* self_;
  int32_t index_;
  std::string type_;
  sy_stream_t stream_ = nullptr;
};

// Device memory that is freed whatever happens.
class Buffer {
 public:
  explicit Buffer(DeviceApi& api) : api_(api) {}
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() {
    if (ptr_ != nullptr) (void)api_.Free(ptr_);
  }
  absl::Status Allocate(size_t size) { return api_.Allocate(size, 64, &ptr_); }
  char* get() const { return static_cast<char*>(ptr_); }

 private:
  DeviceApi& api_;
  void* ptr_ = nullptr;
};

std::vector<uint8_t> RandomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> bytes(n);
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
  return bytes;
}

// "" when equal; else where the first difference is.
std::string Compare(const std::vector<uint8_t>& got,
                    const std::vector<uint8_t>& want, const std::string& what) {
  for (size_t i = 0; i < want.size(); ++i) {
    if (got[i] != want[i]) {
      return absl::StrFormat(
          "%s: byte %d of %d is 0x%02x, expected 0x%02x", what, i, want.size(),
          got[i], want[i]);
    }
  }
  return "";
}

// Runs `body`, which returns "" or what went wrong (a Status error becomes
// its message), and records the check.
template <class Body>
void Run(Report& report, const std::string& section, const std::string& name,
         const std::string& passed_detail, Body body) {
  std::string problem = body();
  if (problem.empty()) report.Pass(section, name, passed_detail);
  else report.Fail(section, name, problem);
}

#define SY_CHECK_OK(expr)                               \
  do {                                                  \
    absl::Status _status = (expr);                      \
    if (!_status.ok()) return std::string(_status.message()); \
  } while (0)

std::string CheckAllocFree(DeviceApi& api) {
  for (size_t size : {size_t{1}, size_t{64}, size_t{4096 + 13}, size_t{1} << 20}) {
    // plugin.h promises a power of two >= 64 and names no maximum; the
    // host passes 64 today. 256 is what GPU allocators give anyway.
    for (size_t alignment : {size_t{64}, size_t{256}}) {
      void* ptr = nullptr;
      SY_CHECK_OK(api.Allocate(size, alignment, &ptr));
      if (ptr == nullptr) {
        return absl::StrCat("allocate(", size, ", ", alignment,
                            ") succeeded but returned NULL");
      }
      const bool aligned = reinterpret_cast<uintptr_t>(ptr) % alignment == 0;
      SY_CHECK_OK(api.Free(ptr));
      if (!aligned) {
        return absl::StrCat("allocate(", size, ", ", alignment, ") returned ",
                            absl::StrFormat("%p", ptr), ", not aligned to ",
                            alignment, " bytes");
      }
    }
  }
  return "";
}

std::string CheckCopies(DeviceApi& api, uint64_t seed) {
  Buffer a(api), b(api);
  SY_CHECK_OK(a.Allocate(kBytes));
  SY_CHECK_OK(b.Allocate(kBytes));
  const sy_stream_t s = api.stream();
  const std::vector<uint8_t> want = RandomBytes(kBytes, seed);
  std::vector<uint8_t> got(kBytes, 0);
  SY_CHECK_OK(api.Copy(s, a.get(), want.data(), kBytes, SY_COPY_HOST_TO_DEVICE));
  SY_CHECK_OK(api.Copy(s, b.get(), a.get(), kBytes, SY_COPY_DEVICE_TO_DEVICE));
  SY_CHECK_OK(api.Copy(s, got.data(), b.get(), kBytes, SY_COPY_DEVICE_TO_HOST));
  SY_CHECK_OK(api.Sync(s));
  std::string diff = Compare(got, want, "host → device → device → host");
  if (!diff.empty()) return diff;

  // Odd offsets on both sides: what views and slices make of storage.
  const size_t n = kBytes - kTrim;
  const std::vector<uint8_t> more = RandomBytes(kBytes, seed + 1);
  SY_CHECK_OK(api.Copy(s, a.get() + kDstOffset, more.data() + kSrcOffset, n,
                       SY_COPY_HOST_TO_DEVICE));
  SY_CHECK_OK(api.Copy(s, b.get() + kSrcOffset, a.get() + kDstOffset, n,
                       SY_COPY_DEVICE_TO_DEVICE));
  std::vector<uint8_t> back(n, 0);
  SY_CHECK_OK(api.Copy(s, back.data(), b.get() + kSrcOffset, n,
                       SY_COPY_DEVICE_TO_HOST));
  SY_CHECK_OK(api.Sync(s));
  return Compare(back,
                 std::vector<uint8_t>(more.begin() + kSrcOffset,
                                      more.begin() + kSrcOffset + n),
                 "copies at odd offsets");
}

std::string CheckMemset(DeviceApi& api, uint64_t seed) {
  Buffer a(api);
  SY_CHECK_OK(a.Allocate(kBytes));
  const sy_stream_t s = api.stream();
  std::vector<uint8_t> want(kBytes, 0xA5);
  SY_CHECK_OK(api.Memset(s, a.get(), 0xA5, kBytes));
  // A middle range, unaligned, must leave its neighbours alone.
  const size_t start = 1000 + seed % 97, length = 3001;
  SY_CHECK_OK(api.Memset(s, a.get() + start, 0x3C, length));
  std::fill(want.begin() + start, want.begin() + start + length, 0x3C);
  std::vector<uint8_t> got(kBytes, 0);
  SY_CHECK_OK(api.Copy(s, got.data(), a.get(), kBytes, SY_COPY_DEVICE_TO_HOST));
  SY_CHECK_OK(api.Sync(s));
  return Compare(got, want, "after memset 0xA5 of all and 0x3C of a middle range");
}

std::string CheckStreams(DeviceApi& api, uint64_t seed) {
  sy_stream_t stream = nullptr;
  SY_CHECK_OK(api.CreateStream(&stream));
  if (stream == nullptr) return "stream_create succeeded but returned NULL";
  absl::Cleanup destroy = [&] { (void)api.DestroyStream(stream); };
  Buffer a(api);
  SY_CHECK_OK(a.Allocate(kBytes));
  const std::vector<uint8_t> want = RandomBytes(kBytes, seed + 2);
  std::vector<uint8_t> got(kBytes, 0);
  SY_CHECK_OK(api.Copy(stream, a.get(), want.data(), kBytes, SY_COPY_HOST_TO_DEVICE));
  SY_CHECK_OK(api.Copy(stream, got.data(), a.get(), kBytes, SY_COPY_DEVICE_TO_HOST));
  SY_CHECK_OK(api.Sync(stream));
  std::string diff = Compare(got, want, "a round trip on a second stream");
  if (!diff.empty()) return diff;
  std::move(destroy).Cancel();
  SY_CHECK_OK(api.DestroyStream(stream));
  return "";
}

std::string CheckEvents(DeviceApi& api, uint64_t seed) {
  sy_event_t start = nullptr, end = nullptr, never = nullptr, never2 = nullptr;
  sy_stream_t other = nullptr;
  absl::Cleanup release = [&] {
    for (sy_event_t e : {start, end, never, never2}) {
      if (e != nullptr) (void)api.DestroyEvent(e);
    }
    if (other != nullptr) (void)api.DestroyStream(other);
  };
  SY_CHECK_OK(api.CreateEvent(&start));
  SY_CHECK_OK(api.CreateEvent(&end));
  SY_CHECK_OK(api.CreateEvent(&never));
  SY_CHECK_OK(api.CreateEvent(&never2));
  if (start == nullptr || end == nullptr) return "event_create returned NULL";
  const sy_stream_t s = api.stream();
  Buffer a(api), b(api);
  SY_CHECK_OK(a.Allocate(kBytes));
  SY_CHECK_OK(b.Allocate(kBytes));
  const std::vector<uint8_t> want = RandomBytes(kBytes, seed + 3);
  SY_CHECK_OK(api.Record(start, s));
  SY_CHECK_OK(api.Copy(s, a.get(), want.data(), kBytes, SY_COPY_HOST_TO_DEVICE));
  SY_CHECK_OK(api.Record(end, s));
  // Another stream ordered after `end` sees the copy's bytes.
  SY_CHECK_OK(api.CreateStream(&other));
  SY_CHECK_OK(api.Wait(other, end));
  std::vector<uint8_t> got(kBytes, 0);
  SY_CHECK_OK(api.Copy(other, b.get(), a.get(), kBytes, SY_COPY_DEVICE_TO_DEVICE));
  SY_CHECK_OK(api.Copy(other, got.data(), b.get(), kBytes, SY_COPY_DEVICE_TO_HOST));
  SY_CHECK_OK(api.SyncEvent(end));
  SY_CHECK_OK(api.Sync(other));
  SY_CHECK_OK(api.Sync(s));
  float ms = -1;
  SY_CHECK_OK(api.Elapsed(start, end, &ms));
  if (!std::isfinite(ms) || ms < 0) {
    return absl::StrCat("event_elapsed_ms returned ", ms,
                        " ms between two completed events; expected a finite "
                        "value >= 0");
  }
  std::string diff = Compare(got, want, "a copy on a stream waiting on an event");
  if (!diff.empty()) return diff;
  float unused = 0;
  absl::Status unrecorded = api.Elapsed(never, never2, &unused);
  if (unrecorded.code() != absl::StatusCode::kFailedPrecondition) {
    return absl::StrCat(
        "event_elapsed_ms between two events never recorded returned ",
        unrecorded.ok() ? "success"
                        : absl::StatusCodeToString(unrecorded.code()),
        "; plugin.h requires FAILED_PRECONDITION");
  }
  return "";
}

// The checks of one device, into `report`.
void CheckOneDevice(const sy_device_api_t& table, int32_t index, uint64_t seed,
                    Report& report) {
  const std::string label =
      absl::StrCat(table.device_type != nullptr ? table.device_type : "?", ":", index);
  const std::string section = "device " + label;
  DeviceApi api(table, index);
  sy_device_properties_t p{};
  p.struct_size = sizeof p;
  if (absl::Status s = api.Properties(&p); !s.ok()) {
    report.Fail(section, "properties", std::string(s.message()));
  } else if (p.name == nullptr || *p.name == '\0') {
    report.Fail(section, "properties",
                "get_properties left the name empty; set "
                "sy_device_properties_t.name (it is part of the autotuner's "
                "device fingerprint)");
  } else {
    report.Pass(section, "properties",
                absl::StrCat("'", p.name, "'",
                             p.vendor != nullptr && *p.vendor ? absl::StrCat(" by ", p.vendor) : "",
                             ", driver '", p.driver_version != nullptr ? p.driver_version : "",
                             "', ", p.total_memory_bytes >> 20, " MiB, ", p.compute_units,
                             " compute units",
                             p.float_flags != 0
                                 ? absl::StrCat(", float_flags ", p.float_flags,
                                                " (may flush subnormals: op results "
                                                "are also checked against the "
                                                "flushed reference)")
                                 : ""));
  }
  if (absl::Status s = api.Open(); !s.ok()) {
    report.Fail(section, "streams", absl::StrCat("the checks' stream: ", s.message()));
    return;
  }
  Run(report, section, "alloc/free", "1 B … 1 MiB at alignments 64 and 256",
      [&] { return CheckAllocFree(api); });
  Run(report, section, "copies",
      absl::StrCat(kBytes, " random bytes host→device→device→host, whole and "
                   "at odd offsets"),
      [&] { return CheckCopies(api, seed); });
  Run(report, section, "memset", "whole buffer and an unaligned middle range",
      [&] { return CheckMemset(api, seed); });
  Run(report, section, "streams", "create, copy on it, synchronize, destroy",
      [&] { return CheckStreams(api, seed); });
  Run(report, section, "events",
      "record, synchronize, elapsed time, a stream waiting on an event; "
      "unrecorded events refused",
      [&] { return CheckEvents(api, seed); });
}

}  // namespace

int DeviceChecksChild(const std::string& library, uint64_t seed) {
  Report report;
  nlohmann::json result;
  {
    absl::StatusOr<std::unique_ptr<BareHost>> host = BareHost::Open(library);
    if (!host.ok()) {
      result["error"] = std::string(host.status().message());
    } else {
      nlohmann::json devices = nlohmann::json::array();
      for (const sy_device_api_t* table : (*host)->devices()) {
        int32_t count = 0;
        if (absl::Status s = BareHost::Check(table->device_count(table->device_data, &count),
                                             "device_count");
            !s.ok()) {
          report.Fail(absl::StrCat("device type ", table->device_type), "device_count",
                      std::string(s.message()));
          continue;
        }
        for (int32_t i = 0; i < count; ++i) {
          devices.push_back(absl::StrCat(table->device_type, ":", i));
          CheckOneDevice(*table, i, seed, report);
        }
      }
      result["devices"] = devices;
    }
  }
  nlohmann::json checks = nlohmann::json::array();
  for (const Check& c : report.checks) {
    checks.push_back({{"section", c.section},
                      {"name", c.name},
                      {"outcome", OutcomeName(c.outcome)},
                      {"detail", c.detail}});
  }
  result["checks"] = checks;
  std::fflush(stdout);
  std::printf("\n%s%s\n", kResultMarker,
              result.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  std::fflush(stdout);
  return 0;
}

std::vector<std::string> RunDeviceChecks(const std::string& library, uint64_t seed,
                                         Report& report) {
  const ChildResult child = RunSelf(
      {kDeviceChecksCommand, library, std::to_string(seed)}, kChildTimeoutSeconds);
  const size_t at = child.output.rfind(kResultMarker);
  const bool ended_well = child.started && !child.timed_out &&
                          WIFEXITED(child.wait_status) && WEXITSTATUS(child.wait_status) == 0;
  if (at == std::string::npos || !ended_well) {
    report.Fail("device", "device checks",
                absl::StrCat("the process running the device checks on ", library,
                             " ended with ", DescribeEnd(child, kChildTimeoutSeconds),
                             at == std::string::npos ? " before reporting" : "",
                             "; a device table must not crash or hang (run the "
                             "plugin's own device tests under a debugger)"));
    return {};
  }
  const std::string line =
      child.output.substr(at + std::strlen(kResultMarker),
                          child.output.find('\n', at) - at - std::strlen(kResultMarker));
  const nlohmann::json result = nlohmann::json::parse(line, nullptr, false);
  if (result.is_discarded()) {
    report.Fail("device", "device checks", "the device checks' report was unreadable");
    return {};
  }
  if (result.contains("error")) {
    report.Fail("device", "device checks", result["error"].get<std::string>());
    return {};
  }
  for (const auto& c : result["checks"]) {
    const std::string outcome = c["outcome"].get<std::string>();
    Check check{c["section"].get<std::string>(), c["name"].get<std::string>(),
                outcome == "pass" ? Outcome::kPass
                                  : outcome == "skip" ? Outcome::kSkip : Outcome::kFail,
                c["detail"].get<std::string>()};
    report.Add(std::move(check));
  }
  return result["devices"].get<std::vector<std::string>>();
}

void CheckZeroSizeTensors(const sy::Device& device, Report& report) {
  const std::string section = "device " + device.label();
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{0}, std::vector<int64_t>{3, 0, 2}}) {
    sy::Result<sy::Tensor> empty = sy::Tensor::Empty(device, SY_DTYPE_F32, shape);
    float unused = 0;
    sy::Result<sy::Tensor> up =
        empty.ok() ? sy::Tensor::FromHost(device, SY_DTYPE_F32, shape, &unused, 0)
                   : sy::Result<sy::Tensor>(empty.status());
    sy::Status down = up.ok() ? up->ToHost(&unused, 0) : up.status();
    if (!down.ok()) {
      report.Fail(section, "zero-size tensors",
                  absl::StrCat("a tensor of shape [", shape.size() == 1 ? "0" : "3, 0, 2",
                               "]: ", down.message()));
      return;
    }
  }
  report.Pass(section, "zero-size tensors",
              "empty tensors made, uploaded and read back through the public API");
}

}  // namespace sy::conformance
