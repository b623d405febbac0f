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
  /* serial: work 9671424 */
  for (int32_t out_n_occ_0 = 0; out_n_occ_0 < 2; ++out_n_occ_0) {
    float conv[3136] __attribute__((aligned(64)));
    for (int32_t conv_oh = 0; conv_oh < 7; ++conv_oh) {
      *(tf_v16fu*)(&conv[(conv_oh * 112)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 784)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 1568)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 2352)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 16)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 800)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 1584)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 2368)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 32)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 816)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 1600)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 2384)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 48)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 832)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 1616)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 2400)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 64)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 848)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 1632)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 2416)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 80)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 864)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 1648)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 2432)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 96)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 880)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 1664)]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv[((conv_oh * 112) + 2448)]) = tf_v16_bc(0.0f);
    }
    for (int32_t conv_icc_0 = 0; conv_icc_0 < 2; ++conv_icc_0) {
      for (int32_t conv_oh = 0; conv_oh < 7; ++conv_oh) {
        for (int32_t conv_icc_1 = 0; conv_icc_1 < 8; ++conv_icc_1) {
          for (int32_t conv_icb = 0; conv_icb < 16; ++conv_icb) {
            *(tf_v16fu*)(&conv[(conv_oh * 112)]) = ((*(const tf_v16fu*)(&conv[(conv_oh * 112)])) + (data[((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb)] * (*(const tf_v16fu*)(&weight[((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16))]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 784)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 784)])) + (data[((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb)] * (*(const tf_v16fu*)(&weight[(((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16)) + 4096)]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 1568)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 1568)])) + (data[((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb)] * (*(const tf_v16fu*)(&weight[(((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16)) + 8192)]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 2352)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 2352)])) + (data[((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb)] * (*(const tf_v16fu*)(&weight[(((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16)) + 12288)]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 16)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 16)])) + (data[(((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb) + 16)] * (*(const tf_v16fu*)(&weight[((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16))]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 800)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 800)])) + (data[(((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb) + 16)] * (*(const tf_v16fu*)(&weight[(((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16)) + 4096)]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 1584)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 1584)])) + (data[(((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb) + 16)] * (*(const tf_v16fu*)(&weight[(((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16)) + 8192)]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 2368)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 2368)])) + (data[(((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb) + 16)] * (*(const tf_v16fu*)(&weight[(((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16)) + 12288)]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 32)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 32)])) + (data[(((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb) + 32)] * (*(const tf_v16fu*)(&weight[((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16))]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 816)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 816)])) + (data[(((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb) + 32)] * (*(const tf_v16fu*)(&weight[(((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16)) + 4096)]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 1600)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 1600)])) + (data[(((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb) + 32)] * (*(const tf_v16fu*)(&weight[(((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16)) + 8192)]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 2384)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 2384)])) + (data[(((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb) + 32)] * (*(const tf_v16fu*)(&weight[(((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16)) + 12288)]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 48)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 48)])) + (data[(((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb) + 48)] * (*(const tf_v16fu*)(&weight[((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16))]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 832)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 832)])) + (data[(((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb) + 48)] * (*(const tf_v16fu*)(&weight[(((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16)) + 4096)]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 1616)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 1616)])) + (data[(((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb) + 48)] * (*(const tf_v16fu*)(&weight[(((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16)) + 8192)]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 2400)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 2400)])) + (data[(((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb) + 48)] * (*(const tf_v16fu*)(&weight[(((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16)) + 12288)]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 64)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 64)])) + (data[(((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb) + 64)] * (*(const tf_v16fu*)(&weight[((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16))]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 848)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 848)])) + (data[(((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb) + 64)] * (*(const tf_v16fu*)(&weight[(((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16)) + 4096)]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 1632)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 1632)])) + (data[(((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb) + 64)] * (*(const tf_v16fu*)(&weight[(((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16)) + 8192)]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 2416)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 2416)])) + (data[(((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb) + 64)] * (*(const tf_v16fu*)(&weight[(((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16)) + 12288)]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 80)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 80)])) + (data[(((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb) + 80)] * (*(const tf_v16fu*)(&weight[((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16))]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 864)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 864)])) + (data[(((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb) + 80)] * (*(const tf_v16fu*)(&weight[(((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16)) + 4096)]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 1648)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 1648)])) + (data[(((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb) + 80)] * (*(const tf_v16fu*)(&weight[(((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16)) + 8192)]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 2432)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 2432)])) + (data[(((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb) + 80)] * (*(const tf_v16fu*)(&weight[(((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16)) + 12288)]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 96)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 96)])) + (data[(((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb) + 96)] * (*(const tf_v16fu*)(&weight[((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16))]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 880)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 880)])) + (data[(((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb) + 96)] * (*(const tf_v16fu*)(&weight[(((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16)) + 4096)]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 1664)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 1664)])) + (data[(((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb) + 96)] * (*(const tf_v16fu*)(&weight[(((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16)) + 8192)]))));
            *(tf_v16fu*)(&conv[((conv_oh * 112) + 2448)]) = ((*(const tf_v16fu*)(&conv[((conv_oh * 112) + 2448)])) + (data[(((((conv_icc_0 * 6272) + (conv_icc_1 * 784)) + (conv_oh * 112)) + conv_icb) + 96)] * (*(const tf_v16fu*)(&weight[(((((out_n_occ_0 * 16384) + (conv_icc_0 * 2048)) + (conv_icc_1 * 256)) + (conv_icb * 16)) + 12288)]))));
          }
        }
      }
    }
    for (int32_t out_occ_1 = 0; out_occ_1 < 4; ++out_occ_1) {
      for (int32_t out_oh = 0; out_oh < 7; ++out_oh) {
        for (int32_t out_ow = 0; out_ow < 7; ++out_ow) {
          *(tf_v16fu*)(&out[((((out_n_occ_0 * 3136) + (out_occ_1 * 784)) + (out_oh * 112)) + (out_ow * 16))]) = tf_v16_max(((*(const tf_v16fu*)(&conv[(((out_occ_1 * 784) + (out_oh * 112)) + (out_ow * 16))])) + (*(const tf_v16fu*)(&bias[((out_n_occ_0 * 64) + (out_occ_1 * 16))]))), tf_v16_bc(0.0f));
        }
      }
    }
  }
  return 0;
}

int32_t tf_entry(void** args) { return tf_kernel(args[0], args[1], args[2], args[3]); }
double tf_time(void** args, int32_t number) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
  for (int32_t i = 0; i < number; ++i) tf_kernel(args[0], args[1], args[2], args[3]);
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
  return ((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9) / (number > 0 ? number : 1);
}
