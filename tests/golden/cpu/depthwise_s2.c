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
__attribute__((noinline)) static int32_t tf_kernel(void* restrict data_raw, void* restrict weight_raw, void* restrict bias_raw, void* restrict out_raw) {
  float* restrict data = (float*)__builtin_assume_aligned(data_raw, 64);
  float* restrict weight = (float*)__builtin_assume_aligned(weight_raw, 64);
  float* restrict bias = (float*)__builtin_assume_aligned(bias_raw, 64);
  float* restrict out = (float*)__builtin_assume_aligned(out_raw, 64);
  #pragma omp parallel for schedule(static)
  for (int32_t out_n_cc_0_oh = 0; out_n_cc_0_oh < 84; ++out_n_cc_0_oh) {
    for (int32_t out_ow_0 = 0; out_ow_0 < 2; ++out_ow_0) {
      float conv[112] __attribute__((aligned(64)));
      *(tf_v16fu*)(&conv[0]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[16]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[32]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[48]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[64]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[80]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[96]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[0]) = ((*(const tf_v16fu*)(&conv[0])) + ((((((out_n_cc_0_oh % 14) * 2) >= 1) && ((out_ow_0 * 14) >= 1)) ? (*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) - 464)])) : tf_v16_bc(0.0f)) * (*(const tf_v16fu*)(&weight[((out_n_cc_0_oh / 14) * 144)]))));
      *(tf_v16fu*)(&conv[16]) = ((*(const tf_v16fu*)(&conv[16])) + (((((out_n_cc_0_oh % 14) * 2) >= 1) ? (*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) - 432)])) : tf_v16_bc(0.0f)) * (*(const tf_v16fu*)(&weight[((out_n_cc_0_oh / 14) * 144)]))));
      *(tf_v16fu*)(&conv[32]) = ((*(const tf_v16fu*)(&conv[32])) + (((((out_n_cc_0_oh % 14) * 2) >= 1) ? (*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) - 400)])) : tf_v16_bc(0.0f)) * (*(const tf_v16fu*)(&weight[((out_n_cc_0_oh / 14) * 144)]))));
      *(tf_v16fu*)(&conv[48]) = ((*(const tf_v16fu*)(&conv[48])) + (((((out_n_cc_0_oh % 14) * 2) >= 1) ? (*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) - 368)])) : tf_v16_bc(0.0f)) * (*(const tf_v16fu*)(&weight[((out_n_cc_0_oh / 14) * 144)]))));
      *(tf_v16fu*)(&conv[64]) = ((*(const tf_v16fu*)(&conv[64])) + (((((out_n_cc_0_oh % 14) * 2) >= 1) ? (*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) - 336)])) : tf_v16_bc(0.0f)) * (*(const tf_v16fu*)(&weight[((out_n_cc_0_oh / 14) * 144)]))));
      *(tf_v16fu*)(&conv[80]) = ((*(const tf_v16fu*)(&conv[80])) + (((((out_n_cc_0_oh % 14) * 2) >= 1) ? (*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) - 304)])) : tf_v16_bc(0.0f)) * (*(const tf_v16fu*)(&weight[((out_n_cc_0_oh / 14) * 144)]))));
      *(tf_v16fu*)(&conv[96]) = ((*(const tf_v16fu*)(&conv[96])) + (((((out_n_cc_0_oh % 14) * 2) >= 1) ? (*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) - 272)])) : tf_v16_bc(0.0f)) * (*(const tf_v16fu*)(&weight[((out_n_cc_0_oh / 14) * 144)]))));
      *(tf_v16fu*)(&conv[0]) = ((*(const tf_v16fu*)(&conv[0])) + (((((out_n_cc_0_oh % 14) * 2) >= 1) ? (*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) - 448)])) : tf_v16_bc(0.0f)) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 16)]))));
      *(tf_v16fu*)(&conv[16]) = ((*(const tf_v16fu*)(&conv[16])) + (((((out_n_cc_0_oh % 14) * 2) >= 1) ? (*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) - 416)])) : tf_v16_bc(0.0f)) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 16)]))));
      *(tf_v16fu*)(&conv[32]) = ((*(const tf_v16fu*)(&conv[32])) + (((((out_n_cc_0_oh % 14) * 2) >= 1) ? (*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) - 384)])) : tf_v16_bc(0.0f)) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 16)]))));
      *(tf_v16fu*)(&conv[48]) = ((*(const tf_v16fu*)(&conv[48])) + (((((out_n_cc_0_oh % 14) * 2) >= 1) ? (*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) - 352)])) : tf_v16_bc(0.0f)) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 16)]))));
      *(tf_v16fu*)(&conv[64]) = ((*(const tf_v16fu*)(&conv[64])) + (((((out_n_cc_0_oh % 14) * 2) >= 1) ? (*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) - 320)])) : tf_v16_bc(0.0f)) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 16)]))));
      *(tf_v16fu*)(&conv[80]) = ((*(const tf_v16fu*)(&conv[80])) + (((((out_n_cc_0_oh % 14) * 2) >= 1) ? (*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) - 288)])) : tf_v16_bc(0.0f)) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 16)]))));
      *(tf_v16fu*)(&conv[96]) = ((*(const tf_v16fu*)(&conv[96])) + (((((out_n_cc_0_oh % 14) * 2) >= 1) ? (*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) - 256)])) : tf_v16_bc(0.0f)) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 16)]))));
      *(tf_v16fu*)(&conv[0]) = ((*(const tf_v16fu*)(&conv[0])) + (((((out_n_cc_0_oh % 14) * 2) >= 1) ? (*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) - 432)])) : tf_v16_bc(0.0f)) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 32)]))));
      *(tf_v16fu*)(&conv[16]) = ((*(const tf_v16fu*)(&conv[16])) + (((((out_n_cc_0_oh % 14) * 2) >= 1) ? (*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) - 400)])) : tf_v16_bc(0.0f)) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 32)]))));
      *(tf_v16fu*)(&conv[32]) = ((*(const tf_v16fu*)(&conv[32])) + (((((out_n_cc_0_oh % 14) * 2) >= 1) ? (*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) - 368)])) : tf_v16_bc(0.0f)) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 32)]))));
      *(tf_v16fu*)(&conv[48]) = ((*(const tf_v16fu*)(&conv[48])) + (((((out_n_cc_0_oh % 14) * 2) >= 1) ? (*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) - 336)])) : tf_v16_bc(0.0f)) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 32)]))));
      *(tf_v16fu*)(&conv[64]) = ((*(const tf_v16fu*)(&conv[64])) + (((((out_n_cc_0_oh % 14) * 2) >= 1) ? (*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) - 304)])) : tf_v16_bc(0.0f)) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 32)]))));
      *(tf_v16fu*)(&conv[80]) = ((*(const tf_v16fu*)(&conv[80])) + (((((out_n_cc_0_oh % 14) * 2) >= 1) ? (*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) - 272)])) : tf_v16_bc(0.0f)) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 32)]))));
      *(tf_v16fu*)(&conv[96]) = ((*(const tf_v16fu*)(&conv[96])) + (((((out_n_cc_0_oh % 14) * 2) >= 1) ? (*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) - 240)])) : tf_v16_bc(0.0f)) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 32)]))));
      *(tf_v16fu*)(&conv[0]) = ((*(const tf_v16fu*)(&conv[0])) + ((((out_ow_0 * 14) >= 1) ? (*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) - 16)])) : tf_v16_bc(0.0f)) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 48)]))));
      *(tf_v16fu*)(&conv[16]) = ((*(const tf_v16fu*)(&conv[16])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 16)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 48)]))));
      *(tf_v16fu*)(&conv[32]) = ((*(const tf_v16fu*)(&conv[32])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 48)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 48)]))));
      *(tf_v16fu*)(&conv[48]) = ((*(const tf_v16fu*)(&conv[48])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 80)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 48)]))));
      *(tf_v16fu*)(&conv[64]) = ((*(const tf_v16fu*)(&conv[64])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 112)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 48)]))));
      *(tf_v16fu*)(&conv[80]) = ((*(const tf_v16fu*)(&conv[80])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 144)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 48)]))));
      *(tf_v16fu*)(&conv[96]) = ((*(const tf_v16fu*)(&conv[96])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 176)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 48)]))));
      *(tf_v16fu*)(&conv[0]) = ((*(const tf_v16fu*)(&conv[0])) + ((*(const tf_v16fu*)(&data[(((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896))])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 64)]))));
      *(tf_v16fu*)(&conv[16]) = ((*(const tf_v16fu*)(&conv[16])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 32)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 64)]))));
      *(tf_v16fu*)(&conv[32]) = ((*(const tf_v16fu*)(&conv[32])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 64)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 64)]))));
      *(tf_v16fu*)(&conv[48]) = ((*(const tf_v16fu*)(&conv[48])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 96)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 64)]))));
      *(tf_v16fu*)(&conv[64]) = ((*(const tf_v16fu*)(&conv[64])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 128)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 64)]))));
      *(tf_v16fu*)(&conv[80]) = ((*(const tf_v16fu*)(&conv[80])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 160)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 64)]))));
      *(tf_v16fu*)(&conv[96]) = ((*(const tf_v16fu*)(&conv[96])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 192)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 64)]))));
      *(tf_v16fu*)(&conv[0]) = ((*(const tf_v16fu*)(&conv[0])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 16)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 80)]))));
      *(tf_v16fu*)(&conv[16]) = ((*(const tf_v16fu*)(&conv[16])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 48)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 80)]))));
      *(tf_v16fu*)(&conv[32]) = ((*(const tf_v16fu*)(&conv[32])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 80)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 80)]))));
      *(tf_v16fu*)(&conv[48]) = ((*(const tf_v16fu*)(&conv[48])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 112)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 80)]))));
      *(tf_v16fu*)(&conv[64]) = ((*(const tf_v16fu*)(&conv[64])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 144)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 80)]))));
      *(tf_v16fu*)(&conv[80]) = ((*(const tf_v16fu*)(&conv[80])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 176)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 80)]))));
      *(tf_v16fu*)(&conv[96]) = ((*(const tf_v16fu*)(&conv[96])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 208)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 80)]))));
      *(tf_v16fu*)(&conv[0]) = ((*(const tf_v16fu*)(&conv[0])) + ((((out_ow_0 * 14) >= 1) ? (*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 432)])) : tf_v16_bc(0.0f)) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 96)]))));
      *(tf_v16fu*)(&conv[16]) = ((*(const tf_v16fu*)(&conv[16])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 464)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 96)]))));
      *(tf_v16fu*)(&conv[32]) = ((*(const tf_v16fu*)(&conv[32])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 496)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 96)]))));
      *(tf_v16fu*)(&conv[48]) = ((*(const tf_v16fu*)(&conv[48])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 528)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 96)]))));
      *(tf_v16fu*)(&conv[64]) = ((*(const tf_v16fu*)(&conv[64])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 560)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 96)]))));
      *(tf_v16fu*)(&conv[80]) = ((*(const tf_v16fu*)(&conv[80])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 592)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 96)]))));
      *(tf_v16fu*)(&conv[96]) = ((*(const tf_v16fu*)(&conv[96])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 624)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 96)]))));
      *(tf_v16fu*)(&conv[0]) = ((*(const tf_v16fu*)(&conv[0])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 448)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 112)]))));
      *(tf_v16fu*)(&conv[16]) = ((*(const tf_v16fu*)(&conv[16])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 480)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 112)]))));
      *(tf_v16fu*)(&conv[32]) = ((*(const tf_v16fu*)(&conv[32])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 512)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 112)]))));
      *(tf_v16fu*)(&conv[48]) = ((*(const tf_v16fu*)(&conv[48])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 544)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 112)]))));
      *(tf_v16fu*)(&conv[64]) = ((*(const tf_v16fu*)(&conv[64])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 576)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 112)]))));
      *(tf_v16fu*)(&conv[80]) = ((*(const tf_v16fu*)(&conv[80])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 608)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 112)]))));
      *(tf_v16fu*)(&conv[96]) = ((*(const tf_v16fu*)(&conv[96])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 640)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 112)]))));
      *(tf_v16fu*)(&conv[0]) = ((*(const tf_v16fu*)(&conv[0])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 464)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 128)]))));
      *(tf_v16fu*)(&conv[16]) = ((*(const tf_v16fu*)(&conv[16])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 496)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 128)]))));
      *(tf_v16fu*)(&conv[32]) = ((*(const tf_v16fu*)(&conv[32])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 528)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 128)]))));
      *(tf_v16fu*)(&conv[48]) = ((*(const tf_v16fu*)(&conv[48])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 560)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 128)]))));
      *(tf_v16fu*)(&conv[64]) = ((*(const tf_v16fu*)(&conv[64])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 592)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 128)]))));
      *(tf_v16fu*)(&conv[80]) = ((*(const tf_v16fu*)(&conv[80])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 624)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 128)]))));
      *(tf_v16fu*)(&conv[96]) = ((*(const tf_v16fu*)(&conv[96])) + ((*(const tf_v16fu*)(&data[((((out_ow_0 * 224) + ((out_n_cc_0_oh / 14) * 12544)) + ((out_n_cc_0_oh % 14) * 896)) + 656)])) * (*(const tf_v16fu*)(&weight[(((out_n_cc_0_oh / 14) * 144) + 128)]))));
      *(tf_v16fu*)(&out[(((out_ow_0 * 112) + ((out_n_cc_0_oh / 14) * 3136)) + ((out_n_cc_0_oh % 14) * 224))]) = tf_v16_min(tf_v16_max(((*(const tf_v16fu*)(&conv[0])) + (*(const tf_v16fu*)(&bias[((out_n_cc_0_oh / 14) * 16)]))), tf_v16_bc(0.0f)), tf_v16_bc(6.0f));
      *(tf_v16fu*)(&out[((((out_ow_0 * 112) + ((out_n_cc_0_oh / 14) * 3136)) + ((out_n_cc_0_oh % 14) * 224)) + 16)]) = tf_v16_min(tf_v16_max(((*(const tf_v16fu*)(&conv[16])) + (*(const tf_v16fu*)(&bias[((out_n_cc_0_oh / 14) * 16)]))), tf_v16_bc(0.0f)), tf_v16_bc(6.0f));
      *(tf_v16fu*)(&out[((((out_ow_0 * 112) + ((out_n_cc_0_oh / 14) * 3136)) + ((out_n_cc_0_oh % 14) * 224)) + 32)]) = tf_v16_min(tf_v16_max(((*(const tf_v16fu*)(&conv[32])) + (*(const tf_v16fu*)(&bias[((out_n_cc_0_oh / 14) * 16)]))), tf_v16_bc(0.0f)), tf_v16_bc(6.0f));
      *(tf_v16fu*)(&out[((((out_ow_0 * 112) + ((out_n_cc_0_oh / 14) * 3136)) + ((out_n_cc_0_oh % 14) * 224)) + 48)]) = tf_v16_min(tf_v16_max(((*(const tf_v16fu*)(&conv[48])) + (*(const tf_v16fu*)(&bias[((out_n_cc_0_oh / 14) * 16)]))), tf_v16_bc(0.0f)), tf_v16_bc(6.0f));
      *(tf_v16fu*)(&out[((((out_ow_0 * 112) + ((out_n_cc_0_oh / 14) * 3136)) + ((out_n_cc_0_oh % 14) * 224)) + 64)]) = tf_v16_min(tf_v16_max(((*(const tf_v16fu*)(&conv[64])) + (*(const tf_v16fu*)(&bias[((out_n_cc_0_oh / 14) * 16)]))), tf_v16_bc(0.0f)), tf_v16_bc(6.0f));
      *(tf_v16fu*)(&out[((((out_ow_0 * 112) + ((out_n_cc_0_oh / 14) * 3136)) + ((out_n_cc_0_oh % 14) * 224)) + 80)]) = tf_v16_min(tf_v16_max(((*(const tf_v16fu*)(&conv[80])) + (*(const tf_v16fu*)(&bias[((out_n_cc_0_oh / 14) * 16)]))), tf_v16_bc(0.0f)), tf_v16_bc(6.0f));
      *(tf_v16fu*)(&out[((((out_ow_0 * 112) + ((out_n_cc_0_oh / 14) * 3136)) + ((out_n_cc_0_oh % 14) * 224)) + 96)]) = tf_v16_min(tf_v16_max(((*(const tf_v16fu*)(&conv[96])) + (*(const tf_v16fu*)(&bias[((out_n_cc_0_oh / 14) * 16)]))), tf_v16_bc(0.0f)), tf_v16_bc(6.0f));
    }
  }
  return 0;
}

int32_t tf_entry(void** args) { return tf_kernel(args[0], args[1], args[2], args[3]); }
double tf_time(void** args, int32_t number) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int32_t i = 0; i < number; ++i) tf_kernel(args[0], args[1], args[2], args[3]);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return ((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9) / (number > 0 ? number : 1);
}
