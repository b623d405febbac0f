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
  for (int32_t out_j_0 = 0; out_j_0 < 25; ++out_j_0) {
    for (int32_t out_j_1 = 0; out_j_1 < 5; ++out_j_1) {
      float dense[8] __attribute__((aligned(64)));
      *(tf_v8fu*)(&dense[0]) = tf_v8_bc(0.0f);
      for (int32_t dense_k_0 = 0; dense_k_0 < 32; ++dense_k_0) {
        *(tf_v8fu*)(&dense[0]) = ((*(const tf_v8fu*)(&dense[0])) + (data[(dense_k_0 * 16)] * (*(const tf_v8fu*)(&weight[(((out_j_0 * 20480) + (out_j_1 * 4096)) + (dense_k_0 * 128))]))));
        *(tf_v8fu*)(&dense[0]) = ((*(const tf_v8fu*)(&dense[0])) + (data[((dense_k_0 * 16) + 1)] * (*(const tf_v8fu*)(&weight[((((out_j_0 * 20480) + (out_j_1 * 4096)) + (dense_k_0 * 128)) + 8)]))));
        *(tf_v8fu*)(&dense[0]) = ((*(const tf_v8fu*)(&dense[0])) + (data[((dense_k_0 * 16) + 2)] * (*(const tf_v8fu*)(&weight[((((out_j_0 * 20480) + (out_j_1 * 4096)) + (dense_k_0 * 128)) + 16)]))));
        *(tf_v8fu*)(&dense[0]) = ((*(const tf_v8fu*)(&dense[0])) + (data[((dense_k_0 * 16) + 3)] * (*(const tf_v8fu*)(&weight[((((out_j_0 * 20480) + (out_j_1 * 4096)) + (dense_k_0 * 128)) + 24)]))));
        *(tf_v8fu*)(&dense[0]) = ((*(const tf_v8fu*)(&dense[0])) + (data[((dense_k_0 * 16) + 4)] * (*(const tf_v8fu*)(&weight[((((out_j_0 * 20480) + (out_j_1 * 4096)) + (dense_k_0 * 128)) + 32)]))));
        *(tf_v8fu*)(&dense[0]) = ((*(const tf_v8fu*)(&dense[0])) + (data[((dense_k_0 * 16) + 5)] * (*(const tf_v8fu*)(&weight[((((out_j_0 * 20480) + (out_j_1 * 4096)) + (dense_k_0 * 128)) + 40)]))));
        *(tf_v8fu*)(&dense[0]) = ((*(const tf_v8fu*)(&dense[0])) + (data[((dense_k_0 * 16) + 6)] * (*(const tf_v8fu*)(&weight[((((out_j_0 * 20480) + (out_j_1 * 4096)) + (dense_k_0 * 128)) + 48)]))));
        *(tf_v8fu*)(&dense[0]) = ((*(const tf_v8fu*)(&dense[0])) + (data[((dense_k_0 * 16) + 7)] * (*(const tf_v8fu*)(&weight[((((out_j_0 * 20480) + (out_j_1 * 4096)) + (dense_k_0 * 128)) + 56)]))));
        *(tf_v8fu*)(&dense[0]) = ((*(const tf_v8fu*)(&dense[0])) + (data[((dense_k_0 * 16) + 8)] * (*(const tf_v8fu*)(&weight[((((out_j_0 * 20480) + (out_j_1 * 4096)) + (dense_k_0 * 128)) + 64)]))));
        *(tf_v8fu*)(&dense[0]) = ((*(const tf_v8fu*)(&dense[0])) + (data[((dense_k_0 * 16) + 9)] * (*(const tf_v8fu*)(&weight[((((out_j_0 * 20480) + (out_j_1 * 4096)) + (dense_k_0 * 128)) + 72)]))));
        *(tf_v8fu*)(&dense[0]) = ((*(const tf_v8fu*)(&dense[0])) + (data[((dense_k_0 * 16) + 10)] * (*(const tf_v8fu*)(&weight[((((out_j_0 * 20480) + (out_j_1 * 4096)) + (dense_k_0 * 128)) + 80)]))));
        *(tf_v8fu*)(&dense[0]) = ((*(const tf_v8fu*)(&dense[0])) + (data[((dense_k_0 * 16) + 11)] * (*(const tf_v8fu*)(&weight[((((out_j_0 * 20480) + (out_j_1 * 4096)) + (dense_k_0 * 128)) + 88)]))));
        *(tf_v8fu*)(&dense[0]) = ((*(const tf_v8fu*)(&dense[0])) + (data[((dense_k_0 * 16) + 12)] * (*(const tf_v8fu*)(&weight[((((out_j_0 * 20480) + (out_j_1 * 4096)) + (dense_k_0 * 128)) + 96)]))));
        *(tf_v8fu*)(&dense[0]) = ((*(const tf_v8fu*)(&dense[0])) + (data[((dense_k_0 * 16) + 13)] * (*(const tf_v8fu*)(&weight[((((out_j_0 * 20480) + (out_j_1 * 4096)) + (dense_k_0 * 128)) + 104)]))));
        *(tf_v8fu*)(&dense[0]) = ((*(const tf_v8fu*)(&dense[0])) + (data[((dense_k_0 * 16) + 14)] * (*(const tf_v8fu*)(&weight[((((out_j_0 * 20480) + (out_j_1 * 4096)) + (dense_k_0 * 128)) + 112)]))));
        *(tf_v8fu*)(&dense[0]) = ((*(const tf_v8fu*)(&dense[0])) + (data[((dense_k_0 * 16) + 15)] * (*(const tf_v8fu*)(&weight[((((out_j_0 * 20480) + (out_j_1 * 4096)) + (dense_k_0 * 128)) + 120)]))));
      }
      *(tf_v8fu*)(&out[((out_j_0 * 40) + (out_j_1 * 8))]) = ((*(const tf_v8fu*)(&dense[0])) + (*(const tf_v8fu*)(&bias[((out_j_0 * 40) + (out_j_1 * 8))])));
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
