#include "dispatcher/loading/elf_exports.h"

#include <elf.h>

#include <cstring>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace sy::core {
namespace {

// Boost.DLL's library_info reads .symtab, which `strip` removes and which
// still lists symbols a version script made local; the loader only ever
// sees .dynsym, so that is the table that decides what a plugin exports.

// Reads sizeof(T) bytes at `offset`; false when the file is shorter. Only
// the headers and the two tables are read: plugin libraries with debug
// information run to hundreds of MiB, and this runs on every load.
template <class T>
bool ReadAt(std::ifstream& in, uint64_t size, uint64_t offset, T* out) {
  if (offset > size || size - offset < sizeof(T)) return false;
  in.clear();
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(reinterpret_cast<char*>(out), sizeof(T));
  return static_cast<bool>(in);
}

absl::Status Malformed(const std::string& path, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(
      path, ": ", what, "; is this a shared library built for this machine?"));
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ExportedSymbols(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot open ", path,
                                            " to read its symbol table"));
  }
  const uint64_t size = static_cast<uint64_t>(in.tellg());
  Elf64_Ehdr header;
  if (!ReadAt(in, size, 0, &header) ||
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
    if (!ReadAt(in, size, header.e_shoff + uint64_t{i} * sizeof(Elf64_Shdr),
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
    if (strtab.sh_offset > size || size - strtab.sh_offset < strtab.sh_size) {
      return Malformed(path, "the dynamic string table runs past the end");
    }
    std::string strings(static_cast<size_t>(strtab.sh_size), '\0');
    in.clear();
    in.seekg(static_cast<std::streamoff>(strtab.sh_offset));
    in.read(strings.data(), static_cast<std::streamsize>(strings.size()));
    if (!in) return Malformed(path, "the dynamic string table cannot be read");
    const uint64_t count = section.sh_size / sizeof(Elf64_Sym);
    for (uint64_t i = 1; i < count; ++i) {  // entry 0 is always null
      Elf64_Sym sym;
      if (!ReadAt(in, size, section.sh_offset + i * sizeof(Elf64_Sym), &sym)) {
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
      if (sym.st_name >= strings.size()) {
        return Malformed(path, "a symbol name lies outside the string table");
      }
      const char* name = strings.data() + sym.st_name;
      names.emplace_back(name, strnlen(name, strings.size() - sym.st_name));
    }
  }
  return names;
}

}  // namespace sy::core
