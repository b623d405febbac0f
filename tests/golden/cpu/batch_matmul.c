#include <stdint.h>
#include <math.h>
#include <time.h>
static inline float tf_min_float(float a, float b) { return a < b ? a : b; }
static inline float tf_max_float(float a, float b) { return a > b ? a : b; }
static inline double tf_min_double(double a, double b) { return a < b ? a : b; }
static inline double tf_max_double(double a, double b) { return a > b ? a : b; }
__attribute__((noinline)) static int32_t tf_kernel(void* restrict a_raw, void* restrict b_raw, void* restrict out_raw) {
  float* restrict a = (float*)__builtin_assume_aligned(a_raw, 64);
  float* restrict b = (float*)__builtin_assume_aligned(b_raw, 64);
  float* restrict out = (float*)__builtin_assume_aligned(out_raw, 64);
  #pragma omp parallel for schedule(static)
  for (int32_t out_b_i = 0; out_b_i < 1536; ++out_b_i) {
    #pragma omp simd
    for (int32_t out_j = 0; out_j < 128; ++out_j) {
      out[((out_j + ((out_b_i / 128) * 16384)) + ((out_b_i % 128) * 128))] = 0.0f;
    }
    for (int32_t out_k = 0; out_k < 64; ++out_k) {
      #pragma omp simd
      for (int32_t out_j = 0; out_j < 128; ++out_j) {
        out[((out_j + ((out_b_i / 128) * 16384)) + ((out_b_i % 128) * 128))] = (out[((out_j + ((out_b_i / 128) * 16384)) + ((out_b_i % 128) * 128))] + (a[((out_k + ((out_b_i / 128) * 8192)) + ((out_b_i % 128) * 64))] * b[(((out_k * 128) + out_j) + ((out_b_i / 128) * 8192))]));
      }
    }
  }
  return 0;
}

int32_t tf_entry(void** args) { return tf_kernel(args[0], args[1], args[2]); }
double tf_time(void** args, int32_t number) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int32_t i = 0; i < number; ++i) tf_kernel(args[0], args[1], args[2]);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return ((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9) / (number > 0 ? number : 1);
}
