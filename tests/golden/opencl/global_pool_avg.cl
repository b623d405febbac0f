// tunefarm-launch entry=tf_kernel grid=16,1,1 block=32,1,1 shared=0
#define TF_INF INFINITY
__kernel void __attribute__((reqd_work_group_size(32, 1, 1))) tf_kernel(__global float* restrict data, __global float* restrict gpool) {
  int gpool_n_c_y_x_0 = (int)get_group_id(0);
  int gpool_n_c_y_x_1 = (int)get_local_id(0);
  float gpool_sum[1];
  gpool_sum[0] = 0.0f;
  for (int gpool_sum_ky = 0; gpool_sum_ky < 7; ++gpool_sum_ky) {
    for (int gpool_sum_kx = 0; gpool_sum_kx < 7; ++gpool_sum_kx) {
      gpool_sum[0] = (gpool_sum[0] + data[((((gpool_n_c_y_x_0 * 1568) + (gpool_n_c_y_x_1 * 49)) + (gpool_sum_ky * 7)) + gpool_sum_kx)]);
    }
  }
  gpool[((gpool_n_c_y_x_0 * 32) + gpool_n_c_y_x_1)] = (gpool_sum[0] / 49.0f);
}
