// tunefarm-launch entry=tf_kernel grid=5,1,1 block=50,1,1 shared=25728
extern "C" __device__ const char tf_launch[] = "// tunefarm-launch entry=tf_kernel grid=5,1,1 block=50,1,1 shared=25728";
#define TF_INF __int_as_float(0x7f800000)
extern "C"
__global__ void __launch_bounds__(50) tf_kernel(float* __restrict__ data, float* __restrict__ weight, float* __restrict__ bias, float* __restrict__ out) {
  __shared__ __align__(16) float data_shared[32];
  __shared__ __align__(16) float weight_shared[6400];
  int out_i_0 = blockIdx.y;
  int out_j_0 = blockIdx.x;
  int out_j_1 = threadIdx.x;
  float dense[4];
  dense[0] = 0.0f;
  dense[1] = 0.0f;
  dense[2] = 0.0f;
  dense[3] = 0.0f;
  for (int dense_k_0 = 0; dense_k_0 < 16; ++dense_k_0) {
    __syncthreads();
    int data_shared_ax0_ax1_0_1 = threadIdx.x;
    if (((data_shared_ax0_ax1_0_1 < 8) && ((out_i_0 + (data_shared_ax0_ax1_0_1 / 8)) < 1))) {
      *((float4*)(&data_shared[(((data_shared_ax0_ax1_0_1 / 8) * 32) + ((data_shared_ax0_ax1_0_1 % 8) * 4))])) = *((float4*)(&data[((((out_i_0 * 512) + (dense_k_0 * 32)) + ((data_shared_ax0_ax1_0_1 / 8) * 512)) + ((data_shared_ax0_ax1_0_1 % 8) * 4))]));
    }
    __syncthreads();
    #pragma unroll
    for (int weight_shared_ax0_ax1_0_0 = 0; weight_shared_ax0_ax1_0_0 < 32; ++weight_shared_ax0_ax1_0_0) {
      int weight_shared_ax0_ax1_0_1 = threadIdx.x;
      *((float4*)(&weight_shared[(((((weight_shared_ax0_ax1_0_0 * 50) + weight_shared_ax0_ax1_0_1) / 8) * 32) + ((((weight_shared_ax0_ax1_0_0 * 50) + weight_shared_ax0_ax1_0_1) % 8) * 4))])) = *((float4*)(&weight[((((out_j_0 * 102400) + (dense_k_0 * 32)) + ((((weight_shared_ax0_ax1_0_0 * 50) + weight_shared_ax0_ax1_0_1) / 8) * 512)) + ((((weight_shared_ax0_ax1_0_0 * 50) + weight_shared_ax0_ax1_0_1) % 8) * 4))]));
    }
    __syncthreads();
    #pragma unroll
    for (int dense_k_1 = 0; dense_k_1 < 32; ++dense_k_1) {
      dense[0] = (dense[0] + (data_shared[dense_k_1] * weight_shared[((out_j_1 * 128) + dense_k_1)]));
      dense[1] = (dense[1] + (data_shared[dense_k_1] * weight_shared[(((out_j_1 * 128) + dense_k_1) + 32)]));
      dense[2] = (dense[2] + (data_shared[dense_k_1] * weight_shared[(((out_j_1 * 128) + dense_k_1) + 64)]));
      dense[3] = (dense[3] + (data_shared[dense_k_1] * weight_shared[(((out_j_1 * 128) + dense_k_1) + 96)]));
    }
  }
  {
    float4 tf_v;
    tf_v.x = (dense[0] + bias[((out_j_0 * 200) + (out_j_1 * 4))]);
    tf_v.y = (dense[1] + bias[(((out_j_0 * 200) + (out_j_1 * 4)) + 1)]);
    tf_v.z = (dense[2] + bias[(((out_j_0 * 200) + (out_j_1 * 4)) + 2)]);
    tf_v.w = (dense[3] + bias[(((out_j_0 * 200) + (out_j_1 * 4)) + 3)]);
    *((float4*)(&out[(((out_i_0 * 1000) + (out_j_0 * 200)) + (out_j_1 * 4))])) = tf_v;
  }
}
