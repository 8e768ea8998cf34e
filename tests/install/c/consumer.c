/*
 * A C program built against an installed Weft (tests/install): found with
 * find_package(Weft) (CMakeLists.txt here) or with `pkg-config weft`. It checks
 * the library's version and ABI against the installed header, creates an
 * array, runs one operator on it, reads the result back, frees everything and
 * checks that no handle is left. Prints "weft consumer ok" and exits 0 on
 * success; exits 1 with the failing call and the library's message otherwise.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "weft/c_api.h"

#define CHECK(call)                                                           \
  do {                                                                        \
    if ((call) != WEFT_OK) {                                                  \
      fprintf(stderr, "consumer: %s failed: %s\n", #call, weft_last_error()); \
      return 1;                                                               \
    }                                                                         \
  } while (0)

int main(int argc, char** argv) {
  const char* want_version = argc > 1 ? argv[1] : NULL;
  if (weft_abi_version() != WEFT_API_VERSION) {
    fprintf(stderr, "consumer: library ABI %d, header ABI %d\n", weft_abi_version(),
            WEFT_API_VERSION);
    return 1;
  }
  if (want_version != NULL && strcmp(weft_version(), want_version) != 0) {
    fprintf(stderr, "consumer: library version %s, expected %s\n", weft_version(), want_version);
    return 1;
  }
  const int64_t shape[2] = {2, 3};
  const float in[6] = {-1, 2, -3, 4, -5, 6};
  float out[6] = {0};
  WeftNDArray* x = NULL;
  WeftNDArray* y = NULL;
  size_t num_out = 0;
  CHECK(weft_ndarray_create(shape, 2, WEFT_FLOAT32, WEFT_CPU, 0, &x));
  CHECK(weft_ndarray_copy_from(x, in, sizeof in));
  CHECK(weft_op_invoke("relu", &x, 1, NULL, NULL, 0, &y, 1, &num_out));
  if (num_out != 1) {
    fprintf(stderr, "consumer: relu gave %zu outputs\n", num_out);
    return 1;
  }
  CHECK(weft_ndarray_copy_to(y, out, sizeof out));
  for (int i = 0; i < 6; ++i) {
    float want = in[i] > 0 ? in[i] : 0;
    if (out[i] != want) {
      fprintf(stderr, "consumer: relu[%d] = %g, expected %g\n", i, out[i], want);
      return 1;
    }
  }
  CHECK(weft_ndarray_free(y));
  CHECK(weft_ndarray_free(x));
  if (weft_live_handle_count() != 0) {
    fprintf(stderr, "consumer: %zu handles left\n", weft_live_handle_count());
    return 1;
  }
  printf("weft consumer ok: weft %s, ABI %d\n", weft_version(), weft_abi_version());
  return 0;
}
