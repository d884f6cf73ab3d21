// Hostile files (issue 14): broken, truncated, foreign or planted plugin
// files, each made at run time from a copy of a good plugin. Every one must
// end in its exact load record — never a crash, a hang or a load — while
// the cpu plugin beside it keeps computing.
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "dispatcher/loading/elf_exports.h"
#include "dispatcher/loading/manifest.h"
#include "dispatcher/loading/plugin_file.h"
#include "gtest/gtest.h"
#include "tests/dispatcher/test_util.h"

namespace sy::core {
namespace {

using ::sy::testing::ExpectCpuAddWorks;
using ::sy::testing::FindRecord;
using ::sy::testing::MakeRuntime;

namespace fs = std::filesystem;

constexpr char kGoodLibrary[] = "libswitchyard_test_good.so";

// A fresh folder under /tmp (mode 0755), removed at the end.
class Folder {
 public:
  explicit Folder(const std::string& tag, mode_t mode = 0755) {
    static std::atomic<int> counter{0};
    path_ = fs::temp_directory_path() /
            ("switchyard_files_" + tag + "_" + std::to_string(::getpid()) + "_" +
             std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
    ::chmod(path_.c_str(), mode);
  }
  ~Folder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string ManifestText(const std::string& name, const std::string& library) {
  return "{\"format_version\": 1, \"name\": \"" + name + "\", \"library\": \"" +
         library + "\", \"abi\": {\"major\": 1, \"minor\": 0}, \"device_types\": [\"cpu\"]}";
}

// test_good's manifest and library copied into `folder`.
std::string CopyGood(const Folder& folder) {
  const fs::path good = fs::path(SWITCHYARD_TEST_PLUGIN_DIR) / "test_good";
  fs::copy_file(good / "test_good.json", folder / "test_good.json");
  fs::copy_file(good / kGoodLibrary, folder / kGoodLibrary);
  return folder / "test_good.json";
}

// Loads cpu + `manifest` (in a thread, so a hang fails instead of blocking
// the suite), checks cpu still works, returns `name`'s record.
LoadRecord Record(const std::string& manifest, const std::string& name) {
  std::promise<LoadRecord> done;
  std::future<LoadRecord> result = done.get_future();
  std::thread([&done, manifest, name] {
    LoadRecord found;
    auto runtime = MakeRuntime({manifest});
    if (runtime != nullptr) {
      ExpectCpuAddWorks(*runtime);
      std::vector<LoadRecord> records = runtime->LoadRecords();
      if (const LoadRecord* r = FindRecord(records, name)) found = *r;
    }
    // Gone before the answer: once it is set, the test (and the process)
    // may end, and a runtime torn down then would race the plugins'
    // static destructors.
    runtime.reset();
    done.set_value(found);
  }).detach();
  if (result.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    ADD_FAILURE() << "loading " << manifest << " hangs";
    std::_Exit(1);  // the loading thread is stuck in the kernel
  }
  return result.get();
}

template <class T>
T ReadStruct(const std::string& path, uint64_t offset) {
  T value{};
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(reinterpret_cast<char*>(&value), sizeof value);
  return value;
}

template <class T>
void WriteStruct(const std::string& path, uint64_t offset, const T& value) {
  std::fstream out(path, std::ios::binary | std::ios::in | std::ios::out);
  out.seekp(static_cast<std::streamoff>(offset));
  out.write(reinterpret_cast<const char*>(&value), sizeof value);
}

// Issue 14, point 2: an interrupted copy. Section headers are at the end,
// so they are gone; the last PT_LOAD reaches past the end, which dlopen
// would map and then die of SIGBUS relocating.
TEST(HostileFilesTest, TruncatedLibraryIsRefusedBeforeDlopen) {
  Folder folder("truncated");
  const std::string manifest = CopyGood(folder);
  const std::string library = folder / kGoodLibrary;
  const auto header = ReadStruct<Elf64_Ehdr>(library, 0);
  uint64_t end = 0;
  int last = -1;
  for (int i = 0; i < header.e_phnum; ++i) {
    const auto ph = ReadStruct<Elf64_Phdr>(library, header.e_phoff + i * sizeof(Elf64_Phdr));
    if (ph.p_type == PT_LOAD) {
      end = ph.p_offset + ph.p_filesz;
      last = i;
    }
  }
  const uint64_t cut = (end - 1) & ~uint64_t{4095};  // its last page is gone
  ASSERT_EQ(::truncate(library.c_str(), static_cast<off_t>(cut)), 0);
  LoadRecord r = Record(manifest, "test_good");
  EXPECT_EQ(r.outcome, LoadOutcome::kFailed);
  EXPECT_EQ(r.stage, LoadStage::kOpen);
  EXPECT_EQ(r.reason.substr(0, r.reason.find(" spans")),
            "library " + library + " is truncated: its segment " + std::to_string(last) +
                " (PT_LOAD)");
  EXPECT_TRUE(r.reason.ends_with(", but the file has " + std::to_string(cut) +
                                 " bytes (an interrupted copy?); reinstall the plugin"))
      << r.reason;
}

// Point 3: dlopen does not need section headers, so zeroing them must not
// hide the extra exports (the reader follows PT_DYNAMIC, as ld.so does).
TEST(HostileFilesTest, ZeroedSectionHeadersDoNotHideExtraExports) {
  Folder folder("noshdr");
  const fs::path source = fs::path(HOSTILE_PLUGIN_DIR) / "extra_exports";
  const std::string library = folder / "libswitchyard_hostile_extra_exports.so";
  fs::copy_file(source / "libswitchyard_hostile_extra_exports.so", library);
  fs::copy_file(source / "hostile_extra_exports.json", folder / "hostile_extra_exports.json");
  auto header = ReadStruct<Elf64_Ehdr>(library, 0);
  header.e_shoff = 0;
  header.e_shnum = 0;
  header.e_shstrndx = 0;
  WriteStruct(library, 0, header);
  LoadRecord r = Record(folder / "hostile_extra_exports.json", "hostile_extra_exports");
  EXPECT_EQ(r.outcome, LoadOutcome::kFailed);
  EXPECT_EQ(r.stage, LoadStage::kSymbol);
  EXPECT_TRUE(r.reason.starts_with("library " + library + " exports "))
      << r.reason;
  EXPECT_NE(r.reason.find("hostile_counter, hostile_helper)"), std::string::npos) << r.reason;
}

// Point 10: a library for another machine said "No such file or directory".
TEST(HostileFilesTest, WrongArchitectureIsNamed) {
  Folder folder("arch");
  const std::string manifest = CopyGood(folder);
  const std::string library = folder / kGoodLibrary;
  auto header = ReadStruct<Elf64_Ehdr>(library, 0);
  header.e_machine = header.e_machine == EM_AARCH64 ? EM_X86_64 : EM_AARCH64;
  WriteStruct(library, 0, header);
  LoadRecord r = Record(manifest, "test_good");
  EXPECT_EQ(r.outcome, LoadOutcome::kFailed);
  EXPECT_EQ(r.stage, LoadStage::kOpen);
#if defined(__x86_64__)
  EXPECT_EQ(r.reason, "library " + library +
                          " was built for AArch64 (ELF machine 183), but this "
                          "machine runs x86-64; install the plugin's build for x86-64");
#endif
}

TEST(HostileFilesTest, NotAnElfFile) {
  Folder folder("notelf");
  const std::string manifest = CopyGood(folder);
  const std::string library = folder / kGoodLibrary;
  WriteFile(library, std::string(200, 'x'));
  LoadRecord r = Record(manifest, "test_good");
  EXPECT_EQ(r.stage, LoadStage::kOpen);
  EXPECT_EQ(r.reason, "library " + library +
                          " is not a shared library this process can load: it is "
                          "not an ELF file; reinstall the plugin, or rebuild it for "
                          "this machine");
}

// Every parse failure is a refusal: a few malformed tables, each fatal.
TEST(HostileFilesTest, MalformedTablesFailClosed) {
  struct Mutation {
    const char* what;
    void (*apply)(const std::string& library);
    const char* expected;  // part of the reason
  };
  const Mutation mutations[] = {
      {"no program headers",
       [](const std::string& lib) {
         auto h = ReadStruct<Elf64_Ehdr>(lib, 0);
         h.e_phnum = 0;
         WriteStruct(lib, 0, h);
       },
       "its program header table (0 entries of 56 bytes) is malformed"},
      {"program headers past the end",
       [](const std::string& lib) {
         auto h = ReadStruct<Elf64_Ehdr>(lib, 0);
         h.e_phoff = 1ull << 40;
         WriteStruct(lib, 0, h);
       },
       "runs past the end of the file"},
      {"no dynamic section",
       [](const std::string& lib) {
         auto h = ReadStruct<Elf64_Ehdr>(lib, 0);
         for (int i = 0; i < h.e_phnum; ++i) {
           const uint64_t at = h.e_phoff + i * sizeof(Elf64_Phdr);
           auto ph = ReadStruct<Elf64_Phdr>(lib, at);
           if (ph.p_type == PT_DYNAMIC) {
             ph.p_type = PT_NULL;
             WriteStruct(lib, at, ph);
           }
         }
       },
       "it has 0 dynamic sections (PT_DYNAMIC)"},
      {"dynamic section outside the loaded data",
       [](const std::string& lib) {
         auto h = ReadStruct<Elf64_Ehdr>(lib, 0);
         for (int i = 0; i < h.e_phnum; ++i) {
           const uint64_t at = h.e_phoff + i * sizeof(Elf64_Phdr);
           auto ph = ReadStruct<Elf64_Phdr>(lib, at);
           if (ph.p_type == PT_DYNAMIC) {
             ph.p_vaddr += 1ull << 32;
             WriteStruct(lib, at, ph);
           }
         }
       },
       "its dynamic section"},
      {"an executable",
       [](const std::string& lib) {
         auto h = ReadStruct<Elf64_Ehdr>(lib, 0);
         h.e_type = ET_EXEC;
         WriteStruct(lib, 0, h);
       },
       "its ELF type is 2 (an executable), not a shared object (3)"},
  };
  for (const Mutation& m : mutations) {
    SCOPED_TRACE(m.what);
    Folder folder("malformed");
    const std::string manifest = CopyGood(folder);
    m.apply(folder / kGoodLibrary);
    LoadRecord r = Record(manifest, "test_good");
    EXPECT_EQ(r.outcome, LoadOutcome::kFailed);
    EXPECT_EQ(r.stage, LoadStage::kOpen);
    EXPECT_NE(r.reason.find(m.expected), std::string::npos) << r.reason;
  }
}

// Point 4: a FIFO named *.json used to hang discovery forever.
TEST(HostileFilesTest, FifoManifestIsRefusedWithoutReading) {
  Folder folder("fifo");
  const std::string fifo = folder / "planted.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  LoadRecord r = Record(folder.path().string(), "planted");
  EXPECT_EQ(r.outcome, LoadOutcome::kFailed);
  EXPECT_EQ(r.stage, LoadStage::kManifest);
  EXPECT_EQ(r.reason, "manifest " + fifo +
                          " is a FIFO (named pipe), not a regular file; it was not "
                          "read (reading a FIFO can block forever); remove it from "
                          "the plugin folder");
}

// Point 10: a folder or FIFO as the library "did not exist".
TEST(HostileFilesTest, LibraryThatIsNotARegularFileIsNamedForWhatItIs) {
  Folder folder("notregular");
  WriteFile(folder / "dir.json", ManifestText("dir", "libdir.so"));
  fs::create_directory(folder / "libdir.so");
  WriteFile(folder / "fifo.json", ManifestText("fifo", "libfifo.so"));
  ASSERT_EQ(::mkfifo((folder / "libfifo.so").c_str(), 0644), 0);

  LoadRecord dir = Record(folder / "dir.json", "dir");
  EXPECT_EQ(dir.stage, LoadStage::kOpen);
  EXPECT_EQ(dir.reason, "library " + (folder / "libdir.so") +
                            " is a folder, not a regular file; it was not read; fix "
                            "\"library\" in the manifest or reinstall the plugin");
  LoadRecord fifo = Record(folder / "fifo.json", "fifo");
  EXPECT_EQ(fifo.stage, LoadStage::kOpen);
  EXPECT_EQ(fifo.reason, "library " + (folder / "libfifo.so") +
                             " is a FIFO (named pipe), not a regular file; it was "
                             "not read (reading a FIFO can block forever); fix "
                             "\"library\" in the manifest or reinstall the plugin");
}

// Point 5: the folder of a symlink's target is checked, not only the link's.
TEST(HostileFilesTest, SymlinkIntoAWorldWritableFolderIsRefused) {
  ::unsetenv("SWITCHYARD_ALLOW_INSECURE_PLUGIN_DIRS");
  Folder safe("safe");
  Folder open("open", 0777);
  ASSERT_EQ(::chmod(open.path().c_str(), 0777), 0);
  CopyGood(open);
  const std::string manifest = safe / "test_good.json";
  fs::copy_file(open / "test_good.json", manifest);
  fs::create_symlink(open / kGoodLibrary, safe / kGoodLibrary);
  const std::string refusal =
      open.path().string() + " is writable by every user (mode 0777), so anyone on "
      "this machine could replace the plugin's code; make it writable by its owner "
      "only (chmod o-w '" + open.path().string() + "'), or set "
      "SWITCHYARD_ALLOW_INSECURE_PLUGIN_DIRS=1 to load it anyway";

  LoadRecord library = Record(manifest, "test_good");
  EXPECT_EQ(library.outcome, LoadOutcome::kFailed);
  EXPECT_EQ(library.stage, LoadStage::kPolicy);
  EXPECT_EQ(library.reason, refusal);

  // The manifest, the same way.
  Folder other("other");
  fs::create_symlink(open / "test_good.json", other / "test_good.json");
  LoadRecord linked = Record(other / "test_good.json", "test_good");
  EXPECT_EQ(linked.stage, LoadStage::kPolicy);
  EXPECT_EQ(linked.reason, refusal);

  // A link into a safe folder is fine.
  Folder target("target");
  CopyGood(target);
  Folder links("links");
  fs::create_symlink(target / "test_good.json", links / "test_good.json");
  LoadRecord good = Record(links / "test_good.json", "test_good");
  EXPECT_EQ(good.outcome, LoadOutcome::kLoaded) << good.reason;
}

TEST(HostileFilesTest, SymlinkLoopIsRefused) {
  Folder folder("loop");
  fs::create_symlink(folder / "b.json", folder / "a.json");
  fs::create_symlink(folder / "a.json", folder / "b.json");
  LoadRecord r = Record(folder.path().string(), "a");
  EXPECT_EQ(r.stage, LoadStage::kManifest);
  EXPECT_EQ(r.reason, "manifest " + (folder / "a.json") +
                          " cannot be opened: more than 40 symbolic links on its "
                          "path (a loop?)");
}

// Point 4's other half: in a sticky world-writable folder (/tmp) anyone may
// add files; one that another user planted is refused.
TEST(HostileFilesTest, FilePlantedByAnotherUserInAStickyFolderIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a file to another user";
  Folder sticky("sticky", 01777);
  ASSERT_EQ(::chmod(sticky.path().c_str(), 01777), 0);
  const std::string manifest = CopyGood(sticky);
  constexpr uid_t kStranger = 4242;
  ASSERT_EQ(::chown(manifest.c_str(), kStranger, kStranger), 0);
  LoadRecord r = Record(manifest, "test_good");
  EXPECT_EQ(r.outcome, LoadOutcome::kFailed);
  EXPECT_EQ(r.stage, LoadStage::kPolicy);
  EXPECT_EQ(r.reason, manifest + " belongs to user 4242, not to you (user 0) or root, "
                      "and lies in " + sticky.path().string() + ", where every user "
                      "may add files (mode 1777), so anyone on this machine could "
                      "have planted it; keep plugins in a folder only you can "
                      "write, or set SWITCHYARD_ALLOW_INSECURE_PLUGIN_DIRS=1 to load "
                      "it anyway");
  // Our own files there load (as the corpus's copies in /tmp do).
  ASSERT_EQ(::chown(manifest.c_str(), 0, 0), 0);
  EXPECT_EQ(Record(manifest, "test_good").outcome, LoadOutcome::kLoaded);
}

// "Opened once": what is hashed and ELF-checked is the descriptor's file,
// even if the path is swapped afterwards.
TEST(HostileFilesTest, ChecksReadTheDescriptorNotThePath) {
  Folder folder("swap");
  CopyGood(folder);
  const std::string library = folder / kGoodLibrary;
  absl::StatusOr<PluginFile> file = PluginFile::Open(library, PluginFileKind::kLibrary);
  ASSERT_TRUE(file.ok()) << file.status();
  // Replace the file at the path with garbage: the open file is the old one.
  fs::remove(library);
  WriteFile(library, "not a library");
  absl::StatusOr<ElfDynamicInfo> info = ReadElfDynamicInfo(*file);
  ASSERT_TRUE(info.ok()) << info.status();
  bool has_entry = false;
  for (const ElfExport& e : info->exports) has_entry |= e.name == "sy_plugin_init";
  EXPECT_TRUE(has_entry);
}

TEST(HostileFilesTest, ManifestsAreBounded) {
  Folder folder("big");
  WriteFile(folder / "big.json", std::string((1 << 20) + 1, ' '));
  absl::StatusOr<Manifest> big = ReadManifest(folder / "big.json");
  EXPECT_EQ(big.status().message(),
            "manifest " + (folder / "big.json") +
                " is larger than 1 MiB; a manifest is a small JSON file — check the path");
}

}  // namespace
}  // namespace sy::core
