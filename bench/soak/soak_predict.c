/*
 * Soak: a predictor called CALLS times through the C ABI, printing resident
 * memory and live handles every INTERVAL seconds, then freeing everything and
 * printing the live handles again (bench/soak/README.md). Bounded: it stops
 * after CALLS calls. Not a test (issue 24's soak bench).
 *
 *   weft_soak_predict SYMBOL.json PARAMS CALLS D1,D2,... [INTERVAL_S]
 *
 * Exit 0 when every call succeeded and the live handles returned to their
 * count before the predictor was created; 1 otherwise; 2 on a usage error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "weft/c_api.h"

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Resident memory in MB (/proc/self/statm: pages). */
static double rss_mb(void) {
  long size = 0, resident = 0;
  FILE* f = fopen("/proc/self/statm", "r");
  if (!f) return -1;
  if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
  fclose(f);
  return (double)resident * 4096.0 / (1024.0 * 1024.0);
}

int main(int argc, char** argv) {
  const char* names[] = {"data"};
  int64_t dims[8];
  size_t ndim = 0, ind_ptr[2], in_len = 1, out_len = 0, live0, i;
  long long calls, c;
  double interval = 10, t0, next, warm_rss = -1, last_rss = 0, max_rss = 0;
  float *in, *out;
  char* s;
  WeftPredictor* p = NULL;
  if (argc != 5 && argc != 6) {
    fprintf(stderr, "usage: weft_soak_predict SYMBOL.json PARAMS CALLS D1,D2,... [INTERVAL_S]\n");
    return 2;
  }
  calls = atoll(argv[3]);
  for (s = argv[4]; *s && ndim < 8; ++ndim) {
    dims[ndim] = strtoll(s, &s, 10);
    in_len *= (size_t)dims[ndim];
    if (*s == ',') ++s;
  }
  if (argc == 6) interval = atof(argv[5]);
  if (calls <= 0 || ndim == 0 || interval <= 0) {
    fprintf(stderr, "weft_soak_predict: bad CALLS, shape or interval\n");
    return 2;
  }
  live0 = weft_live_handle_count();
  ind_ptr[0] = 0;
  ind_ptr[1] = ndim;
  if (weft_predictor_create_from_files(argv[1], argv[2], 1, names, ind_ptr, dims, WEFT_CPU, 0, 0,
                                       NULL, 0, NULL, NULL, &p) != WEFT_OK) {
    fprintf(stderr, "weft_soak_predict: %s\n", weft_last_error());
    return 1;
  }
  {
    int64_t oshape[8];
    size_t ondim = 0, k;
    if (weft_predictor_output_shape(p, 1, ind_ptr, dims, 0, oshape, 8, &ondim) != WEFT_OK) {
      fprintf(stderr, "weft_soak_predict: %s\n", weft_last_error());
      return 1;
    }
    out_len = 1;
    for (k = 0; k < ondim; ++k) out_len *= (size_t)oshape[k];
  }
  in = malloc(in_len * sizeof(float));
  out = malloc(out_len * sizeof(float));
  for (i = 0; i < in_len; ++i) in[i] = (float)(i % 251) / 251.0f;
  printf("%10s %12s %10s %8s\n", "seconds", "calls", "rss_mb", "handles");
  t0 = now_s();
  next = t0 + interval;
  for (c = 0; c < calls; ++c) {
    if (weft_predictor_predict_float(p, in, in_len, dims, ndim, out, out_len) != WEFT_OK) {
      fprintf(stderr, "weft_soak_predict: call %lld: %s\n", c, weft_last_error());
      return 1;
    }
    if (now_s() >= next || c + 1 == calls) {
      last_rss = rss_mb();
      if (warm_rss < 0 && c >= calls / 10)
        warm_rss = last_rss; /* after warm-up: 10 % of the calls */
      if (last_rss > max_rss) max_rss = last_rss;
      printf("%10.1f %12lld %10.1f %8zu\n", now_s() - t0, c + 1, last_rss,
             weft_live_handle_count());
      fflush(stdout);
      next += interval;
    }
  }
  weft_predictor_free(p);
  weft_wait_all();
  free(in);
  free(out);
  printf(
      "calls %lld in %.1f s; rss after warm-up %.1f MB, at the end %.1f MB (%+.1f %%), peak %.1f "
      "MB; "
      "live handles %zu -> %zu after free\n",
      calls, now_s() - t0, warm_rss, last_rss,
      warm_rss > 0 ? 100.0 * (last_rss - warm_rss) / warm_rss : 0.0, max_rss, live0,
      weft_live_handle_count());
  return weft_live_handle_count() == live0 ? 0 : 1;
}
