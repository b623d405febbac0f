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
/* 0: x86 vector types of the intrinsics below */
typedef long long tf_m128i __attribute__((vector_size(16), __may_alias__));
typedef long long tf_m256i __attribute__((vector_size(32), __may_alias__));
typedef long long tf_m512i __attribute__((vector_size(64), __may_alias__));
typedef float tf_m128 __attribute__((vector_size(16), __may_alias__));
typedef float tf_m256 __attribute__((vector_size(32), __may_alias__));
typedef float tf_m512 __attribute__((vector_size(64), __may_alias__));
typedef char tf_i8x16 __attribute__((vector_size(16)));
typedef short tf_i16x16 __attribute__((vector_size(32)));
typedef short tf_i16x32 __attribute__((vector_size(64)));
typedef int tf_i32x8 __attribute__((vector_size(32)));
typedef int tf_i32x16 __attribute__((vector_size(64)));
typedef long long tf_i64x8 __attribute__((vector_size(64)));
typedef float tf_f32x4 __attribute__((vector_size(16)));
typedef float tf_f32x8 __attribute__((vector_size(32)));
typedef float tf_f32x16 __attribute__((vector_size(64)));
static inline __attribute__((always_inline, artificial)) tf_m256 tf_mm256_round_ps(tf_m256 v, const int m) { return (tf_m256)__builtin_ia32_roundps256((tf_f32x8)v, m); }
static inline __attribute__((always_inline, artificial)) tf_m256i tf_mm256_madd_epi16(tf_m256i a, tf_m256i b) { return (tf_m256i)__builtin_ia32_pmaddwd256((tf_i16x16)a, (tf_i16x16)b); }
static inline __attribute__((always_inline, artificial)) tf_m256i tf_mm256_set1_epi32(int a) { return (tf_m256i)(tf_i32x8){ a, a, a, a, a, a, a, a }; }
static inline __attribute__((always_inline, artificial)) tf_m256i tf_mm256_slli_epi16(tf_m256i a, int b) { return (tf_m256i)__builtin_ia32_psllwi256((tf_i16x16)a, b); }
static inline __attribute__((always_inline, artificial)) tf_m256i tf_mm256_srai_epi16(tf_m256i a, int b) { return (tf_m256i)__builtin_ia32_psrawi256((tf_i16x16)a, b); }
static inline tf_v8f tf_v8_rint(tf_v8f x) { return (tf_v8f)tf_mm256_round_ps(x, 0x08); }
static inline tf_v8i tf_v8_dp(tf_v8i acc, int32_t a, tf_v8i b) {
  tf_m256i bv = (tf_m256i)b;
  tf_m256i lo = tf_mm256_srai_epi16(tf_mm256_slli_epi16(bv, 8), 8), hi = tf_mm256_srai_epi16(bv, 8);
  uint32_t ua = (uint32_t)a;
  tf_m256i alo = tf_mm256_set1_epi32((int32_t)(ua & 0x00FF00FFu));
  tf_m256i ahi = tf_mm256_set1_epi32((int32_t)((ua >> 8) & 0x00FF00FFu));
  return acc + (tf_v8i)tf_mm256_madd_epi16(lo, alo) + (tf_v8i)tf_mm256_madd_epi16(hi, ahi); }
typedef int32_t tf_v8iu __attribute__((vector_size(32), aligned(4)));
static inline tf_v8i tf_v8i_bc(int32_t s) { return (tf_v8i){0} + s; }
static inline tf_v8i tf_v8i_max(tf_v8i a, tf_v8i b) {
  tf_v8i m = a > b; return (a & m) | (b & ~m); }
static inline tf_v8i tf_v8i_min(tf_v8i a, tf_v8i b) {
  tf_v8i m = a < b; return (a & m) | (b & ~m); }
typedef int8_t tf_v8sb __attribute__((vector_size(8), aligned(1)));
static int32_t wsum[64] __attribute__((aligned(64)));
static int32_t conv_pad[4096] __attribute__((aligned(64)));
__attribute__((noinline)) static int32_t tf_kernel(void* restrict data_raw, void* restrict weight_raw, void* restrict bias_raw, void* restrict scale_raw, void* restrict out_raw) {
  int32_t* restrict data = (int32_t*)__builtin_assume_aligned(data_raw, 64);
  int32_t* restrict weight = (int32_t*)__builtin_assume_aligned(weight_raw, 64);
  int32_t* restrict bias = (int32_t*)__builtin_assume_aligned(bias_raw, 64);
  float* restrict scale = (float*)__builtin_assume_aligned(scale_raw, 64);
  int8_t* restrict out = (int8_t*)__builtin_assume_aligned(out_raw, 64);
  /* serial: work 49152 */
  for (int32_t conv_pad_n_icc_h = 0; conv_pad_n_icc_h < 64; ++conv_pad_n_icc_h) {
    for (int32_t conv_pad_w = 0; conv_pad_w < 16; ++conv_pad_w) {
      #pragma omp simd
      for (int32_t conv_pad_icb = 0; conv_pad_icb < 4; ++conv_pad_icb) {
        conv_pad[((((conv_pad_w * 4) + conv_pad_icb) + ((conv_pad_n_icc_h / 16) * 1024)) + ((conv_pad_n_icc_h % 16) * 64))] = ((((((conv_pad_n_icc_h % 16) >= 1) && ((conv_pad_n_icc_h % 16) < 15)) && (conv_pad_w >= 1)) && (conv_pad_w < 15)) ? data[(((((conv_pad_w * 4) + conv_pad_icb) + ((conv_pad_n_icc_h / 16) * 784)) + ((conv_pad_n_icc_h % 16) * 56)) - 60)] : 50529027);
      }
    }
  }
  for (int32_t wsum_occ = 0; wsum_occ < 8; ++wsum_occ) {
    *(tf_v8iu*)(&wsum[(wsum_occ * 8)]) = tf_v8i_bc(0);
    for (int32_t wsum_wicc = 0; wsum_wicc < 4; ++wsum_wicc) {
      for (int32_t wsum_wkh = 0; wsum_wkh < 3; ++wsum_wkh) {
        for (int32_t wsum_wkw = 0; wsum_wkw < 3; ++wsum_wkw) {
          for (int32_t wsum_wicb = 0; wsum_wicb < 4; ++wsum_wicb) {
            *(tf_v8iu*)(&wsum[(wsum_occ * 8)]) = tf_v8_dp((*(const tf_v8iu*)(&wsum[(wsum_occ * 8)])), 16843009, (*(const tf_v8iu*)(&weight[(((((wsum_occ * 1152) + (wsum_wicc * 288)) + (wsum_wkh * 96)) + (wsum_wkw * 32)) + (wsum_wicb * 8))])));
          }
        }
      }
    }
  }
  #pragma omp parallel for schedule(static)
  for (int32_t out_n_occ_0_oh = 0; out_n_occ_0_oh < 112; ++out_n_occ_0_oh) {
    int32_t conv[112] __attribute__((aligned(64)));
    *(tf_v8iu*)(&conv[0]) = tf_v8i_bc(0);
    *(tf_v8iu*)(&conv[8]) = tf_v8i_bc(0);
    *(tf_v8iu*)(&conv[16]) = tf_v8i_bc(0);
    *(tf_v8iu*)(&conv[24]) = tf_v8i_bc(0);
    *(tf_v8iu*)(&conv[32]) = tf_v8i_bc(0);
    *(tf_v8iu*)(&conv[40]) = tf_v8i_bc(0);
    *(tf_v8iu*)(&conv[48]) = tf_v8i_bc(0);
    *(tf_v8iu*)(&conv[56]) = tf_v8i_bc(0);
    *(tf_v8iu*)(&conv[64]) = tf_v8i_bc(0);
    *(tf_v8iu*)(&conv[72]) = tf_v8i_bc(0);
    *(tf_v8iu*)(&conv[80]) = tf_v8i_bc(0);
    *(tf_v8iu*)(&conv[88]) = tf_v8i_bc(0);
    *(tf_v8iu*)(&conv[96]) = tf_v8i_bc(0);
    *(tf_v8iu*)(&conv[104]) = tf_v8i_bc(0);
    for (int32_t conv_icc = 0; conv_icc < 4; ++conv_icc) {
      for (int32_t conv_kh = 0; conv_kh < 3; ++conv_kh) {
        for (int32_t conv_icb = 0; conv_icb < 4; ++conv_icb) {
          *(tf_v8iu*)(&conv[0]) = tf_v8_dp((*(const tf_v8iu*)(&conv[0])), conv_pad[((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64))], (*(const tf_v8iu*)(&weight[((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152))])));
          *(tf_v8iu*)(&conv[8]) = tf_v8_dp((*(const tf_v8iu*)(&conv[8])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 4)], (*(const tf_v8iu*)(&weight[((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152))])));
          *(tf_v8iu*)(&conv[16]) = tf_v8_dp((*(const tf_v8iu*)(&conv[16])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 8)], (*(const tf_v8iu*)(&weight[((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152))])));
          *(tf_v8iu*)(&conv[24]) = tf_v8_dp((*(const tf_v8iu*)(&conv[24])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 12)], (*(const tf_v8iu*)(&weight[((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152))])));
          *(tf_v8iu*)(&conv[32]) = tf_v8_dp((*(const tf_v8iu*)(&conv[32])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 16)], (*(const tf_v8iu*)(&weight[((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152))])));
          *(tf_v8iu*)(&conv[40]) = tf_v8_dp((*(const tf_v8iu*)(&conv[40])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 20)], (*(const tf_v8iu*)(&weight[((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152))])));
          *(tf_v8iu*)(&conv[48]) = tf_v8_dp((*(const tf_v8iu*)(&conv[48])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 24)], (*(const tf_v8iu*)(&weight[((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152))])));
          *(tf_v8iu*)(&conv[56]) = tf_v8_dp((*(const tf_v8iu*)(&conv[56])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 28)], (*(const tf_v8iu*)(&weight[((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152))])));
          *(tf_v8iu*)(&conv[64]) = tf_v8_dp((*(const tf_v8iu*)(&conv[64])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 32)], (*(const tf_v8iu*)(&weight[((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152))])));
          *(tf_v8iu*)(&conv[72]) = tf_v8_dp((*(const tf_v8iu*)(&conv[72])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 36)], (*(const tf_v8iu*)(&weight[((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152))])));
          *(tf_v8iu*)(&conv[80]) = tf_v8_dp((*(const tf_v8iu*)(&conv[80])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 40)], (*(const tf_v8iu*)(&weight[((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152))])));
          *(tf_v8iu*)(&conv[88]) = tf_v8_dp((*(const tf_v8iu*)(&conv[88])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 44)], (*(const tf_v8iu*)(&weight[((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152))])));
          *(tf_v8iu*)(&conv[96]) = tf_v8_dp((*(const tf_v8iu*)(&conv[96])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 48)], (*(const tf_v8iu*)(&weight[((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152))])));
          *(tf_v8iu*)(&conv[104]) = tf_v8_dp((*(const tf_v8iu*)(&conv[104])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 52)], (*(const tf_v8iu*)(&weight[((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152))])));
        }
        for (int32_t conv_icb = 0; conv_icb < 4; ++conv_icb) {
          *(tf_v8iu*)(&conv[0]) = tf_v8_dp((*(const tf_v8iu*)(&conv[0])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 4)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 32)])));
          *(tf_v8iu*)(&conv[8]) = tf_v8_dp((*(const tf_v8iu*)(&conv[8])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 8)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 32)])));
          *(tf_v8iu*)(&conv[16]) = tf_v8_dp((*(const tf_v8iu*)(&conv[16])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 12)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 32)])));
          *(tf_v8iu*)(&conv[24]) = tf_v8_dp((*(const tf_v8iu*)(&conv[24])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 16)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 32)])));
          *(tf_v8iu*)(&conv[32]) = tf_v8_dp((*(const tf_v8iu*)(&conv[32])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 20)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 32)])));
          *(tf_v8iu*)(&conv[40]) = tf_v8_dp((*(const tf_v8iu*)(&conv[40])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 24)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 32)])));
          *(tf_v8iu*)(&conv[48]) = tf_v8_dp((*(const tf_v8iu*)(&conv[48])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 28)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 32)])));
          *(tf_v8iu*)(&conv[56]) = tf_v8_dp((*(const tf_v8iu*)(&conv[56])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 32)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 32)])));
          *(tf_v8iu*)(&conv[64]) = tf_v8_dp((*(const tf_v8iu*)(&conv[64])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 36)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 32)])));
          *(tf_v8iu*)(&conv[72]) = tf_v8_dp((*(const tf_v8iu*)(&conv[72])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 40)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 32)])));
          *(tf_v8iu*)(&conv[80]) = tf_v8_dp((*(const tf_v8iu*)(&conv[80])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 44)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 32)])));
          *(tf_v8iu*)(&conv[88]) = tf_v8_dp((*(const tf_v8iu*)(&conv[88])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 48)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 32)])));
          *(tf_v8iu*)(&conv[96]) = tf_v8_dp((*(const tf_v8iu*)(&conv[96])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 52)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 32)])));
          *(tf_v8iu*)(&conv[104]) = tf_v8_dp((*(const tf_v8iu*)(&conv[104])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 56)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 32)])));
        }
        for (int32_t conv_icb = 0; conv_icb < 4; ++conv_icb) {
          *(tf_v8iu*)(&conv[0]) = tf_v8_dp((*(const tf_v8iu*)(&conv[0])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 8)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 64)])));
          *(tf_v8iu*)(&conv[8]) = tf_v8_dp((*(const tf_v8iu*)(&conv[8])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 12)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 64)])));
          *(tf_v8iu*)(&conv[16]) = tf_v8_dp((*(const tf_v8iu*)(&conv[16])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 16)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 64)])));
          *(tf_v8iu*)(&conv[24]) = tf_v8_dp((*(const tf_v8iu*)(&conv[24])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 20)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 64)])));
          *(tf_v8iu*)(&conv[32]) = tf_v8_dp((*(const tf_v8iu*)(&conv[32])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 24)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 64)])));
          *(tf_v8iu*)(&conv[40]) = tf_v8_dp((*(const tf_v8iu*)(&conv[40])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 28)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 64)])));
          *(tf_v8iu*)(&conv[48]) = tf_v8_dp((*(const tf_v8iu*)(&conv[48])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 32)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 64)])));
          *(tf_v8iu*)(&conv[56]) = tf_v8_dp((*(const tf_v8iu*)(&conv[56])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 36)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 64)])));
          *(tf_v8iu*)(&conv[64]) = tf_v8_dp((*(const tf_v8iu*)(&conv[64])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 40)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 64)])));
          *(tf_v8iu*)(&conv[72]) = tf_v8_dp((*(const tf_v8iu*)(&conv[72])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 44)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 64)])));
          *(tf_v8iu*)(&conv[80]) = tf_v8_dp((*(const tf_v8iu*)(&conv[80])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 48)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 64)])));
          *(tf_v8iu*)(&conv[88]) = tf_v8_dp((*(const tf_v8iu*)(&conv[88])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 52)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 64)])));
          *(tf_v8iu*)(&conv[96]) = tf_v8_dp((*(const tf_v8iu*)(&conv[96])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 56)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 64)])));
          *(tf_v8iu*)(&conv[104]) = tf_v8_dp((*(const tf_v8iu*)(&conv[104])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 60)], (*(const tf_v8iu*)(&weight[(((((conv_icc * 288) + (conv_kh * 96)) + (conv_icb * 8)) + ((out_n_occ_0_oh / 14) * 1152)) + 64)])));
        }
      }
    }
    *(tf_v8sb*)(&out[(((out_n_occ_0_oh / 14) * 1568) + ((out_n_occ_0_oh % 14) * 112))]) = __builtin_convertvector((__builtin_convertvector(tf_v8_min(tf_v8_max(tf_v8_rint((__builtin_convertvector((((*(const tf_v8iu*)(&conv[0])) + ((*(const tf_v8iu*)(&wsum[((out_n_occ_0_oh / 14) * 8)])) * tf_v8i_bc(-3))) + (*(const tf_v8iu*)(&bias[((out_n_occ_0_oh / 14) * 8)]))), tf_v8f) * (*(const tf_v8fu*)(&scale[((out_n_occ_0_oh / 14) * 8)])))), tf_v8_bc(((float)(0)))), tf_v8_bc(((float)(129)))), tf_v8i) - tf_v8i_bc(2)), tf_v8sb);
    *(tf_v8sb*)(&out[((((out_n_occ_0_oh / 14) * 1568) + ((out_n_occ_0_oh % 14) * 112)) + 8)]) = __builtin_convertvector((__builtin_convertvector(tf_v8_min(tf_v8_max(tf_v8_rint((__builtin_convertvector((((*(const tf_v8iu*)(&conv[8])) + ((*(const tf_v8iu*)(&wsum[((out_n_occ_0_oh / 14) * 8)])) * tf_v8i_bc(-3))) + (*(const tf_v8iu*)(&bias[((out_n_occ_0_oh / 14) * 8)]))), tf_v8f) * (*(const tf_v8fu*)(&scale[((out_n_occ_0_oh / 14) * 8)])))), tf_v8_bc(((float)(0)))), tf_v8_bc(((float)(129)))), tf_v8i) - tf_v8i_bc(2)), tf_v8sb);
    *(tf_v8sb*)(&out[((((out_n_occ_0_oh / 14) * 1568) + ((out_n_occ_0_oh % 14) * 112)) + 16)]) = __builtin_convertvector((__builtin_convertvector(tf_v8_min(tf_v8_max(tf_v8_rint((__builtin_convertvector((((*(const tf_v8iu*)(&conv[16])) + ((*(const tf_v8iu*)(&wsum[((out_n_occ_0_oh / 14) * 8)])) * tf_v8i_bc(-3))) + (*(const tf_v8iu*)(&bias[((out_n_occ_0_oh / 14) * 8)]))), tf_v8f) * (*(const tf_v8fu*)(&scale[((out_n_occ_0_oh / 14) * 8)])))), tf_v8_bc(((float)(0)))), tf_v8_bc(((float)(129)))), tf_v8i) - tf_v8i_bc(2)), tf_v8sb);
    *(tf_v8sb*)(&out[((((out_n_occ_0_oh / 14) * 1568) + ((out_n_occ_0_oh % 14) * 112)) + 24)]) = __builtin_convertvector((__builtin_convertvector(tf_v8_min(tf_v8_max(tf_v8_rint((__builtin_convertvector((((*(const tf_v8iu*)(&conv[24])) + ((*(const tf_v8iu*)(&wsum[((out_n_occ_0_oh / 14) * 8)])) * tf_v8i_bc(-3))) + (*(const tf_v8iu*)(&bias[((out_n_occ_0_oh / 14) * 8)]))), tf_v8f) * (*(const tf_v8fu*)(&scale[((out_n_occ_0_oh / 14) * 8)])))), tf_v8_bc(((float)(0)))), tf_v8_bc(((float)(129)))), tf_v8i) - tf_v8i_bc(2)), tf_v8sb);
    *(tf_v8sb*)(&out[((((out_n_occ_0_oh / 14) * 1568) + ((out_n_occ_0_oh % 14) * 112)) + 32)]) = __builtin_convertvector((__builtin_convertvector(tf_v8_min(tf_v8_max(tf_v8_rint((__builtin_convertvector((((*(const tf_v8iu*)(&conv[32])) + ((*(const tf_v8iu*)(&wsum[((out_n_occ_0_oh / 14) * 8)])) * tf_v8i_bc(-3))) + (*(const tf_v8iu*)(&bias[((out_n_occ_0_oh / 14) * 8)]))), tf_v8f) * (*(const tf_v8fu*)(&scale[((out_n_occ_0_oh / 14) * 8)])))), tf_v8_bc(((float)(0)))), tf_v8_bc(((float)(129)))), tf_v8i) - tf_v8i_bc(2)), tf_v8sb);
    *(tf_v8sb*)(&out[((((out_n_occ_0_oh / 14) * 1568) + ((out_n_occ_0_oh % 14) * 112)) + 40)]) = __builtin_convertvector((__builtin_convertvector(tf_v8_min(tf_v8_max(tf_v8_rint((__builtin_convertvector((((*(const tf_v8iu*)(&conv[40])) + ((*(const tf_v8iu*)(&wsum[((out_n_occ_0_oh / 14) * 8)])) * tf_v8i_bc(-3))) + (*(const tf_v8iu*)(&bias[((out_n_occ_0_oh / 14) * 8)]))), tf_v8f) * (*(const tf_v8fu*)(&scale[((out_n_occ_0_oh / 14) * 8)])))), tf_v8_bc(((float)(0)))), tf_v8_bc(((float)(129)))), tf_v8i) - tf_v8i_bc(2)), tf_v8sb);
    *(tf_v8sb*)(&out[((((out_n_occ_0_oh / 14) * 1568) + ((out_n_occ_0_oh % 14) * 112)) + 48)]) = __builtin_convertvector((__builtin_convertvector(tf_v8_min(tf_v8_max(tf_v8_rint((__builtin_convertvector((((*(const tf_v8iu*)(&conv[48])) + ((*(const tf_v8iu*)(&wsum[((out_n_occ_0_oh / 14) * 8)])) * tf_v8i_bc(-3))) + (*(const tf_v8iu*)(&bias[((out_n_occ_0_oh / 14) * 8)]))), tf_v8f) * (*(const tf_v8fu*)(&scale[((out_n_occ_0_oh / 14) * 8)])))), tf_v8_bc(((float)(0)))), tf_v8_bc(((float)(129)))), tf_v8i) - tf_v8i_bc(2)), tf_v8sb);
    *(tf_v8sb*)(&out[((((out_n_occ_0_oh / 14) * 1568) + ((out_n_occ_0_oh % 14) * 112)) + 56)]) = __builtin_convertvector((__builtin_convertvector(tf_v8_min(tf_v8_max(tf_v8_rint((__builtin_convertvector((((*(const tf_v8iu*)(&conv[56])) + ((*(const tf_v8iu*)(&wsum[((out_n_occ_0_oh / 14) * 8)])) * tf_v8i_bc(-3))) + (*(const tf_v8iu*)(&bias[((out_n_occ_0_oh / 14) * 8)]))), tf_v8f) * (*(const tf_v8fu*)(&scale[((out_n_occ_0_oh / 14) * 8)])))), tf_v8_bc(((float)(0)))), tf_v8_bc(((float)(129)))), tf_v8i) - tf_v8i_bc(2)), tf_v8sb);
    *(tf_v8sb*)(&out[((((out_n_occ_0_oh / 14) * 1568) + ((out_n_occ_0_oh % 14) * 112)) + 64)]) = __builtin_convertvector((__builtin_convertvector(tf_v8_min(tf_v8_max(tf_v8_rint((__builtin_convertvector((((*(const tf_v8iu*)(&conv[64])) + ((*(const tf_v8iu*)(&wsum[((out_n_occ_0_oh / 14) * 8)])) * tf_v8i_bc(-3))) + (*(const tf_v8iu*)(&bias[((out_n_occ_0_oh / 14) * 8)]))), tf_v8f) * (*(const tf_v8fu*)(&scale[((out_n_occ_0_oh / 14) * 8)])))), tf_v8_bc(((float)(0)))), tf_v8_bc(((float)(129)))), tf_v8i) - tf_v8i_bc(2)), tf_v8sb);
    *(tf_v8sb*)(&out[((((out_n_occ_0_oh / 14) * 1568) + ((out_n_occ_0_oh % 14) * 112)) + 72)]) = __builtin_convertvector((__builtin_convertvector(tf_v8_min(tf_v8_max(tf_v8_rint((__builtin_convertvector((((*(const tf_v8iu*)(&conv[72])) + ((*(const tf_v8iu*)(&wsum[((out_n_occ_0_oh / 14) * 8)])) * tf_v8i_bc(-3))) + (*(const tf_v8iu*)(&bias[((out_n_occ_0_oh / 14) * 8)]))), tf_v8f) * (*(const tf_v8fu*)(&scale[((out_n_occ_0_oh / 14) * 8)])))), tf_v8_bc(((float)(0)))), tf_v8_bc(((float)(129)))), tf_v8i) - tf_v8i_bc(2)), tf_v8sb);
    *(tf_v8sb*)(&out[((((out_n_occ_0_oh / 14) * 1568) + ((out_n_occ_0_oh % 14) * 112)) + 80)]) = __builtin_convertvector((__builtin_convertvector(tf_v8_min(tf_v8_max(tf_v8_rint((__builtin_convertvector((((*(const tf_v8iu*)(&conv[80])) + ((*(const tf_v8iu*)(&wsum[((out_n_occ_0_oh / 14) * 8)])) * tf_v8i_bc(-3))) + (*(const tf_v8iu*)(&bias[((out_n_occ_0_oh / 14) * 8)]))), tf_v8f) * (*(const tf_v8fu*)(&scale[((out_n_occ_0_oh / 14) * 8)])))), tf_v8_bc(((float)(0)))), tf_v8_bc(((float)(129)))), tf_v8i) - tf_v8i_bc(2)), tf_v8sb);
    *(tf_v8sb*)(&out[((((out_n_occ_0_oh / 14) * 1568) + ((out_n_occ_0_oh % 14) * 112)) + 88)]) = __builtin_convertvector((__builtin_convertvector(tf_v8_min(tf_v8_max(tf_v8_rint((__builtin_convertvector((((*(const tf_v8iu*)(&conv[88])) + ((*(const tf_v8iu*)(&wsum[((out_n_occ_0_oh / 14) * 8)])) * tf_v8i_bc(-3))) + (*(const tf_v8iu*)(&bias[((out_n_occ_0_oh / 14) * 8)]))), tf_v8f) * (*(const tf_v8fu*)(&scale[((out_n_occ_0_oh / 14) * 8)])))), tf_v8_bc(((float)(0)))), tf_v8_bc(((float)(129)))), tf_v8i) - tf_v8i_bc(2)), tf_v8sb);
    *(tf_v8sb*)(&out[((((out_n_occ_0_oh / 14) * 1568) + ((out_n_occ_0_oh % 14) * 112)) + 96)]) = __builtin_convertvector((__builtin_convertvector(tf_v8_min(tf_v8_max(tf_v8_rint((__builtin_convertvector((((*(const tf_v8iu*)(&conv[96])) + ((*(const tf_v8iu*)(&wsum[((out_n_occ_0_oh / 14) * 8)])) * tf_v8i_bc(-3))) + (*(const tf_v8iu*)(&bias[((out_n_occ_0_oh / 14) * 8)]))), tf_v8f) * (*(const tf_v8fu*)(&scale[((out_n_occ_0_oh / 14) * 8)])))), tf_v8_bc(((float)(0)))), tf_v8_bc(((float)(129)))), tf_v8i) - tf_v8i_bc(2)), tf_v8sb);
    *(tf_v8sb*)(&out[((((out_n_occ_0_oh / 14) * 1568) + ((out_n_occ_0_oh % 14) * 112)) + 104)]) = __builtin_convertvector((__builtin_convertvector(tf_v8_min(tf_v8_max(tf_v8_rint((__builtin_convertvector((((*(const tf_v8iu*)(&conv[104])) + ((*(const tf_v8iu*)(&wsum[((out_n_occ_0_oh / 14) * 8)])) * tf_v8i_bc(-3))) + (*(const tf_v8iu*)(&bias[((out_n_occ_0_oh / 14) * 8)]))), tf_v8f) * (*(const tf_v8fu*)(&scale[((out_n_occ_0_oh / 14) * 8)])))), tf_v8_bc(((float)(0)))), tf_v8_bc(((float)(129)))), tf_v8i) - tf_v8i_bc(2)), tf_v8sb);
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
