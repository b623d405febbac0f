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
__attribute__((noinline)) static int32_t tf_kernel(void* restrict data_raw, void* restrict pool_raw) {
  float* restrict data = (float*)__builtin_assume_aligned(data_raw, 64);
  float* restrict pool = (float*)__builtin_assume_aligned(pool_raw, 64);
  #pragma omp parallel for schedule(static)
  for (int32_t pool_n_cc_0_y = 0; pool_n_cc_0_y < 224; ++pool_n_cc_0_y) {
    for (int32_t pool_x_0 = 0; pool_x_0 < 7; ++pool_x_0) {
      float pool_local[128] __attribute__((aligned(64)));
      *(tf_v16fu*)(&pool_local[0]) = tf_v16_bc((-__builtin_inff()));
      *(tf_v16fu*)(&pool_local[16]) = tf_v16_bc((-__builtin_inff()));
      *(tf_v16fu*)(&pool_local[32]) = tf_v16_bc((-__builtin_inff()));
      *(tf_v16fu*)(&pool_local[48]) = tf_v16_bc((-__builtin_inff()));
      *(tf_v16fu*)(&pool_local[64]) = tf_v16_bc((-__builtin_inff()));
      *(tf_v16fu*)(&pool_local[80]) = tf_v16_bc((-__builtin_inff()));
      *(tf_v16fu*)(&pool_local[96]) = tf_v16_bc((-__builtin_inff()));
      *(tf_v16fu*)(&pool_local[112]) = tf_v16_bc((-__builtin_inff()));
      for (int32_t pool_local_ky = 0; pool_local_ky < 3; ++pool_local_ky) {
        *(tf_v16fu*)(&pool_local[0]) = tf_v16_max((*(const tf_v16fu*)(&pool_local[0])), ((((pool_local_ky + ((pool_n_cc_0_y % 56) * 2)) >= 1) && ((pool_x_0 * 16) >= 1)) ? (*(const tf_v16fu*)(&data[(((((pool_local_ky * 1792) + (pool_x_0 * 256)) + ((pool_n_cc_0_y / 56) * 200704)) + ((pool_n_cc_0_y % 56) * 3584)) - 1808)])) : tf_v16_bc(-3.4028234663852886e+38f)));
        *(tf_v16fu*)(&pool_local[16]) = tf_v16_max((*(const tf_v16fu*)(&pool_local[16])), (((pool_local_ky + ((pool_n_cc_0_y % 56) * 2)) >= 1) ? (*(const tf_v16fu*)(&data[(((((pool_local_ky * 1792) + (pool_x_0 * 256)) + ((pool_n_cc_0_y / 56) * 200704)) + ((pool_n_cc_0_y % 56) * 3584)) - 1776)])) : tf_v16_bc(-3.4028234663852886e+38f)));
        *(tf_v16fu*)(&pool_local[32]) = tf_v16_max((*(const tf_v16fu*)(&pool_local[32])), (((pool_local_ky + ((pool_n_cc_0_y % 56) * 2)) >= 1) ? (*(const tf_v16fu*)(&data[(((((pool_local_ky * 1792) + (pool_x_0 * 256)) + ((pool_n_cc_0_y / 56) * 200704)) + ((pool_n_cc_0_y % 56) * 3584)) - 1744)])) : tf_v16_bc(-3.4028234663852886e+38f)));
        *(tf_v16fu*)(&pool_local[48]) = tf_v16_max((*(const tf_v16fu*)(&pool_local[48])), (((pool_local_ky + ((pool_n_cc_0_y % 56) * 2)) >= 1) ? (*(const tf_v16fu*)(&data[(((((pool_local_ky * 1792) + (pool_x_0 * 256)) + ((pool_n_cc_0_y / 56) * 200704)) + ((pool_n_cc_0_y % 56) * 3584)) - 1712)])) : tf_v16_bc(-3.4028234663852886e+38f)));
        *(tf_v16fu*)(&pool_local[64]) = tf_v16_max((*(const tf_v16fu*)(&pool_local[64])), (((pool_local_ky + ((pool_n_cc_0_y % 56) * 2)) >= 1) ? (*(const tf_v16fu*)(&data[(((((pool_local_ky * 1792) + (pool_x_0 * 256)) + ((pool_n_cc_0_y / 56) * 200704)) + ((pool_n_cc_0_y % 56) * 3584)) - 1680)])) : tf_v16_bc(-3.4028234663852886e+38f)));
        *(tf_v16fu*)(&pool_local[80]) = tf_v16_max((*(const tf_v16fu*)(&pool_local[80])), (((pool_local_ky + ((pool_n_cc_0_y % 56) * 2)) >= 1) ? (*(const tf_v16fu*)(&data[(((((pool_local_ky * 1792) + (pool_x_0 * 256)) + ((pool_n_cc_0_y / 56) * 200704)) + ((pool_n_cc_0_y % 56) * 3584)) - 1648)])) : tf_v16_bc(-3.4028234663852886e+38f)));
        *(tf_v16fu*)(&pool_local[96]) = tf_v16_max((*(const tf_v16fu*)(&pool_local[96])), (((pool_local_ky + ((pool_n_cc_0_y % 56) * 2)) >= 1) ? (*(const tf_v16fu*)(&data[(((((pool_local_ky * 1792) + (pool_x_0 * 256)) + ((pool_n_cc_0_y / 56) * 200704)) + ((pool_n_cc_0_y % 56) * 3584)) - 1616)])) : tf_v16_bc(-3.4028234663852886e+38f)));
        *(tf_v16fu*)(&pool_local[112]) = tf_v16_max((*(const tf_v16fu*)(&pool_local[112])), (((pool_local_ky + ((pool_n_cc_0_y % 56) * 2)) >= 1) ? (*(const tf_v16fu*)(&data[(((((pool_local_ky * 1792) + (pool_x_0 * 256)) + ((pool_n_cc_0_y / 56) * 200704)) + ((pool_n_cc_0_y % 56) * 3584)) - 1584)])) : tf_v16_bc(-3.4028234663852886e+38f)));
        *(tf_v16fu*)(&pool_local[0]) = tf_v16_max((*(const tf_v16fu*)(&pool_local[0])), (((pool_local_ky + ((pool_n_cc_0_y % 56) * 2)) >= 1) ? (*(const tf_v16fu*)(&data[(((((pool_local_ky * 1792) + (pool_x_0 * 256)) + ((pool_n_cc_0_y / 56) * 200704)) + ((pool_n_cc_0_y % 56) * 3584)) - 1792)])) : tf_v16_bc(-3.4028234663852886e+38f)));
        *(tf_v16fu*)(&pool_local[16]) = tf_v16_max((*(const tf_v16fu*)(&pool_local[16])), (((pool_local_ky + ((pool_n_cc_0_y % 56) * 2)) >= 1) ? (*(const tf_v16fu*)(&data[(((((pool_local_ky * 1792) + (pool_x_0 * 256)) + ((pool_n_cc_0_y / 56) * 200704)) + ((pool_n_cc_0_y % 56) * 3584)) - 1760)])) : tf_v16_bc(-3.4028234663852886e+38f)));
        *(tf_v16fu*)(&pool_local[32]) = tf_v16_max((*(const tf_v16fu*)(&pool_local[32])), (((pool_local_ky + ((pool_n_cc_0_y % 56) * 2)) >= 1) ? (*(const tf_v16fu*)(&data[(((((pool_local_ky * 1792) + (pool_x_0 * 256)) + ((pool_n_cc_0_y / 56) * 200704)) + ((pool_n_cc_0_y % 56) * 3584)) - 1728)])) : tf_v16_bc(-3.4028234663852886e+38f)));
        *(tf_v16fu*)(&pool_local[48]) = tf_v16_max((*(const tf_v16fu*)(&pool_local[48])), (((pool_local_ky + ((pool_n_cc_0_y % 56) * 2)) >= 1) ? (*(const tf_v16fu*)(&data[(((((pool_local_ky * 1792) + (pool_x_0 * 256)) + ((pool_n_cc_0_y / 56) * 200704)) + ((pool_n_cc_0_y % 56) * 3584)) - 1696)])) : tf_v16_bc(-3.4028234663852886e+38f)));
        *(tf_v16fu*)(&pool_local[64]) = tf_v16_max((*(const tf_v16fu*)(&pool_local[64])), (((pool_local_ky + ((pool_n_cc_0_y % 56) * 2)) >= 1) ? (*(const tf_v16fu*)(&data[(((((pool_local_ky * 1792) + (pool_x_0 * 256)) + ((pool_n_cc_0_y / 56) * 200704)) + ((pool_n_cc_0_y % 56) * 3584)) - 1664)])) : tf_v16_bc(-3.4028234663852886e+38f)));
        *(tf_v16fu*)(&pool_local[80]) = tf_v16_max((*(const tf_v16fu*)(&pool_local[80])), (((pool_local_ky + ((pool_n_cc_0_y % 56) * 2)) >= 1) ? (*(const tf_v16fu*)(&data[(((((pool_local_ky * 1792) + (pool_x_0 * 256)) + ((pool_n_cc_0_y / 56) * 200704)) + ((pool_n_cc_0_y % 56) * 3584)) - 1632)])) : tf_v16_bc(-3.4028234663852886e+38f)));
        *(tf_v16fu*)(&pool_local[96]) = tf_v16_max((*(const tf_v16fu*)(&pool_local[96])), (((pool_local_ky + ((pool_n_cc_0_y % 56) * 2)) >= 1) ? (*(const tf_v16fu*)(&data[(((((pool_local_ky * 1792) + (pool_x_0 * 256)) + ((pool_n_cc_0_y / 56) * 200704)) + ((pool_n_cc_0_y % 56) * 3584)) - 1600)])) : tf_v16_bc(-3.4028234663852886e+38f)));
        *(tf_v16fu*)(&pool_local[112]) = tf_v16_max((*(const tf_v16fu*)(&pool_local[112])), (((pool_local_ky + ((pool_n_cc_0_y % 56) * 2)) >= 1) ? (*(const tf_v16fu*)(&data[(((((pool_local_ky * 1792) + (pool_x_0 * 256)) + ((pool_n_cc_0_y / 56) * 200704)) + ((pool_n_cc_0_y % 56) * 3584)) - 1568)])) : tf_v16_bc(-3.4028234663852886e+38f)));
        *(tf_v16fu*)(&pool_local[0]) = tf_v16_max((*(const tf_v16fu*)(&pool_local[0])), (((pool_local_ky + ((pool_n_cc_0_y % 56) * 2)) >= 1) ? (*(const tf_v16fu*)(&data[(((((pool_local_ky * 1792) + (pool_x_0 * 256)) + ((pool_n_cc_0_y / 56) * 200704)) + ((pool_n_cc_0_y % 56) * 3584)) - 1776)])) : tf_v16_bc(-3.4028234663852886e+38f)));
        *(tf_v16fu*)(&pool_local[16]) = tf_v16_max((*(const tf_v16fu*)(&pool_local[16])), (((pool_local_ky + ((pool_n_cc_0_y % 56) * 2)) >= 1) ? (*(const tf_v16fu*)(&data[(((((pool_local_ky * 1792) + (pool_x_0 * 256)) + ((pool_n_cc_0_y / 56) * 200704)) + ((pool_n_cc_0_y % 56) * 3584)) - 1744)])) : tf_v16_bc(-3.4028234663852886e+38f)));
        *(tf_v16fu*)(&pool_local[32]) = tf_v16_max((*(const tf_v16fu*)(&pool_local[32])), (((pool_local_ky + ((pool_n_cc_0_y % 56) * 2)) >= 1) ? (*(const tf_v16fu*)(&data[(((((pool_local_ky * 1792) + (pool_x_0 * 256)) + ((pool_n_cc_0_y / 56) * 200704)) + ((pool_n_cc_0_y % 56) * 3584)) - 1712)])) : tf_v16_bc(-3.4028234663852886e+38f)));
        *(tf_v16fu*)(&pool_local[48]) = tf_v16_max((*(const tf_v16fu*)(&pool_local[48])), (((pool_local_ky + ((pool_n_cc_0_y % 56) * 2)) >= 1) ? (*(const tf_v16fu*)(&data[(((((pool_local_ky * 1792) + (pool_x_0 * 256)) + ((pool_n_cc_0_y / 56) * 200704)) + ((pool_n_cc_0_y % 56) * 3584)) - 1680)])) : tf_v16_bc(-3.4028234663852886e+38f)));
        *(tf_v16fu*)(&pool_local[64]) = tf_v16_max((*(const tf_v16fu*)(&pool_local[64])), (((pool_local_ky + ((pool_n_cc_0_y % 56) * 2)) >= 1) ? (*(const tf_v16fu*)(&data[(((((pool_local_ky * 1792) + (pool_x_0 * 256)) + ((pool_n_cc_0_y / 56) * 200704)) + ((pool_n_cc_0_y % 56) * 3584)) - 1648)])) : tf_v16_bc(-3.4028234663852886e+38f)));
        *(tf_v16fu*)(&pool_local[80]) = tf_v16_max((*(const tf_v16fu*)(&pool_local[80])), (((pool_local_ky + ((pool_n_cc_0_y % 56) * 2)) >= 1) ? (*(const tf_v16fu*)(&data[(((((pool_local_ky * 1792) + (pool_x_0 * 256)) + ((pool_n_cc_0_y / 56) * 200704)) + ((pool_n_cc_0_y % 56) * 3584)) - 1616)])) : tf_v16_bc(-3.4028234663852886e+38f)));
        *(tf_v16fu*)(&pool_local[96]) = tf_v16_max((*(const tf_v16fu*)(&pool_local[96])), (((pool_local_ky + ((pool_n_cc_0_y % 56) * 2)) >= 1) ? (*(const tf_v16fu*)(&data[(((((pool_local_ky * 1792) + (pool_x_0 * 256)) + ((pool_n_cc_0_y / 56) * 200704)) + ((pool_n_cc_0_y % 56) * 3584)) - 1584)])) : tf_v16_bc(-3.4028234663852886e+38f)));
        *(tf_v16fu*)(&pool_local[112]) = tf_v16_max((*(const tf_v16fu*)(&pool_local[112])), (((pool_local_ky + ((pool_n_cc_0_y % 56) * 2)) >= 1) ? (*(const tf_v16fu*)(&data[(((((pool_local_ky * 1792) + (pool_x_0 * 256)) + ((pool_n_cc_0_y / 56) * 200704)) + ((pool_n_cc_0_y % 56) * 3584)) - 1552)])) : tf_v16_bc(-3.4028234663852886e+38f)));
      }
      *(tf_v16fu*)(&pool[(((pool_x_0 * 128) + ((pool_n_cc_0_y / 56) * 50176)) + ((pool_n_cc_0_y % 56) * 896))]) = (*(const tf_v16fu*)(&pool_local[0]));
      *(tf_v16fu*)(&pool[((((pool_x_0 * 128) + ((pool_n_cc_0_y / 56) * 50176)) + ((pool_n_cc_0_y % 56) * 896)) + 16)]) = (*(const tf_v16fu*)(&pool_local[16]));
      *(tf_v16fu*)(&pool[((((pool_x_0 * 128) + ((pool_n_cc_0_y / 56) * 50176)) + ((pool_n_cc_0_y % 56) * 896)) + 32)]) = (*(const tf_v16fu*)(&pool_local[32]));
      *(tf_v16fu*)(&pool[((((pool_x_0 * 128) + ((pool_n_cc_0_y / 56) * 50176)) + ((pool_n_cc_0_y % 56) * 896)) + 48)]) = (*(const tf_v16fu*)(&pool_local[48]));
      *(tf_v16fu*)(&pool[((((pool_x_0 * 128) + ((pool_n_cc_0_y / 56) * 50176)) + ((pool_n_cc_0_y % 56) * 896)) + 64)]) = (*(const tf_v16fu*)(&pool_local[64]));
      *(tf_v16fu*)(&pool[((((pool_x_0 * 128) + ((pool_n_cc_0_y / 56) * 50176)) + ((pool_n_cc_0_y % 56) * 896)) + 80)]) = (*(const tf_v16fu*)(&pool_local[80]));
      *(tf_v16fu*)(&pool[((((pool_x_0 * 128) + ((pool_n_cc_0_y / 56) * 50176)) + ((pool_n_cc_0_y % 56) * 896)) + 96)]) = (*(const tf_v16fu*)(&pool_local[96]));
      *(tf_v16fu*)(&pool[((((pool_x_0 * 128) + ((pool_n_cc_0_y / 56) * 50176)) + ((pool_n_cc_0_y % 56) * 896)) + 112)]) = (*(const tf_v16fu*)(&pool_local[112]));
    }
  }
  return 0;
}

int32_t tf_entry(void** args) { return tf_kernel(args[0], args[1]); }
double tf_time(void** args, int32_t number) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int32_t i = 0; i < number; ++i) tf_kernel(args[0], args[1]);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return ((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9) / (number > 0 ? number : 1);
}
