// bench_collectives: all_reduce (sum) and all_gather of f32 through the
// public API, as one rank of a job (launch.sh starts the ranks), over the
// default plugin set: on cuda through NCCL, on cpu through Gloo. Beside it,
// bench_collectives_torch.py times torch.distributed with the same sizes
// and the same method, in the same session (device_run.sh).
//
// Each row: one op at one size (bytes of the result, 1 KiB … 1 GiB by
// factors of two, as nccl-tests sizes them), run `warmup` times, then
// `iters` times back to back into a preallocated output (sy_op_call_out,
// as an in-place NCCL call: no allocation in the loop) with one
// synchronize at the end; time = host clock / iters, the same on every rank
// (each row starts with a barrier). Bus bandwidth as nccl-tests defines it:
// all_reduce size·2(n−1)/n / time, all_gather size·(n−1)/n / time.
// Google Benchmark prints rank 0's rows (time, algbw_GBps, busbw_GBps);
// every rank runs the same rows with fixed iteration counts, so the ranks
// stay in step.
//
//   RANK=r WORLD_SIZE=n MASTER_ADDR=127.0.0.1 MASTER_PORT=29500
//     bench_collectives [--device=cuda] [--max_bytes=1073741824] [benchmark flags]
//
// --device: "cuda" (rank r on cuda:LOCAL_RANK, else cuda:r) or "cpu".
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/switchyard.hpp"

namespace {

struct Job {
  int rank = 0;
  int world = 1;
  std::string device_kind = "cuda";
  int64_t max_bytes = int64_t{1} << 30;
  sy::Context context;
  sy::Device device;
  sy::Communicator comm;
  sy::Op all_reduce, all_gather, barrier;
};

Job& TheJob() {
  static Job* job = new Job;  // lives until exit: rows run after main's setup
  return *job;
}

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

template <class T>
T Must(sy::Result<T> r, const char* what) {
  if (!r.ok()) {
    std::fprintf(stderr, "bench_collectives: %s: %s\n", what,
                 r.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(*r);
}

void Check(const sy::Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "bench_collectives: %s: %s\n", what, s.ToString().c_str());
    std::exit(1);
  }
}

// Fewer repetitions for large sizes: ~constant bytes moved per row.
int Iterations(int64_t bytes) {
  if (bytes <= (int64_t{1} << 20)) return 200;
  if (bytes <= (int64_t{1} << 26)) return 50;
  return 10;
}

// One row: `op` is all_reduce or all_gather; `bytes` the result's size.
void Row(benchmark::State& state, bool gather, int64_t bytes) {
  Job& job = TheJob();
  const int64_t out_elements = bytes / 4;
  const int64_t in_elements = gather ? out_elements / job.world : out_elements;
  std::vector<float> host(static_cast<size_t>(in_elements), 1.0f);
  const std::vector<int64_t> in_shape = {in_elements}, out_shape = {out_elements};
  sy::Tensor x = Must(sy::Tensor::FromHost(job.device, SY_DTYPE_F32, in_shape,
                                           host.data(), host.size() * 4),
                      "input");
  sy::Tensor y = Must(sy::Tensor::Empty(job.device, SY_DTYPE_F32, out_shape), "output");
  const sy::Op& op = gather ? job.all_gather : job.all_reduce;
  const sy::Attr attrs[] = {job.comm.attr(), sy::Attr("sum")};
  const sy::Tensor ins[] = {x};
  const sy::Tensor outs[] = {y};
  const std::span<const sy::Attr> op_attrs(attrs, gather ? 1 : 2);
  auto once = [&] {
    Check(op.call_out(ins, op_attrs, outs), gather ? "all_gather" : "all_reduce");
  };
  const int iters = Iterations(bytes);
  for (auto _ : state) {
    Check(job.barrier.call(std::span<const sy::Tensor>(), std::span<const sy::Attr>(attrs, 1))
              .status(),
          "barrier");
    for (int i = 0; i < 5; ++i) once();
    Check(job.device.synchronize(), "synchronize");
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) once();
    Check(job.device.synchronize(), "synchronize");
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / iters;
    state.SetIterationTime(seconds);
    const double n = job.world;
    const double factor = gather ? (n - 1) / n : 2 * (n - 1) / n;
    state.counters["bytes"] = static_cast<double>(bytes);
    state.counters["algbw_GBps"] = static_cast<double>(bytes) / seconds / 1e9;
    state.counters["busbw_GBps"] = static_cast<double>(bytes) * factor / seconds / 1e9;
  }
}

// Rank 0 reports; the others run the same rows silently.
class Silent : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

}  // namespace

int main(int argc, char** argv) {
  Job& job = TheJob();
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--device=", 0) == 0) {
      job.device_kind = a.substr(9);
    } else if (a.rfind("--max_bytes=", 0) == 0) {
      job.max_bytes = std::atoll(a.c_str() + 12);
    } else {
      rest.push_back(argv[i]);
    }
  }
  job.rank = EnvInt("RANK", 0);
  job.world = EnvInt("WORLD_SIZE", 1);
  const char* addr = std::getenv("MASTER_ADDR");
  const char* port = std::getenv("MASTER_PORT");
  const std::string rendezvous = std::string("tcp://") + (addr ? addr : "127.0.0.1") +
                                 ":" + (port ? port : "29500");
  job.context = Must(sy::Context::Create(), "context");
  const std::string spec =
      job.device_kind == "cpu"
          ? std::string("cpu:0")
          : "cuda:" + std::to_string(EnvInt("LOCAL_RANK", job.rank));
  job.device = Must(job.context.device(spec), spec.c_str());
  job.comm = Must(sy::Communicator::Create(
                      job.device, {.rank = job.rank,
                                   .world_size = job.world,
                                   .rendezvous = rendezvous,
                                   .timeout = std::chrono::milliseconds(300000)}),
                  "communicator");
  job.all_reduce = Must(job.context.op("all_reduce"), "all_reduce");
  job.all_gather = Must(job.context.op("all_gather"), "all_gather");
  job.barrier = Must(job.context.op("barrier"), "barrier");

  for (const bool gather : {false, true}) {
    for (int64_t bytes = 1024; bytes <= job.max_bytes; bytes *= 2) {
      if (gather && bytes / 4 % job.world != 0) continue;
      const std::string name =
          std::string(gather ? "all_gather" : "all_reduce") + "/" + std::to_string(bytes);
      benchmark::RegisterBenchmark(name.c_str(), [gather, bytes](benchmark::State& s) {
        Row(s, gather, bytes);
      })->Iterations(1)->UseManualTime()->Unit(benchmark::kMicrosecond);
    }
  }
  if (job.rank != 0) {  // one file: rank 0's (the others would clobber it)
    std::erase_if(rest, [](const char* a) {
      return std::string_view(a).rfind("--benchmark_out", 0) == 0;
    });
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  if (job.rank == 0) {
    std::printf("bench_collectives: %d ranks on %s…, rendezvous %s\n", job.world,
                spec.c_str(), rendezvous.c_str());
    benchmark::RunSpecifiedBenchmarks();
  } else {
    Silent silent;
    benchmark::RunSpecifiedBenchmarks(&silent);
  }
  benchmark::Shutdown();
  job.comm.destroy();
  return 0;
}
