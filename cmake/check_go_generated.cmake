# cmake -DGEN=<build's SWIG output> -DSRC=<repo>/go/internal/capi -P check_go_generated.cmake
# Fails when the committed Go/C wrapper differs from the one the build generated
# from bindings/weft.i (ctest go.generated_code).
foreach(f capi.go capi_wrap.cxx)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${GEN}/${f} ${SRC}/${f} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "go/internal/capi/${f} differs from what SWIG generates from bindings/weft.i "
      "(${GEN}/${f}): run `cmake --build <build> --target weft_go_generate` and commit go/internal/capi")
  endif()
endforeach()
message(STATUS "go/internal/capi matches the SWIG output")
