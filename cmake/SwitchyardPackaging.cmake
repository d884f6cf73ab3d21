# CPack: `cpack -G DEB` in a build folder makes one package per install
# component (cmake/SwitchyardInstall.cmake), installed under /usr:
#   switchyard_<version>_<arch>.deb        the library, CLI, headers, SDK,
#                                          Python package and the plugins
#                                          without heavy dependencies (cpu,
#                                          vulkan, rocm: they dlopen theirs)
#   switchyard-plugin-onednn_….deb          the onednn plugin (libdnnl)
#   switchyard-plugin-cuda_….deb            the cuda plugin (CUDA libraries)
# so a machine without CUDA installs Switchyard without a plugin that would
# find no libraries. Runtime dependencies come from dpkg-shlibdeps, so they
# are exactly the Debian libraries the binaries link; each plugin package
# depends on the exact switchyard version it was built with.
set(CPACK_PACKAGE_NAME switchyard)
set(CPACK_PACKAGE_VENDOR "The Switchyard developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Operator dispatcher for deep-learning runtimes, with its plugin SDK")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "switchyard@example.org")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEB_COMPONENT_INSTALL ON)
# Everything installed without a component is the main package.
set(CPACK_DEBIAN_UNSPECIFIED_PACKAGE_NAME switchyard)
set(CPACK_DEBIAN_UNSPECIFIED_FILE_NAME DEB-DEFAULT)
set(plugin_depends "switchyard (= ${PROJECT_VERSION})")
if(TARGET onednn)
  set(CPACK_DEBIAN_PLUGIN-ONEDNN_PACKAGE_NAME switchyard-plugin-onednn)
  set(CPACK_DEBIAN_PLUGIN-ONEDNN_FILE_NAME DEB-DEFAULT)
  set(CPACK_DEBIAN_PLUGIN-ONEDNN_PACKAGE_DEPENDS "${plugin_depends}")
  set(CPACK_COMPONENT_PLUGIN-ONEDNN_DESCRIPTION
      "Switchyard plugin: oneDNN kernels for the cpu device")
endif()
if(TARGET cuda)
  # cuBLASLt comes from NVIDIA's CUDA packages (not Debian's), which
  # dpkg-shlibdeps cannot name: the dependency is written out. cuDNN is
  # dlopened and only recommended (without it conv2d and attention are not
  # registered, and the load record says so).
  set(CPACK_DEBIAN_PLUGIN-CUDA_PACKAGE_NAME switchyard-plugin-cuda)
  set(CPACK_DEBIAN_PLUGIN-CUDA_FILE_NAME DEB-DEFAULT)
  set(CPACK_DEBIAN_PLUGIN-CUDA_PACKAGE_DEPENDS
      "${plugin_depends}, libcublas-13-0 | cuda-libraries-13-0")
  set(CPACK_DEBIAN_PLUGIN-CUDA_PACKAGE_RECOMMENDS "libcudnn9-cuda-13")
  set(CPACK_DEBIAN_PLUGIN-CUDA_PACKAGE_SHLIBDEPS OFF)
  set(CPACK_COMPONENT_PLUGIN-CUDA_DESCRIPTION
      "Switchyard plugin: NVIDIA GPUs through CUDA, cuBLASLt and cuDNN")
endif()
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# A plugin built against the CUDA toolkit links libraries from
# /usr/local/cuda that no Debian package provides; let dpkg-shlibdeps look
# there so it does not fail, and leave the toolkit a documented prerequisite.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS /usr/local/cuda/lib64 /usr/local/cuda/lib)
# The package must build plugins too: the SDK's CMake package needs a
# compiler and CMake, which are the user's to choose, so only suggested.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "cmake (>= 3.25), g++ | clang")
# The Python package goes to /usr/lib/python3/dist-packages (api/python):
# its compiled half (switchyard._C) is built for the Python it was built
# with, and tensors convert to and from NumPy arrays.
if(TARGET switchyard_python)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "python3 (>= ${SWITCHYARD_PYTHON_MINOR}~), python3 (<< ${SWITCHYARD_PYTHON_NEXT_MINOR}), python3-numpy")
endif()
# The vulkan plugin dlopens the Vulkan loader (so dpkg-shlibdeps cannot see
# it) and finds no device without a driver: recommend both, lavapipe being
# the driver every machine can have (docs/vulkan.md).
if(SWITCHYARD_HAVE_VULKAN_PLUGIN)
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libvulkan1, mesa-vulkan-drivers")
endif()
include(CPack)
