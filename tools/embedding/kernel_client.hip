// A HIP program with kernels, written the way application code is and built the way an embedder builds one:
// `hip_binary` loaded from @hipmem//hip:defs.bzl in a workspace of its own. Kernel templates launched with <<<>>>
// and hipLaunchKernelGGL, dynamic shared memory, atomics, shuffles, __constant__ and __device__ symbols, streams
// and events around kernels, kernels reading host-pinned and managed memory, every device of the machine, and last
// an illegal address that must stick. Prints "kernel client: <n> GPU(s) OK" only when every result was checked on
// the host.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

#define CHECK_HIP(expr)                                                                        \
  do {                                                                                         \
    hipError_t e_ = (expr);                                                                    \
    if (e_ != hipSuccess) {                                                                    \
      std::fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #expr, hipGetErrorName(e_)); \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

namespace {

template <typename T>
__global__ void axpy(T a, const T* x, T* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// Rotates each block's slice by one element through dynamic shared memory.
__global__ void rotate_blocks(const int* in, int* out) {
  extern __shared__ int tile[];
  const unsigned t = threadIdx.x;
  tile[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = tile[(t + 1) % blockDim.x];
}

// A histogram of values modulo 16 in global memory, and the total through a wave-level shuffle reduction.
__global__ void histogram(const int* in, unsigned* bins, unsigned long long* total, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = i < n ? in[i] : 0;
  if (i < n) atomicAdd(&bins[v % 16], 1u);
  unsigned long long sum = static_cast<unsigned long long>(v);
  for (int offset = warpSize / 2; offset > 0; offset /= 2) sum += __shfl_down(sum, offset);
  if (__lane_id() == 0) atomicAdd(total, sum);
}

__constant__ int kOffsets[8];
__device__ unsigned launches;

__global__ void add_offsets(int* p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += kOffsets[i % 8];
  if (i == 0) atomicAdd(&launches, 1u);
}

__global__ void fill_from(const int* src, int* dst, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i] * 2;
}

__global__ void poke(int* p) { p[threadIdx.x] = 7; }

int Blocks(int n, int threads) { return (n + threads - 1) / threads; }

void Templates() {
  constexpr int kN = 3000;  // a partial last block
  std::vector<float> x(kN), y(kN);
  std::vector<double> xd(kN), yd(kN);
  for (int i = 0; i < kN; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = 1.0f;
    xd[i] = i * 0.25;
    yd[i] = -1.0;
  }
  float *dx, *dy;
  double *ddx, *ddy;
  CHECK_HIP(hipMalloc(&dx, kN * sizeof(float)));
  CHECK_HIP(hipMalloc(&dy, kN * sizeof(float)));
  CHECK_HIP(hipMalloc(&ddx, kN * sizeof(double)));
  CHECK_HIP(hipMalloc(&ddy, kN * sizeof(double)));
  CHECK_HIP(hipMemcpy(dx, x.data(), kN * sizeof(float), hipMemcpyHostToDevice));
  CHECK_HIP(hipMemcpy(dy, y.data(), kN * sizeof(float), hipMemcpyHostToDevice));
  CHECK_HIP(hipMemcpy(ddx, xd.data(), kN * sizeof(double), hipMemcpyHostToDevice));
  CHECK_HIP(hipMemcpy(ddy, yd.data(), kN * sizeof(double), hipMemcpyHostToDevice));
  axpy<float><<<Blocks(kN, 256), 256>>>(2.0f, dx, dy, kN);
  CHECK_HIP(hipGetLastError());
  hipLaunchKernelGGL(axpy<double>, dim3(Blocks(kN, 128)), dim3(128), 0, 0, 3.0, ddx, ddy, kN);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipMemcpy(y.data(), dy, kN * sizeof(float), hipMemcpyDeviceToHost));
  CHECK_HIP(hipMemcpy(yd.data(), ddy, kN * sizeof(double), hipMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i) {
    EXPECT(y[i] == 2.0f * i + 1.0f);
    EXPECT(yd[i] == 3.0 * (i * 0.25) - 1.0);
  }
  CHECK_HIP(hipFree(dx));
  CHECK_HIP(hipFree(dy));
  CHECK_HIP(hipFree(ddx));
  CHECK_HIP(hipFree(ddy));
}

void SharedMemoryAtomicsAndShuffles() {
  constexpr int kThreads = 192;
  constexpr int kBlocks = 5;
  constexpr int kN = kThreads * kBlocks;
  std::vector<int> in(kN);
  std::iota(in.begin(), in.end(), 0);
  int *din, *dout;
  unsigned* bins;
  unsigned long long* total;
  CHECK_HIP(hipMalloc(&din, kN * sizeof(int)));
  CHECK_HIP(hipMalloc(&dout, kN * sizeof(int)));
  CHECK_HIP(hipMalloc(&bins, 16 * sizeof(unsigned)));
  CHECK_HIP(hipMalloc(&total, sizeof(unsigned long long)));
  CHECK_HIP(hipMemset(bins, 0, 16 * sizeof(unsigned)));
  CHECK_HIP(hipMemset(total, 0, sizeof(unsigned long long)));
  CHECK_HIP(hipMemcpy(din, in.data(), kN * sizeof(int), hipMemcpyHostToDevice));
  rotate_blocks<<<kBlocks, kThreads, kThreads * sizeof(int)>>>(din, dout);
  histogram<<<kBlocks, kThreads>>>(din, bins, total, kN);
  std::vector<int> out(kN);
  unsigned host_bins[16];
  unsigned long long host_total = 0;
  CHECK_HIP(hipMemcpy(out.data(), dout, kN * sizeof(int), hipMemcpyDeviceToHost));
  CHECK_HIP(hipMemcpy(host_bins, bins, sizeof(host_bins), hipMemcpyDeviceToHost));
  CHECK_HIP(hipMemcpy(&host_total, total, sizeof(host_total), hipMemcpyDeviceToHost));
  for (int b = 0; b < kBlocks; ++b) {
    for (int t = 0; t < kThreads; ++t) EXPECT(out[b * kThreads + t] == b * kThreads + (t + 1) % kThreads);
  }
  for (int bin = 0; bin < 16; ++bin) EXPECT(host_bins[bin] == kN / 16);
  EXPECT(host_total == static_cast<unsigned long long>(kN) * (kN - 1) / 2);
  CHECK_HIP(hipFree(din));
  CHECK_HIP(hipFree(dout));
  CHECK_HIP(hipFree(bins));
  CHECK_HIP(hipFree(total));
}

// Symbols, and two streams whose kernels are ordered by an event.
void SymbolsStreamsAndEvents() {
  const int offsets[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  CHECK_HIP(hipMemcpyToSymbol(HIP_SYMBOL(kOffsets), offsets, sizeof(offsets)));
  const unsigned zero = 0;
  CHECK_HIP(hipMemcpyToSymbol(HIP_SYMBOL(launches), &zero, sizeof(zero)));
  constexpr int kN = 1 << 14;
  int* p;
  CHECK_HIP(hipMalloc(&p, kN * sizeof(int)));
  hipStream_t first, second;
  CHECK_HIP(hipStreamCreate(&first));
  CHECK_HIP(hipStreamCreateWithFlags(&second, hipStreamNonBlocking));
  hipEvent_t written, done;
  CHECK_HIP(hipEventCreate(&written));
  CHECK_HIP(hipEventCreate(&done));
  CHECK_HIP(hipMemsetAsync(p, 0, kN * sizeof(int), first));
  add_offsets<<<Blocks(kN, 256), 256, 0, first>>>(p, kN);
  CHECK_HIP(hipEventRecord(written, first));
  CHECK_HIP(hipStreamWaitEvent(second, written, 0));
  add_offsets<<<Blocks(kN, 256), 256, 0, second>>>(p, kN);
  CHECK_HIP(hipEventRecord(done, second));
  CHECK_HIP(hipEventSynchronize(done));
  float ms = -1;
  CHECK_HIP(hipEventElapsedTime(&ms, written, done));
  EXPECT(ms >= 0.0f);
  std::vector<int> host(kN);
  CHECK_HIP(hipMemcpy(host.data(), p, kN * sizeof(int), hipMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i) EXPECT(host[i] == 2 * offsets[i % 8]);
  unsigned count = 0;
  CHECK_HIP(hipMemcpyFromSymbol(&count, HIP_SYMBOL(launches), sizeof(count)));
  EXPECT(count == 2);
  CHECK_HIP(hipEventDestroy(written));
  CHECK_HIP(hipEventDestroy(done));
  CHECK_HIP(hipStreamDestroy(first));
  CHECK_HIP(hipStreamDestroy(second));
  CHECK_HIP(hipFree(p));
}

// Kernels reading host-pinned memory and writing managed memory the host then reads in place.
void PinnedAndManaged() {
  constexpr int kN = 4096;
  int* pinned;
  int* managed;
  CHECK_HIP(hipHostMalloc(&pinned, kN * sizeof(int)));
  CHECK_HIP(hipMallocManaged(&managed, kN * sizeof(int)));
  for (int i = 0; i < kN; ++i) {
    pinned[i] = i;
    managed[i] = -1;
  }
  fill_from<<<Blocks(kN, 256), 256>>>(pinned, managed, kN);
  CHECK_HIP(hipDeviceSynchronize());
  for (int i = 0; i < kN; ++i) EXPECT(managed[i] == 2 * i);
  CHECK_HIP(hipHostFree(pinned));
  CHECK_HIP(hipFree(managed));
}

// The last check: a kernel storing through an address nobody mapped makes the next synchronising call fail with
// hipErrorIllegalAddress, and so does every later one (the context is lost, as on hardware).
void IllegalAddressSticks() {
  poke<<<1, 64>>>(reinterpret_cast<int*>(0x10));
  const hipError_t first = hipDeviceSynchronize();
  EXPECT(first == hipErrorIllegalAddress);
  EXPECT(hipDeviceSynchronize() == hipErrorIllegalAddress);
}

}  // namespace

int main() {
  int devices = 0;
  CHECK_HIP(hipGetDeviceCount(&devices));
  EXPECT(devices > 0);
  for (int d = 0; d < devices; ++d) {
    CHECK_HIP(hipSetDevice(d));
    Templates();
    SharedMemoryAtomicsAndShuffles();
    SymbolsStreamsAndEvents();
    PinnedAndManaged();
  }
  CHECK_HIP(hipSetDevice(0));
  IllegalAddressSticks();
  std::printf("kernel client: %d GPU(s) OK\n", devices);
  return 0;
}
