#include <stdint.h>
#include <time.h>
typedef float tf_v16f __attribute__((vector_size(64)));
typedef float tf_v16fu __attribute__((vector_size(64), aligned(4)));
typedef int32_t tf_v16i __attribute__((vector_size(64)));
static inline tf_v16f tf_v16_bc(float s) { return (tf_v16f){0} + s; }
static inline tf_v16f tf_v16_sel(tf_v16i m, tf_v16f a, tf_v16f b) {
  return (tf_v16f)(((tf_v16i)a & m) | ((tf_v16i)b & ~m)); }
#if defined(__AVX512F__)
static inline tf_v16f tf_v16_max(tf_v16f a, tf_v16f b) { return __builtin_ia32_maxps512_mask(a, b, a, (unsigned short)-1, 4); }
static inline tf_v16f tf_v16_min(tf_v16f a, tf_v16f b) { return __builtin_ia32_minps512_mask(a, b, a, (unsigned short)-1, 4); }
#else
static inline tf_v16f tf_v16_max(tf_v16f a, tf_v16f b) { return tf_v16_sel(a > b, a, b); }
static inline tf_v16f tf_v16_min(tf_v16f a, tf_v16f b) { return tf_v16_sel(a < b, a, b); }
#endif
__attribute__((noinline)) static int32_t tf_kernel(void* restrict data_raw, void* restrict gpool_raw) {
  float* restrict data = (float*)__builtin_assume_aligned(data_raw, 64);
  float* restrict gpool = (float*)__builtin_assume_aligned(gpool_raw, 64);
  /* serial: work 102400 */
  for (int32_t gpool_n_cc_y_x = 0; gpool_n_cc_y_x < 32; ++gpool_n_cc_y_x) {
    float gpool_sum[16] __attribute__((aligned(64)));
    *(tf_v16fu*)(&gpool_sum[0]) = tf_v16_bc(0.0f);
    for (int32_t gpool_sum_ky = 0; gpool_sum_ky < 7; ++gpool_sum_ky) {
      for (int32_t gpool_sum_kx = 0; gpool_sum_kx < 7; ++gpool_sum_kx) {
        *(tf_v16fu*)(&gpool_sum[0]) = ((*(const tf_v16fu*)(&gpool_sum[0])) + (*(const tf_v16fu*)(&data[(((gpool_n_cc_y_x * 784) + (gpool_sum_ky * 112)) + (gpool_sum_kx * 16))])));
      }
    }
    *(tf_v16fu*)(&gpool[(gpool_n_cc_y_x * 16)]) = ((*(const tf_v16fu*)(&gpool_sum[0])) / 49.0f);
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
