// Bad input of every kind the issue names — NULL pointers, wrong dtypes or
// shapes, unknown ops or attributes, wrong attribute types, released,
// foreign and garbage handles — returns a status and an exact message, and
// the next valid call works.
#include <string>
#include <vector>

#include "c_api_test_util.h"

namespace sy_test {
namespace {

class BadInputTest : public CApiTest {
 protected:
  void SetUp() override {
    CApiTest::SetUp();
    a_ = F32(cpu_, {2, 3}, RandomFloats(6, 41));
    b_ = F32(cpu_, {2, 3}, RandomFloats(6, 42));
    add_ = Op(context_, "add.Tensor");
    sum_ = Op(context_, "sum");
  }

  // The add still works: nothing the failure touched was left broken.
  void ExpectAddStillWorks() {
    const std::vector<float> a = ReadF32(a_), b = ReadF32(b_);
    sy_tensor_t out = Call1(add_, {a_, b_});
    ASSERT_NE(out, nullptr);
    const std::vector<float> got = ReadF32(out);
    for (size_t i = 0; i < got.size(); ++i) EXPECT_FLOAT_EQ(got[i], a[i] + b[i]);
    EXPECT_EQ(sy_tensor_release(out), SY_STATUS_OK);
  }

  sy_status_code_t CallAdd(std::vector<sy_tensor_t> inputs, sy_tensor_t* out) {
    return sy_op_call(add_, inputs.data(), static_cast<int32_t>(inputs.size()), nullptr, 0,
                      out, 1);
  }

  sy_tensor_t a_ = nullptr, b_ = nullptr;
  sy_op_t add_ = nullptr, sum_ = nullptr;
};

TEST_F(BadInputTest, NullPointers) {
  sy_tensor_t out = nullptr;
  EXPECT_SY_ERROR(sy_op_call(add_, nullptr, 2, nullptr, 0, &out, 1),
                  SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_call: inputs is NULL but its count is 2");
  EXPECT_SY_ERROR(sy_op_call(add_, &a_, -1, nullptr, 0, &out, 1), SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_call: the number of inputs is -1; it must be >= 0");
  EXPECT_SY_ERROR(sy_op_call(add_, &a_, 1, nullptr, 3, &out, 1), SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_call: attrs is NULL but its count is 3");
  const sy_tensor_t inputs[2] = {a_, b_};
  EXPECT_SY_ERROR(sy_op_call(add_, inputs, 2, nullptr, 0, nullptr, 1),
                  SY_STATUS_INVALID_ARGUMENT, "sy_op_call: out_outputs is NULL");
  EXPECT_SY_ERROR(sy_op_call(nullptr, inputs, 2, nullptr, 0, &out, 1),
                  SY_STATUS_INVALID_ARGUMENT, "sy_op_call: op is NULL; pass an op handle");
  EXPECT_SY_ERROR(CallAdd({a_, nullptr}, &out), SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_call: add.Tensor: argument 'b' is an undefined tensor; pass a "
                  "tensor (the argument is required)");
  EXPECT_SY_ERROR(sy_context_create(nullptr, nullptr), SY_STATUS_INVALID_ARGUMENT,
                  "sy_context_create: out_context is NULL");
  EXPECT_SY_ERROR(sy_tensor_dtype(a_, nullptr), SY_STATUS_INVALID_ARGUMENT,
                  "sy_tensor_dtype: out_dtype is NULL");
  EXPECT_SY_ERROR(sy_device_synchronize(nullptr), SY_STATUS_INVALID_ARGUMENT,
                  "sy_device_synchronize: device is NULL; pass a device handle");
  EXPECT_EQ(out, nullptr);
  ExpectAddStillWorks();
}

TEST_F(BadInputTest, WrongCountsDtypesAndShapes) {
  sy_tensor_t out = nullptr;
  EXPECT_SY_ERROR(CallAdd({a_}, &out), SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_call: add.Tensor: expects 2 input tensor(s) (a, b) but got 1");
  const sy_tensor_t inputs[2] = {a_, b_};
  sy_tensor_t two[2];
  EXPECT_SY_ERROR(sy_op_call(add_, inputs, 2, nullptr, 0, two, 2), SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_call: add.Tensor returns 1 tensor(s) but num_outputs is 2; pass "
                  "room for exactly that many");
  sy_tensor_t wide = F32(cpu_, {2, 4}, RandomFloats(8, 43));
  EXPECT_SY_ERROR_LIKE(CallAdd({a_, wide}, &out), SY_STATUS_INVALID_ARGUMENT,
                       "sy_op_call: add.Tensor: ", "[2, 3]");
  const int64_t shape[2] = {2, 3};
  const int32_t ints[6] = {1, 2, 3, 4, 5, 6};
  sy_tensor_t i32 = nullptr;
  ASSERT_EQ(sy_tensor_from_host(cpu_, SY_DTYPE_I32, shape, 2, ints, sizeof ints, &i32),
            SY_STATUS_OK);
  sy_tensor_t m = nullptr;
  EXPECT_SY_ERROR_LIKE(sy_op_call(Op(context_, "mean"), &i32, 1, nullptr, 0, &m, 1),
                       SY_STATUS_INVALID_ARGUMENT, "sy_op_call: mean", "i32");
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(m, nullptr);
  ExpectAddStillWorks();
}

TEST_F(BadInputTest, UnknownOpsAndAttributes) {
  sy_op_t op = nullptr;
  EXPECT_SY_ERROR_LIKE(sy_op_find(context_, "frobnicate", &op), SY_STATUS_NOT_FOUND,
                       "sy_op_find: no op named 'frobnicate'", "switchyard ops");
  sy_tensor_t out = nullptr;
  const std::vector<int64_t> dims = {1};
  const sy_attr_t three[3] = {IntsAttr(dims), BoolAttr(false), IntAttr(0)};
  EXPECT_SY_ERROR(sy_op_call(sum_, &a_, 1, three, 3, &out, 1), SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_call: sum: takes 2 attribute(s) (dims, keepdim) but got 3");
  sy_attr_t unknown_kind{};
  unknown_kind.kind = 42;
  EXPECT_SY_ERROR(sy_op_call(sum_, &a_, 1, &unknown_kind, 1, &out, 1),
                  SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_call: sum: attribute 'dims' must be int[], got an attribute of "
                  "unknown kind");
  sy_attr_t use_default{};
  use_default.kind = SY_ATTR_DEFAULT;
  const sy_attr_t transpose_attrs[2] = {use_default, IntAttr(1)};
  EXPECT_SY_ERROR(sy_op_call(Op(context_, "transpose"), &a_, 1, transpose_attrs, 2, &out, 1),
                  SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_call: transpose: attribute 'dim0' has no default; pass a value "
                  "instead of SY_ATTR_DEFAULT");
  EXPECT_EQ(out, nullptr);
  ExpectAddStillWorks();
}

TEST_F(BadInputTest, WrongAttributeTypes) {
  sy_tensor_t out = nullptr;
  const sy_attr_t as_float[1] = {FloatAttr(1.0)};
  EXPECT_SY_ERROR(sy_op_call(sum_, &a_, 1, as_float, 1, &out, 1), SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_call: sum: attribute 'dims' must be int[], got a float");
  const std::vector<int64_t> dims = {0};
  const sy_attr_t keepdim_int[2] = {IntsAttr(dims), IntAttr(1)};
  EXPECT_SY_ERROR(sy_op_call(sum_, &a_, 1, keepdim_int, 2, &out, 1),
                  SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_call: sum: attribute 'keepdim' must be bool, got an int");
  sy_attr_t bad_dtype{};
  bad_dtype.kind = SY_ATTR_DTYPE;
  bad_dtype.value.dtype = SY_DTYPE_MAKE(2, 24);
  EXPECT_SY_ERROR(sy_op_call(Op(context_, "cast"), &a_, 1, &bad_dtype, 1, &out, 1),
                  SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_call: cast: attribute 'dtype' is not a valid dtype; use one of "
                  "f32 f64 f16 bf16 i32 i64 i8 u8 bool");
  sy_attr_t none{};
  none.kind = SY_ATTR_NONE;
  EXPECT_SY_ERROR(sy_op_call(sum_, &a_, 1, &none, 1, &out, 1), SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_call: sum: attribute 'dims' is not optional; pass a value");
  const sy_attr_t fast = StringAttr("fast");
  EXPECT_SY_ERROR_LIKE(sy_op_call(Op(context_, "gelu"), &a_, 1, &fast, 1, &out, 1),
                       SY_STATUS_INVALID_ARGUMENT, "sy_op_call: gelu", "fast");
  EXPECT_EQ(out, nullptr);
  ExpectAddStillWorks();
}

TEST_F(BadInputTest, ReleasedGarbageAndWrongKindHandles) {
  sy_tensor_t gone = F32(cpu_, {2, 3}, RandomFloats(6, 44));
  ASSERT_EQ(sy_tensor_release(gone), SY_STATUS_OK);
  sy_tensor_t out = nullptr;
  EXPECT_SY_ERROR(CallAdd({a_, gone}, &out), SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_call: add.Tensor: input #1 ('b') (" + Hex(gone) +
                      ") is a stale tensor handle: it was released, or its context was "
                      "destroyed");

  int on_the_stack = 0;
  sy_tensor_t garbage = reinterpret_cast<sy_tensor_t>(&on_the_stack);
  EXPECT_SY_ERROR(CallAdd({garbage, b_}, &out), SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_call: add.Tensor: input #0 ('a') (" + Hex(garbage) +
                      ") is not a Switchyard handle: a garbage pointer, or a value that "
                      "never came from this library");
  sy_tensor_t device_as_tensor = reinterpret_cast<sy_tensor_t>(cpu_);
  EXPECT_SY_ERROR(CallAdd({a_, device_as_tensor}, &out), SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_call: add.Tensor: input #1 ('b') (" + Hex(cpu_) +
                      ") is a device handle, not a tensor handle");
  sy_context_t tensor_as_context = reinterpret_cast<sy_context_t>(a_);
  sy_op_t op = nullptr;
  EXPECT_SY_ERROR(sy_op_find(tensor_as_context, "add", &op), SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_find: context (" + Hex(a_) +
                      ") is a tensor handle, not a context handle");
  // A token with a slot index far past the table.
  sy_tensor_t forged = reinterpret_cast<sy_tensor_t>(
      (uintptr_t{0x5A} << 56) | (uintptr_t{4} << 52) | (uintptr_t{1} << 28) | 0xFFFFFFF);
  EXPECT_SY_ERROR(sy_tensor_retain(forged), SY_STATUS_INVALID_ARGUMENT,
                  "sy_tensor_retain: tensor (" + Hex(forged) +
                      ") is a stale tensor handle: it was released, or its context was "
                      "destroyed");
  EXPECT_EQ(out, nullptr);
  ExpectAddStillWorks();
}

TEST_F(BadInputTest, HandlesOfAnotherContext) {
  sy_context_t other = MakeContext();
  sy_tensor_t foreign = F32(Cpu(other), {2, 3}, RandomFloats(6, 45));
  sy_tensor_t out = nullptr;
  EXPECT_SY_ERROR(CallAdd({a_, foreign}, &out), SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_call: add.Tensor: input #1 ('b') (" + Hex(foreign) +
                      ") belongs to another context; tensors and ops must come from the "
                      "same context");
  sy_tensor_t moved = nullptr;
  EXPECT_SY_ERROR(sy_tensor_to_device(foreign, cpu_, &moved), SY_STATUS_INVALID_ARGUMENT,
                  "sy_tensor_to_device: the tensor and the device belong to different "
                  "contexts; copy between contexts through the host (sy_tensor_to_host, "
                  "sy_tensor_from_host) or DLPack");
  ASSERT_EQ(sy_context_destroy(other), SY_STATUS_OK);
  EXPECT_SY_ERROR(CallAdd({a_, foreign}, &out), SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_call: add.Tensor: input #1 ('b') (" + Hex(foreign) +
                      ") is a stale tensor handle: it was released, or its context was "
                      "destroyed");
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(moved, nullptr);
  ExpectAddStillWorks();
}

TEST_F(BadInputTest, TensorsOnDifferentDevices) {
  ASSERT_EQ(sy_context_load_plugin(context_, TestPlugin("test_good").c_str()), SY_STATUS_OK);
  sy_device_handle_t fake = nullptr;
  ASSERT_EQ(sy_device_find(context_, "fakedev", &fake), SY_STATUS_OK);
  sy_tensor_t there = F32(fake, {2, 3}, RandomFloats(6, 46));
  sy_tensor_t out = nullptr;
  EXPECT_SY_ERROR_LIKE(CallAdd({a_, there}, &out), SY_STATUS_INVALID_ARGUMENT,
                       "sy_op_call: add.Tensor: argument 'b' is on fakedev:0", "cpu:0");
  ASSERT_EQ(sy_tensor_release(there), SY_STATUS_OK);
  ASSERT_EQ(sy_context_unload_plugin(context_, "test_good"), SY_STATUS_OK);
  ExpectAddStillWorks();
}

// An output that reaches one element from two indices (a broadcast view,
// stride 0) is refused before any kernel runs: the kernel would write the
// element twice. The same output shape, contiguous, works.
TEST_F(BadInputTest, SelfOverlappingOutputIsRefused) {
  const std::vector<float> values = RandomFloats(3, 43);
  sy_tensor_t one = F32(cpu_, {1, 3}, values);
  const std::vector<int64_t> shape = {2, 3};
  sy_tensor_t broadcast = Call1(Op(context_, "expand"), {one}, {IntsAttr(shape)});
  ASSERT_NE(broadcast, nullptr);
  sy_tensor_t inputs[] = {a_, b_};
  EXPECT_SY_ERROR(sy_op_call_out(add_, inputs, 2, nullptr, 0, &broadcast, 1),
                  SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_call_out: add.Tensor: output #0 (f32[2, 3] on cpu:0, strides [0, 1]) "
                  "may reach "
                  "one element from two indices (a stride of 0, or overlapping strides), "
                  "so a kernel would write it twice; pass a contiguous output");
  EXPECT_EQ(ReadF32(one), values);  // nothing was written
  ExpectAddStillWorks();
  EXPECT_EQ(sy_tensor_release(broadcast), SY_STATUS_OK);
  EXPECT_EQ(sy_tensor_release(one), SY_STATUS_OK);
}

}  // namespace
}  // namespace sy_test
