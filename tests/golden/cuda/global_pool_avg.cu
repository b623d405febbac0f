// tunefarm-launch entry=tf_kernel grid=16,1,1 block=32,1,1 shared=0
extern "C" __device__ const char tf_launch[] = "// tunefarm-launch entry=tf_kernel grid=16,1,1 block=32,1,1 shared=0";
#define TF_INF __int_as_float(0x7f800000)
extern "C"
__global__ void __launch_bounds__(32) tf_kernel(float* __restrict__ data, float* __restrict__ gpool) {
  int gpool_n_c_y_x_0 = blockIdx.x;
  int gpool_n_c_y_x_1 = threadIdx.x;
  float gpool_sum[1];
  gpool_sum[0] = 0.0f;
  for (int gpool_sum_ky = 0; gpool_sum_ky < 7; ++gpool_sum_ky) {
    for (int gpool_sum_kx = 0; gpool_sum_kx < 7; ++gpool_sum_kx) {
      gpool_sum[0] = (gpool_sum[0] + data[((((gpool_n_c_y_x_0 * 1568) + (gpool_n_c_y_x_1 * 49)) + (gpool_sum_ky * 7)) + gpool_sum_kx)]);
    }
  }
  gpool[((gpool_n_c_y_x_0 * 32) + gpool_n_c_y_x_1)] = (gpool_sum[0] / 49.0f);
}
