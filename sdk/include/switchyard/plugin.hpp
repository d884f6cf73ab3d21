// Header-only C++20 helpers over the plugin ABI (plugin.h), namespace
// sy::plugin. Nothing here is part of the ABI: a plugin may use any of it or
// none, and it can change between SDK releases without breaking built plugins.
//
// What is here, one header per part (include this one):
//   - plugin/errors.hpp: the host table, kept once per plugin (SetHost /
//     Host); MakeError, StrCat, Guard (which stops C++ exceptions at an ABI
//     entry point), CheckHost (the version gate of sy_plugin_init),
//   - plugin/entry.hpp: InitPlugin, the whole body of sy_plugin_init; Log;
//     GetOption (plugin options, ABI 1.1),
//   - plugin/dtypes.hpp: Half and BFloat16 (storage types converting to
//     float), DtypeTraits / CType / kDtypeOf, DtypeName, DtypeSize,
//     StatusName,
//   - plugin/views.hpp: NumElements, IsContiguous, DataPtr, ShapeToString,
//     MemoryOrderedDims (an elementwise walk in the output's memory order),
//     ForEachStridedRun (the N-operand strided walker of elementwise kernels),
//   - plugin/kernels.hpp: KernelSpec and RegisterKernels (explicit, ordered
//     kernel lists); CheckCall, CheckView, CheckShape and attribute readers;
//     Decline, IsQuery and Workspace (ABI 1.1),
//   - plugin/device.hpp: DeviceChecks and LiveHandles, the argument checks
//     of device table slots,
//   - plugin/patterns.hpp: Pattern and PatternsExtension, the tables of
//     pattern kernels (ABI 1.1).
//
// Shared rules:
// - Every function is thread-safe unless it says otherwise; none keeps a
//   pointer to its arguments past the call.
// - Functions returning sy_error_t* return NULL on success, else a new error
//   that the caller owns (return it to the host, or host->error_destroy it).
// - Plugins must be built with hidden visibility (switchyard_add_plugin does
//   this): the host pointer below is an inline variable, and with default
//   visibility two plugins in one process would share one copy.
#ifndef SWITCHYARD_PLUGIN_HPP_
#define SWITCHYARD_PLUGIN_HPP_

#include "switchyard/plugin.h"
#include "switchyard/plugin/collectives.hpp"
#include "switchyard/plugin/device.hpp"
#include "switchyard/plugin/dtypes.hpp"
#include "switchyard/plugin/entry.hpp"
#include "switchyard/plugin/errors.hpp"
#include "switchyard/plugin/kernels.hpp"
#include "switchyard/plugin/patterns.hpp"
#include "switchyard/plugin/views.hpp"

#endif  // SWITCHYARD_PLUGIN_HPP_
