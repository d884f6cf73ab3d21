// The export file: round trip, strict per-entry checks with reasons, and
// refusals of what is not an export.
#include "autotune/export_format.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sy::autotune {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Verdict Sample() {
  Verdict v;
  v.key.fingerprint = "cpu|host CPU (Example)|GenuineIntel||cc -|16 units";
  v.key.op = "matmul";
  v.key.dtypes = "f32,f32";
  v.key.bucket = "2|c:17,17|t:17,17";
  v.key.plugins = "cpu 0.1.0 abi 1.1 options -, onednn 0.1.0 abi 1.1 options 0a1b2c3d";
  v.key.candidates = "0123456789abcdef";
  v.kernel = "onednn::matmul.f32.f32";
  v.time_ns = 1234.5;
  v.detail = "{\"reference\": \"cpu\"}";
  v.source = "measured";
  v.created = 1700000000;
  return v;
}

TEST(ExportFormat, RoundTrips) {
  Verdict with_variant = Sample();
  with_variant.variant = 2;
  with_variant.variant_name = "cublaslt_heuristic2";
  with_variant.key.dtypes = "bf16,bf16,none";
  const std::vector<Verdict> verdicts = {Sample(), with_variant};
  absl::StatusOr<ParsedExport> parsed = ParseExport(SerializeExport(verdicts));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->rejected.empty());
  EXPECT_EQ(parsed->verdicts, verdicts);
}

TEST(ExportFormat, RejectsBadEntriesWithReasons) {
  const std::string good = SerializeExport({Sample()});
  std::string text = good;
  // Append bad entries after the good one.
  const std::string tail = R"(, {"op": "x"},
      {"fingerprint": "f", "op": "matmul", "dtypes": "f32,f99", "bucket": "1|c:9",
       "plugins": "p", "candidates": "0123456789abcdef", "kernel": "k", "variant": -1,
       "variant_name": "", "time_ns": 1, "detail": "", "source": ""},
      {"fingerprint": "f", "op": "matmul", "dtypes": "f32", "bucket": "1|c:09",
       "plugins": "p", "candidates": "0123456789abcdef", "kernel": "k", "variant": -1,
       "variant_name": "", "time_ns": 1, "detail": "", "source": ""},
      {"fingerprint": "f", "op": "matmul", "dtypes": "f32", "bucket": "1|c:9",
       "plugins": "p", "candidates": "0123456789abcdef", "kernel": "k", "variant": 3,
       "variant_name": "", "time_ns": 1, "detail": "", "source": ""},
      {"fingerprint": "f", "op": "matmul", "dtypes": "f32", "bucket": "1|c:9",
       "plugins": "p", "candidates": "XYZ", "kernel": "k", "variant": -1,
       "variant_name": "", "time_ns": -5, "detail": "", "source": ""}, 7])";
  text.insert(text.rfind(']'), tail.substr(0, tail.size() - 1));
  absl::StatusOr<ParsedExport> parsed = ParseExport(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->verdicts.size(), 1u);
  EXPECT_THAT(parsed->rejected,
              ElementsAre("entry 1: 'fingerprint' is missing",
                          "entry 2: 'dtypes' \"f32,f99\" is not a dtype list",
                          "entry 3: 'bucket' \"1|c:09\" is not a shape bucket",
                          "entry 4: 'variant_name' is empty for a variant",
                          "entry 5: 'time_ns' is not a finite number >= 0",
                          "entry 6: is not an object"));
}

TEST(ExportFormat, RefusesWhatIsNotAnExport) {
  EXPECT_THAT(ParseExport("not json").status().message(), HasSubstr("the file is not JSON"));
  EXPECT_THAT(ParseExport("[]").status().message(), HasSubstr("not a JSON object"));
  EXPECT_THAT(ParseExport(R"({"format": "other", "version": 1, "verdicts": []})")
                  .status()
                  .message(),
              HasSubstr("\"format\" is not \"switchyard-autotune\""));
  EXPECT_THAT(
      ParseExport(R"({"format": "switchyard-autotune", "version": 9, "verdicts": []})")
          .status()
          .message(),
      HasSubstr("written by a newer Switchyard (export version 9; this one reads version 1)"));
  EXPECT_THAT(
      ParseExport(R"({"format": "switchyard-autotune", "version": 1})").status().message(),
      HasSubstr("\"verdicts\" is missing or not a list"));
}

}  // namespace
}  // namespace sy::autotune
