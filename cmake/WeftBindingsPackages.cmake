# Packages of the bindings (issue 22), included at the end of
# bindings/CMakeLists.txt (which defines WEFT_JAR, WEFT_DLL, WEFT_LIBDIR ...):
#   Java  weft-<v>.pom beside the jar; both installed in share/java and in a
#         Maven repository layout, share/maven-repo/ai/weft/weft/<v>/.
#   C#    Weft.<v>.nupkg (tests/install/csharp/Weft.nuspec, Debian's nuget)
#         when nuget is found; installed in share/nuget/.
# Tests of the installed tree: tests/install/install_tests.cmake.
set(WEFT_POM ${WEFT_LIBDIR}/weft-${PROJECT_VERSION}.pom)
configure_file(${CMAKE_SOURCE_DIR}/java/pom.xml.in ${WEFT_POM} @ONLY)
set(WEFT_MAVEN_DIR ${CMAKE_INSTALL_DATADIR}/maven-repo/ai/weft/weft/${PROJECT_VERSION})
install(FILES ${WEFT_POM} DESTINATION ${CMAKE_INSTALL_DATADIR}/java)
install(FILES ${WEFT_JAR} ${WEFT_POM} DESTINATION ${WEFT_MAVEN_DIR})

# ------------------------------------------------------------------ NuGet
# Weft.<v>.nupkg in build/lib, packed by Debian's `nuget` (package nuget) when
# it is found; installed into <prefix>/share/nuget, a directory feed.
find_program(WEFT_NUGET nuget)
if(WEFT_NUGET)
  set(WEFT_NUPKG_STAGE ${WEFT_GEN}/csharp/nupkg)
  set(WEFT_NUPKG ${WEFT_LIBDIR}/Weft.${PROJECT_VERSION}.nupkg)
  # Staged beside the nuspec, named relative to it (nuget 2.8 on Mono treats an
  # absolute src as relative to the nuspec's directory).
  configure_file(${CMAKE_SOURCE_DIR}/csharp/Weft.nuspec.in ${WEFT_NUPKG_STAGE}/Weft.nuspec @ONLY)
  add_custom_command(OUTPUT ${WEFT_NUPKG}
    COMMAND ${CMAKE_COMMAND} -E copy ${WEFT_DLL} ${WEFT_NUPKG_STAGE}/Weft.dll
    COMMAND ${CMAKE_COMMAND} -E copy $<TARGET_FILE:weft_csharp> ${WEFT_NUPKG_STAGE}/libweft_csharp.so
    COMMAND ${CMAKE_COMMAND} -E copy $<TARGET_FILE:weft> ${WEFT_NUPKG_STAGE}/$<TARGET_SONAME_FILE_NAME:weft>
    # Debug info stripped (libweft is ~120 MB with RelWithDebInfo's, ~7 MB without).
    COMMAND ${CMAKE_STRIP} --strip-debug ${WEFT_NUPKG_STAGE}/libweft_csharp.so
            ${WEFT_NUPKG_STAGE}/$<TARGET_SONAME_FILE_NAME:weft>
    COMMAND ${CMAKE_COMMAND} -E env HOME=${WEFT_NUPKG_STAGE}/home
            ${WEFT_NUGET} pack ${WEFT_NUPKG_STAGE}/Weft.nuspec -OutputDirectory ${WEFT_LIBDIR}
            -NoPackageAnalysis -NonInteractive -Verbosity quiet
    WORKING_DIRECTORY ${WEFT_NUPKG_STAGE}
    DEPENDS ${WEFT_DLL} weft_dll weft_csharp weft ${WEFT_NUPKG_STAGE}/Weft.nuspec VERBATIM)
  add_custom_target(weft_nupkg ALL DEPENDS ${WEFT_NUPKG})
  install(FILES ${WEFT_NUPKG} DESTINATION ${CMAKE_INSTALL_DATADIR}/nuget)
endif()
