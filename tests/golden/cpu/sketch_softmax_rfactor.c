#include <stdint.h>
#include <time.h>
static inline float tf_max_float(float a, float b) { return a > b ? a : b; }
typedef float tf_v8f __attribute__((vector_size(32)));
typedef float tf_v8fu __attribute__((vector_size(32), aligned(4)));
typedef int32_t tf_v8i __attribute__((vector_size(32)));
static inline tf_v8f tf_v8_bc(float s) { return (tf_v8f){0} + s; }
static inline tf_v8f tf_v8_sel(tf_v8i m, tf_v8f a, tf_v8f b) {
  return (tf_v8f)(((tf_v8i)a & m) | ((tf_v8i)b & ~m)); }
#if defined(__AVX__)
static inline tf_v8f tf_v8_max(tf_v8f a, tf_v8f b) { return __builtin_ia32_maxps256(a, b); }
static inline tf_v8f tf_v8_min(tf_v8f a, tf_v8f b) { return __builtin_ia32_minps256(a, b); }
#else
static inline tf_v8f tf_v8_max(tf_v8f a, tf_v8f b) { return tf_v8_sel(a > b, a, b); }
static inline tf_v8f tf_v8_min(tf_v8f a, tf_v8f b) { return tf_v8_sel(a < b, a, b); }
#endif
static inline tf_v8f tf_v8_exp(tf_v8f x) {
  x = tf_v8_min(tf_v8_max(x, tf_v8_bc(-87.3f)), tf_v8_bc(88.3f));
  tf_v8f big = x * 1.44269504f + 12582912.0f;
  tf_v8f nf = big - 12582912.0f;
  tf_v8f r = x - nf * 0.693359375f + nf * 2.12194440e-4f;
  tf_v8f p = r * 1.9875691500e-4f + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f; p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f; p = p * r + 5.0000001201e-1f;
  tf_v8i bits = ((tf_v8i)big - (0x4B400000 - 127)) << 23;
  return (p * r * r + r + 1.0f) * (tf_v8f)bits; }
static inline float tf_v8_hadd(tf_v8f v) {
  typedef float h4 __attribute__((vector_size(16)));
  union { tf_v8f v; h4 h[2]; } u4 = {v};
  h4 v4 = u4.h[0] + u4.h[1];
  typedef int32_t s4 __attribute__((vector_size(16)));
  h4 p = (h4)v4;
  h4 q = p + __builtin_shuffle(p, (s4){2, 3, 2, 3});
  h4 r = q + __builtin_shuffle(q, (s4){1, 1, 1, 1});
  return r[0]; }
static inline float tf_v8_hmax(tf_v8f v) {
  typedef float h4 __attribute__((vector_size(16)));
  union { tf_v8f v; h4 h[2]; } u4 = {v};
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
static float out_sum_rf[64] __attribute__((aligned(64)));
static float out_max[8] __attribute__((aligned(64)));
static float out_max_rf[64] __attribute__((aligned(64)));
__attribute__((noinline)) static int32_t tf_kernel(void* restrict x_raw, void* restrict out_raw) {
  float* restrict x = (float*)__builtin_assume_aligned(x_raw, 64);
  float* restrict out = (float*)__builtin_assume_aligned(out_raw, 64);
  /* serial: work 32064 */
  for (int32_t out_max_rf_i0 = 0; out_max_rf_i0 < 8; ++out_max_rf_i0) {
    *(tf_v8fu*)(&out_max_rf[(out_max_rf_i0 * 8)]) = tf_v8_bc((-__builtin_inff()));
    for (int32_t out_max_rf_k_o = 0; out_max_rf_k_o < 125; ++out_max_rf_k_o) {
      *(tf_v8fu*)(&out_max_rf[(out_max_rf_i0 * 8)]) = tf_v8_max((*(const tf_v8fu*)(&out_max_rf[(out_max_rf_i0 * 8)])), (*(const tf_v8fu*)(&x[((out_max_rf_i0 * 1000) + (out_max_rf_k_o * 8))])));
    }
  }
  /* serial: work 264 */
  for (int32_t out_max_i0 = 0; out_max_i0 < 8; ++out_max_i0) {
    out_max[out_max_i0] = (-__builtin_inff());
    out_max[out_max_i0] = tf_max_float(out_max[out_max_i0], tf_v8_hmax((*(const tf_v8fu*)(&out_max_rf[(out_max_i0 * 8)]))));
  }
  /* serial: work 848064 */
  for (int32_t out_sum_rf_i0 = 0; out_sum_rf_i0 < 8; ++out_sum_rf_i0) {
    *(tf_v8fu*)(&out_sum_rf[(out_sum_rf_i0 * 8)]) = tf_v8_bc(0.0f);
    for (int32_t out_sum_rf_k_o = 0; out_sum_rf_k_o < 125; ++out_sum_rf_k_o) {
      *(tf_v8fu*)(&out_sum_rf[(out_sum_rf_i0 * 8)]) = ((*(const tf_v8fu*)(&out_sum_rf[(out_sum_rf_i0 * 8)])) + tf_v8_exp(((*(const tf_v8fu*)(&x[((out_sum_rf_i0 * 1000) + (out_sum_rf_k_o * 8))])) - out_max[out_sum_rf_i0])));
    }
  }
  /* serial: work 264 */
  for (int32_t out_sum_i0 = 0; out_sum_i0 < 8; ++out_sum_i0) {
    out_sum[out_sum_i0] = 0.0f;
    out_sum[out_sum_i0] = (out_sum[out_sum_i0] + tf_v8_hadd((*(const tf_v8fu*)(&out_sum_rf[(out_sum_i0 * 8)]))));
  }
  /* serial: work 848000 */
  for (int32_t out_i0 = 0; out_i0 < 8; ++out_i0) {
    for (int32_t out_i1_0 = 0; out_i1_0 < 125; ++out_i1_0) {
      *(tf_v8fu*)(&out[((out_i0 * 1000) + (out_i1_0 * 8))]) = (tf_v8_exp(((*(const tf_v8fu*)(&x[((out_i0 * 1000) + (out_i1_0 * 8))])) - out_max[out_i0])) * (1.0f / out_sum[out_i0]));
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
