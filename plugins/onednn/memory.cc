#include "memory.h"

#include <array>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>

#include "context.h"
#include "switchyard/plugin.hpp"

namespace sy::onednn {
namespace {

// Dense row-major strides of `dims`.
dnnl::memory::dims DenseStrides(const dnnl::memory::dims& dims) {
  dnnl::memory::dims strides(dims.size());
  int64_t stride = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= dims[d] > 0 ? dims[d] : 1;
  }
  return strides;
}

// Gives unit dims the dense stride (see the header).
void NormalizeUnitStrides(Operand& op) {
  int64_t dense = 1;
  for (size_t d = op.dims.size(); d-- > 0;) {
    if (op.dims[d] == 1) op.strides[d] = dense;
    dense = op.dims[d] * op.strides[d];
    if (op.dims[d] == 0) dense = op.strides[d];
  }
}

size_t ElementSize(dt type) { return type == dt::bf16 ? 2 : 4; }

template <class T>
void CopyElements(const Operand& src, void* dst_data,
                  const dnnl::memory::dims& dst_strides) {
  const T* s = static_cast<const T*>(src.data);
  T* d = static_cast<T*>(dst_data);
  plugin::ForEachStridedRun<2>(
      std::span<const int64_t>(src.dims.data(), src.dims.size()),
      {dst_strides.data(), src.strides.data()},
      [&](const std::array<int64_t, 2>& off, int64_t n,
          const std::array<int64_t, 2>& step) {
        if (step[0] == 1 && step[1] == 1) {
          std::memcpy(d + off[0], s + off[1], static_cast<size_t>(n) * sizeof(T));
          return;
        }
        for (int64_t i = 0; i < n; ++i) d[off[0] + i * step[0]] = s[off[1] + i * step[1]];
      });
}

}  // namespace

dt DnnlType(sy_dtype_t dtype) {
  switch (dtype) {
    case SY_DTYPE_F32: return dt::f32;
    case SY_DTYPE_BF16: return dt::bf16;
    default: return dt::undef;
  }
}

void* Scratch::Allocate(size_t bytes) {
  const size_t rounded = (bytes + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, rounded > 0 ? rounded : 64);
  if (p == nullptr) throw std::bad_alloc();
  blocks_.emplace_back(p);
  return p;
}

dnnl::memory Operand::memory() const {
  return dnnl::memory(desc(), Engine(), data);
}

bool Operand::IsDense() const {
  const dnnl::memory::dims dense = DenseStrides(dims);
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] != 1 && strides[d] != dense[d]) return false;
  }
  return true;
}

Operand Input(const sy_tensor_view_t& view, Scratch& scratch,
              ZeroStride zero_stride) {
  Operand op;
  op.type = DnnlType(view.dtype);
  op.data = plugin::DataPtr<char>(view);
  if (view.ndim == 0) {
    op.dims = {1};
    op.strides = {1};
    return op;
  }
  op.dims.assign(view.shape, view.shape + view.ndim);
  op.strides.assign(view.strides, view.strides + view.ndim);
  bool copy = false;
  for (int d = 0; d < view.ndim; ++d) {
    if (op.dims[d] > 1 && op.strides[d] == 0) {
      if (zero_stride == ZeroStride::kBroadcast) {
        op.dims[d] = 1;
      } else {
        copy = true;
      }
    }
  }
  if (copy) {
    NormalizeUnitStrides(op);
    return DenseCopy(op, scratch);
  }
  NormalizeUnitStrides(op);
  return op;
}

Operand Output(const sy_tensor_view_t& view) {
  Operand op;
  op.type = DnnlType(view.dtype);
  op.data = plugin::DataPtr<char>(view);
  if (view.ndim == 0) {
    op.dims = {1};
    op.strides = {1};
    return op;
  }
  op.dims.assign(view.shape, view.shape + view.ndim);
  op.strides.assign(view.strides, view.strides + view.ndim);
  NormalizeUnitStrides(op);
  return op;
}

Operand Unsqueeze(const Operand& op, int pos) {
  Operand out = op;
  const int64_t stride =
      pos < op.rank() ? op.strides[pos] * (op.dims[pos] > 0 ? op.dims[pos] : 1)
                      : 1;
  out.dims.insert(out.dims.begin() + pos, 1);
  out.strides.insert(out.strides.begin() + pos, stride);
  return out;
}

Operand PadLeading(const Operand& op, int rank) {
  Operand out = op;
  while (out.rank() < rank) out = Unsqueeze(out, 0);
  return out;
}

bool CollapseLeading(const Operand& op, int keep, Operand* out) {
  const int lead = op.rank() - keep;
  if (lead < 1) return false;
  int64_t size = 1;
  for (int d = 0; d < lead; ++d) size *= op.dims[d];
  // Row-major merge: each leading dim steps over the next one exactly.
  for (int d = 0; d + 1 < lead; ++d) {
    if (op.dims[d] != 1 && op.strides[d] != op.strides[d + 1] * op.dims[d + 1]) {
      return false;
    }
  }
  Operand merged;
  merged.type = op.type;
  merged.data = op.data;
  merged.dims.push_back(size);
  merged.strides.push_back(op.strides[lead - 1]);
  for (int d = lead; d < op.rank(); ++d) {
    merged.dims.push_back(op.dims[d]);
    merged.strides.push_back(op.strides[d]);
  }
  NormalizeUnitStrides(merged);
  *out = std::move(merged);
  return true;
}

Operand DenseCopy(const Operand& op, Scratch& scratch) {
  Operand out = op;
  out.strides = DenseStrides(op.dims);
  int64_t n = 1;
  for (int64_t d : op.dims) n *= d;
  out.data = scratch.Allocate(static_cast<size_t>(n) * ElementSize(op.type));
  if (n == 0) return out;
  if (ElementSize(op.type) == 2) {
    CopyElements<uint16_t>(op, out.data, out.strides);
  } else {
    CopyElements<uint32_t>(op, out.data, out.strides);
  }
  return out;
}

void Execute(const dnnl::primitive& primitive,
             const std::unordered_map<int, dnnl::memory>& args) {
  dnnl::stream& stream = ThreadStream();
  primitive.execute(stream, args);
  stream.wait();
}

void Reorder(const dnnl::memory& src, const dnnl::memory& dst) {
  dnnl::reorder primitive(src, dst);
  Execute(primitive, {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}});
}

}  // namespace sy::onednn
