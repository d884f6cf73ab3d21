// conv2d (NCHW) against a direct long double loop, for f32, f64, f16 and
// bf16: stride, padding, dilation, groups (incl. depthwise), bias or none,
// 1×1, strided and padded tensors, sizes large enough to be blocked and
// threaded; plus bad calls with their exact messages.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cpu_fixture.h"
#include "linalg_test_util.h"

namespace sy::testing {
namespace {

struct ConvCase {
  int64_t n, c, h, w, out_c, kh, kw;
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups;
  bool bias;
};

void PrintTo(const ConvCase& c, std::ostream* os) {
  *os << "x [" << c.n << ", " << c.c << ", " << c.h << ", " << c.w
      << "] weight [" << c.out_c << ", " << c.c / std::max<int64_t>(c.groups, 1)
      << ", " << c.kh << ", " << c.kw << "] stride " << ShapeString(c.stride)
      << " padding " << ShapeString(c.padding) << " dilation "
      << ShapeString(c.dilation) << " groups " << c.groups
      << (c.bias ? " bias" : " no bias");
}

int64_t OutSize(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
  return (in + 2 * p - d * (k - 1) - 1) / s + 1;
}

const ConvCase kCases[] = {
    {2, 3, 9, 11, 4, 3, 3, {1, 1}, {0, 0}, {1, 1}, 1, true},
    {1, 4, 10, 9, 6, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, false},  // stride 2
    {2, 3, 12, 12, 5, 3, 3, {1, 1}, {2, 2}, {2, 2}, 1, true},  // dilation 2
    {2, 4, 8, 8, 6, 3, 3, {1, 1}, {1, 1}, {1, 1}, 2, true},    // groups 2
    {1, 6, 9, 7, 6, 3, 3, {1, 1}, {1, 1}, {1, 1}, 6, true},    // depthwise
    {2, 6, 9, 7, 12, 3, 3, {2, 1}, {1, 0}, {1, 1}, 6, false},  // 2 per group
    {2, 8, 5, 6, 16, 1, 1, {1, 1}, {0, 0}, {1, 1}, 1, false},  // 1×1
    {1, 8, 7, 7, 4, 1, 1, {2, 2}, {0, 0}, {1, 1}, 2, true},    // 1×1 strided
    {1, 2, 7, 13, 3, 2, 5, {2, 3}, {1, 2}, {1, 2}, 1, true},   // asymmetric
    {1, 1, 1, 1, 2, 3, 3, {1, 1}, {2, 2}, {1, 1}, 1, true},    // all padding
    {1, 0, 4, 4, 2, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1, true},    // no channels
    {0, 3, 4, 4, 2, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1, true},    // no images
    // Blocked (K > KC, C_out > MC) and threaded.
    {2, 32, 20, 20, 40, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1, true},
    {1, 16, 24, 24, 150, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1, false},
    {3, 8, 30, 34, 16, 5, 5, {2, 2}, {2, 2}, {1, 1}, 2, true},
};

// Layout combination k of (x, weight, output, bias): 0 contiguous; 1 x
// transposed, weight padded; 2 weight transposed, output padded, bias
// padded; 3 everything padded.
Layout LayoutOf(int combo, int operand) {
  static constexpr Layout C = Layout::kContiguous, T = Layout::kTransposed,
                          P = Layout::kPadded;
  static constexpr Layout kTable[4][4] = {
      {C, C, C, C}, {T, P, C, C}, {C, T, P, P}, {P, P, P, P}};
  return kTable[combo][operand];
}

sy_attr_t IntAttr(int64_t value) {
  sy_attr_t a{};
  a.kind = SY_ATTR_INT;
  a.value.i = value;
  return a;
}

class Conv2dTest : public CpuPluginTest {
 protected:
  // Runs the conv2d kernel for `dtype` with or without bias, passing the
  // bias the dispatcher's way (an omitted one spans zero inputs).
  Status RunConv(sy_dtype_t dtype, const sy_tensor_view_t& x,
                 const sy_tensor_view_t& w, const sy_tensor_view_t* bias,
                 const sy_tensor_view_t& out, const ConvCase& c) {
    const sy_dtype_t dtypes[] = {dtype, dtype,
                                 bias != nullptr ? dtype : SY_DTYPE_NONE};
    const RegisteredKernel* kernel = host_->FindKernel("conv2d", dtypes);
    if (kernel == nullptr) return {SY_STATUS_NOT_FOUND, "no kernel"};
    const std::vector<sy_attr_t> attrs = {
        IntsAttr(c.stride), IntsAttr(c.padding), IntsAttr(c.dilation),
        IntAttr(c.groups)};
    return RunWithOptional(*kernel, {&x, &w, bias}, out, attrs, stream_);
  }

  template <class T>
  void Check(const ConvCase& c, int combo, uint32_t seed) {
    SCOPED_TRACE(::testing::PrintToString(c) + " layout " +
                 std::to_string(combo));
    const int64_t cig = c.c / c.groups, cog = c.out_c / c.groups;
    const int64_t oh =
        OutSize(c.h, c.kh, c.stride[0], c.padding[0], c.dilation[0]);
    const int64_t ow =
        OutSize(c.w, c.kw, c.stride[1], c.padding[1], c.dilation[1]);
    const auto x =
        TypedTensor<T>::Random({c.n, c.c, c.h, c.w}, seed, LayoutOf(combo, 0));
    const auto w = TypedTensor<T>::Random({c.out_c, cig, c.kh, c.kw}, seed + 1,
                                          LayoutOf(combo, 1));
    const auto bias =
        TypedTensor<T>::Random({c.out_c}, seed + 2, LayoutOf(combo, 3));
    auto out = TypedTensor<T>::Make({c.n, c.out_c, oh, ow}, LayoutOf(combo, 2));
    const sy_tensor_view_t bias_view = bias.view();
    const Status status = RunConv(plugin::kDtypeOf<T>, x.view(), w.view(),
                                  c.bias ? &bias_view : nullptr, out.view(), c);
    ASSERT_TRUE(status.ok()) << status.message;

    double u = 0x1p-24, rounding = 0, tiny = 0;
    if constexpr (std::is_same_v<T, double>) u = 0x1p-53;
    if constexpr (std::is_same_v<T, plugin::Half>)
      rounding = 0x1p-11, tiny = 0x1p-24;
    if constexpr (std::is_same_v<T, plugin::BFloat16>) rounding = 0x1p-8;
    const int64_t k = cig * c.kh * c.kw + 1;
    int failures = 0;
    ForEachIndex(out.shape(), [&](std::span<const int64_t> o) {
      if (failures > 5) return;
      const int64_t g = o[1] / cog;
      long double want = 0, scale = 0;
      if (c.bias) {
        const int64_t bi[] = {o[1]};
        want = ToLong(bias.at(bi));
        scale = std::fabs(want);
      }
      for (int64_t ci = 0; ci < cig; ++ci) {
        for (int64_t i = 0; i < c.kh; ++i) {
          for (int64_t j = 0; j < c.kw; ++j) {
            const int64_t ih =
                o[2] * c.stride[0] - c.padding[0] + i * c.dilation[0];
            const int64_t iw =
                o[3] * c.stride[1] - c.padding[1] + j * c.dilation[1];
            if (ih < 0 || ih >= c.h || iw < 0 || iw >= c.w) continue;
            const int64_t xi[] = {o[0], g * cig + ci, ih, iw};
            const int64_t wi[] = {o[1], ci, i, j};
            const long double p = ToLong(x.at(xi)) * ToLong(w.at(wi));
            want += p;
            scale += std::fabs(p);
          }
        }
      }
      const long double tol =
          (k + 2) * u * scale * 1.01L + rounding * std::fabs(want) + tiny;
      const long double err = std::fabs(ToLong(out.at(o)) - want);
      if (!(err <= tol)) {
        ADD_FAILURE() << "at " << ShapeString(o) << ": got "
                      << static_cast<double>(ToLong(out.at(o))) << ", want "
                      << static_cast<double>(want) << " (error "
                      << static_cast<double>(err) << " > "
                      << static_cast<double>(tol) << ")";
        ++failures;
      }
    });
    EXPECT_TRUE(out.OutsideUntouched());
  }
};

template <class T>
class Conv2dTypedTest : public Conv2dTest {};

using ConvTypes =
    ::testing::Types<float, double, plugin::Half, plugin::BFloat16>;
TYPED_TEST_SUITE(Conv2dTypedTest, ConvTypes);

TYPED_TEST(Conv2dTypedTest, MatchesDirectLoop) {
  uint32_t seed = 1;
  for (const ConvCase& c : kCases) {
    for (int combo = 0; combo < 4; ++combo) {
      this->template Check<TypeParam>(c, combo, seed += 3);
    }
  }
}

// Other thread counts cut the same convolutions into other tiles (row and
// column blocks, a shared im2col).
TYPED_TEST(Conv2dTypedTest, MatchesDirectLoopOnOtherThreadCounts) {
  for (int threads : {1, 3, 8}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    const ThreadCount count(threads);
    this->TearDown();
    this->SetUp();
    uint32_t seed = 500;
    for (const ConvCase& c : kCases) {
      this->template Check<TypeParam>(c, threads % 4, seed += 3);
    }
  }
}

TEST_F(Conv2dTest, RegistersEveryDtypeWithAndWithoutBias) {
  for (sy_dtype_t d :
       {SY_DTYPE_F32, SY_DTYPE_F64, SY_DTYPE_F16, SY_DTYPE_BF16}) {
    const std::string name(plugin::DtypeName(d));
    for (sy_dtype_t bias : {d, SY_DTYPE_NONE}) {
      const sy_dtype_t dtypes[] = {d, d, bias};
      const RegisteredKernel* k = host_->FindKernel("conv2d", dtypes);
      ASSERT_NE(k, nullptr) << name;
      EXPECT_EQ(k->name, "conv2d." + name + "." + name + "." +
                             std::string(plugin::DtypeName(bias)));
    }
  }
}

// ---- Bad calls
// ---------------------------------------------------------------

class Conv2dErrorTest : public Conv2dTest {
 protected:
  // Runs f32 conv2d on x [1, 4, 6, 6] and weight [6, 2, 3, 3] (groups 2)
  // with one thing changed by `edit`, expecting INVALID_ARGUMENT.
  std::string Error(ConvCase c, std::vector<int64_t> x_shape,
                    std::vector<int64_t> w_shape,
                    std::vector<int64_t> out_shape,
                    std::vector<int64_t> bias_shape = {6}) {
    const auto x = TypedTensor<float>::Random(x_shape, 1);
    const auto w = TypedTensor<float>::Random(w_shape, 2);
    const auto bias = TypedTensor<float>::Random(bias_shape, 3);
    auto out = TypedTensor<float>::Make(out_shape);
    const sy_tensor_view_t bias_view = bias.view();
    const Status status = RunConv(SY_DTYPE_F32, x.view(), w.view(),
                                  c.bias ? &bias_view : nullptr, out.view(), c);
    EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(out.OutsideUntouched());
    return status.message;
  }

  ConvCase Good() const {
    return {1, 4, 6, 6, 6, 3, 3, {1, 1}, {1, 1}, {1, 1}, 2, true};
  }
};

TEST_F(Conv2dErrorTest, RejectsShapesThatDoNotMatchTheAttributes) {
  ConvCase c = Good();
  EXPECT_EQ(Error(c, {1, 4, 6, 6}, {6, 2, 3, 3}, {1, 6, 5, 6}),
            "cpu plugin: conv2d: output has shape [1, 6, 5, 6] but conv2d of "
            "input 'x' [1, 4, 6, 6] with input 'weight' [6, 2, 3, 3] gives "
            "[1, 6, 6, 6]; allocate the output from conv2d's shape function");
  EXPECT_EQ(Error(c, {1, 4, 6, 6}, {6, 4, 3, 3}, {1, 6, 6, 6}),
            "cpu plugin: conv2d: input 'weight' has shape [6, 4, 3, 3], so it "
            "takes 4 input channels per group, but input 'x' (shape [1, 4, 6, "
            "6]) has 4 channels in 2 groups; the second dim of 'weight' must "
            "be 2");
  EXPECT_EQ(Error(c, {1, 3, 6, 6}, {6, 2, 3, 3}, {1, 6, 6, 6}),
            "cpu plugin: conv2d: input 'x' has 3 channels (shape [1, 3, 6, "
            "6]), which is not a multiple of groups=2");
  EXPECT_EQ(Error(c, {1, 4, 6, 6}, {5, 2, 3, 3}, {1, 5, 6, 6}, {5}),
            "cpu plugin: conv2d: input 'weight' has 5 output channels (shape "
            "[5, 2, 3, 3]), which is not a multiple of groups=2");
  EXPECT_EQ(Error(c, {1, 4, 6, 6}, {6, 2, 3, 3}, {1, 6, 6, 6}, {3}),
            "cpu plugin: conv2d: input 'bias' has shape [3] but must be [6]: "
            "one value per output channel");
  EXPECT_EQ(Error(c, {4, 6, 6}, {6, 2, 3, 3}, {1, 6, 6, 6}),
            "cpu plugin: conv2d: input 'x' has shape [4, 6, 6] but must have "
            "rank 4: [N, C, H, W]");
  EXPECT_EQ(Error(c, {1, 4, 6, 6}, {6, 2, 0, 3}, {1, 6, 6, 6}),
            "cpu plugin: conv2d: input 'weight' has shape [6, 2, 0, 3], an "
            "empty kernel; kernel sizes must be >= 1");
  c.padding = {0, 0};
  EXPECT_EQ(Error(c, {1, 4, 2, 6}, {6, 2, 3, 3}, {1, 6, 1, 4}),
            "cpu plugin: conv2d: the output height would be 0: the input "
            "height 2 plus padding 2 * 0 is smaller than the dilated kernel "
            "height 3 (dilation 1 * (3 - 1) + 1); pad more, or use a smaller "
            "kernel or dilation");
}

TEST_F(Conv2dErrorTest, RejectsBadAttributes) {
  ConvCase c = Good();
  c.stride = {1, 1, 1};
  EXPECT_EQ(Error(c, {1, 4, 6, 6}, {6, 2, 3, 3}, {1, 6, 6, 6}),
            "cpu plugin: conv2d: attribute 'stride' must be a list of 2 ints "
            "[height, width] (attribute kind 4, 3 values); pass the op's "
            "attributes in schema order");
  c = Good();
  c.dilation = {1, 0};
  EXPECT_EQ(Error(c, {1, 4, 6, 6}, {6, 2, 3, 3}, {1, 6, 6, 6}),
            "cpu plugin: conv2d: attribute 'dilation' is [1, 0]; each value "
            "must be >= 1");
  c = Good();
  c.padding = {-1, 0};
  EXPECT_EQ(Error(c, {1, 4, 6, 6}, {6, 2, 3, 3}, {1, 6, 6, 6}),
            "cpu plugin: conv2d: attribute 'padding' is [-1, 0]; each value "
            "must be >= 0");
  c = Good();
  c.groups = 0;
  EXPECT_EQ(Error(c, {1, 4, 6, 6}, {6, 2, 3, 3}, {1, 6, 6, 6}),
            "cpu plugin: conv2d: attribute 'groups' is 0; it must be >= 1");
}

TEST_F(Conv2dErrorTest, RejectsACallWithoutTheBiasSlot) {
  // A host must pass 3 tensor arguments, the omitted bias spanning zero
  // inputs; RunKernel passes 2.
  const auto x = TypedTensor<float>::Random({1, 4, 6, 6}, 1);
  const auto w = TypedTensor<float>::Random({6, 2, 3, 3}, 2);
  auto out = TypedTensor<float>::Make({1, 6, 6, 6});
  const sy_dtype_t dtypes[] = {SY_DTYPE_F32, SY_DTYPE_F32, SY_DTYPE_NONE};
  const RegisteredKernel* kernel = host_->FindKernel("conv2d", dtypes);
  ASSERT_NE(kernel, nullptr);
  const std::vector<int64_t> one = {1, 1};
  const std::vector<sy_attr_t> attrs = {IntsAttr(one), IntsAttr(one),
                                        IntsAttr(one), IntAttr(2)};
  const sy_tensor_view_t inputs[] = {x.view(), w.view()};
  const sy_tensor_view_t output = out.view();
  const Status status =
      RunKernel(*kernel, inputs, {&output, 1}, attrs, stream_);
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: conv2d: expects 3 tensor arguments (x, weight, bias) "
            "with input_offsets [0, 1, 2, 2] but the call has 2; the call "
            "does not match the op's schema");
  EXPECT_TRUE(out.OutsideUntouched());
}

TEST_F(Conv2dErrorTest, RejectsADtypeOtherThanTheKernels) {
  ConvCase c = Good();
  const auto x = TypedTensor<float>::Random({1, 4, 6, 6}, 1);
  const auto w = TypedTensor<double>::Random({6, 2, 3, 3}, 2);
  auto out = TypedTensor<float>::Make({1, 6, 6, 6});
  const Status status =
      RunConv(SY_DTYPE_F32, x.view(), w.view(), nullptr, out.view(), c);
  EXPECT_EQ(status.message,
            "cpu plugin: conv2d: input 'weight' has dtype f64 but this is the "
            "f32 kernel, which takes every tensor in f32; pass tensors of one "
            "dtype (the dispatcher picks the kernel by dtype)");
}

}  // namespace
}  // namespace sy::testing
