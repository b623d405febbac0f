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
/* 1 */ static inline __attribute__((always_inline, artificial)) tf_m128i tf_mm_undefined_si128(void) { tf_m128i y = y; return y; }
/* 1 */ static inline __attribute__((always_inline, artificial)) tf_m512 tf_mm512_undefined_ps(void) { tf_m512 y = y; return y; }
static inline __attribute__((always_inline, artificial)) tf_m128i tf_mm512_cvtepi32_epi8(tf_m512i a) { return (tf_m128i)__builtin_ia32_pmovdb512_mask((tf_i32x16)a, (tf_i8x16)tf_mm_undefined_si128(), (unsigned short) -1); }
static inline __attribute__((always_inline, artificial)) tf_m512 tf_mm512_roundscale_ps(tf_m512 a, const int imm) { return (tf_m512)__builtin_ia32_rndscaleps_mask((tf_f32x16)a, imm, (tf_f32x16)tf_mm512_undefined_ps(), -1, 4); }
static inline __attribute__((always_inline, artificial)) tf_m512i tf_mm512_dpbusd_epi32(tf_m512i a, tf_m512i b, tf_m512i c) { return (tf_m512i)__builtin_ia32_vpdpbusd_v16si((tf_i32x16)a, (tf_i32x16)b, (tf_i32x16)c); }
static inline __attribute__((always_inline, artificial)) tf_m512i tf_mm512_set1_epi32(int a) { return (tf_m512i)(tf_i32x16){ a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a }; }
static inline tf_v16f tf_v16_rint(tf_v16f x) { return (tf_v16f)tf_mm512_roundscale_ps(x, 0x08); }
static inline tf_v16i tf_v16_dp(tf_v16i acc, int32_t a, tf_v16i b) { return (tf_v16i)tf_mm512_dpbusd_epi32((tf_m512i)acc, tf_mm512_set1_epi32(a), (tf_m512i)b); }
typedef int32_t tf_v16iu __attribute__((vector_size(64), aligned(4)));
static inline tf_v16i tf_v16i_bc(int32_t s) { return (tf_v16i){0} + s; }
static inline tf_v16i tf_v16i_max(tf_v16i a, tf_v16i b) {
  tf_v16i m = a > b; return (a & m) | (b & ~m); }
static inline tf_v16i tf_v16i_min(tf_v16i a, tf_v16i b) {
  tf_v16i m = a < b; return (a & m) | (b & ~m); }
typedef int8_t tf_v16sb __attribute__((vector_size(16), aligned(1)));
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
  for (int32_t wsum_occ = 0; wsum_occ < 4; ++wsum_occ) {
    *(tf_v16iu*)(&wsum[(wsum_occ * 16)]) = tf_v16i_bc(0);
    for (int32_t wsum_wicc = 0; wsum_wicc < 4; ++wsum_wicc) {
      for (int32_t wsum_wkh = 0; wsum_wkh < 3; ++wsum_wkh) {
        for (int32_t wsum_wkw = 0; wsum_wkw < 3; ++wsum_wkw) {
          for (int32_t wsum_wicb = 0; wsum_wicb < 4; ++wsum_wicb) {
            *(tf_v16iu*)(&wsum[(wsum_occ * 16)]) = tf_v16_dp((*(const tf_v16iu*)(&wsum[(wsum_occ * 16)])), 16843009, (*(const tf_v16iu*)(&weight[(((((wsum_occ * 2304) + (wsum_wicc * 576)) + (wsum_wkh * 192)) + (wsum_wkw * 64)) + (wsum_wicb * 16))])));
          }
        }
      }
    }
  }
  #pragma omp parallel for schedule(static)
  for (int32_t out_n_occ_0_oh = 0; out_n_occ_0_oh < 56; ++out_n_occ_0_oh) {
    int32_t conv[224] __attribute__((aligned(64)));
    *(tf_v16iu*)(&conv[0]) = tf_v16i_bc(0);
    *(tf_v16iu*)(&conv[16]) = tf_v16i_bc(0);
    *(tf_v16iu*)(&conv[32]) = tf_v16i_bc(0);
    *(tf_v16iu*)(&conv[48]) = tf_v16i_bc(0);
    *(tf_v16iu*)(&conv[64]) = tf_v16i_bc(0);
    *(tf_v16iu*)(&conv[80]) = tf_v16i_bc(0);
    *(tf_v16iu*)(&conv[96]) = tf_v16i_bc(0);
    *(tf_v16iu*)(&conv[112]) = tf_v16i_bc(0);
    *(tf_v16iu*)(&conv[128]) = tf_v16i_bc(0);
    *(tf_v16iu*)(&conv[144]) = tf_v16i_bc(0);
    *(tf_v16iu*)(&conv[160]) = tf_v16i_bc(0);
    *(tf_v16iu*)(&conv[176]) = tf_v16i_bc(0);
    *(tf_v16iu*)(&conv[192]) = tf_v16i_bc(0);
    *(tf_v16iu*)(&conv[208]) = tf_v16i_bc(0);
    for (int32_t conv_icc = 0; conv_icc < 4; ++conv_icc) {
      for (int32_t conv_kh = 0; conv_kh < 3; ++conv_kh) {
        for (int32_t conv_icb = 0; conv_icb < 4; ++conv_icb) {
          *(tf_v16iu*)(&conv[0]) = tf_v16_dp((*(const tf_v16iu*)(&conv[0])), conv_pad[((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64))], (*(const tf_v16iu*)(&weight[((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304))])));
          *(tf_v16iu*)(&conv[16]) = tf_v16_dp((*(const tf_v16iu*)(&conv[16])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 4)], (*(const tf_v16iu*)(&weight[((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304))])));
          *(tf_v16iu*)(&conv[32]) = tf_v16_dp((*(const tf_v16iu*)(&conv[32])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 8)], (*(const tf_v16iu*)(&weight[((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304))])));
          *(tf_v16iu*)(&conv[48]) = tf_v16_dp((*(const tf_v16iu*)(&conv[48])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 12)], (*(const tf_v16iu*)(&weight[((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304))])));
          *(tf_v16iu*)(&conv[64]) = tf_v16_dp((*(const tf_v16iu*)(&conv[64])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 16)], (*(const tf_v16iu*)(&weight[((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304))])));
          *(tf_v16iu*)(&conv[80]) = tf_v16_dp((*(const tf_v16iu*)(&conv[80])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 20)], (*(const tf_v16iu*)(&weight[((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304))])));
          *(tf_v16iu*)(&conv[96]) = tf_v16_dp((*(const tf_v16iu*)(&conv[96])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 24)], (*(const tf_v16iu*)(&weight[((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304))])));
          *(tf_v16iu*)(&conv[112]) = tf_v16_dp((*(const tf_v16iu*)(&conv[112])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 28)], (*(const tf_v16iu*)(&weight[((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304))])));
          *(tf_v16iu*)(&conv[128]) = tf_v16_dp((*(const tf_v16iu*)(&conv[128])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 32)], (*(const tf_v16iu*)(&weight[((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304))])));
          *(tf_v16iu*)(&conv[144]) = tf_v16_dp((*(const tf_v16iu*)(&conv[144])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 36)], (*(const tf_v16iu*)(&weight[((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304))])));
          *(tf_v16iu*)(&conv[160]) = tf_v16_dp((*(const tf_v16iu*)(&conv[160])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 40)], (*(const tf_v16iu*)(&weight[((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304))])));
          *(tf_v16iu*)(&conv[176]) = tf_v16_dp((*(const tf_v16iu*)(&conv[176])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 44)], (*(const tf_v16iu*)(&weight[((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304))])));
          *(tf_v16iu*)(&conv[192]) = tf_v16_dp((*(const tf_v16iu*)(&conv[192])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 48)], (*(const tf_v16iu*)(&weight[((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304))])));
          *(tf_v16iu*)(&conv[208]) = tf_v16_dp((*(const tf_v16iu*)(&conv[208])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 52)], (*(const tf_v16iu*)(&weight[((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304))])));
        }
        for (int32_t conv_icb = 0; conv_icb < 4; ++conv_icb) {
          *(tf_v16iu*)(&conv[0]) = tf_v16_dp((*(const tf_v16iu*)(&conv[0])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 4)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 64)])));
          *(tf_v16iu*)(&conv[16]) = tf_v16_dp((*(const tf_v16iu*)(&conv[16])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 8)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 64)])));
          *(tf_v16iu*)(&conv[32]) = tf_v16_dp((*(const tf_v16iu*)(&conv[32])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 12)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 64)])));
          *(tf_v16iu*)(&conv[48]) = tf_v16_dp((*(const tf_v16iu*)(&conv[48])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 16)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 64)])));
          *(tf_v16iu*)(&conv[64]) = tf_v16_dp((*(const tf_v16iu*)(&conv[64])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 20)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 64)])));
          *(tf_v16iu*)(&conv[80]) = tf_v16_dp((*(const tf_v16iu*)(&conv[80])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 24)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 64)])));
          *(tf_v16iu*)(&conv[96]) = tf_v16_dp((*(const tf_v16iu*)(&conv[96])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 28)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 64)])));
          *(tf_v16iu*)(&conv[112]) = tf_v16_dp((*(const tf_v16iu*)(&conv[112])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 32)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 64)])));
          *(tf_v16iu*)(&conv[128]) = tf_v16_dp((*(const tf_v16iu*)(&conv[128])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 36)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 64)])));
          *(tf_v16iu*)(&conv[144]) = tf_v16_dp((*(const tf_v16iu*)(&conv[144])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 40)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 64)])));
          *(tf_v16iu*)(&conv[160]) = tf_v16_dp((*(const tf_v16iu*)(&conv[160])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 44)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 64)])));
          *(tf_v16iu*)(&conv[176]) = tf_v16_dp((*(const tf_v16iu*)(&conv[176])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 48)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 64)])));
          *(tf_v16iu*)(&conv[192]) = tf_v16_dp((*(const tf_v16iu*)(&conv[192])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 52)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 64)])));
          *(tf_v16iu*)(&conv[208]) = tf_v16_dp((*(const tf_v16iu*)(&conv[208])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 56)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 64)])));
        }
        for (int32_t conv_icb = 0; conv_icb < 4; ++conv_icb) {
          *(tf_v16iu*)(&conv[0]) = tf_v16_dp((*(const tf_v16iu*)(&conv[0])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 8)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 128)])));
          *(tf_v16iu*)(&conv[16]) = tf_v16_dp((*(const tf_v16iu*)(&conv[16])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 12)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 128)])));
          *(tf_v16iu*)(&conv[32]) = tf_v16_dp((*(const tf_v16iu*)(&conv[32])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 16)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 128)])));
          *(tf_v16iu*)(&conv[48]) = tf_v16_dp((*(const tf_v16iu*)(&conv[48])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 20)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 128)])));
          *(tf_v16iu*)(&conv[64]) = tf_v16_dp((*(const tf_v16iu*)(&conv[64])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 24)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 128)])));
          *(tf_v16iu*)(&conv[80]) = tf_v16_dp((*(const tf_v16iu*)(&conv[80])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 28)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 128)])));
          *(tf_v16iu*)(&conv[96]) = tf_v16_dp((*(const tf_v16iu*)(&conv[96])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 32)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 128)])));
          *(tf_v16iu*)(&conv[112]) = tf_v16_dp((*(const tf_v16iu*)(&conv[112])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 36)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 128)])));
          *(tf_v16iu*)(&conv[128]) = tf_v16_dp((*(const tf_v16iu*)(&conv[128])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 40)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 128)])));
          *(tf_v16iu*)(&conv[144]) = tf_v16_dp((*(const tf_v16iu*)(&conv[144])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 44)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 128)])));
          *(tf_v16iu*)(&conv[160]) = tf_v16_dp((*(const tf_v16iu*)(&conv[160])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 48)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 128)])));
          *(tf_v16iu*)(&conv[176]) = tf_v16_dp((*(const tf_v16iu*)(&conv[176])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 52)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 128)])));
          *(tf_v16iu*)(&conv[192]) = tf_v16_dp((*(const tf_v16iu*)(&conv[192])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 56)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 128)])));
          *(tf_v16iu*)(&conv[208]) = tf_v16_dp((*(const tf_v16iu*)(&conv[208])), conv_pad[(((((conv_icc * 1024) + (conv_kh * 64)) + conv_icb) + ((out_n_occ_0_oh % 14) * 64)) + 60)], (*(const tf_v16iu*)(&weight[(((((conv_icc * 576) + (conv_kh * 192)) + (conv_icb * 16)) + ((out_n_occ_0_oh / 14) * 2304)) + 128)])));
        }
      }
    }
    *(tf_v16sb*)(&out[(((out_n_occ_0_oh / 14) * 3136) + ((out_n_occ_0_oh % 14) * 224))]) = ((tf_v16sb)tf_mm512_cvtepi32_epi8((tf_m512i)((__builtin_convertvector(tf_v16_min(tf_v16_max(tf_v16_rint((__builtin_convertvector((((*(const tf_v16iu*)(&conv[0])) + ((*(const tf_v16iu*)(&wsum[((out_n_occ_0_oh / 14) * 16)])) * tf_v16i_bc(-3))) + (*(const tf_v16iu*)(&bias[((out_n_occ_0_oh / 14) * 16)]))), tf_v16f) * (*(const tf_v16fu*)(&scale[((out_n_occ_0_oh / 14) * 16)])))), tf_v16_bc(((float)(0)))), tf_v16_bc(((float)(129)))), tf_v16i) - tf_v16i_bc(2)))));
    *(tf_v16sb*)(&out[((((out_n_occ_0_oh / 14) * 3136) + ((out_n_occ_0_oh % 14) * 224)) + 16)]) = ((tf_v16sb)tf_mm512_cvtepi32_epi8((tf_m512i)((__builtin_convertvector(tf_v16_min(tf_v16_max(tf_v16_rint((__builtin_convertvector((((*(const tf_v16iu*)(&conv[16])) + ((*(const tf_v16iu*)(&wsum[((out_n_occ_0_oh / 14) * 16)])) * tf_v16i_bc(-3))) + (*(const tf_v16iu*)(&bias[((out_n_occ_0_oh / 14) * 16)]))), tf_v16f) * (*(const tf_v16fu*)(&scale[((out_n_occ_0_oh / 14) * 16)])))), tf_v16_bc(((float)(0)))), tf_v16_bc(((float)(129)))), tf_v16i) - tf_v16i_bc(2)))));
    *(tf_v16sb*)(&out[((((out_n_occ_0_oh / 14) * 3136) + ((out_n_occ_0_oh % 14) * 224)) + 32)]) = ((tf_v16sb)tf_mm512_cvtepi32_epi8((tf_m512i)((__builtin_convertvector(tf_v16_min(tf_v16_max(tf_v16_rint((__builtin_convertvector((((*(const tf_v16iu*)(&conv[32])) + ((*(const tf_v16iu*)(&wsum[((out_n_occ_0_oh / 14) * 16)])) * tf_v16i_bc(-3))) + (*(const tf_v16iu*)(&bias[((out_n_occ_0_oh / 14) * 16)]))), tf_v16f) * (*(const tf_v16fu*)(&scale[((out_n_occ_0_oh / 14) * 16)])))), tf_v16_bc(((float)(0)))), tf_v16_bc(((float)(129)))), tf_v16i) - tf_v16i_bc(2)))));
    *(tf_v16sb*)(&out[((((out_n_occ_0_oh / 14) * 3136) + ((out_n_occ_0_oh % 14) * 224)) + 48)]) = ((tf_v16sb)tf_mm512_cvtepi32_epi8((tf_m512i)((__builtin_convertvector(tf_v16_min(tf_v16_max(tf_v16_rint((__builtin_convertvector((((*(const tf_v16iu*)(&conv[48])) + ((*(const tf_v16iu*)(&wsum[((out_n_occ_0_oh / 14) * 16)])) * tf_v16i_bc(-3))) + (*(const tf_v16iu*)(&bias[((out_n_occ_0_oh / 14) * 16)]))), tf_v16f) * (*(const tf_v16fu*)(&scale[((out_n_occ_0_oh / 14) * 16)])))), tf_v16_bc(((float)(0)))), tf_v16_bc(((float)(129)))), tf_v16i) - tf_v16i_bc(2)))));
    *(tf_v16sb*)(&out[((((out_n_occ_0_oh / 14) * 3136) + ((out_n_occ_0_oh % 14) * 224)) + 64)]) = ((tf_v16sb)tf_mm512_cvtepi32_epi8((tf_m512i)((__builtin_convertvector(tf_v16_min(tf_v16_max(tf_v16_rint((__builtin_convertvector((((*(const tf_v16iu*)(&conv[64])) + ((*(const tf_v16iu*)(&wsum[((out_n_occ_0_oh / 14) * 16)])) * tf_v16i_bc(-3))) + (*(const tf_v16iu*)(&bias[((out_n_occ_0_oh / 14) * 16)]))), tf_v16f) * (*(const tf_v16fu*)(&scale[((out_n_occ_0_oh / 14) * 16)])))), tf_v16_bc(((float)(0)))), tf_v16_bc(((float)(129)))), tf_v16i) - tf_v16i_bc(2)))));
    *(tf_v16sb*)(&out[((((out_n_occ_0_oh / 14) * 3136) + ((out_n_occ_0_oh % 14) * 224)) + 80)]) = ((tf_v16sb)tf_mm512_cvtepi32_epi8((tf_m512i)((__builtin_convertvector(tf_v16_min(tf_v16_max(tf_v16_rint((__builtin_convertvector((((*(const tf_v16iu*)(&conv[80])) + ((*(const tf_v16iu*)(&wsum[((out_n_occ_0_oh / 14) * 16)])) * tf_v16i_bc(-3))) + (*(const tf_v16iu*)(&bias[((out_n_occ_0_oh / 14) * 16)]))), tf_v16f) * (*(const tf_v16fu*)(&scale[((out_n_occ_0_oh / 14) * 16)])))), tf_v16_bc(((float)(0)))), tf_v16_bc(((float)(129)))), tf_v16i) - tf_v16i_bc(2)))));
    *(tf_v16sb*)(&out[((((out_n_occ_0_oh / 14) * 3136) + ((out_n_occ_0_oh % 14) * 224)) + 96)]) = ((tf_v16sb)tf_mm512_cvtepi32_epi8((tf_m512i)((__builtin_convertvector(tf_v16_min(tf_v16_max(tf_v16_rint((__builtin_convertvector((((*(const tf_v16iu*)(&conv[96])) + ((*(const tf_v16iu*)(&wsum[((out_n_occ_0_oh / 14) * 16)])) * tf_v16i_bc(-3))) + (*(const tf_v16iu*)(&bias[((out_n_occ_0_oh / 14) * 16)]))), tf_v16f) * (*(const tf_v16fu*)(&scale[((out_n_occ_0_oh / 14) * 16)])))), tf_v16_bc(((float)(0)))), tf_v16_bc(((float)(129)))), tf_v16i) - tf_v16i_bc(2)))));
    *(tf_v16sb*)(&out[((((out_n_occ_0_oh / 14) * 3136) + ((out_n_occ_0_oh % 14) * 224)) + 112)]) = ((tf_v16sb)tf_mm512_cvtepi32_epi8((tf_m512i)((__builtin_convertvector(tf_v16_min(tf_v16_max(tf_v16_rint((__builtin_convertvector((((*(const tf_v16iu*)(&conv[112])) + ((*(const tf_v16iu*)(&wsum[((out_n_occ_0_oh / 14) * 16)])) * tf_v16i_bc(-3))) + (*(const tf_v16iu*)(&bias[((out_n_occ_0_oh / 14) * 16)]))), tf_v16f) * (*(const tf_v16fu*)(&scale[((out_n_occ_0_oh / 14) * 16)])))), tf_v16_bc(((float)(0)))), tf_v16_bc(((float)(129)))), tf_v16i) - tf_v16i_bc(2)))));
    *(tf_v16sb*)(&out[((((out_n_occ_0_oh / 14) * 3136) + ((out_n_occ_0_oh % 14) * 224)) + 128)]) = ((tf_v16sb)tf_mm512_cvtepi32_epi8((tf_m512i)((__builtin_convertvector(tf_v16_min(tf_v16_max(tf_v16_rint((__builtin_convertvector((((*(const tf_v16iu*)(&conv[128])) + ((*(const tf_v16iu*)(&wsum[((out_n_occ_0_oh / 14) * 16)])) * tf_v16i_bc(-3))) + (*(const tf_v16iu*)(&bias[((out_n_occ_0_oh / 14) * 16)]))), tf_v16f) * (*(const tf_v16fu*)(&scale[((out_n_occ_0_oh / 14) * 16)])))), tf_v16_bc(((float)(0)))), tf_v16_bc(((float)(129)))), tf_v16i) - tf_v16i_bc(2)))));
    *(tf_v16sb*)(&out[((((out_n_occ_0_oh / 14) * 3136) + ((out_n_occ_0_oh % 14) * 224)) + 144)]) = ((tf_v16sb)tf_mm512_cvtepi32_epi8((tf_m512i)((__builtin_convertvector(tf_v16_min(tf_v16_max(tf_v16_rint((__builtin_convertvector((((*(const tf_v16iu*)(&conv[144])) + ((*(const tf_v16iu*)(&wsum[((out_n_occ_0_oh / 14) * 16)])) * tf_v16i_bc(-3))) + (*(const tf_v16iu*)(&bias[((out_n_occ_0_oh / 14) * 16)]))), tf_v16f) * (*(const tf_v16fu*)(&scale[((out_n_occ_0_oh / 14) * 16)])))), tf_v16_bc(((float)(0)))), tf_v16_bc(((float)(129)))), tf_v16i) - tf_v16i_bc(2)))));
    *(tf_v16sb*)(&out[((((out_n_occ_0_oh / 14) * 3136) + ((out_n_occ_0_oh % 14) * 224)) + 160)]) = ((tf_v16sb)tf_mm512_cvtepi32_epi8((tf_m512i)((__builtin_convertvector(tf_v16_min(tf_v16_max(tf_v16_rint((__builtin_convertvector((((*(const tf_v16iu*)(&conv[160])) + ((*(const tf_v16iu*)(&wsum[((out_n_occ_0_oh / 14) * 16)])) * tf_v16i_bc(-3))) + (*(const tf_v16iu*)(&bias[((out_n_occ_0_oh / 14) * 16)]))), tf_v16f) * (*(const tf_v16fu*)(&scale[((out_n_occ_0_oh / 14) * 16)])))), tf_v16_bc(((float)(0)))), tf_v16_bc(((float)(129)))), tf_v16i) - tf_v16i_bc(2)))));
    *(tf_v16sb*)(&out[((((out_n_occ_0_oh / 14) * 3136) + ((out_n_occ_0_oh % 14) * 224)) + 176)]) = ((tf_v16sb)tf_mm512_cvtepi32_epi8((tf_m512i)((__builtin_convertvector(tf_v16_min(tf_v16_max(tf_v16_rint((__builtin_convertvector((((*(const tf_v16iu*)(&conv[176])) + ((*(const tf_v16iu*)(&wsum[((out_n_occ_0_oh / 14) * 16)])) * tf_v16i_bc(-3))) + (*(const tf_v16iu*)(&bias[((out_n_occ_0_oh / 14) * 16)]))), tf_v16f) * (*(const tf_v16fu*)(&scale[((out_n_occ_0_oh / 14) * 16)])))), tf_v16_bc(((float)(0)))), tf_v16_bc(((float)(129)))), tf_v16i) - tf_v16i_bc(2)))));
    *(tf_v16sb*)(&out[((((out_n_occ_0_oh / 14) * 3136) + ((out_n_occ_0_oh % 14) * 224)) + 192)]) = ((tf_v16sb)tf_mm512_cvtepi32_epi8((tf_m512i)((__builtin_convertvector(tf_v16_min(tf_v16_max(tf_v16_rint((__builtin_convertvector((((*(const tf_v16iu*)(&conv[192])) + ((*(const tf_v16iu*)(&wsum[((out_n_occ_0_oh / 14) * 16)])) * tf_v16i_bc(-3))) + (*(const tf_v16iu*)(&bias[((out_n_occ_0_oh / 14) * 16)]))), tf_v16f) * (*(const tf_v16fu*)(&scale[((out_n_occ_0_oh / 14) * 16)])))), tf_v16_bc(((float)(0)))), tf_v16_bc(((float)(129)))), tf_v16i) - tf_v16i_bc(2)))));
    *(tf_v16sb*)(&out[((((out_n_occ_0_oh / 14) * 3136) + ((out_n_occ_0_oh % 14) * 224)) + 208)]) = ((tf_v16sb)tf_mm512_cvtepi32_epi8((tf_m512i)((__builtin_convertvector(tf_v16_min(tf_v16_max(tf_v16_rint((__builtin_convertvector((((*(const tf_v16iu*)(&conv[208])) + ((*(const tf_v16iu*)(&wsum[((out_n_occ_0_oh / 14) * 16)])) * tf_v16i_bc(-3))) + (*(const tf_v16iu*)(&bias[((out_n_occ_0_oh / 14) * 16)]))), tf_v16f) * (*(const tf_v16fu*)(&scale[((out_n_occ_0_oh / 14) * 16)])))), tf_v16_bc(((float)(0)))), tf_v16_bc(((float)(129)))), tf_v16i) - tf_v16i_bc(2)))));
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
