// tunefarm-launch entry=tf_kernel grid=1,2,1 block=128,1,1 shared=13824
extern "C" __device__ const char tf_launch[] = "// tunefarm-launch entry=tf_kernel grid=1,2,1 block=128,1,1 shared=13824";
#define WM 1
#define WN 4
#define BM 32
#define BN 64
#define BK 32
#define KSTEP 16
#define M 40
#define K 216
#define P 49
#define C 24
#define H 14
#define W 14
#define KH 3
#define KW 3
#define OH 7
#define OW 7
#define SH 2
#define SW 2
#define DH 1
#define DW 1
#define PT 1
#define PL 1
__device__ __forceinline__ unsigned tf_cvt2(float lo, float hi) {
  unsigned r; asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo)); return r;
}
__device__ __forceinline__ float tf_h2f(unsigned short h) {
  float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f;
}
__device__ __forceinline__ void tf_mma(float* acc, const unsigned* a, const unsigned* b) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
extern "C"
__global__ void __launch_bounds__(128) tf_kernel(const float* __restrict__ data, const unsigned short* __restrict__ weight, const float* __restrict__ bias, const float* __restrict__ residual, float* __restrict__ out) {
  __shared__ float As[BM][BK + 4];
  __shared__ float Bs[BN][BK + 4];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, z = blockIdx.z;
  const int g = lane >> 2, t = lane & 3;
  const int wrow = (warp / 2) * (16 * WM), wcol = (warp % 2) * (8 * WN);
  const int m0 = blockIdx.y * BM, p0 = blockIdx.x * BN;
  float acc[WM][WN][4];
  #pragma unroll
  for (int i = 0; i < WM; ++i)
    #pragma unroll
    for (int j = 0; j < WN; ++j)
      acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.0f;
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int e = tid; e < BM * BK; e += 128) {  // A rows: k fastest
      const int r = e / BK, kk = e % BK, m = m0 + r, k = k0 + kk;
      const float v = (m < M && k < K) ? tf_h2f(weight[m * K + k]) : 0.0f;
      As[r][kk] = v;
    }
    for (int e = tid; e < BN * BK; e += 128) {  // B columns: pixels fastest
      const int q = e % BN, kk = e / BN, pix = p0 + q, k = k0 + kk;
      float v = 0.0f;
      if (pix < P && k < K) {
        const int ci = k / (KH * KW), kr = k % (KH * KW), ky = kr / KW, kx = kr % KW;
        const int b = pix / (OH * OW), yx = pix % (OH * OW), y = yx / OW, x = yx % OW;
        const int iy = y * SH - PT + ky * DH, ix = x * SW - PL + kx * DW;
        if (iy >= 0 && iy < H && ix >= 0 && ix < W)
          v = data[((b * C + ci) * H + iy) * W + ix];
      }
      Bs[q][kk] = v;
    }
    __syncthreads();
    #pragma unroll
    for (int ks = 0; ks < BK; ks += KSTEP) {
      unsigned a[WM][4], b[WN][2];
        #pragma unroll
        for (int i = 0; i < WM; ++i) {
          const int ar = wrow + i * 16;
          a[i][0] = tf_cvt2(As[ar + g][ks + 2 * t], As[ar + g][ks + 2 * t + 1]);
          a[i][1] = tf_cvt2(As[ar + g + 8][ks + 2 * t], As[ar + g + 8][ks + 2 * t + 1]);
          a[i][2] = tf_cvt2(As[ar + g][ks + 2 * t + 8], As[ar + g][ks + 2 * t + 8 + 1]);
          a[i][3] = tf_cvt2(As[ar + g + 8][ks + 2 * t + 8], As[ar + g + 8][ks + 2 * t + 8 + 1]);
        }
        #pragma unroll
        for (int j = 0; j < WN; ++j) {
          const int bc = wcol + j * 8;
          b[j][0] = tf_cvt2(Bs[bc + g][ks + 2 * t], Bs[bc + g][ks + 2 * t + 1]);
          b[j][1] = tf_cvt2(Bs[bc + g][ks + 2 * t + 8], Bs[bc + g][ks + 2 * t + 8 + 1]);
        }
      #pragma unroll
      for (int i = 0; i < WM; ++i)
        #pragma unroll
        for (int j = 0; j < WN; ++j)
          tf_mma(acc[i][j], a[i], b[j]);
    }
    __syncthreads();
  }
  #pragma unroll
  for (int i = 0; i < WM; ++i)
    #pragma unroll
    for (int j = 0; j < WN; ++j)
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int ch = m0 + wrow + i * 16 + g + (e >> 1) * 8;
        const int pix = p0 + wcol + j * 8 + 2 * t + (e & 1);
        if (ch < M && pix < P) {
          const int idx = ((pix / (OH * OW)) * M + ch) * (OH * OW) + pix % (OH * OW);
          float v = acc[i][j][e];
          v += bias[ch];
          v += residual[idx];
          v = fmaxf(v, 0.0f);
          out[idx] = v;
        }
      }
}
