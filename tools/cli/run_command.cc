// `switchyard run OP --shape … --dtype … --device …`: one op on random
// inputs. The inputs are made on cpu and copied to the device; the same
// values (widened to float64 where floating, so the reference rounds only
// once) go through the op on cpu as the reference. Then the device call is
// timed, each call followed by a synchronize, and the median reported.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "commands.h"
#include "dispatcher/ops/dtype.h"
#include "host_values.h"
#include "run_args.h"

namespace sy::cli {
using namespace ::sy::core;  // NOLINT: until this file uses the public API only
namespace {

struct Inputs {
  std::vector<Tensor> device;     // what the timed call gets
  std::vector<Tensor> reference;  // on cpu, floating ones widened to f64
  std::vector<int32_t> list_sizes;
  std::vector<std::string> described;  // "self f32[64, 128]"
};

// Fails with the usage message; `run` prints it and exits 2.
absl::Status Usage(std::string message) {
  return absl::InvalidArgumentError(std::move(message));
}

absl::StatusOr<Tensor> Cast(Runtime& runtime, const Tensor& t, sy_dtype_t dtype) {
  if (t.dtype() == dtype) return t;
  absl::StatusOr<OpHandle> cast = runtime.FindOp("cast");
  if (!cast.ok()) return cast.status();
  absl::StatusOr<std::vector<Tensor>> out = runtime.Call(*cast, {t}, {Attr::DType(dtype)});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

// The inputs are drawn in float64 on the host: refuse, before allocating,
// a shape whose values alone would not fit in this machine's memory
// (rather than let the allocation fail, or the OOM killer end the process
// half-way). ParseShape has checked that the count fits int64.
absl::Status CheckHostMemory(const std::vector<int64_t>& shape) {
  int64_t numel = 1;
  for (int64_t extent : shape) numel *= extent;
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return absl::OkStatus();
  const double memory = static_cast<double>(pages) * static_cast<double>(page);
  const double needed = static_cast<double>(numel) * sizeof(double);
  if (needed > memory) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "an input of shape [%s] needs %.1f GiB of host memory for its values, "
        "more than this machine's %.1f GiB; use smaller extents",
        absl::StrJoin(shape, ", "), needed / (1 << 30), memory / (1 << 30)));
  }
  return absl::OkStatus();
}

// Floating: uniform in [low, high); integers: 0…7; bool: a fair coin.
absl::StatusOr<Tensor> RandomTensor(Runtime& runtime, Device& cpu, sy_dtype_t dtype,
                                    const std::vector<int64_t>& shape,
                                    const RunOptions& options, std::mt19937_64& rng) {
  if (absl::Status s = CheckHostMemory(shape); !s.ok()) return s;
  int64_t numel = 1;
  for (int64_t extent : shape) numel *= extent;
  std::vector<double> values(static_cast<size_t>(numel));
  std::uniform_real_distribution<double> real(options.low, options.high);
  std::uniform_int_distribution<int> small(0, dtype == SY_DTYPE_BOOL ? 1 : 7);
  for (double& v : values) v = IsFloatingPoint(dtype) ? real(rng) : small(rng);
  absl::StatusOr<Tensor> f64 =
      runtime.FromHost(cpu, SY_DTYPE_F64, shape, values.data(), values.size() * 8);
  if (!f64.ok()) return f64.status();
  return Cast(runtime, *f64, dtype);
}

absl::StatusOr<Inputs> MakeInputs(Runtime& runtime, Device& cpu, Device& device,
                                  const OpDef& op, const RunOptions& options) {
  const Schema& schema = op.schema();
  const int num_args = op.num_tensor_args();
  std::vector<std::string> shapes = options.shapes;
  int required = 0;
  for (int index : schema.tensor_args) required += schema.args[index].optional ? 0 : 1;
  // One shape for an op of several required tensor arguments: the same for
  // each of those (optional ones, such as a bias, are left out).
  if (shapes.size() == 1 && required > 1 && op.list_arg() < 0) {
    shapes.assign(static_cast<size_t>(required), shapes[0]);
  }
  std::vector<std::string> names;
  for (int index : schema.tensor_args) names.push_back(schema.args[index].name);
  const int given = static_cast<int>(shapes.size());
  const int list_size = op.list_arg() < 0 ? 0 : given - (num_args - 1);
  if (given < required || (op.list_arg() < 0 && given > num_args) ||
      (op.list_arg() >= 0 && list_size < 1)) {
    return Usage(absl::StrCat(
        op.full_name(), " takes tensor arguments (", absl::StrJoin(names, ", "),
        "); give a --shape for each", op.list_arg() >= 0 ? " (several for the list)" : "",
        " — ", given, " given"));
  }
  // The argument each input fills, e.g. "tensors[1]" for a list's second.
  std::vector<std::string> filled;
  for (int a = 0; a < num_args; ++a) {
    if (a != op.list_arg()) {
      filled.push_back(names[a]);
      continue;
    }
    for (int k = 0; k < list_size; ++k) filled.push_back(absl::StrCat(names[a], "[", k, "]"));
  }
  if (options.dtypes.size() > 1 && static_cast<int>(options.dtypes.size()) != given) {
    return Usage(absl::StrCat("give one --dtype for every input or one per input (",
                              given, "), not ", options.dtypes.size()));
  }
  std::mt19937_64 rng(options.seed);
  Inputs inputs;
  if (op.list_arg() >= 0) inputs.list_sizes.push_back(list_size);
  for (int i = 0; i < given; ++i) {
    const std::string dtype_text =
        options.dtypes.empty() ? "f32"
                               : options.dtypes[options.dtypes.size() == 1 ? 0 : i];
    std::optional<sy_dtype_t> dtype = ParseDType(dtype_text);
    if (!dtype) {
      return Usage(absl::StrCat("--dtype \"", dtype_text,
                                "\" is not a dtype; use f32, f64, f16, bf16, i32, "
                                "i64, i8, u8 or bool"));
    }
    absl::StatusOr<std::vector<int64_t>> shape = ParseShape(shapes[i]);
    if (!shape.ok()) return shape.status();
    absl::StatusOr<Tensor> host = RandomTensor(runtime, cpu, *dtype, *shape, options, rng);
    if (!host.ok()) return host.status();
    absl::StatusOr<Tensor> on_device = runtime.To(*host, device);
    if (!on_device.ok()) return on_device.status();
    absl::StatusOr<Tensor> wide =
        IsFloatingPoint(*dtype) ? Cast(runtime, *host, SY_DTYPE_F64) : *host;
    if (!wide.ok()) return wide.status();
    inputs.device.push_back(*on_device);
    inputs.reference.push_back(*wide);
    inputs.described.push_back(absl::StrCat(filled[i], " ", std::string(DTypeName(*dtype)), "[",
                                            absl::StrJoin(*shape, ", "), "]"));
  }
  // Optional tensor arguments left out are passed as None.
  if (op.list_arg() < 0) {
    inputs.device.resize(static_cast<size_t>(num_args));
    inputs.reference.resize(static_cast<size_t>(num_args));
  }
  return inputs;
}

// The largest error a correct kernel of this output dtype can show against
// a float64 reference, relative to max(1, |ref|).
double Tolerance(sy_dtype_t dtype) {
  switch (dtype) {
    case SY_DTYPE_F64: return 1e-9;
    case SY_DTYPE_F32: return 1e-4;
    case SY_DTYPE_F16: return 1e-2;
    case SY_DTYPE_BF16: return 4e-2;
    default: return 0;  // integers and bool are exact
  }
}

std::string Describe(const Tensor& t) {
  return absl::StrCat(std::string(DTypeName(t.dtype())), "[", absl::StrJoin(t.shape(), ", "), "]");
}

}  // namespace

int RunOp(Runtime& runtime, const RunOptions& options) {
  absl::StatusOr<OpHandle> handle = runtime.FindOp(options.op);
  absl::StatusOr<Device*> device = runtime.GetDevice(options.device);
  absl::StatusOr<Device*> cpu = runtime.GetDevice("cpu");
  for (const absl::Status& status : {handle.status(), device.status(), cpu.status()}) {
    if (!status.ok()) {
      std::fprintf(stderr, "switchyard run: %s\n", std::string(status.message()).c_str());
      return 2;
    }
  }
  const OpDef& op = *handle->def();
  absl::StatusOr<ParsedAttrs> attrs = ParsedAttrs::Parse(op, options.attrs);
  absl::StatusOr<Inputs> inputs =
      attrs.ok() ? MakeInputs(runtime, **cpu, **device, op, options)
                 : absl::StatusOr<Inputs>(attrs.status());
  if (!inputs.ok()) {
    std::fprintf(stderr, "switchyard run: %s\n",
                 std::string(inputs.status().message()).c_str());
    // A command line that does not fit the op is a usage error (2); inputs
    // that could not be made (out of memory, a failed copy) are a failure.
    return absl::IsInvalidArgument(inputs.status()) ? 2 : 1;
  }
  absl::StatusOr<std::string> how =
      runtime.Explain(*handle, inputs->device, attrs->attrs(), inputs->list_sizes);
  // When the call cannot run, Explain's error is the call's: FAILED says it.
  std::printf("%s on %s%s%s\n", op.full_name().c_str(), (*device)->label().c_str(),
              how.ok() ? " — " : "", how.ok() ? how->c_str() : "");
  std::printf("  inputs:  %s\n", absl::StrJoin(inputs->described, ", ").c_str());
  if (!attrs->summary().empty()) std::printf("  attrs:   %s\n", attrs->summary().c_str());

  absl::StatusOr<std::vector<Tensor>> out =
      runtime.Call(*handle, inputs->device, attrs->attrs(), inputs->list_sizes);
  if (!out.ok()) {
    std::printf("  FAILED:  %s\n", std::string(out.status().message()).c_str());
    return 1;
  }
  // The reference: float64 inputs on cpu; if the op refuses them (an op
  // whose result dtype is fixed by an attribute, say), the same dtypes.
  std::string reference_kind = "float64 on cpu";
  absl::StatusOr<std::vector<Tensor>> ref =
      runtime.Call(*handle, inputs->reference, attrs->attrs(), inputs->list_sizes);
  if (!ref.ok()) {
    std::vector<Tensor> same;
    for (const Tensor& t : inputs->device) {
      same.push_back(t.defined() ? *runtime.To(t, **cpu) : Tensor());
    }
    ref = runtime.Call(*handle, same, attrs->attrs(), inputs->list_sizes);
    reference_kind = "the same dtypes on cpu";
  }
  bool ok = ref.ok();
  if (!ref.ok()) {
    std::printf("  check:   no reference: %s\n", std::string(ref.status().message()).c_str());
  }
  for (size_t i = 0; ok && i < out->size(); ++i) {
    absl::StatusOr<std::vector<double>> got = ReadAsDouble(runtime, **cpu, (*out)[i]);
    absl::StatusOr<std::vector<double>> want = ReadAsDouble(runtime, **cpu, (*ref)[i]);
    const double error = got.ok() && want.ok() ? MaxError(*got, *want) : INFINITY;
    const double tolerance = Tolerance((*out)[i].dtype());
    const bool good = error <= tolerance;
    ok = good;
    std::printf("  output:  %s, max error %.1e vs %s (tolerance %.0e): %s\n",
                Describe((*out)[i]).c_str(), error, reference_kind.c_str(), tolerance,
                good ? "ok" : "WRONG");
  }

  std::vector<double> micros;
  for (int i = 0; i < options.repeat; ++i) {
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<std::vector<Tensor>> timed =
        runtime.Call(*handle, inputs->device, attrs->attrs(), inputs->list_sizes);
    absl::Status synced = timed.ok() ? runtime.Synchronize(**device) : timed.status();
    if (!synced.ok()) {
      std::printf("  FAILED on a timed call: %s\n", std::string(synced.message()).c_str());
      return 1;
    }
    micros.push_back(std::chrono::duration<double, std::micro>(
                         std::chrono::steady_clock::now() - start).count());
  }
  if (!micros.empty()) {
    std::sort(micros.begin(), micros.end());
    size_t bytes = 0;
    for (const Tensor& t : inputs->device) bytes += t.defined() ? t.nbytes() : 0;
    for (const Tensor& t : *out) bytes += t.nbytes();
    const double median = micros[micros.size() / 2];
    std::printf("  time:    median %.1f us, min %.1f us over %d calls (call + "
                "synchronize); %.2f GB/s of inputs + outputs\n",
                median, micros.front(), options.repeat, bytes / median / 1e3);
  }
  return ok ? 0 : 1;
}

}  // namespace sy::cli
