// tunefarm-launch entry=tf_kernel grid=4,1,1 block=512,1,1 shared=0
#define TF_INF INFINITY
__kernel void __attribute__((reqd_work_group_size(512, 1, 1))) tf_kernel(__global float* restrict x, __global float* restrict gamma, __global float* restrict beta, __global float* restrict out) {
  int out_i0_i1_i2_0 = (int)get_group_id(0);
  int out_i0_i1_i2_1 = (int)get_local_id(0);
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
  out[(((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 128) * 128) + (((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) % 128))] = ((((x[(((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 128) * 128) + (((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) % 128))] - out_mean[0]) * (1.0f / sqrt((out_var[0] + 1e-12f)))) * gamma[(((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) % 128)]) + beta[(((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) % 128)]);
}
