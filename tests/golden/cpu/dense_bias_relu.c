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
__attribute__((noinline)) static int32_t tf_kernel(void* restrict data_raw, void* restrict weight_raw, void* restrict bias_raw, void* restrict out_raw) {
  float* restrict data = (float*)__builtin_assume_aligned(data_raw, 64);
  float* restrict weight = (float*)__builtin_assume_aligned(weight_raw, 64);
  float* restrict bias = (float*)__builtin_assume_aligned(bias_raw, 64);
  float* restrict out = (float*)__builtin_assume_aligned(out_raw, 64);
  #pragma omp parallel for schedule(static)
  for (int32_t out_i_j_0 = 0; out_i_j_0 < 125; ++out_i_j_0) {
    float dense[8] __attribute__((aligned(64)));
    *(tf_v8fu*)(&dense[0]) = tf_v8_bc(0.0f);
    for (int32_t dense_k_0 = 0; dense_k_0 < 128; ++dense_k_0) {
      *(tf_v8fu*)(&dense[0]) = ((*(const tf_v8fu*)(&dense[0])) + (data[(dense_k_0 * 4)] * (*(const tf_v8fu*)(&weight[((out_i_j_0 * 4096) + (dense_k_0 * 32))]))));
      *(tf_v8fu*)(&dense[0]) = ((*(const tf_v8fu*)(&dense[0])) + (data[((dense_k_0 * 4) + 1)] * (*(const tf_v8fu*)(&weight[(((out_i_j_0 * 4096) + (dense_k_0 * 32)) + 8)]))));
      *(tf_v8fu*)(&dense[0]) = ((*(const tf_v8fu*)(&dense[0])) + (data[((dense_k_0 * 4) + 2)] * (*(const tf_v8fu*)(&weight[(((out_i_j_0 * 4096) + (dense_k_0 * 32)) + 16)]))));
      *(tf_v8fu*)(&dense[0]) = ((*(const tf_v8fu*)(&dense[0])) + (data[((dense_k_0 * 4) + 3)] * (*(const tf_v8fu*)(&weight[(((out_i_j_0 * 4096) + (dense_k_0 * 32)) + 24)]))));
    }
    *(tf_v8fu*)(&out[(out_i_j_0 * 8)]) = ((*(const tf_v8fu*)(&dense[0])) + (*(const tf_v8fu*)(&bias[(out_i_j_0 * 8)])));
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
