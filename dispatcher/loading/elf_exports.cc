#include "dispatcher/loading/elf_exports.h"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace sy::core {
namespace {

// Note [Reading a library as ld.so does]: the export check used to read
// .dynsym through the section headers, and counted a file it could not
// parse as passing. dlopen needs neither: it maps the PT_LOAD segments and
// finds the symbol table, string table and hash table through PT_DYNAMIC.
// So a library whose section headers were zeroed exported whatever it
// liked, and one truncated by an interrupted copy (section headers past the
// end) went on to dlopen, which mapped segments past the end of the file
// and died of SIGBUS relocating them. Here every table is located through
// the segments, every range is checked against the file before it is read,
// the tables dlopen consults at lookup time must lie in a read-only
// segment (so no relocation can rewrite them after this check), and any
// surprise is a refusal.

#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64;
#elif defined(__powerpc64__)
constexpr uint16_t kHostMachine = EM_PPC64;
#elif defined(__riscv)
constexpr uint16_t kHostMachine = EM_RISCV;
#else
constexpr uint16_t kHostMachine = EM_NONE;  // not checked
#endif

// Generous bounds: a plugin's dynamic tables list its exports (one) and
// imports (hundreds to a few thousand).
constexpr uint64_t kMaxTableBytes = uint64_t{64} << 20;
constexpr uint64_t kMaxSymbols = uint64_t{1} << 20;
constexpr uint16_t kMaxProgramHeaders = 4096;

std::string MachineName(uint16_t machine) {
  switch (machine) {
    case EM_386: return "32-bit x86";
    case EM_X86_64: return "x86-64";
    case EM_ARM: return "32-bit ARM";
    case EM_AARCH64: return "AArch64";
    case EM_PPC64: return "POWER (ppc64)";
    case EM_RISCV: return "RISC-V";
    case EM_S390: return "s390x";
  }
  return absl::StrCat("machine type ", machine);
}

// Adds with overflow checking: false when a + b does not fit.
bool Add(uint64_t a, uint64_t b, uint64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}

class ElfReader {
 public:
  explicit ElfReader(const PluginFile& file) : file_(file) {}

  absl::StatusOr<ElfDynamicInfo> Read() {
    if (absl::Status s = ReadHeader(); !s.ok()) return s;
    if (absl::Status s = ReadProgramHeaders(); !s.ok()) return s;
    if (absl::Status s = ReadDynamic(); !s.ok()) return s;
    absl::StatusOr<uint64_t> count = SymbolCount();
    if (!count.ok()) return count.status();
    if (absl::Status s = ReadSymbols(*count); !s.ok()) return s;
    return std::move(info_);
  }

 private:
  // "library P is not a shared library dlopen can load: <what>; …"
  absl::Status Malformed(const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat(
        "library ", file_.path(), " is not a shared library this process can "
        "load: ", what, "; reinstall the plugin, or rebuild it for this machine"));
  }

  absl::Status Read(uint64_t offset, void* out, uint64_t size) const {
    uint64_t end = 0;
    if (!Add(offset, size, &end) || end > file_.size()) {
      return Malformed(absl::StrCat("a table at byte ", offset,
                                    " runs past the end of the file"));
    }
    absl::Status s = file_.ReadAt(offset, out, static_cast<size_t>(size));
    return s.ok() ? s : Malformed(std::string(s.message()));
  }

  absl::Status ReadHeader() {
    if (file_.size() < sizeof(Elf64_Ehdr)) {
      return Malformed(absl::StrCat("it is ", file_.size(),
                                    " bytes long, too short to be an ELF file"));
    }
    if (absl::Status s = Read(0, &header_, sizeof header_); !s.ok()) return s;
    if (std::memcmp(header_.e_ident, ELFMAG, SELFMAG) != 0) {
      return Malformed("it is not an ELF file");
    }
    if (header_.e_ident[EI_CLASS] != ELFCLASS64) {
      return Malformed(absl::StrCat(
          "it is a ", header_.e_ident[EI_CLASS] == ELFCLASS32 ? "32-bit" : "unknown-class",
          " ELF file; this process is 64-bit"));
    }
    if (header_.e_ident[EI_DATA] != ELFDATA2LSB) {
      return Malformed("it is a big-endian ELF file; this machine is little-endian");
    }
    if (header_.e_ident[EI_VERSION] != EV_CURRENT || header_.e_version != EV_CURRENT) {
      return Malformed("its ELF version is not 1");
    }
    if (kHostMachine != EM_NONE && header_.e_machine != kHostMachine) {
      return absl::FailedPreconditionError(absl::StrCat(
          "library ", file_.path(), " was built for ", MachineName(header_.e_machine),
          " (ELF machine ", header_.e_machine, "), but this machine runs ",
          MachineName(kHostMachine), "; install the plugin's build for ",
          MachineName(kHostMachine)));
    }
    if (header_.e_type != ET_DYN) {
      return Malformed(absl::StrCat(
          "its ELF type is ", header_.e_type,
          header_.e_type == ET_EXEC ? " (an executable)"
          : header_.e_type == ET_REL ? " (an object file, not yet linked)"
                                     : "",
          ", not a shared object (3)"));
    }
    if (header_.e_phentsize != sizeof(Elf64_Phdr) || header_.e_phnum == 0 ||
        header_.e_phnum > kMaxProgramHeaders) {
      return Malformed(absl::StrCat("its program header table (", header_.e_phnum,
                                    " entries of ", header_.e_phentsize,
                                    " bytes) is malformed"));
    }
    return absl::OkStatus();
  }

  absl::Status ReadProgramHeaders() {
    std::vector<Elf64_Phdr> headers(header_.e_phnum);
    if (absl::Status s = Read(header_.e_phoff, headers.data(),
                              uint64_t{header_.e_phnum} * sizeof(Elf64_Phdr));
        !s.ok()) {
      return s;
    }
    int dynamic_count = 0;
    for (size_t i = 0; i < headers.size(); ++i) {
      const Elf64_Phdr& ph = headers[i];
      uint64_t file_end = 0;
      if (!Add(ph.p_offset, ph.p_filesz, &file_end)) {
        return Malformed(absl::StrCat("segment ", i, " has an impossible file range"));
      }
      // The check that keeps a truncated file out of dlopen: every byte a
      // segment says the file holds must be there.
      if (ph.p_filesz > 0 && file_end > file_.size()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "library ", file_.path(), " is truncated: its segment ", i, " (",
            ph.p_type == PT_LOAD ? "PT_LOAD" : "type " + std::to_string(ph.p_type),
            ") spans bytes ", ph.p_offset, " to ", file_end, ", but the file has ",
            file_.size(), " bytes (an interrupted copy?); reinstall the plugin"));
      }
      if (ph.p_type == PT_LOAD) {
        uint64_t memory_end = 0;
        if (ph.p_filesz > ph.p_memsz || !Add(ph.p_vaddr, ph.p_memsz, &memory_end)) {
          return Malformed(absl::StrCat("loadable segment ", i, " has sizes that "
                                        "do not fit (file ", ph.p_filesz,
                                        ", memory ", ph.p_memsz, ")"));
        }
        if (!loads_.empty() && ph.p_vaddr < loads_.back().p_vaddr) {
          return Malformed("its loadable segments are not in address order");
        }
        loads_.push_back(ph);
      } else if (ph.p_type == PT_DYNAMIC) {
        dynamic_ = ph;
        ++dynamic_count;
      }
    }
    if (loads_.empty()) return Malformed("it has no loadable segment");
    if (dynamic_count != 1) {
      return Malformed(absl::StrCat("it has ", dynamic_count,
                                    " dynamic sections (PT_DYNAMIC); a shared "
                                    "library has exactly one"));
    }
    return absl::OkStatus();
  }

  // The file offset of `size` bytes at address `vaddr`, which must lie in
  // the file-backed part of one loadable segment (read-only when
  // `read_only`, for tables the loader reads after relocation).
  absl::StatusOr<uint64_t> Locate(uint64_t vaddr, uint64_t size, const char* what,
                                  bool read_only) const {
    for (const Elf64_Phdr& load : loads_) {
      if (vaddr < load.p_vaddr) continue;
      const uint64_t into = vaddr - load.p_vaddr;
      if (into > load.p_filesz || load.p_filesz - into < size) continue;
      if (read_only && (load.p_flags & PF_W) != 0) {
        return Malformed(absl::StrCat("its ", what, " lies in a writable segment"));
      }
      return load.p_offset + into;
    }
    return Malformed(absl::StrCat("its ", what, " (", size, " bytes at address ",
                                  vaddr, ") lies outside the file's loadable data"));
  }

  // The bytes [offset, offset + size) of the string table as a name.
  absl::StatusOr<std::string> String(uint64_t offset, const char* what) const {
    if (offset >= strings_.size()) {
      return Malformed(absl::StrCat("a ", what, " lies outside the string table"));
    }
    const char* begin = strings_.data() + offset;
    const void* nul = std::memchr(begin, '\0', strings_.size() - offset);
    if (nul == nullptr) {
      return Malformed(absl::StrCat("a ", what, " in the string table is not ended"));
    }
    return std::string(begin, static_cast<const char*>(nul));
  }

  absl::Status ReadDynamic() {
    const uint64_t count = dynamic_.p_filesz / sizeof(Elf64_Dyn);
    absl::StatusOr<uint64_t> offset =
        Locate(dynamic_.p_vaddr, count * sizeof(Elf64_Dyn), "dynamic section", false);
    if (!offset.ok()) return offset.status();
    std::vector<Elf64_Dyn> entries(count);
    if (absl::Status s = Read(*offset, entries.data(), count * sizeof(Elf64_Dyn));
        !s.ok()) {
      return s;
    }
    std::optional<uint64_t> strtab, strsz, symtab, hash, gnu_hash, runpath, rpath;
    std::vector<uint64_t> needed;
    bool ended = false;
    for (const Elf64_Dyn& d : entries) {
      if (d.d_tag == DT_NULL) {
        ended = true;
        break;
      }
      const uint64_t v = d.d_un.d_val;
      switch (d.d_tag) {
        case DT_STRTAB: strtab = v; break;
        case DT_STRSZ: strsz = v; break;
        case DT_SYMTAB: symtab = v; break;
        case DT_HASH: hash = v; break;
        case DT_GNU_HASH: gnu_hash = v; break;
        case DT_NEEDED: needed.push_back(v); break;
        case DT_RUNPATH: runpath = v; break;
        case DT_RPATH: rpath = v; break;
        case DT_SYMENT:
          if (v != sizeof(Elf64_Sym)) {
            return Malformed(absl::StrCat("its symbol entries are ", v,
                                          " bytes, not ", sizeof(Elf64_Sym)));
          }
          break;
        case DT_TEXTREL:
          return Malformed("it has text relocations (DT_TEXTREL), which rewrite "
                           "its code at load time; rebuild it with -fPIC");
        case DT_FLAGS:
          if ((v & DF_TEXTREL) != 0) {
            return Malformed("it has text relocations (DF_TEXTREL), which rewrite "
                             "its code at load time; rebuild it with -fPIC");
          }
          break;
        default: break;
      }
    }
    if (!ended) return Malformed("its dynamic section has no DT_NULL end");
    if (!strtab || !strsz || !symtab || (!hash && !gnu_hash)) {
      return Malformed("it has no dynamic symbol table (DT_SYMTAB, DT_STRTAB, "
                       "DT_STRSZ and a hash table), so the dynamic loader could "
                       "find no sy_plugin_init in it");
    }
    if (*strsz > kMaxTableBytes) {
      return Malformed(absl::StrCat("its dynamic string table claims ", *strsz, " bytes"));
    }
    absl::StatusOr<uint64_t> strings_at =
        Locate(*strtab, *strsz, "dynamic string table", true);
    if (!strings_at.ok()) return strings_at.status();
    strings_.resize(static_cast<size_t>(*strsz));
    if (absl::Status s = Read(*strings_at, strings_.data(), *strsz); !s.ok()) return s;
    for (uint64_t name : needed) {
      absl::StatusOr<std::string> text = String(name, "DT_NEEDED name");
      if (!text.ok()) return text.status();
      info_.needed.push_back(*std::move(text));
    }
    if (runpath || rpath) {
      absl::StatusOr<std::string> text =
          String(runpath ? *runpath : *rpath, "DT_RUNPATH/DT_RPATH entry");
      if (!text.ok()) return text.status();
      for (absl::string_view dir : absl::StrSplit(*text, ':', absl::SkipEmpty())) {
        info_.search_path.emplace_back(dir);
      }
    }
    symtab_ = *symtab;
    hash_ = hash;
    gnu_hash_ = gnu_hash;
    return absl::OkStatus();
  }

  // Symbols reachable through DT_HASH: nchain, once every bucket and chain
  // is checked to stay in the table and to end (a cycle would hang every
  // later symbol lookup in ld.so).
  absl::StatusOr<uint64_t> SysvHashCount(uint64_t table) const {
    absl::StatusOr<uint64_t> at = Locate(table, 8, "hash table (DT_HASH)", true);
    if (!at.ok()) return at.status();
    uint32_t sizes[2];
    if (absl::Status s = Read(*at, sizes, sizeof sizes); !s.ok()) return s;
    const uint64_t nbucket = sizes[0], nchain = sizes[1];
    if (nbucket == 0 || nchain > kMaxSymbols || nbucket > kMaxSymbols) {
      return Malformed(absl::StrCat("its hash table (DT_HASH) has ", nbucket,
                                    " buckets and ", nchain, " chains"));
    }
    const uint64_t bytes = 8 + 4 * (nbucket + nchain);
    at = Locate(table, bytes, "hash table (DT_HASH)", true);
    if (!at.ok()) return at.status();
    std::vector<uint32_t> words(nbucket + nchain);
    if (absl::Status s = Read(*at + 8, words.data(), bytes - 8); !s.ok()) return s;
    const uint32_t* chain = words.data() + nbucket;
    // 0 unvisited, 1 on the walk in progress, 2 known to end.
    std::vector<uint8_t> state(nchain, 0);
    for (uint64_t b = 0; b < nbucket; ++b) {
      std::vector<uint32_t> walk;
      for (uint32_t i = words[b]; i != STN_UNDEF; i = chain[i]) {
        if (i >= nchain) return Malformed("its hash table (DT_HASH) points past its chains");
        if (state[i] == 2) break;
        if (state[i] == 1) return Malformed("its hash table (DT_HASH) has a cycle");
        state[i] = 1;
        walk.push_back(i);
      }
      for (uint32_t i : walk) state[i] = 2;
    }
    return nchain;
  }

  // Symbols reachable through DT_GNU_HASH: one past the end of the chain of
  // the highest bucket (the symoffset when every bucket is empty).
  absl::StatusOr<uint64_t> GnuHashCount(uint64_t table) const {
    absl::StatusOr<uint64_t> at = Locate(table, 16, "hash table (DT_GNU_HASH)", true);
    if (!at.ok()) return at.status();
    uint32_t head[4];  // nbuckets, symoffset, bloom words, bloom shift
    if (absl::Status s = Read(*at, head, sizeof head); !s.ok()) return s;
    const uint64_t nbuckets = head[0], symoffset = head[1], bloom = head[2];
    // ld.so divides by nbuckets and masks with bloom - 1 (asserting a
    // power of two): anything else would crash it at the first lookup.
    if (nbuckets == 0 || nbuckets > kMaxSymbols || symoffset > kMaxSymbols ||
        bloom == 0 || (bloom & (bloom - 1)) != 0 || bloom > kMaxSymbols) {
      return Malformed(absl::StrCat("its hash table (DT_GNU_HASH) is malformed (",
                                    nbuckets, " buckets, ", bloom, " bloom words)"));
    }
    const uint64_t buckets_at = table + 16 + 8 * bloom;
    absl::StatusOr<uint64_t> buckets_offset =
        Locate(buckets_at, 4 * nbuckets, "hash table (DT_GNU_HASH)", true);
    if (!buckets_offset.ok()) return buckets_offset.status();
    std::vector<uint32_t> buckets(nbuckets);
    if (absl::Status s = Read(*buckets_offset, buckets.data(), 4 * nbuckets); !s.ok()) {
      return s;
    }
    uint64_t highest = 0;
    for (uint32_t b : buckets) {
      if (b != 0 && b < symoffset) {
        return Malformed("its hash table (DT_GNU_HASH) has a bucket below its symoffset");
      }
      highest = std::max<uint64_t>(highest, b);
    }
    if (highest == 0) return symoffset;
    // Walk the highest bucket's chain to its end marker (bit 0 set).
    const uint64_t chains_at = buckets_at + 4 * nbuckets;
    for (uint64_t index = highest; index < kMaxSymbols; ++index) {
      absl::StatusOr<uint64_t> entry = Locate(chains_at + 4 * (index - symoffset), 4,
                                              "hash table (DT_GNU_HASH)", true);
      if (!entry.ok()) return entry.status();
      uint32_t value = 0;
      if (absl::Status s = Read(*entry, &value, 4); !s.ok()) return s;
      if ((value & 1) != 0) return index + 1;
    }
    return Malformed("its hash table (DT_GNU_HASH) has an unended chain");
  }

  absl::StatusOr<uint64_t> SymbolCount() const {
    uint64_t count = 0;
    if (hash_) {
      absl::StatusOr<uint64_t> n = SysvHashCount(*hash_);
      if (!n.ok()) return n.status();
      count = std::max(count, *n);
    }
    if (gnu_hash_) {
      absl::StatusOr<uint64_t> n = GnuHashCount(*gnu_hash_);
      if (!n.ok()) return n.status();
      count = std::max(count, *n);
    }
    return count;
  }

  absl::Status ReadSymbols(uint64_t count) {
    if (count == 0) return absl::OkStatus();
    absl::StatusOr<uint64_t> at =
        Locate(symtab_, count * sizeof(Elf64_Sym), "dynamic symbol table", true);
    if (!at.ok()) return at.status();
    std::vector<Elf64_Sym> symbols(count);
    if (absl::Status s = Read(*at, symbols.data(), count * sizeof(Elf64_Sym)); !s.ok()) {
      return s;
    }
    for (uint64_t i = 1; i < count; ++i) {  // entry 0 is always null
      const Elf64_Sym& sym = symbols[i];
      const unsigned bind = ELF64_ST_BIND(sym.st_info);
      const unsigned visibility = ELF64_ST_VISIBILITY(sym.st_other);
      if (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE) continue;
      if (visibility != STV_DEFAULT && visibility != STV_PROTECTED) continue;
      if (sym.st_shndx == SHN_UNDEF) continue;  // imported, not exported
      // Version definitions ("VERS_1.0") are absolute, untyped markers.
      if (sym.st_shndx == SHN_ABS && ELF64_ST_TYPE(sym.st_info) == STT_OBJECT &&
          sym.st_value == 0 && sym.st_size == 0) {
        continue;
      }
      absl::StatusOr<std::string> name = String(sym.st_name, "symbol name");
      if (!name.ok()) return name.status();
      info_.exports.push_back(
          {*std::move(name), static_cast<unsigned>(ELF64_ST_TYPE(sym.st_info))});
    }
    return absl::OkStatus();
  }

  const PluginFile& file_;
  Elf64_Ehdr header_{};
  std::vector<Elf64_Phdr> loads_;
  Elf64_Phdr dynamic_{};
  std::string strings_;
  uint64_t symtab_ = 0;
  std::optional<uint64_t> hash_, gnu_hash_;
  ElfDynamicInfo info_;
};

}  // namespace

absl::StatusOr<ElfDynamicInfo> ReadElfDynamicInfo(const PluginFile& file) {
  return ElfReader(file).Read();
}

absl::StatusOr<std::vector<std::string>> ExportedSymbols(const std::string& path) {
  absl::StatusOr<PluginFile> file = PluginFile::Open(path, PluginFileKind::kLibrary);
  if (!file.ok()) return file.status();
  absl::StatusOr<ElfDynamicInfo> info = ReadElfDynamicInfo(*file);
  if (!info.ok()) return info.status();
  std::vector<std::string> names;
  for (ElfExport& e : info->exports) names.push_back(std::move(e.name));
  return names;
}

}  // namespace sy::core
