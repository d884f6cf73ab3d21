// Version queries, status code names, dtype helpers and the thread-local
// last error.
#include <string>
#include <thread>

#include "c_api_test_util.h"

namespace sy_test {
namespace {

TEST(VersionTest, ReportsTheHeaderVersion) {
  uint32_t major = 99, minor = 99;
  ASSERT_EQ(sy_api_version(&major, &minor), SY_STATUS_OK);
  EXPECT_EQ(major, SY_API_VERSION_MAJOR);
  EXPECT_EQ(minor, SY_API_VERSION_MINOR);
  EXPECT_EQ(sy_api_version(nullptr, nullptr), SY_STATUS_OK);  // both optional
  EXPECT_FALSE(std::string(sy_library_version()).empty());
}

TEST(StatusTest, NamesEveryCode) {
  EXPECT_STREQ(sy_status_code_name(SY_STATUS_OK), "OK");
  EXPECT_STREQ(sy_status_code_name(SY_STATUS_INVALID_ARGUMENT), "INVALID_ARGUMENT");
  EXPECT_STREQ(sy_status_code_name(SY_STATUS_DATA_LOSS), "DATA_LOSS");
  EXPECT_STREQ(sy_status_code_name(static_cast<sy_status_code_t>(77)), "UNKNOWN_CODE");
}

TEST(DTypeTest, NamesSizesAndParsing) {
  EXPECT_STREQ(sy_dtype_name(SY_DTYPE_F32), "f32");
  EXPECT_STREQ(sy_dtype_name(SY_DTYPE_BF16), "bf16");
  EXPECT_STREQ(sy_dtype_name(SY_DTYPE_MAKE(2, 24)), "invalid");
  EXPECT_EQ(sy_dtype_size(SY_DTYPE_F64), 8u);
  EXPECT_EQ(sy_dtype_size(SY_DTYPE_BOOL), 1u);
  EXPECT_EQ(sy_dtype_size(SY_DTYPE_MAKE(2, 24)), 0u);
  sy_dtype_t dtype = 0;
  ASSERT_EQ(sy_dtype_from_name("float32", &dtype), SY_STATUS_OK);
  EXPECT_EQ(dtype, SY_DTYPE_F32);
  ASSERT_EQ(sy_dtype_from_name("bool", &dtype), SY_STATUS_OK);
  EXPECT_EQ(dtype, SY_DTYPE_BOOL);
  EXPECT_SY_ERROR(sy_dtype_from_name("f31", &dtype), SY_STATUS_INVALID_ARGUMENT,
                  "sy_dtype_from_name: unknown dtype 'f31'; use one of f32 f64 f16 "
                  "bf16 i32 i64 i8 u8 bool (or float32, float64, float16, bfloat16, "
                  "int32, int64, int8, uint8)");
  EXPECT_EQ(dtype, SY_DTYPE_BOOL);  // untouched by the failure
  EXPECT_SY_ERROR(sy_dtype_from_name(nullptr, &dtype), SY_STATUS_INVALID_ARGUMENT,
                  "sy_dtype_from_name: name is NULL");
  EXPECT_SY_ERROR(sy_dtype_from_name("f32", nullptr), SY_STATUS_INVALID_ARGUMENT,
                  "sy_dtype_from_name: out_dtype is NULL");
}

TEST(LastErrorTest, SuccessClearsAndThreadsDoNotShare) {
  sy_dtype_t dtype;
  ASSERT_NE(sy_dtype_from_name("nope", &dtype), SY_STATUS_OK);
  const std::string mine = sy_last_error_message();
  EXPECT_FALSE(mine.empty());

  std::string other_message = "unset";
  sy_status_code_t other_code = SY_STATUS_UNKNOWN;
  std::thread([&] {
    other_message = sy_last_error_message();  // a fresh thread: nothing yet
    other_code = sy_last_error_code();
    sy_dtype_t d;
    (void)sy_dtype_from_name("also-nope", &d);
  }).join();
  EXPECT_EQ(other_message, "");
  EXPECT_EQ(other_code, SY_STATUS_OK);
  EXPECT_EQ(std::string(sy_last_error_message()), mine);  // not overwritten

  ASSERT_EQ(sy_dtype_from_name("f16", &dtype), SY_STATUS_OK);
  EXPECT_EQ(sy_last_error_code(), SY_STATUS_OK);
  EXPECT_STREQ(sy_last_error_message(), "");
}

}  // namespace
}  // namespace sy_test
