#include <stdint.h>
#include <time.h>
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
static float conv_pad[8192] __attribute__((aligned(64)));
__attribute__((noinline)) static int32_t tf_kernel(void* restrict data_raw, void* restrict weight_raw, void* restrict bias_raw, void* restrict residual_raw, void* restrict out_raw) {
  float* restrict data = (float*)__builtin_assume_aligned(data_raw, 64);
  float* restrict weight = (float*)__builtin_assume_aligned(weight_raw, 64);
  float* restrict bias = (float*)__builtin_assume_aligned(bias_raw, 64);
  float* restrict residual = (float*)__builtin_assume_aligned(residual_raw, 64);
  float* restrict out = (float*)__builtin_assume_aligned(out_raw, 64);
  /* serial: work 98304 */
  for (int32_t conv_pad_n_icc_h = 0; conv_pad_n_icc_h < 64; ++conv_pad_n_icc_h) {
    for (int32_t conv_pad_w = 0; conv_pad_w < 16; ++conv_pad_w) {
      *(tf_v8fu*)(&conv_pad[(((conv_pad_w * 8) + ((conv_pad_n_icc_h / 16) * 2048)) + ((conv_pad_n_icc_h % 16) * 128))]) = ((((((conv_pad_n_icc_h % 16) >= 1) && ((conv_pad_n_icc_h % 16) < 15)) && (conv_pad_w >= 1)) && (conv_pad_w < 15)) ? (*(const tf_v8fu*)(&data[((((conv_pad_w * 8) + ((conv_pad_n_icc_h / 16) * 1568)) + ((conv_pad_n_icc_h % 16) * 112)) - 120)])) : tf_v8_bc(0.0f));
    }
  }
  #pragma omp parallel for num_threads(2) schedule(static)
  for (int32_t out_n_occ_0_oh = 0; out_n_occ_0_oh < 28; ++out_n_occ_0_oh) {
    float conv[112] __attribute__((aligned(64)));
    *(tf_v8fu*)(&conv[0]) = tf_v8_bc(0.0f);
    *(tf_v8fu*)(&conv[56]) = tf_v8_bc(0.0f);
    *(tf_v8fu*)(&conv[8]) = tf_v8_bc(0.0f);
    *(tf_v8fu*)(&conv[64]) = tf_v8_bc(0.0f);
    *(tf_v8fu*)(&conv[16]) = tf_v8_bc(0.0f);
    *(tf_v8fu*)(&conv[72]) = tf_v8_bc(0.0f);
    *(tf_v8fu*)(&conv[24]) = tf_v8_bc(0.0f);
    *(tf_v8fu*)(&conv[80]) = tf_v8_bc(0.0f);
    *(tf_v8fu*)(&conv[32]) = tf_v8_bc(0.0f);
    *(tf_v8fu*)(&conv[88]) = tf_v8_bc(0.0f);
    *(tf_v8fu*)(&conv[40]) = tf_v8_bc(0.0f);
    *(tf_v8fu*)(&conv[96]) = tf_v8_bc(0.0f);
    *(tf_v8fu*)(&conv[48]) = tf_v8_bc(0.0f);
    *(tf_v8fu*)(&conv[104]) = tf_v8_bc(0.0f);
    for (int32_t conv_icc = 0; conv_icc < 4; ++conv_icc) {
      for (int32_t conv_kh = 0; conv_kh < 3; ++conv_kh) {
        for (int32_t conv_icb = 0; conv_icb < 8; ++conv_icb) {
          *(tf_v8fu*)(&conv[0]) = ((*(const tf_v8fu*)(&conv[0])) + (conv_pad[((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256))] * (*(const tf_v8fu*)(&weight[((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608))]))));
          *(tf_v8fu*)(&conv[56]) = ((*(const tf_v8fu*)(&conv[56])) + (conv_pad[((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256))] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 2304)]))));
          *(tf_v8fu*)(&conv[8]) = ((*(const tf_v8fu*)(&conv[8])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 16)] * (*(const tf_v8fu*)(&weight[((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608))]))));
          *(tf_v8fu*)(&conv[64]) = ((*(const tf_v8fu*)(&conv[64])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 16)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 2304)]))));
          *(tf_v8fu*)(&conv[16]) = ((*(const tf_v8fu*)(&conv[16])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 32)] * (*(const tf_v8fu*)(&weight[((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608))]))));
          *(tf_v8fu*)(&conv[72]) = ((*(const tf_v8fu*)(&conv[72])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 32)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 2304)]))));
          *(tf_v8fu*)(&conv[24]) = ((*(const tf_v8fu*)(&conv[24])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 48)] * (*(const tf_v8fu*)(&weight[((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608))]))));
          *(tf_v8fu*)(&conv[80]) = ((*(const tf_v8fu*)(&conv[80])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 48)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 2304)]))));
          *(tf_v8fu*)(&conv[32]) = ((*(const tf_v8fu*)(&conv[32])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 64)] * (*(const tf_v8fu*)(&weight[((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608))]))));
          *(tf_v8fu*)(&conv[88]) = ((*(const tf_v8fu*)(&conv[88])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 64)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 2304)]))));
          *(tf_v8fu*)(&conv[40]) = ((*(const tf_v8fu*)(&conv[40])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 80)] * (*(const tf_v8fu*)(&weight[((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608))]))));
          *(tf_v8fu*)(&conv[96]) = ((*(const tf_v8fu*)(&conv[96])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 80)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 2304)]))));
          *(tf_v8fu*)(&conv[48]) = ((*(const tf_v8fu*)(&conv[48])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 96)] * (*(const tf_v8fu*)(&weight[((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608))]))));
          *(tf_v8fu*)(&conv[104]) = ((*(const tf_v8fu*)(&conv[104])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 96)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 2304)]))));
        }
        for (int32_t conv_icb = 0; conv_icb < 8; ++conv_icb) {
          *(tf_v8fu*)(&conv[0]) = ((*(const tf_v8fu*)(&conv[0])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 8)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 64)]))));
          *(tf_v8fu*)(&conv[56]) = ((*(const tf_v8fu*)(&conv[56])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 8)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 2368)]))));
          *(tf_v8fu*)(&conv[8]) = ((*(const tf_v8fu*)(&conv[8])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 24)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 64)]))));
          *(tf_v8fu*)(&conv[64]) = ((*(const tf_v8fu*)(&conv[64])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 24)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 2368)]))));
          *(tf_v8fu*)(&conv[16]) = ((*(const tf_v8fu*)(&conv[16])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 40)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 64)]))));
          *(tf_v8fu*)(&conv[72]) = ((*(const tf_v8fu*)(&conv[72])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 40)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 2368)]))));
          *(tf_v8fu*)(&conv[24]) = ((*(const tf_v8fu*)(&conv[24])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 56)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 64)]))));
          *(tf_v8fu*)(&conv[80]) = ((*(const tf_v8fu*)(&conv[80])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 56)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 2368)]))));
          *(tf_v8fu*)(&conv[32]) = ((*(const tf_v8fu*)(&conv[32])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 72)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 64)]))));
          *(tf_v8fu*)(&conv[88]) = ((*(const tf_v8fu*)(&conv[88])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 72)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 2368)]))));
          *(tf_v8fu*)(&conv[40]) = ((*(const tf_v8fu*)(&conv[40])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 88)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 64)]))));
          *(tf_v8fu*)(&conv[96]) = ((*(const tf_v8fu*)(&conv[96])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 88)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 2368)]))));
          *(tf_v8fu*)(&conv[48]) = ((*(const tf_v8fu*)(&conv[48])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 104)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 64)]))));
          *(tf_v8fu*)(&conv[104]) = ((*(const tf_v8fu*)(&conv[104])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 104)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 2368)]))));
        }
        for (int32_t conv_icb = 0; conv_icb < 8; ++conv_icb) {
          *(tf_v8fu*)(&conv[0]) = ((*(const tf_v8fu*)(&conv[0])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 16)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 128)]))));
          *(tf_v8fu*)(&conv[56]) = ((*(const tf_v8fu*)(&conv[56])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 16)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 2432)]))));
          *(tf_v8fu*)(&conv[8]) = ((*(const tf_v8fu*)(&conv[8])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 32)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 128)]))));
          *(tf_v8fu*)(&conv[64]) = ((*(const tf_v8fu*)(&conv[64])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 32)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 2432)]))));
          *(tf_v8fu*)(&conv[16]) = ((*(const tf_v8fu*)(&conv[16])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 48)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 128)]))));
          *(tf_v8fu*)(&conv[72]) = ((*(const tf_v8fu*)(&conv[72])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 48)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 2432)]))));
          *(tf_v8fu*)(&conv[24]) = ((*(const tf_v8fu*)(&conv[24])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 64)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 128)]))));
          *(tf_v8fu*)(&conv[80]) = ((*(const tf_v8fu*)(&conv[80])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 64)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 2432)]))));
          *(tf_v8fu*)(&conv[32]) = ((*(const tf_v8fu*)(&conv[32])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 80)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 128)]))));
          *(tf_v8fu*)(&conv[88]) = ((*(const tf_v8fu*)(&conv[88])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 80)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 2432)]))));
          *(tf_v8fu*)(&conv[40]) = ((*(const tf_v8fu*)(&conv[40])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 96)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 128)]))));
          *(tf_v8fu*)(&conv[96]) = ((*(const tf_v8fu*)(&conv[96])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 96)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 2432)]))));
          *(tf_v8fu*)(&conv[48]) = ((*(const tf_v8fu*)(&conv[48])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 112)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 128)]))));
          *(tf_v8fu*)(&conv[104]) = ((*(const tf_v8fu*)(&conv[104])) + (conv_pad[(((((conv_icc * 2048) + (conv_kh * 128)) + conv_icb) + ((out_n_occ_0_oh % 7) * 256)) + 112)] * (*(const tf_v8fu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 7) * 4608)) + 2432)]))));
        }
      }
    }
    *(tf_v8fu*)(&out[(((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56))]) = tf_v8_max((((*(const tf_v8fu*)(&conv[0])) + (*(const tf_v8fu*)(&bias[((out_n_occ_0_oh / 7) * 16)]))) + (*(const tf_v8fu*)(&residual[(((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56))]))), tf_v8_bc(0.0f));
    *(tf_v8fu*)(&out[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 8)]) = tf_v8_max((((*(const tf_v8fu*)(&conv[8])) + (*(const tf_v8fu*)(&bias[((out_n_occ_0_oh / 7) * 16)]))) + (*(const tf_v8fu*)(&residual[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 8)]))), tf_v8_bc(0.0f));
    *(tf_v8fu*)(&out[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 16)]) = tf_v8_max((((*(const tf_v8fu*)(&conv[16])) + (*(const tf_v8fu*)(&bias[((out_n_occ_0_oh / 7) * 16)]))) + (*(const tf_v8fu*)(&residual[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 16)]))), tf_v8_bc(0.0f));
    *(tf_v8fu*)(&out[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 24)]) = tf_v8_max((((*(const tf_v8fu*)(&conv[24])) + (*(const tf_v8fu*)(&bias[((out_n_occ_0_oh / 7) * 16)]))) + (*(const tf_v8fu*)(&residual[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 24)]))), tf_v8_bc(0.0f));
    *(tf_v8fu*)(&out[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 32)]) = tf_v8_max((((*(const tf_v8fu*)(&conv[32])) + (*(const tf_v8fu*)(&bias[((out_n_occ_0_oh / 7) * 16)]))) + (*(const tf_v8fu*)(&residual[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 32)]))), tf_v8_bc(0.0f));
    *(tf_v8fu*)(&out[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 40)]) = tf_v8_max((((*(const tf_v8fu*)(&conv[40])) + (*(const tf_v8fu*)(&bias[((out_n_occ_0_oh / 7) * 16)]))) + (*(const tf_v8fu*)(&residual[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 40)]))), tf_v8_bc(0.0f));
    *(tf_v8fu*)(&out[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 48)]) = tf_v8_max((((*(const tf_v8fu*)(&conv[48])) + (*(const tf_v8fu*)(&bias[((out_n_occ_0_oh / 7) * 16)]))) + (*(const tf_v8fu*)(&residual[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 48)]))), tf_v8_bc(0.0f));
    *(tf_v8fu*)(&out[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 392)]) = tf_v8_max((((*(const tf_v8fu*)(&conv[56])) + (*(const tf_v8fu*)(&bias[(((out_n_occ_0_oh / 7) * 16) + 8)]))) + (*(const tf_v8fu*)(&residual[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 392)]))), tf_v8_bc(0.0f));
    *(tf_v8fu*)(&out[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 400)]) = tf_v8_max((((*(const tf_v8fu*)(&conv[64])) + (*(const tf_v8fu*)(&bias[(((out_n_occ_0_oh / 7) * 16) + 8)]))) + (*(const tf_v8fu*)(&residual[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 400)]))), tf_v8_bc(0.0f));
    *(tf_v8fu*)(&out[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 408)]) = tf_v8_max((((*(const tf_v8fu*)(&conv[72])) + (*(const tf_v8fu*)(&bias[(((out_n_occ_0_oh / 7) * 16) + 8)]))) + (*(const tf_v8fu*)(&residual[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 408)]))), tf_v8_bc(0.0f));
    *(tf_v8fu*)(&out[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 416)]) = tf_v8_max((((*(const tf_v8fu*)(&conv[80])) + (*(const tf_v8fu*)(&bias[(((out_n_occ_0_oh / 7) * 16) + 8)]))) + (*(const tf_v8fu*)(&residual[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 416)]))), tf_v8_bc(0.0f));
    *(tf_v8fu*)(&out[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 424)]) = tf_v8_max((((*(const tf_v8fu*)(&conv[88])) + (*(const tf_v8fu*)(&bias[(((out_n_occ_0_oh / 7) * 16) + 8)]))) + (*(const tf_v8fu*)(&residual[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 424)]))), tf_v8_bc(0.0f));
    *(tf_v8fu*)(&out[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 432)]) = tf_v8_max((((*(const tf_v8fu*)(&conv[96])) + (*(const tf_v8fu*)(&bias[(((out_n_occ_0_oh / 7) * 16) + 8)]))) + (*(const tf_v8fu*)(&residual[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 432)]))), tf_v8_bc(0.0f));
    *(tf_v8fu*)(&out[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 440)]) = tf_v8_max((((*(const tf_v8fu*)(&conv[104])) + (*(const tf_v8fu*)(&bias[(((out_n_occ_0_oh / 7) * 16) + 8)]))) + (*(const tf_v8fu*)(&residual[((((out_n_occ_0_oh / 7) * 784) + ((out_n_occ_0_oh % 7) * 56)) + 440)]))), tf_v8_bc(0.0f));
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
