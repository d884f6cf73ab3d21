// The file `switchyard tune --export` writes and `--import` reads, so an
// application can ship verdicts for its target machines. JSON, one object:
//
//   {"format": "switchyard-autotune", "version": 1,
//    "verdicts": [{"fingerprint": "cpu|host CPU (…)|GenuineIntel||cc -|16 units",
//                  "op": "matmul", "dtypes": "f32,f32", "bucket": "2|c:17,17|c:17,17",
//                  "plugins": "cpu 0.1.0 abi 1.1 options -, onednn …",
//                  "candidates": "0123456789abcdef",
//                  "kernel": "onednn::matmul.f32.f32", "variant": -1,
//                  "variant_name": "", "time_ns": 1234.5, "detail": "…",
//                  "source": "measured", "created": 1700000000}, …]}
//
// Every key field is the text the cache keys on (tuning_key.h); the key's
// hash is never read from a file but recomputed. Parsing is strict per
// entry: an entry with a missing or ill-typed field, a bucket or dtype list
// that does not parse, or a variant name without a variant is rejected with
// a reason, and the rest are read. Whether an entry applies to this machine
// and these plugins is the importer's check (Tuner::Import), not the
// parser's.
#ifndef SWITCHYARD_AUTOTUNE_EXPORT_FORMAT_H_
#define SWITCHYARD_AUTOTUNE_EXPORT_FORMAT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "autotune/cache.h"

namespace sy::autotune {

inline constexpr char kExportFormat[] = "switchyard-autotune";
inline constexpr int kExportVersion = 1;
// Larger files are refused before parsing.
inline constexpr size_t kMaxExportBytes = size_t{64} << 20;

struct ParsedExport {
  std::vector<Verdict> verdicts;
  // "entry 3: 'op' is missing", one per rejected entry.
  std::vector<std::string> rejected;
};

// Errors: InvalidArgument when `text` is not an export at all (not JSON, not
// an object, another format, a newer version, no verdict list, too large).
absl::StatusOr<ParsedExport> ParseExport(absl::string_view text);

// The export of `verdicts`, as ParseExport reads it.
std::string SerializeExport(const std::vector<Verdict>& verdicts);

}  // namespace sy::autotune

#endif  // SWITCHYARD_AUTOTUNE_EXPORT_FORMAT_H_
