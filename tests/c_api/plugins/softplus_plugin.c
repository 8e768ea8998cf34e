/*
 * A small operator library for the tests (weft/op_plugin.h): plugin_softplus
 * (data; beta=1), y = log(1 + exp(beta x)) / beta, float32, with its
 * gradient sigmoid(beta x). Built twice by tests/CMakeLists.txt: once as is,
 * once with -DWEFT_OP_PLUGIN_VERSION=2 (a library built against another
 * header version, which Weft must refuse).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "weft/op_plugin.h"

#define WEFT_REQ_NULL 0
#define WEFT_REQ_ADD 3
#define FLOAT32 0

static const char* beta_of(const char* const* keys, const char* const* vals, int n, float* beta) {
  int i;
  *beta = 1.f;
  for (i = 0; i < n; ++i) {
    if (strcmp(keys[i], "beta") != 0) return "plugin_softplus: unknown parameter (only beta)";
    *beta = strtof(vals[i], NULL);
  }
  return *beta > 0 ? NULL : "plugin_softplus: beta must be positive";
}

static int64_t count(const WeftOpPluginTensor* t) {
  int64_t n = 1;
  int d;
  for (d = 0; d < t->ndim; ++d) n *= t->shape[d];
  return n;
}

static void store(int req, float* dst, float v) {
  if (req == WEFT_REQ_ADD)
    *dst += v;
  else if (req != WEFT_REQ_NULL)
    *dst = v;
}

static const char* infer_shape(const char* const* keys, const char* const* vals, int n,
                               const int* in_ndims, const int64_t* const* in_shapes, int* out_ndims,
                               int64_t* const* out_shapes, int max_ndim) {
  float beta;
  int d;
  const char* err = beta_of(keys, vals, n, &beta);
  if (err) return err;
  if (in_ndims[0] > max_ndim) return "plugin_softplus: rank too large";
  out_ndims[0] = in_ndims[0];
  for (d = 0; d < in_ndims[0]; ++d) out_shapes[0][d] = in_shapes[0][d];
  return NULL;
}

static const char* infer_type(const char* const* keys, const char* const* vals, int n,
                              const int* in_types, int* out_types) {
  (void)keys;
  (void)vals;
  (void)n;
  if (in_types[0] != FLOAT32) return "plugin_softplus: float32 only";
  out_types[0] = FLOAT32;
  return NULL;
}

static const char* forward(const char* const* keys, const char* const* vals, int n,
                           const WeftOpPluginTensor* in, const WeftOpPluginTensor* out,
                           const int* req) {
  float beta;
  int64_t i, m = count(&in[0]);
  const float* x = (const float*)in[0].data;
  float* y = (float*)out[0].data;
  const char* err = beta_of(keys, vals, n, &beta);
  if (err) return err;
  for (i = 0; i < m; ++i) {
    float z = beta * x[i];
    store(req[0], &y[i], (z > 0 ? z + log1pf(expf(-z)) : log1pf(expf(z))) / beta);
  }
  return NULL;
}

static const char* backward(const char* const* keys, const char* const* vals, int n,
                            const WeftOpPluginTensor* out_grad, const WeftOpPluginTensor* in,
                            const WeftOpPluginTensor* out, const WeftOpPluginTensor* in_grad,
                            const int* req) {
  float beta;
  int64_t i, m = count(&in[0]);
  const float* dy = (const float*)out_grad[0].data;
  const float* x = (const float*)in[0].data;
  float* dx = (float*)in_grad[0].data;
  const char* err = beta_of(keys, vals, n, &beta);
  (void)out;
  if (err) return err;
  for (i = 0; i < m; ++i) store(req[0], &dx[i], dy[i] / (1.f + expf(-beta * x[i])));
  return NULL;
}

static const WeftOpPluginOp kOps[1] = {
    {"plugin_softplus", "Softplus with a slope parameter beta, from an operator library.", 1, 1,
     infer_shape, infer_type, forward, backward}};

static const WeftOpPluginLibrary kLibrary = {WEFT_OP_PLUGIN_VERSION, "softplus_plugin", 1, kOps};

__attribute__((visibility("default"))) const WeftOpPluginLibrary* weft_op_plugin(void) {
  return &kLibrary;
}
