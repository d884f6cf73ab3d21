#include "autotune/tune_cases.h"

#include <chrono>
#include <cstring>
#include <random>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "autotune/random_values.h"
#include "dispatcher/ops/dtype.h"
#include "nlohmann/json.hpp"
#include "switchyard/plugin/dtypes.hpp"

namespace sy::autotune {
namespace {

using nlohmann::json;

absl::Status CaseError(size_t index, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("tune case ", index, ": ", what));
}

absl::StatusOr<sy_dtype_t> DTypeNamed(const std::string& name);

absl::StatusOr<TuneAttr> ParseAttr(const json& value) {
  TuneAttr a{};
  if (value.is_object() && value.size() == 1 && value.contains("dtype") &&
      value["dtype"].is_string()) {
    absl::StatusOr<sy_dtype_t> dtype = DTypeNamed(value["dtype"].get<std::string>());
    if (!dtype.ok()) return dtype.status();
    a.kind = TuneAttr::Kind::kDType;
    a.dtype = *dtype;
    return a;
  }
  if (value.is_null()) {
    a.kind = TuneAttr::Kind::kNone;
  } else if (value.is_boolean()) {
    a.kind = TuneAttr::Kind::kBool;
    a.b = value.get<bool>();
  } else if (value.is_number_integer()) {
    a.kind = TuneAttr::Kind::kInt;
    a.i = value.get<int64_t>();
  } else if (value.is_number()) {
    a.kind = TuneAttr::Kind::kFloat;
    a.f = value.get<double>();
  } else if (value.is_string()) {
    a.text = value.get<std::string>();
    a.kind = a.text == "default" ? TuneAttr::Kind::kDefault : TuneAttr::Kind::kString;
  } else if (value.is_array()) {
    a.kind = TuneAttr::Kind::kInts;
    for (const json& v : value) {
      if (!v.is_number_integer()) {
        return absl::InvalidArgumentError("a list attribute holds integers only");
      }
      a.ints.push_back(v.get<int64_t>());
    }
  } else {
    return absl::InvalidArgumentError(
        "an attribute is an int, float, bool, list of ints, string, {\"dtype\": …}, "
        "null or \"default\"");
  }
  return a;
}

absl::StatusOr<std::vector<TuneAttr>> ParseAttrs(const json& list) {
  if (!list.is_array()) return absl::InvalidArgumentError("'attrs' is not a list");
  std::vector<TuneAttr> attrs;
  for (const json& value : list) {
    absl::StatusOr<TuneAttr> a = ParseAttr(value);
    if (!a.ok()) return a.status();
    attrs.push_back(*std::move(a));
  }
  return attrs;
}

absl::StatusOr<sy_dtype_t> DTypeNamed(const std::string& name) {
  std::optional<sy_dtype_t> dtype = core::ParseDType(name);
  if (!dtype.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown dtype '", name, "'; use f32 f64 f16 bf16 i32 i64 i8 u8 bool"));
  }
  return *dtype;
}

core::Attr ToAttr(const TuneAttr& a) {
  switch (a.kind) {
    case TuneAttr::Kind::kNone: return core::Attr();
    case TuneAttr::Kind::kDefault: return core::Attr::Default();
    case TuneAttr::Kind::kInt: return core::Attr(a.i);
    case TuneAttr::Kind::kFloat: return core::Attr(a.f);
    case TuneAttr::Kind::kBool: return core::Attr(a.b);
    case TuneAttr::Kind::kInts: return core::Attr(absl::Span<const int64_t>(a.ints));
    case TuneAttr::Kind::kString: return core::Attr(a.text);
    case TuneAttr::Kind::kDType: return core::Attr::DType(a.dtype);
  }
  return core::Attr();
}

absl::StatusOr<core::Tensor> MakeInput(core::Dispatcher& dispatcher, core::Device& device,
                                       const TuneInput& in, std::mt19937_64& rng) {
  std::vector<int64_t> stored = in.shape;
  if (in.transposed) std::swap(stored[stored.size() - 2], stored[stored.size() - 1]);
  int64_t n = 1;
  for (int64_t d : stored) n *= d;
  std::vector<unsigned char> bytes = RandomBytes(in.dtype, n, RandomValues::kNormal, rng);
  absl::StatusOr<core::Tensor> t =
      dispatcher.FromHost(device, in.dtype, stored, bytes.data(), bytes.size());
  if (!t.ok() || !in.transposed) return t;
  std::vector<int64_t> strides(t->strides().begin(), t->strides().end());
  const size_t r = stored.size();
  std::swap(strides[r - 2], strides[r - 1]);
  return core::Tensor::View(*t, in.shape, strides, t->byte_offset());
}

}  // namespace

std::string TuneCase::Describe() const {
  std::vector<std::string> parts;
  for (const TuneInput& in : inputs) {
    if (in.omitted) {
      parts.push_back("None");
      continue;
    }
    parts.push_back(absl::StrCat(std::string(core::DTypeName(in.dtype)), "[",
                                 absl::StrJoin(in.shape, ", "), "]",
                                 in.transposed ? "t" : ""));
  }
  return absl::StrCat(op, " ", absl::StrJoin(parts, " "), " on ", device);
}

absl::StatusOr<std::vector<TuneCase>> ParseTuneCases(absl::string_view json_text) {
  const json doc = json::parse(json_text.begin(), json_text.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("cases") ||
      !doc["cases"].is_array()) {
    return absl::InvalidArgumentError(
        "tune cases: expected a JSON object {\"cases\": [...]} (see "
        "docs/autotune.md, \"switchyard tune\")");
  }
  std::vector<TuneCase> cases;
  const json& list = doc["cases"];
  for (size_t i = 0; i < list.size(); ++i) {
    const json& c = list[i];
    if (!c.is_object()) return CaseError(i, "is not an object");
    TuneCase tc;
    if (!c.contains("op") || !c["op"].is_string()) return CaseError(i, "'op' is missing");
    tc.op = c["op"].get<std::string>();
    if (c.contains("device")) {
      if (!c["device"].is_string()) return CaseError(i, "'device' is not a string");
      tc.device = c["device"].get<std::string>();
    }
    if (!c.contains("inputs") || !c["inputs"].is_array()) {
      return CaseError(i, "'inputs' is missing or not a list");
    }
    for (const json& in : c["inputs"]) {
      TuneInput input;
      if (in.is_null()) {
        input.omitted = true;
        tc.inputs.push_back(input);
        continue;
      }
      if (!in.is_object() || !in.contains("shape") || !in["shape"].is_array()) {
        return CaseError(i, "an input is not {\"dtype\": …, \"shape\": […]}");
      }
      absl::StatusOr<sy_dtype_t> dtype =
          DTypeNamed(in.contains("dtype") && in["dtype"].is_string()
                         ? in["dtype"].get<std::string>()
                         : std::string("f32"));
      if (!dtype.ok()) return CaseError(i, std::string(dtype.status().message()));
      input.dtype = *dtype;
      for (const json& d : in["shape"]) {
        if (!d.is_number_integer() || d.get<int64_t>() < 0) {
          return CaseError(i, "a shape holds integers >= 0 only");
        }
        input.shape.push_back(d.get<int64_t>());
      }
      if (input.shape.size() > SY_MAX_RANK) return CaseError(i, "a shape has rank > 8");
      if (in.contains("layout")) {
        const std::string layout = in["layout"].is_string() ? in["layout"].get<std::string>() : "";
        if (layout == "transposed") {
          input.transposed = true;
          if (input.shape.size() < 2) {
            return CaseError(i, "a transposed input needs two dimensions at least");
          }
        } else if (layout != "contiguous") {
          return CaseError(i, "'layout' is \"contiguous\" or \"transposed\"");
        }
      }
      tc.inputs.push_back(std::move(input));
    }
    if (c.contains("attrs")) {
      absl::StatusOr<std::vector<TuneAttr>> attrs = ParseAttrs(c["attrs"]);
      if (!attrs.ok()) return CaseError(i, std::string(attrs.status().message()));
      tc.attrs = *std::move(attrs);
    }
    if (c.contains("list_sizes")) {
      if (!c["list_sizes"].is_array()) return CaseError(i, "'list_sizes' is not a list");
      for (const json& n : c["list_sizes"]) {
        if (!n.is_number_integer()) return CaseError(i, "'list_sizes' holds integers");
        tc.list_sizes.push_back(n.get<int32_t>());
      }
    }
    cases.push_back(std::move(tc));
  }
  return cases;
}

absl::StatusOr<TuneCase> TuneCaseFromFlags(const std::string& op, const std::string& device,
                                           const std::string& dtype,
                                           const std::string& shapes,
                                           const std::string& attrs_json) {
  TuneCase tc;
  tc.op = op;
  tc.device = device.empty() ? "cpu" : device;
  absl::StatusOr<sy_dtype_t> parsed = DTypeNamed(dtype.empty() ? "f32" : dtype);
  if (!parsed.ok()) return parsed.status();
  for (absl::string_view shape : absl::StrSplit(shapes, ',')) {
    TuneInput in;
    in.dtype = *parsed;
    if (!shape.empty() && shape != "scalar") {
      for (absl::string_view d : absl::StrSplit(shape, 'x')) {
        int64_t value = 0;
        if (!absl::SimpleAtoi(d, &value) || value < 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              "--shapes: '", shape, "' is not a shape like 512x512 (dims >= 0 "
              "joined by 'x'; shapes joined by ',')"));
        }
        in.shape.push_back(value);
      }
    }
    tc.inputs.push_back(std::move(in));
  }
  if (!attrs_json.empty()) {
    const json attrs = json::parse(attrs_json, nullptr, false);
    if (attrs.is_discarded()) {
      return absl::InvalidArgumentError("--attrs is not a JSON list, e.g. '[-1]'");
    }
    absl::StatusOr<std::vector<TuneAttr>> parsed_attrs = ParseAttrs(attrs);
    if (!parsed_attrs.ok()) return parsed_attrs.status();
    tc.attrs = *std::move(parsed_attrs);
  }
  return tc;
}

std::vector<TuneRow> RunTuneCases(
    core::Dispatcher& dispatcher, Tuner& tuner, const std::vector<TuneCase>& cases,
    const TuneCallOptions& options,
    const std::function<void(size_t, size_t, const TuneRow&)>& progress) {
  std::vector<TuneRow> rows;
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto start = std::chrono::steady_clock::now();
    TuneRow row;
    row.tune_case = cases[i];
    const TuneCase& tc = row.tune_case;
    row.status = [&]() -> absl::Status {
      absl::StatusOr<core::OpHandle> op = dispatcher.FindOp(tc.op);
      if (!op.ok()) return op.status();
      absl::StatusOr<core::Device*> device = dispatcher.GetDevice(tc.device);
      if (!device.ok()) return device.status();
      std::mt19937_64 rng(0x5eed + i);
      std::vector<core::Tensor> tensors;
      tensors.reserve(tc.inputs.size());
      std::vector<const core::Tensor*> inputs;
      for (const TuneInput& in : tc.inputs) {
        if (in.omitted) {
          inputs.push_back(nullptr);
          continue;
        }
        absl::StatusOr<core::Tensor> t = MakeInput(dispatcher, **device, in, rng);
        if (!t.ok()) return t.status();
        tensors.push_back(*std::move(t));
        inputs.push_back(&tensors.back());
      }
      std::vector<core::Attr> attrs;
      for (const TuneAttr& a : tc.attrs) attrs.push_back(ToAttr(a));
      core::CallArgs args;
      args.inputs = inputs;
      args.attrs = absl::Span<const sy_attr_t>(attrs.data(), attrs.size());
      args.list_sizes = tc.list_sizes;
      absl::StatusOr<TuneReport> report = tuner.TuneCall(*op, args, options);
      if (!report.ok()) return report.status();
      row.report = *std::move(report);
      return absl::OkStatus();
    }();
    row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rows.push_back(std::move(row));
    if (progress) progress(i + 1, cases.size(), rows.back());
  }
  return rows;
}

}  // namespace sy::autotune
