#include <stdint.h>
#include <time.h>
__attribute__((noinline)) static int32_t tf_kernel(void* restrict x_raw, void* restrict out_raw) {
  float* restrict x = (float*)__builtin_assume_aligned(x_raw, 64);
  float* restrict out = (float*)__builtin_assume_aligned(out_raw, 64);
  /* serial: work 8192 */
  for (int32_t out_n_c_h_w = 0; out_n_c_h_w < 256; ++out_n_c_h_w) {
    #pragma omp simd
    for (int32_t out_cb = 0; out_cb < 16; ++out_cb) {
      out[(((out_cb + (((out_n_c_h_w / 8) / 8) * 1024)) + (((out_n_c_h_w / 8) % 8) * 128)) + ((out_n_c_h_w % 8) * 16))] = x[((((out_cb * 64) + (((out_n_c_h_w / 8) / 8) * 1024)) + (((out_n_c_h_w / 8) % 8) * 8)) + (out_n_c_h_w % 8))];
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
