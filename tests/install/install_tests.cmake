# Tests of the installed tree (issue 22): the fixture install.prefix runs
# `cmake --install` into a fresh prefix under the build tree, then each test
# builds a consumer against that prefix only and runs it. Label: install.
# Included from the top-level CMakeLists.txt after the bindings.
set(WEFT_INSTALL_TEST_DIR ${CMAKE_BINARY_DIR}/install-test)
set(WEFT_INSTALL_PREFIX ${WEFT_INSTALL_TEST_DIR}/prefix)
set(WEFT_INSTALL_SRC ${CMAKE_SOURCE_DIR}/tests/install)

add_test(NAME install.prefix COMMAND ${CMAKE_COMMAND} -DBUILD=${CMAKE_BINARY_DIR}
  -DPREFIX=${WEFT_INSTALL_PREFIX} -P ${WEFT_INSTALL_SRC}/install_prefix.cmake)
set_tests_properties(install.prefix PROPERTIES FIXTURES_SETUP weft_installed LABELS install)

foreach(mode cmake pkgconfig)
  add_test(NAME install.c_${mode} COMMAND ${WEFT_INSTALL_SRC}/run_c.sh ${mode} ${WEFT_INSTALL_PREFIX}
    ${WEFT_INSTALL_TEST_DIR}/c_${mode} ${PROJECT_VERSION} ${CMAKE_INSTALL_LIBDIR})
  set_tests_properties(install.c_${mode} PROPERTIES FIXTURES_REQUIRED weft_installed LABELS install
    PASS_REGULAR_EXPRESSION "weft consumer ok")
endforeach()

if(WEFT_BUILD_BINDINGS)
  add_test(NAME install.java COMMAND ${WEFT_INSTALL_SRC}/run_java.sh ${WEFT_INSTALL_PREFIX}
    ${WEFT_INSTALL_TEST_DIR}/java ${PROJECT_VERSION})
  set_tests_properties(install.java PROPERTIES FIXTURES_REQUIRED weft_installed LABELS "install;java"
    PASS_REGULAR_EXPRESSION "weft java package ok")
endif()

if(WEFT_BUILD_BINDINGS)
  # Go: the repository's module (go/, committed SWIG output) against the prefix.
  add_test(NAME install.go COMMAND ${WEFT_INSTALL_SRC}/run_go.sh ${WEFT_INSTALL_PREFIX}
    ${WEFT_INSTALL_TEST_DIR}/go ${CMAKE_SOURCE_DIR}/go ${PROJECT_VERSION}
    ${WEFT_INSTALL_TEST_DIR}/gocache ${CMAKE_INSTALL_LIBDIR})
  set_tests_properties(install.go PROPERTIES FIXTURES_REQUIRED weft_installed LABELS "install;go"
    FIXTURES_SETUP weft_go_consumer PASS_REGULAR_EXPRESSION "weft go module ok")
endif()

if(WEFT_BUILD_BINDINGS)
  # C#: the NuGet package from a directory feed (skipped without Debian's nuget).
  add_test(NAME install.csharp_nuget COMMAND ${WEFT_INSTALL_SRC}/run_csharp.sh ${WEFT_INSTALL_PREFIX}
    ${WEFT_INSTALL_TEST_DIR}/csharp ${PROJECT_VERSION})
  set_tests_properties(install.csharp_nuget PROPERTIES FIXTURES_REQUIRED weft_installed
    LABELS "install;csharp" SKIP_RETURN_CODE 77 PASS_REGULAR_EXPRESSION "weft nuget package ok")
endif()

if(WEFT_BUILD_BINDINGS)
  # Each binding against another libweft.so.0 with an older ABI version.
  foreach(lang java csharp go)
    add_test(NAME install.abi_mismatch_${lang} COMMAND ${WEFT_INSTALL_SRC}/run_abi_mismatch.sh ${lang}
      ${WEFT_INSTALL_PREFIX} ${WEFT_INSTALL_TEST_DIR}/abi_mismatch_${lang} ${WEFT_INSTALL_TEST_DIR}/go/weftconsumer
      ${CMAKE_INSTALL_LIBDIR})
    set_tests_properties(install.abi_mismatch_${lang} PROPERTIES FIXTURES_REQUIRED weft_installed
      LABELS "install;${lang}" PASS_REGULAR_EXPRESSION "weft ${lang} ABI mismatch detected")
  endforeach()
  set_tests_properties(install.abi_mismatch_go PROPERTIES FIXTURES_REQUIRED "weft_installed;weft_go_consumer")
endif()

if(WEFT_BUILD_BINDINGS)
  # Java through Debian's maven, offline (skipped without mvn and its plugins).
  add_test(NAME install.java_maven COMMAND ${WEFT_INSTALL_SRC}/run_maven.sh ${WEFT_INSTALL_PREFIX}
    ${WEFT_INSTALL_TEST_DIR}/maven ${PROJECT_VERSION})
  set_tests_properties(install.java_maven PROPERTIES FIXTURES_REQUIRED weft_installed
    LABELS "install;java" SKIP_RETURN_CODE 77 PASS_REGULAR_EXPRESSION "weft maven offline ok")
endif()
