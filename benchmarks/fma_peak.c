/* One core's float32 FMA peak with 512-bit vectors, by thread CPU time: the ceiling the
 * dense kernels' GFLOP/s are read against (docs/transformers.md, issue 23).
 *
 *     gcc -O3 -march=native benchmarks/fma_peak.c -o /tmp/fma_peak && /tmp/fma_peak
 *
 * 12 independent accumulator chains hide the FMA latency on every x86 core we meet; the
 * best of 5 passes is printed. Needs AVX-512F. */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

#define CHAINS 12

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void) {
  __m512 acc[CHAINS];
  const __m512 b = _mm512_set1_ps(1.0000001f), c = _mm512_set1_ps(1e-7f);
  for (int i = 0; i < CHAINS; i++) acc[i] = _mm512_set1_ps((float)i);
  const long steps = 16000000;
  double best = 1e9;
  for (int pass = 0; pass < 5; pass++) {
    double start = cpu_seconds();
    for (long s = 0; s < steps; s++)
      for (int i = 0; i < CHAINS; i++) acc[i] = _mm512_fmadd_ps(acc[i], b, c);
    double spent = cpu_seconds() - start;
    if (spent < best) best = spent;
  }
  float sum = 0;  /* keeps the chains live */
  for (int i = 0; i < CHAINS; i++) sum += _mm512_reduce_add_ps(acc[i]);
  printf("%.1f GFLOP/s (one core, 512-bit FMA; checksum %g)\n",
         steps * CHAINS * 32.0 / best / 1e9, sum);
  return 0;
}
