// Tensors: creation, copies in and out, getters, references.
#include <cstring>
#include <string>
#include <vector>

#include "c_api_test_util.h"

namespace sy_test {
namespace {

using TensorTest = CApiTest;

TEST_F(TensorTest, FromHostRoundTripsRandomData) {
  const std::vector<float> data = RandomFloats(24, 1);
  sy_tensor_t t = F32(cpu_, {2, 3, 4}, data);
  EXPECT_EQ(ReadF32(t), data);

  sy_dtype_t dtype = 0;
  int32_t ndim = 0;
  int64_t shape[SY_MAX_RANK] = {}, strides[SY_MAX_RANK] = {}, numel = 0;
  size_t nbytes = 0;
  ASSERT_EQ(sy_tensor_dtype(t, &dtype), SY_STATUS_OK);
  ASSERT_EQ(sy_tensor_ndim(t, &ndim), SY_STATUS_OK);
  ASSERT_EQ(sy_tensor_shape(t, shape, SY_MAX_RANK), SY_STATUS_OK);
  ASSERT_EQ(sy_tensor_strides(t, strides, 3), SY_STATUS_OK);
  ASSERT_EQ(sy_tensor_numel(t, &numel), SY_STATUS_OK);
  ASSERT_EQ(sy_tensor_nbytes(t, &nbytes), SY_STATUS_OK);
  EXPECT_EQ(dtype, SY_DTYPE_F32);
  EXPECT_EQ(ndim, 3);
  EXPECT_EQ(std::vector<int64_t>(shape, shape + 3), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(std::vector<int64_t>(strides, strides + 3), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(numel, 24);
  EXPECT_EQ(nbytes, 96u);
  sy_device_handle_t device = nullptr;
  ASSERT_EQ(sy_tensor_device(t, &device), SY_STATUS_OK);
  EXPECT_EQ(device, cpu_);
  void* data_ptr = nullptr;
  ASSERT_EQ(sy_tensor_data_ptr(t, &data_ptr), SY_STATUS_OK);
  // cpu memory is host memory: the pointer reads the elements.
  EXPECT_EQ(std::memcmp(data_ptr, data.data(), 96), 0);
}

TEST_F(TensorTest, EveryDtypeAndAScalar) {
  const sy_dtype_t dtypes[] = {SY_DTYPE_F32, SY_DTYPE_F64, SY_DTYPE_F16, SY_DTYPE_BF16,
                               SY_DTYPE_I32, SY_DTYPE_I64, SY_DTYPE_I8,  SY_DTYPE_U8,
                               SY_DTYPE_BOOL};
  for (sy_dtype_t dtype : dtypes) {
    const size_t esize = sy_dtype_size(dtype);
    std::vector<unsigned char> bytes(5 * esize);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i % 2);
    const int64_t shape[1] = {5};
    sy_tensor_t t = nullptr;
    ASSERT_EQ(sy_tensor_from_host(cpu_, dtype, shape, 1, bytes.data(), bytes.size(), &t),
              SY_STATUS_OK)
        << sy_dtype_name(dtype) << ": " << sy_last_error_message();
    std::vector<unsigned char> back(bytes.size());
    ASSERT_EQ(sy_tensor_to_host(t, back.data(), back.size()), SY_STATUS_OK);
    EXPECT_EQ(back, bytes) << sy_dtype_name(dtype);
    EXPECT_EQ(sy_tensor_release(t), SY_STATUS_OK);
  }
  const double value = 2.5;
  sy_tensor_t scalar = nullptr;
  ASSERT_EQ(sy_tensor_from_host(cpu_, SY_DTYPE_F64, nullptr, 0, &value, 8, &scalar),
            SY_STATUS_OK);
  int32_t ndim = -1;
  ASSERT_EQ(sy_tensor_ndim(scalar, &ndim), SY_STATUS_OK);
  EXPECT_EQ(ndim, 0);
  double back = 0;
  ASSERT_EQ(sy_tensor_to_host(scalar, &back, 8), SY_STATUS_OK);
  EXPECT_EQ(back, value);
}

TEST_F(TensorTest, EmptyAndToDevice) {
  const int64_t shape[2] = {0, 3};
  sy_tensor_t empty = nullptr;
  ASSERT_EQ(sy_tensor_empty(cpu_, SY_DTYPE_I64, shape, 2, &empty), SY_STATUS_OK);
  size_t nbytes = 1;
  ASSERT_EQ(sy_tensor_nbytes(empty, &nbytes), SY_STATUS_OK);
  EXPECT_EQ(nbytes, 0u);
  EXPECT_EQ(sy_tensor_to_host(empty, nullptr, 0), SY_STATUS_OK);

  sy_tensor_t t = F32(cpu_, {2}, {1, 2});
  sy_tensor_t same = nullptr;
  ASSERT_EQ(sy_tensor_to_device(t, cpu_, &same), SY_STATUS_OK);
  void *a = nullptr, *b = nullptr;
  sy_tensor_data_ptr(t, &a);
  sy_tensor_data_ptr(same, &b);
  EXPECT_EQ(a, b);       // already there: the same tensor
  EXPECT_NE(same, t);    // … under a new reference
  ASSERT_EQ(sy_tensor_release(t), SY_STATUS_OK);
  EXPECT_EQ(ReadF32(same), (std::vector<float>{1, 2}));
}

TEST_F(TensorTest, ToAnotherDeviceCopies) {
  ASSERT_EQ(sy_context_load_plugin(context_, TestPlugin("test_good").c_str()), SY_STATUS_OK)
      << sy_last_error_message();
  sy_device_handle_t fake = nullptr;
  ASSERT_EQ(sy_device_find(context_, "fakedev", &fake), SY_STATUS_OK);
  const std::vector<float> data = RandomFloats(7, 3);
  sy_tensor_t t = F32(cpu_, {7}, data);
  sy_tensor_t moved = nullptr;
  ASSERT_EQ(sy_tensor_to_device(t, fake, &moved), SY_STATUS_OK) << sy_last_error_message();
  sy_device_handle_t where = nullptr;
  ASSERT_EQ(sy_tensor_device(moved, &where), SY_STATUS_OK);
  EXPECT_EQ(where, fake);
  EXPECT_EQ(ReadF32(moved), data);
  sy_tensor_t back = nullptr;
  ASSERT_EQ(sy_tensor_to_device(moved, cpu_, &back), SY_STATUS_OK);
  EXPECT_EQ(ReadF32(back), data);
}

TEST_F(TensorTest, RetainAndReleaseCountReferences) {
  sy_tensor_t t = F32(cpu_, {1}, {5});
  ASSERT_EQ(sy_tensor_retain(t), SY_STATUS_OK);
  ASSERT_EQ(sy_tensor_release(t), SY_STATUS_OK);
  EXPECT_EQ(ReadF32(t), (std::vector<float>{5}));  // one reference left
  ASSERT_EQ(sy_tensor_release(t), SY_STATUS_OK);
  const std::string stale = " (" + Hex(t) + ") is a stale tensor handle: it was released, "
                            "or its context was destroyed";
  EXPECT_SY_ERROR(sy_tensor_release(t), SY_STATUS_INVALID_ARGUMENT,
                  "sy_tensor_release: tensor" + stale);
  EXPECT_SY_ERROR(sy_tensor_retain(t), SY_STATUS_INVALID_ARGUMENT,
                  "sy_tensor_retain: tensor" + stale);
  float out = 0;
  EXPECT_SY_ERROR(sy_tensor_to_host(t, &out, 4), SY_STATUS_INVALID_ARGUMENT,
                  "sy_tensor_to_host: tensor" + stale);
  // A new tensor (which may reuse the slot) is not the old handle.
  sy_tensor_t fresh = F32(cpu_, {1}, {6});
  EXPECT_NE(fresh, t);
  EXPECT_SY_ERROR(sy_tensor_to_host(t, &out, 4), SY_STATUS_INVALID_ARGUMENT,
                  "sy_tensor_to_host: tensor" + stale);
  EXPECT_EQ(ReadF32(fresh), (std::vector<float>{6}));
}

TEST_F(TensorTest, BadShapesSizesAndDtypes) {
  sy_tensor_t t = nullptr;
  const int64_t shape[2] = {2, 3};
  const float data[6] = {};
  EXPECT_SY_ERROR(sy_tensor_from_host(cpu_, SY_DTYPE_F32, shape, 2, data, 20, &t),
                  SY_STATUS_INVALID_ARGUMENT,
                  "sy_tensor_from_host: FromHost: f32[2, 3] on cpu:0 needs 24 bytes "
                  "of host data but 20 were given");
  EXPECT_SY_ERROR(sy_tensor_from_host(cpu_, SY_DTYPE_F32, shape, 2, nullptr, 24, &t),
                  SY_STATUS_INVALID_ARGUMENT,
                  "sy_tensor_from_host: FromHost: the host data pointer is null");
  EXPECT_SY_ERROR(sy_tensor_from_host(cpu_, SY_DTYPE_F32, shape, 9, data, 24, &t),
                  SY_STATUS_INVALID_ARGUMENT,
                  "sy_tensor_from_host: ndim is 9; it must be in [0, 8]");
  EXPECT_SY_ERROR(sy_tensor_empty(cpu_, SY_DTYPE_F32, nullptr, 2, &t),
                  SY_STATUS_INVALID_ARGUMENT,
                  "sy_tensor_empty: shape is NULL but ndim is 2");
  const int64_t negative[1] = {-4};
  EXPECT_SY_ERROR(sy_tensor_empty(cpu_, SY_DTYPE_F32, negative, 1, &t),
                  SY_STATUS_INVALID_ARGUMENT,
                  "sy_tensor_empty: cannot create a tensor of shape [-4]: dimensions "
                  "must be >= 0");
  EXPECT_SY_ERROR(sy_tensor_empty(cpu_, SY_DTYPE_MAKE(2, 24), shape, 2, &t),
                  SY_STATUS_INVALID_ARGUMENT,
                  "sy_tensor_empty: cannot create a tensor of dtype 0x11802: not one "
                  "of f32 f64 f16 bf16 i32 i64 i8 u8 bool");
  EXPECT_SY_ERROR(sy_tensor_empty(cpu_, SY_DTYPE_F32, shape, 2, nullptr),
                  SY_STATUS_INVALID_ARGUMENT, "sy_tensor_empty: out_tensor is NULL");
  EXPECT_EQ(t, nullptr);

  sy_tensor_t good = F32(cpu_, {2, 3}, std::vector<float>(6, 1.0f));
  float small[5];
  EXPECT_SY_ERROR(sy_tensor_to_host(good, small, sizeof small), SY_STATUS_INVALID_ARGUMENT,
                  "sy_tensor_to_host: ToHost: f32[2, 3] on cpu:0 has 24 bytes but the "
                  "destination holds 20");
  int64_t dims[1];
  EXPECT_SY_ERROR(sy_tensor_shape(good, dims, 1), SY_STATUS_INVALID_ARGUMENT,
                  "sy_tensor_shape: out_shape holds 1 entries but the tensor has 2 "
                  "dimensions; pass room for SY_MAX_RANK (8)");
  EXPECT_SY_ERROR(sy_tensor_strides(good, nullptr, 8), SY_STATUS_INVALID_ARGUMENT,
                  "sy_tensor_strides: out_strides is NULL");
  EXPECT_EQ(ReadF32(good), std::vector<float>(6, 1.0f));  // all state intact
}

}  // namespace
}  // namespace sy_test
