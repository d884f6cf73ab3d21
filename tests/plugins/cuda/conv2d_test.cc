// conv2d on cuda:0 (cuDNN's graph API; f64 the plugin's direct kernel)
// against a float64 reference on the host: groups, stride, padding,
// dilation and bias together; depthwise; inputs that are views (permuted,
// sliced); channels-last inputs and output; a strided output; an empty
// batch; cuda::conv2d_relu; each variant, the plugin's implicit GEMM on
// the shapes its tiles meet at their edges; the plan cache's hits
// and evictions (its debug log); CUDA graph replays; the reduced-precision
// option; and a bad call's error. f32 must be
// FP32-exact (no TF32): its bound is the f32 GEMMs' one. Inputs are random.
// Skips without a GPU, and without cuDNN (the load record says why).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cuda_test_env.h"
#include "dispatcher/base/log.h"
#include "dispatcher/dispatch/dispatcher.h"
#include "switchyard/plugin.hpp"

namespace sy::cuda_test {
namespace {

using ::testing::HasSubstr;

struct Host {
  std::vector<int64_t> shape;
  std::vector<double> values;  // row-major, as rounded to the dtype
};

template <class T>
Tensor UploadAs(sy_dtype_t dtype, const std::vector<int64_t>& shape,
                const std::vector<float>& v, Host* host) {
  std::vector<T> h(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    h[i] = T(v[i]);
    host->values[i] = static_cast<float>(h[i]);
  }
  return Env().runtime->FromHost(*Env().cuda, dtype, shape, h.data(), h.size() * 2)
      .value();
}

template <class T>
void DownloadAs(const Tensor& t, std::vector<double>* out) {
  std::vector<T> h(out->size());
  EXPECT_TRUE(Env().runtime->ToHost(t, h.data(), h.size() * 2).ok());
  for (size_t i = 0; i < h.size(); ++i) (*out)[i] = static_cast<float>(h[i]);
}

// Random values rounded to `dtype`, uploaded to cuda:0.
Tensor Upload(sy_dtype_t dtype, std::vector<int64_t> shape, uint32_t seed,
              Host* host) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  const std::vector<float> v = RandomFloats(static_cast<size_t>(n), seed);
  host->shape = shape;
  host->values.resize(v.size());
  Runtime& rt = *Env().runtime;
  if (dtype == SY_DTYPE_F32) {
    for (size_t i = 0; i < v.size(); ++i) host->values[i] = v[i];
    return rt.FromHost(*Env().cuda, dtype, shape, v.data(), v.size() * 4).value();
  }
  if (dtype == SY_DTYPE_F64) {
    for (size_t i = 0; i < v.size(); ++i) host->values[i] = v[i];
    return rt.FromHost(*Env().cuda, dtype, shape, host->values.data(), v.size() * 8)
        .value();
  }
  if (dtype == SY_DTYPE_F16) return UploadAs<plugin::Half>(dtype, shape, v, host);
  return UploadAs<plugin::BFloat16>(dtype, shape, v, host);
}

std::vector<double> Download(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.numel()));
  Runtime& rt = *Env().runtime;
  if (t.dtype() == SY_DTYPE_F32) {
    std::vector<float> f(out.size());
    EXPECT_TRUE(rt.ToHost(t, f.data(), f.size() * 4).ok());
    for (size_t i = 0; i < f.size(); ++i) out[i] = f[i];
    return out;
  }
  if (t.dtype() == SY_DTYPE_F64) {
    EXPECT_TRUE(rt.ToHost(t, out.data(), out.size() * 8).ok());
    return out;
  }
  if (t.dtype() == SY_DTYPE_F16) {
    DownloadAs<plugin::Half>(t, &out);
  } else {
    DownloadAs<plugin::BFloat16>(t, &out);
  }
  return out;
}

double RelativeError(const std::vector<double>& got,
                     const std::vector<double>& want) {
  if (got.size() != want.size()) return INFINITY;
  double num = 0, den = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(got[i])) return INFINITY;
    num += (got[i] - want[i]) * (got[i] - want[i]);
    den += want[i] * want[i];
  }
  return std::sqrt(num / std::max(den, 1e-300));
}

// f32: FP32 accumulation (no TF32, which lands near 3e-4); f16 and bf16
// operands are exact in the reference, so only accumulation and the
// output's rounding remain.
double Tolerance(sy_dtype_t dtype) {
  return dtype == SY_DTYPE_F64   ? 1e-12
         : dtype == SY_DTYPE_F32 ? 1e-6
         : dtype == SY_DTYPE_F16 ? 2e-3
                                 : 1e-2;
}

struct Conv {
  int64_t stride[2] = {1, 1}, padding[2] = {0, 0}, dilation[2] = {1, 1};
  int64_t groups = 1;
  // Borrows this Conv's lists: keep it alive until the call returns.
  std::vector<Attr> Attrs() const {
    return {Attr(absl::Span<const int64_t>(stride, 2)),
            Attr(absl::Span<const int64_t>(padding, 2)),
            Attr(absl::Span<const int64_t>(dilation, 2)), Attr(groups)};
  }
};

// out[n, k, i, j] = bias[k] + Σ x[n, g·Cg + c, i·s − p + r·d, …] · w[k, c, r, t]
std::vector<double> Reference(const Host& x, const Host& w, const Host* bias,
                              const Conv& c, std::vector<int64_t>* shape) {
  const int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  const int64_t K = w.shape[0], Cg = w.shape[1], R = w.shape[2], S = w.shape[3];
  const int64_t OH = (H + 2 * c.padding[0] - c.dilation[0] * (R - 1) - 1) / c.stride[0] + 1;
  const int64_t OW = (W + 2 * c.padding[1] - c.dilation[1] * (S - 1) - 1) / c.stride[1] + 1;
  *shape = {N, K, OH, OW};
  const int64_t Kg = K / c.groups;
  std::vector<double> out(N * K * OH * OW);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t i = 0; i < OH; ++i)
        for (int64_t j = 0; j < OW; ++j) {
          double s = bias != nullptr ? bias->values[k] : 0.0;
          const int64_t g = k / Kg;
          for (int64_t ch = 0; ch < Cg; ++ch)
            for (int64_t r = 0; r < R; ++r)
              for (int64_t t = 0; t < S; ++t) {
                const int64_t h = i * c.stride[0] - c.padding[0] + r * c.dilation[0];
                const int64_t v = j * c.stride[1] - c.padding[1] + t * c.dilation[1];
                if (h < 0 || h >= H || v < 0 || v >= W) continue;
                s += x.values[((n * C + g * Cg + ch) * H + h) * W + v] *
                     w.values[((k * Cg + ch) * R + r) * S + t];
              }
          out[((n * K + k) * OH + i) * OW + j] = s;
        }
  (void)C;
  return out;
}

class CudaConv2dTest : public ::testing::TestWithParam<sy_dtype_t> {
 protected:
  void SetUp() override {
    SY_SKIP_WITHOUT_CUDA();
    absl::StatusOr<std::string> how = Env().runtime->Explain(
        Env().runtime->FindOp("conv2d").value(), {Probe(), Probe4(), Tensor()},
        Conv().Attrs());
    if (!how.ok() || how->find("cuda") == std::string::npos) {
      GTEST_SKIP() << "conv2d is not registered on cuda (no cuDNN?): "
                   << (how.ok() ? *how : how.status().ToString());
    }
  }
  static Tensor Probe() {
    Host h;
    return Upload(SY_DTYPE_F32, {1, 1, 3, 3}, 1, &h);
  }
  static Tensor Probe4() {
    Host h;
    return Upload(SY_DTYPE_F32, {1, 1, 1, 1}, 2, &h);
  }
  OpHandle Op() { return Env().runtime->FindOp("conv2d").value(); }
};

TEST_P(CudaConv2dTest, GroupsStridePaddingDilationBias) {
  const sy_dtype_t dtype = GetParam();
  Host x, w, b;
  Tensor tx = Upload(dtype, {2, 8, 13, 11}, 101, &x);
  Tensor tw = Upload(dtype, {12, 4, 3, 3}, 102, &w);
  Tensor tb = Upload(dtype, {12}, 103, &b);
  Conv c;
  c.stride[0] = 2;
  c.padding[0] = 1;
  c.padding[1] = 2;
  c.dilation[1] = 2;
  c.groups = 2;
  std::vector<int64_t> shape;
  const std::vector<double> want = Reference(x, w, &b, c, &shape);
  std::vector<Tensor> out = Env().runtime->Call(Op(), {tx, tw, tb}, c.Attrs()).value();
  EXPECT_EQ(std::vector<int64_t>(out[0].shape().begin(), out[0].shape().end()), shape);
  EXPECT_LT(RelativeError(Download(out[0]), want), Tolerance(dtype));
}

TEST_P(CudaConv2dTest, DepthwiseWithoutBias) {
  const sy_dtype_t dtype = GetParam();
  Host x, w;
  Tensor tx = Upload(dtype, {3, 16, 9, 10}, 111, &x);
  Tensor tw = Upload(dtype, {16, 1, 5, 3}, 112, &w);
  Conv c;
  c.padding[0] = 2;
  c.padding[1] = 1;
  c.groups = 16;
  std::vector<int64_t> shape;
  const std::vector<double> want = Reference(x, w, nullptr, c, &shape);
  std::vector<Tensor> out =
      Env().runtime->Call(Op(), {tx, tw, Tensor()}, c.Attrs()).value();
  EXPECT_LT(RelativeError(Download(out[0]), want), Tolerance(dtype));
}

// x given as a permuted view of an NHWC tensor, weight as a slice of a
// larger one: both are packed before cuDNN sees them.
TEST_P(CudaConv2dTest, ViewInputs) {
  const sy_dtype_t dtype = GetParam();
  Runtime& rt = *Env().runtime;
  Host nhwc, wide, b;
  Tensor t_nhwc = Upload(dtype, {2, 7, 6, 5}, 121, &nhwc);
  Tensor t_wide = Upload(dtype, {9, 5, 3, 3}, 122, &wide);
  Tensor tb = Upload(dtype, {4}, 123, &b);
  Tensor tx = rt.Call(rt.FindOp("permute").value(), {t_nhwc},
                      {Attr(std::vector<int64_t>{0, 3, 1, 2})})
                  .value()[0];
  // Rows 1, 3, 5, 7 of the wide weight: slice(dim 0, 1, 9, step 2).
  Tensor tw = rt.Call(rt.FindOp("slice").value(), {t_wide},
                      {Attr(0), Attr(1), Attr(int64_t{9}), Attr(2)})
                  .value()[0];
  Host x, w;
  x.shape = {2, 5, 7, 6};
  x.values.resize(2 * 5 * 7 * 6);
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t ch = 0; ch < 5; ++ch)
      for (int64_t h = 0; h < 7; ++h)
        for (int64_t v = 0; v < 6; ++v)
          x.values[((n * 5 + ch) * 7 + h) * 6 + v] =
              nhwc.values[((n * 7 + h) * 6 + v) * 5 + ch];
  w.shape = {4, 5, 3, 3};
  for (int64_t k = 0; k < 4; ++k)
    for (int64_t i = 0; i < 45; ++i) w.values.push_back(wide.values[(2 * k + 1) * 45 + i]);
  Conv c;
  c.padding[0] = c.padding[1] = 1;
  std::vector<int64_t> shape;
  const std::vector<double> want = Reference(x, w, &b, c, &shape);
  std::vector<Tensor> out = rt.Call(Op(), {tx, tw, tb}, c.Attrs()).value();
  EXPECT_LT(RelativeError(Download(out[0]), want), Tolerance(dtype));
}

// The result written into a permuted view (NHWC storage seen as NCHW).
TEST_P(CudaConv2dTest, StridedOutput) {
  const sy_dtype_t dtype = GetParam();
  Runtime& rt = *Env().runtime;
  Host x, w, b;
  Tensor tx = Upload(dtype, {2, 3, 8, 8}, 131, &x);
  Tensor tw = Upload(dtype, {6, 3, 3, 3}, 132, &w);
  Tensor tb = Upload(dtype, {6}, 133, &b);
  Conv c;
  std::vector<int64_t> shape;
  const std::vector<double> want = Reference(x, w, &b, c, &shape);
  Tensor storage = rt.Empty(*Env().cuda, dtype, {2, 6, 6, 6}).value();  // N OH OW K
  Tensor view = rt.Call(rt.FindOp("permute").value(), {storage},
                        {Attr(std::vector<int64_t>{0, 3, 1, 2})})
                    .value()[0];
  absl::Status st = rt.CallOut(Op(), {tx, tw, tb}, c.Attrs(), {view});
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_LT(RelativeError(Download(view), want), Tolerance(dtype));
}

TEST_P(CudaConv2dTest, EmptyBatch) {
  const sy_dtype_t dtype = GetParam();
  Host x, w, b;
  Tensor tx = Upload(dtype, {0, 3, 5, 5}, 141, &x);
  Tensor tw = Upload(dtype, {2, 3, 3, 3}, 142, &w);
  Tensor tb = Upload(dtype, {2}, 143, &b);
  std::vector<Tensor> out =
      Env().runtime->Call(Op(), {tx, tw, tb}, Conv().Attrs()).value();
  EXPECT_EQ(out[0].numel(), 0);
  EXPECT_EQ(out[0].ndim(), 4);
}

TEST_P(CudaConv2dTest, RefusesGroupsThatDoNotDivideTheChannels) {
  const sy_dtype_t dtype = GetParam();
  Host x, w;
  Tensor tx = Upload(dtype, {1, 4, 5, 5}, 151, &x);
  Tensor tw = Upload(dtype, {6, 2, 3, 3}, 152, &w);
  Conv c;
  c.groups = 3;
  absl::StatusOr<std::vector<Tensor>> out =
      Env().runtime->Call(Op(), {tx, tw, Tensor()}, c.Attrs());
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("not a multiple of groups=3"));
}

std::vector<double> Relu(std::vector<double> v) {
  for (double& x : v) x = x > 0 ? x : 0;
  return v;
}

// relu(conv2d(x, w, b)) in one call: the bias and ReLU in cuDNN's epilogue.
TEST_P(CudaConv2dTest, Conv2dReluFusesBiasAndRelu) {
  const sy_dtype_t dtype = GetParam();
  Runtime& rt = *Env().runtime;
  Host x, w, b;
  Tensor tx = Upload(dtype, {2, 16, 12, 12}, 161, &x);
  Tensor tw = Upload(dtype, {32, 16, 3, 3}, 162, &w);
  Tensor tb = Upload(dtype, {32}, 163, &b);
  Conv c;
  c.padding[0] = c.padding[1] = 1;
  std::vector<int64_t> shape;
  const OpHandle op = rt.FindOp("cuda::conv2d_relu").value();
  for (bool bias : {true, false}) {
    const std::vector<double> want = Relu(Reference(x, w, bias ? &b : nullptr, c, &shape));
    absl::StatusOr<std::vector<Tensor>> out =
        rt.Call(op, {tx, tw, bias ? tb : Tensor()}, c.Attrs());
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_LT(RelativeError(Download((*out)[0]), want), Tolerance(dtype));
  }
}

// An NHWC tensor seen as NCHW (a permuted view: channels-last storage).
Tensor ToNchw(const Tensor& t) {
  Runtime& rt = *Env().runtime;
  return rt.Call(rt.FindOp("permute").value(), {t},
                 {Attr(std::vector<int64_t>{0, 3, 1, 2})}).value()[0];
}

// The host copy, in NCHW order, of an NHWC upload of shape [n, hh, ww, c].
Host NchwHost(const Host& h, int64_t n, int64_t hh, int64_t ww, int64_t c) {
  Host out;
  out.shape = {n, c, hh, ww};
  out.values.resize(h.values.size());
  for (int64_t a = 0; a < n; ++a)
    for (int64_t i = 0; i < hh; ++i)
      for (int64_t j = 0; j < ww; ++j)
        for (int64_t k = 0; k < c; ++k)
          out.values[((a * c + k) * hh + i) * ww + j] = h.values[((a * hh + i) * ww + j) * c + k];
  return out;
}

// x, weight and the output all channels-last (NHWC storage seen as NCHW):
// cuDNN reads and writes them in place.
TEST_P(CudaConv2dTest, ChannelsLastInputsAndOutput) {
  const sy_dtype_t dtype = GetParam();
  Runtime& rt = *Env().runtime;
  Host xs, ws, b;
  Tensor sx = Upload(dtype, {4, 10, 10, 32}, 171, &xs);  // N H W C
  Tensor sw = Upload(dtype, {64, 3, 3, 32}, 172, &ws);   // K R S C
  Tensor tb = Upload(dtype, {64}, 173, &b);
  const Host x = NchwHost(xs, 4, 10, 10, 32), w = NchwHost(ws, 64, 3, 3, 32);
  Conv c;
  c.padding[0] = c.padding[1] = 1;
  c.stride[1] = 2;
  std::vector<int64_t> shape;
  const std::vector<double> want = Reference(x, w, &b, c, &shape);
  Tensor storage = rt.Empty(*Env().cuda, dtype, {shape[0], shape[2], shape[3], shape[1]}).value();
  Tensor y = ToNchw(storage);
  absl::Status st = rt.CallOut(Op(), {ToNchw(sx), ToNchw(sw), tb}, c.Attrs(), {y});
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_LT(RelativeError(Download(y), want), Tolerance(dtype));
}

// The variants conv2d registers (the autotuner's candidates):
// cudnn_heuristic0..3, and for 16-bit dtypes implicit_gemm.
constexpr int kImplicitGemmVariant = 4;
int Variants(sy_dtype_t dtype) {
  return dtype == SY_DTYPE_F16 || dtype == SY_DTYPE_BF16 ? 5 : 4;
}

// Each variant computes the same; with 24 input channels implicit_gemm is
// the measured pick (the kernel takes at most 16; ImplicitGemmTileEdges
// below runs it).
TEST_P(CudaConv2dTest, EveryVariant) {
  const sy_dtype_t dtype = GetParam();
  if (dtype == SY_DTYPE_F64) GTEST_SKIP() << "the f64 direct kernel has no variants";
  Runtime& rt = *Env().runtime;
  Host x, w;
  Tensor tx = Upload(dtype, {2, 24, 14, 14}, 181, &x);
  Tensor tw = Upload(dtype, {16, 24, 3, 3}, 182, &w);
  Conv c;
  std::vector<int64_t> shape;
  const std::vector<double> want = Reference(x, w, nullptr, c, &shape);
  const std::string d(plugin::DtypeName(dtype));
  const std::string kernel = "cuda::conv2d." + d + "." + d + ".none";
  const std::vector<Attr> attrs = c.Attrs();
  for (int variant = 0; variant < Variants(dtype); ++variant) {
    SCOPED_TRACE("variant " + std::to_string(variant));
    const Tensor none;
    const Tensor* in[3] = {&tx, &tw, nullptr};
    TensorList produced;
    CallArgs args;
    args.inputs = absl::MakeConstSpan(in);
    args.attrs = absl::Span<const sy_attr_t>(attrs.data(), attrs.size());
    args.produced = &produced;
    args.route = RouteRequest::Kernel(kernel, variant);
    absl::Status st = rt.Execute(Op(), args);
    ASSERT_TRUE(st.ok()) << st;
    EXPECT_LT(RelativeError(Download(produced[0]), want), Tolerance(dtype));
  }
}

// The debug log's lines that contain `what`, collected while this lives;
// the log's level and sink are restored however the test ends.
class LogLines {
 public:
  explicit LogLines(std::string what) : previous_(GetLogLevel()) {
    SetLogLevel(LogLevel::kDebug);
    SetLogSink([this, what = std::move(what)](LogLevel, absl::string_view m) {
      if (m.find(what) != absl::string_view::npos) lines.emplace_back(m);
    });
  }
  ~LogLines() {
    SetLogSink(nullptr);
    SetLogLevel(previous_);
  }
  LogLines(const LogLines&) = delete;
  LogLines& operator=(const LogLines&) = delete;

  std::vector<std::string> lines;

 private:
  LogLevel previous_;
};

// `shape` uploaded one element into a larger buffer and viewed from there
// (slice, then reshape): dense, so conv2d.cc passes it as it is, but its
// data pointer is not 16-byte aligned.
Tensor UploadOffByOne(sy_dtype_t dtype, const std::vector<int64_t>& shape,
                      uint32_t seed, Host* host) {
  Runtime& rt = *Env().runtime;
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  Host flat;
  const Tensor buffer = Upload(dtype, {n + 1}, seed, &flat);
  const Tensor tail =
      rt.Call(rt.FindOp("slice").value(), {buffer}, {Attr(0), Attr(int64_t{1})})
          .value()[0];
  host->shape = shape;
  host->values.assign(flat.values.begin() + 1, flat.values.end());
  return rt.Call(rt.FindOp("reshape").value(), {tail}, {Attr(shape)}).value()[0];
}

// One implicit_gemm problem: x [N C H W] (NHWC storage when `nhwc`, the
// weight and output too; one element past an aligned start when
// `off_by_one`), weight [K C R S], bias, `relu` through
// cuda::conv2d_relu; `taken`: within the kernel's limits.
struct GemmCase {
  const char* name;
  std::vector<int64_t> x, w;
  Conv conv;
  bool nhwc = false;
  bool relu = false;
  bool taken = true;
  bool off_by_one = false;
};

// The implicit GEMM's tile edges (Note [Implicit GEMM conv]): ResNet's
// stem with rows of 150 output pixels (a full tile and a partial one)
// written with scalar stores (OW % 8 != 0 in NCHW); the stem on input
// rows of whole 16-byte chunks, which load by cp.async (three tiles a
// row, patches that start mid-chunk and end mid-row), and the same input
// one element off alignment, which loads element by element; 70 channels
// (a full channel tile and 6 of the next, scalar stores in NHWC); rows of
// 264 (16-byte stores, three tiles); dilation, uneven padding and
// strides; ReLU; and a reduction of 400, past the kernel, which the
// variant hands to the measured pick. The plan cache's debug line says
// which ran. f32 has no implicit_gemm variant (asking is an error); its
// default route computes the same problems.
TEST_P(CudaConv2dTest, ImplicitGemmTileEdges) {
  const sy_dtype_t dtype = GetParam();
  if (dtype == SY_DTYPE_F64) GTEST_SKIP() << "the f64 direct kernel has no variants";
  Runtime& rt = *Env().runtime;
  Conv stem;
  stem.stride[0] = stem.stride[1] = 2;
  stem.padding[0] = stem.padding[1] = 3;
  Conv edges;
  edges.padding[0] = 1;
  edges.padding[1] = 2;
  edges.dilation[0] = 2;
  Conv strided;
  strided.stride[0] = 3;
  strided.stride[1] = 2;
  strided.padding[1] = 1;
  const GemmCase cases[] = {
      {"stem NCHW", {2, 3, 20, 300}, {64, 3, 7, 7}, stem},
      {"stem NHWC", {2, 3, 20, 300}, {64, 3, 7, 7}, stem, true},
      {"stem NCHW 16-byte rows", {1, 3, 12, 600}, {64, 3, 7, 7}, stem},
      {"stem NHWC 16-byte rows", {1, 3, 12, 600}, {64, 3, 7, 7}, stem, true},
      {"stem NHWC off by one", {1, 3, 12, 600}, {64, 3, 7, 7}, stem, true, false, true, true},
      {"stem NCHW off by one", {1, 3, 12, 600}, {64, 3, 7, 7}, stem, false, false, true, true},
      {"70 channels NCHW 264 wide", {1, 5, 9, 262}, {70, 5, 3, 3}, edges},
      {"70 channels NHWC relu", {2, 5, 11, 140}, {70, 5, 3, 3}, edges, true, true},
      {"strided relu", {3, 16, 13, 64}, {24, 16, 1, 3}, strided, false, true},
      {"reduction 400", {1, 16, 8, 8}, {8, 16, 5, 5}, Conv(), true, false, false},
  };
  LogLines built("built the plan of");
  const std::string d(plugin::DtypeName(dtype));
  uint32_t seed = 191;
  for (const GemmCase& gc : cases) {
    SCOPED_TRACE(gc.name);
    const int64_t n = gc.x[0], c = gc.x[1], h = gc.x[2], w = gc.x[3];
    const int64_t k = gc.w[0], r = gc.w[2], s = gc.w[3];
    Host x, wt, b;
    Tensor tx, tw;
    if (gc.nhwc) {
      Host xs, ws;
      tx = ToNchw(gc.off_by_one ? UploadOffByOne(dtype, {n, h, w, c}, seed++, &xs)
                                : Upload(dtype, {n, h, w, c}, seed++, &xs));
      tw = ToNchw(Upload(dtype, {k, r, s, c}, seed++, &ws));
      x = NchwHost(xs, n, h, w, c);
      wt = NchwHost(ws, k, r, s, c);
    } else {
      tx = gc.off_by_one ? UploadOffByOne(dtype, gc.x, seed++, &x)
                         : Upload(dtype, gc.x, seed++, &x);
      tw = Upload(dtype, gc.w, seed++, &wt);
    }
    Tensor tb = Upload(dtype, {k}, seed++, &b);
    std::vector<int64_t> shape;
    std::vector<double> want = Reference(x, wt, &b, gc.conv, &shape);
    if (gc.relu) want = Relu(std::move(want));
    Tensor y = gc.nhwc ? ToNchw(rt.Empty(*Env().cuda, dtype,
                                         {shape[0], shape[2], shape[3], shape[1]})
                                    .value())
                       : rt.Empty(*Env().cuda, dtype, shape).value();
    const std::vector<Attr> attrs = gc.conv.Attrs();
    const Tensor* in[3] = {&tx, &tw, &tb};
    const Tensor* out[1] = {&y};
    CallArgs args;
    args.inputs = absl::MakeConstSpan(in);
    args.attrs = absl::Span<const sy_attr_t>(attrs.data(), attrs.size());
    args.outputs = absl::MakeConstSpan(out);
    const std::string kernel =
        (gc.relu ? "cuda::conv2d_relu." : "cuda::conv2d.") + d + "." + d + "." + d;
    const bool sixteen_bits = dtype == SY_DTYPE_F16 || dtype == SY_DTYPE_BF16;
    const OpHandle op = gc.relu ? rt.FindOp("cuda::conv2d_relu").value() : Op();
    if (!sixteen_bits) {  // f32 has no implicit_gemm variant: its default runs
      args.route = RouteRequest::Kernel(kernel, kImplicitGemmVariant);
      const absl::Status refused = rt.Execute(op, args);
      EXPECT_TRUE(absl::IsOutOfRange(refused)) << refused;
      EXPECT_THAT(std::string(refused.message()),
                  HasSubstr("has 4 variant(s); variant 4 does not exist"));
    }
    args.route = RouteRequest::Kernel(kernel, sixteen_bits ? kImplicitGemmVariant : -1);
    built.lines.clear();
    absl::Status st = rt.Execute(op, args);
    ASSERT_TRUE(st.ok()) << st;
    EXPECT_LT(RelativeError(Download(y), want), Tolerance(dtype));
    ASSERT_EQ(built.lines.size(), 1u) << "one new plan for the problem";
    EXPECT_EQ(built.lines[0].find("the plugin's implicit GEMM") != std::string::npos,
              gc.taken && sixteen_bits)
        << built.lines[0];
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaConv2dTest,
                         ::testing::Values(SY_DTYPE_F32, SY_DTYPE_F64,
                                           SY_DTYPE_F16, SY_DTYPE_BF16),
                         [](const auto& info) {
                           return std::string(plugin::DtypeName(info.param));
                         });

// With a GPU and cuDNN, load says which cuDNN it took.
TEST(CudaConv2dLoad, LogsTheCudnnItLoaded) {
  SY_SKIP_WITHOUT_CUDA();
  bool registered = false, absent = false;
  for (const std::string& line : Env().load_log) {
    registered |= line.find("): conv2d through its graph API") != std::string::npos;
    absent |= line.find("conv2d not registered") != std::string::npos;
  }
  EXPECT_NE(registered, absent) << "the cuda plugin should say either way";
}

// A runtime of its own with the cpu and cuda plugins and one cuda plugin
// option ("key=value"). The cuda plugin applies its options to the process
// at load, so a test that sets one loads the default again when done.
std::unique_ptr<Runtime> RuntimeWithCudaOption(const std::string& option) {
  RuntimeOptions options;
  options.loader.use_environment = false;
  options.loader.use_default_path = false;
  options.loader.search_paths = {CpuManifest(), CudaManifest()};
  options.loader.plugin_options = {"cuda." + option};
  return Runtime::Create(options).value();
}

// Plans are built once per problem and kept; with room for two, a third
// problem evicts the least recently used, which is then built again. The
// plan cache says so in the debug log. The capacity is the plugin option
// conv2d_plan_cache_size, which a runtime's load applies to the process.
TEST(CudaConv2dPlanCache, BuildsOncePerProblemAndEvictsTheLeastRecentlyUsed) {
  SY_SKIP_WITHOUT_CUDA();
  const auto runtime_with = [](int capacity) {
    return RuntimeWithCudaOption("conv2d_plan_cache_size=" + std::to_string(capacity));
  };
  std::unique_ptr<Runtime> rt = runtime_with(2);
  Device* cuda = rt->GetDevice("cuda:0").value();
  const OpHandle conv = rt->FindOp("conv2d").value();
  // Three problems, told apart by their odd channel counts.
  const auto call = [&](int64_t channels) {
    const std::vector<float> xv = RandomFloats(1 * channels * 6 * 6, 191);
    const std::vector<float> wv = RandomFloats(4 * channels * 3 * 3, 192);
    Tensor x = rt->FromHost(*cuda, SY_DTYPE_F32, {1, channels, 6, 6}, xv.data(),
                            xv.size() * 4).value();
    Tensor w = rt->FromHost(*cuda, SY_DTYPE_F32, {4, channels, 3, 3}, wv.data(),
                            wv.size() * 4).value();
    ASSERT_TRUE(rt->Call(conv, {x, w, Tensor()}, Conv().Attrs()).ok());
    ASSERT_TRUE(rt->Synchronize(*cuda).ok());
  };
  std::vector<std::string> lines;
  {
    LogLines log("plan cache");
    for (int64_t c : {int64_t{13}, int64_t{17}, int64_t{13}, int64_t{19}, int64_t{17},
                      int64_t{13}}) {
      call(c);
    }
    lines = std::move(log.lines);
  }
  const auto count = [&](const std::string& what, int64_t channels) {
    const std::string shape = "x [1, " + std::to_string(channels) + ", 6, 6]";
    int n = 0;
    for (const std::string& l : lines) {
      n += l.find(what) != std::string::npos && l.find(shape) != std::string::npos;
    }
    return n;
  };
  // 13 built; 17 built; 13 hit; 19 built, evicts 17; 17 built again,
  // evicts 13; 13 built again, evicts 19.
  EXPECT_EQ(count("built the plan of", 13), 2);
  EXPECT_EQ(count("built the plan of", 17), 2);
  EXPECT_EQ(count("built the plan of", 19), 1);
  EXPECT_EQ(count("evicted the least recently used plan", 17), 1);
  EXPECT_EQ(count("evicted the least recently used plan", 13), 1);
  EXPECT_EQ(count("evicted the least recently used plan", 19), 1);
  for (const std::string& l : lines) std::printf("  %s\n", l.c_str());
  rt.reset();
  runtime_with(256).reset();  // the default again, for the tests that follow
}

// Note [Conv graphs]: the second call with the same buffers captures the
// plan into a CUDA graph, times replays against plain executes, and keeps
// the graph where replays are faster (this tiny problem's are, on the
// H100: its GPU time is below its enqueue time); later calls replay it. A
// replay must read what the buffers hold at that call: x is overwritten in
// place (copy into it) before every call, and each result is checked
// against float64. Another output buffer is another graph. With
// conv2d_graphs=false nothing is captured, and the results are the same.
TEST(CudaConv2dGraphs, ReplaysReadTheBuffersOfEachCall) {
  SY_SKIP_WITHOUT_CUDA();
  for (const bool graphs : {true, false}) {
    SCOPED_TRACE(graphs ? "graphs on" : "graphs off");
    std::unique_ptr<Runtime> rt =
        RuntimeWithCudaOption(std::string("conv2d_graphs=") + (graphs ? "true" : "false"));
    Device* cuda = rt->GetDevice("cuda:0").value();
    const OpHandle conv = rt->FindOp("conv2d").value();
    const OpHandle copy = rt->FindOp("copy").value();
    LogLines log("CUDA graph");
    // A problem of its own (11 channels, 9×7), so its plan is new here.
    Host w, b;
    w.shape = {6, 11, 3, 3};
    b.shape = {6};
    const std::vector<float> wv = RandomFloats(6 * 11 * 3 * 3, 201);
    const std::vector<float> bv = RandomFloats(6, 202);
    w.values.assign(wv.begin(), wv.end());
    b.values.assign(bv.begin(), bv.end());
    Tensor tw = rt->FromHost(*cuda, SY_DTYPE_F32, w.shape, wv.data(), wv.size() * 4).value();
    Tensor tb = rt->FromHost(*cuda, SY_DTYPE_F32, b.shape, bv.data(), bv.size() * 4).value();
    Tensor x = rt->Empty(*cuda, SY_DTYPE_F32, {2, 11, 9, 7}).value();
    Conv c;
    c.padding[0] = c.padding[1] = 1;
    Tensor ys[2] = {rt->Empty(*cuda, SY_DTYPE_F32, {2, 6, 9, 7}).value(),
                    rt->Empty(*cuda, SY_DTYPE_F32, {2, 6, 9, 7}).value()};
    // Calls 0–3 write ys[0] (plain, capture, replay, replay), 4–6 ys[1].
    for (int call = 0; call < 7; ++call) {
      SCOPED_TRACE("call " + std::to_string(call));
      Host xh;
      xh.shape = {2, 11, 9, 7};
      const std::vector<float> xv = RandomFloats(2 * 11 * 9 * 7, 210 + call);
      xh.values.assign(xv.begin(), xv.end());
      Tensor fresh =
          rt->FromHost(*cuda, SY_DTYPE_F32, xh.shape, xv.data(), xv.size() * 4).value();
      ASSERT_TRUE(rt->CallOut(copy, {fresh}, {}, {x}).ok());
      const Tensor& y = ys[call < 4 ? 0 : 1];
      absl::Status st = rt->CallOut(conv, {x, tw, tb}, c.Attrs(), {y});
      ASSERT_TRUE(st.ok()) << st;
      std::vector<int64_t> shape;
      const std::vector<double> want = Reference(xh, w, &b, c, &shape);
      std::vector<float> got(want.size());
      ASSERT_TRUE(rt->ToHost(y, got.data(), got.size() * 4).ok());
      EXPECT_LT(RelativeError(std::vector<double>(got.begin(), got.end()), want),
                Tolerance(SY_DTYPE_F32));
    }
    int captured = 0, timed = 0, kept = 0;
    for (const std::string& l : log.lines) {
      std::printf("  %s\n", l.c_str());
      if (l.find("x [2, 11, 9, 7]") == std::string::npos) continue;
      captured += l.find("captured a CUDA graph") != std::string::npos;
      timed += l.find("streamed back to back") != std::string::npos;
      kept += l.find("replays from now on") != std::string::npos;
    }
    // Timed once, at the plan's first capture; then, where replays pay,
    // one graph per output buffer (the workspace, from the runtime's
    // caching allocator, comes back the same on one stream).
    EXPECT_EQ(timed, graphs ? 1 : 0);
    EXPECT_EQ(captured, kept == 1 ? 2 : 0);
    rt.reset();
  }
  RuntimeWithCudaOption("conv2d_graphs=true").reset();  // the default again
}

// The plugin option conv2d_reduced_precision: plans are built with
// reduced-precision-reduction engines allowed (their key says so, so a
// plan built under the default is not reused); f16 stays within a 16-bit
// reduction's error of float64, and f32 within FP32's (no TF32).
TEST(CudaConv2dReducedPrecision, ReachesThePlansAndKeepsF32Exact) {
  SY_SKIP_WITHOUT_CUDA();
  const auto runtime_with = [](bool reduced) {
    return RuntimeWithCudaOption(std::string("conv2d_reduced_precision=") +
                                 (reduced ? "true" : "false"));
  };
  std::unique_ptr<Runtime> rt = runtime_with(true);
  Device* cuda = rt->GetDevice("cuda:0").value();
  LogLines built("built the plan of");
  // A 3-channel 7×7 stem, stride 2, padding 3, in f16 and f32.
  Conv c;
  c.stride[0] = c.stride[1] = 2;
  c.padding[0] = c.padding[1] = 3;
  double error[2] = {};
  for (const sy_dtype_t dtype : {SY_DTYPE_F16, SY_DTYPE_F32}) {
    Host x, w;
    // Random values rounded to the dtype (Upload's tensors, on the shared
    // runtime, are not used).
    (void)Upload(dtype, {2, 3, 20, 20}, 131, &x);
    (void)Upload(dtype, {16, 3, 7, 7}, 132, &w);
    // This runtime's own tensors, from the rounded values.
    const auto on_rt = [&](const Host& h) {
      if (dtype == SY_DTYPE_F32) {
        const std::vector<float> f(h.values.begin(), h.values.end());
        return rt->FromHost(*cuda, dtype, h.shape, f.data(), f.size() * 4).value();
      }
      std::vector<plugin::Half> f(h.values.size());
      for (size_t i = 0; i < f.size(); ++i) f[i] = plugin::Half(static_cast<float>(h.values[i]));
      return rt->FromHost(*cuda, dtype, h.shape, f.data(), f.size() * 2).value();
    };
    std::vector<int64_t> shape;
    const std::vector<double> want = Reference(x, w, nullptr, c, &shape);
    std::vector<Tensor> out = rt->Call(rt->FindOp("conv2d").value(),
                                       {on_rt(x), on_rt(w), Tensor()}, c.Attrs())
                                  .value();
    std::vector<double> got(want.size());
    if (dtype == SY_DTYPE_F32) {
      std::vector<float> f(got.size());
      ASSERT_TRUE(rt->ToHost(out[0], f.data(), f.size() * 4).ok());
      got.assign(f.begin(), f.end());
    } else {
      std::vector<plugin::Half> f(got.size());
      ASSERT_TRUE(rt->ToHost(out[0], f.data(), f.size() * 2).ok());
      for (size_t i = 0; i < f.size(); ++i) got[i] = static_cast<float>(f[i]);
    }
    error[dtype == SY_DTYPE_F32] = RelativeError(got, want);
  }
  const std::vector<std::string>& lines = built.lines;
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0], HasSubstr("f16 NCHW"));
  EXPECT_THAT(lines[0], HasSubstr("(reduced-precision reduction allowed)"));
  EXPECT_THAT(lines[1], HasSubstr("f32 NCHW"));
  EXPECT_THAT(lines[1], HasSubstr("(reduced-precision reduction allowed)"));
  EXPECT_LT(error[0], 1e-2);  // 147 products summed in f16 at worst
  EXPECT_LT(error[1], Tolerance(SY_DTYPE_F32));
  rt.reset();
  runtime_with(false).reset();  // the default again, for the tests that follow
}

}  // namespace
}  // namespace sy::cuda_test
