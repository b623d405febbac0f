// tunefarm-launch entry=tf_kernel grid=7,7,2 block=8,8,8 shared=12416
extern "C" __device__ const char tf_launch[] = "// tunefarm-launch entry=tf_kernel grid=7,7,2 block=8,8,8 shared=12416";
#define TF_INF __int_as_float(0x7f800000)
extern "C"
__global__ void __launch_bounds__(512) tf_kernel(float* __restrict__ data, float* __restrict__ weight, float* __restrict__ conv) {
  __shared__ __align__(16) float conv_pad_shared[800];
  __shared__ __align__(16) float weight_shared[2304];
  int conv_n_f_0 = blockIdx.z;
  int conv_y_0 = blockIdx.y;
  int conv_x_0 = blockIdx.x;
  int conv_f_2 = threadIdx.z;
  int conv_y_2 = threadIdx.y;
  int conv_x_2 = threadIdx.x;
  float conv_local[4];
  conv_local[0] = 0.0f;
  conv_local[1] = 0.0f;
  conv_local[2] = 0.0f;
  conv_local[3] = 0.0f;
  for (int conv_local_rc_0 = 0; conv_local_rc_0 < 8; ++conv_local_rc_0) {
    __syncthreads();
    #pragma unroll
    for (int conv_pad_shared_ax0_ax1_ax2_ax3_0 = 0; conv_pad_shared_ax0_ax1_ax2_ax3_0 < 2; ++conv_pad_shared_ax0_ax1_ax2_ax3_0) {
      int conv_pad_shared_ax0_ax1_ax2_ax3_1 = threadIdx.z;
      int conv_pad_shared_ax0_ax1_ax2_ax3_2 = threadIdx.y;
      int conv_pad_shared_ax0_ax1_ax2_ax3_3 = threadIdx.x;
      if (((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 512) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 64)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) < 800) && ((((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 512) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 64)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 10) / 10) / 8) < 1))) {
        conv_pad_shared[(((((((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 512) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 64)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 10) / 10) / 8) * 800) + ((((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 512) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 64)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 10) / 10) % 8) * 100)) + (((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 512) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 64)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 10) % 10) * 10)) + (((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 512) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 64)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) % 10))] = (((((((conv_y_0 * 8) + ((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 512) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 64)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 10) % 10)) >= 1) && (((conv_y_0 * 8) + ((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 512) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 64)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 10) % 10)) < 57)) && (((conv_x_0 * 8) + (((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 512) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 64)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) % 10)) >= 1)) && (((conv_x_0 * 8) + (((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 512) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 64)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) % 10)) < 57)) ? data[((((((((conv_local_rc_0 * 25088) + (conv_y_0 * 448)) + (conv_x_0 * 8)) + ((((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 512) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 64)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 10) / 10) / 8) * 200704)) + ((((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 512) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 64)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 10) / 10) % 8) * 3136)) + (((((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 512) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 64)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) / 10) % 10) * 56)) + (((((conv_pad_shared_ax0_ax1_ax2_ax3_0 * 512) + (conv_pad_shared_ax0_ax1_ax2_ax3_1 * 64)) + (conv_pad_shared_ax0_ax1_ax2_ax3_2 * 8)) + conv_pad_shared_ax0_ax1_ax2_ax3_3) % 10)) - 57)] : 0.0f);
      }
    }
    __syncthreads();
    #pragma unroll
    for (int weight_shared_ax0_ax1_ax2_ax3_0 = 0; weight_shared_ax0_ax1_ax2_ax3_0 < 5; ++weight_shared_ax0_ax1_ax2_ax3_0) {
      int weight_shared_ax0_ax1_ax2_ax3_1 = threadIdx.z;
      int weight_shared_ax0_ax1_ax2_ax3_2 = threadIdx.y;
      int weight_shared_ax0_ax1_ax2_ax3_3 = threadIdx.x;
      if (((((((weight_shared_ax0_ax1_ax2_ax3_0 * 512) + (weight_shared_ax0_ax1_ax2_ax3_1 * 64)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 8)) + weight_shared_ax0_ax1_ax2_ax3_3) < 2304) && (((conv_n_f_0 * 32) + (((((((weight_shared_ax0_ax1_ax2_ax3_0 * 512) + (weight_shared_ax0_ax1_ax2_ax3_1 * 64)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 8)) + weight_shared_ax0_ax1_ax2_ax3_3) / 3) / 3) / 8)) < 64))) {
        weight_shared[(((((((((((weight_shared_ax0_ax1_ax2_ax3_0 * 512) + (weight_shared_ax0_ax1_ax2_ax3_1 * 64)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 8)) + weight_shared_ax0_ax1_ax2_ax3_3) / 3) / 3) / 8) * 72) + ((((((((weight_shared_ax0_ax1_ax2_ax3_0 * 512) + (weight_shared_ax0_ax1_ax2_ax3_1 * 64)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 8)) + weight_shared_ax0_ax1_ax2_ax3_3) / 3) / 3) % 8) * 9)) + (((((((weight_shared_ax0_ax1_ax2_ax3_0 * 512) + (weight_shared_ax0_ax1_ax2_ax3_1 * 64)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 8)) + weight_shared_ax0_ax1_ax2_ax3_3) / 3) % 3) * 3)) + (((((weight_shared_ax0_ax1_ax2_ax3_0 * 512) + (weight_shared_ax0_ax1_ax2_ax3_1 * 64)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 8)) + weight_shared_ax0_ax1_ax2_ax3_3) % 3))] = weight[((((((conv_n_f_0 * 18432) + (conv_local_rc_0 * 72)) + ((((((((weight_shared_ax0_ax1_ax2_ax3_0 * 512) + (weight_shared_ax0_ax1_ax2_ax3_1 * 64)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 8)) + weight_shared_ax0_ax1_ax2_ax3_3) / 3) / 3) / 8) * 576)) + ((((((((weight_shared_ax0_ax1_ax2_ax3_0 * 512) + (weight_shared_ax0_ax1_ax2_ax3_1 * 64)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 8)) + weight_shared_ax0_ax1_ax2_ax3_3) / 3) / 3) % 8) * 9)) + (((((((weight_shared_ax0_ax1_ax2_ax3_0 * 512) + (weight_shared_ax0_ax1_ax2_ax3_1 * 64)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 8)) + weight_shared_ax0_ax1_ax2_ax3_3) / 3) % 3) * 3)) + (((((weight_shared_ax0_ax1_ax2_ax3_0 * 512) + (weight_shared_ax0_ax1_ax2_ax3_1 * 64)) + (weight_shared_ax0_ax1_ax2_ax3_2 * 8)) + weight_shared_ax0_ax1_ax2_ax3_3) % 3))];
      }
    }
    __syncthreads();
    #pragma unroll
    for (int conv_local_rc_1 = 0; conv_local_rc_1 < 8; ++conv_local_rc_1) {
      conv_local[0] = (conv_local[0] + (conv_pad_shared[(((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2)] * weight_shared[((conv_f_2 * 288) + (conv_local_rc_1 * 9))]));
      conv_local[1] = (conv_local[1] + (conv_pad_shared[(((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 72)]));
      conv_local[2] = (conv_local[2] + (conv_pad_shared[(((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 144)]));
      conv_local[3] = (conv_local[3] + (conv_pad_shared[(((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 216)]));
      conv_local[0] = (conv_local[0] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 1)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 1)]));
      conv_local[1] = (conv_local[1] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 1)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 73)]));
      conv_local[2] = (conv_local[2] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 1)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 145)]));
      conv_local[3] = (conv_local[3] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 1)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 217)]));
      conv_local[0] = (conv_local[0] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 2)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 2)]));
      conv_local[1] = (conv_local[1] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 2)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 74)]));
      conv_local[2] = (conv_local[2] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 2)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 146)]));
      conv_local[3] = (conv_local[3] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 2)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 218)]));
      conv_local[0] = (conv_local[0] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 10)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 3)]));
      conv_local[1] = (conv_local[1] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 10)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 75)]));
      conv_local[2] = (conv_local[2] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 10)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 147)]));
      conv_local[3] = (conv_local[3] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 10)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 219)]));
      conv_local[0] = (conv_local[0] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 11)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 4)]));
      conv_local[1] = (conv_local[1] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 11)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 76)]));
      conv_local[2] = (conv_local[2] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 11)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 148)]));
      conv_local[3] = (conv_local[3] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 11)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 220)]));
      conv_local[0] = (conv_local[0] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 12)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 5)]));
      conv_local[1] = (conv_local[1] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 12)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 77)]));
      conv_local[2] = (conv_local[2] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 12)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 149)]));
      conv_local[3] = (conv_local[3] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 12)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 221)]));
      conv_local[0] = (conv_local[0] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 20)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 6)]));
      conv_local[1] = (conv_local[1] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 20)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 78)]));
      conv_local[2] = (conv_local[2] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 20)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 150)]));
      conv_local[3] = (conv_local[3] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 20)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 222)]));
      conv_local[0] = (conv_local[0] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 21)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 7)]));
      conv_local[1] = (conv_local[1] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 21)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 79)]));
      conv_local[2] = (conv_local[2] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 21)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 151)]));
      conv_local[3] = (conv_local[3] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 21)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 223)]));
      conv_local[0] = (conv_local[0] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 22)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 8)]));
      conv_local[1] = (conv_local[1] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 22)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 80)]));
      conv_local[2] = (conv_local[2] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 22)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 152)]));
      conv_local[3] = (conv_local[3] + (conv_pad_shared[((((conv_local_rc_1 * 100) + (conv_y_2 * 10)) + conv_x_2) + 22)] * weight_shared[(((conv_f_2 * 288) + (conv_local_rc_1 * 9)) + 224)]));
    }
  }
  conv[((((((conv_n_f_0 * 100352) + (conv_f_2 * 12544)) + (conv_y_0 * 448)) + (conv_y_2 * 56)) + (conv_x_0 * 8)) + conv_x_2)] = conv_local[0];
  conv[(((((((conv_n_f_0 * 100352) + (conv_f_2 * 12544)) + (conv_y_0 * 448)) + (conv_y_2 * 56)) + (conv_x_0 * 8)) + conv_x_2) + 3136)] = conv_local[1];
  conv[(((((((conv_n_f_0 * 100352) + (conv_f_2 * 12544)) + (conv_y_0 * 448)) + (conv_y_2 * 56)) + (conv_x_0 * 8)) + conv_x_2) + 6272)] = conv_local[2];
  conv[(((((((conv_n_f_0 * 100352) + (conv_f_2 * 12544)) + (conv_y_0 * 448)) + (conv_y_2 * 56)) + (conv_x_0 * 8)) + conv_x_2) + 9408)] = conv_local[3];
}
