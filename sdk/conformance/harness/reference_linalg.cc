// References of matmul, linear, conv2d and scaled_dot_product_attention.
// Floating results accumulate in float64 and report the L2 norm of the
// products as the tolerance scale; integer results accumulate in int64 and
// wrap to the result dtype (references.h).
#include <cmath>
#include <stdexcept>

#include "sdk/conformance/harness/dtypes.h"
#include "sdk/conformance/harness/references.h"

namespace sy::op_harness::ref {
namespace {

// One dot product's accumulator, in the arithmetic of the result dtype.
class Accumulator {
 public:
  explicit Accumulator(sy_dtype_t dtype) : integral_(!IsFloating(dtype)) {}

  void Add(double a, double b) {
    if (integral_) {
      const uint64_t p = static_cast<uint64_t>(static_cast<int64_t>(a)) *
                         static_cast<uint64_t>(static_cast<int64_t>(b));
      int_sum_ += p;
    } else {
      const double p = a * b;
      sum_ += p;
      squares_ += p * p;
    }
  }
  double value() const {
    return integral_ ? static_cast<double>(static_cast<int64_t>(int_sum_)) : sum_;
  }
  double scale() const { return std::sqrt(squares_); }

 private:
  bool integral_;
  uint64_t int_sum_ = 0;
  double sum_ = 0, squares_ = 0;
};

// The value of the result dtype for an accumulated sum: integers wrap.
double Finish(sy_dtype_t dtype, double v) {
  return IsFloating(dtype) ? v : static_cast<double>(WrapInt(dtype, static_cast<int64_t>(v)));
}

// Batch-dim bookkeeping for ops whose operands broadcast over leading dims.
struct Batched {
  Shape batch;                             // broadcast batch shape
  std::vector<std::vector<int64_t>> strides;  // per operand, in matrices
};

// `batches[k]` are operand k's batch dims; each operand's matrices are
// stored one after another (row-major), so a batch index maps to a matrix
// number through broadcast strides.
Batched BroadcastBatches(const std::vector<Shape>& batches) {
  Batched b;
  for (const Shape& s : batches) {
    std::optional<Shape> out = BroadcastShapes(b.batch, s);
    if (!out) throw std::logic_error("reference: batch dims do not broadcast");
    b.batch = *out;
  }
  for (const Shape& s : batches) b.strides.push_back(BroadcastStrides(s, b.batch));
  return b;
}

int64_t MatrixNumber(const Batched& b, size_t operand, const int64_t* index) {
  int64_t n = 0;
  for (size_t d = 0; d < b.batch.size(); ++d) n += index[d] * b.strides[operand][d];
  return n;
}

Shape Leading(const Shape& s, size_t drop) {
  return Shape(s.begin(), s.end() - static_cast<std::ptrdiff_t>(drop));
}

}  // namespace

RefResult Matmul(const RefTensor& a, const RefTensor& b) {
  const sy_dtype_t dtype = a.dtype;
  // NumPy: a 1-D a is a row [1, K], a 1-D b a column [K, 1]; those dims are
  // dropped from the result.
  const bool a_vec = a.rank() == 1, b_vec = b.rank() == 1;
  const int64_t m = a_vec ? 1 : a.shape[a.shape.size() - 2];
  const int64_t k = a.shape.back();
  const int64_t n = b_vec ? 1 : b.shape.back();
  const Batched batched = BroadcastBatches(
      {a_vec ? Shape{} : Leading(a.shape, 2), b_vec ? Shape{} : Leading(b.shape, 2)});
  Shape out_shape = batched.batch;
  if (!a_vec) out_shape.push_back(m);
  if (!b_vec) out_shape.push_back(n);
  const int64_t batches = NumElements(batched.batch);
  std::vector<double> out(static_cast<size_t>(batches * m * n));
  std::vector<double> scale(out.size());
  std::vector<int64_t> index(batched.batch.size());
  for (int64_t bi = 0; bi < batches; ++bi) {
    Unravel(bi, batched.batch, index.data());
    const double* pa = a.values.data() + MatrixNumber(batched, 0, index.data()) * m * k;
    const double* pb = b.values.data() + MatrixNumber(batched, 1, index.data()) * k * n;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        Accumulator acc(dtype);
        for (int64_t p = 0; p < k; ++p) acc.Add(pa[i * k + p], pb[p * n + j]);
        const size_t at = static_cast<size_t>((bi * m + i) * n + j);
        out[at] = Finish(dtype, acc.value());
        scale[at] = acc.scale();
      }
    }
  }
  return {RefTensor::Make(dtype, out_shape, std::move(out)), std::move(scale)};
}

RefResult Linear(const RefTensor& x, const RefTensor& weight,
                 const RefTensor& bias) {
  const sy_dtype_t dtype = x.dtype;
  const int64_t in = weight.shape[1], out_features = weight.shape[0];
  const int64_t rows = in == 0 ? NumElements(Leading(x.shape, 1)) : x.numel() / in;
  Shape out_shape = x.shape;
  out_shape.back() = out_features;
  std::vector<double> out(static_cast<size_t>(rows * out_features));
  std::vector<double> scale(out.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t o = 0; o < out_features; ++o) {
      Accumulator acc(dtype);
      for (int64_t i = 0; i < in; ++i) {
        acc.Add(x.values[static_cast<size_t>(r * in + i)],
                weight.values[static_cast<size_t>(o * in + i)]);
      }
      if (bias.defined()) acc.Add(bias.values[static_cast<size_t>(o)], 1.0);
      const size_t at = static_cast<size_t>(r * out_features + o);
      out[at] = Finish(dtype, acc.value());
      scale[at] = acc.scale();
    }
  }
  return {RefTensor::Make(dtype, out_shape, std::move(out)), std::move(scale)};
}

RefResult Conv2d(const RefTensor& x, const RefTensor& weight,
                 const RefTensor& bias, const std::vector<int64_t>& stride,
                 const std::vector<int64_t>& padding,
                 const std::vector<int64_t>& dilation, int64_t groups) {
  const sy_dtype_t dtype = x.dtype;
  const int64_t batch = x.shape[0], channels = x.shape[1];
  const int64_t height = x.shape[2], width = x.shape[3];
  const int64_t out_channels = weight.shape[0], group_in = weight.shape[1];
  const int64_t kh = weight.shape[2], kw = weight.shape[3];
  const int64_t group_out = out_channels / groups;
  const int64_t oh = (height + 2 * padding[0] - dilation[0] * (kh - 1) - 1) / stride[0] + 1;
  const int64_t ow = (width + 2 * padding[1] - dilation[1] * (kw - 1) - 1) / stride[1] + 1;
  const Shape out_shape = {batch, out_channels, oh, ow};
  std::vector<double> out(static_cast<size_t>(NumElements(out_shape)));
  std::vector<double> scale(out.size());
  for (int64_t nb = 0; nb < batch; ++nb) {
    for (int64_t co = 0; co < out_channels; ++co) {
      const int64_t g = co / group_out;
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t z = 0; z < ow; ++z) {
          Accumulator acc(dtype);
          for (int64_t ci = 0; ci < group_in; ++ci) {
            const int64_t c = g * group_in + ci;
            for (int64_t i = 0; i < kh; ++i) {
              const int64_t h = y * stride[0] - padding[0] + i * dilation[0];
              if (h < 0 || h >= height) continue;
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t w = z * stride[1] - padding[1] + j * dilation[1];
                if (w < 0 || w >= width) continue;
                acc.Add(x.values[static_cast<size_t>(((nb * channels + c) * height + h) * width + w)],
                        weight.values[static_cast<size_t>(((co * group_in + ci) * kh + i) * kw + j)]);
              }
            }
          }
          if (bias.defined()) acc.Add(bias.values[static_cast<size_t>(co)], 1.0);
          const size_t at = static_cast<size_t>(((nb * out_channels + co) * oh + y) * ow + z);
          out[at] = Finish(dtype, acc.value());
          scale[at] = acc.scale();
        }
      }
    }
  }
  (void)channels;
  return {RefTensor::Make(dtype, out_shape, std::move(out)), std::move(scale)};
}

RefResult ScaledDotProductAttention(const RefTensor& q, const RefTensor& k,
                                    const RefTensor& v, const RefTensor& mask,
                                    bool causal, std::optional<double> scale) {
  const int64_t lq = q.shape[q.shape.size() - 2], e = q.shape.back();
  const int64_t lk = k.shape[k.shape.size() - 2], ev = v.shape.back();
  const double s = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(e));
  const Batched batched =
      BroadcastBatches({Leading(q.shape, 2), Leading(k.shape, 2), Leading(v.shape, 2)});
  Shape scores_shape = batched.batch;
  scores_shape.push_back(lq);
  scores_shape.push_back(lk);
  RefTensor full_mask;
  if (mask.defined()) full_mask = BroadcastTo(mask, scores_shape);
  Shape out_shape = batched.batch;
  out_shape.push_back(lq);
  out_shape.push_back(ev);
  const int64_t batches = NumElements(batched.batch);
  std::vector<double> out(static_cast<size_t>(batches * lq * ev));
  std::vector<int64_t> index(batched.batch.size());
  std::vector<double> p(static_cast<size_t>(lk));
  for (int64_t bi = 0; bi < batches; ++bi) {
    Unravel(bi, batched.batch, index.data());
    const double* pq = q.values.data() + MatrixNumber(batched, 0, index.data()) * lq * e;
    const double* pk = k.values.data() + MatrixNumber(batched, 1, index.data()) * lk * e;
    const double* pv = v.values.data() + MatrixNumber(batched, 2, index.data()) * lk * ev;
    for (int64_t i = 0; i < lq; ++i) {
      double m = -INFINITY;
      for (int64_t j = 0; j < lk; ++j) {
        double score = 0;
        for (int64_t c = 0; c < e; ++c) score += pq[i * e + c] * pk[j * e + c];
        score *= s;
        if (causal && j > i) score = -INFINITY;
        if (full_mask.defined()) {
          const double mv = full_mask.values[static_cast<size_t>((bi * lq + i) * lk + j)];
          if (full_mask.dtype == SY_DTYPE_BOOL) {
            if (mv == 0) score = -INFINITY;
          } else {
            score += mv;
          }
        }
        p[static_cast<size_t>(j)] = score;
        m = std::max(m, score);
      }
      double sum = 0;
      for (double& x : p) {
        x = std::exp(x - m);
        sum += x;
      }
      for (int64_t c = 0; c < ev; ++c) {
        double acc = 0;
        for (int64_t j = 0; j < lk; ++j) acc += p[static_cast<size_t>(j)] * pv[j * ev + c];
        out[static_cast<size_t>((bi * lq + i) * ev + c)] = acc / sum;
      }
    }
  }
  return {RefTensor::Make(q.dtype, out_shape, std::move(out)), {}};
}

}  // namespace sy::op_harness::ref
