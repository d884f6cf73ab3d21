#include "sdk/conformance/harness/case_runner.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <exception>
#include <random>

#include "sdk/conformance/harness/dtypes.h"

namespace sy::op_harness {
namespace {

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, v);
  return buf;
}

std::string AttrsString(const std::vector<AttrValue>& attrs) {
  std::string out = "(";
  for (size_t i = 0; i < attrs.size(); ++i) {
    if (i > 0) out += ", ";
    out += attrs[i].ToString();
  }
  return out + ")";
}

// A host input for one run: fixed values, or drawn from the domain; for a
// broadcast layout, drawn at size 1 along BroadcastDim and stretched.
RefTensor MakeHost(const InputSpec& spec, Layout layout, std::mt19937_64& rng) {
  if (spec.fixed) return RefTensor::Make(spec.dtype, spec.shape, *spec.fixed);
  if (layout == Layout::kBroadcast && LayoutApplies(layout, spec.shape)) {
    Shape narrow = spec.shape;
    narrow[static_cast<size_t>(BroadcastDim(spec.shape))] = 1;
    return BroadcastTo(RandomTensor(spec.dtype, narrow, spec.domain, spec.params, rng),
                       spec.shape);
  }
  return RandomTensor(spec.dtype, spec.shape, spec.domain, spec.params, rng);
}

// For elementwise cases: the inputs' values at a result index.
std::string InputsAt(const std::vector<RefTensor>& inputs, const Shape& out,
                     int64_t linear) {
  std::vector<int64_t> index(out.size());
  Unravel(linear, out, index.data());
  std::string text;
  for (const RefTensor& t : inputs) {
    if (!t.defined()) continue;
    const std::vector<int64_t> strides = BroadcastStrides(t.shape, out);
    int64_t offset = 0;
    for (size_t d = 0; d < out.size(); ++d) offset += index[d] * strides[d];
    text += text.empty() ? "" : ", ";
    text += FormatValue(t.dtype, t.values[static_cast<size_t>(offset)]);
  }
  return text;
}

// Whether `dtype`'s subnormals are among those `float_flags` names.
bool Flushes(sy_dtype_t dtype, uint32_t float_flags) {
  switch (dtype) {
    case SY_DTYPE_F32:
    case SY_DTYPE_BF16: return (float_flags & SY_FLOAT_FLUSHES_F32_SUBNORMALS) != 0;
    case SY_DTYPE_F16: return (float_flags & SY_FLOAT_FLUSHES_F16_SUBNORMALS) != 0;
    case SY_DTYPE_F64: return (float_flags & SY_FLOAT_FLUSHES_F64_SUBNORMALS) != 0;
    default: return false;
  }
}

}  // namespace

RefTensor FlushSubnormals(RefTensor t, uint32_t float_flags) {
  if (!t.defined() || !Flushes(t.dtype, float_flags)) return t;
  const double normal = MinNormal(t.dtype);
  for (double& v : t.values) {
    if (v != 0 && std::fabs(v) < normal) v = std::copysign(0.0, v);
  }
  return t;
}

RefResult FlushedReference(const OpCase& c, const std::vector<RefTensor>& inputs,
                           uint32_t float_flags) {
  std::vector<RefTensor> flushed;
  flushed.reserve(inputs.size());
  for (const RefTensor& t : inputs) flushed.push_back(FlushSubnormals(t, float_flags));
  RefResult result = c.reference(flushed);
  result.value = FlushSubnormals(std::move(result.value), float_flags);
  return result;
}

RefResult CloserPerElement(const RefTensor& got, RefResult plain,
                           const RefResult& flushed) {
  std::vector<double>& values = plain.value.values;
  const size_t n = std::min({got.values.size(), values.size(),
                             flushed.value.values.size()});
  for (size_t i = 0; i < n; ++i) {
    const double g = got.values[i], p = values[i], f = flushed.value.values[i];
    if (std::isnan(g)) {
      if (!std::isnan(p) && std::isnan(f)) values[i] = f;
    } else if (std::fabs(g - f) < std::fabs(g - p) || (std::isnan(p) && !std::isnan(f))) {
      values[i] = f;
    }
  }
  return plain;
}

std::vector<LayoutRun> LayoutRunsFor(const OpCase& c) {
  std::vector<Shape> shapes;
  bool fixed = false;
  for (const InputSpec& s : c.inputs) {
    shapes.push_back(s.shape);
    fixed = fixed || s.fixed.has_value();
  }
  return PlanLayouts(fixed ? LayoutPlan::kContiguousOnly : c.layouts, shapes);
}

std::string DescribeInputs(const std::vector<RefTensor>& host,
                           const LayoutRun& run) {
  std::string out;
  for (size_t k = 0; k < host.size(); ++k) {
    if (k > 0) out += ", ";
    out += Describe(host[k]);
    if (host[k].defined() && k < run.layouts.size()) {
      out += " ";
      out += LayoutApplies(run.layouts[k], host[k].shape)
                 ? LayoutName(run.layouts[k])
                 : LayoutName(Layout::kContiguous);
    }
  }
  return out;
}

Result<MadeInputs> MakeInputs(BackendUnderTest& backend, const OpCase& c,
                              const LayoutRun& run, uint64_t seed) {
  std::mt19937_64 rng(seed);
  MadeInputs made;
  for (size_t k = 0; k < c.inputs.size(); ++k) {
    const InputSpec& spec = c.inputs[k];
    if (spec.dtype == SY_DTYPE_NONE) {
      made.host.emplace_back();
      made.device.push_back(nullptr);
      continue;
    }
    const Layout layout = k < run.layouts.size() ? run.layouts[k] : Layout::kContiguous;
    made.host.push_back(MakeHost(spec, layout, rng));
    Result<DeviceTensor> t = MakeDeviceTensor(backend, made.host.back(), layout);
    if (!t.ok()) return t.status();
    made.device.push_back(*t);
  }
  return made;
}

std::string CheckResult(const RefTensor& got, const RefResult& expected,
                        const OpCase& c, const std::vector<RefTensor>& inputs) {
  if (got.dtype != expected.value.dtype || got.shape != expected.value.shape) {
    return "the result is " + Describe(got) + " but the spec gives " +
           Describe(expected.value);
  }
  const Tolerance tolerance =
      c.tolerance ? *c.tolerance : ToleranceFor(c.accuracy, got.dtype);
  const Comparison cmp = CompareValues(got, expected, tolerance);
  if (cmp.ok()) return "";
  std::string text =
      DescribeMismatches(cmp, got.dtype, got.shape, tolerance);
  if (c.elementwise) {
    text += "\n    inputs at those indices:";
    for (const Mismatch& m : cmp.first) {
      text += " (" + InputsAt(inputs, got.shape, m.index) + ")";
    }
  }
  return text;
}

RunReport RunCase(BackendUnderTest& backend, const OpTest& test,
                  const OpCase& c, const LayoutRun& run, uint64_t seed) {
  const std::string header =
      test.op + (test.mode == CallMode::kDecomposed ? " (decomposed)" : "") +
      ", case \"" + c.label + "\", layout " + run.name + ", seed " + Hex(seed);
  Result<MadeInputs> made = MakeInputs(backend, c, run, seed);
  if (!made.ok()) {
    return {Outcome::kFail, header + "\n  could not make the inputs: " +
                                std::string(StatusCodeName(made.status().code)) +
                                ": " + made.status().message};
  }
  const std::string where = header + "\n  inputs: " + DescribeInputs(made->host, run) +
                            "\n  attrs: " + AttrsString(c.attrs);
  auto resolved = [&] {
    if (test.mode == CallMode::kDecomposed) {
      return std::string("\n  resolved as: the core's decomposition (forced)");
    }
    const std::string how =
        backend.Explain(test.op, made->device, c.attrs, c.list_sizes);
    return how.empty() ? std::string() : "\n  resolved as: " + how;
  };

  Result<std::vector<DeviceTensor>> out =
      backend.Call(test.op, made->device, c.attrs, c.list_sizes, test.mode);
  if (!out.ok()) {
    const Status& s = out.status();
    const Outcome outcome =
        s.code == SY_STATUS_UNIMPLEMENTED ? Outcome::kMissing : Outcome::kFail;
    return {outcome, where + "\n  the call failed: " +
                         std::string(StatusCodeName(s.code)) + ": " + s.message};
  }
  if (out->size() != 1) {
    return {Outcome::kFail, where + "\n  the call returned " +
                                std::to_string(out->size()) +
                                " outputs; the op has one" + resolved()};
  }
  Result<RefTensor> got = backend.Download(out->at(0));
  if (!got.ok()) {
    return {Outcome::kFail, where + "\n  reading the result failed: " +
                                got.status().message + resolved()};
  }
  RefResult expected;
  try {
    expected = c.reference(made->host);
  } catch (const std::exception& e) {
    return {Outcome::kFail, where + "\n  the harness's reference refused the case "
                                    "(a bug in the harness): " + e.what()};
  }
  const std::string problem = CheckResult(*got, expected, c, made->host);
  if (problem.empty()) return {};
  // A device that declares flushing subnormals may give what flushing gives.
  if (const uint32_t flags = backend.FloatFlags(); flags != 0) {
    try {
      // Results flushed (FTZ), and inputs and results flushed (DAZ + FTZ):
      // devices differ in which they do.
      RefResult results_flushed = expected;
      results_flushed.value = FlushSubnormals(expected.value, flags);
      const RefResult either = CloserPerElement(
          *got, CloserPerElement(*got, expected, results_flushed),
          FlushedReference(c, made->host, flags));
      if (CheckResult(*got, either, c, made->host).empty()) return {};
    } catch (const std::exception&) {
      // The flushed inputs are outside the reference's domain: the plain
      // reference's verdict stands.
    }
    return {Outcome::kFail, where + resolved() + "\n  " + problem +
                                "\n  (the device declares that it may flush subnormals, "
                                "float_flags " + std::to_string(flags) +
                                "; the flushed reference disagrees too)"};
  }
  return {Outcome::kFail, where + resolved() + "\n  " + problem};
}

}  // namespace sy::op_harness
