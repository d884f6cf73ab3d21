// `switchyard tune` and `switchyard info --autotune` (docs/autotune.md),
// over the public API only: a case from `switchyard run`'s flags is turned
// into the case-file JSON that sy_context_tune_cases reads (so the library
// does the tuning and the tool formats rows), --import and --export are
// sy_context_autotune_import / _export, and the cache's summary is
// sy_context_autotune_info_json.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli_util.h"
#include "commands.h"
#include "nlohmann/json.hpp"
#include "run_args.h"

namespace sy::cli {
namespace {

using nlohmann::json;

sy::Status Usage(std::string message) {
  return sy::Status(SY_STATUS_INVALID_ARGUMENT, std::move(message));
}

// An attribute as the case file writes it (autotune/tune_cases.h).
json AttrJson(const sy::Attr& a) {
  switch (a.kind) {
    case SY_ATTR_NONE: return nullptr;
    case SY_ATTR_INT: return a.value.i;
    case SY_ATTR_FLOAT: return a.value.f;
    case SY_ATTR_BOOL: return a.value.b != 0;
    case SY_ATTR_INTS:
      return std::vector<int64_t>(a.value.ints.data, a.value.ints.data + a.value.ints.size);
    case SY_ATTR_STRING: return std::string(a.value.str.data, a.value.str.size);
    case SY_ATTR_DTYPE: return json{{"dtype", sy::DTypeName(a.value.dtype)}};
    default: return "default";  // SY_ATTR_DEFAULT
  }
}

// The case `options` describes, as {"op", "device", "inputs", "attrs",
// "list_sizes"}: the same reading of -s/-t/-a as `switchyard run`.
sy::Result<json> CaseFromFlags(const sy::Context& context, const TuneOptions& options) {
  sy::Result<sy::Op> op = context.op(options.op);
  if (!op.ok()) return op.status();
  sy::Result<sy::OpInfo> info = op->info();
  if (!info.ok()) return info.status();
  sy::Result<std::vector<sy::OpArg>> args = op->args();
  if (!args.ok()) return args.status();
  sy::Result<ParsedAttrs> attrs = ParsedAttrs::Parse(info->full_name, *args, options.attrs);
  if (!attrs.ok()) return attrs.status();
  std::vector<std::string> names;
  int required = 0;
  for (const sy::OpArg& arg : *args) {
    if (arg.tensor_index < 0) continue;
    names.push_back(arg.name);
    required += arg.optional ? 0 : 1;
  }
  const int num_args = static_cast<int>(names.size());
  std::vector<std::string> shapes = options.shapes;
  if (shapes.size() == 1 && required > 1 && info->list_arg < 0) {
    shapes.assign(static_cast<size_t>(required), shapes[0]);
  }
  const int given = static_cast<int>(shapes.size());
  const int list_size = info->list_arg < 0 ? 0 : given - (num_args - 1);
  if (given < required || (info->list_arg < 0 && given > num_args) ||
      (info->list_arg >= 0 && list_size < 1)) {
    return Usage(absl::StrCat(
        info->full_name, " takes tensor arguments (", absl::StrJoin(names, ", "),
        "); give a --shape for each", info->list_arg >= 0 ? " (several for the list)" : "",
        " — ", given, " given"));
  }
  if (options.dtypes.size() > 1 && static_cast<int>(options.dtypes.size()) != given) {
    return Usage(absl::StrCat("give one --dtype for every input or one per input (", given,
                              "), not ", options.dtypes.size()));
  }
  json inputs = json::array();
  for (int i = 0; i < given; ++i) {
    const std::string dtype =
        options.dtypes.empty() ? "f32" : options.dtypes[options.dtypes.size() == 1 ? 0 : i];
    if (!sy::DTypeFromName(dtype).ok()) {
      return Usage(absl::StrCat("--dtype \"", dtype,
                                "\" is not a dtype; use f32, f64, f16, bf16, i32, i64, i8, "
                                "u8 or bool"));
    }
    sy::Result<std::vector<int64_t>> shape = ParseShape(shapes[i]);
    if (!shape.ok()) return shape.status();
    json input = {{"dtype", dtype}, {"shape", *shape}};
    if (std::find(options.transposed.begin(), options.transposed.end(), i) !=
        options.transposed.end()) {
      input["layout"] = "transposed";
    }
    inputs.push_back(std::move(input));
  }
  for (int t : options.transposed) {
    if (t < 0 || t >= given) {
      return Usage(absl::StrCat("--transposed ", t, ": there are inputs 0 to ", given - 1));
    }
  }
  // Optional tensor arguments left out are omitted (null).
  if (info->list_arg < 0) {
    while (static_cast<int>(inputs.size()) < num_args) inputs.push_back(nullptr);
  }
  json attr_list = json::array();
  for (const sy::Attr& a : attrs->attrs()) attr_list.push_back(AttrJson(a));
  json c = {{"op", info->full_name},
            {"device", options.device},
            {"inputs", std::move(inputs)},
            {"attrs", std::move(attr_list)}};
  if (info->list_arg >= 0) c["list_sizes"] = {list_size};
  return c;
}

std::string Time(double ns) {
  if (ns <= 0) return "-";
  if (ns < 1e3) return absl::StrFormat("%.0f ns", ns);
  if (ns < 1e6) return absl::StrFormat("%.2f us", ns / 1e3);
  return absl::StrFormat("%.2f ms", ns / 1e6);
}

std::string Winner(const json& report) {
  const json& w = report["winner"];
  std::string text = w["kernel"].get<std::string>();
  if (w["variant"].get<int>() >= 0) {
    absl::StrAppend(&text, " [", w["variant_name"].get<std::string>(), "]");
  }
  return text;
}

// "[2/5] add f32[64] f32[64] on cpu → cpu::add… 1.20 us (measured)".
std::string RowLine(int32_t done, int32_t total, const json& row) {
  std::string line = absl::StrCat("[", done, "/", total, "] ", row["case"].get<std::string>());
  if (!row["ok"].get<bool>()) {
    return absl::StrCat(line, ": error: ", row["error"].get<std::string>());
  }
  const json& r = row["report"];
  return absl::StrCat(line, " -> ", Winner(r), " ", Time(r["winner"]["time_ns"].get<double>()),
                      r["measured"].get<bool>() ? " (measured, " : " (cached, ",
                      r["candidates"].size(), " candidate(s))");
}

// Each candidate's time and outcome, the winner marked.
void PrintExplain(const json& report) {
  if (report.contains("reference")) {
    std::printf("    reference: %s\n", report["reference"].get<std::string>().c_str());
  }
  size_t width = 0;
  for (const json& c : report["candidates"]) {
    width = std::max(width, c["candidate"].get<std::string>().size());
  }
  const std::string winner = Winner(report);
  for (const json& c : report["candidates"]) {
    const std::string name = c["candidate"].get<std::string>();
    const std::string note = c.value("note", std::string());
    std::printf("    %-*s  %10s  %-13s%s%s\n", static_cast<int>(width), name.c_str(),
                Time(c["median_ns"].get<double>()).c_str(),
                c["outcome"].get<std::string>().c_str(),
                name == winner ? "  <- winner" : "",
                note.empty() ? "" : absl::StrCat("  (", note, ")").c_str());
  }
  if (!report["note"].get<std::string>().empty()) {
    std::printf("    note: %s\n", report["note"].get<std::string>().c_str());
  }
}

sy::Result<std::string> ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return sy::Status(SY_STATUS_NOT_FOUND,
                      absl::StrCat("cannot read the case file ", path));
  }
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

int RunTune(const sy::Context& context, const TuneOptions& options) {
  const bool tuning = !options.op.empty() || !options.cases_file.empty();
  if (!tuning && options.import_file.empty() && options.export_file.empty()) {
    std::fprintf(stderr,
                 "switchyard tune: name an op (switchyard tune matmul -s 512x512), a case "
                 "file (--cases FILE), or --import FILE / --export FILE\n");
    return 2;
  }
  if (!options.op.empty() && !options.cases_file.empty()) {
    std::fprintf(stderr, "switchyard tune: give an op or --cases FILE, not both\n");
    return 2;
  }
  if (!options.mode.empty()) {
    if (sy::Status s = context.set_autotune(options.mode); !s.ok()) {
      std::fprintf(stderr, "switchyard tune: %s\n", Message(s).c_str());
      return 2;
    }
  }
  if (!options.import_file.empty()) {
    sy::Result<std::string> record = context.autotune_import(options.import_file);
    if (!record.ok()) {
      std::fprintf(stderr, "switchyard tune: %s\n", Message(record.status()).c_str());
      return 1;
    }
    const json r = json::parse(*record);
    std::printf("imported %lld verdict(s) from %s; %lld already present, %lld ignored\n",
                r["imported"].get<long long>(), options.import_file.c_str(),
                r["present"].get<long long>(), r["ignored"].get<long long>());
    for (const json& reason : r["reasons"]) {
      std::printf("  ignored: %s\n", reason.get<std::string>().c_str());
    }
  }
  int status = 0;
  if (tuning) {
    std::string cases;
    if (!options.cases_file.empty()) {
      sy::Result<std::string> text = ReadText(options.cases_file);
      if (!text.ok()) {
        std::fprintf(stderr, "switchyard tune: %s\n", Message(text.status()).c_str());
        return 2;
      }
      cases = *std::move(text);
    } else {
      sy::Result<json> one = CaseFromFlags(context, options);
      if (!one.ok()) {
        std::fprintf(stderr, "switchyard tune: %s\n", Message(one.status()).c_str());
        return 2;
      }
      cases = json{{"cases", json::array({*one})}}.dump();
    }
    // A progress bar on a terminal; plain lines otherwise (logs, pipes).
    const bool terminal = !options.json && isatty(STDOUT_FILENO) != 0;
    sy::Result<std::string> result = context.tune_cases(
        cases, options.force, [&](int32_t done, int32_t total, const std::string& text) {
          if (options.json) return;
          const json row = json::parse(text);
          if (terminal) {
            constexpr int kWidth = 24;
            const int filled = total > 0 ? done * kWidth / total : kWidth;
            std::printf("\r\033[K");
            std::printf("%s\n", RowLine(done, total, row).c_str());
            if (done < total) {
              std::printf("[%s%s] %d/%d", std::string(filled, '#').c_str(),
                          std::string(kWidth - filled, '.').c_str(), done, total);
            }
          } else {
            std::printf("%s\n", RowLine(done, total, row).c_str());
          }
          if (options.explain && row["ok"].get<bool>()) PrintExplain(row["report"]);
          std::fflush(stdout);
        });
    if (!result.ok()) {
      std::fprintf(stderr, "switchyard tune: %s\n", Message(result.status()).c_str());
      return 2;
    }
    const json rows = json::parse(*result)["rows"];
    if (options.json) std::printf("%s\n", rows.dump(2).c_str());
    for (const json& row : rows) status |= row["ok"].get<bool>() ? 0 : 1;
  }
  if (!options.export_file.empty()) {
    sy::Result<int64_t> count =
        context.autotune_export(options.export_file, options.all_devices);
    if (!count.ok()) {
      std::fprintf(stderr, "switchyard tune: %s\n", Message(count.status()).c_str());
      return 1;
    }
    if (!options.json) {
      std::printf("exported %lld verdict(s) to %s\n", static_cast<long long>(*count),
                  options.export_file.c_str());
    }
  }
  return status;
}

int RunAutotuneInfo(const sy::Context& context, bool json_output) {
  sy::Result<std::string> text = context.autotune_info_json();
  if (!text.ok()) {
    std::fprintf(stderr, "switchyard: %s\n", Message(text.status()).c_str());
    return 1;
  }
  const json info = json::parse(*text);
  if (json_output) {
    std::printf("%s\n", info.dump(2).c_str());
    return 0;
  }
  const std::string path = info["path"].get<std::string>();
  std::printf("Autotune cache: %s%s\n", path.empty() ? "in memory only" : path.c_str(),
              !path.empty() && !info["exists"].get<bool>() ? " (not created yet)" : "");
  std::printf("  mode %s; %lld verdict(s), %lld applied here, %lld stale (plugins "
              "changed); %.1f KiB\n",
              info["mode"].get<std::string>().c_str(), info["verdicts"].get<long long>(),
              info["applied"].get<long long>(), info["stale"].get<long long>(),
              info["file_bytes"].get<double>() / 1024);
  if (!info["devices"].empty()) std::printf("\nDevices:\n");
  for (const json& d : info["devices"]) {
    std::vector<std::string> ops;
    for (const auto& [op, count] : d["ops"].items()) {
      ops.push_back(absl::StrCat(op, " ", count.get<long long>()));
    }
    std::printf("  %s%s: %lld verdict(s) (%s)\n", d["fingerprint"].get<std::string>().c_str(),
                d["here"].get<bool>() ? " [this machine]" : "",
                d["verdicts"].get<long long>(), absl::StrJoin(ops, ", ").c_str());
  }
  if (!info["entries"].empty()) std::printf("\nVerdicts for this machine:\n");
  for (const json& e : info["entries"]) {
    std::string kernel = e["kernel"].get<std::string>();
    if (e["variant"].get<int>() >= 0) {
      absl::StrAppend(&kernel, " [", e["variant_name"].get<std::string>(), "]");
    }
    std::printf("  %-14s %-12s %-8s %-28s %s %s (%s)\n", e["op"].get<std::string>().c_str(),
                e["dtypes"].get<std::string>().c_str(), e["device"].get<std::string>().c_str(),
                e["bucket"].get<std::string>().c_str(), kernel.c_str(),
                Time(e["time_ns"].get<double>()).c_str(),
                e["source"].get<std::string>().c_str());
  }
  if (!info["imports"].empty()) std::printf("\nImports (newest first):\n");
  for (const json& r : info["imports"]) {
    std::printf("  %s: %lld imported, %lld present, %lld ignored\n",
                r["file"].get<std::string>().c_str(), r["imported"].get<long long>(),
                r["present"].get<long long>(), r["ignored"].get<long long>());
  }
  return 0;
}

}  // namespace sy::cli
