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
static float attn_bias[128] __attribute__((aligned(64)));
static float attn_kp[98304] __attribute__((aligned(64)));
__attribute__((noinline)) static int32_t tf_kernel(void* restrict q_raw, void* restrict k_raw, void* restrict v_raw, void* restrict mask_raw, void* restrict attn_raw) {
  float* restrict q = (float*)__builtin_assume_aligned(q_raw, 64);
  float* restrict k = (float*)__builtin_assume_aligned(k_raw, 64);
  float* restrict v = (float*)__builtin_assume_aligned(v_raw, 64);
  float* restrict mask = (float*)__builtin_assume_aligned(mask_raw, 64);
  float* restrict attn = (float*)__builtin_assume_aligned(attn_raw, 64);
  /* serial: work 294912 */
  for (int32_t attn_kp_b_h_d = 0; attn_kp_b_h_d < 768; ++attn_kp_b_h_d) {
    for (int32_t attn_kp_j_0 = 0; attn_kp_j_0 < 8; ++attn_kp_j_0) {
      #pragma omp simd
      for (int32_t attn_kp_j_1 = 0; attn_kp_j_1 < 16; ++attn_kp_j_1) {
        attn_kp[((((attn_kp_j_0 * 16) + attn_kp_j_1) + ((attn_kp_b_h_d / 64) * 8192)) + ((attn_kp_b_h_d % 64) * 128))] = (k[((((attn_kp_j_0 * 12288) + (attn_kp_j_1 * 768)) + ((attn_kp_b_h_d / 64) * 64)) + (attn_kp_b_h_d % 64))] * 0.125f);
      }
    }
  }
  for (int32_t attn_bias_j = 0; attn_bias_j < 128; ++attn_bias_j) {
    attn_bias[attn_bias_j] = mask[attn_bias_j];
  }
  #pragma omp parallel for schedule(static)
  for (int32_t attn_b_h_i_0 = 0; attn_b_h_i_0 < 192; ++attn_b_h_i_0) {
    float attn_score[1024] __attribute__((aligned(64)));
    for (int32_t attn_score_j_0 = 0; attn_score_j_0 < 3; ++attn_score_j_0) {
      *(tf_v16fu*)(&attn_score[(attn_score_j_0 * 32)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 16)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 128)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 144)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 256)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 272)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 384)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 400)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 512)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 528)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 640)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 656)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 768)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 784)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 896)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 912)]) = tf_v16_bc(0.0f);
      for (int32_t attn_score_d = 0; attn_score_d < 64; ++attn_score_d) {
        *(tf_v16fu*)(&attn_score[(attn_score_j_0 * 32)]) = ((*(const tf_v16fu*)(&attn_score[(attn_score_j_0 * 32)])) + (q[((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64))] * (*(const tf_v16fu*)(&attn_kp[(((attn_score_d * 128) + (attn_score_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 8192))]))));
        *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 16)]) = ((*(const tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 16)])) + (q[((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64))] * (*(const tf_v16fu*)(&attn_kp[((((attn_score_d * 128) + (attn_score_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 8192)) + 16)]))));
        *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 128)]) = ((*(const tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 128)])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 768)] * (*(const tf_v16fu*)(&attn_kp[(((attn_score_d * 128) + (attn_score_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 8192))]))));
        *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 144)]) = ((*(const tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 144)])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 768)] * (*(const tf_v16fu*)(&attn_kp[((((attn_score_d * 128) + (attn_score_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 8192)) + 16)]))));
        *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 256)]) = ((*(const tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 256)])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 1536)] * (*(const tf_v16fu*)(&attn_kp[(((attn_score_d * 128) + (attn_score_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 8192))]))));
        *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 272)]) = ((*(const tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 272)])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 1536)] * (*(const tf_v16fu*)(&attn_kp[((((attn_score_d * 128) + (attn_score_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 8192)) + 16)]))));
        *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 384)]) = ((*(const tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 384)])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 2304)] * (*(const tf_v16fu*)(&attn_kp[(((attn_score_d * 128) + (attn_score_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 8192))]))));
        *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 400)]) = ((*(const tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 400)])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 2304)] * (*(const tf_v16fu*)(&attn_kp[((((attn_score_d * 128) + (attn_score_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 8192)) + 16)]))));
        *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 512)]) = ((*(const tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 512)])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 3072)] * (*(const tf_v16fu*)(&attn_kp[(((attn_score_d * 128) + (attn_score_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 8192))]))));
        *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 528)]) = ((*(const tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 528)])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 3072)] * (*(const tf_v16fu*)(&attn_kp[((((attn_score_d * 128) + (attn_score_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 8192)) + 16)]))));
        *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 640)]) = ((*(const tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 640)])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 3840)] * (*(const tf_v16fu*)(&attn_kp[(((attn_score_d * 128) + (attn_score_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 8192))]))));
        *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 656)]) = ((*(const tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 656)])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 3840)] * (*(const tf_v16fu*)(&attn_kp[((((attn_score_d * 128) + (attn_score_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 8192)) + 16)]))));
        *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 768)]) = ((*(const tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 768)])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 4608)] * (*(const tf_v16fu*)(&attn_kp[(((attn_score_d * 128) + (attn_score_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 8192))]))));
        *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 784)]) = ((*(const tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 784)])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 4608)] * (*(const tf_v16fu*)(&attn_kp[((((attn_score_d * 128) + (attn_score_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 8192)) + 16)]))));
        *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 896)]) = ((*(const tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 896)])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 5376)] * (*(const tf_v16fu*)(&attn_kp[(((attn_score_d * 128) + (attn_score_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 8192))]))));
        *(tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 912)]) = ((*(const tf_v16fu*)(&attn_score[((attn_score_j_0 * 32) + 912)])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 5376)] * (*(const tf_v16fu*)(&attn_kp[((((attn_score_d * 128) + (attn_score_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 8192)) + 16)]))));
      }
    }
    {
      *(tf_v16fu*)(&attn_score[96]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[112]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[224]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[240]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[352]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[368]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[480]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[496]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[608]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[624]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[736]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[752]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[864]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[880]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[992]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_score[1008]) = tf_v16_bc(0.0f);
      for (int32_t attn_score_d = 0; attn_score_d < 64; ++attn_score_d) {
        *(tf_v16fu*)(&attn_score[96]) = ((*(const tf_v16fu*)(&attn_score[96])) + (q[((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64))] * (*(const tf_v16fu*)(&attn_kp[(((attn_score_d * 128) + ((attn_b_h_i_0 / 16) * 8192)) + 96)]))));
        *(tf_v16fu*)(&attn_score[112]) = ((*(const tf_v16fu*)(&attn_score[112])) + (q[((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64))] * (*(const tf_v16fu*)(&attn_kp[(((attn_score_d * 128) + ((attn_b_h_i_0 / 16) * 8192)) + 112)]))));
        *(tf_v16fu*)(&attn_score[224]) = ((*(const tf_v16fu*)(&attn_score[224])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 768)] * (*(const tf_v16fu*)(&attn_kp[(((attn_score_d * 128) + ((attn_b_h_i_0 / 16) * 8192)) + 96)]))));
        *(tf_v16fu*)(&attn_score[240]) = ((*(const tf_v16fu*)(&attn_score[240])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 768)] * (*(const tf_v16fu*)(&attn_kp[(((attn_score_d * 128) + ((attn_b_h_i_0 / 16) * 8192)) + 112)]))));
        *(tf_v16fu*)(&attn_score[352]) = ((*(const tf_v16fu*)(&attn_score[352])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 1536)] * (*(const tf_v16fu*)(&attn_kp[(((attn_score_d * 128) + ((attn_b_h_i_0 / 16) * 8192)) + 96)]))));
        *(tf_v16fu*)(&attn_score[368]) = ((*(const tf_v16fu*)(&attn_score[368])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 1536)] * (*(const tf_v16fu*)(&attn_kp[(((attn_score_d * 128) + ((attn_b_h_i_0 / 16) * 8192)) + 112)]))));
        *(tf_v16fu*)(&attn_score[480]) = ((*(const tf_v16fu*)(&attn_score[480])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 2304)] * (*(const tf_v16fu*)(&attn_kp[(((attn_score_d * 128) + ((attn_b_h_i_0 / 16) * 8192)) + 96)]))));
        *(tf_v16fu*)(&attn_score[496]) = ((*(const tf_v16fu*)(&attn_score[496])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 2304)] * (*(const tf_v16fu*)(&attn_kp[(((attn_score_d * 128) + ((attn_b_h_i_0 / 16) * 8192)) + 112)]))));
        *(tf_v16fu*)(&attn_score[608]) = ((*(const tf_v16fu*)(&attn_score[608])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 3072)] * (*(const tf_v16fu*)(&attn_kp[(((attn_score_d * 128) + ((attn_b_h_i_0 / 16) * 8192)) + 96)]))));
        *(tf_v16fu*)(&attn_score[624]) = ((*(const tf_v16fu*)(&attn_score[624])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 3072)] * (*(const tf_v16fu*)(&attn_kp[(((attn_score_d * 128) + ((attn_b_h_i_0 / 16) * 8192)) + 112)]))));
        *(tf_v16fu*)(&attn_score[736]) = ((*(const tf_v16fu*)(&attn_score[736])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 3840)] * (*(const tf_v16fu*)(&attn_kp[(((attn_score_d * 128) + ((attn_b_h_i_0 / 16) * 8192)) + 96)]))));
        *(tf_v16fu*)(&attn_score[752]) = ((*(const tf_v16fu*)(&attn_score[752])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 3840)] * (*(const tf_v16fu*)(&attn_kp[(((attn_score_d * 128) + ((attn_b_h_i_0 / 16) * 8192)) + 112)]))));
        *(tf_v16fu*)(&attn_score[864]) = ((*(const tf_v16fu*)(&attn_score[864])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 4608)] * (*(const tf_v16fu*)(&attn_kp[(((attn_score_d * 128) + ((attn_b_h_i_0 / 16) * 8192)) + 96)]))));
        *(tf_v16fu*)(&attn_score[880]) = ((*(const tf_v16fu*)(&attn_score[880])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 4608)] * (*(const tf_v16fu*)(&attn_kp[(((attn_score_d * 128) + ((attn_b_h_i_0 / 16) * 8192)) + 112)]))));
        *(tf_v16fu*)(&attn_score[992]) = ((*(const tf_v16fu*)(&attn_score[992])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 5376)] * (*(const tf_v16fu*)(&attn_kp[(((attn_score_d * 128) + ((attn_b_h_i_0 / 16) * 8192)) + 96)]))));
        *(tf_v16fu*)(&attn_score[1008]) = ((*(const tf_v16fu*)(&attn_score[1008])) + (q[(((attn_score_d + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64)) + 5376)] * (*(const tf_v16fu*)(&attn_kp[(((attn_score_d * 128) + ((attn_b_h_i_0 / 16) * 8192)) + 112)]))));
      }
    }
    float attn_max_rf[128] __attribute__((aligned(64)));
    for (int32_t attn_max_rf_i = 0; attn_max_rf_i < 8; ++attn_max_rf_i) {
      *(tf_v16fu*)(&attn_max_rf[(attn_max_rf_i * 16)]) = tf_v16_bc((-__builtin_inff()));
      for (int32_t attn_max_rf_k_o = 0; attn_max_rf_k_o < 8; ++attn_max_rf_k_o) {
        *(tf_v16fu*)(&attn_max_rf[(attn_max_rf_i * 16)]) = tf_v16_max((*(const tf_v16fu*)(&attn_max_rf[(attn_max_rf_i * 16)])), ((*(const tf_v16fu*)(&attn_score[((attn_max_rf_i * 128) + (attn_max_rf_k_o * 16))])) + (*(const tf_v16fu*)(&attn_bias[(attn_max_rf_k_o * 16)]))));
      }
    }
    float attn_max[8] __attribute__((aligned(64)));
    for (int32_t attn_max_i = 0; attn_max_i < 8; ++attn_max_i) {
      attn_max[attn_max_i] = (-__builtin_inff());
      attn_max[attn_max_i] = tf_max_float(attn_max[attn_max_i], tf_v16_hmax((*(const tf_v16fu*)(&attn_max_rf[(attn_max_i * 16)]))));
    }
    float attn_exp[1024] __attribute__((aligned(64)));
    for (int32_t attn_exp_i = 0; attn_exp_i < 8; ++attn_exp_i) {
      for (int32_t attn_exp_j_0 = 0; attn_exp_j_0 < 8; ++attn_exp_j_0) {
        *(tf_v16fu*)(&attn_exp[((attn_exp_i * 128) + (attn_exp_j_0 * 16))]) = tf_v16_sel(((((*(const tf_v16fu*)(&attn_score[((attn_exp_i * 128) + (attn_exp_j_0 * 16))])) + (*(const tf_v16fu*)(&attn_bias[(attn_exp_j_0 * 16)]))) - attn_max[attn_exp_i]) <= tf_v16_bc(-80.0f)), tf_v16_bc(0.0f), tf_v16_exp((((*(const tf_v16fu*)(&attn_score[((attn_exp_i * 128) + (attn_exp_j_0 * 16))])) + (*(const tf_v16fu*)(&attn_bias[(attn_exp_j_0 * 16)]))) - attn_max[attn_exp_i])));
      }
    }
    float attn_acc[512] __attribute__((aligned(64)));
    for (int32_t attn_acc_j_0 = 0; attn_acc_j_0 < 2; ++attn_acc_j_0) {
      *(tf_v16fu*)(&attn_acc[(attn_acc_j_0 * 32)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 16)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 64)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 80)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 128)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 144)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 192)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 208)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 256)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 272)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 320)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 336)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 384)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 400)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 448)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 464)]) = tf_v16_bc(0.0f);
      for (int32_t attn_acc_k = 0; attn_acc_k < 128; ++attn_acc_k) {
        *(tf_v16fu*)(&attn_acc[(attn_acc_j_0 * 32)]) = ((*(const tf_v16fu*)(&attn_acc[(attn_acc_j_0 * 32)])) + (attn_exp[attn_acc_k] * (*(const tf_v16fu*)(&v[(((attn_acc_k * 768) + (attn_acc_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 64))]))));
        *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 16)]) = ((*(const tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 16)])) + (attn_exp[attn_acc_k] * (*(const tf_v16fu*)(&v[((((attn_acc_k * 768) + (attn_acc_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 64)) + 16)]))));
        *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 64)]) = ((*(const tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 64)])) + (attn_exp[(attn_acc_k + 128)] * (*(const tf_v16fu*)(&v[(((attn_acc_k * 768) + (attn_acc_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 64))]))));
        *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 80)]) = ((*(const tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 80)])) + (attn_exp[(attn_acc_k + 128)] * (*(const tf_v16fu*)(&v[((((attn_acc_k * 768) + (attn_acc_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 64)) + 16)]))));
        *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 128)]) = ((*(const tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 128)])) + (attn_exp[(attn_acc_k + 256)] * (*(const tf_v16fu*)(&v[(((attn_acc_k * 768) + (attn_acc_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 64))]))));
        *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 144)]) = ((*(const tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 144)])) + (attn_exp[(attn_acc_k + 256)] * (*(const tf_v16fu*)(&v[((((attn_acc_k * 768) + (attn_acc_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 64)) + 16)]))));
        *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 192)]) = ((*(const tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 192)])) + (attn_exp[(attn_acc_k + 384)] * (*(const tf_v16fu*)(&v[(((attn_acc_k * 768) + (attn_acc_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 64))]))));
        *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 208)]) = ((*(const tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 208)])) + (attn_exp[(attn_acc_k + 384)] * (*(const tf_v16fu*)(&v[((((attn_acc_k * 768) + (attn_acc_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 64)) + 16)]))));
        *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 256)]) = ((*(const tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 256)])) + (attn_exp[(attn_acc_k + 512)] * (*(const tf_v16fu*)(&v[(((attn_acc_k * 768) + (attn_acc_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 64))]))));
        *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 272)]) = ((*(const tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 272)])) + (attn_exp[(attn_acc_k + 512)] * (*(const tf_v16fu*)(&v[((((attn_acc_k * 768) + (attn_acc_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 64)) + 16)]))));
        *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 320)]) = ((*(const tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 320)])) + (attn_exp[(attn_acc_k + 640)] * (*(const tf_v16fu*)(&v[(((attn_acc_k * 768) + (attn_acc_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 64))]))));
        *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 336)]) = ((*(const tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 336)])) + (attn_exp[(attn_acc_k + 640)] * (*(const tf_v16fu*)(&v[((((attn_acc_k * 768) + (attn_acc_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 64)) + 16)]))));
        *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 384)]) = ((*(const tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 384)])) + (attn_exp[(attn_acc_k + 768)] * (*(const tf_v16fu*)(&v[(((attn_acc_k * 768) + (attn_acc_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 64))]))));
        *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 400)]) = ((*(const tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 400)])) + (attn_exp[(attn_acc_k + 768)] * (*(const tf_v16fu*)(&v[((((attn_acc_k * 768) + (attn_acc_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 64)) + 16)]))));
        *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 448)]) = ((*(const tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 448)])) + (attn_exp[(attn_acc_k + 896)] * (*(const tf_v16fu*)(&v[(((attn_acc_k * 768) + (attn_acc_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 64))]))));
        *(tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 464)]) = ((*(const tf_v16fu*)(&attn_acc[((attn_acc_j_0 * 32) + 464)])) + (attn_exp[(attn_acc_k + 896)] * (*(const tf_v16fu*)(&v[((((attn_acc_k * 768) + (attn_acc_j_0 * 32)) + ((attn_b_h_i_0 / 16) * 64)) + 16)]))));
      }
    }
    float attn_sum_rf[128] __attribute__((aligned(64)));
    for (int32_t attn_sum_rf_i = 0; attn_sum_rf_i < 8; ++attn_sum_rf_i) {
      *(tf_v16fu*)(&attn_sum_rf[(attn_sum_rf_i * 16)]) = tf_v16_bc(0.0f);
      for (int32_t attn_sum_rf_k_o = 0; attn_sum_rf_k_o < 8; ++attn_sum_rf_k_o) {
        *(tf_v16fu*)(&attn_sum_rf[(attn_sum_rf_i * 16)]) = ((*(const tf_v16fu*)(&attn_sum_rf[(attn_sum_rf_i * 16)])) + (*(const tf_v16fu*)(&attn_exp[((attn_sum_rf_i * 128) + (attn_sum_rf_k_o * 16))])));
      }
    }
    float attn_sum[8] __attribute__((aligned(64)));
    for (int32_t attn_sum_i = 0; attn_sum_i < 8; ++attn_sum_i) {
      attn_sum[attn_sum_i] = 0.0f;
      attn_sum[attn_sum_i] = (attn_sum[attn_sum_i] + tf_v16_hadd((*(const tf_v16fu*)(&attn_sum_rf[(attn_sum_i * 16)]))));
    }
    for (int32_t attn_i_1 = 0; attn_i_1 < 8; ++attn_i_1) {
      for (int32_t attn_j_0 = 0; attn_j_0 < 4; ++attn_j_0) {
        *(tf_v16fu*)(&attn[((((attn_i_1 * 768) + (attn_j_0 * 16)) + ((attn_b_h_i_0 % 16) * 6144)) + ((attn_b_h_i_0 / 16) * 64))]) = ((attn_max[attn_i_1] > (-__builtin_inff())) ? ((*(const tf_v16fu*)(&attn_acc[((attn_i_1 * 64) + (attn_j_0 * 16))])) * (1.0f / attn_sum[attn_i_1])) : tf_v16_bc(0.0f));
      }
    }
  }
  return 0;
}

int32_t tf_entry(void** args) { return tf_kernel(args[0], args[1], args[2], args[3], args[4]); }
double tf_time(void** args, int32_t number) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int32_t i = 0; i < number; ++i) tf_kernel(args[0], args[1], args[2], args[3], args[4]);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return ((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9) / (number > 0 ? number : 1);
}
