#include "core_calls.h"

#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include <benchmark/benchmark.h>

#include "dispatcher/dispatch/dispatcher.h"
#include "dispatcher/runtime/runtime.h"
#include "nlohmann/json.hpp"

namespace sy::bench {
namespace {

namespace fs = std::filesystem;

struct Core {
  std::unique_ptr<sy::core::Runtime> runtime;
  sy::core::OpHandle add;
  sy::core::Tensor a, b, out;
};

Core* g_core = nullptr;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "bench_dispatch (core columns): %s\n", what.c_str());
  std::exit(1);
}

// Copies each manifest and the library it names into a fresh folder.
std::string PrivateCopy(const std::vector<std::string>& manifests) {
  std::string dir = (fs::temp_directory_path() / "switchyard-bench-core.XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr) Fail("cannot make a temporary folder");
  for (const std::string& manifest : manifests) {
    std::ifstream in(manifest);
    const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    if (doc.is_discarded() || !doc.contains("library")) continue;
    const fs::path library =
        fs::path(manifest).parent_path() / doc["library"].get<std::string>();
    std::error_code ec;
    fs::copy_file(manifest, fs::path(dir) / fs::path(manifest).filename(), ec);
    fs::copy_file(library, fs::path(dir) / library.filename(), ec);
    if (ec) Fail("cannot copy " + library.string() + ": " + ec.message());
  }
  return dir;
}

void BM_CoreCallOut(benchmark::State& state) {
  const sy::core::Tensor inputs[2] = {g_core->a, g_core->b};
  const sy::core::Tensor outputs[1] = {g_core->out};
  for (auto _ : state) {
    absl::Status status = g_core->runtime->CallOut(g_core->add, inputs, {}, outputs);
    benchmark::DoNotOptimize(status);
  }
}

void BM_CoreCall(benchmark::State& state) {
  const sy::core::Tensor inputs[2] = {g_core->a, g_core->b};
  for (auto _ : state) {
    auto result = g_core->runtime->Call(g_core->add, inputs);
    benchmark::DoNotOptimize(result);
  }
}

// Execute with the pointers ready: what the C API's call path ends in.
void BM_CoreExecute(benchmark::State& state) {
  const sy::core::Tensor* inputs[2] = {&g_core->a, &g_core->b};
  const sy::core::Tensor* outputs[1] = {&g_core->out};
  sy::core::CallArgs args;
  args.inputs = inputs;
  args.outputs = outputs;
  for (auto _ : state) {
    absl::Status status = g_core->runtime->Execute(g_core->add, args);
    benchmark::DoNotOptimize(status);
  }
}

}  // namespace

void RegisterCoreBenchmarks(const std::vector<std::string>& manifests) {
  sy::core::RuntimeOptions options;
  options.loader.use_environment = false;
  options.loader.use_default_path = false;
  options.loader.search_paths = {PrivateCopy(manifests)};
  absl::StatusOr<std::unique_ptr<sy::core::Runtime>> runtime = sy::core::Runtime::Create(options);
  if (!runtime.ok()) Fail(std::string(runtime.status().message()));
  auto* core = new Core;  // lives as long as the process
  core->runtime = *std::move(runtime);
  sy::core::Device* cpu = core->runtime->GetDevice("cpu").value();
  core->add = core->runtime->FindOp("add.Tensor").value();
  const float one = 1.0f, two = 2.0f;
  core->a = core->runtime->FromHost(*cpu, SY_DTYPE_F32, {1}, &one, 4).value();
  core->b = core->runtime->FromHost(*cpu, SY_DTYPE_F32, {1}, &two, 4).value();
  core->out = core->runtime->Empty(*cpu, SY_DTYPE_F32, {1}).value();
  g_core = core;
  benchmark::RegisterBenchmark("BM_CoreCallOut", BM_CoreCallOut);
  benchmark::RegisterBenchmark("BM_CoreCall", BM_CoreCall);
  benchmark::RegisterBenchmark("BM_CoreExecute", BM_CoreExecute);
}

}  // namespace sy::bench
