// `switchyard tune`'s work as a library function, so the CLI only parses
// flags and formats rows (and a test can run it): cases from flags or a
// JSON file, random inputs of the given dtypes, shapes and layouts on the
// given device, one TuneCall each, a row per case.
//
// A JSON case file:
//   {"cases": [
//     {"op": "matmul", "device": "cpu",
//      "inputs": [{"dtype": "f32", "shape": [512, 512]},
//                 {"dtype": "f32", "shape": [512, 512], "layout": "transposed"}]},
//     {"op": "softmax", "inputs": [{"dtype": "f32", "shape": [64, 1000]}],
//      "attrs": [-1]},
//     {"op": "layer_norm", "inputs": [{"dtype": "f32", "shape": [8, 768]},
//                                     {"dtype": "f32", "shape": [768]},
//                                     {"dtype": "f32", "shape": [768]}],
//      "attrs": [[768], 1e-5]}]}
// "device" defaults to "cpu", "layout" to "contiguous" (also "transposed":
// the last two dims stored swapped); an input may be null (an omitted
// optional tensor); attrs are the leading attributes in schema order (int,
// float, bool, list of ints, string, {"dtype": "i32"} for a dtype, null for
// None, "default").
//
// From flags: TuneCaseFromFlags("matmul", "cpu", "f32", "512x512,512x512",
// "") — shapes separated by ',' with dims by 'x' ("" or "scalar" for rank 0),
// one dtype for all inputs, attrs as the JSON list text.
#ifndef SWITCHYARD_AUTOTUNE_TUNE_CASES_H_
#define SWITCHYARD_AUTOTUNE_TUNE_CASES_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "autotune/tuner.h"
#include "dispatcher/dispatch/dispatcher.h"

namespace sy::autotune {

struct TuneInput {
  bool omitted = false;
  sy_dtype_t dtype = SY_DTYPE_F32;
  std::vector<int64_t> shape;
  bool transposed = false;
};

struct TuneAttr {
  enum class Kind { kNone, kDefault, kInt, kFloat, kBool, kInts, kString, kDType } kind;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::vector<int64_t> ints;
  std::string text;
  sy_dtype_t dtype = SY_DTYPE_F32;  // kDType
};

struct TuneCase {
  std::string op;
  std::string device = "cpu";
  std::vector<TuneInput> inputs;
  std::vector<TuneAttr> attrs;
  std::vector<int32_t> list_sizes;  // for an op with a Tensor[] argument

  // "matmul f32[512, 512] f32[512, 512]t on cpu", for progress lines.
  std::string Describe() const;
};

// Errors: InvalidArgument naming the case and field that is wrong.
absl::StatusOr<std::vector<TuneCase>> ParseTuneCases(absl::string_view json_text);
absl::StatusOr<TuneCase> TuneCaseFromFlags(const std::string& op,
                                           const std::string& device,
                                           const std::string& dtype,
                                           const std::string& shapes,
                                           const std::string& attrs_json);

struct TuneRow {
  TuneCase tune_case;
  absl::Status status;  // the case's error, if it failed
  TuneReport report;    // when it succeeded
  double seconds = 0;   // wall time of the case
};

// Runs `cases` in order through `tuner` over `dispatcher` (random inputs,
// seeded by the case's position, so reruns see the same values). Calls
// `progress` after each case (may be empty). Never stops at a failed case.
std::vector<TuneRow> RunTuneCases(
    core::Dispatcher& dispatcher, Tuner& tuner, const std::vector<TuneCase>& cases,
    const TuneCallOptions& options,
    const std::function<void(size_t done, size_t total, const TuneRow& row)>& progress = {});

}  // namespace sy::autotune

#endif  // SWITCHYARD_AUTOTUNE_TUNE_CASES_H_
