// API 1.1: an op's kernels, pins, and sy_op_call_ex / sy_op_explain_ex with
// a route (a named kernel and variant, or the decomposition) — what the
// CLI, the benchmarks and the conformance tool use.
#include <cmath>
#include <string>
#include <vector>

#include "c_api_test_util.h"

namespace sy_test {
namespace {

using RoutesTest = CApiTest;

std::vector<sy_kernel_info_t> Kernels(sy_op_t op) {
  int32_t count = 0;
  EXPECT_EQ(sy_op_kernel_count(op, &count), SY_STATUS_OK) << sy_last_error_message();
  std::vector<sy_kernel_info_t> kernels(static_cast<size_t>(count));
  for (int32_t i = 0; i < count; ++i) {
    kernels[i].struct_size = sizeof(sy_kernel_info_t);
    EXPECT_EQ(sy_op_kernel_get(op, i, &kernels[i]), SY_STATUS_OK)
        << sy_last_error_message();
  }
  return kernels;
}

const sy_kernel_info_t* Find(const std::vector<sy_kernel_info_t>& kernels,
                             const std::string& name) {
  for (const sy_kernel_info_t& k : kernels) {
    if (name == k.name) return &k;
  }
  return nullptr;
}

std::string Explain(const sy_op_call_args_t& args) {
  const char* text = nullptr;
  EXPECT_EQ(sy_op_explain_ex(&args, &text), SY_STATUS_OK) << sy_last_error_message();
  return text == nullptr ? "" : text;
}

TEST_F(RoutesTest, KernelsAreListedWithDtypesAndTheChoice) {
  sy_op_t add = Op(context_, "add.Tensor");
  const std::vector<sy_kernel_info_t> kernels = Kernels(add);
  const sy_kernel_info_t* f32 = Find(kernels, "cpu::add.Tensor.f32.f32");
  ASSERT_NE(f32, nullptr);
  EXPECT_EQ(std::string(f32->plugin), "cpu");
  EXPECT_EQ(std::string(f32->device_type), "cpu");
  ASSERT_EQ(f32->num_dtypes, 2);
  EXPECT_EQ(f32->dtypes[0], SY_DTYPE_F32);
  EXPECT_EQ(f32->dtypes[1], SY_DTYPE_F32);
  EXPECT_EQ(f32->chosen, 1);
  EXPECT_EQ(std::string(f32->chosen_because), "priority");
  EXPECT_EQ(f32->may_decline, 0);

  int32_t count = 0;
  sy_op_kernel_count(add, &count);
  sy_kernel_info_t info{};
  info.struct_size = sizeof info;
  EXPECT_SY_ERROR(sy_op_kernel_get(add, count, &info), SY_STATUS_OUT_OF_RANGE,
                  "sy_op_kernel_get: add.Tensor: kernel index " + std::to_string(count) +
                      " is out of range: it has " + std::to_string(count) +
                      " kernel(s) (see sy_op_kernel_count)");
  info.struct_size = 8;
  EXPECT_SY_ERROR_LIKE(sy_op_kernel_get(add, 0, &info), SY_STATUS_INVALID_ARGUMENT,
                       "sy_op_kernel_get: out_kernel->struct_size is 8",
                       "sizeof(sy_kernel_info_t)");
}

TEST_F(RoutesTest, PinChangesWhatRunsAndUnpinRestoresIt) {
  sy_op_t add = Op(context_, "add.Tensor");
  sy_tensor_t x = F32(cpu_, {3}, {1, 2, 3});
  const sy_tensor_t inputs[2] = {x, x};
  sy_op_call_args_t args;
  sy_op_call_args_init(&args);
  args.op = add;
  args.inputs = inputs;
  args.num_inputs = 2;
  EXPECT_EQ(Explain(args), "kernel cpu::add.Tensor.f32.f32 (priority)");

  ASSERT_EQ(sy_op_pin_kernel(add, "cpu", "add.Tensor.f32.f32"), SY_STATUS_OK)
      << sy_last_error_message();
  EXPECT_EQ(Explain(args), "kernel cpu::add.Tensor.f32.f32 (pinned)");
  const std::vector<sy_kernel_info_t> kernels = Kernels(add);
  const sy_kernel_info_t* pinned = Find(kernels, "cpu::add.Tensor.f32.f32");
  ASSERT_NE(pinned, nullptr);
  EXPECT_EQ(std::string(pinned->chosen_because), "pinned");
  ASSERT_EQ(sy_op_unpin_kernel(add, "cpu"), SY_STATUS_OK);
  EXPECT_EQ(Explain(args), "kernel cpu::add.Tensor.f32.f32 (priority)");

  EXPECT_SY_ERROR_LIKE(sy_op_pin_kernel(add, "cpu", "nosuch"), SY_STATUS_NOT_FOUND,
                       "sy_op_pin_kernel: cannot pin kernel 'nosuch' for add.Tensor on cpu",
                       "cpu::add.Tensor.f32.f32");
  EXPECT_SY_ERROR(sy_op_pin_kernel(add, nullptr, "x"), SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_pin_kernel: device_type is NULL");
}

TEST_F(RoutesTest, CallExRunsANamedKernelOrTheDecomposition) {
  const std::vector<float> values = RandomFloats(24, 71);
  sy_tensor_t x = F32(cpu_, {4, 6}, values);
  sy_tensor_t w = F32(cpu_, {6}, RandomFloats(6, 72, 0.5f, 1.5f));
  sy_op_t rms = Op(context_, "rms_norm");
  const sy_tensor_t inputs[2] = {x, w};
  sy_op_call_args_t args;
  sy_op_call_args_init(&args);
  args.op = rms;
  args.inputs = inputs;
  args.num_inputs = 2;

  sy_tensor_t by_kernel = nullptr, by_decomposition = nullptr;
  args.out_outputs = &by_kernel;
  args.num_outputs = 1;
  ASSERT_EQ(sy_op_call_ex(&args), SY_STATUS_OK) << sy_last_error_message();

  args.route = SY_ROUTE_DECOMPOSITION;
  EXPECT_EQ(Explain(args), "decomposition (requested)");
  args.out_outputs = &by_decomposition;
  ASSERT_EQ(sy_op_call_ex(&args), SY_STATUS_OK) << sy_last_error_message();
  const std::vector<float> a = ReadF32(by_kernel), b = ReadF32(by_decomposition);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5) << i;

  // Into given outputs, by name.
  args.route = SY_ROUTE_KERNEL;
  const std::vector<sy_kernel_info_t> kernels = Kernels(rms);
  const sy_kernel_info_t* f32 = nullptr;
  for (const sy_kernel_info_t& k : kernels) {
    if (k.dtypes[0] == SY_DTYPE_F32) f32 = &k;
  }
  ASSERT_NE(f32, nullptr);
  args.kernel = f32->name;
  EXPECT_EQ(Explain(args), std::string("kernel ") + f32->name + " (requested)");
  sy_tensor_t out = F32(cpu_, {4, 6}, std::vector<float>(24, 0.0f));
  args.out_outputs = nullptr;
  args.outputs = &out;
  ASSERT_EQ(sy_op_call_ex(&args), SY_STATUS_OK) << sy_last_error_message();
  const std::vector<float> c = ReadF32(out);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], c[i]) << i;
  sy_tensor_release(by_kernel);
  sy_tensor_release(by_decomposition);
}

TEST_F(RoutesTest, CallExRefusesWhatItCannotRun) {
  sy_tensor_t x = F32(cpu_, {2, 2}, {1, 2, 3, 4});
  const sy_tensor_t inputs[2] = {x, x};
  sy_tensor_t out = nullptr;
  sy_op_call_args_t args;
  sy_op_call_args_init(&args);
  args.op = Op(context_, "add.Tensor");
  args.inputs = inputs;
  args.num_inputs = 2;
  args.out_outputs = &out;
  args.num_outputs = 1;

  EXPECT_SY_ERROR(sy_op_call_ex(nullptr), SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_call_ex: args is NULL");
  args.route = 7;
  EXPECT_SY_ERROR(sy_op_call_ex(&args), SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_call_ex: args->route is 7; use SY_ROUTE_DEFAULT (0), "
                  "SY_ROUTE_KERNEL (1) or SY_ROUTE_DECOMPOSITION (2)");
  args.route = SY_ROUTE_KERNEL;
  EXPECT_SY_ERROR_LIKE(sy_op_call_ex(&args), SY_STATUS_INVALID_ARGUMENT,
                       "sy_op_call_ex: args->kernel is NULL", "SY_ROUTE_KERNEL");
  args.kernel = "cpu::add.Tensor.f64.f64";
  EXPECT_SY_ERROR_LIKE(sy_op_call_ex(&args), SY_STATUS_NOT_FOUND,
                       "sy_op_call_ex: add.Tensor: no kernel 'cpu::add.Tensor.f64.f64' "
                       "for input dtypes (f32, f32) on cpu:0",
                       "cpu::add.Tensor.f32.f32");
  args.kernel = "cpu::add.Tensor.f32.f32";
  args.variant = 3;
  EXPECT_SY_ERROR_LIKE(sy_op_call_ex(&args), SY_STATUS_OUT_OF_RANGE,
                       "sy_op_call_ex: add.Tensor: kernel cpu::add.Tensor.f32.f32 has 0 "
                       "variant(s)", "use -1 for its default");
  args.variant = -1;
  args.outputs = &x;
  EXPECT_SY_ERROR_LIKE(sy_op_call_ex(&args), SY_STATUS_INVALID_ARGUMENT,
                       "sy_op_call_ex: pass exactly one of args->outputs", "out_outputs");
  args.outputs = nullptr;
  args.route = SY_ROUTE_DECOMPOSITION;
  EXPECT_SY_ERROR_LIKE(sy_op_call_ex(&args), SY_STATUS_FAILED_PRECONDITION,
                       "sy_op_call_ex: add.Tensor's decomposition does not apply",
                       "need no promotion");
  args.op = Op(context_, "transpose");
  args.num_inputs = 1;
  const sy_attr_t dims[2] = {IntAttr(0), IntAttr(1)};
  args.attrs = dims;
  args.num_attrs = 2;
  EXPECT_SY_ERROR_LIKE(sy_op_call_ex(&args), SY_STATUS_FAILED_PRECONDITION,
                       "sy_op_call_ex: transpose is a view op", "no kernel");
  args.struct_size = 16;
  EXPECT_SY_ERROR_LIKE(sy_op_call_ex(&args), SY_STATUS_INVALID_ARGUMENT,
                       "sy_op_call_ex: args->struct_size is 16", "sy_op_call_args_t");
  EXPECT_EQ(out, nullptr);  // nothing was made by any of these
}

TEST_F(RoutesTest, CallExWithTheDefaultRouteIsCallOut) {
  sy_tensor_t x = F32(cpu_, {3}, {1, -2, 3});
  sy_tensor_t out = F32(cpu_, {3}, {0, 0, 0});
  sy_op_call_args_t args;
  sy_op_call_args_init(&args);
  args.op = Op(context_, "relu");
  args.inputs = &x;
  args.num_inputs = 1;
  args.outputs = &out;
  args.num_outputs = 1;
  ASSERT_EQ(sy_op_call_ex(&args), SY_STATUS_OK) << sy_last_error_message();
  EXPECT_EQ(ReadF32(out), (std::vector<float>{1, 0, 3}));
}

}  // namespace
}  // namespace sy_test
