// The symbols a shared library exports, read from its ELF dynamic symbol
// table (.dynsym) — what the dynamic linker can resolve, so what `nm -D
// --defined-only` shows. Reading the file itself (not dlopen/dlsym) sees
// every export, including ones a loader would never ask for, and works on a
// stripped library, which has no .symtab.
#ifndef SWITCHYARD_DISPATCHER_LOADING_ELF_EXPORTS_H_
#define SWITCHYARD_DISPATCHER_LOADING_ELF_EXPORTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace sy::core {

// Names of the defined, globally visible (GLOBAL, WEAK or GNU_UNIQUE
// binding; default or protected visibility) symbols of the 64-bit ELF file
// at `path`, in table order. Version-definition entries and undefined
// (imported) symbols are left out.
// Errors: NotFound if the file cannot be opened; InvalidArgument naming the
// file and the problem if it is not a 64-bit little-endian ELF file or its
// tables are out of bounds.
absl::StatusOr<std::vector<std::string>> ExportedSymbols(const std::string& path);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_LOADING_ELF_EXPORTS_H_
