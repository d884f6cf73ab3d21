// CoreOps(): the core op set v1, family by family, in the order of
// docs/ops.md. The order matters only between overloads of one name (the
// Tensor overload first); keeping the docs' order makes `switchyard ops`
// output and the spec easy to compare.
#include <vector>

#include "absl/types/span.h"
#include "dispatcher/ops/core_op_families.h"
#include "dispatcher/ops/shape_context.h"

namespace sy {

absl::Span<const CoreOpDef> CoreOps() {
  // Built on first use, not in a static initializer, and never destroyed so
  // that it outlives every caller.
  static const std::vector<CoreOpDef>* const ops = [] {
    auto* all = new std::vector<CoreOpDef>;
    for (absl::Span<const CoreOpDef> family :
         {core_ops::CreationOps(), core_ops::UnaryOps(), core_ops::BinaryOps(),
          core_ops::ReductionOps(), core_ops::NormOps(), core_ops::LinalgOps(),
          core_ops::LayoutOps(), core_ops::AttentionOps()}) {
      all->insert(all->end(), family.begin(), family.end());
    }
    return all;
  }();
  return *ops;
}

}  // namespace sy
