// Fuzzes sy_tensor_from_dlpack (api/src/dlpack_import.cc) with foreign
// DLPack tensors whose every field is drawn: rank, dtype, device, sizes,
// strides (absent, negative, zero, huge), byte_offset (misaligned, huge),
// NULL data, and the import mode.
//
// Each input is checked against an independent reference computed in
// 128-bit arithmetic (Note [DLPack sizes are untrusted] in the importer):
// the import must succeed exactly when the layout is valid, fits int64 and
// the address space, has data when it has elements, names this context's
// cpu device, and suits the mode (SY_DLPACK_SHARE: strides >= 0 and an
// aligned first element). A success must give the reference's shape and
// element count and, read back, the reference's bytes, and run the deleter
// exactly once (at once for a copy, at release for a share); a failure
// must leave the deleter unrun and out_tensor untouched. Memory is real
// where the importer may read it: layouts of up to kMaxBytes get a buffer
// that covers exactly their elements; larger (valid) ones are imported only
// in SY_DLPACK_SHARE mode over an address nothing reads.
#include <dlpack/dlpack.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "c_api_fuzz_world.h"
#include "fuzz_check.h"
#include "fuzzer/FuzzedDataProvider.h"
#include "switchyard/switchyard.h"

extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=1:max_allocation_size_mb=2048:detect_leaks=1";
}

namespace {

using Int = __int128;
constexpr Int kInt64Max = std::numeric_limits<int64_t>::max();
constexpr Int kInt64Min = std::numeric_limits<int64_t>::min();
constexpr Int kAddressEnd = Int{1} << 64;  // one past the last address
constexpr int64_t kMaxBytes = 1 << 16;

constexpr int64_t kEdgeSizes[] = {int64_t{1} << 31, int64_t{1} << 32,
                                  (int64_t{1} << 61) + 1, (int64_t{1} << 62) + 1,
                                  std::numeric_limits<int64_t>::max(), -1,
                                  int64_t{1} << 40};
constexpr int64_t kEdgeStrides[] = {int64_t{1} << 61, int64_t{1} << 62,
                                    -(int64_t{1} << 61),
                                    std::numeric_limits<int64_t>::max(),
                                    std::numeric_limits<int64_t>::min(), 1 << 20};
constexpr uint64_t kEdgeOffsets[] = {uint64_t{1} << 63, ~uint64_t{0},
                                     uint64_t{1} << 62, 1, 2, 3};

struct DType {
  uint8_t code, bits;
  int size;
  // Element bit patterns every kernel copies unchanged (no NaN payloads).
  std::vector<uint64_t> values;
};
constexpr int kNumDTypes = 9;
const DType kDTypes[kNumDTypes] = {
    {kDLFloat, 32, 4, {0, 0x3F800000, 0x40000000, 0xC0000000, 0x3F000000}},
    {kDLFloat, 64, 8, {0, 0x3FF0000000000000, 0xC000000000000000}},
    {kDLFloat, 16, 2, {0, 0x3C00, 0x4000, 0xC000, 0x3800}},
    {kDLBfloat, 16, 2, {0, 0x3F80, 0x4000, 0xC000, 0x3F00}},
    {kDLInt, 32, 4, {0, 1, 0xFFFFFFFF, 0x7FFFFFFF}},
    {kDLInt, 64, 8, {0, 1, ~uint64_t{0}, 0x8000000000000000}},
    {kDLInt, 8, 1, {0, 1, 0x80, 0x7F}},
    {kDLUInt, 8, 1, {0, 1, 0xFF}},
    {6, 8, 1, {0, 1}},  // kDLBool in DLPack 0.8; 0.6's header lacks the name
};

struct Draw {
  int32_t ndim = 0;
  int64_t shape[SY_MAX_RANK + 1] = {};
  bool has_strides = false;
  int64_t strides[SY_MAX_RANK + 1] = {};
  uint64_t byte_offset = 0;
  int dtype = 0;        // index in kDTypes, or -1 for an invalid dtype
  int32_t device_type = kDLCPU;
  int32_t device_id = 0;
  int32_t mode = SY_DLPACK_SHARE_OR_COPY;
  bool null_data = false;
};

Draw DrawTensor(FuzzedDataProvider& in) {
  Draw d;
  const int rank = in.ConsumeIntegralInRange<int>(0, 19);
  d.ndim = rank < 16 ? rank % 5 : (rank == 16 ? SY_MAX_RANK : rank == 17 ? 9 : -1);
  for (int i = 0; i < std::clamp(d.ndim, 0, SY_MAX_RANK + 1); ++i) {
    d.shape[i] = in.ConsumeProbability<float>() < 0.9f
                     ? in.ConsumeIntegralInRange<int64_t>(0, 5)
                     : in.PickValueInArray(kEdgeSizes);
  }
  d.has_strides = in.ConsumeProbability<float>() < 0.6f;
  for (int i = 0; i < std::clamp(d.ndim, 0, SY_MAX_RANK + 1); ++i) {
    d.strides[i] = in.ConsumeProbability<float>() < 0.9f
                       ? in.ConsumeIntegralInRange<int64_t>(-6, 6)
                       : in.PickValueInArray(kEdgeStrides);
  }
  d.dtype = in.ConsumeProbability<float>() < 0.95f
                ? in.ConsumeIntegralInRange<int>(0, kNumDTypes - 1)
                : -1;
  const int size = d.dtype >= 0 ? kDTypes[d.dtype].size : 4;
  d.byte_offset = in.ConsumeProbability<float>() < 0.9f
                      ? uint64_t(in.ConsumeIntegralInRange<int>(0, 8)) * size
                      : in.PickValueInArray(kEdgeOffsets);
  if (in.ConsumeProbability<float>() < 0.05f) {
    d.device_type = in.PickValueInArray({int32_t{kDLCUDA}, int32_t{kDLCPU}, int32_t{99}});
    d.device_id = in.ConsumeIntegralInRange<int32_t>(0, 1);
  }
  d.mode = in.ConsumeProbability<float>() < 0.97f
               ? in.ConsumeIntegralInRange<int32_t>(0, 2)
               : in.PickValueInArray({-1, 3, 7});
  d.null_data = in.ConsumeProbability<float>() < 0.05f;
  return d;
}

// What the importer must conclude, computed without int64 arithmetic.
struct Reference {
  bool valid = false;       // a layout some mode accepts
  bool shareable = false;   // SY_DLPACK_SHARE accepts it
  Int numel = 1;
  Int product = 1;  // of max(size, 1): what a copy's strides are made of
  Int lowest = 0, highest = 0;  // element offsets from the first element
};

// Tensor::Empty's bound on a new tensor's extent (dispatcher/memory).
constexpr Int kMaxCopyExtent = Int{1} << 56;

Reference Expect(const Draw& d, uintptr_t data) {
  Reference r;
  if (d.ndim < 0 || d.ndim > SY_MAX_RANK || d.dtype < 0) return r;
  const Int esize = kDTypes[d.dtype].size;
  for (int i = 0; i < d.ndim; ++i) {
    if (d.shape[i] < 0) return r;
    r.numel *= d.shape[i];
    r.product *= std::max<int64_t>(d.shape[i], 1);
    if (r.numel > kInt64Max || r.product > kInt64Max) return r;
  }
  if (r.numel * esize > kInt64Max) return r;
  Int strides[SY_MAX_RANK] = {};
  Int stride = 1;
  for (int i = d.ndim - 1; i >= 0; --i) {
    strides[i] = d.has_strides ? Int{d.strides[i]} : stride;
    stride *= std::max<int64_t>(d.shape[i], 1);
  }
  bool negative = false;  // any stride, even of a dimension of size 0 or 1
  for (int i = 0; i < d.ndim; ++i) negative |= strides[i] < 0;
  if (r.numel > 0) {
    for (int i = 0; i < d.ndim; ++i) {
      const Int span = Int{d.shape[i] - 1} * strides[i];
      if (span > kInt64Max || span < kInt64Min) return r;
      (span < 0 ? r.lowest : r.highest) += span;
      if (r.lowest < kInt64Min || r.highest > kInt64Max) return r;
    }
    const Int first = Int{data} + d.byte_offset;
    if (Int{d.byte_offset} > kInt64Max || r.lowest * esize < kInt64Min ||
        (r.highest + 1) * esize > kInt64Max || first >= kAddressEnd ||
        first + r.lowest * esize < 0 || first + (r.highest + 1) * esize >= kAddressEnd) {
      return r;
    }
    if (data == 0) return r;  // NULL data with elements
  }
  r.valid = true;
  const uintptr_t first = data + static_cast<uintptr_t>(d.byte_offset);
  r.shareable = !negative && (r.numel == 0 || first % esize == 0);
  return r;
}

int g_deleted = 0;
void Deleter(DLManagedTensor*) { ++g_deleted; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  FuzzedDataProvider in(bytes, size);
  sy_fuzz::World& w = sy_fuzz::GetWorld();
  const Draw d = DrawTensor(in);
  const int esize = d.dtype >= 0 ? kDTypes[d.dtype].size : 4;

  // First as if the memory started at a plain address, to learn the extent.
  constexpr uintptr_t kFakeAddress = uintptr_t{1} << 40;
  Reference r = Expect(d, d.null_data ? 0 : kFakeAddress);
  std::vector<unsigned char> buffer;
  uintptr_t data = d.null_data ? 0 : kFakeAddress;
  int32_t mode = d.mode;
  const bool small = r.valid && r.numel * esize <= kMaxBytes;  // valid: fits int64
  if (r.valid && !small && mode >= 0 && mode <= 2) {
    mode = SY_DLPACK_SHARE;  // a copy (or a read back) would need that memory
  }
  if (r.valid && r.numel > 0) {
    const Int extent = (r.highest - r.lowest + 1) * esize + Int{d.byte_offset};
    if (extent <= kMaxBytes) {
      // Real memory covering exactly the elements: data sits inside it so
      // that the lowest element (negative strides) is its first byte.
      buffer.resize(static_cast<size_t>(extent));
      const std::vector<uint64_t>& values = kDTypes[d.dtype].values;
      for (size_t at = 0; at + esize <= buffer.size(); at += esize) {
        const uint64_t v = values[in.ConsumeIntegralInRange<size_t>(0, values.size() - 1)];
        std::memcpy(&buffer[at], &v, esize);  // little-endian low bytes
      }
      data = reinterpret_cast<uintptr_t>(buffer.data()) +
             static_cast<uintptr_t>(-r.lowest * esize);
      r = Expect(d, data);
    } else if (mode != SY_DLPACK_SHARE && mode >= 0 && mode <= 2) {
      mode = SY_DLPACK_SHARE;  // nothing may read an address with no memory
    }
  }

  DLManagedTensor managed{};
  DLTensor& dl = managed.dl_tensor;
  dl.data = reinterpret_cast<void*>(data);
  const int32_t device_type = d.device_type;
  std::memcpy(&dl.device.device_type, &device_type, sizeof device_type);
  dl.device.device_id = d.device_id;
  dl.ndim = d.ndim;
  if (d.dtype >= 0) {
    dl.dtype = {kDTypes[d.dtype].code, kDTypes[d.dtype].bits, 1};
  } else {
    dl.dtype = {kDLComplex, 64, 1};
  }
  int64_t shape[SY_MAX_RANK + 1], strides[SY_MAX_RANK + 1];
  std::copy(std::begin(d.shape), std::end(d.shape), shape);
  std::copy(std::begin(d.strides), std::end(d.strides), strides);
  dl.shape = shape;
  dl.strides = d.has_strides ? strides : nullptr;
  dl.byte_offset = d.byte_offset;
  managed.deleter = Deleter;
  g_deleted = 0;

  const bool device_matches = d.device_type == kDLCPU && d.device_id == 0;
  const bool mode_valid = mode >= 0 && mode <= 2;
  // A copy is a new Switchyard tensor, bounded as every new tensor is.
  const bool copies = mode == SY_DLPACK_COPY ||
                      (mode == SY_DLPACK_SHARE_OR_COPY && !r.shareable);
  const bool expect_ok = mode_valid && r.valid && device_matches &&
                         (mode != SY_DLPACK_SHARE || r.shareable) &&
                         !(copies && r.product > kMaxCopyExtent);
  sy_tensor_t t = nullptr;
  const sy_status_code_t status = CALL(sy_tensor_from_dlpack(w.context, &managed, mode, &t));
  FUZZ_CHECK((status == SY_STATUS_OK) == expect_ok,
             "import (mode %d, ndim %d, valid %d, shareable %d, device %d:%d) "
             "returned %s: %s",
             mode, d.ndim, r.valid, r.shareable, d.device_type, d.device_id,
             sy_status_code_name(status), sy_last_error_message());
  if (status != SY_STATUS_OK) {
    FUZZ_CHECK(t == nullptr, "a failed import wrote out_tensor");
    FUZZ_CHECK(g_deleted == 0, "a failed import ran the deleter");
    return 0;
  }
  int64_t numel = -1;
  FUZZ_CHECK(sy_tensor_numel(t, &numel) == SY_STATUS_OK && numel == r.numel,
             "numel %lld, reference %lld", static_cast<long long>(numel),
             static_cast<long long>(r.numel));
  int64_t got_shape[SY_MAX_RANK] = {};
  FUZZ_CHECK(sy_tensor_shape(t, got_shape, SY_MAX_RANK) == SY_STATUS_OK &&
                 std::equal(got_shape, got_shape + d.ndim, d.shape),
             "the imported shape differs");
  if (!buffer.empty() && numel > 0 && small) {
    // Read back densely and compare with the reference gather.
    std::vector<unsigned char> got(static_cast<size_t>(numel) * esize);
    FUZZ_CHECK(CALL(sy_tensor_to_host(t, got.data(), got.size())) == SY_STATUS_OK,
               "reading an imported tensor: %s", sy_last_error_message());
    Int stride[SY_MAX_RANK] = {};
    Int s = 1;
    for (int i = d.ndim - 1; i >= 0; --i) {
      stride[i] = d.has_strides ? Int{d.strides[i]} : s;
      s *= std::max<int64_t>(d.shape[i], 1);
    }
    const unsigned char* first =
        reinterpret_cast<const unsigned char*>(data) + d.byte_offset;
    int64_t index[SY_MAX_RANK] = {};
    for (int64_t n = 0; n < numel; ++n) {
      Int offset = 0;
      for (int i = 0; i < d.ndim; ++i) offset += index[i] * stride[i];
      FUZZ_CHECK(std::memcmp(&got[n * esize], first + static_cast<int64_t>(offset) * esize,
                             esize) == 0,
                 "element %lld differs from the DLPack tensor's", static_cast<long long>(n));
      for (int i = d.ndim - 1; i >= 0; --i) {
        if (++index[i] < d.shape[i]) break;
        index[i] = 0;
      }
    }
  }
  FUZZ_CHECK(CALL(sy_tensor_release(t)) == SY_STATUS_OK, "release failed");
  FUZZ_CHECK(g_deleted == 1, "the deleter ran %d times", g_deleted);
  FUZZ_CHECK(sy_fuzz::AllocatedBytes(w.cpu) == w.baseline_allocated,
             "the cpu allocator holds bytes after the tensor was released");
  return 0;
}
