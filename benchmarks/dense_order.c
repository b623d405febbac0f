/* The dense template's loop order against two others, one core, by thread CPU time: how
 * far the transformer projections' kernel is from the FMA ceiling (benchmarks/fma_peak.c),
 * and whether the weight's trip from L2 is what is left (docs/transformers.md, issue 23).
 *
 *     gcc -O3 -march=native -ffp-contract=fast benchmarks/dense_order.c -o /tmp/dense_order
 *     /tmp/dense_order 197 768 3072             # rows K O; the 6 x 4 tile of ViT's 197 rows
 *     gcc ... -DR=8 -DV=3 ... && /tmp/dense_order 128 768 3072   # BERT's 8 x 3 tile
 *
 *     gcc ... -march=native -DR=5 -DV=2 ...      # on an AVX2 host (Zen 3): 8-lane vectors, the
 *                                                # template's 5 x 2 default tile there
 *
 * Weight packed [O/L][K][L] as the template packs it (L = 16 lanes with AVX-512F, else 8);
 * a tile of R rows x V vectors of L accumulated in registers. Variants, best of 12
 * interleaved passes each:
 *   A-current: the template's order: weight block outer, row tiles inner, the whole K per
 *     tile, so the block's weight (V x K x 64 bytes, 196 KB at K 768) streams from L2 for
 *     every row tile while the rows' data stays in L1;
 *   A-wL1(bound): the same with the weight index wrapped to 32 k steps (8 KB, L1): wrong
 *     results, an upper bound of what any weight packing or prefetch could give;
 *   C-kc192: K blocked by 192 (the weight sub-panel, 48 KB, near L1, BLIS's way), the
 *     accumulators through the output between blocks;
 *   D-sbN: the row tiles in super-blocks of N tiles outside the weight blocks, so a
 *     batch-8 activation (1576 x 768 floats, 4.8 MB) is read from L2, not L3, per block;
 *   E-pfN: A with each of the tile's weight vectors prefetched (prefetcht0) N k steps ahead
 *     (on an Intel Xeon this closed A's gap to the bound; the template's generated kernel
 *     gained nothing from the same prefetch: docs/transformers.md, "Intel Xeon");
 *   C-kc256, C-kc128: C with K blocks of 256 and 128 (on AVX2, 5 x 2 at 256: a 16 KB
 *     weight sub-panel, L1-resident);
 *   I-one-stream, I-kc256: the tile's V weight vectors interleaved in one stream
 *     [O/(L*V)][K][L*V] (one 64-byte line per k step on AVX2, V = 2), whole K or K blocks
 *     of 256 (docs/transformers.md, "Zen 3 (AVX2)"). */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __AVX512F__
#define L 16
#define VEC __m512
#define VZERO _mm512_setzero_ps
#define VLOAD _mm512_load_ps
#define VLOADU _mm512_loadu_ps
#define VSTOREU _mm512_storeu_ps
#define VADD _mm512_add_ps
#define VSET1 _mm512_set1_ps
#define VFMADD _mm512_fmadd_ps
#else /* AVX2 + FMA: 8 lanes */
#define L 8
#define VEC __m256
#define VZERO _mm256_setzero_ps
#define VLOAD _mm256_load_ps
#define VLOADU _mm256_loadu_ps
#define VSTOREU _mm256_storeu_ps
#define VADD _mm256_add_ps
#define VSET1 _mm256_set1_ps
#define VFMADD _mm256_fmadd_ps
#endif
#ifndef R
#define R 6
#endif
#ifndef V
#define V 4
#endif
static double cpu(void){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static int N,K,O;
static float *X,*W,*B,*Y;
// A: current: block outer, row tiles inner, whole K per tile
static void kA(int wmask){
  int NP=(N+R-1)/R;
  for(int jb=0;jb<O/(L*V);jb++) for(int it=0;it<NP;it++){
    VEC acc[R][V];
    for(int r=0;r<R;r++)for(int v=0;v<V;v++)acc[r][v]=VZERO();
    const float* xr[R]; for(int r=0;r<R;r++){int i=it*R+r; if(i>N-1)i=N-1; xr[r]=X+(long)i*K;}
    const float* wb=W+(long)jb*V*K*L;
    for(int k=0;k<K;k++){
      int kw=k&wmask;
      VEC w[V]; for(int v=0;v<V;v++) w[v]=VLOAD(wb+(long)v*K*L+kw*L);
      for(int r=0;r<R;r++){VEC x=VSET1(xr[r][k]); for(int v=0;v<V;v++) acc[r][v]=VFMADD(x,w[v],acc[r][v]);}
    }
    for(int r=0;r<R;r++){int i=it*R+r; if(i<N) for(int v=0;v<V;v++) VSTOREU(Y+(long)i*O+jb*V*L+v*L,VADD(acc[r][v],VLOADU(B+jb*V*L+v*L)));}
  }
}
// D: rows in super-blocks of SB tiles outer, then as A
static void kD(int SB){
  int NP=(N+R-1)/R;
  for(int s0=0;s0<NP;s0+=SB) for(int jb=0;jb<O/(L*V);jb++) for(int it=s0;it<s0+SB&&it<NP;it++){
    VEC acc[R][V];
    for(int r=0;r<R;r++)for(int v=0;v<V;v++)acc[r][v]=VZERO();
    const float* xr[R]; for(int r=0;r<R;r++){int i=it*R+r; if(i>N-1)i=N-1; xr[r]=X+(long)i*K;}
    const float* wb=W+(long)jb*V*K*L;
    for(int k=0;k<K;k++){
      VEC w[V]; for(int v=0;v<V;v++) w[v]=VLOAD(wb+(long)v*K*L+k*L);
      for(int r=0;r<R;r++){VEC x=VSET1(xr[r][k]); for(int v=0;v<V;v++) acc[r][v]=VFMADD(x,w[v],acc[r][v]);}
    }
    for(int r=0;r<R;r++){int i=it*R+r; if(i<N) for(int v=0;v<V;v++) VSTOREU(Y+(long)i*O+jb*V*L+v*L,VADD(acc[r][v],VLOADU(B+jb*V*L+v*L)));}
  }
}
// C: K blocked by KC: weight sub-panel in L1, accumulators through Y
static void kC(int KC){
  int NP=(N+R-1)/R;
  for(int jb=0;jb<O/(L*V);jb++) for(int k0=0;k0<K;k0+=KC) for(int it=0;it<NP;it++){
    VEC acc[R][V];
    int rows[R]; for(int r=0;r<R;r++){int i=it*R+r; rows[r]=i>N-1?N-1:i;}
    if(k0==0){for(int r=0;r<R;r++)for(int v=0;v<V;v++)acc[r][v]=VLOADU(B+jb*V*L+v*L);}
    else {for(int r=0;r<R;r++)for(int v=0;v<V;v++)acc[r][v]=VLOADU(Y+(long)rows[r]*O+jb*V*L+v*L);}
    const float* xr[R]; for(int r=0;r<R;r++) xr[r]=X+(long)rows[r]*K+k0;
    const float* wb=W+(long)jb*V*K*L+k0*L;
    for(int k=0;k<KC;k++){
      VEC w[V]; for(int v=0;v<V;v++) w[v]=VLOAD(wb+(long)v*K*L+k*L);
      for(int r=0;r<R;r++){VEC x=VSET1(xr[r][k]); for(int v=0;v<V;v++) acc[r][v]=VFMADD(x,w[v],acc[r][v]);}
    }
    for(int r=R-1;r>=0;r--){int i=it*R+r; if(i<N) for(int v=0;v<V;v++) VSTOREU(Y+(long)i*O+jb*V*L+v*L,acc[r][v]);}
  }
}
// E: A with the tile's weight vectors prefetched PD k steps ahead
static void kE(int PD){
  int NP=(N+R-1)/R;
  for(int jb=0;jb<O/(L*V);jb++) for(int it=0;it<NP;it++){
    VEC acc[R][V];
    for(int r=0;r<R;r++)for(int v=0;v<V;v++)acc[r][v]=VZERO();
    const float* xr[R]; for(int r=0;r<R;r++){int i=it*R+r; if(i>N-1)i=N-1; xr[r]=X+(long)i*K;}
    const float* wb=W+(long)jb*V*K*L;
    for(int k=0;k<K;k++){
      VEC w[V]; for(int v=0;v<V;v++) w[v]=VLOAD(wb+(long)v*K*L+k*L);
      for(int v=0;v<V;v++) _mm_prefetch((const char*)(wb+(long)v*K*L+(k+PD)*L),_MM_HINT_T0);
      for(int r=0;r<R;r++){VEC x=VSET1(xr[r][k]); for(int v=0;v<V;v++) acc[r][v]=VFMADD(x,w[v],acc[r][v]);}
    }
    for(int r=0;r<R;r++){int i=it*R+r; if(i<N) for(int v=0;v<V;v++) VSTOREU(Y+(long)i*O+jb*V*L+v*L,VADD(acc[r][v],VLOADU(B+jb*V*L+v*L)));}
  }
}
// I: A with the tile's V vectors interleaved in one weight stream [O/(L*V)][K][L*V]
static void kI(int KC){
  int NP=(N+R-1)/R;
  for(int jb=0;jb<O/(L*V);jb++) for(int k0=0;k0<K;k0+=KC) for(int it=0;it<NP;it++){
    VEC acc[R][V];
    int rows[R]; for(int r=0;r<R;r++){int i=it*R+r; rows[r]=i>N-1?N-1:i;}
    if(k0==0){for(int r=0;r<R;r++)for(int v=0;v<V;v++)acc[r][v]=VLOADU(B+jb*V*L+v*L);}
    else {for(int r=0;r<R;r++)for(int v=0;v<V;v++)acc[r][v]=VLOADU(Y+(long)rows[r]*O+jb*V*L+v*L);}
    const float* xr[R]; for(int r=0;r<R;r++) xr[r]=X+(long)rows[r]*K+k0;
    const float* wb=W+(long)jb*V*K*L+(long)k0*V*L;
    for(int k=0;k<KC;k++){
      VEC w[V]; for(int v=0;v<V;v++) w[v]=VLOAD(wb+(long)k*V*L+v*L);
      for(int r=0;r<R;r++){VEC x=VSET1(xr[r][k]); for(int v=0;v<V;v++) acc[r][v]=VFMADD(x,w[v],acc[r][v]);}
    }
    for(int r=R-1;r>=0;r--){int i=it*R+r; if(i<N) for(int v=0;v<V;v++) VSTOREU(Y+(long)i*O+jb*V*L+v*L,acc[r][v]);}
  }
}
int main(int argc,char**argv){
  N=atoi(argv[1]);K=atoi(argv[2]);O=atoi(argv[3]);
  X=aligned_alloc(64,(size_t)N*K*4);W=aligned_alloc(64,(size_t)K*O*4);B=aligned_alloc(64,O*4);Y=aligned_alloc(64,(size_t)N*O*4);
  for (long i = 0; i < (long)N * K; i++) X[i] = (i % 7) * 0.1f;
  for (long i = 0; i < (long)K * O; i++) W[i] = (i % 5) * 0.01f;
  for (int i = 0; i < O; i++) B[i] = 0;
  double fl=2.0*N*K*O;
  const char* names[]={"A-current","A-wL1(bound)","C-kc192","D-sb33","D-sb66","E-pf8","E-pf16","C-kc256","C-kc128","I-one-stream","I-kc256"};
  enum{NV=11}; double best[NV]; for(int i=0;i<NV;i++)best[i]=1e9;
  for(int rep=0;rep<12;rep++) for(int v=0;v<NV;v++){
    double t=cpu();
    if(v==0)kA(-1); else if(v==1)kA(31); else if(v==2)kC(192); else if(v==3)kD(33); else if(v==4)kD(66);
    else if(v<7) kE(v==5?8:16); else if(v<9) kC(v==7?256:128); else kI(v==9?K:256);
    t=cpu()-t; if(t<best[v])best[v]=t;
  }
  for(int v=0;v<NV;v++) printf("%dx%dx%d R%d V%d %-14s %.3f ms %.1f GF/s\n",N,K,O,R,V,names[v],best[v]*1e3,fl/best[v]/1e9);
}
