// tunefarm-launch entry=tf_kernel grid=4,1,1 block=512,1,1 shared=0
extern "C" __device__ const char tf_launch[] = "// tunefarm-launch entry=tf_kernel grid=4,1,1 block=512,1,1 shared=0";
#define TF_INF __int_as_float(0x7f800000)
extern "C"
__global__ void __launch_bounds__(512) tf_kernel(float* __restrict__ data, long long* __restrict__ indices, float* __restrict__ out) {
  int out_i0_i1_i2_0 = blockIdx.x;
  int out_i0_i1_i2_1 = threadIdx.x;
  out[(((((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 128) * 128) + (((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) % 128))] = data[((((((((((int)(indices[(((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 128)])) < 0) ? (((int)(indices[(((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 128)])) + 30522) : ((int)(indices[(((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 128)])))) < (30521) ? (((((int)(indices[(((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 128)])) < 0) ? (((int)(indices[(((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 128)])) + 30522) : ((int)(indices[(((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 128)])))) : (30521))) > (0) ? (((((((int)(indices[(((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 128)])) < 0) ? (((int)(indices[(((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 128)])) + 30522) : ((int)(indices[(((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 128)])))) < (30521) ? (((((int)(indices[(((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 128)])) < 0) ? (((int)(indices[(((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 128)])) + 30522) : ((int)(indices[(((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) / 128)])))) : (30521))) : (0)) * 128) + (((out_i0_i1_i2_0 * 512) + out_i0_i1_i2_1) % 128))];
}
