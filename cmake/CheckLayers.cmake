# The layer diagram (docs/architecture.md) as a build fact: every
# `#include "…"` in the tree must point at a layer its own folder may use.
# Run as a script by the switchyard_check_layers target (in ALL, so every
# build checks it):
#
#   cmake -DSOURCE_DIR=<repository> -P cmake/CheckLayers.cmake
#
# A forbidden include fails the build with the file, the line, the include,
# the layers involved and what the folder may use instead.
#
# Layers, by folder (first match wins):
#   sdk/include      the plugin ABI headers          sdk/conformance  the kit
#   sdk              the rest of the SDK (gpu/, template/)
#   plugins/<name>   one backend each
#   dispatcher/<part> base ops memory registry collectives loading dispatch
#                     runtime trace
#   autotune  fusion  api/include  api  tools  tests
#   (tools/ sees only the public headers; the benchmark of the core's own
#   C++ path lives in tests/dispatcher/bench)
#
# An include is resolved as the compilers do for this tree: a path that
# starts with a top-level folder of the repository is root-relative;
# "switchyard/…" is sdk/include or api/include, whichever holds the file;
# otherwise a file that exists next to the including one (or below it) is
# its own layer; anything else is a third-party header (Abseil, GoogleTest,
# …) and not checked.
#
# The files scanned are what is in the tree, whatever the targets say: in a
# git checkout `git ls-files` (tracked files and new ones not ignored, so a
# file not yet added is checked too, and build folders or editor droppings
# never are). A tree without git (an exported source tarball) is not
# checked: the check is a guard for those who change the code, who work in
# a checkout, and the house rule keeps globbed source lists out of the build.
cmake_minimum_required(VERSION 3.25)

if(NOT SOURCE_DIR)
  message(FATAL_ERROR "CheckLayers.cmake: pass -DSOURCE_DIR=<repository root>")
endif()

set(dispatcher_parts base ops memory registry collectives loading dispatch runtime
    trace)

# The layer of a repository-relative path, into ${out}.
function(layer_of path out)
  if(path MATCHES "^sdk/include/")
    set(layer "sdk/include")
  elseif(path MATCHES "^sdk/conformance/")
    set(layer "sdk/conformance")
  elseif(path MATCHES "^sdk/")
    set(layer "sdk")
  elseif(path MATCHES "^plugins/([^/]+)/")
    set(layer "plugins/${CMAKE_MATCH_1}")
  elseif(path MATCHES "^dispatcher/([^/]+)/")
    set(layer "dispatcher/${CMAKE_MATCH_1}")
  elseif(path MATCHES "^dispatcher/")
    set(layer "dispatcher")
  elseif(path MATCHES "^api/include/")
    set(layer "api/include")
  elseif(path MATCHES "^(autotune|fusion|api|tools|tests)/")
    set(layer "${CMAKE_MATCH_1}")
  else()
    set(layer "")
  endif()
  set(${out} "${layer}" PARENT_SCOPE)
endfunction()

# The layers `layer` may include, into ${out} (a list; "*" is anything).
function(allowed_for layer out)
  set(d "dispatcher/")
  set(sdk_headers "sdk/include")
  if(layer STREQUAL "tests")
    set(allowed "*")
  elseif(layer STREQUAL "sdk/include")
    set(allowed sdk/include)
  elseif(layer STREQUAL "sdk")
    set(allowed sdk sdk/include)
  elseif(layer STREQUAL "sdk/conformance")
    set(allowed sdk/conformance sdk/include api/include)
  elseif(layer MATCHES "^plugins/")
    set(allowed ${layer} sdk sdk/include)
  elseif(layer STREQUAL "dispatcher/base")
    set(allowed ${d}base)
  elseif(layer STREQUAL "dispatcher/ops")
    set(allowed ${d}base ${d}ops)
  elseif(layer STREQUAL "dispatcher/memory")
    set(allowed ${d}base ${d}trace ${d}ops ${d}memory)
  elseif(layer STREQUAL "dispatcher/registry")
    set(allowed ${d}base ${d}trace ${d}ops ${d}memory ${d}registry)
  elseif(layer STREQUAL "dispatcher/collectives")
    set(allowed ${d}base ${d}trace ${d}ops ${d}memory ${d}registry
        ${d}collectives)
  elseif(layer STREQUAL "dispatcher/loading")
    set(allowed ${d}base ${d}trace ${d}ops ${d}memory ${d}registry ${d}loading)
  elseif(layer STREQUAL "dispatcher/dispatch")
    set(allowed ${d}base ${d}trace ${d}ops ${d}memory ${d}registry ${d}loading
        ${d}collectives ${d}dispatch)
  elseif(layer STREQUAL "dispatcher/trace")
    # Tracing sits just above base: every part records into it.
    set(allowed ${d}base ${d}trace)
  elseif(layer MATCHES "^dispatcher")
    # runtime/, and files directly in dispatcher/: the whole core.
    set(allowed dispatcher)
    foreach(part IN LISTS dispatcher_parts)
      list(APPEND allowed ${d}${part})
    endforeach()
  elseif(layer STREQUAL "autotune")
    set(allowed autotune dispatcher)
    foreach(part IN LISTS dispatcher_parts)
      list(APPEND allowed ${d}${part})
    endforeach()
  elseif(layer STREQUAL "fusion")
    set(allowed fusion autotune dispatcher)
    foreach(part IN LISTS dispatcher_parts)
      list(APPEND allowed ${d}${part})
    endforeach()
  elseif(layer STREQUAL "api/include")
    set(allowed api/include)
  elseif(layer STREQUAL "api")
    set(allowed api api/include autotune fusion dispatcher sdk sdk/conformance)
    foreach(part IN LISTS dispatcher_parts)
      list(APPEND allowed ${d}${part})
    endforeach()
  elseif(layer STREQUAL "tools")
    set(allowed tools api/include)
  else()
    set(allowed "*")
  endif()
  # Every layer may include the plugin ABI's headers (pure C).
  list(APPEND allowed ${sdk_headers})
  set(${out} "${allowed}" PARENT_SCOPE)
endfunction()

# What a folder may use instead, for the message.
function(advice_for layer out)
  if(layer STREQUAL "tools")
    set(text "tools use the public API only: switchyard/switchyard.h, switchyard/switchyard.hpp (and the area headers they include) and the SDK's headers (link Switchyard::api)")
  elseif(layer STREQUAL "sdk/conformance")
    set(text "the conformance kit uses the SDK's and the C API's public headers only (switchyard/plugin.h, switchyard/switchyard.hpp)")
  elseif(layer MATCHES "^plugins/")
    set(text "a plugin is built against sdk/ only; if it needs something the SDK lacks, the SDK grows")
  elseif(layer MATCHES "^dispatcher/")
    set(text "a part of the core includes only the parts below it (docs/architecture.md); move the shared piece down, or invert the dependency with an interface")
  elseif(layer MATCHES "^sdk")
    set(text "the SDK depends on nothing of the tree")
  else()
    set(text "see the layer table in docs/architecture.md")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

set(top_level_folders sdk dispatcher plugins api tools tests autotune fusion)

# Known breaks of the table, each with its reason, reported as a warning
# instead of failing the build until the core is reworked: "file|include".
set(known_exceptions
  # None left: the fusion pass's benchmarks use the C API's graph functions
  # (issue 16), as the autotuner's use its functions (issue 15).
)
set(exceptions_seen "")

set(scanned_folders sdk dispatcher plugins api tools autotune fusion)
set(sources "")
set(listed_by_git FALSE)
find_package(Git QUIET)
if(GIT_FOUND)
  # Only when SOURCE_DIR is the top of its own checkout: a tarball unpacked
  # inside some other repository is not listed by that repository's index.
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" rev-parse --show-toplevel
                  OUTPUT_VARIABLE git_top RESULT_VARIABLE git_failed
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  file(REAL_PATH "${SOURCE_DIR}" source_real)
  if(NOT git_failed AND NOT git_top STREQUAL "")
    file(REAL_PATH "${git_top}" git_top)
  endif()
  if(NOT git_failed AND git_top STREQUAL source_real)
    execute_process(
      COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" -c core.quotePath=false ls-files
              --cached --others --exclude-standard -- ${scanned_folders}
      OUTPUT_VARIABLE git_files RESULT_VARIABLE git_failed ERROR_VARIABLE git_error)
    if(git_failed)
      message(FATAL_ERROR "CheckLayers.cmake: git ls-files failed in ${SOURCE_DIR}: ${git_error}")
    endif()
    # One name a line (CMake strings cannot hold -z's NULs); a name with a
    # newline, quote or ';' would come out mangled and then not exist, so
    # it is skipped below — no source file has one.
    string(REPLACE ";" "" git_files "${git_files}")
    string(REPLACE "\n" ";" sources "${git_files}")
    set(listed_by_git TRUE)
  endif()
endif()
if(NOT listed_by_git)
  message(STATUS "Layer check skipped: ${SOURCE_DIR} is not the top of a git "
                 "checkout, and the check lists files with git ls-files; run the "
                 "build from a clone to check the layer table")
  return()
endif()
set(violations "")
set(scanned 0)
foreach(source IN LISTS sources)
  if(NOT source MATCHES "\\.(h|hh|hpp|c|cc|cpp|cxx|cu|cuh|hip|inc)$")
    continue()
  endif()
  if(source MATCHES "(^|/)(build|target|third_party)/")
    continue()
  endif()
  layer_of("${source}" from)
  if(from STREQUAL "" OR NOT EXISTS "${SOURCE_DIR}/${source}")  # deleted, not staged
    continue()
  endif()
  math(EXPR scanned "${scanned} + 1")
  allowed_for("${from}" allowed)
  if(allowed STREQUAL "*")
    continue()
  endif()
  get_filename_component(folder "${source}" DIRECTORY)
  file(STRINGS "${SOURCE_DIR}/${source}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "#[ \t]*include[ \t]*\"([^\"]+)\"")
      continue()
    endif()
    set(included "${CMAKE_MATCH_1}")
    set(target "")
    string(REGEX MATCH "^[^/]+" first "${included}")
    # A plugin's include root is its own folder (plugins/cpu/fusion/x.h is
    # "fusion/x.h" there): a file found there is the plugin's own.
    string(REGEX MATCH "^plugins/[^/]+" plugin_root "${source}")
    if(NOT plugin_root STREQUAL "" AND EXISTS "${SOURCE_DIR}/${plugin_root}/${included}")
      set(target "${plugin_root}/${included}")
    elseif(first IN_LIST top_level_folders AND included MATCHES "/")
      set(target "${included}")
    elseif(included MATCHES "^switchyard/")
      if(EXISTS "${SOURCE_DIR}/sdk/include/${included}")
        set(target "sdk/include/${included}")
      else()
        set(target "api/include/${included}")
      endif()
    elseif(EXISTS "${SOURCE_DIR}/${folder}/${included}")
      set(target "${folder}/${included}")
    endif()
    if(target STREQUAL "")
      continue()  # a third-party header
    endif()
    layer_of("${target}" to)
    if(to STREQUAL "" OR to IN_LIST allowed)
      continue()
    endif()
    if("${source}|${included}" IN_LIST known_exceptions)
      string(APPEND exceptions_seen "  ${source}: #include \"${included}\" (${from} → ${to})\n")
      continue()
    endif()
    advice_for("${from}" advice)
    string(JOIN ", " allowed_text ${allowed})
    string(APPEND violations
      "  ${source}: #include \"${included}\" reaches layer ${to}, but ${from} may "
      "include only ${allowed_text} — ${advice}\n")
  endforeach()
endforeach()

if(NOT exceptions_seen STREQUAL "")
  message(STATUS "Layer check: known exceptions, to be removed by the core "
                 "(cmake/CheckLayers.cmake, known_exceptions):\n${exceptions_seen}")
endif()
if(NOT violations STREQUAL "")
  message(FATAL_ERROR "Layer check failed (cmake/CheckLayers.cmake):\n${violations}")
endif()
message(STATUS "Layer check: ${scanned} files (listed by git) follow the layer table")
