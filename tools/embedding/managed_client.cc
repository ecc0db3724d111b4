// A HIP host program that uses managed memory the way application code does: <hip/hip_runtime.h>, the C++
// overloads, a checking macro, no hipmem header. It allocates with hipMallocManaged, gives advice, prefetches
// to every GPU and back to the CPU on streams, lets the GPU's engines and the CPU touch the same pages, and
// reads the advice back with hipMemRangeGetAttribute(s). It prints "managed client: <n> GPU(s) OK" only when
// every result was verified on the host.
#include <hip/hip_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK_HIP(expr)                                                                          \
  do {                                                                                           \
    hipError_t e_ = (expr);                                                                      \
    if (e_ != hipSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #expr, hipGetErrorName(e_)); \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)

#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

#define EXPECT_ERROR(expr, code)                                                               \
  do {                                                                                         \
    hipError_t e_ = (expr);                                                                    \
    if (e_ != (code)) {                                                                        \
      std::fprintf(stderr, "%s:%d: %s -> %s, expected %s\n", __FILE__, __LINE__, #expr,        \
                   hipGetErrorName(e_), hipGetErrorName(code));                                \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

namespace {

constexpr size_t kBytes = size_t{32} << 20;
constexpr size_t kCount = kBytes / sizeof(uint32_t);

uint32_t Pattern(size_t i, uint32_t seed) { return static_cast<uint32_t>(i * 2654435761u) ^ seed; }

void Fill(uint32_t* p, uint32_t seed) {
  for (size_t i = 0; i < kCount; ++i) p[i] = Pattern(i, seed);
}

bool Holds(const uint32_t* p, uint32_t seed) {
  for (size_t i = 0; i < kCount; ++i) {
    if (p[i] != Pattern(i, seed)) {
      std::fprintf(stderr, "word %zu: %08x, expected %08x\n", i, p[i], Pattern(i, seed));
      return false;
    }
  }
  return true;
}

int RangeInt(hipMemRangeAttribute attribute, const void* p, size_t bytes) {
  int value = -100;
  CHECK_HIP(hipMemRangeGetAttribute(&value, sizeof(value), attribute, p, bytes));
  return value;
}

// Managed memory is a pointer the CPU and every GPU share: the pointer attributes say so.
void PointerAttributes(const void* p) {
  hipPointerAttribute_t attr;
  std::memset(&attr, 0, sizeof(attr));
  CHECK_HIP(hipPointerGetAttributes(&attr, p));
  EXPECT(attr.type == hipMemoryTypeManaged);
  EXPECT(attr.isManaged == 1);
  EXPECT(attr.devicePointer == p);
  EXPECT(attr.hostPointer == p);
}

// Advice reads back through hipMemRangeGetAttribute, and unsetting it takes it away again.
void Advice(uint32_t* m, int device) {
  CHECK_HIP(hipMemAdvise(m, kBytes, hipMemAdviseSetPreferredLocation, device));
  EXPECT(RangeInt(hipMemRangeAttributePreferredLocation, m, kBytes) == device);
  CHECK_HIP(hipMemAdvise(m, kBytes, hipMemAdviseUnsetPreferredLocation, device));
  EXPECT(RangeInt(hipMemRangeAttributePreferredLocation, m, kBytes) == hipInvalidDeviceId);

  CHECK_HIP(hipMemAdvise(m, kBytes, hipMemAdviseSetReadMostly, device));
  EXPECT(RangeInt(hipMemRangeAttributeReadMostly, m, kBytes) == 1);
  CHECK_HIP(hipMemAdvise(m, kBytes, hipMemAdviseUnsetReadMostly, device));
  EXPECT(RangeInt(hipMemRangeAttributeReadMostly, m, kBytes) == 0);

  CHECK_HIP(hipMemAdvise(m, kBytes, hipMemAdviseSetAccessedBy, device));
  int accessed_by[8];
  for (int& a : accessed_by) a = -100;
  CHECK_HIP(hipMemRangeGetAttribute(accessed_by, sizeof(accessed_by), hipMemRangeAttributeAccessedBy, m, kBytes));
  bool found = false;
  for (int a : accessed_by) found = found || a == device;
  EXPECT(found);
  CHECK_HIP(hipMemAdvise(m, kBytes, hipMemAdviseUnsetAccessedBy, device));
  for (int& a : accessed_by) a = -100;
  CHECK_HIP(hipMemRangeGetAttribute(accessed_by, sizeof(accessed_by), hipMemRangeAttributeAccessedBy, m, kBytes));
  for (int a : accessed_by) EXPECT(a != device);

  // Several attributes in one call, into caller-sized slots.
  CHECK_HIP(hipMemAdvise(m, kBytes, hipMemAdviseSetPreferredLocation, device));
  int preferred = -100, read_mostly = -100;
  void* data[] = {&preferred, &read_mostly};
  size_t sizes[] = {sizeof(preferred), sizeof(read_mostly)};
  hipMemRangeAttribute attrs[] = {hipMemRangeAttributePreferredLocation, hipMemRangeAttributeReadMostly};
  CHECK_HIP(hipMemRangeGetAttributes(data, sizes, attrs, 2, m, kBytes));
  EXPECT(preferred == device);
  EXPECT(read_mostly == 0);
  CHECK_HIP(hipMemAdvise(m, kBytes, hipMemAdviseUnsetPreferredLocation, device));
}

// Prefetch to a GPU and back, stream-ordered, with the GPU's engines writing in between; the CPU sees
// everything the engines wrote, and VRAM is used while the range lives there.
void PrefetchBothWays(uint32_t* m, int device) {
  CHECK_HIP(hipSetDevice(device));
  hipStream_t stream;
  CHECK_HIP(hipStreamCreate(&stream));
  Fill(m, 0x1000u + device);
  uint32_t* dev = nullptr;
  CHECK_HIP(hipMalloc(&dev, kBytes));

  size_t free_before = 0, total = 0;
  CHECK_HIP(hipMemGetInfo(&free_before, &total));
  CHECK_HIP(hipMemPrefetchAsync(m, kBytes, device, stream));
  CHECK_HIP(hipStreamSynchronize(stream));
  EXPECT(RangeInt(hipMemRangeAttributeLastPrefetchLocation, m, kBytes) == device);
  size_t free_resident = 0;
  CHECK_HIP(hipMemGetInfo(&free_resident, &total));
  EXPECT(free_resident + kBytes <= free_before);

  // Device memory and managed memory copy both ways on the GPU while the range lives in VRAM.
  CHECK_HIP(hipMemcpyAsync(dev, m, kBytes, hipMemcpyDefault, stream));
  CHECK_HIP(hipMemsetAsync(m, 0, kBytes, stream));
  CHECK_HIP(hipMemcpyAsync(m, dev, kBytes / 2, hipMemcpyDefault, stream));
  // Back to the CPU behind the copies on the same stream: no host wait in between.
  CHECK_HIP(hipMemPrefetchAsync(m, kBytes, hipCpuDeviceId, stream));
  CHECK_HIP(hipStreamSynchronize(stream));
  EXPECT(RangeInt(hipMemRangeAttributeLastPrefetchLocation, m, kBytes) == hipCpuDeviceId);
  for (size_t i = 0; i < kCount; ++i) {
    const uint32_t want = i < kCount / 2 ? Pattern(i, 0x1000u + device) : 0u;
    if (m[i] != want) {
      std::fprintf(stderr, "device %d word %zu: %08x, expected %08x\n", device, i, m[i], want);
      std::exit(1);
    }
  }
  size_t free_after = 0;
  CHECK_HIP(hipMemGetInfo(&free_after, &total));
  EXPECT(free_after >= free_resident + kBytes);

  // The CPU may touch managed memory wherever it lives: a range prefetched to VRAM comes back on a touch.
  Fill(m, 0x2000u + device);
  CHECK_HIP(hipMemPrefetchAsync(m, kBytes, device, stream));
  CHECK_HIP(hipStreamSynchronize(stream));
  EXPECT(Holds(m, 0x2000u + device));
  m[7] = 0xfeedfaceu;
  CHECK_HIP(hipMemcpy(dev, m, kBytes, hipMemcpyDefault));
  std::vector<uint32_t> back(kCount);
  CHECK_HIP(hipMemcpy(back.data(), dev, kBytes, hipMemcpyDeviceToHost));
  EXPECT(back[7] == 0xfeedfaceu);
  EXPECT(back[8] == Pattern(8, 0x2000u + device));

  CHECK_HIP(hipFree(dev));
  CHECK_HIP(hipStreamDestroy(stream));
}

// Bad input is refused with CLR's codes, and nothing is allocated.
void BadInput(int devices) {
  void* p = nullptr;
  EXPECT_ERROR(hipMallocManaged(&p, 0, hipMemAttachGlobal), hipErrorInvalidValue);
  EXPECT_ERROR(hipMallocManaged(&p, 4096, 0), hipErrorInvalidValue);
  EXPECT_ERROR(hipMallocManaged(static_cast<void**>(nullptr), 4096, hipMemAttachGlobal), hipErrorInvalidValue);
  CHECK_HIP(hipMallocManaged(&p, 4096, hipMemAttachGlobal));
  EXPECT_ERROR(hipMemPrefetchAsync(p, 4096, devices, nullptr), hipErrorInvalidDevice);
  EXPECT_ERROR(hipMemPrefetchAsync(p, 0, 0, nullptr), hipErrorInvalidValue);
  EXPECT_ERROR(hipMemPrefetchAsync(p, 8192, 0, nullptr), hipErrorInvalidValue);
  int value = 0;
  EXPECT_ERROR(hipMemRangeGetAttribute(&value, sizeof(value), hipMemRangeAttributeReadMostly, nullptr, 4096),
               hipErrorInvalidValue);
  CHECK_HIP(hipStreamAttachMemAsync(nullptr, p, 0, hipMemAttachGlobal));
  EXPECT_ERROR(hipStreamAttachMemAsync(nullptr, p, 0, hipMemAttachSingle), hipErrorInvalidValue);
  CHECK_HIP(hipFree(p));
  (void)hipGetLastError();
}

}  // namespace

int main() {
  int devices = 0;
  CHECK_HIP(hipGetDeviceCount(&devices));
  EXPECT(devices > 0);
  for (int d = 0; d < devices; ++d) {
    int managed = 0;
    CHECK_HIP(hipDeviceGetAttribute(&managed, hipDeviceAttributeManagedMemory, d));
    EXPECT(managed == 1);
  }

  uint32_t* m = nullptr;
  CHECK_HIP(hipMallocManaged(&m, kBytes));
  PointerAttributes(m);
  PointerAttributes(m + 100);
  Fill(m, 1);
  EXPECT(Holds(m, 1));
  CHECK_HIP(hipStreamAttachMemAsync(nullptr, m, 0, hipMemAttachGlobal));
  for (int d = 0; d < devices; ++d) Advice(m, d);
  for (int d = 0; d < devices; ++d) PrefetchBothWays(m, d);
  if (devices > 1) {
    // From one GPU's VRAM straight to another's: the data follows the range.
    Fill(m, 3);
    CHECK_HIP(hipMemPrefetchAsync(m, kBytes, 0, nullptr));
    CHECK_HIP(hipMemPrefetchAsync(m, kBytes, 1, nullptr));
    CHECK_HIP(hipDeviceSynchronize());
    EXPECT(RangeInt(hipMemRangeAttributeLastPrefetchLocation, m, kBytes) == 1);
    EXPECT(Holds(m, 3));
  }
  CHECK_HIP(hipFree(m));
  BadInput(devices);
  std::printf("managed client: %d GPU(s) OK\n", devices);
  return 0;
}
