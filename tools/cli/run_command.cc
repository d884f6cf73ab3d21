// `switchyard run OP --shape … --dtype … --device …`: one op on random
// inputs. The inputs are made on cpu and copied to the device; the same
// values (widened to float64 where floating, so the reference rounds only
// once) go through the op on cpu as the reference. Then the device call is
// timed, each call followed by a synchronize, and the median reported.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli_util.h"
#include "commands.h"
#include "host_values.h"
#include "run_args.h"

namespace sy::cli {
namespace {

struct Inputs {
  std::vector<sy::Tensor> device;     // what the timed call gets
  std::vector<sy::Tensor> reference;  // on cpu, floating ones widened to f64
  std::vector<std::string> described;  // "self f32[64, 128]"
};

// Fails with the usage message; `run` prints it and exits 2.
sy::Status Usage(std::string message) {
  return sy::Status(SY_STATUS_INVALID_ARGUMENT, std::move(message));
}

bool IsFloatingPoint(sy_dtype_t dtype) {
  return SY_DTYPE_CODE(dtype) == 2 || SY_DTYPE_CODE(dtype) == 4;  // float, bfloat
}

// The inputs are drawn in float64 on the host: refuse, before allocating,
// a shape whose values alone would not fit in this machine's memory
// (rather than let the allocation fail, or the OOM killer end the process
// half-way). ParseShape has checked that the count fits int64.
sy::Status CheckHostMemory(const std::vector<int64_t>& shape) {
  int64_t numel = 1;
  for (int64_t extent : shape) numel *= extent;
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return sy::Status();
  const double memory = static_cast<double>(pages) * static_cast<double>(page);
  const double needed = static_cast<double>(numel) * sizeof(double);
  if (needed > memory) {
    return sy::Status(SY_STATUS_RESOURCE_EXHAUSTED, absl::StrFormat(
        "an input of shape [%s] needs %.1f GiB of host memory for its values, "
        "more than this machine's %.1f GiB; use smaller extents",
        absl::StrJoin(shape, ", "), needed / (1 << 30), memory / (1 << 30)));
  }
  return sy::Status();
}

// Floating: uniform in [low, high); integers: 0…7; bool: a fair coin.
sy::Result<sy::Tensor> RandomTensor(const sy::Context& context, const sy::Device& cpu,
                                    sy_dtype_t dtype, const std::vector<int64_t>& shape,
                                    const RunOptions& options, std::mt19937_64& rng) {
  if (sy::Status s = CheckHostMemory(shape); !s.ok()) return s;
  int64_t numel = 1;
  for (int64_t extent : shape) numel *= extent;
  std::vector<double> values(static_cast<size_t>(numel));
  std::uniform_real_distribution<double> real(options.low, options.high);
  std::uniform_int_distribution<int> small(0, dtype == SY_DTYPE_BOOL ? 1 : 7);
  for (double& v : values) v = IsFloatingPoint(dtype) ? real(rng) : small(rng);
  sy::Result<sy::Tensor> f64 = sy::Tensor::FromVector<double>(cpu, shape, values);
  if (!f64.ok()) return f64.status();
  return Cast(context, *f64, dtype);
}

// The op's tensor arguments in schema order.
std::vector<sy::OpArg> TensorArgs(const std::vector<sy::OpArg>& args) {
  std::vector<sy::OpArg> tensors;
  for (const sy::OpArg& arg : args) {
    if (arg.tensor_index >= 0) tensors.push_back(arg);
  }
  std::sort(tensors.begin(), tensors.end(), [](const sy::OpArg& a, const sy::OpArg& b) {
    return a.tensor_index < b.tensor_index;
  });
  return tensors;
}

sy::Result<Inputs> MakeInputs(const sy::Context& context, const sy::Device& cpu,
                              const sy::Device& device, const sy::OpInfo& op,
                              const std::vector<sy::OpArg>& args,
                              const RunOptions& options) {
  const std::vector<sy::OpArg> tensor_args = TensorArgs(args);
  const int num_args = static_cast<int>(tensor_args.size());
  std::vector<std::string> shapes = options.shapes;
  int required = 0;
  for (const sy::OpArg& arg : tensor_args) required += arg.optional ? 0 : 1;
  // One shape for an op of several required tensor arguments: the same for
  // each of those (optional ones, such as a bias, are left out).
  if (shapes.size() == 1 && required > 1 && op.list_arg < 0) {
    shapes.assign(static_cast<size_t>(required), shapes[0]);
  }
  std::vector<std::string> names;
  for (const sy::OpArg& arg : tensor_args) names.push_back(arg.name);
  const int given = static_cast<int>(shapes.size());
  const int list_size = op.list_arg < 0 ? 0 : given - (num_args - 1);
  if (given < required || (op.list_arg < 0 && given > num_args) ||
      (op.list_arg >= 0 && list_size < 1)) {
    return Usage(absl::StrCat(
        op.full_name, " takes tensor arguments (", absl::StrJoin(names, ", "),
        "); give a --shape for each", op.list_arg >= 0 ? " (several for the list)" : "",
        " — ", given, " given"));
  }
  // The argument each input fills, e.g. "tensors[1]" for a list's second.
  std::vector<std::string> filled;
  for (int a = 0; a < num_args; ++a) {
    if (a != op.list_arg) {
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
  for (int i = 0; i < given; ++i) {
    const std::string dtype_text =
        options.dtypes.empty() ? "f32"
                               : options.dtypes[options.dtypes.size() == 1 ? 0 : i];
    sy::Result<sy_dtype_t> dtype = sy::DTypeFromName(dtype_text);
    if (!dtype.ok()) {
      return Usage(absl::StrCat("--dtype \"", dtype_text,
                                "\" is not a dtype; use f32, f64, f16, bf16, i32, "
                                "i64, i8, u8 or bool"));
    }
    sy::Result<std::vector<int64_t>> shape = ParseShape(shapes[i]);
    if (!shape.ok()) return shape.status();
    sy::Result<sy::Tensor> host = RandomTensor(context, cpu, *dtype, *shape, options, rng);
    if (!host.ok()) return host.status();
    sy::Result<sy::Tensor> on_device = host->To(device);
    if (!on_device.ok()) return on_device.status();
    sy::Result<sy::Tensor> wide =
        IsFloatingPoint(*dtype) ? Cast(context, *host, SY_DTYPE_F64) : *host;
    if (!wide.ok()) return wide.status();
    inputs.device.push_back(*std::move(on_device));
    inputs.reference.push_back(*std::move(wide));
    inputs.described.push_back(absl::StrCat(filled[i], " ", sy::DTypeName(*dtype), "[",
                                            absl::StrJoin(*shape, ", "), "]"));
  }
  // Optional tensor arguments left out are passed as NULL.
  if (op.list_arg < 0) {
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

std::string Describe(const sy::Tensor& t) {
  return absl::StrCat(sy::DTypeName(t.dtype()), "[", absl::StrJoin(t.shape(), ", "), "]");
}

}  // namespace

int RunOp(const sy::Context& context, const RunOptions& options) {
  sy::Result<sy::Op> op = context.op(options.op);
  sy::Result<sy::Device> device = context.device(options.device);
  sy::Result<sy::Device> cpu = context.device("cpu");
  for (const sy::Status& status : {op.status(), device.status(), cpu.status()}) {
    if (!status.ok()) {
      std::fprintf(stderr, "switchyard run: %s\n", Message(status).c_str());
      return 2;
    }
  }
  sy::Result<sy::OpInfo> info = op->info();
  sy::Result<std::vector<sy::OpArg>> args = op->args();
  if (!info.ok() || !args.ok()) {
    std::fprintf(stderr, "switchyard run: %s\n",
                 Message(info.ok() ? args.status() : info.status()).c_str());
    return 1;
  }
  sy::Result<ParsedAttrs> attrs = ParsedAttrs::Parse(info->full_name, *args, options.attrs);
  sy::Result<Inputs> inputs =
      attrs.ok() ? MakeInputs(context, *cpu, *device, *info, *args, options)
                 : sy::Result<Inputs>(attrs.status());
  if (!inputs.ok()) {
    std::fprintf(stderr, "switchyard run: %s\n", Message(inputs.status()).c_str());
    // A command line that does not fit the op is a usage error (2); inputs
    // that could not be made (out of memory, a failed copy) are a failure.
    return inputs.status().code() == SY_STATUS_INVALID_ARGUMENT ? 2 : 1;
  }
  const std::vector<sy::Attr>& call_attrs = attrs->attrs();
  sy::Result<std::string> how = op->explain(inputs->device, call_attrs);
  // When the call cannot run, explain's error is the call's: FAILED says it.
  std::printf("%s on %s%s%s\n", info->full_name.c_str(), device->label().c_str(),
              how.ok() ? " — " : "", how.ok() ? how->c_str() : "");
  std::printf("  inputs:  %s\n", absl::StrJoin(inputs->described, ", ").c_str());
  if (!attrs->summary().empty()) std::printf("  attrs:   %s\n", attrs->summary().c_str());

  sy::Result<std::vector<sy::Tensor>> out = op->call(inputs->device, call_attrs);
  if (!out.ok()) {
    std::printf("  FAILED:  %s\n", Message(out.status()).c_str());
    return 1;
  }
  // The reference: float64 inputs on cpu; if the op refuses them (an op
  // whose result dtype is fixed by an attribute, say), the same dtypes.
  std::string reference_kind = "float64 on cpu";
  sy::Result<std::vector<sy::Tensor>> ref = op->call(inputs->reference, call_attrs);
  if (!ref.ok()) {
    std::vector<sy::Tensor> same;
    for (const sy::Tensor& t : inputs->device) {
      same.push_back(t ? t.To(*cpu).value_or(sy::Tensor()) : sy::Tensor());
    }
    ref = op->call(same, call_attrs);
    reference_kind = "the same dtypes on cpu";
  }
  bool ok = ref.ok();
  if (!ref.ok()) {
    std::printf("  check:   no reference: %s\n", Message(ref.status()).c_str());
  }
  for (size_t i = 0; ok && i < out->size(); ++i) {
    sy::Result<std::vector<double>> got = ReadAsDouble(context, *cpu, (*out)[i]);
    sy::Result<std::vector<double>> want = ReadAsDouble(context, *cpu, (*ref)[i]);
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
    sy::Result<std::vector<sy::Tensor>> timed = op->call(inputs->device, call_attrs);
    sy::Status synced = timed.ok() ? device->synchronize() : timed.status();
    if (!synced.ok()) {
      std::printf("  FAILED on a timed call: %s\n", Message(synced).c_str());
      return 1;
    }
    micros.push_back(std::chrono::duration<double, std::micro>(
                         std::chrono::steady_clock::now() - start).count());
  }
  if (!micros.empty()) {
    std::sort(micros.begin(), micros.end());
    size_t bytes = 0;
    for (const sy::Tensor& t : inputs->device) bytes += t ? t.nbytes() : 0;
    for (const sy::Tensor& t : *out) bytes += t.nbytes();
    const double median = micros[micros.size() / 2];
    std::printf("  time:    median %.1f us, min %.1f us over %d calls (call + "
                "synchronize); %.2f GB/s of inputs + outputs\n",
                median, micros.front(), options.repeat, bytes / median / 1e3);
  }
  return ok ? 0 : 1;
}

}  // namespace sy::cli
