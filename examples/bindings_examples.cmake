# The bindings' example programs (examples/java, examples/csharp, examples/go):
# ClassifyFashion in each language, included from bindings/CMakeLists.txt
# (it uses that directory's variables: WEFT_JAR, WEFT_DLL, WEFT_GO_MOD, ...).
# Each loads a `weft train` checkpoint, classifies Fashion-MNIST test images
# and compares with `weft predict`. Launchers in build/bin:
#   classify-fashion-java, classify-fashion-csharp, classify-fashion-go
# (arguments: PREFIX EPOCH DATA_DIR N CPP_PREDICTIONS).
set(WEFT_EX ${CMAKE_SOURCE_DIR}/examples)
set(WEFT_EX_BIN ${CMAKE_RUNTIME_OUTPUT_DIRECTORY})

# ------------------------------------------------------------------- Java
set(CMAKE_JAVA_COMPILE_FLAGS --release 11 -Xlint:all -Xlint:-options -Werror -encoding UTF-8)
add_jar(weft_example_java SOURCES ${WEFT_EX}/java/ClassifyFashion.java
  ${WEFT_EX}/java/LenetService.java ${WEFT_EX}/java/LenetLoad.java
  INCLUDE_JARS weft_classes OUTPUT_NAME weft-examples OUTPUT_DIR ${WEFT_LIBDIR})
get_target_property(WEFT_EX_JAR weft_example_java JAR_FILE)
add_dependencies(weft_example_java weft_jar)
file(GENERATE OUTPUT ${WEFT_EX_BIN}/classify-fashion-java
  CONTENT "#!/bin/sh\nexec '${Java_JAVA_EXECUTABLE}' -Dweft.library.path='${WEFT_LIBDIR}' -cp '${WEFT_JAR}:${WEFT_EX_JAR}' ClassifyFashion \"$@\"\n"
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
# The LeNet HTTP service over a shared Predictor and its load generator / bench:
#   lenet-service-java SYMBOL_JSON PARAMS PORT [THREADS]
#   lenet-load-java SYMBOL_JSON PARAMS DATA_DIR N C | bench SYMBOL_JSON PARAMS CALLS
foreach(ex service load)
  string(SUBSTRING ${ex} 0 1 first)
  string(TOUPPER ${first} first)
  string(SUBSTRING ${ex} 1 -1 rest)
  file(GENERATE OUTPUT ${WEFT_EX_BIN}/lenet-${ex}-java
    CONTENT "#!/bin/sh\nexec '${Java_JAVA_EXECUTABLE}' -Dweft.library.path='${WEFT_LIBDIR}' -cp '${WEFT_JAR}:${WEFT_EX_JAR}' Lenet${first}${rest} \"$@\"\n"
    FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endforeach()

# ------------------------------------------------------------------- C#
set(WEFT_EX_EXE ${WEFT_LIBDIR}/ClassifyFashion.exe)
add_custom_command(OUTPUT ${WEFT_EX_EXE}
  COMMAND ${WEFT_MCS} -nologo -warnaserror -target:exe -out:${WEFT_EX_EXE} -r:${WEFT_DLL}
          ${WEFT_EX}/csharp/ClassifyFashion.cs
  DEPENDS ${WEFT_DLL} weft_dll ${WEFT_EX}/csharp/ClassifyFashion.cs VERBATIM)
add_custom_target(weft_example_csharp ALL DEPENDS ${WEFT_EX_EXE})
file(GENERATE OUTPUT ${WEFT_EX_BIN}/classify-fashion-csharp
  CONTENT "#!/bin/sh\nexec '${WEFT_MONO}' '${WEFT_EX_EXE}' \"$@\"\n"
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
# PredictServer: LeNet over HttpListener + load generator + call bench
# (launcher build/bin/predict-server-csharp; see the header of the source).
set(WEFT_EX_SERVER_EXE ${WEFT_LIBDIR}/PredictServer.exe)
add_custom_command(OUTPUT ${WEFT_EX_SERVER_EXE}
  COMMAND ${WEFT_MCS} -nologo -warnaserror -target:exe -out:${WEFT_EX_SERVER_EXE} -r:${WEFT_DLL}
          -r:System.Net.dll ${WEFT_EX}/csharp/PredictServer.cs
  DEPENDS ${WEFT_DLL} weft_dll ${WEFT_EX}/csharp/PredictServer.cs VERBATIM)
add_custom_target(weft_example_csharp_server ALL DEPENDS ${WEFT_EX_SERVER_EXE})
file(GENERATE OUTPUT ${WEFT_EX_BIN}/predict-server-csharp
  CONTENT "#!/bin/sh\nexec '${WEFT_MONO}' '${WEFT_EX_SERVER_EXE}' \"$@\"\n"
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

# ------------------------------------------------------------------- Go
# A module of its own beside the build tree's ${WEFT_GO_MODULE} (replace).
set(WEFT_EX_GO ${CMAKE_BINARY_DIR}/examples/go)
file(CONFIGURE OUTPUT ${WEFT_EX_GO}/go.mod CONTENT
  "module ai.weft/examples\n\ngo 1.19\n\nrequire ${WEFT_GO_MODULE} v0.0.0\n\nreplace ${WEFT_GO_MODULE} => ${WEFT_GO_MOD}\n")
add_custom_command(OUTPUT ${WEFT_EX_GO}/classify-fashion/main.go
  COMMAND ${CMAKE_COMMAND} -E copy ${WEFT_EX}/go/classify-fashion/main.go ${WEFT_EX_GO}/classify-fashion/main.go
  DEPENDS ${WEFT_EX}/go/classify-fashion/main.go VERBATIM)
add_custom_command(OUTPUT ${WEFT_EX_BIN}/classify-fashion-go
  COMMAND ${CMAKE_COMMAND} -E env ${WEFT_GO_ENV} ${WEFT_GO} build -o ${WEFT_EX_BIN}/classify-fashion-go
          ./classify-fashion
  WORKING_DIRECTORY ${WEFT_EX_GO}
  DEPENDS ${WEFT_EX_GO}/classify-fashion/main.go ${WEFT_GO_COPIED} ${WEFT_GO_CAPI}/capi.go
          ${WEFT_GO_CAPI}/capi_wrap.cxx weft weft_go VERBATIM)
add_custom_target(weft_example_go ALL DEPENDS ${WEFT_EX_BIN}/classify-fashion-go)

# train-dist: data-parallel training through a dist_sync KVStore, launched
# with mpirun (build/bin/train-dist-go; see its main.go).
add_custom_command(OUTPUT ${WEFT_EX_GO}/train-dist/main.go
  COMMAND ${CMAKE_COMMAND} -E copy ${WEFT_EX}/go/train-dist/main.go ${WEFT_EX_GO}/train-dist/main.go
  DEPENDS ${WEFT_EX}/go/train-dist/main.go VERBATIM)
add_custom_command(OUTPUT ${WEFT_EX_BIN}/train-dist-go
  COMMAND ${CMAKE_COMMAND} -E env ${WEFT_GO_ENV} ${WEFT_GO} build -o ${WEFT_EX_BIN}/train-dist-go ./train-dist
  WORKING_DIRECTORY ${WEFT_EX_GO}
  DEPENDS ${WEFT_EX_GO}/train-dist/main.go ${WEFT_GO_COPIED} ${WEFT_GO_CAPI}/capi.go ${WEFT_GO_CAPI}/capi_wrap.cxx
          weft weft_go VERBATIM)
add_custom_target(weft_example_go_train_dist ALL DEPENDS ${WEFT_EX_BIN}/train-dist-go)
if(WEFT_BUILD_TESTS AND WEFT_HAVE_MPI AND MPIEXEC_EXECUTABLE)
  # Two ranks, one epoch of the MLP: rank 0 alone reports, and the model learns.
  add_test(NAME examples.train_dist_go
    COMMAND bash -c "out=$(\"$1\" --allow-run-as-root --oversubscribe -np 2 \"$2\" \"$3\" \"$4\" 1) || exit 1; echo \"$out\"; [ $(grep -c 'test accuracy' <<<\"$out\") -eq 1 ] && awk '/test accuracy/ { exit !($4 > 0.8) }' <<<\"$out\""
            train_dist_go ${MPIEXEC_EXECUTABLE} ${WEFT_EX_BIN}/train-dist-go ${WEFT_EX}/models/mlp-symbol.json
            /usr/share/datasets/fashion-mnist)
  set_tests_properties(examples.train_dist_go PROPERTIES LABELS "examples;go;dist" TIMEOUT 120)
endif()

# lenet-serve: a weft.Predictor behind net/http, its bounded load generator
# and a predict-call bench (build/bin/lenet-serve-go; see its main.go).
set(WEFT_EX_GO_SERVE_SRC main.go server.go load.go bench_c.go soak.go)
set(WEFT_EX_GO_SERVE "")
foreach(f ${WEFT_EX_GO_SERVE_SRC})
  add_custom_command(OUTPUT ${WEFT_EX_GO}/lenet-serve/${f}
    COMMAND ${CMAKE_COMMAND} -E copy ${WEFT_EX}/go/lenet-serve/${f} ${WEFT_EX_GO}/lenet-serve/${f}
    DEPENDS ${WEFT_EX}/go/lenet-serve/${f} VERBATIM)
  list(APPEND WEFT_EX_GO_SERVE ${WEFT_EX_GO}/lenet-serve/${f})
endforeach()
add_custom_command(OUTPUT ${WEFT_EX_BIN}/lenet-serve-go
  COMMAND ${CMAKE_COMMAND} -E env ${WEFT_GO_ENV} ${WEFT_GO} build -o ${WEFT_EX_BIN}/lenet-serve-go ./lenet-serve
  WORKING_DIRECTORY ${WEFT_EX_GO}
  DEPENDS ${WEFT_EX_GO_SERVE} ${WEFT_GO_COPIED} ${WEFT_GO_CAPI}/capi.go ${WEFT_GO_CAPI}/capi_wrap.cxx weft weft_go
  VERBATIM)
add_custom_target(weft_example_go_serve ALL DEPENDS ${WEFT_EX_BIN}/lenet-serve-go)
if(WEFT_BUILD_TESTS)
  # A seeded LeNet checkpoint, then 200 requests from 4 clients on
  # 127.0.0.1, every answer checked against a direct Predict.
  set(WEFT_EX_GO_SERVE_DIR ${CMAKE_BINARY_DIR}/examples/go-serve)
  add_test(NAME examples.serve_go
    COMMAND bash -c "set -e; mkdir -p \"$1\"; \"$2\" init -symbol \"$3\" -out \"$1/lenet\"; exec \"$2\" selftest -symbol \"$3\" -params \"$1/lenet-0000.params\" -n 200 -c 4"
            serve_go ${WEFT_EX_GO_SERVE_DIR} ${WEFT_EX_BIN}/lenet-serve-go ${WEFT_EX}/models/lenet-symbol.json)
  set_tests_properties(examples.serve_go PROPERTIES LABELS "examples;go" TIMEOUT 120)
endif()

# ----------------------------------------------------------------- tests
# A tiny checkpoint (the example MLP after 10 batches of 50 images) and the
# C++ predictions for the first 300 test images, as CTest fixtures; each
# language's example must agree with C++ on every image, and must report a
# disagreement for each image when the C++ file is perturbed
# (examples/check_classify.sh).
if(WEFT_BUILD_TESTS)
  set(WEFT_FM /usr/share/datasets/fashion-mnist)
  set(WEFT_EX_DIR ${CMAKE_BINARY_DIR}/examples/tiny)
  add_test(NAME examples.train_tiny_checkpoint
    COMMAND bash -c "mkdir -p \"$1\" && shift && exec \"$@\"" train_tiny ${WEFT_EX_DIR}
            $<TARGET_FILE:weft_cli> train --symbol ${WEFT_EX}/models/mlp-symbol.json --data-dir ${WEFT_FM} --limit 500 --epochs 1
            --batch-size 50 --progress none --save ${WEFT_EX_DIR}/mlp)
  set_tests_properties(examples.train_tiny_checkpoint PROPERTIES LABELS examples
    FIXTURES_SETUP weft_examples_checkpoint)
  add_test(NAME examples.predict_cpp
    COMMAND $<TARGET_FILE:weft_cli> predict --checkpoint ${WEFT_EX_DIR}/mlp --epoch 1
            --data-dir ${WEFT_FM} --limit 300 --out ${WEFT_EX_DIR}/cpp.txt)
  set_tests_properties(examples.predict_cpp PROPERTIES LABELS examples
    FIXTURES_REQUIRED weft_examples_checkpoint FIXTURES_SETUP weft_examples_predictions)
  foreach(lang java csharp go)
    add_test(NAME examples.classify_${lang}
      COMMAND bash ${WEFT_EX}/check_classify.sh ${WEFT_EX_BIN}/classify-fashion-${lang}
              ${WEFT_EX_DIR}/mlp 1 ${WEFT_FM} 300 ${WEFT_EX_DIR}/cpp.txt)
    set_tests_properties(examples.classify_${lang} PROPERTIES LABELS "examples;${lang}"
      FIXTURES_REQUIRED "weft_examples_checkpoint;weft_examples_predictions" TIMEOUT 60)
  endforeach()

  # A LeNet checkpoint (examples/models/lenet-symbol.json after 2 batches of
  # 50 images) for the predictor services; Java: 200 requests from 4 clients,
  # every answer's class checked against a direct predict of the same image.
  set(WEFT_EX_LENET ${CMAKE_BINARY_DIR}/examples/lenet)
  add_test(NAME examples.train_lenet_checkpoint
    COMMAND bash -c "mkdir -p \"$1\" && shift && exec \"$@\"" train_lenet ${WEFT_EX_LENET}
            $<TARGET_FILE:weft_cli> train --symbol ${WEFT_EX}/models/lenet-symbol.json --data-dir ${WEFT_FM}
            --limit 100 --epochs 1 --batch-size 50 --progress none --save ${WEFT_EX_LENET}/lenet)
  set_tests_properties(examples.train_lenet_checkpoint PROPERTIES LABELS examples
    FIXTURES_SETUP weft_examples_lenet)
  add_test(NAME examples.lenet_service_java
    COMMAND ${WEFT_EX_BIN}/lenet-load-java ${WEFT_EX_LENET}/lenet-symbol.json
            ${WEFT_EX_LENET}/lenet-0001.params ${WEFT_FM} 200 4)
  set_tests_properties(examples.lenet_service_java PROPERTIES LABELS "examples;java"
    FIXTURES_REQUIRED weft_examples_lenet TIMEOUT 300)
  # The C# LeNet service: 200 requests from 4 clients, every class checked
  # against a direct predict (xavier-initialised checkpoint written by the run).
  add_test(NAME examples.predict_server_csharp
    COMMAND ${WEFT_MONO} ${WEFT_EX_SERVER_EXE} selftest ${WEFT_EX}/models/lenet-symbol.json
            ${CMAKE_BINARY_DIR}/examples/server-csharp 200 4)
  set_tests_properties(examples.predict_server_csharp PROPERTIES LABELS "examples;csharp"
    PASS_REGULAR_EXPRESSION "selftest OK" TIMEOUT 120)
endif()
