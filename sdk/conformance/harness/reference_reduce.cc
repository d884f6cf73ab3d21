// References of the reductions (sum mean max min argmax) and the
// normalizations (softmax log_softmax layer_norm rms_norm). Semantics:
// references.h.
#include <cmath>
#include <limits>
#include <stdexcept>

#include "sdk/conformance/harness/dtypes.h"
#include "sdk/conformance/harness/references.h"

namespace sy::op_harness::ref {
namespace {

int64_t NormalizeDim(int64_t dim, int rank) {
  const int64_t r = rank == 0 ? 1 : rank;  // rank 0 takes 0 and -1
  if (dim < -r || dim >= r) throw std::logic_error("reference: dim out of range");
  return dim < 0 ? dim + r : dim;
}

// Which dims are reduced, the result shape, and for each input element the
// result element it folds into.
struct Reduction {
  std::vector<bool> reduced;
  Shape out_shape;
  std::vector<int64_t> target;  // per input element (row-major)
  int64_t count = 1;            // elements folded into each result
};

Reduction PlanReduction(const Shape& shape, std::vector<bool> reduced,
                        bool keepdim) {
  Reduction r;
  r.reduced = std::move(reduced);
  Shape kept;  // the result's dims, size 1 where reduced (same linear index)
  for (size_t d = 0; d < shape.size(); ++d) {
    if (r.reduced[d]) {
      r.count *= shape[d];
      kept.push_back(1);
      if (keepdim) r.out_shape.push_back(1);
    } else {
      kept.push_back(shape[d]);
      r.out_shape.push_back(shape[d]);
    }
  }
  const std::vector<int64_t> strides = RowMajorStrides(kept);
  const int64_t n = NumElements(shape);
  r.target.resize(static_cast<size_t>(n));
  std::vector<int64_t> index(shape.size());
  for (int64_t i = 0; i < n; ++i) {
    Unravel(i, shape, index.data());
    int64_t t = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (!r.reduced[d]) t += index[d] * strides[d];
    }
    r.target[static_cast<size_t>(i)] = t;
  }
  return r;
}

std::vector<bool> ReducedDims(int rank, const std::vector<int64_t>& dims) {
  std::vector<bool> reduced(static_cast<size_t>(rank), dims.empty());
  for (int64_t d : dims) {
    const int64_t nd = NormalizeDim(d, rank);
    if (rank > 0) reduced[static_cast<size_t>(nd)] = true;
  }
  return reduced;
}

// The rows of `shape` along `dim`: outer × len × inner.
struct Rows {
  int64_t outer = 1, len = 1, inner = 1;
  int64_t at(int64_t o, int64_t j, int64_t i) const {
    return (o * len + j) * inner + i;
  }
};

Rows RowsAlong(const Shape& shape, int64_t dim) {
  Rows r;
  if (shape.empty()) return r;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    const int64_t s = shape[static_cast<size_t>(d)];
    if (d < dim) r.outer *= s;
    else if (d == dim) r.len = s;
    else r.inner *= s;
  }
  return r;
}

}  // namespace

RefResult Reduce(ReduceOp op, const RefTensor& x, std::vector<int64_t> dims,
                 bool keepdim) {
  const Reduction plan = PlanReduction(x.shape, ReducedDims(x.rank(), dims),
                                       keepdim);
  const int64_t n_out = NumElements(plan.out_shape);
  sy_dtype_t dtype = x.dtype;
  if (op == ReduceOp::kSum && !IsFloating(x.dtype)) dtype = SY_DTYPE_I64;

  if (!IsFloating(dtype)) {  // integer sums wrap in int64; max/min exact
    std::vector<int64_t> acc(static_cast<size_t>(n_out),
                             op == ReduceOp::kSum   ? 0
                             : op == ReduceOp::kMax ? INT64_MIN
                                                    : INT64_MAX);
    for (size_t i = 0; i < x.values.size(); ++i) {
      const int64_t v = static_cast<int64_t>(x.values[i]);
      int64_t& a = acc[static_cast<size_t>(plan.target[i])];
      if (op == ReduceOp::kSum) {
        a = static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(v));
      } else if (op == ReduceOp::kMax) {
        a = v > a ? v : a;
      } else {
        a = v < a ? v : a;
      }
    }
    std::vector<double> out(acc.begin(), acc.end());
    return {RefTensor::Make(dtype, plan.out_shape, std::move(out)), {}};
  }

  std::vector<double> acc(static_cast<size_t>(n_out),
                          op == ReduceOp::kMax   ? -INFINITY
                          : op == ReduceOp::kMin ? INFINITY
                                                 : 0.0);
  std::vector<double> squares(static_cast<size_t>(n_out), 0.0);
  for (size_t i = 0; i < x.values.size(); ++i) {
    const double v = x.values[i];
    const size_t t = static_cast<size_t>(plan.target[i]);
    double& a = acc[t];
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kMean:
        a += v;
        squares[t] += v * v;
        break;
      case ReduceOp::kMax:
        if (std::isnan(v) || std::isnan(a)) a = NAN;
        else if (v > a) a = v;
        break;
      case ReduceOp::kMin:
        if (std::isnan(v) || std::isnan(a)) a = NAN;
        else if (v < a) a = v;
        break;
    }
  }
  std::vector<double> scale;
  if (op == ReduceOp::kSum || op == ReduceOp::kMean) {
    const double count = static_cast<double>(plan.count);
    scale.resize(acc.size());
    for (size_t t = 0; t < acc.size(); ++t) {
      scale[t] = std::sqrt(squares[t]);
      if (op == ReduceOp::kMean) {
        acc[t] /= count;  // 0/0 = NaN for an empty mean, as specified
        scale[t] /= count;
      }
    }
  }
  return {RefTensor::Make(dtype, plan.out_shape, std::move(acc)),
          std::move(scale)};
}

RefResult Argmax(const RefTensor& x, std::optional<int64_t> dim, bool keepdim) {
  std::vector<bool> reduced(static_cast<size_t>(x.rank()), true);
  if (dim && x.rank() > 0) {
    const int64_t d = NormalizeDim(*dim, x.rank());
    for (size_t k = 0; k < reduced.size(); ++k) reduced[k] = k == static_cast<size_t>(d);
  } else if (dim) {
    NormalizeDim(*dim, 0);
  }
  const Reduction plan = PlanReduction(x.shape, reduced, keepdim);
  const int64_t n_out = NumElements(plan.out_shape);
  // The index counts positions within the reduced slice, in row-major order
  // of the reduced dims (for dim=None: of the flattened tensor).
  std::vector<double> best(static_cast<size_t>(n_out), 0);
  std::vector<int64_t> best_index(static_cast<size_t>(n_out), -1);
  std::vector<int64_t> seen(static_cast<size_t>(n_out), 0);
  for (size_t i = 0; i < x.values.size(); ++i) {
    const size_t t = static_cast<size_t>(plan.target[i]);
    const double v = x.values[i];
    const int64_t position = seen[t]++;
    const bool take = best_index[t] < 0 ||
                      (!std::isnan(best[t]) && (std::isnan(v) || v > best[t]));
    if (take) {
      best[t] = v;
      best_index[t] = position;
    }
  }
  std::vector<double> out(best_index.begin(), best_index.end());
  return {RefTensor::Make(SY_DTYPE_I64, plan.out_shape, std::move(out)), {}};
}

RefResult Softmax(const RefTensor& x, int64_t dim, bool log) {
  const Rows rows = RowsAlong(x.shape, NormalizeDim(dim, x.rank()));
  std::vector<double> out(x.values.size());
  for (int64_t o = 0; o < rows.outer; ++o) {
    for (int64_t i = 0; i < rows.inner; ++i) {
      double m = -INFINITY;
      for (int64_t j = 0; j < rows.len; ++j) {
        m = std::max(m, x.values[static_cast<size_t>(rows.at(o, j, i))]);
      }
      double sum = 0;
      for (int64_t j = 0; j < rows.len; ++j) {
        sum += std::exp(x.values[static_cast<size_t>(rows.at(o, j, i))] - m);
      }
      for (int64_t j = 0; j < rows.len; ++j) {
        const size_t at = static_cast<size_t>(rows.at(o, j, i));
        const double shifted = x.values[at] - m;
        out[at] = log ? shifted - std::log(sum) : std::exp(shifted) / sum;
      }
    }
  }
  return {RefTensor::Make(x.dtype, x.shape, std::move(out)), {}};
}

RefResult LayerNorm(const RefTensor& x, const Shape& normalized_shape,
                    const RefTensor& weight, const RefTensor& bias,
                    double eps) {
  const int64_t group = NumElements(normalized_shape);
  const int64_t groups = group == 0 ? 0 : x.numel() / group;
  std::vector<double> out(x.values.size());
  for (int64_t g = 0; g < groups; ++g) {
    const double* v = x.values.data() + g * group;
    double mean = 0;
    for (int64_t i = 0; i < group; ++i) mean += v[i];
    mean /= static_cast<double>(group);
    double var = 0;
    for (int64_t i = 0; i < group; ++i) var += (v[i] - mean) * (v[i] - mean);
    var /= static_cast<double>(group);
    const double inv = 1.0 / std::sqrt(var + eps);
    for (int64_t i = 0; i < group; ++i) {
      double y = (v[i] - mean) * inv;
      if (weight.defined()) y *= weight.values[static_cast<size_t>(i)];
      if (bias.defined()) y += bias.values[static_cast<size_t>(i)];
      out[static_cast<size_t>(g * group + i)] = y;
    }
  }
  return {RefTensor::Make(x.dtype, x.shape, std::move(out)), {}};
}

RefResult RmsNorm(const RefTensor& x, const RefTensor& weight, double eps) {
  const int64_t group = x.shape.back();
  const int64_t groups = group == 0 ? 0 : x.numel() / group;
  std::vector<double> out(x.values.size());
  for (int64_t g = 0; g < groups; ++g) {
    const double* v = x.values.data() + g * group;
    double ms = 0;
    for (int64_t i = 0; i < group; ++i) ms += v[i] * v[i];
    ms /= static_cast<double>(group);
    const double inv = 1.0 / std::sqrt(ms + eps);
    for (int64_t i = 0; i < group; ++i) {
      out[static_cast<size_t>(g * group + i)] =
          v[i] * inv * weight.values[static_cast<size_t>(i)];
    }
  }
  return {RefTensor::Make(x.dtype, x.shape, std::move(out)), {}};
}

}  // namespace sy::op_harness::ref
