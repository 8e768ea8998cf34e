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
