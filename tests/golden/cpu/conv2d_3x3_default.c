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
static float conv_pad[215296] __attribute__((aligned(64)));
__attribute__((noinline)) static int32_t tf_kernel(void* restrict data_raw, void* restrict weight_raw, void* restrict conv_raw) {
  float* restrict data = (float*)__builtin_assume_aligned(data_raw, 64);
  float* restrict weight = (float*)__builtin_assume_aligned(weight_raw, 64);
  float* restrict conv = (float*)__builtin_assume_aligned(conv_raw, 64);
  #pragma omp parallel for schedule(static)
  for (int32_t conv_pad_n_icc_h = 0; conv_pad_n_icc_h < 232; ++conv_pad_n_icc_h) {
    for (int32_t conv_pad_w = 0; conv_pad_w < 58; ++conv_pad_w) {
      *(tf_v16fu*)(&conv_pad[(((conv_pad_w * 16) + ((conv_pad_n_icc_h / 58) * 53824)) + ((conv_pad_n_icc_h % 58) * 928))]) = ((((((conv_pad_n_icc_h % 58) >= 1) && ((conv_pad_n_icc_h % 58) < 57)) && (conv_pad_w >= 1)) && (conv_pad_w < 57)) ? (*(const tf_v16fu*)(&data[((((conv_pad_w * 16) + ((conv_pad_n_icc_h / 58) * 50176)) + ((conv_pad_n_icc_h % 58) * 896)) - 912)])) : tf_v16_bc(0.0f));
    }
  }
  #pragma omp parallel for schedule(static)
  for (int32_t conv_n_occ_0_oh = 0; conv_n_occ_0_oh < 112; ++conv_n_occ_0_oh) {
    for (int32_t conv_ow_0 = 0; conv_ow_0 < 7; ++conv_ow_0) {
      float conv_local[256] __attribute__((aligned(64)));
      *(tf_v16fu*)(&conv_local[0]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[128]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[16]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[144]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[32]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[160]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[48]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[176]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[64]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[192]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[80]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[208]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[96]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[224]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[112]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[240]) = tf_v16_bc(0.0f);
      for (int32_t conv_local_icc = 0; conv_local_icc < 4; ++conv_local_icc) {
        for (int32_t conv_local_kh = 0; conv_local_kh < 3; ++conv_local_kh) {
          for (int32_t conv_local_icb = 0; conv_local_icb < 16; ++conv_local_icb) {
            *(tf_v16fu*)(&conv_local[0]) = ((*(const tf_v16fu*)(&conv_local[0])) + (conv_pad[(((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928))] * (*(const tf_v16fu*)(&weight[((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432))]))));
            *(tf_v16fu*)(&conv_local[128]) = ((*(const tf_v16fu*)(&conv_local[128])) + (conv_pad[(((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928))] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 9216)]))));
            *(tf_v16fu*)(&conv_local[16]) = ((*(const tf_v16fu*)(&conv_local[16])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 16)] * (*(const tf_v16fu*)(&weight[((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432))]))));
            *(tf_v16fu*)(&conv_local[144]) = ((*(const tf_v16fu*)(&conv_local[144])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 16)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 9216)]))));
            *(tf_v16fu*)(&conv_local[32]) = ((*(const tf_v16fu*)(&conv_local[32])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 32)] * (*(const tf_v16fu*)(&weight[((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432))]))));
            *(tf_v16fu*)(&conv_local[160]) = ((*(const tf_v16fu*)(&conv_local[160])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 32)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 9216)]))));
            *(tf_v16fu*)(&conv_local[48]) = ((*(const tf_v16fu*)(&conv_local[48])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 48)] * (*(const tf_v16fu*)(&weight[((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432))]))));
            *(tf_v16fu*)(&conv_local[176]) = ((*(const tf_v16fu*)(&conv_local[176])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 48)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 9216)]))));
            *(tf_v16fu*)(&conv_local[64]) = ((*(const tf_v16fu*)(&conv_local[64])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 64)] * (*(const tf_v16fu*)(&weight[((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432))]))));
            *(tf_v16fu*)(&conv_local[192]) = ((*(const tf_v16fu*)(&conv_local[192])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 64)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 9216)]))));
            *(tf_v16fu*)(&conv_local[80]) = ((*(const tf_v16fu*)(&conv_local[80])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 80)] * (*(const tf_v16fu*)(&weight[((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432))]))));
            *(tf_v16fu*)(&conv_local[208]) = ((*(const tf_v16fu*)(&conv_local[208])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 80)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 9216)]))));
            *(tf_v16fu*)(&conv_local[96]) = ((*(const tf_v16fu*)(&conv_local[96])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 96)] * (*(const tf_v16fu*)(&weight[((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432))]))));
            *(tf_v16fu*)(&conv_local[224]) = ((*(const tf_v16fu*)(&conv_local[224])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 96)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 9216)]))));
            *(tf_v16fu*)(&conv_local[112]) = ((*(const tf_v16fu*)(&conv_local[112])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 112)] * (*(const tf_v16fu*)(&weight[((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432))]))));
            *(tf_v16fu*)(&conv_local[240]) = ((*(const tf_v16fu*)(&conv_local[240])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 112)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 9216)]))));
          }
          for (int32_t conv_local_icb = 0; conv_local_icb < 16; ++conv_local_icb) {
            *(tf_v16fu*)(&conv_local[0]) = ((*(const tf_v16fu*)(&conv_local[0])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 16)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 256)]))));
            *(tf_v16fu*)(&conv_local[128]) = ((*(const tf_v16fu*)(&conv_local[128])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 16)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 9472)]))));
            *(tf_v16fu*)(&conv_local[16]) = ((*(const tf_v16fu*)(&conv_local[16])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 32)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 256)]))));
            *(tf_v16fu*)(&conv_local[144]) = ((*(const tf_v16fu*)(&conv_local[144])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 32)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 9472)]))));
            *(tf_v16fu*)(&conv_local[32]) = ((*(const tf_v16fu*)(&conv_local[32])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 48)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 256)]))));
            *(tf_v16fu*)(&conv_local[160]) = ((*(const tf_v16fu*)(&conv_local[160])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 48)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 9472)]))));
            *(tf_v16fu*)(&conv_local[48]) = ((*(const tf_v16fu*)(&conv_local[48])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 64)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 256)]))));
            *(tf_v16fu*)(&conv_local[176]) = ((*(const tf_v16fu*)(&conv_local[176])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 64)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 9472)]))));
            *(tf_v16fu*)(&conv_local[64]) = ((*(const tf_v16fu*)(&conv_local[64])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 80)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 256)]))));
            *(tf_v16fu*)(&conv_local[192]) = ((*(const tf_v16fu*)(&conv_local[192])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 80)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 9472)]))));
            *(tf_v16fu*)(&conv_local[80]) = ((*(const tf_v16fu*)(&conv_local[80])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 96)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 256)]))));
            *(tf_v16fu*)(&conv_local[208]) = ((*(const tf_v16fu*)(&conv_local[208])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 96)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 9472)]))));
            *(tf_v16fu*)(&conv_local[96]) = ((*(const tf_v16fu*)(&conv_local[96])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 112)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 256)]))));
            *(tf_v16fu*)(&conv_local[224]) = ((*(const tf_v16fu*)(&conv_local[224])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 112)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 9472)]))));
            *(tf_v16fu*)(&conv_local[112]) = ((*(const tf_v16fu*)(&conv_local[112])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 128)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 256)]))));
            *(tf_v16fu*)(&conv_local[240]) = ((*(const tf_v16fu*)(&conv_local[240])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 128)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 9472)]))));
          }
          for (int32_t conv_local_icb = 0; conv_local_icb < 16; ++conv_local_icb) {
            *(tf_v16fu*)(&conv_local[0]) = ((*(const tf_v16fu*)(&conv_local[0])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 32)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 512)]))));
            *(tf_v16fu*)(&conv_local[128]) = ((*(const tf_v16fu*)(&conv_local[128])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 32)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 9728)]))));
            *(tf_v16fu*)(&conv_local[16]) = ((*(const tf_v16fu*)(&conv_local[16])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 48)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 512)]))));
            *(tf_v16fu*)(&conv_local[144]) = ((*(const tf_v16fu*)(&conv_local[144])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 48)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 9728)]))));
            *(tf_v16fu*)(&conv_local[32]) = ((*(const tf_v16fu*)(&conv_local[32])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 64)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 512)]))));
            *(tf_v16fu*)(&conv_local[160]) = ((*(const tf_v16fu*)(&conv_local[160])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 64)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 9728)]))));
            *(tf_v16fu*)(&conv_local[48]) = ((*(const tf_v16fu*)(&conv_local[48])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 80)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 512)]))));
            *(tf_v16fu*)(&conv_local[176]) = ((*(const tf_v16fu*)(&conv_local[176])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 80)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 9728)]))));
            *(tf_v16fu*)(&conv_local[64]) = ((*(const tf_v16fu*)(&conv_local[64])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 96)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 512)]))));
            *(tf_v16fu*)(&conv_local[192]) = ((*(const tf_v16fu*)(&conv_local[192])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 96)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 9728)]))));
            *(tf_v16fu*)(&conv_local[80]) = ((*(const tf_v16fu*)(&conv_local[80])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 112)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 512)]))));
            *(tf_v16fu*)(&conv_local[208]) = ((*(const tf_v16fu*)(&conv_local[208])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 112)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 9728)]))));
            *(tf_v16fu*)(&conv_local[96]) = ((*(const tf_v16fu*)(&conv_local[96])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 128)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 512)]))));
            *(tf_v16fu*)(&conv_local[224]) = ((*(const tf_v16fu*)(&conv_local[224])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 128)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 9728)]))));
            *(tf_v16fu*)(&conv_local[112]) = ((*(const tf_v16fu*)(&conv_local[112])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 144)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 512)]))));
            *(tf_v16fu*)(&conv_local[240]) = ((*(const tf_v16fu*)(&conv_local[240])) + (conv_pad[((((((conv_local_icc * 53824) + (conv_local_kh * 928)) + (conv_ow_0 * 128)) + conv_local_icb) + ((conv_n_occ_0_oh % 56) * 928)) + 144)] * (*(const tf_v16fu*)(&weight[(((((conv_local_icc * 2304) + (conv_local_kh * 768)) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 56) * 18432)) + 9728)]))));
          }
        }
      }
      *(tf_v16fu*)(&conv[(((conv_ow_0 * 128) + ((conv_n_occ_0_oh / 56) * 100352)) + ((conv_n_occ_0_oh % 56) * 896))]) = (*(const tf_v16fu*)(&conv_local[0]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 128) + ((conv_n_occ_0_oh / 56) * 100352)) + ((conv_n_occ_0_oh % 56) * 896)) + 16)]) = (*(const tf_v16fu*)(&conv_local[16]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 128) + ((conv_n_occ_0_oh / 56) * 100352)) + ((conv_n_occ_0_oh % 56) * 896)) + 32)]) = (*(const tf_v16fu*)(&conv_local[32]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 128) + ((conv_n_occ_0_oh / 56) * 100352)) + ((conv_n_occ_0_oh % 56) * 896)) + 48)]) = (*(const tf_v16fu*)(&conv_local[48]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 128) + ((conv_n_occ_0_oh / 56) * 100352)) + ((conv_n_occ_0_oh % 56) * 896)) + 64)]) = (*(const tf_v16fu*)(&conv_local[64]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 128) + ((conv_n_occ_0_oh / 56) * 100352)) + ((conv_n_occ_0_oh % 56) * 896)) + 80)]) = (*(const tf_v16fu*)(&conv_local[80]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 128) + ((conv_n_occ_0_oh / 56) * 100352)) + ((conv_n_occ_0_oh % 56) * 896)) + 96)]) = (*(const tf_v16fu*)(&conv_local[96]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 128) + ((conv_n_occ_0_oh / 56) * 100352)) + ((conv_n_occ_0_oh % 56) * 896)) + 112)]) = (*(const tf_v16fu*)(&conv_local[112]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 128) + ((conv_n_occ_0_oh / 56) * 100352)) + ((conv_n_occ_0_oh % 56) * 896)) + 50176)]) = (*(const tf_v16fu*)(&conv_local[128]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 128) + ((conv_n_occ_0_oh / 56) * 100352)) + ((conv_n_occ_0_oh % 56) * 896)) + 50192)]) = (*(const tf_v16fu*)(&conv_local[144]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 128) + ((conv_n_occ_0_oh / 56) * 100352)) + ((conv_n_occ_0_oh % 56) * 896)) + 50208)]) = (*(const tf_v16fu*)(&conv_local[160]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 128) + ((conv_n_occ_0_oh / 56) * 100352)) + ((conv_n_occ_0_oh % 56) * 896)) + 50224)]) = (*(const tf_v16fu*)(&conv_local[176]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 128) + ((conv_n_occ_0_oh / 56) * 100352)) + ((conv_n_occ_0_oh % 56) * 896)) + 50240)]) = (*(const tf_v16fu*)(&conv_local[192]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 128) + ((conv_n_occ_0_oh / 56) * 100352)) + ((conv_n_occ_0_oh % 56) * 896)) + 50256)]) = (*(const tf_v16fu*)(&conv_local[208]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 128) + ((conv_n_occ_0_oh / 56) * 100352)) + ((conv_n_occ_0_oh % 56) * 896)) + 50272)]) = (*(const tf_v16fu*)(&conv_local[224]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 128) + ((conv_n_occ_0_oh / 56) * 100352)) + ((conv_n_occ_0_oh % 56) * 896)) + 50288)]) = (*(const tf_v16fu*)(&conv_local[240]));
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
