// tunefarm-launch entry=tf_kernel grid=384,1,1 block=512,1,1 shared=0
extern "C" __device__ const char tf_launch[] = "// tunefarm-launch entry=tf_kernel grid=384,1,1 block=512,1,1 shared=0";
#define TF_INF __int_as_float(0x7f800000)
extern "C"
__global__ void __launch_bounds__(512) tf_kernel(float* __restrict__ a, float* __restrict__ b, float* __restrict__ out) {
  int out_b_i_j_0 = blockIdx.x;
  int out_b_i_j_1 = threadIdx.x;
  float out_local[1];
  out_local[0] = 0.0f;
  for (int out_local_k = 0; out_local_k < 64; ++out_local_k) {
    out_local[0] = (out_local[0] + (a[((out_local_k + (((((out_b_i_j_0 * 512) + out_b_i_j_1) / 128) / 128) * 8192)) + (((((out_b_i_j_0 * 512) + out_b_i_j_1) / 128) % 128) * 64))] * b[(((out_local_k * 128) + (((((out_b_i_j_0 * 512) + out_b_i_j_1) / 128) / 128) * 8192)) + (((out_b_i_j_0 * 512) + out_b_i_j_1) % 128))]));
  }
  out[(((((((out_b_i_j_0 * 512) + out_b_i_j_1) / 128) / 128) * 16384) + (((((out_b_i_j_0 * 512) + out_b_i_j_1) / 128) % 128) * 128)) + (((out_b_i_j_0 * 512) + out_b_i_j_1) % 128))] = out_local[0];
}
