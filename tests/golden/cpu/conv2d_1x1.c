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
__attribute__((noinline)) static int32_t tf_kernel(void* restrict data_raw, void* restrict weight_raw, void* restrict conv_raw) {
  float* restrict data = (float*)__builtin_assume_aligned(data_raw, 64);
  float* restrict weight = (float*)__builtin_assume_aligned(weight_raw, 64);
  float* restrict conv = (float*)__builtin_assume_aligned(conv_raw, 64);
  #pragma omp parallel for schedule(static)
  for (int32_t conv_n_occ_0_oh = 0; conv_n_occ_0_oh < 224; ++conv_n_occ_0_oh) {
    for (int32_t conv_ow_0 = 0; conv_ow_0 < 4; ++conv_ow_0) {
      float conv_local[224] __attribute__((aligned(64)));
      *(tf_v16fu*)(&conv_local[0]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[112]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[16]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[128]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[32]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[144]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[48]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[160]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[64]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[176]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[80]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[192]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[96]) = tf_v16_bc(0.0f);
      *(tf_v16fu*)(&conv_local[208]) = tf_v16_bc(0.0f);
      for (int32_t conv_local_icc = 0; conv_local_icc < 8; ++conv_local_icc) {
        for (int32_t conv_local_icb = 0; conv_local_icb < 16; ++conv_local_icb) {
          *(tf_v16fu*)(&conv_local[0]) = ((*(const tf_v16fu*)(&conv_local[0])) + (data[((((conv_local_icc * 12544) + (conv_ow_0 * 112)) + conv_local_icb) + ((conv_n_occ_0_oh % 28) * 448))] * (*(const tf_v16fu*)(&weight[(((conv_local_icc * 256) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 28) * 4096))]))));
          *(tf_v16fu*)(&conv_local[112]) = ((*(const tf_v16fu*)(&conv_local[112])) + (data[((((conv_local_icc * 12544) + (conv_ow_0 * 112)) + conv_local_icb) + ((conv_n_occ_0_oh % 28) * 448))] * (*(const tf_v16fu*)(&weight[((((conv_local_icc * 256) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 28) * 4096)) + 2048)]))));
          *(tf_v16fu*)(&conv_local[16]) = ((*(const tf_v16fu*)(&conv_local[16])) + (data[(((((conv_local_icc * 12544) + (conv_ow_0 * 112)) + conv_local_icb) + ((conv_n_occ_0_oh % 28) * 448)) + 16)] * (*(const tf_v16fu*)(&weight[(((conv_local_icc * 256) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 28) * 4096))]))));
          *(tf_v16fu*)(&conv_local[128]) = ((*(const tf_v16fu*)(&conv_local[128])) + (data[(((((conv_local_icc * 12544) + (conv_ow_0 * 112)) + conv_local_icb) + ((conv_n_occ_0_oh % 28) * 448)) + 16)] * (*(const tf_v16fu*)(&weight[((((conv_local_icc * 256) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 28) * 4096)) + 2048)]))));
          *(tf_v16fu*)(&conv_local[32]) = ((*(const tf_v16fu*)(&conv_local[32])) + (data[(((((conv_local_icc * 12544) + (conv_ow_0 * 112)) + conv_local_icb) + ((conv_n_occ_0_oh % 28) * 448)) + 32)] * (*(const tf_v16fu*)(&weight[(((conv_local_icc * 256) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 28) * 4096))]))));
          *(tf_v16fu*)(&conv_local[144]) = ((*(const tf_v16fu*)(&conv_local[144])) + (data[(((((conv_local_icc * 12544) + (conv_ow_0 * 112)) + conv_local_icb) + ((conv_n_occ_0_oh % 28) * 448)) + 32)] * (*(const tf_v16fu*)(&weight[((((conv_local_icc * 256) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 28) * 4096)) + 2048)]))));
          *(tf_v16fu*)(&conv_local[48]) = ((*(const tf_v16fu*)(&conv_local[48])) + (data[(((((conv_local_icc * 12544) + (conv_ow_0 * 112)) + conv_local_icb) + ((conv_n_occ_0_oh % 28) * 448)) + 48)] * (*(const tf_v16fu*)(&weight[(((conv_local_icc * 256) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 28) * 4096))]))));
          *(tf_v16fu*)(&conv_local[160]) = ((*(const tf_v16fu*)(&conv_local[160])) + (data[(((((conv_local_icc * 12544) + (conv_ow_0 * 112)) + conv_local_icb) + ((conv_n_occ_0_oh % 28) * 448)) + 48)] * (*(const tf_v16fu*)(&weight[((((conv_local_icc * 256) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 28) * 4096)) + 2048)]))));
          *(tf_v16fu*)(&conv_local[64]) = ((*(const tf_v16fu*)(&conv_local[64])) + (data[(((((conv_local_icc * 12544) + (conv_ow_0 * 112)) + conv_local_icb) + ((conv_n_occ_0_oh % 28) * 448)) + 64)] * (*(const tf_v16fu*)(&weight[(((conv_local_icc * 256) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 28) * 4096))]))));
          *(tf_v16fu*)(&conv_local[176]) = ((*(const tf_v16fu*)(&conv_local[176])) + (data[(((((conv_local_icc * 12544) + (conv_ow_0 * 112)) + conv_local_icb) + ((conv_n_occ_0_oh % 28) * 448)) + 64)] * (*(const tf_v16fu*)(&weight[((((conv_local_icc * 256) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 28) * 4096)) + 2048)]))));
          *(tf_v16fu*)(&conv_local[80]) = ((*(const tf_v16fu*)(&conv_local[80])) + (data[(((((conv_local_icc * 12544) + (conv_ow_0 * 112)) + conv_local_icb) + ((conv_n_occ_0_oh % 28) * 448)) + 80)] * (*(const tf_v16fu*)(&weight[(((conv_local_icc * 256) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 28) * 4096))]))));
          *(tf_v16fu*)(&conv_local[192]) = ((*(const tf_v16fu*)(&conv_local[192])) + (data[(((((conv_local_icc * 12544) + (conv_ow_0 * 112)) + conv_local_icb) + ((conv_n_occ_0_oh % 28) * 448)) + 80)] * (*(const tf_v16fu*)(&weight[((((conv_local_icc * 256) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 28) * 4096)) + 2048)]))));
          *(tf_v16fu*)(&conv_local[96]) = ((*(const tf_v16fu*)(&conv_local[96])) + (data[(((((conv_local_icc * 12544) + (conv_ow_0 * 112)) + conv_local_icb) + ((conv_n_occ_0_oh % 28) * 448)) + 96)] * (*(const tf_v16fu*)(&weight[(((conv_local_icc * 256) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 28) * 4096))]))));
          *(tf_v16fu*)(&conv_local[208]) = ((*(const tf_v16fu*)(&conv_local[208])) + (data[(((((conv_local_icc * 12544) + (conv_ow_0 * 112)) + conv_local_icb) + ((conv_n_occ_0_oh % 28) * 448)) + 96)] * (*(const tf_v16fu*)(&weight[((((conv_local_icc * 256) + (conv_local_icb * 16)) + ((conv_n_occ_0_oh / 28) * 4096)) + 2048)]))));
        }
      }
      *(tf_v16fu*)(&conv[(((conv_ow_0 * 112) + ((conv_n_occ_0_oh / 28) * 25088)) + ((conv_n_occ_0_oh % 28) * 448))]) = (*(const tf_v16fu*)(&conv_local[0]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 112) + ((conv_n_occ_0_oh / 28) * 25088)) + ((conv_n_occ_0_oh % 28) * 448)) + 16)]) = (*(const tf_v16fu*)(&conv_local[16]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 112) + ((conv_n_occ_0_oh / 28) * 25088)) + ((conv_n_occ_0_oh % 28) * 448)) + 32)]) = (*(const tf_v16fu*)(&conv_local[32]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 112) + ((conv_n_occ_0_oh / 28) * 25088)) + ((conv_n_occ_0_oh % 28) * 448)) + 48)]) = (*(const tf_v16fu*)(&conv_local[48]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 112) + ((conv_n_occ_0_oh / 28) * 25088)) + ((conv_n_occ_0_oh % 28) * 448)) + 64)]) = (*(const tf_v16fu*)(&conv_local[64]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 112) + ((conv_n_occ_0_oh / 28) * 25088)) + ((conv_n_occ_0_oh % 28) * 448)) + 80)]) = (*(const tf_v16fu*)(&conv_local[80]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 112) + ((conv_n_occ_0_oh / 28) * 25088)) + ((conv_n_occ_0_oh % 28) * 448)) + 96)]) = (*(const tf_v16fu*)(&conv_local[96]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 112) + ((conv_n_occ_0_oh / 28) * 25088)) + ((conv_n_occ_0_oh % 28) * 448)) + 12544)]) = (*(const tf_v16fu*)(&conv_local[112]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 112) + ((conv_n_occ_0_oh / 28) * 25088)) + ((conv_n_occ_0_oh % 28) * 448)) + 12560)]) = (*(const tf_v16fu*)(&conv_local[128]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 112) + ((conv_n_occ_0_oh / 28) * 25088)) + ((conv_n_occ_0_oh % 28) * 448)) + 12576)]) = (*(const tf_v16fu*)(&conv_local[144]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 112) + ((conv_n_occ_0_oh / 28) * 25088)) + ((conv_n_occ_0_oh % 28) * 448)) + 12592)]) = (*(const tf_v16fu*)(&conv_local[160]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 112) + ((conv_n_occ_0_oh / 28) * 25088)) + ((conv_n_occ_0_oh % 28) * 448)) + 12608)]) = (*(const tf_v16fu*)(&conv_local[176]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 112) + ((conv_n_occ_0_oh / 28) * 25088)) + ((conv_n_occ_0_oh % 28) * 448)) + 12624)]) = (*(const tf_v16fu*)(&conv_local[192]));
      *(tf_v16fu*)(&conv[((((conv_ow_0 * 112) + ((conv_n_occ_0_oh / 28) * 25088)) + ((conv_n_occ_0_oh % 28) * 448)) + 12640)]) = (*(const tf_v16fu*)(&conv_local[208]));
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
