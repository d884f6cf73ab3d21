// References of the layout ops (reshape permute transpose slice expand
// concat) and embedding. All move values without arithmetic, so their
// results must match exactly.
#include <stdexcept>

#include "sdk/conformance/harness/references.h"

namespace sy::op_harness::ref {
namespace {

int64_t NormalizeDim(int64_t dim, int rank) {
  if (dim < -rank || dim >= rank) throw std::logic_error("reference: dim out of range");
  return dim < 0 ? dim + rank : dim;
}

int64_t Clamp(int64_t bound, int64_t size) {
  if (bound < 0) bound += size;
  return bound < 0 ? 0 : (bound > size ? size : bound);
}

}  // namespace

RefResult Reshape(const RefTensor& x, const std::vector<int64_t>& shape) {
  Shape out = shape;
  int64_t known = 1;
  int inferred = -1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) inferred = static_cast<int>(i);
    else known *= out[i];
  }
  if (inferred >= 0) out[static_cast<size_t>(inferred)] = x.numel() / known;
  return {RefTensor{x.dtype, out, x.values}, {}};
}

RefResult Permute(const RefTensor& x, const std::vector<int64_t>& dims) {
  std::vector<int64_t> perm;
  for (int64_t d : dims) perm.push_back(NormalizeDim(d, x.rank()));
  return {PermuteDims(x, perm), {}};
}

RefResult Transpose(const RefTensor& x, int64_t dim0, int64_t dim1) {
  std::vector<int64_t> perm(static_cast<size_t>(x.rank()));
  for (int d = 0; d < x.rank(); ++d) perm[static_cast<size_t>(d)] = d;
  std::swap(perm[static_cast<size_t>(NormalizeDim(dim0, x.rank()))],
            perm[static_cast<size_t>(NormalizeDim(dim1, x.rank()))]);
  return {PermuteDims(x, perm), {}};
}

RefResult Slice(const RefTensor& x, int64_t dim, int64_t start,
                std::optional<int64_t> end, int64_t step) {
  const int64_t d = NormalizeDim(dim, x.rank());
  const int64_t size = x.shape[static_cast<size_t>(d)];
  const int64_t first = Clamp(start, size);
  const int64_t last = end ? Clamp(*end, size) : size;
  const int64_t length = last <= first ? 0 : (last - first - 1) / step + 1;
  Shape out_shape = x.shape;
  out_shape[static_cast<size_t>(d)] = length;
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < x.rank(); ++k) {
    if (k < d) outer *= x.shape[static_cast<size_t>(k)];
    if (k > d) inner *= x.shape[static_cast<size_t>(k)];
  }
  RefTensor out{x.dtype, out_shape, {}};
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < length; ++j) {
      const int64_t src = (o * size + first + j * step) * inner;
      for (int64_t i = 0; i < inner; ++i) {
        out.values.push_back(x.values[static_cast<size_t>(src + i)]);
      }
    }
  }
  return {std::move(out), {}};
}

RefResult Expand(const RefTensor& x, const std::vector<int64_t>& shape) {
  Shape out = shape;
  const size_t lead = shape.size() - x.shape.size();
  for (size_t i = lead; i < out.size(); ++i) {
    if (out[i] == -1) out[i] = x.shape[i - lead];
  }
  return {BroadcastTo(x, out), {}};
}

RefResult Concat(std::span<const RefTensor> tensors, int64_t dim) {
  const RefTensor& first = tensors.front();
  const int64_t d = NormalizeDim(dim, first.rank());
  int64_t outer = 1, inner = 1, total = 0;
  for (int64_t k = 0; k < first.rank(); ++k) {
    if (k < d) outer *= first.shape[static_cast<size_t>(k)];
    if (k > d) inner *= first.shape[static_cast<size_t>(k)];
  }
  for (const RefTensor& t : tensors) total += t.shape[static_cast<size_t>(d)];
  Shape out_shape = first.shape;
  out_shape[static_cast<size_t>(d)] = total;
  RefTensor out{first.dtype, out_shape, {}};
  for (int64_t o = 0; o < outer; ++o) {
    for (const RefTensor& t : tensors) {
      const int64_t block = t.shape[static_cast<size_t>(d)] * inner;
      for (int64_t i = 0; i < block; ++i) {
        out.values.push_back(t.values[static_cast<size_t>(o * block + i)]);
      }
    }
  }
  return {std::move(out), {}};
}

RefResult Embedding(const RefTensor& weight, const RefTensor& indices) {
  const int64_t rows = weight.shape[0], dim = weight.shape[1];
  Shape out_shape = indices.shape;
  out_shape.push_back(dim);
  RefTensor out{weight.dtype, out_shape, {}};
  for (double v : indices.values) {
    const int64_t row = static_cast<int64_t>(v);
    if (row < 0 || row >= rows) throw std::logic_error("reference: index out of range");
    for (int64_t j = 0; j < dim; ++j) {
      out.values.push_back(weight.values[static_cast<size_t>(row * dim + j)]);
    }
  }
  return {std::move(out), {}};
}

}  // namespace sy::op_harness::ref
