# What `cmake --install` lays out (docs/install.md):
#
#   bin/switchyard, bin/switchyard-conformance
#   include/switchyard/{switchyard.h,switchyard.hpp,common.h,plugin.h,plugin.hpp}
#                        (umbrellas), the C API's area headers beside them
#                        (api/CMakeLists.txt lists them), plugin/, gpu/
#   <libdir>/libswitchyard.so.0 (+ the .so link for linking)
#   <libdir>/switchyard/plugins/<name>.json + libswitchyard_<name>.so
#   lib/python3/dist-packages/switchyard/   (the Python package, with its
#                                            compiled _C; under a prefix
#                                            other than /usr:
#                                            lib/python3.X/dist-packages;
#                                            api/python/CMakeLists.txt)
#   <libdir>/cmake/Switchyard/               (find_package(Switchyard CONFIG))
#   <libdir>/pkgconfig/switchyard.pc
#   share/switchyard/template/               (sdk/template: a plugin to copy)
#   share/switchyard/gpu/                    (sdk/gpu: the shared CUDA/HIP
#                                             kernel sources a GPU plugin
#                                             compiles; docs/gpu-kernels.md)
#   share/doc/switchyard/                    (the docs)
#
# Everything is found relative to libswitchyard.so (plugins) or the
# executables' $ORIGIN (the library), so a prefix can be moved whole.
include(CMakePackageConfigHelpers)

set(SWITCHYARD_INSTALL_GPUDIR ${CMAKE_INSTALL_DATADIR}/switchyard/gpu)

install(TARGETS switchyard
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS switchyard_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/sdk/include/switchyard
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/Switchyard)
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/sdk/cmake/SwitchyardConfig.cmake.in
  ${PROJECT_BINARY_DIR}/package/SwitchyardConfig.cmake
  INSTALL_DESTINATION ${package_dir}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_BINDIR
            SWITCHYARD_INSTALL_PLUGINDIR SWITCHYARD_INSTALL_GPUDIR)
# SameMajorVersion: a 1.x SDK builds plugins any 1.y host loads.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/package/SwitchyardConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/package/SwitchyardConfig.cmake
  ${PROJECT_BINARY_DIR}/package/SwitchyardConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/sdk/cmake/SwitchyardPlugin.cmake
  ${PROJECT_SOURCE_DIR}/sdk/cmake/WritePluginManifest.cmake
  DESTINATION ${package_dir})

configure_file(${CMAKE_CURRENT_LIST_DIR}/switchyard.pc.in
  ${PROJECT_BINARY_DIR}/package/switchyard.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/package/switchyard.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/sdk/template/
  DESTINATION ${CMAKE_INSTALL_DATADIR}/switchyard/template)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/sdk/gpu/
  DESTINATION ${SWITCHYARD_INSTALL_GPUDIR})
# The license, and the Debian copyright file (DEP-5) the .deb carries.
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/cmake/copyright
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/switchyard)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/
  DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
