#include "sdk/conformance/tool/elf_exports.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"

namespace sy::conformance {

absl::StatusOr<std::vector<std::string>> ExportedSymbols(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(absl::StrCat("cannot open ", path, " to read its exports"));
  }
  absl::Cleanup close_fd = [fd] { close(fd); };
  if (elf_version(EV_CURRENT) == EV_NONE) {
    return absl::InternalError(absl::StrCat("libelf: ", elf_errmsg(-1)));
  }
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  if (elf == nullptr || elf_kind(elf) != ELF_K_ELF) {
    if (elf != nullptr) elf_end(elf);
    return absl::InvalidArgumentError(absl::StrCat(
        path, " is not an ELF file; pass a plugin library (libswitchyard_NAME.so) "
        "or its manifest"));
  }
  absl::Cleanup end_elf = [elf] { elf_end(elf); };
  std::vector<std::string> names;
  for (Elf_Scn* section = elf_nextscn(elf, nullptr); section != nullptr;
       section = elf_nextscn(elf, section)) {
    GElf_Shdr header;
    if (gelf_getshdr(section, &header) == nullptr || header.sh_type != SHT_DYNSYM) {
      continue;
    }
    Elf_Data* data = elf_getdata(section, nullptr);
    if (data == nullptr || header.sh_entsize == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": its dynamic symbol table cannot be read (", elf_errmsg(-1), ")"));
    }
    const size_t count = header.sh_size / header.sh_entsize;
    for (size_t i = 1; i < count; ++i) {  // entry 0 is the null symbol
      GElf_Sym symbol;
      if (gelf_getsym(data, static_cast<int>(i), &symbol) == nullptr) continue;
      const int binding = GELF_ST_BIND(symbol.st_info);
      const int visibility = GELF_ST_VISIBILITY(symbol.st_other);
      if (symbol.st_shndx == SHN_UNDEF) continue;
      if (binding != STB_GLOBAL && binding != STB_WEAK && binding != STB_GNU_UNIQUE) continue;
      if (visibility != STV_DEFAULT && visibility != STV_PROTECTED) continue;
      // Version definitions ("VERS_1.0") are absolute, untyped markers.
      if (symbol.st_shndx == SHN_ABS && GELF_ST_TYPE(symbol.st_info) == STT_OBJECT &&
          symbol.st_value == 0 && symbol.st_size == 0) {
        continue;
      }
      const char* name = elf_strptr(elf, header.sh_link, symbol.st_name);
      if (name == nullptr || *name == '\0') continue;
      names.emplace_back(name);
    }
  }
  return names;
}

}  // namespace sy::conformance
