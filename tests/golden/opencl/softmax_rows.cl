// tunefarm-launch entry=tf_kernel grid=1,1,1 block=32,1,1 shared=0
#define TF_INF INFINITY
__kernel void __attribute__((reqd_work_group_size(32, 1, 1))) tf_kernel(__global float* restrict x, __global float* restrict out) {
  int out_i0_i1_i2_0 = (int)get_group_id(0);
  int out_i0_i1_i2_1 = (int)get_local_id(0);
  float out_max[1];
  out_max[0] = (-TF_INF);
  for (int out_max_k = 0; out_max_k < 16; ++out_max_k) {
    out_max[0] = fmax(out_max[0], x[((out_max_k + ((((out_i0_i1_i2_0 * 32) + out_i0_i1_i2_1) / 16) * 256)) + ((((out_i0_i1_i2_0 * 32) + out_i0_i1_i2_1) % 16) * 16))]);
  }
  float out_sum[1];
  out_sum[0] = 0.0f;
  for (int out_sum_k = 0; out_sum_k < 16; ++out_sum_k) {
    out_sum[0] = (out_sum[0] + exp((x[((out_sum_k + ((((out_i0_i1_i2_0 * 32) + out_i0_i1_i2_1) / 16) * 256)) + ((((out_i0_i1_i2_0 * 32) + out_i0_i1_i2_1) % 16) * 16))] - out_max[0])));
  }
  for (int out_i3 = 0; out_i3 < 16; ++out_i3) {
    out[((out_i3 + ((((out_i0_i1_i2_0 * 32) + out_i0_i1_i2_1) / 16) * 256)) + ((((out_i0_i1_i2_0 * 32) + out_i0_i1_i2_1) % 16) * 16))] = (exp((x[((out_i3 + ((((out_i0_i1_i2_0 * 32) + out_i0_i1_i2_1) / 16) * 256)) + ((((out_i0_i1_i2_0 * 32) + out_i0_i1_i2_1) % 16) * 16))] - out_max[0])) / out_sum[0]);
  }
}
