#include "fusion/ir/serialize.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace sy::fusion {
namespace {

// Caps that keep a hostile file from making the reader allocate much:
// Validate has its own, tighter ones for what a plugin receives.
constexpr uint32_t kMaxName = 4096;
constexpr uint32_t kMaxOperands = 4096;
constexpr uint32_t kMaxInstrs = 1u << 20;

template <class T>
void Put(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));  // little-endian hosts only (x86, arm)
  out.append(bytes, sizeof(T));
}

class Reader {
 public:
  explicit Reader(absl::string_view bytes) : bytes_(bytes) {}

  template <class T>
  bool Get(T* value, const char* what) {
    if (bytes_.size() - pos_ < sizeof(T)) return Fail(what, "is cut off");
    std::memcpy(value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  bool GetBytes(size_t n, std::string* out, const char* what) {
    if (bytes_.size() - pos_ < n) return Fail(what, "is cut off");
    out->assign(bytes_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  bool Fail(const char* what, const char* why) {
    if (error_.empty()) error_ = absl::StrCat(what, " ", why, " at byte ", pos_);
    return false;
  }
  size_t remaining() const { return bytes_.size() - pos_; }
  const std::string& error() const { return error_; }

 private:
  absl::string_view bytes_;
  size_t pos_ = 0;
  std::string error_;
};

void PutOperands(std::string& out, const std::vector<sy_fused_operand_t>& list,
                 int ndim) {
  Put<uint32_t>(out, static_cast<uint32_t>(list.size()));
  for (const sy_fused_operand_t& o : list) {
    Put<uint32_t>(out, o.dtype);
    for (int d = 0; d < ndim; ++d) Put<int64_t>(out, o.strides[d]);
  }
}

bool GetOperands(Reader& r, std::vector<sy_fused_operand_t>* list, int ndim,
                 const char* what) {
  uint32_t n = 0;
  if (!r.Get(&n, what)) return false;
  if (n > kMaxOperands) return r.Fail(what, "count is over 4096");
  // Each operand takes at least 4 bytes: a count beyond what is left is a
  // lie, found before allocating for it.
  if (n > r.remaining() / 4) return r.Fail(what, "count exceeds the data");
  list->resize(n);
  for (sy_fused_operand_t& o : *list) {
    o = sy_fused_operand_t{};
    if (!r.Get(&o.dtype, what)) return false;
    for (int d = 0; d < ndim; ++d) {
      if (!r.Get(&o.strides[d], what)) return false;
    }
  }
  return true;
}

}  // namespace

std::string Serialize(const FusedKernel& k) {
  std::string out(kFusedIrMagic, sizeof(kFusedIrMagic) - 1);
  Put<uint32_t>(out, static_cast<uint32_t>(k.name.size()));
  out += k.name;
  Put<int32_t>(out, k.ndim);
  Put<int32_t>(out, k.reduce_ndim);
  const int ndim = k.ndim < 0 ? 0 : k.ndim > SY_MAX_RANK ? SY_MAX_RANK : k.ndim;
  for (int d = 0; d < ndim; ++d) Put<int64_t>(out, k.shape[d]);
  Put<int32_t>(out, k.num_stages);
  PutOperands(out, k.inputs, ndim);
  PutOperands(out, k.outputs, ndim);
  Put<uint32_t>(out, static_cast<uint32_t>(k.instrs.size()));
  for (const sy_fused_instr_t& in : k.instrs) {
    Put<int32_t>(out, in.op);
    Put<uint32_t>(out, in.dtype);
    Put<int32_t>(out, in.a);
    Put<int32_t>(out, in.b);
    Put<int32_t>(out, in.c);
    Put<int32_t>(out, in.index);
    Put<int32_t>(out, in.stage);
    Put<int32_t>(out, in.row_level);
    Put<double>(out, in.imm);
  }
  return out;
}

absl::StatusOr<FusedKernel> Deserialize(absl::string_view bytes) {
  const size_t magic = sizeof(kFusedIrMagic) - 1;
  if (bytes.size() < magic || std::memcmp(bytes.data(), kFusedIrMagic, 4) != 0) {
    return absl::InvalidArgumentError(
        "not a serialized fused kernel (no \"SYFI\" at the start)");
  }
  if (std::memcmp(bytes.data(), kFusedIrMagic, magic) != 0) {
    return absl::InvalidArgumentError(
        "a serialized fused kernel of another format version; this build "
        "reads version 1");
  }
  Reader r(bytes.substr(magic));
  FusedKernel k;
  uint32_t name_size = 0;
  bool ok = r.Get(&name_size, "name length");
  if (ok && name_size > kMaxName) ok = r.Fail("name length", "is over 4096");
  ok = ok && r.GetBytes(name_size, &k.name, "name") &&
       r.Get(&k.ndim, "rank") && r.Get(&k.reduce_ndim, "reduce_ndim");
  if (ok && (k.ndim < 0 || k.ndim > SY_MAX_RANK)) ok = r.Fail("rank", "is outside 0..8");
  for (int d = 0; ok && d < k.ndim; ++d) ok = r.Get(&k.shape[d], "shape");
  ok = ok && r.Get(&k.num_stages, "stage count") &&
       GetOperands(r, &k.inputs, k.ndim, "inputs") &&
       GetOperands(r, &k.outputs, k.ndim, "outputs");
  uint32_t num_instrs = 0;
  ok = ok && r.Get(&num_instrs, "instruction count");
  if (ok && num_instrs > kMaxInstrs) ok = r.Fail("instruction count", "is over 2^20");
  if (ok && num_instrs > r.remaining() / 40) {
    ok = r.Fail("instruction count", "exceeds the data");
  }
  if (ok) k.instrs.resize(num_instrs);
  for (uint32_t i = 0; ok && i < num_instrs; ++i) {
    sy_fused_instr_t& in = k.instrs[i];
    ok = r.Get(&in.op, "instruction") && r.Get(&in.dtype, "instruction") &&
         r.Get(&in.a, "instruction") && r.Get(&in.b, "instruction") &&
         r.Get(&in.c, "instruction") && r.Get(&in.index, "instruction") &&
         r.Get(&in.stage, "instruction") && r.Get(&in.row_level, "instruction") &&
         r.Get(&in.imm, "instruction");
  }
  if (ok && r.remaining() != 0) ok = r.Fail("the data", "goes on past the kernel");
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat("serialized fused kernel: ", r.error()));
  }
  if (absl::Status status = Validate(k); !status.ok()) return status;
  return k;
}

}  // namespace sy::fusion
