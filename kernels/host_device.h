// WEFT_HOST_DEVICE marks small functions of headers shared by the CPU and
// CUDA kernels as callable from both (__host__ __device__ under nvcc,
// nothing for the host compiler).
#ifndef WEFT_KERNELS_HOST_DEVICE_H_
#define WEFT_KERNELS_HOST_DEVICE_H_

#ifdef __CUDACC__
#define WEFT_HOST_DEVICE __host__ __device__
#else
#define WEFT_HOST_DEVICE
#endif

#endif  // WEFT_KERNELS_HOST_DEVICE_H_
