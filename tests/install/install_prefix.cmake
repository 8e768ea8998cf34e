# cmake -DBUILD=<build dir> -DPREFIX=<dir> -P install_prefix.cmake
# Installs the build into a fresh PREFIX (the fixture of the install.* tests).
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${PREFIX} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BUILD} --prefix ${PREFIX} failed (${rc})")
endif()
