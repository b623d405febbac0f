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
static inline float tf_v16_hadd(tf_v16f v) {
  typedef float h8 __attribute__((vector_size(32)));
  union { tf_v16f v; h8 h[2]; } u8 = {v};
  h8 v8 = u8.h[0] + u8.h[1];
  typedef float h4 __attribute__((vector_size(16)));
  union { h8 v; h4 h[2]; } u4 = {v8};
  h4 v4 = u4.h[0] + u4.h[1];
  typedef int32_t s4 __attribute__((vector_size(16)));
  h4 p = (h4)v4;
  h4 q = p + __builtin_shuffle(p, (s4){2, 3, 2, 3});
  h4 r = q + __builtin_shuffle(q, (s4){1, 1, 1, 1});
  return r[0]; }
static inline float tf_v16_hmax(tf_v16f v) {
  typedef float h8 __attribute__((vector_size(32)));
  union { tf_v16f v; h8 h[2]; } u8 = {v};
#if defined(__AVX__)
  h8 v8 = __builtin_ia32_maxps256(u8.h[0], u8.h[1]);
#else
  typedef int32_t iv8 __attribute__((vector_size(32)));
  iv8 mv8 = u8.h[0] > u8.h[1];
  h8 v8 = (h8)(((iv8)u8.h[0] & mv8) | ((iv8)u8.h[1] & ~mv8));
#endif
  typedef float h4 __attribute__((vector_size(16)));
  union { h8 v; h4 h[2]; } u4 = {v8};
#if defined(__SSE__)
  h4 v4 = __builtin_ia32_maxps(u4.h[0], u4.h[1]);
#else
  typedef int32_t iv4 __attribute__((vector_size(16)));
  iv4 mv4 = u4.h[0] > u4.h[1];
  h4 v4 = (h4)(((iv4)u4.h[0] & mv4) | ((iv4)u4.h[1] & ~mv4));
#endif
  typedef int32_t s4 __attribute__((vector_size(16)));
  h4 p = (h4)v4;
#if defined(__SSE__)
  h4 q = __builtin_ia32_maxps(p, __builtin_shuffle(p, (s4){2, 3, 2, 3}));
#else
  typedef int32_t iq __attribute__((vector_size(16)));
  iq mq = p > __builtin_shuffle(p, (s4){2, 3, 2, 3});
  h4 q = (h4)(((iq)p & mq) | ((iq)__builtin_shuffle(p, (s4){2, 3, 2, 3}) & ~mq));
#endif
#if defined(__SSE__)
  h4 r = __builtin_ia32_maxps(q, __builtin_shuffle(q, (s4){1, 1, 1, 1}));
#else
  typedef int32_t ir __attribute__((vector_size(16)));
  ir mr = q > __builtin_shuffle(q, (s4){1, 1, 1, 1});
  h4 r = (h4)(((ir)q & mr) | ((ir)__builtin_shuffle(q, (s4){1, 1, 1, 1}) & ~mr));
#endif
  return r[0]; }
static float out_sum[8] __attribute__((aligned(64)));
static float out_sum_rf[128] __attribute__((aligned(64)));
static float out_exp[512] __attribute__((aligned(64)));
static float out_max[8] __attribute__((aligned(64)));
static float out_max_rf[128] __attribute__((aligned(64)));
__attribute__((noinline)) static int32_t tf_kernel(void* restrict x_raw, void* restrict out_raw) {
  float* restrict x = (float*)__builtin_assume_aligned(x_raw, 64);
  float* restrict out = (float*)__builtin_assume_aligned(out_raw, 64);
  /* serial: work 2176 */
  for (int32_t out_max_rf_i0_i1 = 0; out_max_rf_i0_i1 < 8; ++out_max_rf_i0_i1) {
    *(tf_v16fu*)(&out_max_rf[(((out_max_rf_i0_i1 / 4) * 64) + ((out_max_rf_i0_i1 % 4) * 16))]) = tf_v16_bc((-__builtin_inff()));
    for (int32_t out_max_rf_k_o = 0; out_max_rf_k_o < 4; ++out_max_rf_k_o) {
      *(tf_v16fu*)(&out_max_rf[(((out_max_rf_i0_i1 / 4) * 64) + ((out_max_rf_i0_i1 % 4) * 16))]) = tf_v16_max((*(const tf_v16fu*)(&out_max_rf[(((out_max_rf_i0_i1 / 4) * 64) + ((out_max_rf_i0_i1 % 4) * 16))])), (*(const tf_v16fu*)(&x[(((out_max_rf_k_o * 16) + ((out_max_rf_i0_i1 / 4) * 256)) + ((out_max_rf_i0_i1 % 4) * 64))])));
    }
  }
  /* serial: work 520 */
  for (int32_t out_max_i0_i1 = 0; out_max_i0_i1 < 8; ++out_max_i0_i1) {
    out_max[(((out_max_i0_i1 / 4) * 4) + (out_max_i0_i1 % 4))] = (-__builtin_inff());
    out_max[(((out_max_i0_i1 / 4) * 4) + (out_max_i0_i1 % 4))] = tf_max_float(out_max[(((out_max_i0_i1 / 4) * 4) + (out_max_i0_i1 % 4))], tf_v16_hmax((*(const tf_v16fu*)(&out_max_rf[(((out_max_i0_i1 / 4) * 64) + ((out_max_i0_i1 % 4) * 16))]))));
  }
  /* serial: work 53248 */
  for (int32_t out_exp_i0_i1 = 0; out_exp_i0_i1 < 8; ++out_exp_i0_i1) {
    for (int32_t out_exp_i2_0 = 0; out_exp_i2_0 < 4; ++out_exp_i2_0) {
      *(tf_v16fu*)(&out_exp[(((out_exp_i2_0 * 16) + ((out_exp_i0_i1 / 4) * 256)) + ((out_exp_i0_i1 % 4) * 64))]) = tf_v16_exp(((*(const tf_v16fu*)(&x[(((out_exp_i2_0 * 16) + ((out_exp_i0_i1 / 4) * 256)) + ((out_exp_i0_i1 % 4) * 64))])) - out_max[(((out_exp_i0_i1 / 4) * 4) + (out_exp_i0_i1 % 4))]));
    }
  }
  /* serial: work 2176 */
  for (int32_t out_sum_rf_i0_i1 = 0; out_sum_rf_i0_i1 < 8; ++out_sum_rf_i0_i1) {
    *(tf_v16fu*)(&out_sum_rf[(((out_sum_rf_i0_i1 / 4) * 64) + ((out_sum_rf_i0_i1 % 4) * 16))]) = tf_v16_bc(0.0f);
    for (int32_t out_sum_rf_k_o = 0; out_sum_rf_k_o < 4; ++out_sum_rf_k_o) {
      *(tf_v16fu*)(&out_sum_rf[(((out_sum_rf_i0_i1 / 4) * 64) + ((out_sum_rf_i0_i1 % 4) * 16))]) = ((*(const tf_v16fu*)(&out_sum_rf[(((out_sum_rf_i0_i1 / 4) * 64) + ((out_sum_rf_i0_i1 % 4) * 16))])) + (*(const tf_v16fu*)(&out_exp[(((out_sum_rf_k_o * 16) + ((out_sum_rf_i0_i1 / 4) * 256)) + ((out_sum_rf_i0_i1 % 4) * 64))])));
    }
  }
  /* serial: work 520 */
  for (int32_t out_sum_i0_i1 = 0; out_sum_i0_i1 < 8; ++out_sum_i0_i1) {
    out_sum[(((out_sum_i0_i1 / 4) * 4) + (out_sum_i0_i1 % 4))] = 0.0f;
    out_sum[(((out_sum_i0_i1 / 4) * 4) + (out_sum_i0_i1 % 4))] = (out_sum[(((out_sum_i0_i1 / 4) * 4) + (out_sum_i0_i1 % 4))] + tf_v16_hadd((*(const tf_v16fu*)(&out_sum_rf[(((out_sum_i0_i1 / 4) * 64) + ((out_sum_i0_i1 % 4) * 16))]))));
  }
  /* serial: work 2048 */
  for (int32_t out_i0_i1 = 0; out_i0_i1 < 8; ++out_i0_i1) {
    for (int32_t out_i2_0 = 0; out_i2_0 < 4; ++out_i2_0) {
      *(tf_v16fu*)(&out[(((out_i2_0 * 16) + ((out_i0_i1 / 4) * 256)) + ((out_i0_i1 % 4) * 64))]) = ((*(const tf_v16fu*)(&out_exp[(((out_i2_0 * 16) + ((out_i0_i1 / 4) * 256)) + ((out_i0_i1 % 4) * 64))])) * (1.0f / out_sum[(((out_i0_i1 / 4) * 4) + (out_i0_i1 % 4))]));
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
