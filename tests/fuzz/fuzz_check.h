// FUZZ_CHECK: the fuzzers' invariant check. A broken invariant is a finding
// like a crash, so it prints what was expected and aborts; libFuzzer then
// saves the input that did it (crash-<sha1>) for minimizing and replay.
#ifndef SWITCHYARD_TESTS_FUZZ_FUZZ_CHECK_H_
#define SWITCHYARD_TESTS_FUZZ_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>

// `...` is a printf format and its arguments: what broke, with the values
// that show it.
#define FUZZ_CHECK(cond, ...)                                           \
  do {                                                                  \
    if (!(cond)) {                                                      \
      std::fprintf(stderr, "%s:%d: invariant failed: %s\n  ", __FILE__, \
                   __LINE__, #cond);                                    \
      std::fprintf(stderr, __VA_ARGS__);                                \
      std::fprintf(stderr, "\n");                                       \
      std::abort();                                                     \
    }                                                                   \
  } while (0)

#endif  // SWITCHYARD_TESTS_FUZZ_FUZZ_CHECK_H_
