#include "dispatcher/dispatch/decompositions/core_decompositions.h"

#include "dispatcher/dispatch/decompositions/decompositions.h"

namespace sy::core {

void InstallCoreDecompositions(OpRegistry& ops) {
  namespace d = decompositions;
  struct Entry {
    const char* op;
    DecompositionFn fn;
  };
  static constexpr Entry kEntries[] = {
      {"contiguous", d::Contiguous},
      {"square", d::Square},
      {"linear", d::Linear},
      {"gelu", d::Gelu},
      {"silu", d::Silu},
      {"softmax", d::Softmax},
      {"log_softmax", d::LogSoftmax},
      {"layer_norm", d::LayerNorm},
      {"rms_norm", d::RmsNorm},
      {"scaled_dot_product_attention", d::ScaledDotProductAttention},
      // Mixed-dtype inputs: promote, then the op again.
      {"add.Tensor", d::PromoteInputs},
      {"sub.Tensor", d::PromoteInputs},
      {"mul.Tensor", d::PromoteInputs},
      {"div.Tensor", d::PromoteInputs},
      {"pow.Tensor", d::PromoteInputs},
      {"maximum.Tensor", d::PromoteInputs},
      {"minimum.Tensor", d::PromoteInputs},
      {"eq.Tensor", d::PromoteInputs},
      {"ne.Tensor", d::PromoteInputs},
      {"lt.Tensor", d::PromoteInputs},
      {"le.Tensor", d::PromoteInputs},
      {"gt.Tensor", d::PromoteInputs},
      {"ge.Tensor", d::PromoteInputs},
      {"where", d::PromoteInputs},
  };
  for (const Entry& entry : kEntries) {
    if (OpDef* op = ops.Find(entry.op)) op->set_decomposition(entry.fn);
  }
}

}  // namespace sy::core
