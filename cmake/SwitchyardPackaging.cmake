# CPack: `cpack -G DEB` in a build folder makes switchyard_<version>_<arch>.deb
# from the install rules (cmake/SwitchyardInstall.cmake), installed under
# /usr. Runtime dependencies come from dpkg-shlibdeps, so they are exactly
# the Debian libraries the binaries link (Abseil, Boost.Filesystem, OpenSSL,
# and oneDNN when the onednn plugin was built).
set(CPACK_PACKAGE_NAME switchyard)
set(CPACK_PACKAGE_VENDOR "The Switchyard developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Operator dispatcher for deep-learning runtimes, with its plugin SDK")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "switchyard@example.org")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# A plugin built against the CUDA toolkit links libraries from
# /usr/local/cuda that no Debian package provides; let dpkg-shlibdeps look
# there so it does not fail, and leave the toolkit a documented prerequisite.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS /usr/local/cuda/lib64 /usr/local/cuda/lib)
# The package must build plugins too: the SDK's CMake package needs a
# compiler and CMake, which are the user's to choose, so only suggested.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "cmake (>= 3.25), g++ | clang, python3-numpy")
# The vulkan plugin dlopens the Vulkan loader (so dpkg-shlibdeps cannot see
# it) and finds no device without a driver: recommend both, lavapipe being
# the driver every machine can have (docs/vulkan.md).
if(SWITCHYARD_HAVE_VULKAN_PLUGIN)
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libvulkan1, mesa-vulkan-drivers")
endif()
include(CPack)
