#include <stdint.h>
#include <time.h>
static inline float tf_max_float(float a, float b) { return a > b ? a : b; }
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
static inline tf_v16f tf_v16_exp(tf_v16f x) {
  x = tf_v16_min(tf_v16_max(x, tf_v16_bc(-87.3f)), tf_v16_bc(88.3f));
  tf_v16f big = x * 1.44269504f + 12582912.0f;
  tf_v16f nf = big - 12582912.0f;
  tf_v16f r = x - nf * 0.693359375f + nf * 2.12194440e-4f;
  tf_v16f p = r * 1.9875691500e-4f + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f; p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f; p = p * r + 5.0000001201e-1f;
  tf_v16i bits = ((tf_v16i)big - (0x4B400000 - 127)) << 23;
  return (p * r * r + r + 1.0f) * (tf_v16f)bits; }
static float out_sum[8] __attribute__((aligned(64)));
static float out_exp[8000] __attribute__((aligned(64)));
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
  /* serial: work 838656 */
  for (int32_t out_exp_i0 = 0; out_exp_i0 < 8; ++out_exp_i0) {
    for (int32_t out_exp_i1_0 = 0; out_exp_i1_0 < 63; ++out_exp_i1_0) {
      if ((((out_exp_i1_0 * 16) + 15) < 1000)) {
        *(tf_v16fu*)(&out_exp[((out_exp_i0 * 1000) + (out_exp_i1_0 * 16))]) = tf_v16_exp(((*(const tf_v16fu*)(&x[((out_exp_i0 * 1000) + (out_exp_i1_0 * 16))])) - out_max[out_exp_i0]));
      } else {
        for (int32_t out_exp_i1_1 = 0; out_exp_i1_1 < 16; ++out_exp_i1_1) {
          if ((((out_exp_i1_0 * 16) + out_exp_i1_1) < 1000)) {
            out_exp[(((out_exp_i0 * 1000) + (out_exp_i1_0 * 16)) + out_exp_i1_1)] = __builtin_expf((x[(((out_exp_i0 * 1000) + (out_exp_i1_0 * 16)) + out_exp_i1_1)] - out_max[out_exp_i0]));
          }
        }
      }
    }
  }
  /* serial: work 32008 */
  for (int32_t out_sum_i0 = 0; out_sum_i0 < 8; ++out_sum_i0) {
    out_sum[out_sum_i0] = 0.0f;
    for (int32_t out_sum_k = 0; out_sum_k < 1000; ++out_sum_k) {
      out_sum[out_sum_i0] = (out_sum[out_sum_i0] + out_exp[((out_sum_i0 * 1000) + out_sum_k)]);
    }
  }
  /* serial: work 32256 */
  for (int32_t out_i0 = 0; out_i0 < 8; ++out_i0) {
    for (int32_t out_i1_0 = 0; out_i1_0 < 63; ++out_i1_0) {
      if ((((out_i1_0 * 16) + 15) < 1000)) {
        *(tf_v16fu*)(&out[((out_i0 * 1000) + (out_i1_0 * 16))]) = ((*(const tf_v16fu*)(&out_exp[((out_i0 * 1000) + (out_i1_0 * 16))])) * (1.0f / out_sum[out_i0]));
      } else {
        for (int32_t out_i1_1 = 0; out_i1_1 < 16; ++out_i1_1) {
          if ((((out_i1_0 * 16) + out_i1_1) < 1000)) {
            out[(((out_i0 * 1000) + (out_i1_0 * 16)) + out_i1_1)] = (out_exp[(((out_i0 * 1000) + (out_i1_0 * 16)) + out_i1_1)] / out_sum[out_i0]);
          }
        }
      }
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
