// What the built rocm plugin is, as a file: it exports only sy_plugin_init
// (nm -D), it needs no ROCm library to be opened (no DT_NEEDED on
// libamdhip64 or the HSA runtime: Note [HIP loaded at run time]), and it
// is never unmapped before exit (DF_1_NODELETE), which the forwarders in
// hip_library.cc rely on.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// The lines `command` prints; fails the test when it fails.
std::vector<std::string> OutputOf(const std::string& command) {
  std::vector<std::string> lines;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  EXPECT_NE(pipe, nullptr) << command;
  if (pipe == nullptr) return lines;
  char line[1024];
  while (std::fgets(line, sizeof line, pipe) != nullptr) lines.emplace_back(line);
  EXPECT_EQ(pclose(pipe), 0) << command;
  return lines;
}

TEST(RocmPluginFile, ExportsOnlySyPluginInit) {
  std::vector<std::string> symbols;
  const std::string command = std::string(SWITCHYARD_NM) +
                              " -D --defined-only " +
                              SWITCHYARD_ROCM_PLUGIN_PATH;
  for (const std::string& line : OutputOf(command)) {
    std::istringstream fields(line);
    std::string address, type, name;
    fields >> address >> type >> name;
    symbols.push_back(name.empty() ? line : name);
  }
  EXPECT_THAT(symbols, ElementsAre("sy_plugin_init"));
}

TEST(RocmPluginFile, NeedsNoRocmLibraryAndStaysMapped) {
  std::string needed;
  bool nodelete = false;
  const std::string command =
      std::string(SWITCHYARD_OBJDUMP) + " -p " + SWITCHYARD_ROCM_PLUGIN_PATH;
  for (const std::string& line : OutputOf(command)) {
    std::istringstream fields(line);
    std::string key, value;
    fields >> key >> value;
    if (key == "NEEDED") needed += value + " ";
    // DF_1_NODELETE is bit 0x8 of FLAGS_1.
    if (key == "FLAGS_1") nodelete = (std::stoull(value, nullptr, 16) & 0x8) != 0;
  }
  EXPECT_THAT(needed, HasSubstr("libc.so"));
  EXPECT_THAT(needed, Not(HasSubstr("amdhip64")));
  EXPECT_THAT(needed, Not(HasSubstr("hsa")));
  EXPECT_TRUE(nodelete) << "the plugin must be linked with -z nodelete";
}

}  // namespace
