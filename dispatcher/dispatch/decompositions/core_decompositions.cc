#include "dispatcher/dispatch/decompositions/core_decompositions.h"

#include "dispatcher/dispatch/decompositions/decompositions.h"

namespace sy::core {

void InstallCoreDecompositions(OpRegistry& ops) {
  namespace d = decompositions;
  struct Entry {
    const char* op;
    DecompositionFn fn;
    DecompositionApplies applies = nullptr;
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
      {"add.Tensor", d::PromoteInputs, d::InputsNeedPromotion},
      {"sub.Tensor", d::PromoteInputs, d::InputsNeedPromotion},
      {"mul.Tensor", d::PromoteInputs, d::InputsNeedPromotion},
      {"div.Tensor", d::PromoteInputs, d::InputsNeedPromotion},
      {"pow.Tensor", d::PromoteInputs, d::InputsNeedPromotion},
      {"maximum.Tensor", d::PromoteInputs, d::InputsNeedPromotion},
      {"minimum.Tensor", d::PromoteInputs, d::InputsNeedPromotion},
      {"eq.Tensor", d::PromoteInputs, d::InputsNeedPromotion},
      {"ne.Tensor", d::PromoteInputs, d::InputsNeedPromotion},
      {"lt.Tensor", d::PromoteInputs, d::InputsNeedPromotion},
      {"le.Tensor", d::PromoteInputs, d::InputsNeedPromotion},
      {"gt.Tensor", d::PromoteInputs, d::InputsNeedPromotion},
      {"ge.Tensor", d::PromoteInputs, d::InputsNeedPromotion},
      {"where", d::PromoteInputs, d::InputsNeedPromotion},
  };
  for (const Entry& entry : kEntries) {
    if (OpDef* op = ops.Find(entry.op)) op->set_decomposition(entry.fn, entry.applies);
  }
}

}  // namespace sy::core
