// tunefarm-launch entry=tf_kernel grid=1,1,1 block=512,1,1 shared=0
extern "C" __device__ const char tf_launch[] = "// tunefarm-launch entry=tf_kernel grid=1,1,1 block=512,1,1 shared=0";
#define TF_INF __int_as_float(0x7f800000)
extern "C"
__global__ void __launch_bounds__(512) tf_kernel(float* __restrict__ x, float* __restrict__ out) {
  int out_i0_i1_i2_0 = blockIdx.x;
  int out_i0_i1_i2_1 = threadIdx.x;
  float out_max[1];
  if ((((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 16) / 2) < 1)) {
    out_max[0] = (-TF_INF);
  }
  for (int out_max_k = 0; out_max_k < 16; ++out_max_k) {
    if ((((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 16) / 2) < 1)) {
      out_max[0] = fmaxf(out_max[0], x[(((out_max_k + (((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 16) / 2) * 512)) + (((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 16) % 2) * 256)) + ((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) % 16) * 16))]);
    }
  }
  float out_sum[1];
  if ((((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 16) / 2) < 1)) {
    out_sum[0] = 0.0f;
  }
  for (int out_sum_k = 0; out_sum_k < 16; ++out_sum_k) {
    if ((((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 16) / 2) < 1)) {
      out_sum[0] = (out_sum[0] + expf((x[(((out_sum_k + (((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 16) / 2) * 512)) + (((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 16) % 2) * 256)) + ((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) % 16) * 16))] - out_max[0])));
    }
  }
  for (int out_i3 = 0; out_i3 < 16; ++out_i3) {
    if ((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) < 32)) {
      out[(((out_i3 + (((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 16) / 2) * 512)) + (((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 16) % 2) * 256)) + ((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) % 16) * 16))] = (expf((x[(((out_i3 + (((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 16) / 2) * 512)) + (((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 16) % 2) * 256)) + ((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) % 16) * 16))] - out_max[0])) / out_sum[0]);
    }
  }
}
