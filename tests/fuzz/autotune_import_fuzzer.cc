// Fuzzes the autotuner's import format (autotune/export_format.h) and the
// cache behind it.
//
// Beyond "no crash" (nothing thrown out of the parser, no sanitizer
// report), every input checks the contract:
// - a failure is InvalidArgument whose message begins "autotune export:";
// - every accepted entry has the key fields the cache keys on: a bucket and
//   a dtype list that parse, 16 hex digits of candidate hash, a variant in
//   -1..65535 with a name exactly when it is not -1, a finite time >= 0;
// - accepted entries and rejections together account for every entry;
// - what was accepted serializes and parses back to the same verdicts,
//   with nothing rejected;
// - stored in an in-memory cache, each key reads back as the first
//   verdict given for it (first writer wins), and nothing else is there.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "absl/strings/match.h"
#include "autotune/cache.h"
#include "autotune/export_format.h"
#include "fuzz_check.h"
#include "nlohmann/json.hpp"

namespace {

using sy::autotune::ParsedExport;
using sy::autotune::Verdict;

void CheckEntry(const Verdict& v) {
  FUZZ_CHECK(sy::autotune::ParseBucketText(v.key.bucket).has_value(),
             "bucket '%s' accepted", v.key.bucket.c_str());
  FUZZ_CHECK(sy::autotune::ParseDTypesText(v.key.dtypes).has_value(),
             "dtypes '%s' accepted", v.key.dtypes.c_str());
  FUZZ_CHECK(v.key.candidates.size() == 16, "candidates '%s' accepted",
             v.key.candidates.c_str());
  FUZZ_CHECK(v.variant >= -1 && v.variant <= 65535, "variant %d accepted", v.variant);
  FUZZ_CHECK((v.variant < 0) == v.variant_name.empty(),
             "variant %d with name '%s' accepted", v.variant, v.variant_name.c_str());
  FUZZ_CHECK(std::isfinite(v.time_ns) && v.time_ns >= 0, "time_ns %g accepted", v.time_ns);
  FUZZ_CHECK(!v.key.op.empty() && !v.kernel.empty() && !v.key.fingerprint.empty(),
             "an empty key field was accepted");
}

size_t EntriesIn(const uint8_t* data, size_t size) {
  const nlohmann::json doc = nlohmann::json::parse(data, data + size, nullptr, false);
  return doc.at("verdicts").size();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<ParsedExport> parsed = sy::autotune::ParseExport(text);
  if (!parsed.ok()) {
    FUZZ_CHECK(absl::IsInvalidArgument(parsed.status()), "status code %d",
               static_cast<int>(parsed.status().code()));
    FUZZ_CHECK(absl::StartsWith(parsed.status().message(), "autotune export: "),
               "message '%s'", std::string(parsed.status().message()).c_str());
    return 0;
  }
  for (const Verdict& v : parsed->verdicts) CheckEntry(v);
  FUZZ_CHECK(parsed->verdicts.size() + parsed->rejected.size() == EntriesIn(data, size),
             "%zu accepted + %zu rejected != entries", parsed->verdicts.size(),
             parsed->rejected.size());

  absl::StatusOr<ParsedExport> again =
      sy::autotune::ParseExport(sy::autotune::SerializeExport(parsed->verdicts));
  FUZZ_CHECK(again.ok() && again->rejected.empty() && again->verdicts == parsed->verdicts,
             "accepted verdicts do not survive a round trip");

  sy::autotune::TuningCache cache("");  // in memory
  std::map<std::string, const Verdict*> first;
  for (const Verdict& v : parsed->verdicts) {
    absl::StatusOr<sy::autotune::TuningCache::Stored> stored = cache.Insert(v);
    FUZZ_CHECK(stored.ok(), "insert failed: %s",
               std::string(stored.status().message()).c_str());
    auto [it, fresh] = first.emplace(v.key.Hash(), &v);
    FUZZ_CHECK(stored->inserted == fresh, "first writer did not win");
    FUZZ_CHECK(stored->verdict.kernel == it->second->kernel, "stored a later verdict");
  }
  absl::StatusOr<std::vector<Verdict>> all = cache.List("");
  FUZZ_CHECK(all.ok() && all->size() == first.size(), "%zu verdicts stored, %zu keys",
             all.ok() ? all->size() : 0, first.size());
  for (const Verdict& v : *all) {
    auto it = first.find(v.key.Hash());
    FUZZ_CHECK(it != first.end() && it->second->key == v.key &&
                   it->second->kernel == v.kernel && it->second->variant == v.variant,
               "the cache holds a verdict nobody gave it");
  }
  return 0;
}
