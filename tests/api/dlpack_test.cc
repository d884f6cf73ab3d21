// DLPack export and import: shared memory checked by pointer identity,
// lifetimes past release and context destruction, every import mode, and
// DLPack tensors Switchyard cannot take.
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "c_api_test_util.h"
#include "dlpack/dlpack.h"

namespace sy_test {
namespace {

using DLPackTest = CApiTest;

void* DataPtr(sy_tensor_t t) {
  void* p = nullptr;
  EXPECT_EQ(sy_tensor_data_ptr(t, &p), SY_STATUS_OK) << sy_last_error_message();
  return p;
}

TEST_F(DLPackTest, ExportSharesTheTensorsMemory) {
  const std::vector<float> data = RandomFloats(6, 7);
  sy_tensor_t t = F32(cpu_, {2, 3}, data);
  DLManagedTensor* managed = nullptr;
  ASSERT_EQ(sy_tensor_to_dlpack(t, &managed), SY_STATUS_OK) << sy_last_error_message();
  const DLTensor& dl = managed->dl_tensor;
  EXPECT_EQ(dl.data, DataPtr(t));
  EXPECT_EQ(dl.byte_offset, 0u);
  EXPECT_EQ(dl.device.device_type, kDLCPU);
  EXPECT_EQ(dl.device.device_id, 0);
  EXPECT_EQ(dl.ndim, 2);
  EXPECT_EQ(dl.dtype.code, kDLFloat);
  EXPECT_EQ(dl.dtype.bits, 32);
  EXPECT_EQ(dl.dtype.lanes, 1);
  EXPECT_EQ(dl.shape[0], 2);
  EXPECT_EQ(dl.shape[1], 3);
  EXPECT_EQ(dl.strides[0], 3);
  EXPECT_EQ(dl.strides[1], 1);

  // The export keeps the memory alive after the handle is gone.
  ASSERT_EQ(sy_tensor_release(t), SY_STATUS_OK);
  sy_allocator_stats_t stats{};
  stats.struct_size = sizeof stats;
  ASSERT_EQ(sy_device_allocator_stats(cpu_, &stats), SY_STATUS_OK);
  EXPECT_GE(stats.allocated_bytes, 24u);
  EXPECT_EQ(std::memcmp(dl.data, data.data(), 24), 0);
  managed->deleter(managed);
  ASSERT_EQ(sy_device_allocator_stats(cpu_, &stats), SY_STATUS_OK);
  EXPECT_EQ(stats.allocated_bytes, 0u);
}

TEST(DLPackLifetimeTest, ExportOutlivesItsContext) {
  sy_context_t context = MakeContext();
  const std::vector<float> data = RandomFloats(5, 8);
  sy_tensor_t t = F32(Cpu(context), {5}, data);
  DLManagedTensor* managed = nullptr;
  ASSERT_EQ(sy_tensor_to_dlpack(t, &managed), SY_STATUS_OK);
  ASSERT_EQ(sy_context_destroy(context), SY_STATUS_OK);
  // The runtime is still alive behind the export: the memory reads.
  EXPECT_EQ(std::memcmp(managed->dl_tensor.data, data.data(), 20), 0);
  managed->deleter(managed);  // tears the runtime down now (ASan checks)
}

TEST_F(DLPackTest, OwnExportComesBackAsTheSameTensor) {
  sy_tensor_t t = F32(cpu_, {4}, {1, 2, 3, 4});
  for (int32_t mode : {SY_DLPACK_SHARE_OR_COPY, SY_DLPACK_SHARE}) {
    DLManagedTensor* managed = nullptr;
    ASSERT_EQ(sy_tensor_to_dlpack(t, &managed), SY_STATUS_OK);
    sy_tensor_t back = nullptr;
    ASSERT_EQ(sy_tensor_from_dlpack(context_, managed, mode, &back), SY_STATUS_OK)
        << sy_last_error_message();
    EXPECT_EQ(DataPtr(back), DataPtr(t));
    EXPECT_EQ(ReadF32(back), (std::vector<float>{1, 2, 3, 4}));
    ASSERT_EQ(sy_tensor_release(back), SY_STATUS_OK);
  }
  DLManagedTensor* managed = nullptr;
  ASSERT_EQ(sy_tensor_to_dlpack(t, &managed), SY_STATUS_OK);
  sy_tensor_t copy = nullptr;
  ASSERT_EQ(sy_tensor_from_dlpack(context_, managed, SY_DLPACK_COPY, &copy), SY_STATUS_OK);
  EXPECT_NE(DataPtr(copy), DataPtr(t));
  EXPECT_EQ(ReadF32(copy), (std::vector<float>{1, 2, 3, 4}));
}

TEST_F(DLPackTest, ExportOfAViewKeepsItsLayout) {
  const std::vector<float> data = RandomFloats(6, 9);
  sy_tensor_t t = F32(cpu_, {2, 3}, data);
  sy_tensor_t tr = Call1(Op(context_, "transpose"), {t}, {IntAttr(0), IntAttr(1)});
  DLManagedTensor* managed = nullptr;
  ASSERT_EQ(sy_tensor_to_dlpack(tr, &managed), SY_STATUS_OK);
  const DLTensor& dl = managed->dl_tensor;
  EXPECT_EQ(dl.data, DataPtr(t));  // a view: the same memory
  EXPECT_EQ(dl.shape[0], 3);
  EXPECT_EQ(dl.shape[1], 2);
  EXPECT_EQ(dl.strides[0], 1);
  EXPECT_EQ(dl.strides[1], 3);
  managed->deleter(managed);
}

// A DLPack tensor over a host vector, as NumPy would make one, counting
// how often its deleter runs.
struct HostTensor {
  std::vector<float> values;
  std::vector<int64_t> shape, strides;
  std::atomic<int> deleted{0};
  DLManagedTensor managed{};

  HostTensor(std::vector<float> v, std::vector<int64_t> shape_in,
             std::vector<int64_t> strides_in, int64_t first = 0)
      : values(std::move(v)), shape(std::move(shape_in)), strides(std::move(strides_in)) {
    DLTensor& dl = managed.dl_tensor;
    dl.data = values.data();
    dl.device = {kDLCPU, 0};
    dl.ndim = static_cast<int32_t>(shape.size());
    dl.dtype = {kDLFloat, 32, 1};
    dl.shape = shape.data();
    dl.strides = strides.empty() ? nullptr : strides.data();
    dl.byte_offset = static_cast<uint64_t>(first) * sizeof(float);
    managed.manager_ctx = this;
    managed.deleter = [](DLManagedTensor* self) {
      static_cast<HostTensor*>(self->manager_ctx)->deleted++;
    };
  }
};

TEST_F(DLPackTest, ForeignMemoryIsShared) {
  HostTensor host(RandomFloats(6, 10), {2, 3}, {});
  sy_tensor_t t = nullptr;
  const sy_status_code_t status =
      sy_tensor_from_dlpack(context_, &host.managed, SY_DLPACK_SHARE, &t);
  ASSERT_EQ(status, SY_STATUS_OK) << sy_last_error_message();
  EXPECT_EQ(DataPtr(t), host.values.data());
  EXPECT_EQ(ReadF32(t), host.values);
  // An op result keeps no reference; a view does.
  sy_tensor_t view = Call1(Op(context_, "reshape"), {t}, {IntsAttr({3, 2})});
  EXPECT_EQ(DataPtr(view), host.values.data());
  ASSERT_EQ(sy_tensor_release(t), SY_STATUS_OK);
  EXPECT_EQ(host.deleted, 0);
  ASSERT_EQ(sy_tensor_release(view), SY_STATUS_OK);
  EXPECT_EQ(host.deleted, 1);
}

TEST_F(DLPackTest, ShareOrCopyAlwaysGivesTheValues) {
  HostTensor host(RandomFloats(6, 11), {2, 3}, {3, 1});
  sy_tensor_t t = nullptr;
  ASSERT_EQ(sy_tensor_from_dlpack(context_, &host.managed, SY_DLPACK_SHARE_OR_COPY, &t),
            SY_STATUS_OK)
      << sy_last_error_message();
  EXPECT_EQ(ReadF32(t), host.values);
  const bool shared = DataPtr(t) == host.values.data();
  EXPECT_TRUE(shared);
  EXPECT_EQ(host.deleted, shared ? 0 : 1);  // a copy lets go at once
  ASSERT_EQ(sy_tensor_release(t), SY_STATUS_OK);
  EXPECT_EQ(host.deleted, 1);
}

TEST_F(DLPackTest, CopyModeCopiesStridedAndNegativeStrides) {
  // A transposed 2×3 (a [3, 2] view with strides [1, 3]) starting at 0.
  const std::vector<float> values = RandomFloats(6, 12);
  HostTensor transposed(values, {3, 2}, {1, 3});
  sy_tensor_t t = nullptr;
  ASSERT_EQ(sy_tensor_from_dlpack(context_, &transposed.managed, SY_DLPACK_COPY, &t),
            SY_STATUS_OK)
      << sy_last_error_message();
  EXPECT_EQ(transposed.deleted, 1);
  EXPECT_NE(DataPtr(t), values.data());
  std::vector<float> want;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) want.push_back(values[i + 3 * j]);
  EXPECT_EQ(ReadF32(t), want);

  // Reversed (NumPy's a[::-1]): first element at index 5, stride -1.
  HostTensor reversed(values, {6}, {-1}, 5);
  EXPECT_SY_ERROR(
      sy_tensor_from_dlpack(context_, &reversed.managed, SY_DLPACK_SHARE, &t),
      SY_STATUS_INVALID_ARGUMENT,
      "sy_tensor_from_dlpack: cannot share the DLPack tensor's memory: its stride 0 "
      "is negative (-1); Switchyard layouts have strides >= 0; import with "
      "SY_DLPACK_SHARE_OR_COPY to copy instead");
  EXPECT_EQ(reversed.deleted, 0);
  ASSERT_EQ(sy_tensor_from_dlpack(context_, &reversed.managed, SY_DLPACK_SHARE_OR_COPY, &t),
            SY_STATUS_OK)
      << sy_last_error_message();
  EXPECT_EQ(ReadF32(t), std::vector<float>(values.rbegin(), values.rend()));
  EXPECT_EQ(reversed.deleted, 1);
}

TEST_F(DLPackTest, TensorsSwitchyardCannotTakeAreRefusedAndStayTheCallers) {
  HostTensor host(RandomFloats(4, 13), {4}, {});
  sy_tensor_t t = nullptr;

  host.managed.dl_tensor.dtype = {kDLComplex, 64, 1};
  EXPECT_SY_ERROR(sy_tensor_from_dlpack(context_, &host.managed, SY_DLPACK_SHARE_OR_COPY, &t),
                  SY_STATUS_INVALID_ARGUMENT,
                  "sy_tensor_from_dlpack: the DLPack tensor's dtype (code 5, bits 64, "
                  "lanes 1) is not one of f32 f64 f16 bf16 i32 i64 i8 u8 bool");
  host.managed.dl_tensor.dtype = {kDLFloat, 32, 4};
  EXPECT_SY_ERROR(sy_tensor_from_dlpack(context_, &host.managed, SY_DLPACK_SHARE_OR_COPY, &t),
                  SY_STATUS_INVALID_ARGUMENT,
                  "sy_tensor_from_dlpack: the DLPack tensor's dtype (code 2, bits 32, "
                  "lanes 4) is not one of f32 f64 f16 bf16 i32 i64 i8 u8 bool");
  host.managed.dl_tensor.dtype = {kDLFloat, 32, 1};

  host.managed.dl_tensor.device = {kDLCUDA, 1};
  EXPECT_SY_ERROR(sy_tensor_from_dlpack(context_, &host.managed, SY_DLPACK_SHARE_OR_COPY, &t),
                  SY_STATUS_NOT_FOUND,
                  "sy_tensor_from_dlpack: no device of this context matches the "
                  "tensor's DLPack device (type 2, id 1); devices present: cpu:0 "
                  "(type 1, id 0)");
  host.managed.dl_tensor.device = {kDLCPU, 0};

  host.managed.dl_tensor.ndim = 9;
  EXPECT_SY_ERROR(sy_tensor_from_dlpack(context_, &host.managed, SY_DLPACK_SHARE_OR_COPY, &t),
                  SY_STATUS_INVALID_ARGUMENT,
                  "sy_tensor_from_dlpack: the DLPack tensor has rank 9; at most 8 "
                  "dimensions are supported");
  host.managed.dl_tensor.ndim = 1;

  host.managed.dl_tensor.data = nullptr;
  EXPECT_SY_ERROR(sy_tensor_from_dlpack(context_, &host.managed, SY_DLPACK_SHARE_OR_COPY, &t),
                  SY_STATUS_INVALID_ARGUMENT,
                  "sy_tensor_from_dlpack: the DLPack tensor's data pointer is NULL but "
                  "it has elements");
  host.managed.dl_tensor.data = host.values.data();

  EXPECT_SY_ERROR(sy_tensor_from_dlpack(context_, &host.managed, 7, &t),
                  SY_STATUS_INVALID_ARGUMENT,
                  "sy_tensor_from_dlpack: mode is 7; use SY_DLPACK_SHARE_OR_COPY (0), "
                  "SY_DLPACK_SHARE (1) or SY_DLPACK_COPY (2)");
  EXPECT_SY_ERROR(sy_tensor_from_dlpack(context_, nullptr, 0, &t), SY_STATUS_INVALID_ARGUMENT,
                  "sy_tensor_from_dlpack: managed is NULL");
  EXPECT_SY_ERROR(sy_tensor_to_dlpack(nullptr, nullptr), SY_STATUS_INVALID_ARGUMENT,
                  "sy_tensor_to_dlpack: tensor is NULL; pass a tensor handle");
  EXPECT_EQ(t, nullptr);
  EXPECT_EQ(host.deleted, 0);  // every failure left it with the caller

  ASSERT_EQ(sy_tensor_from_dlpack(context_, &host.managed, SY_DLPACK_COPY, &t), SY_STATUS_OK);
  EXPECT_EQ(ReadF32(t), host.values);  // and it still imports
}

// Issue 14, point 1: sizes whose products wrap used to pass in the share
// modes (a [2^32, 2^32] tensor with NULL data counted 0 elements; a
// [2^62 + 1, 4] one over 16 bytes counted 4, and a slice of it read far
// outside the buffer). Every mode now refuses each, naming what is wrong,
// and the caller keeps the tensor.
TEST_F(DLPackTest, SizesThatOverflowAreRefusedInEveryMode) {
  struct Case {
    std::vector<int64_t> shape, strides;
    uint64_t byte_offset;
    bool null_data;
    std::string message;
  };
  constexpr int64_t k32 = int64_t{1} << 32;
  constexpr int64_t k61 = int64_t{1} << 61;
  constexpr int64_t k62 = int64_t{1} << 62;
  const std::string prefix = "sy_tensor_from_dlpack: the DLPack tensor's ";
  const std::vector<Case> cases = {
      {{k32, k32}, {}, 0, true,
       "shape [4294967296, 4294967296] has sizes whose product int64 cannot hold; "
       "no memory has that many elements"},
      {{k62 + 1, 4}, {4, 1}, 0, false,
       "shape [4611686018427387905, 4] has sizes whose product int64 cannot hold; "
       "no memory has that many elements"},
      {{0, k32, k32}, {}, 0, false,
       "shape [0, 4294967296, 4294967296] has sizes whose product int64 cannot "
       "hold; no memory has that many elements"},
      {{k61}, {1}, 0, false,
       "shape [2305843009213693952] of 4-byte elements spans more bytes than int64 "
       "can count"},
      {{3, 2}, {k62, 1}, 0, false,
       "strides [4611686018427387904, 1] over shape [3, 2] reach element offsets "
       "int64 cannot hold"},
      {{2}, {k61}, 0, false,
       "elements (shape [2], strides [2305843009213693952], byte_offset 0) would lie "
       "outside the address space"},
      {{4}, {1}, uint64_t{1} << 63, false,
       "elements (shape [4], strides [1], byte_offset 9223372036854775808) would lie "
       "outside the address space"},
      {{4}, {-k61}, 0, false,
       "elements (shape [4], strides [-2305843009213693952], byte_offset 0) would "
       "lie outside the address space"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    HostTensor host(RandomFloats(4, 20), c.shape, c.strides);
    host.managed.dl_tensor.byte_offset = c.byte_offset;
    if (c.null_data) host.managed.dl_tensor.data = nullptr;
    for (int32_t mode : {SY_DLPACK_SHARE_OR_COPY, SY_DLPACK_SHARE, SY_DLPACK_COPY}) {
      sy_tensor_t t = nullptr;
      EXPECT_SY_ERROR(sy_tensor_from_dlpack(context_, &host.managed, mode, &t),
                      SY_STATUS_INVALID_ARGUMENT, prefix + c.message);
      EXPECT_EQ(t, nullptr);
    }
    EXPECT_EQ(host.deleted, 0);
  }
}

// Sizes at the edge that do fit still import: a zero-size dim with huge
// neighbours, and a broadcast (stride 0) view of one element.
TEST_F(DLPackTest, LargeButValidLayoutsImport) {
  HostTensor empty(RandomFloats(1, 21), {0, int64_t{1} << 40}, {1, 1});
  sy_tensor_t t = nullptr;
  ASSERT_EQ(sy_tensor_from_dlpack(context_, &empty.managed, SY_DLPACK_SHARE_OR_COPY, &t),
            SY_STATUS_OK)
      << sy_last_error_message();
  int64_t numel = -1;
  ASSERT_EQ(sy_tensor_numel(t, &numel), SY_STATUS_OK);
  EXPECT_EQ(numel, 0);
  ASSERT_EQ(sy_tensor_release(t), SY_STATUS_OK);

  HostTensor broadcast(RandomFloats(1, 22), {3, 4}, {0, 0});
  ASSERT_EQ(sy_tensor_from_dlpack(context_, &broadcast.managed, SY_DLPACK_SHARE, &t),
            SY_STATUS_OK)
      << sy_last_error_message();
  EXPECT_EQ(ReadF32(t), std::vector<float>(12, broadcast.values[0]));
  ASSERT_EQ(sy_tensor_release(t), SY_STATUS_OK);
}

TEST_F(DLPackTest, ExportToAnotherContextIsForeignThere) {
  sy_context_t other = MakeContext();
  const std::vector<float> data = RandomFloats(3, 14);
  sy_tensor_t t = F32(cpu_, {3}, data);
  DLManagedTensor* managed = nullptr;
  ASSERT_EQ(sy_tensor_to_dlpack(t, &managed), SY_STATUS_OK);
  sy_tensor_t there = nullptr;
  ASSERT_EQ(sy_tensor_from_dlpack(other, managed, SY_DLPACK_SHARE_OR_COPY, &there),
            SY_STATUS_OK)
      << sy_last_error_message();
  EXPECT_EQ(ReadF32(there), data);
  EXPECT_EQ(DataPtr(there), DataPtr(t));
  ASSERT_EQ(sy_context_destroy(other), SY_STATUS_OK);
  EXPECT_EQ(ReadF32(t), data);
}

}  // namespace
}  // namespace sy_test
