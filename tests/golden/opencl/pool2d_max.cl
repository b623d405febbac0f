// tunefarm-launch entry=tf_kernel grid=392,1,1 block=512,1,1 shared=0
#define TF_INF INFINITY
__kernel void __attribute__((reqd_work_group_size(512, 1, 1))) tf_kernel(__global float* restrict data, __global float* restrict pool) {
  int pool_n_c_y_x_0 = (int)get_group_id(0);
  int pool_n_c_y_x_1 = (int)get_local_id(0);
  float pool_local[1];
  pool_local[0] = (-TF_INF);
  #pragma unroll
  for (int pool_local_ky = 0; pool_local_ky < 3; ++pool_local_ky) {
    #pragma unroll
    for (int pool_local_kx = 0; pool_local_kx < 3; ++pool_local_kx) {
      pool_local[0] = fmax(pool_local[0], ((((pool_local_ky + (((((pool_n_c_y_x_0 * 512) + pool_n_c_y_x_1) / 56) % 56) * 2)) >= 1) && ((pool_local_kx + ((((pool_n_c_y_x_0 * 512) + pool_n_c_y_x_1) % 56) * 2)) >= 1)) ? data[((((((pool_local_ky * 112) + pool_local_kx) + (((((pool_n_c_y_x_0 * 512) + pool_n_c_y_x_1) / 56) / 56) * 12544)) + (((((pool_n_c_y_x_0 * 512) + pool_n_c_y_x_1) / 56) % 56) * 224)) + ((((pool_n_c_y_x_0 * 512) + pool_n_c_y_x_1) % 56) * 2)) - 113)] : -3.4028234663852886e+38f));
    }
  }
  pool[(((((((pool_n_c_y_x_0 * 512) + pool_n_c_y_x_1) / 56) / 56) * 3136) + (((((pool_n_c_y_x_0 * 512) + pool_n_c_y_x_1) / 56) % 56) * 56)) + (((pool_n_c_y_x_0 * 512) + pool_n_c_y_x_1) % 56))] = pool_local[0];
}
