#include "fusion/capture/op_graph.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatcher/ops/absl_compat.h"
#include "dispatcher/ops/dtype.h"

namespace sy::fusion {

OwnedAttrs::OwnedAttrs(absl::Span<const sy_attr_t> attrs)
    : attrs_(attrs.begin(), attrs.end()),
      lists_(attrs.size()),
      strings_(attrs.size()) {
  for (size_t i = 0; i < attrs.size(); ++i) {
    const sy_attr_t& a = attrs[i];
    if (a.kind == SY_ATTR_INTS && a.value.ints.size > 0) {
      lists_[i].assign(a.value.ints.data, a.value.ints.data + a.value.ints.size);
    } else if (a.kind == SY_ATTR_STRING && a.value.str.data != nullptr) {
      strings_[i].assign(a.value.str.data, static_cast<size_t>(a.value.str.size));
    }
  }
  Repoint();
}

OwnedAttrs& OwnedAttrs::operator=(const OwnedAttrs& other) {
  if (this == &other) return *this;
  attrs_ = other.attrs_;
  lists_ = other.lists_;
  strings_ = other.strings_;
  Repoint();
  return *this;
}

void OwnedAttrs::Repoint() {
  for (size_t i = 0; i < attrs_.size(); ++i) {
    sy_attr_t& a = attrs_[i];
    if (a.kind == SY_ATTR_INTS) {
      a.value.ints.data = lists_[i].data();
      a.value.ints.size = static_cast<int64_t>(lists_[i].size());
    } else if (a.kind == SY_ATTR_STRING) {
      a.value.str.data = strings_[i].c_str();
      a.value.str.size = static_cast<int64_t>(strings_[i].size());
    }
  }
}

std::string OwnedAttrs::ToString() const {
  std::vector<std::string> parts;
  for (size_t i = 0; i < attrs_.size(); ++i) {
    const sy_attr_t& a = attrs_[i];
    switch (a.kind) {
      case SY_ATTR_NONE: parts.push_back("None"); break;
      case SY_ATTR_INT: parts.push_back(absl::StrCat(a.value.i)); break;
      case SY_ATTR_FLOAT: {
        // Exact: two attributes that print alike are equal (CSE keys).
        char text[40];
        std::snprintf(text, sizeof(text), "%.17g", a.value.f);
        parts.push_back(text);
        break;
      }
      case SY_ATTR_BOOL: parts.push_back(a.value.b ? "True" : "False"); break;
      case SY_ATTR_INTS:
        parts.push_back(absl::StrCat("[", absl::StrJoin(lists_[i], ", "), "]"));
        break;
      case SY_ATTR_STRING: parts.push_back(absl::StrCat("\"", strings_[i], "\"")); break;
      case SY_ATTR_DTYPE:
        parts.push_back(std::string(core::DTypeName(a.value.dtype)));
        break;
      default: parts.push_back(absl::StrCat("kind", a.kind)); break;
    }
  }
  return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
}

int64_t Value::numel() const {
  int64_t n = 1;
  for (int d = 0; d < meta.ndim; ++d) n *= meta.shape[d];
  return n;
}

bool Value::is_identity() const {
  if (byte_offset != 0) return false;
  int64_t contiguous[SY_MAX_RANK];
  core::ContiguousStrides(shape(), contiguous);
  for (int d = 0; d < meta.ndim; ++d) {
    if (meta.shape[d] != 1 && strides[d] != contiguous[d]) return false;
  }
  return true;
}

int OpGraph::AddValue(const Value& v) {
  std::string key(reinterpret_cast<const char*>(&v.buffer), sizeof(v.buffer));
  key.append(reinterpret_cast<const char*>(&v.meta.dtype), sizeof(v.meta.dtype));
  key.append(reinterpret_cast<const char*>(&v.meta.ndim), sizeof(v.meta.ndim));
  key.append(reinterpret_cast<const char*>(v.meta.shape), sizeof(int64_t) * v.meta.ndim);
  key.append(reinterpret_cast<const char*>(v.strides), sizeof(int64_t) * v.meta.ndim);
  key.append(reinterpret_cast<const char*>(&v.byte_offset), sizeof(v.byte_offset));
  auto [it, inserted] = value_index_.emplace(std::move(key), static_cast<int>(values.size()));
  if (inserted) values.push_back(v);
  return it->second;
}

int OpGraph::Producer(int value) const {
  const Buffer& b = buffers[values[value].buffer];
  return b.kind == Buffer::Kind::kProduced ? b.node : -1;
}

std::vector<std::vector<int>> OpGraph::ConsumersByBuffer() const {
  std::vector<std::vector<int>> consumers(buffers.size());
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (nodes[n].dead) continue;
    for (int v : nodes[n].inputs) {
      std::vector<int>& list = consumers[values[v].buffer];
      if (list.empty() || list.back() != static_cast<int>(n)) list.push_back(static_cast<int>(n));
    }
  }
  return consumers;
}

int OpGraph::num_live_nodes() const {
  int n = 0;
  for (const Node& node : nodes) n += node.dead ? 0 : 1;
  return n;
}

bool OpGraph::AsWritten(int value) const {
  const Buffer& b = buffers[values[value].buffer];
  if (b.kind == Buffer::Kind::kProduced) return nodes[b.node].outputs[b.output] == value;
  return values[value].is_identity();
}

void OpGraph::WrittenStrides(int buffer, int64_t strides[SY_MAX_RANK]) const {
  const Buffer& b = buffers[buffer];
  if (b.kind == Buffer::Kind::kProduced) {
    const Value& written = values[nodes[b.node].outputs[b.output]];
    std::copy(written.strides, written.strides + written.meta.ndim, strides);
    return;
  }
  core::ContiguousStrides({b.meta.shape, static_cast<size_t>(b.meta.ndim)}, strides);
}

std::string OpGraph::DescribeValue(int value) const {
  const Value& v = values[value];
  const Buffer& b = buffers[v.buffer];
  std::string what;
  switch (b.kind) {
    case Buffer::Kind::kInput: what = inputs[b.input].name; break;
    case Buffer::Kind::kConstant: what = "constant"; break;
    case Buffer::Kind::kProduced:
      what = absl::StrCat("%", b.node, ".", b.output, " (", nodes[b.node].name(), ")");
      break;
  }
  return absl::StrCat(what, ": ", core::AsAbsl(core::DTypeName(v.meta.dtype)), "[",
                      absl::StrJoin(v.shape(), ", "), "]",
                      AsWritten(value) ? "" : " (view)", " on ",
                      b.device != nullptr ? b.device->label() : "?");
}

std::string MetaText(const sy_tensor_meta_t& meta) {
  return absl::StrCat(core::AsAbsl(core::DTypeName(meta.dtype)), "[",
                      absl::StrJoin(meta.shape, meta.shape + meta.ndim, ", "), "]");
}

core::Tensor ViewOf(const Value& value, const core::Tensor& buffer_tensor,
                    uint64_t origin) {
  return core::Tensor::View(buffer_tensor, value.shape(), value.stride_span(),
                            origin + value.byte_offset);
}

}  // namespace sy::fusion
