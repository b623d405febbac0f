#include <stdint.h>
#include <time.h>
__attribute__((noinline)) static int32_t tf_kernel(void* restrict x_raw, void* restrict out_raw) {
  float* restrict x = (float*)__builtin_assume_aligned(x_raw, 64);
  float* restrict out = (float*)__builtin_assume_aligned(out_raw, 64);
  /* serial: work 960 */
  for (int32_t out_i0_i1_i2 = 0; out_i0_i1_i2 < 96; ++out_i0_i1_i2) {
    #pragma omp simd
    for (int32_t out_i3 = 0; out_i3 < 5; ++out_i3) {
      out[(((out_i3 + (((out_i0_i1_i2 / 3) / 16) * 240)) + (((out_i0_i1_i2 / 3) % 16) * 15)) + ((out_i0_i1_i2 % 3) * 5))] = x[(((out_i3 + (((out_i0_i1_i2 / 3) / 16) * 240)) + ((out_i0_i1_i2 % 3) * 80)) + (((out_i0_i1_i2 / 3) % 16) * 5))];
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
