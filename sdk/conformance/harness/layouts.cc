#include "sdk/conformance/harness/layouts.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sdk/conformance/harness/dtypes.h"

namespace sy::op_harness {
namespace {

Result<DeviceTensor> CallView(BackendUnderTest& backend, std::string_view op,
                              const DeviceTensor& base,
                              std::vector<AttrValue> attrs) {
  const DeviceTensor inputs[] = {base};
  Result<std::vector<DeviceTensor>> out =
      backend.Call(op, inputs, attrs, {}, CallMode::kDispatch);
  if (!out.ok()) {
    Status s = out.status();
    s.message = "making a " + std::string(op) + " view for an input layout: " +
                s.message;
    return s;
  }
  return out->at(0);
}

// What fills the gaps of a strided layout: a value no correct kernel reads.
double Poison(sy_dtype_t dtype) {
  if (IsFloating(dtype)) return std::numeric_limits<double>::quiet_NaN();
  if (dtype == SY_DTYPE_BOOL) return 1;
  return MaxValue(dtype);
}

std::vector<int64_t> Reversed(int rank) {
  std::vector<int64_t> perm(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) perm[static_cast<size_t>(i)] = rank - 1 - i;
  return perm;
}

}  // namespace

std::string_view LayoutName(Layout layout) {
  switch (layout) {
    case Layout::kContiguous: return "contiguous";
    case Layout::kTransposed: return "transposed";
    case Layout::kStrided: return "strided";
    case Layout::kBroadcast: return "broadcast";
  }
  return "?";
}

int BroadcastDim(const Shape& shape) {
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] > 1) return static_cast<int>(d);
  }
  return -1;
}

bool LayoutApplies(Layout layout, const Shape& shape) {
  switch (layout) {
    case Layout::kContiguous: return true;
    case Layout::kTransposed: return shape.size() >= 2;
    case Layout::kStrided: return !shape.empty();
    case Layout::kBroadcast: return BroadcastDim(shape) >= 0;
  }
  return false;
}

std::vector<LayoutRun> PlanLayouts(LayoutPlan plan,
                                   const std::vector<Shape>& shapes) {
  std::vector<LayoutRun> runs;
  auto add = [&](std::string name, auto pick) {
    LayoutRun run{std::move(name), {}};
    bool any = false;
    for (size_t k = 0; k < shapes.size(); ++k) {
      Layout want = pick(k);
      if (!LayoutApplies(want, shapes[k])) want = Layout::kContiguous;
      any = any || want != Layout::kContiguous;
      run.layouts.push_back(want);
    }
    if (!runs.empty() && !any) return;
    for (const LayoutRun& r : runs) {
      if (r.layouts == run.layouts) return;
    }
    runs.push_back(std::move(run));
  };
  add("contiguous", [](size_t) { return Layout::kContiguous; });
  if (plan == LayoutPlan::kContiguousOnly) return runs;
  if (plan != LayoutPlan::kDenseStrided) {
    add("transposed", [](size_t) { return Layout::kTransposed; });
  }
  add("strided", [](size_t) { return Layout::kStrided; });
  if (plan == LayoutPlan::kDenseStrided) return runs;
  add("broadcast", [](size_t) { return Layout::kBroadcast; });
  if (shapes.size() >= 2) {
    add("mixed", [](size_t k) {
      return k % 2 == 0 ? Layout::kStrided : Layout::kTransposed;
    });
  }
  return runs;
}

Result<DeviceTensor> MakeDeviceTensor(BackendUnderTest& backend,
                                      const RefTensor& value, Layout layout) {
  if (!LayoutApplies(layout, value.shape)) layout = Layout::kContiguous;
  switch (layout) {
    case Layout::kContiguous:
      return backend.Upload(value);
    case Layout::kTransposed: {
      const std::vector<int64_t> perm = Reversed(value.rank());
      Result<DeviceTensor> stored = backend.Upload(PermuteDims(value, perm));
      if (!stored.ok()) return stored;
      return CallView(backend, "permute", *stored, {AttrValue::Ints(perm)});
    }
    case Layout::kStrided: {
      const int64_t n = value.shape.back();
      Shape padded = value.shape;
      padded.back() = 2 * n + 1;
      RefTensor storage =
          RefTensor::Filled(value.dtype, padded, Poison(value.dtype));
      const int64_t rows = n == 0 ? 0 : value.numel() / n;
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t i = 0; i < n; ++i) {
          storage.values[static_cast<size_t>(r * (2 * n + 1) + 1 + 2 * i)] =
              value.values[static_cast<size_t>(r * n + i)];
        }
      }
      Result<DeviceTensor> stored = backend.Upload(storage);
      if (!stored.ok()) return stored;
      return CallView(backend, "slice", *stored,
                      {AttrValue::Int(-1), AttrValue::Int(1), AttrValue::None(),
                       AttrValue::Int(2)});
    }
    case Layout::kBroadcast: {
      const int d = BroadcastDim(value.shape);
      Shape base_shape = value.shape;
      base_shape[static_cast<size_t>(d)] = 1;
      // Index 0 along d: outer blocks of the dims before d, inner of after.
      int64_t inner = 1;
      for (size_t k = static_cast<size_t>(d) + 1; k < value.shape.size(); ++k) {
        inner *= value.shape[k];
      }
      const int64_t outer = NumElements(base_shape) / std::max<int64_t>(inner, 1);
      const int64_t span = value.shape[static_cast<size_t>(d)] * inner;
      RefTensor base{value.dtype, base_shape, {}};
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          base.values.push_back(value.values[static_cast<size_t>(o * span + i)]);
        }
      }
      Result<DeviceTensor> stored = backend.Upload(base);
      if (!stored.ok()) return stored;
      return CallView(backend, "expand", *stored,
                      {AttrValue::Ints(value.shape)});
    }
  }
  return backend.Upload(value);
}

}  // namespace sy::op_harness
