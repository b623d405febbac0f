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
static float b_pack[98304] __attribute__((aligned(64)));
__attribute__((noinline)) static int32_t tf_kernel(void* restrict a_raw, void* restrict b_raw, void* restrict out_raw) {
  float* restrict a = (float*)__builtin_assume_aligned(a_raw, 64);
  float* restrict b = (float*)__builtin_assume_aligned(b_raw, 64);
  float* restrict out = (float*)__builtin_assume_aligned(out_raw, 64);
  /* serial: work 196608 */
  for (int32_t b_pack_b_k = 0; b_pack_b_k < 768; ++b_pack_b_k) {
    for (int32_t b_pack_j = 0; b_pack_j < 128; ++b_pack_j) {
      b_pack[((b_pack_j + ((b_pack_b_k / 64) * 8192)) + ((b_pack_b_k % 64) * 128))] = b[((b_pack_j + ((b_pack_b_k / 64) * 8192)) + ((b_pack_b_k % 64) * 128))];
    }
  }
  #pragma omp parallel for schedule(static)
  for (int32_t out_b_j_0_i_0 = 0; out_b_j_0_i_0 < 768; ++out_b_j_0_i_0) {
    float acc[256] __attribute__((aligned(64)));
    *(tf_v16fu*)(&acc[0]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&acc[16]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&acc[32]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&acc[48]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&acc[64]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&acc[80]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&acc[96]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&acc[112]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&acc[128]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&acc[144]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&acc[160]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&acc[176]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&acc[192]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&acc[208]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&acc[224]) = tf_v16_bc(0.0f);
    *(tf_v16fu*)(&acc[240]) = tf_v16_bc(0.0f);
    for (int32_t acc_k_0 = 0; acc_k_0 < 16; ++acc_k_0) {
      *(tf_v16fu*)(&acc[0]) = ((*(const tf_v16fu*)(&acc[0])) + (a[(((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512))] * (*(const tf_v16fu*)(&b_pack[(((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32))]))));
      *(tf_v16fu*)(&acc[16]) = ((*(const tf_v16fu*)(&acc[16])) + (a[(((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512))] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 16)]))));
      *(tf_v16fu*)(&acc[32]) = ((*(const tf_v16fu*)(&acc[32])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 64)] * (*(const tf_v16fu*)(&b_pack[(((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32))]))));
      *(tf_v16fu*)(&acc[48]) = ((*(const tf_v16fu*)(&acc[48])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 64)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 16)]))));
      *(tf_v16fu*)(&acc[64]) = ((*(const tf_v16fu*)(&acc[64])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 128)] * (*(const tf_v16fu*)(&b_pack[(((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32))]))));
      *(tf_v16fu*)(&acc[80]) = ((*(const tf_v16fu*)(&acc[80])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 128)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 16)]))));
      *(tf_v16fu*)(&acc[96]) = ((*(const tf_v16fu*)(&acc[96])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 192)] * (*(const tf_v16fu*)(&b_pack[(((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32))]))));
      *(tf_v16fu*)(&acc[112]) = ((*(const tf_v16fu*)(&acc[112])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 192)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 16)]))));
      *(tf_v16fu*)(&acc[128]) = ((*(const tf_v16fu*)(&acc[128])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 256)] * (*(const tf_v16fu*)(&b_pack[(((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32))]))));
      *(tf_v16fu*)(&acc[144]) = ((*(const tf_v16fu*)(&acc[144])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 256)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 16)]))));
      *(tf_v16fu*)(&acc[160]) = ((*(const tf_v16fu*)(&acc[160])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 320)] * (*(const tf_v16fu*)(&b_pack[(((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32))]))));
      *(tf_v16fu*)(&acc[176]) = ((*(const tf_v16fu*)(&acc[176])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 320)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 16)]))));
      *(tf_v16fu*)(&acc[192]) = ((*(const tf_v16fu*)(&acc[192])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 384)] * (*(const tf_v16fu*)(&b_pack[(((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32))]))));
      *(tf_v16fu*)(&acc[208]) = ((*(const tf_v16fu*)(&acc[208])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 384)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 16)]))));
      *(tf_v16fu*)(&acc[224]) = ((*(const tf_v16fu*)(&acc[224])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 448)] * (*(const tf_v16fu*)(&b_pack[(((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32))]))));
      *(tf_v16fu*)(&acc[240]) = ((*(const tf_v16fu*)(&acc[240])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 448)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 16)]))));
      *(tf_v16fu*)(&acc[0]) = ((*(const tf_v16fu*)(&acc[0])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 1)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 128)]))));
      *(tf_v16fu*)(&acc[16]) = ((*(const tf_v16fu*)(&acc[16])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 1)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 144)]))));
      *(tf_v16fu*)(&acc[32]) = ((*(const tf_v16fu*)(&acc[32])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 65)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 128)]))));
      *(tf_v16fu*)(&acc[48]) = ((*(const tf_v16fu*)(&acc[48])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 65)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 144)]))));
      *(tf_v16fu*)(&acc[64]) = ((*(const tf_v16fu*)(&acc[64])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 129)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 128)]))));
      *(tf_v16fu*)(&acc[80]) = ((*(const tf_v16fu*)(&acc[80])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 129)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 144)]))));
      *(tf_v16fu*)(&acc[96]) = ((*(const tf_v16fu*)(&acc[96])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 193)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 128)]))));
      *(tf_v16fu*)(&acc[112]) = ((*(const tf_v16fu*)(&acc[112])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 193)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 144)]))));
      *(tf_v16fu*)(&acc[128]) = ((*(const tf_v16fu*)(&acc[128])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 257)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 128)]))));
      *(tf_v16fu*)(&acc[144]) = ((*(const tf_v16fu*)(&acc[144])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 257)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 144)]))));
      *(tf_v16fu*)(&acc[160]) = ((*(const tf_v16fu*)(&acc[160])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 321)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 128)]))));
      *(tf_v16fu*)(&acc[176]) = ((*(const tf_v16fu*)(&acc[176])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 321)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 144)]))));
      *(tf_v16fu*)(&acc[192]) = ((*(const tf_v16fu*)(&acc[192])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 385)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 128)]))));
      *(tf_v16fu*)(&acc[208]) = ((*(const tf_v16fu*)(&acc[208])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 385)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 144)]))));
      *(tf_v16fu*)(&acc[224]) = ((*(const tf_v16fu*)(&acc[224])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 449)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 128)]))));
      *(tf_v16fu*)(&acc[240]) = ((*(const tf_v16fu*)(&acc[240])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 449)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 144)]))));
      *(tf_v16fu*)(&acc[0]) = ((*(const tf_v16fu*)(&acc[0])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 2)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 256)]))));
      *(tf_v16fu*)(&acc[16]) = ((*(const tf_v16fu*)(&acc[16])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 2)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 272)]))));
      *(tf_v16fu*)(&acc[32]) = ((*(const tf_v16fu*)(&acc[32])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 66)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 256)]))));
      *(tf_v16fu*)(&acc[48]) = ((*(const tf_v16fu*)(&acc[48])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 66)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 272)]))));
      *(tf_v16fu*)(&acc[64]) = ((*(const tf_v16fu*)(&acc[64])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 130)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 256)]))));
      *(tf_v16fu*)(&acc[80]) = ((*(const tf_v16fu*)(&acc[80])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 130)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 272)]))));
      *(tf_v16fu*)(&acc[96]) = ((*(const tf_v16fu*)(&acc[96])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 194)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 256)]))));
      *(tf_v16fu*)(&acc[112]) = ((*(const tf_v16fu*)(&acc[112])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 194)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 272)]))));
      *(tf_v16fu*)(&acc[128]) = ((*(const tf_v16fu*)(&acc[128])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 258)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 256)]))));
      *(tf_v16fu*)(&acc[144]) = ((*(const tf_v16fu*)(&acc[144])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 258)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 272)]))));
      *(tf_v16fu*)(&acc[160]) = ((*(const tf_v16fu*)(&acc[160])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 322)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 256)]))));
      *(tf_v16fu*)(&acc[176]) = ((*(const tf_v16fu*)(&acc[176])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 322)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 272)]))));
      *(tf_v16fu*)(&acc[192]) = ((*(const tf_v16fu*)(&acc[192])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 386)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 256)]))));
      *(tf_v16fu*)(&acc[208]) = ((*(const tf_v16fu*)(&acc[208])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 386)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 272)]))));
      *(tf_v16fu*)(&acc[224]) = ((*(const tf_v16fu*)(&acc[224])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 450)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 256)]))));
      *(tf_v16fu*)(&acc[240]) = ((*(const tf_v16fu*)(&acc[240])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 450)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 272)]))));
      *(tf_v16fu*)(&acc[0]) = ((*(const tf_v16fu*)(&acc[0])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 3)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 384)]))));
      *(tf_v16fu*)(&acc[16]) = ((*(const tf_v16fu*)(&acc[16])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 3)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 400)]))));
      *(tf_v16fu*)(&acc[32]) = ((*(const tf_v16fu*)(&acc[32])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 67)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 384)]))));
      *(tf_v16fu*)(&acc[48]) = ((*(const tf_v16fu*)(&acc[48])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 67)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 400)]))));
      *(tf_v16fu*)(&acc[64]) = ((*(const tf_v16fu*)(&acc[64])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 131)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 384)]))));
      *(tf_v16fu*)(&acc[80]) = ((*(const tf_v16fu*)(&acc[80])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 131)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 400)]))));
      *(tf_v16fu*)(&acc[96]) = ((*(const tf_v16fu*)(&acc[96])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 195)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 384)]))));
      *(tf_v16fu*)(&acc[112]) = ((*(const tf_v16fu*)(&acc[112])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 195)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 400)]))));
      *(tf_v16fu*)(&acc[128]) = ((*(const tf_v16fu*)(&acc[128])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 259)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 384)]))));
      *(tf_v16fu*)(&acc[144]) = ((*(const tf_v16fu*)(&acc[144])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 259)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 400)]))));
      *(tf_v16fu*)(&acc[160]) = ((*(const tf_v16fu*)(&acc[160])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 323)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 384)]))));
      *(tf_v16fu*)(&acc[176]) = ((*(const tf_v16fu*)(&acc[176])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 323)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 400)]))));
      *(tf_v16fu*)(&acc[192]) = ((*(const tf_v16fu*)(&acc[192])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 387)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 384)]))));
      *(tf_v16fu*)(&acc[208]) = ((*(const tf_v16fu*)(&acc[208])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 387)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 400)]))));
      *(tf_v16fu*)(&acc[224]) = ((*(const tf_v16fu*)(&acc[224])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 451)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 384)]))));
      *(tf_v16fu*)(&acc[240]) = ((*(const tf_v16fu*)(&acc[240])) + (a[((((acc_k_0 * 4) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + ((out_b_j_0_i_0 % 16) * 512)) + 451)] * (*(const tf_v16fu*)(&b_pack[((((acc_k_0 * 512) + (((out_b_j_0_i_0 / 16) / 4) * 8192)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 400)]))));
    }
    for (int32_t out_i_1 = 0; out_i_1 < 8; ++out_i_1) {
      *(tf_v16fu*)(&out[((((out_i_1 * 128) + (((out_b_j_0_i_0 / 16) / 4) * 16384)) + ((out_b_j_0_i_0 % 16) * 1024)) + (((out_b_j_0_i_0 / 16) % 4) * 32))]) = (*(const tf_v16fu*)(&acc[(out_i_1 * 32)]));
      *(tf_v16fu*)(&out[(((((out_i_1 * 128) + (((out_b_j_0_i_0 / 16) / 4) * 16384)) + ((out_b_j_0_i_0 % 16) * 1024)) + (((out_b_j_0_i_0 / 16) % 4) * 32)) + 16)]) = (*(const tf_v16fu*)(&acc[((out_i_1 * 32) + 16)]));
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
