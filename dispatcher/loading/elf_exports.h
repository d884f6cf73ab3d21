// What the dynamic loader will see of a shared library, read from the file
// before it is opened: its program headers (checked against the file's
// size, so a truncated file is refused instead of killing the process with
// SIGBUS inside dlopen), its dynamic section, and the symbols it exports.
//
// Everything is read the way ld.so reads it — through PT_LOAD segments and
// the PT_DYNAMIC table, never through section headers, which dlopen ignores
// and which can be zeroed or forged — and every failure to parse is an
// error: a file this reader cannot follow is not loaded (fails closed).
#ifndef SWITCHYARD_DISPATCHER_LOADING_ELF_EXPORTS_H_
#define SWITCHYARD_DISPATCHER_LOADING_ELF_EXPORTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "dispatcher/loading/plugin_file.h"

namespace sy::core {

struct ElfExport {
  std::string name;
  unsigned type = 0;  // STT_FUNC, STT_OBJECT, …
};

struct ElfDynamicInfo {
  // Defined, globally visible symbols (GLOBAL, WEAK or GNU_UNIQUE binding;
  // default or protected visibility) of every symbol the hash tables reach,
  // in table order — what `nm -D --defined-only` lists. Version-definition
  // markers are left out.
  std::vector<ElfExport> exports;
  std::vector<std::string> needed;  // DT_NEEDED, in order
  // DT_RUNPATH's entries (or DT_RPATH's when there is no DT_RUNPATH), split
  // on ':', as written ("$ORIGIN/../lib").
  std::vector<std::string> search_path;
};

// Reads and validates the 64-bit ELF shared library `file` for this
// machine. InvalidArgument naming the file and the fault when it is not an
// ELF file, is built for another machine, class or byte order, is not a
// shared library, is truncated (a segment reaches past the end of the
// file), has malformed program headers or dynamic section, or keeps its
// symbol tables outside a read-only loaded segment.
absl::StatusOr<ElfDynamicInfo> ReadElfDynamicInfo(const PluginFile& file);

// The exported names of the library at `path` (opened as a PluginFile):
// ReadElfDynamicInfo's exports. Errors: those of PluginFile::Open and
// ReadElfDynamicInfo.
absl::StatusOr<std::vector<std::string>> ExportedSymbols(const std::string& path);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_LOADING_ELF_EXPORTS_H_
