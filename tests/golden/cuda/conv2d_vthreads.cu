// tunefarm-launch entry=tf_kernel grid=7,7,4 block=8,4,4 shared=4224
extern "C" __device__ const char tf_launch[] = "// tunefarm-launch entry=tf_kernel grid=7,7,4 block=8,4,4 shared=4224";
#define TF_INF __int_as_float(0x7f800000)
extern "C"
__global__ void __launch_bounds__(128) tf_kernel(float* __restrict__ data, float* __restrict__ weight, float* __restrict__ conv) {
  __shared__ __align__(16) float conv_pad_shared[480];
  __shared__ __align__(16) float weight_shared[576];
  int conv_n_f_0 = blockIdx.z;
  int conv_y_0 = blockIdx.y;
  int conv_x_0 = blockIdx.x;
  for (int conv_f_1 = 0; conv_f_1 < 2; ++conv_f_1) {
    for (int conv_y_1 = 0; conv_y_1 < 2; ++conv_y_1) {
      int conv_f_2 = threadIdx.z;
      int conv_y_2 = threadIdx.y;
      int conv_x_2 = threadIdx.x;
      float conv_local[2];
      conv_local[0] = 0.0f;
      conv_local[1] = 0.0f;
      for (int conv_local_rc_0 = 0; conv_local_rc_0 < 8; ++conv_local_rc_0) {
        __syncthreads();
        #pragma unroll
        for (int conv_pad_shared_ax0_ax1_ax2_ax3_0 = 0; conv_pad_shared_ax0_ax1_ax2_ax3_0 < 4; ++conv_pad_shared_ax0_ax1_ax2_ax3_0) {
          int conv_pad_shared_ax0_ax1_ax2_ax3_1 = threadIdx.z;
          int conv_pad_shared_ax0_ax1_ax2_ax3_2 = threadIdx.y;
          int conv_pad_shared_ax0_ax1_ax2_ax3_3 = threadIdx.x;
          if (((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 128) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 32)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) < 480) && ((((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 128) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 32)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 10) / 6) / 8) < 1))) {
            conv_pad_shared[(((((((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 128) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 32)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 10) / 6) / 8) * 480) + ((((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 128) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 32)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 10) / 6) % 8) * 60)) + (((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 128) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 32)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 10) % 6) * 10)) + (((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 128) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 32)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) % 10))] = ((((((((conv_y_0 * 8) + (conv_y_1 * 4)) + ((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 128) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 32)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 10) % 6)) >= 1) && ((((conv_y_0 * 8) + (conv_y_1 * 4)) + ((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 128) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 32)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 10) % 6)) < 57)) && (((conv_x_0 * 8) + (((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 128) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 32)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) % 10)) >= 1)) && (((conv_x_0 * 8) + (((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 128) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 32)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) % 10)) < 57)) ? data[(((((((((conv_local_rc_0 * 25088) + (conv_y_0 * 448)) + (conv_y_1 * 224)) + (conv_x_0 * 8)) + ((((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 128) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 32)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 10) / 6) / 8) * 200704)) + ((((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 128) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 32)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 10) / 6) % 8) * 3136)) + (((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 128) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 32)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 10) % 6) * 56)) + (((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 128) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 32)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) % 10)) - 57)] : 0.0f);
          }
        }
        __syncthreads();
        #pragma unroll
        for (int weight_shared_ax0_ax1_ax2_ax3_0 = 0; weight_shared_ax0_ax1_ax2_ax3_0 < 5; ++weight_shared_ax0_ax1_ax2_ax3_0) {
          int weight_shared_ax0_ax1_ax2_ax3_1 = threadIdx.z;
          int weight_shared_ax0_ax1_ax2_ax3_2 = threadIdx.y;
          int weight_shared_ax0_ax1_ax2_ax3_3 = threadIdx.x;
          if (((((((weight_shared_ax0_ax1_ax2_ax3_0 * 128) + (weight_shared_ax0_ax1_ax2_ax3_1 * 32)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 8)) + weight_shared_ax0_ax1_ax2_ax3_3) < 576) && ((((conv_n_f_0 * 16) + (conv_f_1 * 8)) + (((((((weight_shared_ax0_ax1_ax2_ax3_0 * 128) + (weight_shared_ax0_ax1_ax2_ax3_1 * 32)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 8)) + weight_shared_ax0_ax1_ax2_ax3_3) / 3) / 3) / 8)) < 64))) {
            weight_shared[(((((((((((weight_shared_ax0_ax1_ax2_ax3_0 * 128) + (weight_shared_ax0_ax1_ax2_ax3_1 * 32)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 8)) + weight_shared_ax0_ax1_ax2_ax3_3) / 3) / 3) / 8) * 72) + ((((((((weight_shared_ax0_ax1_ax2_ax3_0 * 128) + (weight_shared_ax0_ax1_ax2_ax3_1 * 32)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 8)) + weight_shared_ax0_ax1_ax2_ax3_3) / 3) / 3) % 8) * 9)) + (((((((weight_shared_ax0_ax1_ax2_ax3_0 * 128) + (weight_shared_ax0_ax1_ax2_ax3_1 * 32)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 8)) + weight_shared_ax0_ax1_ax2_ax3_3) / 3) % 3) * 3)) + (((((weight_shared_ax0_ax1_ax2_ax3_0 * 128) + (weight_shared_ax0_ax1_ax2_ax3_1 * 32)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 8)) + weight_shared_ax0_ax1_ax2_ax3_3) % 3))] = weight[(((((((conv_n_f_0 * 9216) + (conv_f_1 * 4608)) + (conv_local_rc_0 * 72)) + ((((((((weight_shared_ax0_ax1_ax2_ax3_0 * 128) + (weight_shared_ax0_ax1_ax2_ax3_1 * 32)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 8)) + weight_shared_ax0_ax1_ax2_ax3_3) / 3) / 3) / 8) * 576)) + ((((((((weight_shared_ax0_ax1_ax2_ax3_0 * 128) + (weight_shared_ax0_ax1_ax2_ax3_1 * 32)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 8)) + weight_shared_ax0_ax1_ax2_ax3_3) / 3) / 3) % 8) * 9)) + (((((((weight_shared_ax0_ax1_ax2_ax3_0 * 128) + (weight_shared_ax0_ax1_ax2_ax3_1 * 32)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 8)) + weight_shared_ax0_ax1_ax2_ax3_3) / 3) % 3) * 3)) + (((((weight_shared_ax0_ax1_ax2_ax3_0 * 128) + (weight_shared_ax0_ax1_ax2_ax3_1 * 32)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 8)) + weight_shared_ax0_ax1_ax2_ax3_3) % 3))];
          }
        }
        __syncthreads();
        #pragma unroll
        for (int conv_local_rc_1 = 0; conv_local_rc_1 < 8; ++conv_local_rc_1) {
          #pragma unroll
          for (int conv_local_ry_1 = 0; conv_local_ry_1 < 3; ++conv_local_ry_1) {
            #pragma unroll
            for (int conv_local_rx_1 = 0; conv_local_rx_1 < 3; ++conv_local_rx_1) {
              conv_local[0] = (conv_local[0] + (conv_pad_shared[(((((conv_local_rc_1 * 60) + (conv_y_2 * 10)) + (conv_local_ry_1 * 10)) + conv_x_2) + conv_local_rx_1)] * weight_shared[((((conv_f_2 * 144) + (conv_local_rc_1 * 9)) + (conv_local_ry_1 * 3)) + conv_local_rx_1)]));
              conv_local[1] = (conv_local[1] + (conv_pad_shared[(((((conv_local_rc_1 * 60) + (conv_y_2 * 10)) + (conv_local_ry_1 * 10)) + conv_x_2) + conv_local_rx_1)] * weight_shared[(((((conv_f_2 * 144) + (conv_local_rc_1 * 9)) + (conv_local_ry_1 * 3)) + conv_local_rx_1) + 72)]));
            }
          }
        }
      }
      conv[((((((((conv_n_f_0 * 50176) + (conv_f_1 * 25088)) + (conv_f_2 * 6272)) + (conv_y_0 * 448)) + (conv_y_1 * 224)) + (conv_y_2 * 56)) + (conv_x_0 * 8)) + conv_x_2)] = conv_local[0];
      conv[(((((((((conv_n_f_0 * 50176) + (conv_f_1 * 25088)) + (conv_f_2 * 6272)) + (conv_y_0 * 448)) + (conv_y_1 * 224)) + (conv_y_2 * 56)) + (conv_x_0 * 8)) + conv_x_2) + 3136)] = conv_local[1];
    }
  }
}
