#include "dispatcher/elf_exports.h"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "absl/strings/str_cat.h"

namespace sy {
namespace {

// Boost.DLL's library_info reads .symtab, which `strip` removes and which
// still lists symbols a version script made local; the loader only ever
// sees .dynsym, so that is the table that decides what a plugin exports.

template <class T>
bool ReadAt(const std::string& bytes, uint64_t offset, T* out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(out, bytes.data() + offset, sizeof(T));
  return true;
}

absl::Status Malformed(const std::string& path, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(
      path, ": ", what, "; is this a shared library built for this machine?"));
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ExportedSymbols(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot open ", path,
                                            " to read its symbol table"));
  }
  const std::string bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  Elf64_Ehdr header;
  if (!ReadAt(bytes, 0, &header) ||
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) {
    return Malformed(path, "not an ELF file");
  }
  if (header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_ident[EI_DATA] != ELFDATA2LSB) {
    return Malformed(path, "not a 64-bit little-endian ELF file");
  }
  if (header.e_shentsize != sizeof(Elf64_Shdr)) {
    return Malformed(path, "unexpected section header size");
  }
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  for (uint16_t i = 0; i < header.e_shnum; ++i) {
    if (!ReadAt(bytes, header.e_shoff + uint64_t{i} * sizeof(Elf64_Shdr),
                &sections[i])) {
      return Malformed(path, "section headers run past the end of the file");
    }
  }
  std::vector<std::string> names;
  for (const Elf64_Shdr& section : sections) {
    if (section.sh_type != SHT_DYNSYM) continue;
    if (section.sh_link >= sections.size() ||
        section.sh_entsize != sizeof(Elf64_Sym)) {
      return Malformed(path, ".dynsym has a bad string table link or entry size");
    }
    const Elf64_Shdr& strtab = sections[section.sh_link];
    if (strtab.sh_offset > bytes.size() ||
        bytes.size() - strtab.sh_offset < strtab.sh_size) {
      return Malformed(path, "the dynamic string table runs past the end");
    }
    const uint64_t count = section.sh_size / sizeof(Elf64_Sym);
    for (uint64_t i = 1; i < count; ++i) {  // entry 0 is always null
      Elf64_Sym sym;
      if (!ReadAt(bytes, section.sh_offset + i * sizeof(Elf64_Sym), &sym)) {
        return Malformed(path, ".dynsym runs past the end of the file");
      }
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
      if (sym.st_name >= strtab.sh_size) {
        return Malformed(path, "a symbol name lies outside the string table");
      }
      const char* name = bytes.data() + strtab.sh_offset + sym.st_name;
      const size_t max_len = strtab.sh_size - sym.st_name;
      names.emplace_back(name, strnlen(name, max_len));
    }
  }
  return names;
}

}  // namespace sy
