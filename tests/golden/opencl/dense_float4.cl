// tunefarm-launch entry=tf_kernel grid=5,1,1 block=50,1,1 shared=25728
#define TF_INF INFINITY
__kernel void __attribute__((reqd_work_group_size(50, 1, 1))) tf_kernel(__global float* restrict data, __global float* restrict weight, __global float* restrict bias, __global float* restrict out) {
  __local float data_shared[32] __attribute__((aligned(16)));
  __local float weight_shared[6400] __attribute__((aligned(16)));
  int out_i_0 = (int)get_group_id(1);
  int out_j_0 = (int)get_group_id(0);
  int out_j_1 = (int)get_local_id(0);
  float dense[4];
  dense[0] = 0.0f;
  dense[1] = 0.0f;
  dense[2] = 0.0f;
  dense[3] = 0.0f;
  for (int dense_k_0 = 0; dense_k_0 < 16; ++dense_k_0) {
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    int data_shared_ax0_ax1_0_1 = (int)get_local_id(0);
    if (((data_shared_ax0_ax1_0_1 < 8) && ((out_i_0 + (data_shared_ax0_ax1_0_1 / 8)) < 1))) {
      *((__local float4*)(&data_shared[(((data_shared_ax0_ax1_0_1 / 8) * 32) + ((data_shared_ax0_ax1_0_1 % 8) * 4))])) = *((__global float4*)(&data[((((out_i_0 * 512) + (dense_k_0 * 32)) + ((data_shared_ax0_ax1_0_1 / 8) * 512)) + ((data_shared_ax0_ax1_0_1 % 8) * 4))]));
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    #pragma unroll
    for (int weight_shared_ax0_ax1_0_0 = 0; weight_shared_ax0_ax1_0_0 < 32; ++weight_shared_ax0_ax1_0_0) {
      int weight_shared_ax0_ax1_0_1 = (int)get_local_id(0);
      *((__local float4*)(&weight_shared[(((((weight_shared_ax0_ax1_0_0 * 50) + weight_shared_ax0_ax1_0_1) / 8) * 32) + ((((weight_shared_ax0_ax1_0_0 * 50) + weight_shared_ax0_ax1_0_1) % 8) * 4))])) = *((__global float4*)(&weight[((((out_j_0 * 102400) + (dense_k_0 * 32)) + ((((weight_shared_ax0_ax1_0_0 * 50) + weight_shared_ax0_ax1_0_1) / 8) * 512)) + ((((weight_shared_ax0_ax1_0_0 * 50) + weight_shared_ax0_ax1_0_1) % 8) * 4))]));
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
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
    *((__global float4*)(&out[(((out_i_0 * 1000) + (out_j_0 * 200)) + (out_j_1 * 4))])) = tf_v;
  }
}
