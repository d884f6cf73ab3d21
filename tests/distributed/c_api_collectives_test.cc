// The C API's side of collectives (switchyard/distributed.h): bad input of
// every kind with its exact code and message, a communicator across the op
// call, and one real job — two forked ranks reducing random data against a
// float64 reference — so that the sanitizer passes run the Gloo engine too.
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "c_api_test_util.h"
#include "gtest/gtest.h"
#include "switchyard/switchyard.h"

namespace {

using sy_test::Cpu;
using sy_test::CpuManifest;
using sy_test::F32;
using sy_test::Hex;
using sy_test::MakeContext;
using sy_test::RandomFloats;

std::string FreshDir() {
  char path[] = "/tmp/sy-rdv-XXXXXX";
  EXPECT_NE(mkdtemp(path), nullptr);
  return std::string("file://") + path;
}

void ExpectError(sy_status_code_t got, sy_status_code_t code,
                 const std::string& fragment) {
  EXPECT_EQ(got, code) << sy_last_error_message();
  EXPECT_NE(std::string(sy_last_error_message()).find(fragment), std::string::npos)
      << "message: " << sy_last_error_message() << "\nwanted: " << fragment;
}

sy_attr_t Str(const char* text) {
  sy_attr_t a{};
  a.kind = SY_ATTR_STRING;
  a.value.str.data = text;
  a.value.str.size = static_cast<int64_t>(std::strlen(text));
  return a;
}

class Collectives : public ::testing::Test {
 protected:
  void SetUp() override {
    context_ = MakeContext({CpuManifest(), sy_test::TestPlugin("test_good")});
    cpu_ = Cpu(context_);
    ASSERT_EQ(sy_op_find(context_, "all_reduce", &all_reduce_), SY_STATUS_OK);
    rendezvous_ = FreshDir();
  }
  void TearDown() override { sy_context_destroy(context_); }

  sy_communicator_args_t Args(int rank = 0, int world = 1) {
    sy_communicator_args_t args;
    sy_communicator_args_init(&args);
    args.device = cpu_;
    args.rank = rank;
    args.world_size = world;
    args.rendezvous = rendezvous_.c_str();
    args.timeout_ms = 2000;
    return args;
  }

  sy_context_t context_ = nullptr;
  sy_device_handle_t cpu_ = nullptr;
  sy_op_t all_reduce_ = nullptr;
  std::string rendezvous_;
};

TEST_F(Collectives, CreateRefusesBadArguments) {
  sy_communicator_t comm = nullptr;
  ExpectError(sy_communicator_create(nullptr, &comm), SY_STATUS_INVALID_ARGUMENT,
              "sy_communicator_create: args is NULL");
  sy_communicator_args_t args = Args();
  ExpectError(sy_communicator_create(&args, nullptr), SY_STATUS_INVALID_ARGUMENT,
              "out_comm is NULL");
  args.struct_size = 8;
  ExpectError(sy_communicator_create(&args, &comm), SY_STATUS_INVALID_ARGUMENT,
              "sy_communicator_args_t");
  args = Args();
  args.rendezvous = nullptr;
  ExpectError(sy_communicator_create(&args, &comm), SY_STATUS_INVALID_ARGUMENT,
              "args->rendezvous is NULL; pass \"file:///dir\" or \"tcp://host:port\"");
  args = Args();
  args.rendezvous = "http://example.com";
  ExpectError(sy_communicator_create(&args, &comm), SY_STATUS_INVALID_ARGUMENT,
              "rendezvous 'http://example.com' has an unknown scheme; use file:///");
  args.rendezvous = "tcp://127.0.0.1:99999";
  ExpectError(sy_communicator_create(&args, &comm), SY_STATUS_INVALID_ARGUMENT,
              "tcp:// takes host:port with a port in 1..65535");
  args.rendezvous = "file://relative/dir";
  ExpectError(sy_communicator_create(&args, &comm), SY_STATUS_INVALID_ARGUMENT,
              "file:// takes an absolute path");
  args = Args(2, 2);
  ExpectError(sy_communicator_create(&args, &comm), SY_STATUS_INVALID_ARGUMENT,
              "communicator rank 2 of 2 on cpu:0 (" + rendezvous_ +
                  "): rank must be in 0..1, got 2");
  args = Args(0, 0);
  ExpectError(sy_communicator_create(&args, &comm), SY_STATUS_INVALID_ARGUMENT,
              "world_size must be >= 1, got 0");
  args = Args();
  args.timeout_ms = -5;
  ExpectError(sy_communicator_create(&args, &comm), SY_STATUS_INVALID_ARGUMENT,
              "args->timeout_ms is -5");
  args = Args();
  args.device = nullptr;
  ExpectError(sy_communicator_create(&args, &comm), SY_STATUS_INVALID_ARGUMENT,
              "is NULL; pass a device handle");
  sy_device_handle_t fake = nullptr;
  ASSERT_EQ(sy_device_find(context_, "fakedev:0", &fake), SY_STATUS_OK);
  args = Args();
  args.device = fake;
  ExpectError(sy_communicator_create(&args, &comm), SY_STATUS_UNIMPLEMENTED,
              "device type 'fakedev' (plugin 'test_good') has no collectives; use a "
              "device whose plugin has them");
  EXPECT_EQ(comm, nullptr);  // no failed call wrote it
}

TEST_F(Collectives, OneRankCommunicatorAcrossTheOpCall) {
  sy_communicator_args_t args = Args();
  sy_communicator_t comm = nullptr;
  ASSERT_EQ(sy_communicator_create(&args, &comm), SY_STATUS_OK) << sy_last_error_message();
  sy_communicator_info_t info{};
  info.struct_size = sizeof info;
  ASSERT_EQ(sy_communicator_get_info(comm, &info), SY_STATUS_OK);
  EXPECT_EQ(info.rank, 0);
  EXPECT_EQ(info.world_size, 1);
  EXPECT_EQ(info.device, cpu_);
  EXPECT_STREQ(info.engine, "gloo");
  EXPECT_EQ(rendezvous_, info.rendezvous);
  EXPECT_EQ(info.timeout_ms, 2000);
  info.struct_size = 4;
  ExpectError(sy_communicator_get_info(comm, &info), SY_STATUS_INVALID_ARGUMENT,
              "sy_communicator_info_t");

  const std::vector<float> data = RandomFloats(6, 7);
  sy_tensor_t x = F32(cpu_, {2, 3}, data);
  sy_attr_t attrs[2] = {sy_attr_communicator(comm), Str("max")};
  sy_tensor_t y = nullptr;
  ASSERT_EQ(sy_op_call(all_reduce_, &x, 1, attrs, 2, &y, 1), SY_STATUS_OK)
      << sy_last_error_message();
  std::vector<float> out(6);
  ASSERT_EQ(sy_tensor_to_host(y, out.data(), sizeof(float) * 6), SY_STATUS_OK);
  EXPECT_EQ(out, data);  // one rank: its own values
  sy_tensor_release(y);

  // Unknown reduction.
  attrs[1] = Str("mean");
  ExpectError(sy_op_call(all_reduce_, &x, 1, attrs, 2, &y, 1), SY_STATUS_INVALID_ARGUMENT,
              "sy_op_call: all_reduce: argument 'op' is 'mean', an unknown reduction; use "
              "one of sum, prod, max, min, avg");
  // Not a communicator: garbage, a tensor handle, an int.
  attrs[1] = Str("sum");
  attrs[0].value.i = 12345;
  ExpectError(sy_op_call(all_reduce_, &x, 1, attrs, 2, &y, 1), SY_STATUS_INVALID_ARGUMENT,
              "all_reduce: attribute 'comm' (0x3039) is not a Switchyard handle");
  attrs[0] = sy_attr_communicator(reinterpret_cast<sy_communicator_t>(x));
  ExpectError(sy_op_call(all_reduce_, &x, 1, attrs, 2, &y, 1), SY_STATUS_INVALID_ARGUMENT,
              "attribute 'comm' (" + Hex(x) + ") is a tensor handle, not a communicator "
              "handle");
  attrs[0].kind = SY_ATTR_INT;
  ExpectError(sy_op_call(all_reduce_, &x, 1, attrs, 2, &y, 1), SY_STATUS_INVALID_ARGUMENT,
              "all_reduce: attribute 'comm' must be Communicator, got an int");

  // A tensor on another device than the communicator's.
  sy_device_handle_t fake = nullptr;
  ASSERT_EQ(sy_device_find(context_, "fakedev:0", &fake), SY_STATUS_OK);
  sy_tensor_t on_fake = F32(fake, {3}, {1, 2, 3});
  attrs[0] = sy_attr_communicator(comm);
  ExpectError(sy_op_call(all_reduce_, &on_fake, 1, attrs, 2, &y, 1),
              SY_STATUS_INVALID_ARGUMENT,
              "all_reduce: the tensors are on fakedev:0 but attribute 'comm' is a "
              "communicator bound to cpu:0; move the tensors to cpu:0 or use a "
              "communicator made for fakedev:0");

  // Destroyed: the handle is stale, once and for all.
  ASSERT_EQ(sy_communicator_destroy(comm), SY_STATUS_OK);
  ExpectError(sy_op_call(all_reduce_, &x, 1, attrs, 2, &y, 1), SY_STATUS_INVALID_ARGUMENT,
              "attribute 'comm' (" + Hex(comm) + ") is a stale communicator handle: it "
              "was destroyed, or its context was");
  ExpectError(sy_communicator_destroy(comm), SY_STATUS_INVALID_ARGUMENT,
              "is a stale communicator handle");
  sy_tensor_release(on_fake);
  sy_tensor_release(x);
}

TEST_F(Collectives, DestroyingTheContextDestroysItsCommunicators) {
  sy_communicator_args_t args = Args();
  sy_communicator_t comm = nullptr;
  ASSERT_EQ(sy_communicator_create(&args, &comm), SY_STATUS_OK);
  sy_context_destroy(context_);
  context_ = MakeContext();
  sy_communicator_info_t info{};
  info.struct_size = sizeof info;
  ExpectError(sy_communicator_get_info(comm, &info), SY_STATUS_INVALID_ARGUMENT,
              "is a stale communicator handle");
}

// Two ranks, each its own process and context, sum random data; each checks
// against the float64 sum of both ranks' inputs (which it can make: the
// seeds are the ranks).
int Rank(int rank, const std::string& rendezvous) {
  sy_context_t context = MakeContext();
  sy_communicator_args_t args;
  sy_communicator_args_init(&args);
  args.device = Cpu(context);
  args.rank = rank;
  args.world_size = 2;
  args.rendezvous = rendezvous.c_str();
  args.timeout_ms = 20000;
  sy_communicator_t comm = nullptr;
  if (sy_communicator_create(&args, &comm) != SY_STATUS_OK) return 10;
  constexpr int kN = 1000;
  const std::vector<float> mine = RandomFloats(kN, 100 + rank);
  const std::vector<float> a = RandomFloats(kN, 100), b = RandomFloats(kN, 101);
  sy_tensor_t x = F32(args.device, {kN}, mine);
  sy_op_t op = nullptr;
  sy_op_find(context, "all_reduce", &op);
  sy_attr_t attrs[2] = {sy_attr_communicator(comm), Str("sum")};
  sy_tensor_t y = nullptr;
  if (sy_op_call(op, &x, 1, attrs, 2, &y, 1) != SY_STATUS_OK) return 11;
  std::vector<float> out(kN);
  sy_tensor_to_host(y, out.data(), sizeof(float) * kN);
  for (int i = 0; i < kN; ++i) {
    const double want = static_cast<double>(a[i]) + static_cast<double>(b[i]);
    if (!(std::fabs(out[i] - want) <= 1e-6 * (1 + std::fabs(want)))) return 12;  // NaN fails
  }
  sy_tensor_release(y);
  sy_tensor_release(x);
  sy_communicator_destroy(comm);
  sy_context_destroy(context);
  return 0;
}

TEST(CollectivesJob, TwoForkedRanksSumAgainstFloat64) {
  const std::string rendezvous = FreshDir();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(Rank(1, rendezvous));
  EXPECT_EQ(Rank(0, rendezvous), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// ---- cuda (NCCL): run where the machine has the GPUs, skipped elsewhere ----

namespace cuda {

constexpr int kSkip = 77;  // a rank found no such device

// Runs `rank_main(rank)` in `n` forked children (the parent never touches
// CUDA: a child of a process that did cannot use it) and returns their exit
// codes.
template <class F>
std::vector<int> ForkRanks(int n, F rank_main) {
  std::vector<pid_t> pids;
  for (int r = 0; r < n; ++r) {
    const pid_t pid = fork();
    if (pid == 0) _exit(rank_main(r));
    pids.push_back(pid);
  }
  std::vector<int> codes;
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    codes.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  }
  return codes;
}

// One rank on cuda:<rank>: all_reduce (sum, avg), all_gather, broadcast,
// reduce_scatter and barrier of random f32 data, against the float64
// results of every rank's inputs (seeded by rank). Exit code 0 when right.
int CudaRank(int rank, int world, const std::string& rendezvous) {
  const std::string cuda_manifest = std::string(SWITCHYARD_PLUGIN_DIR) + "/cuda.json";
  if (access(cuda_manifest.c_str(), R_OK) != 0) return kSkip;
  sy_context_t context = MakeContext({CpuManifest(), cuda_manifest});
  sy_device_handle_t gpu = nullptr;
  const std::string spec = "cuda:" + std::to_string(rank);
  if (sy_device_find(context, spec.c_str(), &gpu) != SY_STATUS_OK) {
    sy_context_destroy(context);
    return kSkip;
  }
  sy_communicator_args_t args;
  sy_communicator_args_init(&args);
  args.device = gpu;
  args.rank = rank;
  args.world_size = world;
  args.rendezvous = rendezvous.c_str();
  args.timeout_ms = 60000;
  sy_communicator_t comm = nullptr;
  if (sy_communicator_create(&args, &comm) != SY_STATUS_OK) {
    std::fprintf(stderr, "rank %d: %s\n", rank, sy_last_error_message());
    return 10;
  }
  constexpr int kN = 4096;
  std::vector<std::vector<float>> inputs;
  for (int r = 0; r < world; ++r) inputs.push_back(RandomFloats(kN, 500 + r));
  sy_tensor_t x = F32(gpu, {kN}, inputs[rank]);
  auto call = [&](const char* name, std::vector<sy_attr_t> attrs, int64_t n,
                  auto want) -> int {
    sy_op_t op = nullptr;
    sy_op_find(context, name, &op);
    sy_tensor_t y = nullptr;
    if (sy_op_call(op, &x, 1, attrs.data(), static_cast<int32_t>(attrs.size()), &y, 1) !=
        SY_STATUS_OK) {
      std::fprintf(stderr, "rank %d: %s: %s\n", rank, name, sy_last_error_message());
      return 11;
    }
    std::vector<float> out(static_cast<size_t>(n));
    sy_tensor_to_host(y, out.data(), out.size() * sizeof(float));
    sy_tensor_release(y);
    for (int64_t i = 0; i < n; ++i) {
      const double w = want(i);
      if (std::fabs(out[i] - w) > 1e-5 * (1 + std::fabs(w))) {
        std::fprintf(stderr, "rank %d: %s[%lld] = %g, want %g\n", rank, name,
                     static_cast<long long>(i), out[i], w);
        return 12;
      }
    }
    return 0;
  };
  auto sum = [&](int64_t i) {
    double s = 0;
    for (const auto& in : inputs) s += in[i];
    return s;
  };
  const sy_attr_t c = sy_attr_communicator(comm);
  int code = call("all_reduce", {c, Str("sum")}, kN, sum);
  if (code == 0) code = call("all_reduce", {c, Str("avg")}, kN,
                             [&](int64_t i) { return sum(i) / world; });
  if (code == 0) code = call("all_gather", {c}, kN * world, [&](int64_t i) {
    return static_cast<double>(inputs[i / kN][i % kN]);
  });
  sy_attr_t root{};
  root.kind = SY_ATTR_INT;
  root.value.i = world - 1;
  if (code == 0) code = call("broadcast", {c, root}, kN, [&](int64_t i) {
    return static_cast<double>(inputs[world - 1][i]);
  });
  const int64_t share = kN / world;
  if (code == 0) code = call("reduce_scatter", {c, Str("sum")}, share,
                             [&](int64_t i) { return sum(rank * share + i); });
  sy_op_t barrier = nullptr;
  sy_op_find(context, "barrier", &barrier);
  sy_tensor_t token = nullptr;
  if (code == 0 && sy_op_call(barrier, nullptr, 0, &c, 1, &token, 1) != SY_STATUS_OK) {
    code = 13;
  }
  if (token != nullptr) sy_tensor_release(token);
  if (code == 0 && sy_device_synchronize(gpu) != SY_STATUS_OK) code = 14;
  sy_tensor_release(x);
  sy_communicator_destroy(comm);
  sy_context_destroy(context);
  return code;
}

void ExpectRanks(const std::vector<int>& codes) {
  for (int code : codes) {
    if (code == kSkip) GTEST_SKIP() << "needs " << codes.size() << " CUDA device(s)";
  }
  for (size_t r = 0; r < codes.size(); ++r) EXPECT_EQ(codes[r], 0) << "rank " << r;
}

TEST(CudaCollectives, OneRankOnCuda0) {
  const std::string rendezvous = FreshDir();
  ExpectRanks(ForkRanks(1, [&](int r) { return CudaRank(r, 1, rendezvous); }));
}

TEST(CudaCollectives, TwoRanksOnCuda0AndCuda1) {
  const std::string rendezvous = FreshDir();
  ExpectRanks(ForkRanks(2, [&](int r) { return CudaRank(r, 2, rendezvous); }));
}

}  // namespace cuda

}  // namespace
