# switchyard_add_plugin(NAME
#                       SOURCES src…
#                       DEVICE_TYPES type…
#                       [LIBRARIES lib…]
#                       [OUTPUT_DIRECTORY dir]
#                       [PIN_SHA256]
#                       [INSTALL [INSTALL_DESTINATION dir]
#                                [INSTALL_COMPONENT component]])
#
# Builds plugin NAME as a MODULE library libswitchyard_NAME.so, as every
# plugin must be built: hidden visibility, a version script that exports only
# sy_plugin_init, and no undefined symbols (a plugin never links against the
# host). After each build it writes the manifest NAME.json next to the
# library; with PIN_SHA256 the manifest carries the library's SHA-256, and the
# loader refuses a library that does not match.
#
# INSTALL adds install rules for the library and its manifest, side by side
# (in the install component INSTALL_COMPONENT when given: a package of its
# own, as for plugins with heavy dependencies) in INSTALL_DESTINATION
# (default: SWITCHYARD_INSTALL_PLUGINDIR, else
# <libdir>/switchyard/plugins — where a Switchyard installed in the same
# prefix looks; from another prefix, add the folder to SWITCHYARD_PLUGIN_PATH).
#
# OUTPUT_DIRECTORY defaults to SWITCHYARD_PLUGIN_OUTPUT_DIR when that is set
# (the in-tree build's lib/switchyard/plugins), else the current binary dir.
# Cache variables, so every directory that calls the function sees them.
set(_SWITCHYARD_PLUGIN_CMAKE_DIR ${CMAKE_CURRENT_LIST_DIR} CACHE INTERNAL "")

# The ABI version a plugin built here declares: read from the header it is
# compiled against, so the manifest can never disagree with the code.
# SWITCHYARD_PLUGIN_HEADER names that plugin.h; since the headers were split
# by area the version lives in switchyard/plugin/version.h next to it (an
# SDK from before the split defines it in plugin.h itself).
if(NOT SWITCHYARD_PLUGIN_HEADER)
  set(SWITCHYARD_PLUGIN_HEADER
      ${CMAKE_CURRENT_LIST_DIR}/../include/switchyard/plugin.h)
endif()
get_filename_component(_sy_header_dir ${SWITCHYARD_PLUGIN_HEADER} DIRECTORY)
set(_sy_abi_lines "")
foreach(_sy_header ${_sy_header_dir}/plugin/version.h ${SWITCHYARD_PLUGIN_HEADER})
  if(NOT _sy_abi_lines AND EXISTS ${_sy_header})
    file(STRINGS ${_sy_header} _sy_abi_lines
         REGEX "^#define SY_PLUGIN_ABI_(MAJOR|MINOR) [0-9]+")
  endif()
endforeach()
if(NOT _sy_abi_lines)
  message(FATAL_ERROR "switchyard_add_plugin: no SY_PLUGIN_ABI_MAJOR/MINOR in "
          "${_sy_header_dir}/plugin/version.h or ${SWITCHYARD_PLUGIN_HEADER}; "
          "point SWITCHYARD_PLUGIN_HEADER at the SDK's switchyard/plugin.h")
endif()
foreach(line IN LISTS _sy_abi_lines)
  if(line MATCHES "MAJOR ([0-9]+)")
    set(SWITCHYARD_ABI_MAJOR ${CMAKE_MATCH_1} CACHE INTERNAL "")
  elseif(line MATCHES "MINOR ([0-9]+)")
    set(SWITCHYARD_ABI_MINOR ${CMAKE_MATCH_1} CACHE INTERNAL "")
  endif()
endforeach()

# The SDK's shared GPU kernels (sdk/gpu; docs/gpu-kernels.md): sources a
# CUDA or HIP plugin compiles into itself, beside its own device table and
# GEMMs. Headers: switchyard/gpu/ (Switchyard::sdk).
#   SWITCHYARD_GPU_HOST_SOURCES    host C++ (.cc): compile as CXX with the
#                                  runtime's headers (and, for HIP,
#                                  __HIP_PLATFORM_AMD__ defined)
#   SWITCHYARD_GPU_KERNEL_SOURCES  kernel families (.cu): compile as CUDA, or
#                                  with hipcc as HIP (-x hip)
# The plugin defines what switchyard/gpu/target.h declares.
if(NOT SWITCHYARD_GPU_SOURCE_DIR)
  get_filename_component(SWITCHYARD_GPU_SOURCE_DIR
                         ${CMAKE_CURRENT_LIST_DIR}/../gpu ABSOLUTE)
endif()
set(_sy_gpu_host kernel_list.cc kernel_util.cc row_layout.cc gemm_problem.cc
    device_checks.cc)
set(_sy_gpu_kernels creation.cu unary.cu binary.cu binary_scalar.cu
    compare.cu reduction.cu norm.cu layout.cu)
list(TRANSFORM _sy_gpu_host PREPEND ${SWITCHYARD_GPU_SOURCE_DIR}/)
list(TRANSFORM _sy_gpu_kernels PREPEND ${SWITCHYARD_GPU_SOURCE_DIR}/)
set(SWITCHYARD_GPU_HOST_SOURCES ${_sy_gpu_host} CACHE INTERNAL "")
set(SWITCHYARD_GPU_KERNEL_SOURCES ${_sy_gpu_kernels} CACHE INTERNAL "")

function(switchyard_add_plugin NAME)
  cmake_parse_arguments(ARG "PIN_SHA256;INSTALL"
                        "OUTPUT_DIRECTORY;INSTALL_DESTINATION;INSTALL_COMPONENT"
                        "SOURCES;DEVICE_TYPES;LIBRARIES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "switchyard_add_plugin(${NAME}): SOURCES is required")
  endif()
  if(NOT ARG_DEVICE_TYPES)
    message(FATAL_ERROR "switchyard_add_plugin(${NAME}): DEVICE_TYPES is required")
  endif()
  set(out_dir ${ARG_OUTPUT_DIRECTORY})
  if(NOT out_dir)
    if(SWITCHYARD_PLUGIN_OUTPUT_DIR)
      set(out_dir ${SWITCHYARD_PLUGIN_OUTPUT_DIR})
    else()
      set(out_dir ${CMAKE_CURRENT_BINARY_DIR})
    endif()
  endif()

  add_library(${NAME} MODULE ${ARG_SOURCES})
  target_link_libraries(${NAME} PRIVATE Switchyard::sdk ${ARG_LIBRARIES})
  set_target_properties(${NAME} PROPERTIES
    PREFIX "lib"
    OUTPUT_NAME "switchyard_${NAME}"
    LIBRARY_OUTPUT_DIRECTORY ${out_dir}
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)

  set(map ${CMAKE_CURRENT_BINARY_DIR}/${NAME}.exports.map)
  file(WRITE ${map} "{\n  global: sy_plugin_init;\n  local: *;\n};\n")
  target_link_options(${NAME} PRIVATE
    "LINKER:--version-script=${map}" "LINKER:--no-undefined")
  set_property(TARGET ${NAME} APPEND PROPERTY LINK_DEPENDS ${map})

  string(REPLACE ";" "," device_types "${ARG_DEVICE_TYPES}")
  set(pin OFF)
  if(ARG_PIN_SHA256)
    set(pin ON)
  endif()
  add_custom_command(TARGET ${NAME} POST_BUILD
    COMMAND ${CMAKE_COMMAND}
      -DNAME=${NAME}
      -DLIBRARY=$<TARGET_FILE:${NAME}>
      -DDEVICE_TYPES=${device_types}
      -DABI_MAJOR=${SWITCHYARD_ABI_MAJOR}
      -DABI_MINOR=${SWITCHYARD_ABI_MINOR}
      -DPIN_SHA256=${pin}
      -DOUTPUT=${out_dir}/${NAME}.json
      -P ${_SWITCHYARD_PLUGIN_CMAKE_DIR}/WritePluginManifest.cmake
    VERBATIM)

  if(ARG_INSTALL)
    include(GNUInstallDirs)
    set(destination ${ARG_INSTALL_DESTINATION})
    if(NOT destination AND SWITCHYARD_INSTALL_PLUGINDIR)
      set(destination ${SWITCHYARD_INSTALL_PLUGINDIR})
    elseif(NOT destination)
      set(destination ${CMAKE_INSTALL_LIBDIR}/switchyard/plugins)
    endif()
    # PROGRAMS, not install(TARGETS): the bytes must stay those the manifest
    # may pin by SHA-256, so no RPATH rewriting on the way.
    set(component)
    if(ARG_INSTALL_COMPONENT)
      set(component COMPONENT ${ARG_INSTALL_COMPONENT})
    endif()
    install(PROGRAMS $<TARGET_FILE:${NAME}> DESTINATION ${destination} ${component})
    install(FILES ${out_dir}/${NAME}.json DESTINATION ${destination} ${component})
  endif()
endfunction()

# switchyard_add_conformance_test(NAME [ARGS arg…])
#
# A ctest test "conformance.NAME" that runs switchyard-conformance on plugin
# NAME's manifest (built by switchyard_add_plugin in this project), beside
# the cpu reference plugin. ARGS go to switchyard-conformance.
function(switchyard_add_conformance_test NAME)
  cmake_parse_arguments(ARG "" "" "ARGS" ${ARGN})
  if(TARGET switchyard-conformance)  # the in-tree build
    set(conformance $<TARGET_FILE:switchyard-conformance>)
  elseif(SWITCHYARD_CONFORMANCE)     # find_package(Switchyard)
    set(conformance ${SWITCHYARD_CONFORMANCE})
  else()
    message(FATAL_ERROR "switchyard_add_conformance_test(${NAME}): no "
                        "switchyard-conformance; find_package(Switchyard) first")
  endif()
  get_target_property(dir ${NAME} LIBRARY_OUTPUT_DIRECTORY)
  add_test(NAME conformance.${NAME}
           COMMAND ${conformance} ${dir}/${NAME}.json ${ARG_ARGS})
endfunction()
