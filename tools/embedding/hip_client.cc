// A HIP host program written the way application code is: <hip/hip_runtime.h>, the C++ overloads, a
// checking macro, no hipmem header. It exercises what issue #9 promises a real user (streams, events, async
// chains, memsets, pitched 2D, registered memory, typed copies, threads, peers) and prints
// "hip client: <n> GPU(s) OK" only when every result was verified on the host.
#include <hip/hip_runtime.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <thread>
#include <vector>

#define CHECK_HIP(expr)                                                                        \
  do {                                                                                         \
    hipError_t e_ = (expr);                                                                    \
    if (e_ != hipSuccess) {                                                                    \
      std::fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #expr, hipGetErrorName(e_)); \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

#define EXPECT(cond)                                                              \
  do {                                                                            \
    if (!(cond)) {                                                                \
      std::fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);    \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

namespace {

void Identity(int device) {
  hipDeviceProp_t prop;
  CHECK_HIP(hipGetDeviceProperties(&prop, device));
  EXPECT(std::strlen(prop.name) > 0);
  EXPECT(std::strncmp(prop.gcnArchName, "gfx", 3) == 0);
  EXPECT(prop.totalGlobalMem > (size_t{1} << 30));
  int cus = 0;
  CHECK_HIP(hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, device));
  EXPECT(cus == prop.multiProcessorCount && cus > 0);
  size_t free_bytes = 0, total = 0;
  CHECK_HIP(hipMemGetInfo(&free_bytes, &total));
  EXPECT(free_bytes <= total && total > 0);
}

// Typed allocation and copies both ways, with the C++ overloads.
void TypedCopies() {
  constexpr size_t kCount = 1 << 18;
  std::vector<float> in(kCount), out(kCount, -1.0f);
  std::iota(in.begin(), in.end(), 0.5f);
  float* dev = nullptr;
  CHECK_HIP(hipMalloc(&dev, kCount * sizeof(float)));
  CHECK_HIP(hipMemcpy(dev, in.data(), kCount * sizeof(float), hipMemcpyHostToDevice));
  float* dev2 = nullptr;
  CHECK_HIP(hipMalloc(&dev2, kCount * sizeof(float)));
  CHECK_HIP(hipMemcpy(dev2, dev, kCount * sizeof(float), hipMemcpyDeviceToDevice));
  CHECK_HIP(hipMemcpy(out.data(), dev2, kCount * sizeof(float), hipMemcpyDefault));
  EXPECT(out == in);
  hipPointerAttribute_t attr;
  CHECK_HIP(hipPointerGetAttributes(&attr, dev + 7));
  EXPECT(attr.type == hipMemoryTypeDevice);
  CHECK_HIP(hipFree(dev2));
  CHECK_HIP(hipFree(dev));
}

void Memsets(hipStream_t stream) {
  constexpr size_t kWords = 4096;
  uint32_t* dev = nullptr;
  CHECK_HIP(hipMalloc(&dev, kWords * sizeof(uint32_t)));
  CHECK_HIP(hipMemset(dev, 0xab, kWords * sizeof(uint32_t)));
  CHECK_HIP(hipMemsetD32Async(reinterpret_cast<hipDeviceptr_t>(dev + 100), 0x12345678u, 50, stream));
  CHECK_HIP(hipMemsetAsync(dev + 200, 0, 4 * sizeof(uint32_t), stream));
  std::vector<uint32_t> out(kWords);
  CHECK_HIP(hipMemcpyAsync(out.data(), dev, kWords * sizeof(uint32_t), hipMemcpyDeviceToHost, stream));
  CHECK_HIP(hipStreamSynchronize(stream));
  for (size_t i = 0; i < kWords; ++i) {
    uint32_t want = 0xabababab;
    if (i >= 100 && i < 150) want = 0x12345678u;
    if (i >= 200 && i < 204) want = 0;
    EXPECT(out[i] == want);
  }
  CHECK_HIP(hipFree(dev));
}

// Pinned H2D on one stream, then D2D and D2H on another that waits on an event: the host blocks only at the end.
void AsyncChain() {
  constexpr size_t kBytes = 8 << 20;
  hipStream_t s1, s2;
  CHECK_HIP(hipStreamCreate(&s1));
  CHECK_HIP(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));
  hipEvent_t start, copied, stop;
  CHECK_HIP(hipEventCreate(&start));
  CHECK_HIP(hipEventCreateWithFlags(&copied, hipEventDisableTiming));
  CHECK_HIP(hipEventCreate(&stop));
  unsigned char* pinned_in = nullptr;
  unsigned char* pinned_out = nullptr;
  CHECK_HIP(hipHostMalloc(&pinned_in, kBytes));
  CHECK_HIP(hipHostMalloc(&pinned_out, kBytes, hipHostMallocDefault));
  for (size_t i = 0; i < kBytes; ++i) pinned_in[i] = static_cast<unsigned char>(i * 7 + 3);
  std::memset(pinned_out, 0, kBytes);
  void *a = nullptr, *b = nullptr;
  CHECK_HIP(hipMalloc(&a, kBytes));
  CHECK_HIP(hipMalloc(&b, kBytes));

  CHECK_HIP(hipEventRecord(start, s1));
  CHECK_HIP(hipMemcpyAsync(a, pinned_in, kBytes, hipMemcpyHostToDevice, s1));
  CHECK_HIP(hipEventRecord(copied, s1));
  CHECK_HIP(hipStreamWaitEvent(s2, copied, 0));
  CHECK_HIP(hipMemcpyAsync(b, a, kBytes, hipMemcpyDeviceToDevice, s2));
  std::atomic<int> callbacks{0};
  CHECK_HIP(hipLaunchHostFunc(s2, [](void* n) { static_cast<std::atomic<int>*>(n)->fetch_add(1); }, &callbacks));
  CHECK_HIP(hipMemcpyAsync(pinned_out, b, kBytes, hipMemcpyDeviceToHost, s2));
  CHECK_HIP(hipEventRecord(stop, s2));
  CHECK_HIP(hipEventSynchronize(stop));
  EXPECT(hipEventQuery(stop) == hipSuccess);
  EXPECT(hipStreamQuery(s2) == hipSuccess);
  EXPECT(callbacks.load() == 1);
  EXPECT(std::memcmp(pinned_in, pinned_out, kBytes) == 0);
  float ms = -1;
  CHECK_HIP(hipEventElapsedTime(&ms, start, stop));
  EXPECT(ms >= 0);
  EXPECT(hipEventElapsedTime(&ms, start, copied) == hipErrorInvalidHandle);  // copied has no timing

  CHECK_HIP(hipFree(a));
  CHECK_HIP(hipFree(b));
  CHECK_HIP(hipHostFree(pinned_in));
  CHECK_HIP(hipHostFree(pinned_out));
  CHECK_HIP(hipEventDestroy(start));
  CHECK_HIP(hipEventDestroy(copied));
  CHECK_HIP(hipEventDestroy(stop));
  CHECK_HIP(hipStreamDestroy(s1));
  CHECK_HIP(hipStreamDestroy(s2));
}

// A pitched 2D buffer: a host matrix in, a memset of a sub-rectangle, the matrix back.
void Pitched2D(hipStream_t stream) {
  constexpr size_t kWidth = 100, kHeight = 37;  // in ints
  int* dev = nullptr;
  size_t pitch = 0;
  CHECK_HIP(hipMallocPitch(reinterpret_cast<void**>(&dev), &pitch, kWidth * sizeof(int), kHeight));
  EXPECT(pitch >= kWidth * sizeof(int));
  std::vector<int> host(kWidth * kHeight);
  std::iota(host.begin(), host.end(), 1);
  CHECK_HIP(hipMemcpy2D(dev, pitch, host.data(), kWidth * sizeof(int), kWidth * sizeof(int), kHeight,
                        hipMemcpyHostToDevice));
  // Zero columns [10, 20) of rows [5, 15).
  char* corner = reinterpret_cast<char*>(dev) + 5 * pitch + 10 * sizeof(int);
  CHECK_HIP(hipMemset2DAsync(corner, pitch, 0, 10 * sizeof(int), 10, stream));
  std::vector<int> out(kWidth * kHeight, -1);
  CHECK_HIP(hipMemcpy2DAsync(out.data(), kWidth * sizeof(int), dev, pitch, kWidth * sizeof(int), kHeight,
                             hipMemcpyDeviceToHost, stream));
  CHECK_HIP(hipStreamSynchronize(stream));
  for (size_t r = 0; r < kHeight; ++r) {
    for (size_t c = 0; c < kWidth; ++c) {
      const bool zeroed = r >= 5 && r < 15 && c >= 10 && c < 20;
      EXPECT(out[r * kWidth + c] == (zeroed ? 0 : host[r * kWidth + c]));
    }
  }
  EXPECT(hipMemcpy2D(dev, pitch, host.data(), kWidth * sizeof(int), pitch + 1, 1, hipMemcpyHostToDevice) ==
         hipErrorInvalidPitchValue);  // width beyond the pitch
  CHECK_HIP(hipFree(dev));
}

// The caller's own memory, registered: copies use it directly and the GPU address works too.
void Registered() {
  constexpr size_t kBytes = 1 << 20;
  void* mem = std::aligned_alloc(4096, kBytes);
  EXPECT(mem != nullptr);
  std::memset(mem, 0x5a, kBytes);
  CHECK_HIP(hipHostRegister(mem, kBytes, hipHostRegisterDefault));
  void* gpu_view = nullptr;
  CHECK_HIP(hipHostGetDevicePointer(&gpu_view, mem, 0));
  EXPECT(gpu_view != nullptr);
  unsigned int flags = 99;
  EXPECT(hipHostGetFlags(&flags, mem) == hipErrorInvalidValue);  // only hipHostMalloc memory has host flags
  (void)hipGetLastError();
  void* dev = nullptr;
  CHECK_HIP(hipMalloc(&dev, kBytes));
  CHECK_HIP(hipMemcpy(dev, mem, kBytes, hipMemcpyHostToDevice));
  CHECK_HIP(hipMemset(dev, 0x11, kBytes / 2));
  CHECK_HIP(hipMemcpy(mem, dev, kBytes, hipMemcpyDeviceToHost));
  const unsigned char* bytes = static_cast<const unsigned char*>(mem);
  EXPECT(bytes[0] == 0x11 && bytes[kBytes / 2 - 1] == 0x11 && bytes[kBytes / 2] == 0x5a &&
         bytes[kBytes - 1] == 0x5a);
  // The GPU address is the same memory to every copy.
  CHECK_HIP(hipMemset(dev, 0, kBytes));
  CHECK_HIP(hipMemcpy(dev, gpu_view, kBytes, hipMemcpyDeviceToDevice));
  unsigned char probe[2] = {};
  CHECK_HIP(hipMemcpy(&probe[0], dev, 1, hipMemcpyDeviceToHost));
  CHECK_HIP(hipMemcpy(&probe[1], static_cast<char*>(dev) + kBytes - 1, 1, hipMemcpyDeviceToHost));
  EXPECT(probe[0] == 0x11 && probe[1] == 0x5a);
  CHECK_HIP(hipFree(dev));
  CHECK_HIP(hipHostUnregister(mem));
  EXPECT(hipHostUnregister(mem) == hipErrorHostMemoryNotRegistered);
  std::free(mem);
}

// Threads, each with its own stream and buffers, on one device at the same time.
void Threads(int device) {
  constexpr int kThreads = 4;
  std::atomic<int> good{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, device, &good] {
      CHECK_HIP(hipSetDevice(device));
      hipStream_t stream;
      CHECK_HIP(hipStreamCreate(&stream));
      std::vector<int> in(1 << 16, t + 1), out(1 << 16, 0);
      int* dev = nullptr;
      CHECK_HIP(hipMalloc(&dev, in.size() * sizeof(int)));
      for (int round = 0; round < 8; ++round) {
        CHECK_HIP(hipMemcpyAsync(dev, in.data(), in.size() * sizeof(int), hipMemcpyHostToDevice, stream));
        CHECK_HIP(hipMemcpyAsync(out.data(), dev, in.size() * sizeof(int), hipMemcpyDeviceToHost, stream));
        CHECK_HIP(hipStreamSynchronize(stream));
        if (out != in) return;
        in[round] = -round;
      }
      CHECK_HIP(hipFree(dev));
      CHECK_HIP(hipStreamDestroy(stream));
      good.fetch_add(1);
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT(good.load() == kThreads);
}

// Device 0's buffer copied to device 1 directly, with and without peer access.
void Peers(int count) {
  if (count < 2) return;
  int can = -1;
  CHECK_HIP(hipDeviceCanAccessPeer(&can, 0, 1));
  constexpr size_t kBytes = 4 << 20;
  std::vector<unsigned char> in(kBytes), out(kBytes, 0);
  for (size_t i = 0; i < kBytes; ++i) in[i] = static_cast<unsigned char>(i ^ (i >> 9));
  void *d0 = nullptr, *d1 = nullptr;
  CHECK_HIP(hipSetDevice(0));
  CHECK_HIP(hipMalloc(&d0, kBytes));
  CHECK_HIP(hipMemcpy(d0, in.data(), kBytes, hipMemcpyHostToDevice));
  if (can) CHECK_HIP(hipDeviceEnablePeerAccess(1, 0));
  CHECK_HIP(hipSetDevice(1));
  CHECK_HIP(hipMalloc(&d1, kBytes));
  CHECK_HIP(hipMemcpyPeer(d1, 1, d0, 0, kBytes));
  CHECK_HIP(hipMemcpy(out.data(), d1, kBytes, hipMemcpyDeviceToHost));
  EXPECT(in == out);
  hipPointerAttribute_t attr;
  CHECK_HIP(hipPointerGetAttributes(&attr, d1));
  EXPECT(attr.device == 1);
  CHECK_HIP(hipFree(d1));
  CHECK_HIP(hipSetDevice(0));
  CHECK_HIP(hipFree(d0));
}

void Errors() {
  // The sections before made deliberate mistakes; the last of them is still the thread's last error (only a read
  // clears it, as in current CLR).
  (void)hipGetLastError();
  EXPECT(hipGetLastError() == hipSuccess);
  EXPECT(hipMalloc(nullptr, 16) == hipErrorInvalidValue);
  int device = -1;
  CHECK_HIP(hipGetDevice(&device));
  EXPECT(hipPeekAtLastError() == hipErrorInvalidValue);  // a success does not clear it
  EXPECT(hipGetLastError() == hipErrorInvalidValue);
  EXPECT(hipMemcpy(nullptr, nullptr, 16, hipMemcpyHostToDevice) == hipErrorInvalidValue);
  EXPECT(hipGetLastError() == hipErrorInvalidValue);
  EXPECT(hipGetLastError() == hipSuccess);
  int x = 0;
  EXPECT(hipFree(&x) == hipErrorInvalidValue);
  EXPECT(hipSetDevice(1000) == hipErrorInvalidDevice);
  (void)hipGetLastError();
}

}  // namespace

int main() {
  int count = 0;
  CHECK_HIP(hipGetDeviceCount(&count));
  EXPECT(count > 0);
  for (int device = 0; device < count; ++device) {
    CHECK_HIP(hipSetDevice(device));
    Identity(device);
    TypedCopies();
    hipStream_t stream;
    CHECK_HIP(hipStreamCreate(&stream));
    Memsets(stream);
    AsyncChain();
    Pitched2D(stream);
    Registered();
    CHECK_HIP(hipStreamDestroy(stream));
    Threads(device);
  }
  Peers(count);
  Errors();
  CHECK_HIP(hipDeviceSynchronize());
  std::printf("hip client: %d GPU(s) OK\n", count);
  return 0;
}
