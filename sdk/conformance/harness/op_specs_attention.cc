// Specs of scaled_dot_product_attention: no mask, causal (also with
// Lq != Lk), bool and floating masks that broadcast, an explicit scale,
// broadcast batch dims, rank-2 operands, odd sequence lengths, head dims
// up to 256 (what fused kernels tile: 40, 96, 256), a zero-size batch.
#include "sdk/conformance/harness/dtypes.h"
#include "sdk/conformance/harness/op_specs.h"
#include "sdk/conformance/harness/references.h"
#include "sdk/conformance/harness/spec_builders.h"

namespace sy::op_harness {
namespace {

using specs::Case;
using specs::In;

struct AttentionCase {
  std::string label;
  Shape q, k, v;
  enum { kNoMask, kBoolMask, kFloatMask } mask = kNoMask;
  Shape mask_shape;
  bool causal = false;
  std::optional<double> scale;
  LayoutPlan layouts = LayoutPlan::kAll;
};

OpTest AttentionTest(sy_dtype_t dtype) {
  return specs::Test("Attention", "scaled_dot_product_attention",
                     std::string(DtypeName(dtype)), [=] {
    auto make = [](std::string label, Shape q, Shape k, Shape v) {
      AttentionCase c;
      c.label = std::move(label);
      c.q = std::move(q);
      c.k = std::move(k);
      c.v = std::move(v);
      return c;
    };
    std::vector<AttentionCase> list;
    list.push_back(make("no mask", {2, 5, 8}, {2, 7, 8}, {2, 7, 6}));
    list.push_back(make("causal", {2, 5, 8}, {2, 7, 8}, {2, 7, 6}));
    list.back().causal = true;
    list.push_back(make("causal, Lq > Lk", {2, 6, 8}, {2, 4, 8}, {2, 4, 3}));
    list.back().causal = true;
    list.push_back(make("bool mask [5, 7]", {2, 5, 8}, {2, 7, 8}, {2, 7, 6}));
    list.back().mask = AttentionCase::kBoolMask;
    list.back().mask_shape = {5, 7};
    list.push_back(make("float mask [2, 1, 7]", {2, 5, 8}, {2, 7, 8}, {2, 7, 6}));
    list.back().mask = AttentionCase::kFloatMask;
    list.back().mask_shape = {2, 1, 7};
    list.push_back(make("scale=0.3", {2, 5, 8}, {2, 7, 8}, {2, 7, 6}));
    list.back().scale = 0.3;
    list.push_back(make("broadcast batch dims", {2, 3, 4, 8}, {1, 3, 6, 8}, {2, 1, 6, 5}));
    list.push_back(make("rank 2, bool mask [1, 7]", {5, 8}, {7, 8}, {7, 4}));
    list.back().mask = AttentionCase::kBoolMask;
    list.back().mask_shape = {1, 7};
    list.push_back(make("E = 1", {3, 4, 1}, {3, 5, 1}, {3, 5, 2}));
    list.push_back(make("large, causal", {4, 64, 32}, {4, 64, 32}, {4, 64, 32}));
    list.back().causal = true;
    list.back().layouts = LayoutPlan::kDenseStrided;
    list.push_back(make("odd lengths, causal", {2, 13, 16}, {2, 29, 16}, {2, 29, 16}));
    list.back().causal = true;
    list.push_back(make("head dim 40, float mask [13, 21]", {2, 13, 40}, {2, 21, 40},
                        {2, 21, 40}));
    list.back().mask = AttentionCase::kFloatMask;
    list.back().mask_shape = {13, 21};
    list.push_back(make("head dim 96, bool mask [2, 1, 7]", {2, 3, 9, 96}, {2, 3, 7, 96},
                        {2, 3, 7, 96}));
    list.back().mask = AttentionCase::kBoolMask;
    list.back().mask_shape = {2, 1, 1, 7};
    list.push_back(make("head dim 256", {1, 5, 256}, {1, 7, 256}, {1, 7, 256}));
    list.back().layouts = LayoutPlan::kDenseStrided;
    list.push_back(make("zero-size batch", {0, 4, 16}, {0, 6, 16}, {0, 6, 16}));
    std::vector<OpCase> cases;
    for (const AttentionCase& c : list) {
      InputSpec mask = InputSpec::None();
      if (c.mask == AttentionCase::kBoolMask) {
        mask = In(SY_DTYPE_BOOL, c.mask_shape, Domain::kMaskKeep);
      } else if (c.mask == AttentionCase::kFloatMask) {
        mask = In(dtype, c.mask_shape, Domain::kGeneral);
      }
      const bool causal = c.causal;
      const std::optional<double> scale = c.scale;
      cases.push_back(Case(
          c.label + ", " + specs::ShapesLabel({c.q, c.k, c.v}),
          {In(dtype, c.q, Domain::kUnit), In(dtype, c.k, Domain::kUnit),
           In(dtype, c.v, Domain::kUnit), mask},
          {AttrValue::Bool(causal), scale ? AttrValue::Float(*scale) : AttrValue::None()},
          Accuracy::kAttention,
          [causal, scale](const std::vector<RefTensor>& in) {
            return ref::ScaledDotProductAttention(in[0], in[1], in[2], in[3],
                                                  causal, scale);
          },
          c.layouts));
    }
    return cases;
  });
}

}  // namespace

std::vector<OpTest> AttentionTests() {
  std::vector<OpTest> tests;
  for (sy_dtype_t d : kFloatDtypes) tests.push_back(AttentionTest(d));
  return tests;
}

}  // namespace sy::op_harness
