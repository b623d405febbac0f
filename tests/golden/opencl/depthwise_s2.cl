// tunefarm-launch entry=tf_kernel grid=2,2,24 block=7,7,4 shared=0
#define TF_INF INFINITY
__kernel void __attribute__((reqd_work_group_size(7, 7, 4))) tf_kernel(__global float* restrict data, __global float* restrict weight, __global float* restrict bias, __global float* restrict out) {
  int out_n_c_0 = (int)get_group_id(2);
  int out_y_0 = (int)get_group_id(1);
  int out_x_0 = (int)get_group_id(0);
  int out_c_1 = (int)get_local_id(2);
  int out_y_1 = (int)get_local_id(1);
  int out_x_1 = (int)get_local_id(0);
  float conv[1];
  conv[0] = 0.0f;
  #pragma unroll
  for (int conv_ry = 0; conv_ry < 3; ++conv_ry) {
    conv[0] = (conv[0] + (((((((out_y_0 * 14) + (out_y_1 * 2)) + conv_ry) >= 1) && (((out_x_0 * 14) + (out_x_1 * 2)) >= 1)) ? data[((((((((out_n_c_0 * 3136) + (out_c_1 * 784)) + (out_y_0 * 392)) + (out_y_1 * 56)) + (conv_ry * 28)) + (out_x_0 * 14)) + (out_x_1 * 2)) - 29)] : 0.0f) * weight[(((out_n_c_0 * 36) + (out_c_1 * 9)) + (conv_ry * 3))]));
    conv[0] = (conv[0] + ((((((out_y_0 * 14) + (out_y_1 * 2)) + conv_ry) >= 1) ? data[((((((((out_n_c_0 * 3136) + (out_c_1 * 784)) + (out_y_0 * 392)) + (out_y_1 * 56)) + (conv_ry * 28)) + (out_x_0 * 14)) + (out_x_1 * 2)) - 28)] : 0.0f) * weight[((((out_n_c_0 * 36) + (out_c_1 * 9)) + (conv_ry * 3)) + 1)]));
    conv[0] = (conv[0] + ((((((out_y_0 * 14) + (out_y_1 * 2)) + conv_ry) >= 1) ? data[((((((((out_n_c_0 * 3136) + (out_c_1 * 784)) + (out_y_0 * 392)) + (out_y_1 * 56)) + (conv_ry * 28)) + (out_x_0 * 14)) + (out_x_1 * 2)) - 27)] : 0.0f) * weight[((((out_n_c_0 * 36) + (out_c_1 * 9)) + (conv_ry * 3)) + 2)]));
  }
  out[((((((out_n_c_0 * 784) + (out_c_1 * 196)) + (out_y_0 * 98)) + (out_y_1 * 14)) + (out_x_0 * 7)) + out_x_1)] = fmin(fmax((conv[0] + bias[((out_n_c_0 * 4) + out_c_1)]), 0.0f), 6.0f);
}
