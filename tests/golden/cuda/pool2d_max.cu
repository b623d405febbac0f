// tunefarm-launch entry=tf_kernel grid=392,1,1 block=512,1,1 shared=0
extern "C" __device__ const char tf_launch[] = "// tunefarm-launch entry=tf_kernel grid=392,1,1 block=512,1,1 shared=0";
#define TF_INF __int_as_float(0x7f800000)
extern "C"
__global__ void __launch_bounds__(512) tf_kernel(float* __restrict__ data, float* __restrict__ pool) {
  int pool_n_c_y_x_0 = blockIdx.x;
  int pool_n_c_y_x_1 = threadIdx.x;
  float pool_local[1];
  pool_local[0] = (-TF_INF);
  #pragma unroll
  for (int pool_local_ky = 0; pool_local_ky < 3; ++pool_local_ky) {
    #pragma unroll
    for (int pool_local_kx = 0; pool_local_kx < 3; ++pool_local_kx) {
      pool_local[0] = fmaxf(pool_local[0], ((((pool_local_ky + (((((pool_n_c_y_x_0 * 512) + pool_n_c_y_x_1) / 56) % 56) * 2)) >= 1) && ((pool_local_kx + ((((pool_n_c_y_x_0 * 512) + pool_n_c_y_x_1) % 56) * 2)) >= 1)) ? data[((((((pool_local_ky * 112) + pool_local_kx) + (((((pool_n_c_y_x_0 * 512) + pool_n_c_y_x_1) / 56) / 56) * 12544)) + (((((pool_n_c_y_x_0 * 512) + pool_n_c_y_x_1) / 56) % 56) * 224)) + ((((pool_n_c_y_x_0 * 512) + pool_n_c_y_x_1) % 56) * 2)) - 113)] : -3.4028234663852886e+38f));
    }
  }
  pool[(((((((pool_n_c_y_x_0 * 512) + pool_n_c_y_x_1) / 56) / 56) * 3136) + (((((pool_n_c_y_x_0 * 512) + pool_n_c_y_x_1) / 56) % 56) * 56)) + (((pool_n_c_y_x_0 * 512) + pool_n_c_y_x_1) % 56))] = pool_local[0];
}
