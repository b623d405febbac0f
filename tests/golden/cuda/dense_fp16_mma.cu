// tunefarm-launch entry=tf_kernel grid=1,1,1 block=128,1,1 shared=0
extern "C" __device__ const char tf_launch[] = "// tunefarm-launch entry=tf_kernel grid=1,1,1 block=128,1,1 shared=0";
__device__ __forceinline__ unsigned tf_cvt2(float lo, float hi) {
  unsigned r; asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo)); return r;
}
extern "C"
__global__ void __launch_bounds__(128) tf_kernel(const float* __restrict__ data, const float* __restrict__ weight, float* __restrict__ out) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int row_base = blockIdx.y * 32;
  const int col_base = blockIdx.x * 64 + warp * 16;
  float acc[2][2][4];
  #pragma unroll
  for (int i = 0; i < 2; ++i)
    #pragma unroll
    for (int j = 0; j < 2; ++j)
      acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.0f;
  #pragma unroll 2
  for (int k0 = 0; k0 < 72; k0 += 16) {
    unsigned a[2][4], b[2][2];
    #pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int row0 = row_base + i * 16;
      a[i][0] = tf_cvt2(((row0 + g) < 20 && (k0 + 2 * t) < 72 ? data[(row0 + g) * 72 + (k0 + 2 * t)] : 0.0f), ((row0 + g) < 20 && (k0 + 2 * t + 1) < 72 ? data[(row0 + g) * 72 + (k0 + 2 * t + 1)] : 0.0f));
      a[i][1] = tf_cvt2(((row0 + g + 8) < 20 && (k0 + 2 * t) < 72 ? data[(row0 + g + 8) * 72 + (k0 + 2 * t)] : 0.0f), ((row0 + g + 8) < 20 && (k0 + 2 * t + 1) < 72 ? data[(row0 + g + 8) * 72 + (k0 + 2 * t + 1)] : 0.0f));
      a[i][2] = tf_cvt2(((row0 + g) < 20 && (k0 + 2 * t + 8) < 72 ? data[(row0 + g) * 72 + (k0 + 2 * t + 8)] : 0.0f), ((row0 + g) < 20 && (k0 + 2 * t + 8 + 1) < 72 ? data[(row0 + g) * 72 + (k0 + 2 * t + 8 + 1)] : 0.0f));
      a[i][3] = tf_cvt2(((row0 + g + 8) < 20 && (k0 + 2 * t + 8) < 72 ? data[(row0 + g + 8) * 72 + (k0 + 2 * t + 8)] : 0.0f), ((row0 + g + 8) < 20 && (k0 + 2 * t + 8 + 1) < 72 ? data[(row0 + g + 8) * 72 + (k0 + 2 * t + 8 + 1)] : 0.0f));
    }
    #pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int col0 = col_base + j * 8;
      b[j][0] = tf_cvt2(((col0 + g) < 40 && (k0 + 2 * t) < 72 ? weight[(col0 + g) * 72 + (k0 + 2 * t)] : 0.0f), ((col0 + g) < 40 && (k0 + 2 * t + 1) < 72 ? weight[(col0 + g) * 72 + (k0 + 2 * t + 1)] : 0.0f));
      b[j][1] = tf_cvt2(((col0 + g) < 40 && (k0 + 2 * t + 8) < 72 ? weight[(col0 + g) * 72 + (k0 + 2 * t + 8)] : 0.0f), ((col0 + g) < 40 && (k0 + 2 * t + 8 + 1) < 72 ? weight[(col0 + g) * 72 + (k0 + 2 * t + 8 + 1)] : 0.0f));
    }
    #pragma unroll
    for (int i = 0; i < 2; ++i)
      #pragma unroll
      for (int j = 0; j < 2; ++j)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
            : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]), "+f"(acc[i][j][3])
            : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]), "r"(b[j][0]), "r"(b[j][1]));
  }
  #pragma unroll
  for (int i = 0; i < 2; ++i)
    #pragma unroll
    for (int j = 0; j < 2; ++j)
      #pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int r = row_base + i * 16 + g + (e >> 1) * 8;
        const int c = col_base + j * 8 + 2 * t + (e & 1);
        if (r < 20 && c < 40) out[r * 40 + c] = acc[i][j][e];
      }
}
