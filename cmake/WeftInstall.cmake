# Install rules for the C ABI (issue 22): libweft.so (SONAME libweft.so.0),
# weft/c_api.h with the area headers it includes (weft/c_api_*.h), a relocatable
# weft.pc and a CMake package (find_package(Weft) -> Weft::weft, WeftConfig.cmake +
# WeftConfigVersion.cmake under <libdir>/cmake/Weft). The bindings add theirs in
# bindings/CMakeLists.txt and cmake/WeftBindingsPackages.cmake. Tests:
# tests/install/install_tests.cmake.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The installed weft.pc is relocatable (prefix relative to the .pc file, which
# sits in <libdir>/pkgconfig: ../.. for lib, ../../.. for lib/x86_64-linux-gnu).
file(RELATIVE_PATH WEFT_PC_UP /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" WEFT_PC_UP "${WEFT_PC_UP}")
set(WEFT_PC_PREFIX "\${pcfiledir}/${WEFT_PC_UP}")
set(WEFT_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
set(WEFT_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
configure_file(${CMAKE_SOURCE_DIR}/cmake/weft.pc.in ${CMAKE_BINARY_DIR}/weft.pc @ONLY)
set(WEFT_PC_PREFIX ${CMAKE_BINARY_DIR})
set(WEFT_PC_LIBDIR ${CMAKE_LIBRARY_OUTPUT_DIRECTORY})
set(WEFT_PC_INCLUDEDIR ${CMAKE_SOURCE_DIR}/c_api/include)
configure_file(${CMAKE_SOURCE_DIR}/cmake/weft.pc.in ${CMAKE_BINARY_DIR}/pkgconfig-uninstalled/weft.pc @ONLY)

install(TARGETS weft EXPORT WeftTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# weft/c_api.h is the umbrella over the area headers weft/c_api_*.h: install them all.
file(GLOB WEFT_PUBLIC_C_HEADERS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/c_api/include/weft/*.h)
install(FILES ${WEFT_PUBLIC_C_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/weft)
install(FILES ${CMAKE_BINARY_DIR}/weft.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# WEFT_ABI_VERSION: the headers' WEFT_API_VERSION (defined in weft/c_api_base.h), for the
# package config.
file(STRINGS ${CMAKE_SOURCE_DIR}/c_api/include/weft/c_api_base.h WEFT_ABI_LINE
  REGEX "^#define WEFT_API_VERSION [0-9]+")
string(REGEX REPLACE ".* ([0-9]+)$" "\\1" WEFT_ABI_VERSION "${WEFT_ABI_LINE}")
if(NOT WEFT_ABI_VERSION MATCHES "^[0-9]+$")
  message(FATAL_ERROR "no '#define WEFT_API_VERSION <n>' line in c_api/include/weft/c_api_base.h")
endif()

set(WEFT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Weft)
install(EXPORT WeftTargets NAMESPACE Weft:: DESTINATION ${WEFT_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/WeftConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/WeftConfig.cmake INSTALL_DESTINATION ${WEFT_CMAKE_DIR})
# The SONAME stays libweft.so.0 while the ABI only grows: any 0.x satisfies 0.y <= x.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/WeftConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/WeftConfig.cmake ${CMAKE_BINARY_DIR}/cmake/WeftConfigVersion.cmake
  DESTINATION ${WEFT_CMAKE_DIR})
