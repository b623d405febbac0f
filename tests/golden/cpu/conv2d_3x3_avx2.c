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
static float conv_pad[215296] __attribute__((aligned(64)));
__attribute__((noinline)) static int32_t tf_kernel(void* restrict data_raw, void* restrict weight_raw, void* restrict conv_raw) {
  float* restrict data = (float*)__builtin_assume_aligned(data_raw, 64);
  float* restrict weight = (float*)__builtin_assume_aligned(weight_raw, 64);
  float* restrict conv = (float*)__builtin_assume_aligned(conv_raw, 64);
  #pragma omp parallel for num_threads(2) schedule(static)
  for (int32_t conv_pad_n_icc_h = 0; conv_pad_n_icc_h < 464; ++conv_pad_n_icc_h) {
    for (int32_t conv_pad_w = 0; conv_pad_w < 58; ++conv_pad_w) {
      *(tf_v8fu*)(&conv_pad[(((conv_pad_w * 8) + ((conv_pad_n_icc_h / 58) * 26912)) + ((conv_pad_n_icc_h % 58) * 464))]) = ((((((conv_pad_n_icc_h % 58) >= 1) && ((conv_pad_n_icc_h % 58) < 57)) && (conv_pad_w >= 1)) && (conv_pad_w < 57)) ? (*(const tf_v8fu*)(&data[((((conv_pad_w * 8) + ((conv_pad_n_icc_h / 58) * 25088)) + ((conv_pad_n_icc_h % 58) * 448)) - 456)])) : tf_v8_bc(0.0f));
    }
  }
  #pragma omp parallel for num_threads(2) schedule(static)
  for (int32_t conv_n_occ_0_oh = 0; conv_n_occ_0_oh < 224; ++conv_n_occ_0_oh) {
    for (int32_t conv_ow_0 = 0; conv_ow_0 < 8; ++conv_ow_0) {
      float conv_local[112] __attribute__((aligned(64)));
      *(tf_v8fu*)(&conv_local[0]) = tf_v8_bc(0.0f);
      *(tf_v8fu*)(&conv_local[56]) = tf_v8_bc(0.0f);
      *(tf_v8fu*)(&conv_local[8]) = tf_v8_bc(0.0f);
      *(tf_v8fu*)(&conv_local[64]) = tf_v8_bc(0.0f);
      *(tf_v8fu*)(&conv_local[16]) = tf_v8_bc(0.0f);
      *(tf_v8fu*)(&conv_local[72]) = tf_v8_bc(0.0f);
      *(tf_v8fu*)(&conv_local[24]) = tf_v8_bc(0.0f);
      *(tf_v8fu*)(&conv_local[80]) = tf_v8_bc(0.0f);
      *(tf_v8fu*)(&conv_local[32]) = tf_v8_bc(0.0f);
      *(tf_v8fu*)(&conv_local[88]) = tf_v8_bc(0.0f);
      *(tf_v8fu*)(&conv_local[40]) = tf_v8_bc(0.0f);
      *(tf_v8fu*)(&conv_local[96]) = tf_v8_bc(0.0f);
      *(tf_v8fu*)(&conv_local[48]) = tf_v8_bc(0.0f);
      *(tf_v8fu*)(&conv_local[104]) = tf_v8_bc(0.0f);
      for (int32_t conv_local_icc = 0; conv_local_icc < 8; ++conv_local_icc) {
        for (int32_t conv_local_kh = 0; conv_local_kh < 3; ++conv_local_kh) {
          for (int32_t conv_local_icb = 0; conv_local_icb < 8; ++conv_local_icb) {
            *(tf_v8fu*)(&conv_local[0]) = ((*(const tf_v8fu*)(&conv_local[0])) + (conv_pad[(((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464))] * (*(const tf_v8fu*)(&weight[((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216))]))));
            *(tf_v8fu*)(&conv_local[56]) = ((*(const tf_v8fu*)(&conv_local[56])) + (conv_pad[(((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464))] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 4608)]))));
            *(tf_v8fu*)(&conv_local[8]) = ((*(const tf_v8fu*)(&conv_local[8])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 8)] * (*(const tf_v8fu*)(&weight[((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216))]))));
            *(tf_v8fu*)(&conv_local[64]) = ((*(const tf_v8fu*)(&conv_local[64])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 8)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 4608)]))));
            *(tf_v8fu*)(&conv_local[16]) = ((*(const tf_v8fu*)(&conv_local[16])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 16)] * (*(const tf_v8fu*)(&weight[((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216))]))));
            *(tf_v8fu*)(&conv_local[72]) = ((*(const tf_v8fu*)(&conv_local[72])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 16)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 4608)]))));
            *(tf_v8fu*)(&conv_local[24]) = ((*(const tf_v8fu*)(&conv_local[24])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 24)] * (*(const tf_v8fu*)(&weight[((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216))]))));
            *(tf_v8fu*)(&conv_local[80]) = ((*(const tf_v8fu*)(&conv_local[80])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 24)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 4608)]))));
            *(tf_v8fu*)(&conv_local[32]) = ((*(const tf_v8fu*)(&conv_local[32])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 32)] * (*(const tf_v8fu*)(&weight[((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216))]))));
            *(tf_v8fu*)(&conv_local[88]) = ((*(const tf_v8fu*)(&conv_local[88])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 32)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 4608)]))));
            *(tf_v8fu*)(&conv_local[40]) = ((*(const tf_v8fu*)(&conv_local[40])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 40)] * (*(const tf_v8fu*)(&weight[((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216))]))));
            *(tf_v8fu*)(&conv_local[96]) = ((*(const tf_v8fu*)(&conv_local[96])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 40)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 4608)]))));
            *(tf_v8fu*)(&conv_local[48]) = ((*(const tf_v8fu*)(&conv_local[48])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 48)] * (*(const tf_v8fu*)(&weight[((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216))]))));
            *(tf_v8fu*)(&conv_local[104]) = ((*(const tf_v8fu*)(&conv_local[104])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 48)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 4608)]))));
          }
          for (int32_t conv_local_icb = 0; conv_local_icb < 8; ++conv_local_icb) {
            *(tf_v8fu*)(&conv_local[0]) = ((*(const tf_v8fu*)(&conv_local[0])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 8)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 64)]))));
            *(tf_v8fu*)(&conv_local[56]) = ((*(const tf_v8fu*)(&conv_local[56])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 8)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 4672)]))));
            *(tf_v8fu*)(&conv_local[8]) = ((*(const tf_v8fu*)(&conv_local[8])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 16)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 64)]))));
            *(tf_v8fu*)(&conv_local[64]) = ((*(const tf_v8fu*)(&conv_local[64])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 16)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 4672)]))));
            *(tf_v8fu*)(&conv_local[16]) = ((*(const tf_v8fu*)(&conv_local[16])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 24)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 64)]))));
            *(tf_v8fu*)(&conv_local[72]) = ((*(const tf_v8fu*)(&conv_local[72])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 24)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 4672)]))));
            *(tf_v8fu*)(&conv_local[24]) = ((*(const tf_v8fu*)(&conv_local[24])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 32)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 64)]))));
            *(tf_v8fu*)(&conv_local[80]) = ((*(const tf_v8fu*)(&conv_local[80])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 32)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 4672)]))));
            *(tf_v8fu*)(&conv_local[32]) = ((*(const tf_v8fu*)(&conv_local[32])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 40)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 64)]))));
            *(tf_v8fu*)(&conv_local[88]) = ((*(const tf_v8fu*)(&conv_local[88])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 40)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 4672)]))));
            *(tf_v8fu*)(&conv_local[40]) = ((*(const tf_v8fu*)(&conv_local[40])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 48)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 64)]))));
            *(tf_v8fu*)(&conv_local[96]) = ((*(const tf_v8fu*)(&conv_local[96])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 48)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 4672)]))));
            *(tf_v8fu*)(&conv_local[48]) = ((*(const tf_v8fu*)(&conv_local[48])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 56)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 64)]))));
            *(tf_v8fu*)(&conv_local[104]) = ((*(const tf_v8fu*)(&conv_local[104])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 56)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 4672)]))));
          }
          for (int32_t conv_local_icb = 0; conv_local_icb < 8; ++conv_local_icb) {
            *(tf_v8fu*)(&conv_local[0]) = ((*(const tf_v8fu*)(&conv_local[0])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 16)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 128)]))));
            *(tf_v8fu*)(&conv_local[56]) = ((*(const tf_v8fu*)(&conv_local[56])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 16)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 4736)]))));
            *(tf_v8fu*)(&conv_local[8]) = ((*(const tf_v8fu*)(&conv_local[8])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 24)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 128)]))));
            *(tf_v8fu*)(&conv_local[64]) = ((*(const tf_v8fu*)(&conv_local[64])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 24)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 4736)]))));
            *(tf_v8fu*)(&conv_local[16]) = ((*(const tf_v8fu*)(&conv_local[16])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 32)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 128)]))));
            *(tf_v8fu*)(&conv_local[72]) = ((*(const tf_v8fu*)(&conv_local[72])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 32)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 4736)]))));
            *(tf_v8fu*)(&conv_local[24]) = ((*(const tf_v8fu*)(&conv_local[24])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 40)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 128)]))));
            *(tf_v8fu*)(&conv_local[80]) = ((*(const tf_v8fu*)(&conv_local[80])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 40)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 4736)]))));
            *(tf_v8fu*)(&conv_local[32]) = ((*(const tf_v8fu*)(&conv_local[32])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 48)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 128)]))));
            *(tf_v8fu*)(&conv_local[88]) = ((*(const tf_v8fu*)(&conv_local[88])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 48)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 4736)]))));
            *(tf_v8fu*)(&conv_local[40]) = ((*(const tf_v8fu*)(&conv_local[40])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 56)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 128)]))));
            *(tf_v8fu*)(&conv_local[96]) = ((*(const tf_v8fu*)(&conv_local[96])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 56)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 4736)]))));
            *(tf_v8fu*)(&conv_local[48]) = ((*(const tf_v8fu*)(&conv_local[48])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 64)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 128)]))));
            *(tf_v8fu*)(&conv_local[104]) = ((*(const tf_v8fu*)(&conv_local[104])) + (conv_pad[((((((conv_local_icc * 26912) + (conv_local_kh * 464)) + (conv_ow_0 * 56)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 464)) + 64)] * (*(const tf_v8fu*)(&weight[(((((conv_local_icc * 576) + (conv_local_kh * 192)) + (conv_local_icb * 8)) + ((conv_n_occ_0_oh / 56) * 9216)) + 4736)]))));
          }
        }
      }
      *(tf_v8fu*)(&conv[(((conv_ow_0 * 56) + ((conv_n_occ_0_oh / 56) * 50176)) + ((conv_n_occ_0_oh % 56) * 448))]) = (*(const tf_v8fu*)(&conv_local[0]));
      *(tf_v8fu*)(&conv[((((conv_ow_0 * 56) + ((conv_n_occ_0_oh / 56) * 50176)) + ((conv_n_occ_0_oh % 56) * 448)) + 8)]) = (*(const tf_v8fu*)(&conv_local[8]));
      *(tf_v8fu*)(&conv[((((conv_ow_0 * 56) + ((conv_n_occ_0_oh / 56) * 50176)) + ((conv_n_occ_0_oh % 56) * 448)) + 16)]) = (*(const tf_v8fu*)(&conv_local[16]));
      *(tf_v8fu*)(&conv[((((conv_ow_0 * 56) + ((conv_n_occ_0_oh / 56) * 50176)) + ((conv_n_occ_0_oh % 56) * 448)) + 24)]) = (*(const tf_v8fu*)(&conv_local[24]));
      *(tf_v8fu*)(&conv[((((conv_ow_0 * 56) + ((conv_n_occ_0_oh / 56) * 50176)) + ((conv_n_occ_0_oh % 56) * 448)) + 32)]) = (*(const tf_v8fu*)(&conv_local[32]));
      *(tf_v8fu*)(&conv[((((conv_ow_0 * 56) + ((conv_n_occ_0_oh / 56) * 50176)) + ((conv_n_occ_0_oh % 56) * 448)) + 40)]) = (*(const tf_v8fu*)(&conv_local[40]));
      *(tf_v8fu*)(&conv[((((conv_ow_0 * 56) + ((conv_n_occ_0_oh / 56) * 50176)) + ((conv_n_occ_0_oh % 56) * 448)) + 48)]) = (*(const tf_v8fu*)(&conv_local[48]));
      *(tf_v8fu*)(&conv[((((conv_ow_0 * 56) + ((conv_n_occ_0_oh / 56) * 50176)) + ((conv_n_occ_0_oh % 56) * 448)) + 25088)]) = (*(const tf_v8fu*)(&conv_local[56]));
      *(tf_v8fu*)(&conv[((((conv_ow_0 * 56) + ((conv_n_occ_0_oh / 56) * 50176)) + ((conv_n_occ_0_oh % 56) * 448)) + 25096)]) = (*(const tf_v8fu*)(&conv_local[64]));
      *(tf_v8fu*)(&conv[((((conv_ow_0 * 56) + ((conv_n_occ_0_oh / 56) * 50176)) + ((conv_n_occ_0_oh % 56) * 448)) + 25104)]) = (*(const tf_v8fu*)(&conv_local[72]));
      *(tf_v8fu*)(&conv[((((conv_ow_0 * 56) + ((conv_n_occ_0_oh / 56) * 50176)) + ((conv_n_occ_0_oh % 56) * 448)) + 25112)]) = (*(const tf_v8fu*)(&conv_local[80]));
      *(tf_v8fu*)(&conv[((((conv_ow_0 * 56) + ((conv_n_occ_0_oh / 56) * 50176)) + ((conv_n_occ_0_oh % 56) * 448)) + 25120)]) = (*(const tf_v8fu*)(&conv_local[88]));
      *(tf_v8fu*)(&conv[((((conv_ow_0 * 56) + ((conv_n_occ_0_oh / 56) * 50176)) + ((conv_n_occ_0_oh % 56) * 448)) + 25128)]) = (*(const tf_v8fu*)(&conv_local[96]));
      *(tf_v8fu*)(&conv[((((conv_ow_0 * 56) + ((conv_n_occ_0_oh / 56) * 50176)) + ((conv_n_occ_0_oh % 56) * 448)) + 25136)]) = (*(const tf_v8fu*)(&conv_local[104]));
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
