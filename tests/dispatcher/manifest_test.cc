// Manifest validation: every field, with the exact message.
#include "dispatcher/loading/manifest.h"

#include "gtest/gtest.h"

namespace sy::core {
namespace {

std::string Error(const std::string& text) {
  absl::StatusOr<Manifest> m = ParseManifest(text, "/p/x.json");
  EXPECT_FALSE(m.ok());
  return m.ok() ? "" : std::string(m.status().message());
}

constexpr char kGood[] =
    R"({"format_version": 1, "name": "vendor_x", "library": "lib/libx.so",
        "abi": {"major": 1, "minor": 0}, "device_types": ["xpu", "cpu"],
        "sha256": "ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789",
        "future_field": true})";

TEST(ManifestTest, ParsesGoodManifest) {
  Manifest m = ParseManifest(kGood, "/p/x.json").value();
  EXPECT_EQ(m.name, "vendor_x");
  EXPECT_EQ(m.library_path, "/p/lib/libx.so");
  EXPECT_EQ(m.abi_major, 1u);
  EXPECT_EQ(m.device_types, (std::vector<std::string>{"xpu", "cpu"}));
  EXPECT_EQ(*m.sha256,
            "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789");
}

TEST(ManifestTest, RejectsEachBadField) {
  EXPECT_EQ(Error("[1]"), "manifest /p/x.json must be a JSON object, found array");
  EXPECT_EQ(Error(R"({"name": "x"})"),
            "manifest /p/x.json: field \"format_version\" is required and must "
            "be an integer (1)");
  EXPECT_EQ(Error(R"({"format_version": 1, "name": "Bad Name"})"),
            "manifest /p/x.json: field \"name\" is required and must be a "
            "lowercase identifier ([a-z_][a-z0-9_]*, at most 64 characters)");
  EXPECT_EQ(Error(R"({"format_version": 1, "name": "x", "library": "/abs/x.so"})"),
            "manifest /p/x.json: field \"library\" is the absolute path "
            "'/abs/x.so'; give it relative to the manifest so the pair can be "
            "moved together");
  EXPECT_EQ(Error(R"({"format_version": 1, "name": "x", "library": "x.so",
                      "abi": {"major": -1, "minor": 0}})"),
            "manifest /p/x.json: field \"abi\" is required: {\"major\": <n>, "
            "\"minor\": <n>} with the plugin ABI the library was built against");
  EXPECT_EQ(Error(R"({"format_version": 1, "name": "x", "library": "x.so",
                      "abi": {"major": 1, "minor": 0}, "device_types": []})"),
            "manifest /p/x.json: field \"device_types\" is required: a "
            "non-empty list of device type names the plugin provides or adds "
            "kernels to");
  EXPECT_EQ(Error(R"({"format_version": 1, "name": "x", "library": "x.so",
                      "abi": {"major": 1, "minor": 0}, "device_types": [3]})"),
            "manifest /p/x.json: field \"device_types\" contains 3; each entry "
            "must be a lowercase identifier such as \"cpu\"");
  EXPECT_EQ(Error(R"({"format_version": 1, "name": "x", "library": "x.so",
                      "abi": {"major": 1, "minor": 0}, "device_types": ["cpu"],
                      "sha256": "abc"})"),
            "manifest /p/x.json: field \"sha256\" must be 64 hexadecimal digits "
            "(the SHA-256 of the library), or be left out");
}

// Found by the manifest fuzzer (tests/fuzz/crashes/manifest): a number no
// double holds used to escape as an exception, and huge integers used to
// wrap to 1 and pass the format and ABI gates.
TEST(ManifestTest, FuzzerFindsStayFixed) {
  EXPECT_EQ(Error(R"({"format_version": 1, "name": "x", "size": 1e999})"),
            "manifest /p/x.json is not valid JSON: [json.exception.out_of_range.406] "
            "number overflow parsing '1e999'; fix the file or remove it from the "
            "plugin path");
  EXPECT_EQ(Error(R"({"format_version": 4294967297, "name": "x"})"),
            "manifest /p/x.json: field \"format_version\" is 4294967297 but this "
            "Switchyard reads format 1; upgrade Switchyard or regenerate the "
            "manifest with a matching SDK");
  EXPECT_EQ(Error(R"({"format_version": 1, "name": "x", "library": "x.so",
                      "abi": {"major": 4294967297, "minor": 0}})"),
            "manifest /p/x.json: field \"abi\" is required: {\"major\": <n>, "
            "\"minor\": <n>} with the plugin ABI the library was built against");
}

// Only a regular file is read, and at most 1 MiB of it (the larger case is
// in tests/hostile/hostile_files_test.cc).
TEST(ManifestTest, RefusesADeviceWithoutReadingIt) {
  absl::StatusOr<Manifest> m = ReadManifest("/dev/zero");
  EXPECT_EQ(m.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(m.status().message(),
            "manifest /dev/zero is a character device, not a regular file; it was "
            "not read; remove it from the plugin folder");
}

TEST(ManifestTest, MissingFile) {
  absl::StatusOr<Manifest> m = ReadManifest("/nonexistent/x.json");
  EXPECT_EQ(m.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(m.status().message(),
            "manifest /nonexistent/x.json does not exist (at /nonexistent); check "
            "the path");
}

}  // namespace
}  // namespace sy::core
