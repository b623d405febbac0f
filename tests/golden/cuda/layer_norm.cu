// tunefarm-launch entry=tf_kernel grid=4,1,1 block=512,1,1 shared=0
extern "C" __device__ const char tf_launch[] = "// tunefarm-launch entry=tf_kernel grid=4,1,1 block=512,1,1 shared=0";
#define TF_INF __int_as_float(0x7f800000)
extern "C"
__global__ void __launch_bounds__(512) tf_kernel(float* __restrict__ x, float* __restrict__ gamma, float* __restrict__ beta, float* __restrict__ out) {
  int out_i0_i1_i2_0 = blockIdx.x;
  int out_i0_i1_i2_1 = threadIdx.x;
  float out_mean[1];
  out_mean[0] = 0.0f;
  for (int out_mean_r2 = 0; out_mean_r2 < 128; ++out_mean_r2) {
    out_mean[0] = (out_mean[0] + (x[(out_mean_r2 + ((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 128) * 128))] * 0.0078125f));
  }
  float out_var[1];
  out_var[0] = 0.0f;
  for (int out_var_r2 = 0; out_var_r2 < 128; ++out_var_r2) {
    out_var[0] = (out_var[0] + (((x[(out_var_r2 + ((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 128) * 128))] - out_mean[0]) * (x[(out_var_r2 + ((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 128) * 128))] - out_mean[0])) * 0.0078125f));
  }
  out[(((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 128) * 128) + (((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) % 128))] = ((((x[(((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 128) * 128) + (((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) % 128))] - out_mean[0]) * (1.0f / sqrtf((out_var[0] + 1e-12f)))) * gamma[(((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) % 128)]) + beta[(((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) % 128)]);
}
