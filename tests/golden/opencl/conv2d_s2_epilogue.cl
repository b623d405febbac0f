// tunefarm-launch entry=tf_kernel grid=1,1,2 block=7,7,8 shared=16416
#define TF_INF INFINITY
__kernel void __attribute__((reqd_work_group_size(7, 7, 8))) tf_kernel(__global float* restrict data, __global float* restrict weight, __global float* restrict bias, __global float* restrict residual, __global float* restrict out) {
  __local float conv_pad_shared[1800] __attribute__((aligned(16)));
  __local float weight_shared[2304] __attribute__((aligned(16)));
  int out_n_f_0 = (int)get_group_id(2);
  int out_y_0 = (int)get_group_id(1);
  int out_x_0 = (int)get_group_id(0);
  int out_f_2 = (int)get_local_id(2);
  int out_y_2 = (int)get_local_id(1);
  int out_x_2 = (int)get_local_id(0);
  float conv[4];
  conv[0] = 0.0f;
  conv[1] = 0.0f;
  conv[2] = 0.0f;
  conv[3] = 0.0f;
  for (int conv_rc_0 = 0; conv_rc_0 < 4; ++conv_rc_0) {
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    #pragma unroll
    for (int conv_pad_shared_ax0_ax1_ax2_ax3_0 = 0; conv_pad_shared_ax0_ax1_ax2_ax3_0 < 5; ++conv_pad_shared_ax0_ax1_ax2_ax3_0) {
      int conv_pad_shared_ax0_ax1_ax2_ax3_1 = (int)get_local_id(2);
      int conv_pad_shared_ax0_ax1_ax2_ax3_2 = (int)get_local_id(1);
      int conv_pad_shared_ax0_ax1_ax2_ax3_3 = (int)get_local_id(0);
      if (((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 392) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 49)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 7)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) < 1800) && ((((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 392) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 49)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 7)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 15) / 15) / 8) < 1))) {
        conv_pad_shared[(((((((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 392) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 49)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 7)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 15) / 15) / 8) * 1800) + ((((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 392) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 49)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 7)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 15) / 15) % 8) * 225)) + (((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 392) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 49)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 7)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 15) % 15) * 15)) + (((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 392) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 49)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 7)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) % 15))] = (((((out_y_0 * 14) + ((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 392) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 49)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 7)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 15) % 15)) >= 1) && (((out_x_0 * 14) + (((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 392) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 49)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 7)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) % 15)) >= 1)) ? data[((((((((conv_rc_0 * 1568) + (out_y_0 * 196)) + (out_x_0 * 14)) + ((((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 392) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 49)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 7)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 15) / 15) / 8) * 6272)) + ((((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 392) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 49)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 7)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 15) / 15) % 8) * 196)) + (((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 392) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 49)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 7)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 15) % 15) * 14)) + (((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 392) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 49)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 7)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) % 15)) - 15)] : 0.0f);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    #pragma unroll
    for (int weight_shared_ax0_ax1_ax2_ax3_0 = 0; weight_shared_ax0_ax1_ax2_ax3_0 < 6; ++weight_shared_ax0_ax1_ax2_ax3_0) {
      int weight_shared_ax0_ax1_ax2_ax3_1 = (int)get_local_id(2);
      int weight_shared_ax0_ax1_ax2_ax3_2 = (int)get_local_id(1);
      int weight_shared_ax0_ax1_ax2_ax3_3 = (int)get_local_id(0);
      if (((((((weight_shared_ax0_ax1_ax2_ax3_0 * 392) + (weight_shared_ax0_ax1_ax2_ax3_1 * 49)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 7)) + weight_shared_ax0_ax1_ax2_ax3_3) < 2304) && (((out_n_f_0 * 32) + (((((((weight_shared_ax0_ax1_ax2_ax3_0 * 392) + (weight_shared_ax0_ax1_ax2_ax3_1 * 49)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 7)) + weight_shared_ax0_ax1_ax2_ax3_3) / 3) / 3) / 8)) < 64))) {
        weight_shared[(((((((((((weight_shared_ax0_ax1_ax2_ax3_0 * 392) + (weight_shared_ax0_ax1_ax2_ax3_1 * 49)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 7)) + weight_shared_ax0_ax1_ax2_ax3_3) / 3) / 3) / 8) * 72) + ((((((((weight_shared_ax0_ax1_ax2_ax3_0 * 392) + (weight_shared_ax0_ax1_ax2_ax3_1 * 49)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 7)) + weight_shared_ax0_ax1_ax2_ax3_3) / 3) / 3) % 8) * 9)) + (((((((weight_shared_ax0_ax1_ax2_ax3_0 * 392) + (weight_shared_ax0_ax1_ax2_ax3_1 * 49)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 7)) + weight_shared_ax0_ax1_ax2_ax3_3) / 3) % 3) * 3)) + (((((weight_shared_ax0_ax1_ax2_ax3_0 * 392) + (weight_shared_ax0_ax1_ax2_ax3_1 * 49)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 7)) + weight_shared_ax0_ax1_ax2_ax3_3) % 3))] = weight[((((((out_n_f_0 * 9216) + (conv_rc_0 * 72)) + ((((((((weight_shared_ax0_ax1_ax2_ax3_0 * 392) + (weight_shared_ax0_ax1_ax2_ax3_1 * 49)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 7)) + weight_shared_ax0_ax1_ax2_ax3_3) / 3) / 3) / 8) * 288)) + ((((((((weight_shared_ax0_ax1_ax2_ax3_0 * 392) + (weight_shared_ax0_ax1_ax2_ax3_1 * 49)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 7)) + weight_shared_ax0_ax1_ax2_ax3_3) / 3) / 3) % 8) * 9)) + (((((((weight_shared_ax0_ax1_ax2_ax3_0 * 392) + (weight_shared_ax0_ax1_ax2_ax3_1 * 49)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 7)) + weight_shared_ax0_ax1_ax2_ax3_3) / 3) % 3) * 3)) + (((((weight_shared_ax0_ax1_ax2_ax3_0 * 392) + (weight_shared_ax0_ax1_ax2_ax3_1 * 49)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 7)) + weight_shared_ax0_ax1_ax2_ax3_3) % 3))];
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    #pragma unroll
    for (int conv_rc_1 = 0; conv_rc_1 < 8; ++conv_rc_1) {
      conv[0] = (conv[0] + (conv_pad_shared[(((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2))] * weight_shared[((out_f_2 * 288) + (conv_rc_1 * 9))]));
      conv[1] = (conv[1] + (conv_pad_shared[(((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2))] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 72)]));
      conv[2] = (conv[2] + (conv_pad_shared[(((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2))] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 144)]));
      conv[3] = (conv[3] + (conv_pad_shared[(((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2))] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 216)]));
      conv[0] = (conv[0] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 1)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 1)]));
      conv[1] = (conv[1] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 1)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 73)]));
      conv[2] = (conv[2] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 1)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 145)]));
      conv[3] = (conv[3] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 1)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 217)]));
      conv[0] = (conv[0] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 2)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 2)]));
      conv[1] = (conv[1] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 2)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 74)]));
      conv[2] = (conv[2] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 2)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 146)]));
      conv[3] = (conv[3] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 2)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 218)]));
      conv[0] = (conv[0] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 15)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 3)]));
      conv[1] = (conv[1] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 15)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 75)]));
      conv[2] = (conv[2] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 15)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 147)]));
      conv[3] = (conv[3] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 15)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 219)]));
      conv[0] = (conv[0] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 16)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 4)]));
      conv[1] = (conv[1] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 16)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 76)]));
      conv[2] = (conv[2] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 16)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 148)]));
      conv[3] = (conv[3] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 16)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 220)]));
      conv[0] = (conv[0] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 17)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 5)]));
      conv[1] = (conv[1] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 17)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 77)]));
      conv[2] = (conv[2] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 17)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 149)]));
      conv[3] = (conv[3] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 17)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 221)]));
      conv[0] = (conv[0] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 30)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 6)]));
      conv[1] = (conv[1] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 30)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 78)]));
      conv[2] = (conv[2] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 30)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 150)]));
      conv[3] = (conv[3] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 30)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 222)]));
      conv[0] = (conv[0] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 31)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 7)]));
      conv[1] = (conv[1] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 31)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 79)]));
      conv[2] = (conv[2] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 31)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 151)]));
      conv[3] = (conv[3] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 31)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 223)]));
      conv[0] = (conv[0] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 32)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 8)]));
      conv[1] = (conv[1] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 32)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 80)]));
      conv[2] = (conv[2] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 32)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 152)]));
      conv[3] = (conv[3] + (conv_pad_shared[((((conv_rc_1 * 225) + (out_y_2 * 30)) + (out_x_2 * 2)) + 32)] * weight_shared[(((out_f_2 * 288) + (conv_rc_1 * 9)) + 224)]));
    }
  }
  out[((((((out_n_f_0 * 1568) + (out_f_2 * 196)) + (out_y_0 * 49)) + (out_y_2 * 7)) + (out_x_0 * 7)) + out_x_2)] = fmax(((conv[0] + bias[((out_n_f_0 * 32) + (out_f_2 * 4))]) + residual[((((((out_n_f_0 * 1568) + (out_f_2 * 196)) + (out_y_0 * 49)) + (out_y_2 * 7)) + (out_x_0 * 7)) + out_x_2)]), 0.0f);
  out[(((((((out_n_f_0 * 1568) + (out_f_2 * 196)) + (out_y_0 * 49)) + (out_y_2 * 7)) + (out_x_0 * 7)) + out_x_2) + 49)] = fmax(((conv[1] + bias[(((out_n_f_0 * 32) + (out_f_2 * 4)) + 1)]) + residual[(((((((out_n_f_0 * 1568) + (out_f_2 * 196)) + (out_y_0 * 49)) + (out_y_2 * 7)) + (out_x_0 * 7)) + out_x_2) + 49)]), 0.0f);
  out[(((((((out_n_f_0 * 1568) + (out_f_2 * 196)) + (out_y_0 * 49)) + (out_y_2 * 7)) + (out_x_0 * 7)) + out_x_2) + 98)] = fmax(((conv[2] + bias[(((out_n_f_0 * 32) + (out_f_2 * 4)) + 2)]) + residual[(((((((out_n_f_0 * 1568) + (out_f_2 * 196)) + (out_y_0 * 49)) + (out_y_2 * 7)) + (out_x_0 * 7)) + out_x_2) + 98)]), 0.0f);
  out[(((((((out_n_f_0 * 1568) + (out_f_2 * 196)) + (out_y_0 * 49)) + (out_y_2 * 7)) + (out_x_0 * 7)) + out_x_2) + 147)] = fmax(((conv[3] + bias[(((out_n_f_0 * 32) + (out_f_2 * 4)) + 3)]) + residual[(((((((out_n_f_0 * 1568) + (out_f_2 * 196)) + (out_y_0 * 49)) + (out_y_2 * 7)) + (out_x_0 * 7)) + out_x_2) + 147)]), 0.0f);
}
