#include <stdint.h>
#include <time.h>
static inline float tf_max_float(float a, float b) { return a > b ? a : b; }
static float out_sum[8] __attribute__((aligned(64)));
static float out_max[8] __attribute__((aligned(64)));
__attribute__((noinline)) static int32_t tf_kernel(void* restrict x_raw, void* restrict out_raw) {
  float* restrict x = (float*)__builtin_assume_aligned(x_raw, 64);
  float* restrict out = (float*)__builtin_assume_aligned(out_raw, 64);
  /* serial: work 32008 */
  for (int32_t out_max_i0 = 0; out_max_i0 < 8; ++out_max_i0) {
    out_max[out_max_i0] = (-__builtin_inff());
    for (int32_t out_max_k = 0; out_max_k < 1000; ++out_max_k) {
      out_max[out_max_i0] = tf_max_float(out_max[out_max_i0], x[((out_max_i0 * 1000) + out_max_k)]);
    }
  }
  /* serial: work 848008 */
  for (int32_t out_sum_i0 = 0; out_sum_i0 < 8; ++out_sum_i0) {
    out_sum[out_sum_i0] = 0.0f;
    for (int32_t out_sum_k = 0; out_sum_k < 1000; ++out_sum_k) {
      out_sum[out_sum_i0] = (out_sum[out_sum_i0] + __builtin_expf((x[((out_sum_i0 * 1000) + out_sum_k)] - out_max[out_sum_i0])));
    }
  }
  /* serial: work 848000 */
  for (int32_t out_i0 = 0; out_i0 < 8; ++out_i0) {
    #pragma omp simd
    for (int32_t out_i1 = 0; out_i1 < 1000; ++out_i1) {
      out[((out_i0 * 1000) + out_i1)] = (__builtin_expf((x[((out_i0 * 1000) + out_i1)] - out_max[out_i0])) / out_sum[out_i0]);
    }
  }
  return 0;
}

int32_t tf_entry(void** args) { return tf_kernel(args[0], args[1]); }
double tf_time(void** args, int32_t number) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int32_t i = 0; i < number; ++i) tf_kernel(args[0], args[1]);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return ((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9) / (number > 0 ? number : 1);
}
