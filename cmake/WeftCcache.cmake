# Compiles C, C++ and CUDA through ccache when it is installed, with a cache shared by every
# clone on the machine: paths under the source tree are hashed relative to it (base_dir) and the
# working directory is not hashed (hash_dir = false), so a fresh clone in another folder hits the
# objects a developer's own build stored. The cache itself stays where ccache keeps it by default
# (~/.cache/ccache, or CCACHE_DIR), outside every tree. Flags still count: a build with
# -DWEFT_WERROR=ON (CI's) shares objects only with other -Werror builds.
#
# ccache 4.7 (Debian 12) reads settings from its environment, not its command line, so the
# launcher is `env CCACHE_BASEDIR=... CCACHE_NOHASHDIR=1 ccache`: the settings travel with the
# build tree, and a plain `ninja -C build` uses them too.
set(WEFT_CCACHE AUTO CACHE STRING "Compile through ccache: AUTO (when found), ON or OFF")
set_property(CACHE WEFT_CCACHE PROPERTY STRINGS AUTO ON OFF)

set(WEFT_CCACHE_LAUNCHER "")
if(NOT WEFT_CCACHE STREQUAL "OFF")
  find_program(WEFT_CCACHE_PROGRAM ccache)
  if(WEFT_CCACHE_PROGRAM)
    # WEFT_CCACHE_LAUNCHER: for custom compile commands too (tests/fuzz's clang++ objects).
    set(WEFT_CCACHE_LAUNCHER env CCACHE_BASEDIR=${CMAKE_SOURCE_DIR} CCACHE_NOHASHDIR=1 ${WEFT_CCACHE_PROGRAM})
    foreach(lang C CXX CUDA)
      if(NOT CMAKE_${lang}_COMPILER_LAUNCHER)  # a launcher the user chose wins
        set(CMAKE_${lang}_COMPILER_LAUNCHER ${WEFT_CCACHE_LAUNCHER})
      endif()
    endforeach()
    message(STATUS "weft: compiling through ccache (${WEFT_CCACHE_PROGRAM}, base_dir ${CMAKE_SOURCE_DIR})")
  elseif(WEFT_CCACHE STREQUAL "ON")
    message(FATAL_ERROR "WEFT_CCACHE=ON but ccache was not found")
  endif()
endif()
