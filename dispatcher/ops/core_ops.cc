// CoreOps(): the core op set v1, family by family, in the order of
// docs/ops.md. The order matters only between overloads of one name (the
// Tensor overload first); keeping the docs' order makes `switchyard ops`
// output and the spec easy to compare.
#include <vector>

#include "absl/types/span.h"
#include "dispatcher/ops/core_op_families.h"
#include "dispatcher/ops/shape_context.h"

namespace sy::core {

absl::Span<const CoreOpDef> CoreOps() {
  // Built on first use, not in a static initializer, and never destroyed so
  // that it outlives every caller.
  static const std::vector<CoreOpDef>* const ops = [] {
    auto* all = new std::vector<CoreOpDef>;
    for (absl::Span<const CoreOpDef> family :
         {op_set::CreationOps(), op_set::UnaryOps(), op_set::BinaryOps(),
          op_set::ReductionOps(), op_set::NormOps(), op_set::LinalgOps(),
          op_set::LayoutOps(), op_set::AttentionOps(),
          op_set::CollectiveOps()}) {
      all->insert(all->end(), family.begin(), family.end());
    }
    return all;
  }();
  return *ops;
}

}  // namespace sy::core
