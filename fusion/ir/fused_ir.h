// The fused-kernel IR on the host side: an owning C++ form of the ABI's
// sy_fused_kernel_t (Note [Fused-kernel IR] in switchyard/plugin.h), the
// checks that make its invariants true before any plugin sees it, and the
// text form that graph descriptions and tests print.
//
// Thread-safety: a FusedKernel is a value; const methods may be called from
// any thread.
#ifndef SWITCHYARD_FUSION_IR_FUSED_IR_H_
#define SWITCHYARD_FUSION_IR_FUSED_IR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "switchyard/plugin.h"

namespace sy::fusion {

struct FusedKernel {
  std::string name;
  int32_t ndim = 0;
  int32_t reduce_ndim = 0;
  int64_t shape[SY_MAX_RANK] = {};
  std::vector<sy_fused_operand_t> inputs;
  std::vector<sy_fused_operand_t> outputs;
  std::vector<sy_fused_instr_t> instrs;
  int32_t num_stages = 1;

  // The ABI view; points into this object, valid while it lives unchanged.
  sy_fused_kernel_t Abi() const;

  // Rows (product of the leading ndim - reduce_ndim dims) and row length
  // (product of the trailing reduce_ndim dims; 1 when reduce_ndim is 0).
  int64_t rows() const;
  int64_t row_length() const;

  // Appends an instruction and returns its index (its value).
  int32_t Add(const sy_fused_instr_t& instr) {
    instrs.push_back(instr);
    return static_cast<int32_t>(instrs.size()) - 1;
  }

  bool operator==(const FusedKernel& other) const;
};

// Helpers to write instructions.
sy_fused_instr_t Instr(sy_fused_op_t op, sy_dtype_t dtype, int32_t a = -1,
                       int32_t b = -1, int32_t c = -1);

// Checks every invariant of Note [Fused-kernel IR]; InvalidArgument names
// the first instruction or operand that breaks one. Every kernel the pass
// builds and every kernel read back from the disk cache goes through here.
absl::Status Validate(const FusedKernel& kernel);

// "add", "reduce_sum", … ("op#93" for an unknown number).
std::string FusedOpName(int32_t op);

// How many operands an op takes (0..3), or -1 for an unknown op.
int FusedOpArity(int32_t op);
bool IsFusedReduce(int32_t op);
bool IsFusedCompare(int32_t op);

// A multi-line listing: the domain, operands and one instruction a line
// ("  %4 = mul f32 %2, %3  [stage 0]").
std::string ToText(const FusedKernel& kernel);

}  // namespace sy::fusion

#endif  // SWITCHYARD_FUSION_IR_FUSED_IR_H_
