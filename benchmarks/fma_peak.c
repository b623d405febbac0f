/* One core's float32 FMA peak by thread CPU time: the ceiling the dense kernels' GFLOP/s
 * are read against (docs/transformers.md, issue 23). 512-bit vectors where the compiler
 * targets AVX-512F, else 256-bit (AVX2 + FMA: a Zen 3 core, two 256-bit FMA pipes).
 *
 *     gcc -O3 -march=native benchmarks/fma_peak.c -o /tmp/fma_peak && /tmp/fma_peak
 *
 * 12 independent accumulator chains hide the FMA latency on every x86 core we meet; the
 * best of 5 passes is printed. */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

#define CHAINS 12

#ifdef __AVX512F__
typedef __m512 vec;
#define LANES 16
#define SET1 _mm512_set1_ps
#define FMADD _mm512_fmadd_ps
static float lane_sum(vec v) { return _mm512_reduce_add_ps(v); }
#else
typedef __m256 vec;
#define LANES 8
#define SET1 _mm256_set1_ps
#define FMADD _mm256_fmadd_ps
static float lane_sum(vec v) {
  float out[8];
  _mm256_storeu_ps(out, v);
  float sum = 0;
  for (int i = 0; i < 8; i++) sum += out[i];
  return sum;
}
#endif

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void) {
  vec acc[CHAINS];
  const vec b = SET1(1.0000001f), c = SET1(1e-7f);
  for (int i = 0; i < CHAINS; i++) acc[i] = SET1((float)i);
  const long steps = 16000000;
  double best = 1e9;
  for (int pass = 0; pass < 5; pass++) {
    double start = cpu_seconds();
    for (long s = 0; s < steps; s++)
      for (int i = 0; i < CHAINS; i++) acc[i] = FMADD(acc[i], b, c);
    double spent = cpu_seconds() - start;
    if (spent < best) best = spent;
  }
  float sum = 0;  /* keeps the chains live */
  for (int i = 0; i < CHAINS; i++) sum += lane_sum(acc[i]);
  printf("%.1f GFLOP/s (one core, %d-bit FMA; checksum %g)\n",
         steps * CHAINS * LANES * 2.0 / best / 1e9, LANES * 32, sum);
  return 0;
}
