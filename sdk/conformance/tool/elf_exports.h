// The symbols a plugin library exports, read from its ELF dynamic symbol
// table (.dynsym) with libelf — what the dynamic linker can resolve, so what
// `nm -D --defined-only` shows. Reading the file (not dlopen/dlsym) sees
// every export and works on a stripped library.
#ifndef SWITCHYARD_SDK_CONFORMANCE_TOOL_ELF_EXPORTS_H_
#define SWITCHYARD_SDK_CONFORMANCE_TOOL_ELF_EXPORTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace sy::conformance {

// Names of the defined, globally visible (GLOBAL, WEAK or GNU_UNIQUE
// binding; default or protected visibility) symbols of the ELF file at
// `path`, in table order; undefined (imported) symbols and the version
// definitions' entries are left out.
// Errors: NotFound if the file cannot be opened; InvalidArgument naming
// the file when it is not an ELF shared object libelf can read.
absl::StatusOr<std::vector<std::string>> ExportedSymbols(const std::string& path);

}  // namespace sy::conformance

#endif  // SWITCHYARD_SDK_CONFORMANCE_TOOL_ELF_EXPORTS_H_
