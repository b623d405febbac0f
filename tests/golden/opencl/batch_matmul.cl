// tunefarm-launch entry=tf_kernel grid=384,1,1 block=512,1,1 shared=0
#define TF_INF INFINITY
__kernel void __attribute__((reqd_work_group_size(512, 1, 1))) tf_kernel(__global float* restrict a, __global float* restrict b, __global float* restrict out) {
  int out_b_i_j_0 = (int)get_group_id(0);
  int out_b_i_j_1 = (int)get_local_id(0);
  float out_local[1];
  out_local[0] = 0.0f;
  for (int out_local_k = 0; out_local_k < 64; ++out_local_k) {
    out_local[0] = (out_local[0] + (a[((out_local_k + (((((out_b_i_j_0 * 512) + out_b_i_j_1) / 128) / 128) * 8192)) + (((((out_b_i_j_0 * 512) + out_b_i_j_1) / 128) % 128) * 64))] * b[(((out_local_k * 128) + (((((out_b_i_j_0 * 512) + out_b_i_j_1) / 128) / 128) * 8192)) + (((out_b_i_j_0 * 512) + out_b_i_j_1) % 128))]));
  }
  out[(((((((out_b_i_j_0 * 512) + out_b_i_j_1) / 128) / 128) * 16384) + (((((out_b_i_j_0 * 512) + out_b_i_j_1) / 128) % 128) * 128)) + (((out_b_i_j_0 * 512) + out_b_i_j_1) % 128))] = out_local[0];
}
