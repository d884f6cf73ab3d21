// A child process for processes_test.cc: a runtime with the cpu plugin and
// "planted", its tuner on the cache folder given, tuning add.Tensor on
// fakedev for each shape given, then printing the verdict the cache holds
// for each: "<shape> <kernel> <variant> <written>".
//
//   autotune_worker CACHE_DIR SHAPE...     (SHAPE: 32x32, 7, 3x5, …)
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "autotune_test_util.h"

int main(int argc, char** argv) {
  using namespace sy::autotune::testing;  // NOLINT
  if (argc < 3) {
    std::fprintf(stderr, "usage: autotune_worker CACHE_DIR SHAPE...\n");
    return 2;
  }
  RuntimeSpec spec;
  spec.cache_dir = argv[1];
  std::unique_ptr<sy::core::Runtime> runtime = MakeRuntime(spec);
  if (runtime == nullptr) return 1;
  for (int i = 2; i < argc; ++i) {
    std::vector<int64_t> shape;
    for (absl::string_view d : absl::StrSplit(argv[i], 'x')) {
      int64_t value = 0;
      if (!absl::SimpleAtoi(d, &value)) return 2;
      shape.push_back(value);
    }
    absl::StatusOr<sy::autotune::TuneReport> r = TuneBinary(*runtime, "add", "fakedev", shape);
    if (!r.ok()) {
      std::fprintf(stderr, "%s: %s\n", argv[i], std::string(r.status().message()).c_str());
      return 1;
    }
    std::printf("%s %s %d %d\n", argv[i], r->verdict.kernel.c_str(), r->verdict.variant,
                r->written ? 1 : 0);
  }
  return 0;
}
