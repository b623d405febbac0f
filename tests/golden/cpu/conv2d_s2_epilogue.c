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
static float conv_pad[8192] __attribute__((aligned(64)));
__attribute__((noinline)) static int32_t tf_kernel(void* restrict data_raw, void* restrict weight_raw, void* restrict bias_raw, void* restrict residual_raw, void* restrict out_raw) {
  float* restrict data = (float*)__builtin_assume_aligned(data_raw, 64);
  float* restrict weight = (float*)__builtin_assume_aligned(weight_raw, 64);
  float* restrict bias = (float*)__builtin_assume_aligned(bias_raw, 64);
  float* restrict residual = (float*)__builtin_assume_aligned(residual_raw, 64);
  float* restrict out = (float*)__builtin_assume_aligned(out_raw, 64);
  /* serial: work 98304 */
  for (int32_t conv_pad_n_icc_h = 0; conv_pad_n_icc_h < 32; ++conv_pad_n_icc_h) {
    for (int32_t conv_pad_w = 0; conv_pad_w < 16; ++conv_pad_w) {
      *(tf_v16fu*)(&conv_pad[(((conv_pad_w * 16) + ((conv_pad_n_icc_h / 16) * 4096)) + ((conv_pad_n_icc_h % 16) * 256))]) = ((((((conv_pad_n_icc_h % 16) >= 1) && ((conv_pad_n_icc_h % 16) < 15)) && (conv_pad_w >= 1)) && (conv_pad_w < 15)) ? (*(const tf_v16fu*)(&data[((((conv_pad_w * 16) + ((conv_pad_n_icc_h / 16) * 3136)) + ((conv_pad_n_icc_h % 16) * 224)) - 240)])) : tf_v16_bc(0.0f));
    }
  }
  #pragma omp parallel for schedule(static)
  for (int32_t out_n_occ_0_oh = 0; out_n_occ_0_oh < 14; ++out_n_occ_0_oh) {
    float conv[224] __attribute__((aligned(64)));
    *(tf_v16fu*)(&conv[0]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&conv[112]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&conv[16]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&conv[128]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&conv[32]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&conv[144]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&conv[48]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&conv[160]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&conv[64]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&conv[176]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&conv[80]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&conv[192]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&conv[96]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&conv[208]) = tf_v16_bc(0.0f);
    for (int32_t conv_icc = 0; conv_icc < 2; ++conv_icc) {
      for (int32_t conv_kh = 0; conv_kh < 3; ++conv_kh) {
        for (int32_t conv_icb = 0; conv_icb < 16; ++conv_icb) {
          *(tf_v16fu*)(&conv[0]) = ((*(const tf_v16fu*)(&conv[0])) + (conv_pad[((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512))] * (*(const tf_v16fu*)(&weight[((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216))]))));
          *(tf_v16fu*)(&conv[112]) = ((*(const tf_v16fu*)(&conv[112])) + (conv_pad[((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512))] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 4608)]))));
          *(tf_v16fu*)(&conv[16]) = ((*(const tf_v16fu*)(&conv[16])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 32)] * (*(const tf_v16fu*)(&weight[((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216))]))));
          *(tf_v16fu*)(&conv[128]) = ((*(const tf_v16fu*)(&conv[128])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 32)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 4608)]))));
          *(tf_v16fu*)(&conv[32]) = ((*(const tf_v16fu*)(&conv[32])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 64)] * (*(const tf_v16fu*)(&weight[((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216))]))));
          *(tf_v16fu*)(&conv[144]) = ((*(const tf_v16fu*)(&conv[144])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 64)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 4608)]))));
          *(tf_v16fu*)(&conv[48]) = ((*(const tf_v16fu*)(&conv[48])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 96)] * (*(const tf_v16fu*)(&weight[((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216))]))));
          *(tf_v16fu*)(&conv[160]) = ((*(const tf_v16fu*)(&conv[160])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 96)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 4608)]))));
          *(tf_v16fu*)(&conv[64]) = ((*(const tf_v16fu*)(&conv[64])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 128)] * (*(const tf_v16fu*)(&weight[((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216))]))));
          *(tf_v16fu*)(&conv[176]) = ((*(const tf_v16fu*)(&conv[176])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 128)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 4608)]))));
          *(tf_v16fu*)(&conv[80]) = ((*(const tf_v16fu*)(&conv[80])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 160)] * (*(const tf_v16fu*)(&weight[((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216))]))));
          *(tf_v16fu*)(&conv[192]) = ((*(const tf_v16fu*)(&conv[192])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 160)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 4608)]))));
          *(tf_v16fu*)(&conv[96]) = ((*(const tf_v16fu*)(&conv[96])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 192)] * (*(const tf_v16fu*)(&weight[((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216))]))));
          *(tf_v16fu*)(&conv[208]) = ((*(const tf_v16fu*)(&conv[208])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 192)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 4608)]))));
        }
        for (int32_t conv_icb = 0; conv_icb < 16; ++conv_icb) {
          *(tf_v16fu*)(&conv[0]) = ((*(const tf_v16fu*)(&conv[0])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 16)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 256)]))));
          *(tf_v16fu*)(&conv[112]) = ((*(const tf_v16fu*)(&conv[112])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 16)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 4864)]))));
          *(tf_v16fu*)(&conv[16]) = ((*(const tf_v16fu*)(&conv[16])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 48)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 256)]))));
          *(tf_v16fu*)(&conv[128]) = ((*(const tf_v16fu*)(&conv[128])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 48)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 4864)]))));
          *(tf_v16fu*)(&conv[32]) = ((*(const tf_v16fu*)(&conv[32])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 80)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 256)]))));
          *(tf_v16fu*)(&conv[144]) = ((*(const tf_v16fu*)(&conv[144])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 80)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 4864)]))));
          *(tf_v16fu*)(&conv[48]) = ((*(const tf_v16fu*)(&conv[48])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 112)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 256)]))));
          *(tf_v16fu*)(&conv[160]) = ((*(const tf_v16fu*)(&conv[160])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 112)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 4864)]))));
          *(tf_v16fu*)(&conv[64]) = ((*(const tf_v16fu*)(&conv[64])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 144)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 256)]))));
          *(tf_v16fu*)(&conv[176]) = ((*(const tf_v16fu*)(&conv[176])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 144)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 4864)]))));
          *(tf_v16fu*)(&conv[80]) = ((*(const tf_v16fu*)(&conv[80])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 176)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 256)]))));
          *(tf_v16fu*)(&conv[192]) = ((*(const tf_v16fu*)(&conv[192])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 176)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 4864)]))));
          *(tf_v16fu*)(&conv[96]) = ((*(const tf_v16fu*)(&conv[96])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 208)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 256)]))));
          *(tf_v16fu*)(&conv[208]) = ((*(const tf_v16fu*)(&conv[208])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 208)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 4864)]))));
        }
        for (int32_t conv_icb = 0; conv_icb < 16; ++conv_icb) {
          *(tf_v16fu*)(&conv[0]) = ((*(const tf_v16fu*)(&conv[0])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 32)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 512)]))));
          *(tf_v16fu*)(&conv[112]) = ((*(const tf_v16fu*)(&conv[112])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 32)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 5120)]))));
          *(tf_v16fu*)(&conv[16]) = ((*(const tf_v16fu*)(&conv[16])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 64)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 512)]))));
          *(tf_v16fu*)(&conv[128]) = ((*(const tf_v16fu*)(&conv[128])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 64)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 5120)]))));
          *(tf_v16fu*)(&conv[32]) = ((*(const tf_v16fu*)(&conv[32])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 96)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 512)]))));
          *(tf_v16fu*)(&conv[144]) = ((*(const tf_v16fu*)(&conv[144])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 96)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 5120)]))));
          *(tf_v16fu*)(&conv[48]) = ((*(const tf_v16fu*)(&conv[48])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 128)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 512)]))));
          *(tf_v16fu*)(&conv[160]) = ((*(const tf_v16fu*)(&conv[160])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 128)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 5120)]))));
          *(tf_v16fu*)(&conv[64]) = ((*(const tf_v16fu*)(&conv[64])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 160)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 512)]))));
          *(tf_v16fu*)(&conv[176]) = ((*(const tf_v16fu*)(&conv[176])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 160)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 5120)]))));
          *(tf_v16fu*)(&conv[80]) = ((*(const tf_v16fu*)(&conv[80])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 192)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 512)]))));
          *(tf_v16fu*)(&conv[192]) = ((*(const tf_v16fu*)(&conv[192])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 192)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 5120)]))));
          *(tf_v16fu*)(&conv[96]) = ((*(const tf_v16fu*)(&conv[96])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 224)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 512)]))));
          *(tf_v16fu*)(&conv[208]) = ((*(const tf_v16fu*)(&conv[208])) + (conv_pad[(((((conv_icc * 4096) + (conv_kh * 256)) + conv_icb) + ((out_n_occ_0_oh % 7) * 512)) + 224)] * (*(const tf_v16fu*)(&weight[(((((conv_icc * 2304) + (conv_kh * 768)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 7) * 9216)) + 5120)]))));
        }
      }
    }
    *(tf_v16fu*)(&out[(((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112))]) = tf_v16_max((((*(const tf_v16fu*)(&conv[0])) + (*(const tf_v16fu*)(&bias[((out_n_occ_0_oh / 7) * 32)]))) + (*(const tf_v16fu*)(&residual[(((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112))]))), tf_v16_bc(0.0f));
    *(tf_v16fu*)(&out[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 16)]) = tf_v16_max((((*(const tf_v16fu*)(&conv[16])) + (*(const tf_v16fu*)(&bias[((out_n_occ_0_oh / 7) * 32)]))) + (*(const tf_v16fu*)(&residual[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 16)]))), tf_v16_bc(0.0f));
    *(tf_v16fu*)(&out[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 32)]) = tf_v16_max((((*(const tf_v16fu*)(&conv[32])) + (*(const tf_v16fu*)(&bias[((out_n_occ_0_oh / 7) * 32)]))) + (*(const tf_v16fu*)(&residual[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 32)]))), tf_v16_bc(0.0f));
    *(tf_v16fu*)(&out[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 48)]) = tf_v16_max((((*(const tf_v16fu*)(&conv[48])) + (*(const tf_v16fu*)(&bias[((out_n_occ_0_oh / 7) * 32)]))) + (*(const tf_v16fu*)(&residual[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 48)]))), tf_v16_bc(0.0f));
    *(tf_v16fu*)(&out[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 64)]) = tf_v16_max((((*(const tf_v16fu*)(&conv[64])) + (*(const tf_v16fu*)(&bias[((out_n_occ_0_oh / 7) * 32)]))) + (*(const tf_v16fu*)(&residual[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 64)]))), tf_v16_bc(0.0f));
    *(tf_v16fu*)(&out[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 80)]) = tf_v16_max((((*(const tf_v16fu*)(&conv[80])) + (*(const tf_v16fu*)(&bias[((out_n_occ_0_oh / 7) * 32)]))) + (*(const tf_v16fu*)(&residual[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 80)]))), tf_v16_bc(0.0f));
    *(tf_v16fu*)(&out[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 96)]) = tf_v16_max((((*(const tf_v16fu*)(&conv[96])) + (*(const tf_v16fu*)(&bias[((out_n_occ_0_oh / 7) * 32)]))) + (*(const tf_v16fu*)(&residual[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 96)]))), tf_v16_bc(0.0f));
    *(tf_v16fu*)(&out[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 784)]) = tf_v16_max((((*(const tf_v16fu*)(&conv[112])) + (*(const tf_v16fu*)(&bias[(((out_n_occ_0_oh / 7) * 32) + 16)]))) + (*(const tf_v16fu*)(&residual[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 784)]))), tf_v16_bc(0.0f));
    *(tf_v16fu*)(&out[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 800)]) = tf_v16_max((((*(const tf_v16fu*)(&conv[128])) + (*(const tf_v16fu*)(&bias[(((out_n_occ_0_oh / 7) * 32) + 16)]))) + (*(const tf_v16fu*)(&residual[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 800)]))), tf_v16_bc(0.0f));
    *(tf_v16fu*)(&out[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 816)]) = tf_v16_max((((*(const tf_v16fu*)(&conv[144])) + (*(const tf_v16fu*)(&bias[(((out_n_occ_0_oh / 7) * 32) + 16)]))) + (*(const tf_v16fu*)(&residual[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 816)]))), tf_v16_bc(0.0f));
    *(tf_v16fu*)(&out[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 832)]) = tf_v16_max((((*(const tf_v16fu*)(&conv[160])) + (*(const tf_v16fu*)(&bias[(((out_n_occ_0_oh / 7) * 32) + 16)]))) + (*(const tf_v16fu*)(&residual[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 832)]))), tf_v16_bc(0.0f));
    *(tf_v16fu*)(&out[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 848)]) = tf_v16_max((((*(const tf_v16fu*)(&conv[176])) + (*(const tf_v16fu*)(&bias[(((out_n_occ_0_oh / 7) * 32) + 16)]))) + (*(const tf_v16fu*)(&residual[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 848)]))), tf_v16_bc(0.0f));
    *(tf_v16fu*)(&out[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 864)]) = tf_v16_max((((*(const tf_v16fu*)(&conv[192])) + (*(const tf_v16fu*)(&bias[(((out_n_occ_0_oh / 7) * 32) + 16)]))) + (*(const tf_v16fu*)(&residual[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 864)]))), tf_v16_bc(0.0f));
    *(tf_v16fu*)(&out[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 880)]) = tf_v16_max((((*(const tf_v16fu*)(&conv[208])) + (*(const tf_v16fu*)(&bias[(((out_n_occ_0_oh / 7) * 32) + 16)]))) + (*(const tf_v16fu*)(&residual[((((out_n_occ_0_oh / 7) * 1568) + ((out_n_occ_0_oh % 7) * 112)) + 880)]))), tf_v16_bc(0.0f));
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
