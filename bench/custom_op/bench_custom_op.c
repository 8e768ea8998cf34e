/*
 * C side of bench/bench_custom_op.sh: microseconds per executor forward (and
 * wait) of one node, the built-in `identity` or a Custom identity written as
 * C callbacks, on 1 and on 1M float32 elements. Prints "<name> <us>".
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "weft/c_api.h"

#define CHECK(x)                                                 \
  do {                                                           \
    if ((x) != WEFT_OK) {                                        \
      fprintf(stderr, "%s failed: %s\n", #x, weft_last_error()); \
      return -1;                                                 \
    }                                                            \
  } while (0)

static const char* const kArgs[] = {"data", NULL};
static const char* const kOuts[] = {"output", NULL};
static const char* list_args(void* s, const char* const** out) {
  (void)s;
  *out = kArgs;
  return NULL;
}
static const char* list_outs(void* s, const char* const** out) {
  (void)s;
  *out = kOuts;
  return NULL;
}
static const char* infer_shape(void* s, int num, int* ndims, int64_t* const* shapes, int max) {
  int d;
  (void)s;
  (void)num;
  (void)max;
  ndims[1] = ndims[0];
  for (d = 0; d < ndims[0]; ++d) shapes[1][d] = shapes[0][d];
  return NULL;
}
static const char* copy(WeftNDArray* from, WeftNDArray* to) {
  void *src, *dst;
  int64_t n = 0;
  if (weft_ndarray_get_data(from, &src) || weft_ndarray_get_data(to, &dst) ||
      weft_ndarray_size(from, &n))
    return "identity: cannot read the arrays";
  memcpy(dst, src, (size_t)n * 4);
  return NULL;
}
static const char* forward(void* s, int t, const int* req, WeftNDArray* const* in, int ni,
                           WeftNDArray* const* out, int no, WeftNDArray* const* aux, int na) {
  (void)s, (void)t, (void)req, (void)ni, (void)no, (void)aux, (void)na;
  return copy(in[0], out[0]);
}
static const char* create_op(void* s, const char* ctx, int num, const int* nd,
                             const int64_t* const* sh, const int* dt, WeftCustomOp* out) {
  (void)s, (void)ctx, (void)num, (void)nd, (void)sh, (void)dt;
  out->forward = forward;
  return NULL;
}
static const char* creator(void* u, const char* t, const char* const* k, const char* const* v,
                           int n, WeftCustomOpProp* out) {
  (void)u, (void)t, (void)k, (void)v, (void)n;
  out->list_arguments = list_args;
  out->list_outputs = list_outs;
  out->infer_shape = infer_shape;
  out->create_operator = create_op;
  return NULL;
}

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Microseconds per forward + wait of op (JSON node text) on n elements. */
static double bench(const char* node, int64_t n, int iters) {
  char json[512];
  const char* names[1] = {"x"};
  const size_t ind[2] = {0, 1};
  WeftSymbolHandle* sym = NULL;
  WeftExecutor* ex = NULL;
  WeftNDArrayList* outs = NULL;
  WeftNDArray* out = NULL;
  double t0 = 0;
  int i;
  snprintf(json, sizeof(json),
           "{\"nodes\": [{\"op\": \"null\", \"name\": \"x\", \"inputs\": []}, %s],"
           " \"arg_nodes\": [0], \"heads\": [[1, 0, 0]]}",
           node);
  CHECK(weft_symbol_from_json(json, &sym));
  CHECK(weft_executor_simple_bind(sym, WEFT_CPU, 0, 1, names, ind, &n, 0, NULL, NULL, "null", &ex));
  CHECK(weft_executor_outputs(ex, &outs));
  CHECK(weft_ndarray_list_get(outs, 0, &out));
  for (i = -iters / 10; i < iters; ++i) { /* the first tenth warms up */
    if (i == 0) t0 = now_us();
    CHECK(weft_executor_forward(ex, 0));
    CHECK(weft_ndarray_wait_to_read(out));
  }
  t0 = (now_us() - t0) / iters;
  weft_ndarray_free(out);
  weft_ndarray_list_free(outs);
  weft_executor_free(ex);
  weft_symbol_free(sym);
  return t0;
}

int main(void) {
  const char* builtin = "{\"op\": \"identity\", \"name\": \"y\", \"inputs\": [[0, 0, 0]]}";
  const char* custom =
      "{\"op\": \"Custom\", \"name\": \"y\", \"attrs\": {\"op_type\": \"bench_identity\"},"
      " \"inputs\": [[0, 0, 0]]}";
  if (weft_custom_op_register("bench_identity", creator, NULL, NULL) != WEFT_OK) return 1;
  printf("builtin_1 %.2f\n", bench(builtin, 1, 20000));
  printf("custom_1 %.2f\n", bench(custom, 1, 20000));
  printf("builtin_1m %.2f\n", bench(builtin, 1 << 20, 300));
  printf("custom_1m %.2f\n", bench(custom, 1 << 20, 300));
  return 0;
}
