// A HIP host program using stream-ordered allocation the way application code does: <hip/hip_runtime.h> only, a
// checking macro, plain exit codes, no hipmem header. It checks what issue 10 promises a user of memory pools
// (pool hits and the reuse accounting, cross-stream reuse that never lets earlier work land on new data, trimming,
// explicit pools, access for a peer GPU) and prints "pool client: <n> GPU(s) OK" only when every result was
// verified on the host.
#include <hip/hip_runtime.h>

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
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

namespace {

constexpr size_t kMiB = size_t{1} << 20;

uint64_t PoolAttr(hipMemPool_t pool, hipMemPoolAttr attr) {
  uint64_t value = 0;
  CHECK_HIP(hipMemPoolGetAttribute(pool, attr, &value));
  return value;
}

void SetPoolAttr(hipMemPool_t pool, hipMemPoolAttr attr, uint64_t value) {
  CHECK_HIP(hipMemPoolSetAttribute(pool, attr, &value));
}

void SetReuseFlag(hipMemPool_t pool, hipMemPoolAttr attr, int on) { CHECK_HIP(hipMemPoolSetAttribute(pool, attr, &on)); }

// Work queued on a stream after Hold() waits until Release(): stands in for a long kernel still using a buffer.
class Gate {
 public:
  void Hold(hipStream_t stream) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      open_ = false;
    }
    CHECK_HIP(hipLaunchHostFunc(stream, &Gate::Wait, this));
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  static void Wait(void* self) {
    Gate* gate = static_cast<Gate*>(self);
    std::unique_lock<std::mutex> lock(gate->mu_);
    gate->cv_.wait(lock, [gate] { return gate->open_; });
  }
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = true;
};

bool AllBytes(const std::vector<unsigned char>& v, unsigned char want) {
  for (unsigned char c : v) {
    if (c != want) return false;
  }
  return true;
}

// Allocations that hit the pool's cache, and the four usage counters, exact.
void PoolHits(int device) {
  hipMemPool_t pool = nullptr;
  CHECK_HIP(hipDeviceGetMemPool(&pool, device));
  hipMemPool_t def = nullptr;
  CHECK_HIP(hipDeviceGetDefaultMemPool(&def, device));
  EXPECT(pool == def);
  SetPoolAttr(pool, hipMemPoolAttrReleaseThreshold, UINT64_MAX);  // keep freed memory cached across syncs
  CHECK_HIP(hipDeviceSynchronize());
  CHECK_HIP(hipMemPoolTrimTo(pool, 0));
  SetPoolAttr(pool, hipMemPoolAttrReservedMemHigh, 0);
  SetPoolAttr(pool, hipMemPoolAttrUsedMemHigh, 0);
  EXPECT(PoolAttr(pool, hipMemPoolAttrReservedMemCurrent) == 0);

  hipStream_t stream;
  CHECK_HIP(hipStreamCreate(&stream));
  void* a = nullptr;
  CHECK_HIP(hipMallocAsync(&a, kMiB, stream));
  EXPECT(PoolAttr(pool, hipMemPoolAttrUsedMemCurrent) == kMiB);
  EXPECT(PoolAttr(pool, hipMemPoolAttrReservedMemCurrent) == kMiB);
  std::vector<unsigned char> out(kMiB);
  CHECK_HIP(hipMemsetAsync(a, 0x21, kMiB, stream));
  CHECK_HIP(hipMemcpyAsync(out.data(), a, kMiB, hipMemcpyDeviceToHost, stream));
  CHECK_HIP(hipFreeAsync(a, stream));
  EXPECT(PoolAttr(pool, hipMemPoolAttrUsedMemCurrent) == 0);
  EXPECT(PoolAttr(pool, hipMemPoolAttrReservedMemCurrent) == kMiB);

  // A hit: same stream, same size, the cached block at no new reservation.
  void* b = nullptr;
  CHECK_HIP(hipMallocAsync(&b, kMiB, stream));
  EXPECT(b == a);
  EXPECT(PoolAttr(pool, hipMemPoolAttrReservedMemCurrent) == kMiB);
  void* c = nullptr;
  CHECK_HIP(hipMallocAsync(&c, kMiB, stream));
  EXPECT(c != b);
  EXPECT(PoolAttr(pool, hipMemPoolAttrUsedMemCurrent) == 2 * kMiB);
  EXPECT(PoolAttr(pool, hipMemPoolAttrReservedMemCurrent) == 2 * kMiB);
  CHECK_HIP(hipMemsetAsync(b, 0x43, kMiB, stream));
  CHECK_HIP(hipMemcpyAsync(c, b, kMiB, hipMemcpyDeviceToDevice, stream));
  std::vector<unsigned char> copied(kMiB);
  CHECK_HIP(hipMemcpyAsync(copied.data(), c, kMiB, hipMemcpyDeviceToHost, stream));
  CHECK_HIP(hipFreeAsync(b, stream));
  CHECK_HIP(hipFreeAsync(c, stream));
  CHECK_HIP(hipStreamSynchronize(stream));
  EXPECT(AllBytes(out, 0x21));
  EXPECT(AllBytes(copied, 0x43));
  EXPECT(PoolAttr(pool, hipMemPoolAttrUsedMemCurrent) == 0);
  EXPECT(PoolAttr(pool, hipMemPoolAttrReservedMemCurrent) == 2 * kMiB);  // the threshold keeps both
  EXPECT(PoolAttr(pool, hipMemPoolAttrUsedMemHigh) == 2 * kMiB);
  EXPECT(PoolAttr(pool, hipMemPoolAttrReservedMemHigh) == 2 * kMiB);

  // Many hits in a row reserve nothing more.
  for (int i = 0; i < 100; ++i) {
    void* p = nullptr;
    CHECK_HIP(hipMallocAsync(&p, kMiB, stream));
    CHECK_HIP(hipFreeAsync(p, stream));
  }
  CHECK_HIP(hipStreamSynchronize(stream));
  EXPECT(PoolAttr(pool, hipMemPoolAttrReservedMemCurrent) == 2 * kMiB);

  // Back to the default threshold: a synchronisation gives the cache back.
  SetPoolAttr(pool, hipMemPoolAttrReleaseThreshold, 0);
  CHECK_HIP(hipStreamSynchronize(stream));
  EXPECT(PoolAttr(pool, hipMemPoolAttrReservedMemCurrent) == 0);
  CHECK_HIP(hipStreamDestroy(stream));
}

// A block freed on stream A while A still has work queued that writes it, then allocated on stream B: whatever
// the pool decides (a new block, a wait for A's work, or reuse after an event), A's write never lands in B's data.
void CrossStreamReuse(int device) {
  hipMemPool_t pool = nullptr;
  CHECK_HIP(hipDeviceGetMemPool(&pool, device));
  constexpr size_t kBytes = 256 << 10;
  hipStream_t a_stream, b_stream;
  CHECK_HIP(hipStreamCreateWithFlags(&a_stream, hipStreamNonBlocking));
  CHECK_HIP(hipStreamCreateWithFlags(&b_stream, hipStreamNonBlocking));
  hipEvent_t after_free;
  CHECK_HIP(hipEventCreate(&after_free));
  struct Rules {
    int events, opportunistic, internal;
    bool wait_event;
  };
  const Rules cases[] = {
      {1, 1, 1, false},  // defaults
      {0, 1, 0, false},  // opportunistic only: the pending block cannot be taken
      {0, 0, 1, false},  // internal dependencies only
      {1, 0, 0, true},   // event dependencies: B waited for an event recorded after the free
  };
  for (const Rules& r : cases) {
    SetReuseFlag(pool, hipMemPoolReuseFollowEventDependencies, r.events);
    SetReuseFlag(pool, hipMemPoolReuseAllowOpportunistic, r.opportunistic);
    SetReuseFlag(pool, hipMemPoolReuseAllowInternalDependencies, r.internal);
    Gate gate;
    gate.Hold(a_stream);
    void* a = nullptr;
    CHECK_HIP(hipMallocAsync(&a, kBytes, a_stream));
    CHECK_HIP(hipMemsetAsync(a, 0xaa, kBytes, a_stream));  // still queued behind the gate
    CHECK_HIP(hipFreeAsync(a, a_stream));
    if (r.wait_event) {
      CHECK_HIP(hipEventRecord(after_free, a_stream));
      CHECK_HIP(hipStreamWaitEvent(b_stream, after_free, 0));
    }
    void* b = nullptr;
    CHECK_HIP(hipMallocAsync(&b, kBytes, b_stream));
    if (r.events == 0 && r.internal == 0) EXPECT(b != a);  // nothing makes the pending block safe for B
    if (r.wait_event) EXPECT(b == a);                      // the event orders B after the free
    CHECK_HIP(hipMemsetAsync(b, 0xbb, kBytes, b_stream));
    // Released before anything that may block the host on B: B's work can be waiting for A's.
    gate.Release();
    std::vector<unsigned char> out(kBytes, 0);
    CHECK_HIP(hipMemcpyAsync(out.data(), b, kBytes, hipMemcpyDeviceToHost, b_stream));
    CHECK_HIP(hipStreamSynchronize(b_stream));
    CHECK_HIP(hipStreamSynchronize(a_stream));
    EXPECT(AllBytes(out, 0xbb));
    CHECK_HIP(hipFreeAsync(b, b_stream));
    CHECK_HIP(hipStreamSynchronize(b_stream));
  }
  SetReuseFlag(pool, hipMemPoolReuseFollowEventDependencies, 1);
  SetReuseFlag(pool, hipMemPoolReuseAllowOpportunistic, 1);
  SetReuseFlag(pool, hipMemPoolReuseAllowInternalDependencies, 1);
  EXPECT(PoolAttr(pool, hipMemPoolAttrUsedMemCurrent) == 0);
  CHECK_HIP(hipEventDestroy(after_free));
  CHECK_HIP(hipStreamDestroy(a_stream));
  CHECK_HIP(hipStreamDestroy(b_stream));
}

hipMemPool_t CreatePool(int device, size_t max_size) {
  hipMemPoolProps props = {};
  props.allocType = hipMemAllocationTypePinned;
  props.handleTypes = hipMemHandleTypeNone;
  props.location.type = hipMemLocationTypeDevice;
  props.location.id = device;
  props.maxSize = max_size;
  hipMemPool_t pool = nullptr;
  CHECK_HIP(hipMemPoolCreate(&pool, &props));
  return pool;
}

// hipMemPoolTrimTo gives cached memory back but never blocks in use, and keeps at least what was asked for.
void Trim(int device) {
  hipMemPool_t pool = CreatePool(device, 0);
  SetPoolAttr(pool, hipMemPoolAttrReleaseThreshold, UINT64_MAX);
  hipStream_t stream;
  CHECK_HIP(hipStreamCreate(&stream));
  void* p[4] = {};
  for (void*& q : p) CHECK_HIP(hipMallocFromPoolAsync(&q, kMiB, pool, stream));
  for (int i = 1; i < 4; ++i) CHECK_HIP(hipFreeAsync(p[i], stream));
  CHECK_HIP(hipStreamSynchronize(stream));
  EXPECT(PoolAttr(pool, hipMemPoolAttrReservedMemCurrent) == 4 * kMiB);
  CHECK_HIP(hipMemPoolTrimTo(pool, 2 * kMiB + kMiB / 2));
  const uint64_t trimmed = PoolAttr(pool, hipMemPoolAttrReservedMemCurrent);
  EXPECT(trimmed >= 2 * kMiB + kMiB / 2 && trimmed <= 4 * kMiB);
  CHECK_HIP(hipMemPoolTrimTo(pool, 0));
  EXPECT(PoolAttr(pool, hipMemPoolAttrReservedMemCurrent) == kMiB);  // the block in use stays
  EXPECT(PoolAttr(pool, hipMemPoolAttrUsedMemCurrent) == kMiB);
  CHECK_HIP(hipMemsetAsync(p[0], 0x5e, kMiB, stream));
  std::vector<unsigned char> out(kMiB);
  CHECK_HIP(hipMemcpyAsync(out.data(), p[0], kMiB, hipMemcpyDeviceToHost, stream));
  CHECK_HIP(hipFreeAsync(p[0], stream));
  CHECK_HIP(hipStreamSynchronize(stream));
  EXPECT(AllBytes(out, 0x5e));
  CHECK_HIP(hipMemPoolTrimTo(pool, 0));
  EXPECT(PoolAttr(pool, hipMemPoolAttrReservedMemCurrent) == 0);
  EXPECT(PoolAttr(pool, hipMemPoolAttrReservedMemHigh) == 4 * kMiB);
  CHECK_HIP(hipStreamDestroy(stream));
  CHECK_HIP(hipMemPoolDestroy(pool));
}

// An explicit, bounded pool: made, set as the device's pool, drawn from both ways, destroyed with an allocation
// still out (freed afterwards), and the default pool current again.
void ExplicitPool(int device) {
  constexpr size_t kMax = 8 * kMiB;
  hipMemPool_t pool = CreatePool(device, kMax);
  hipMemPool_t def = nullptr;
  CHECK_HIP(hipDeviceGetDefaultMemPool(&def, device));
  hipMemPool_t current = nullptr;
  CHECK_HIP(hipDeviceGetMemPool(&current, device));
  EXPECT(current == def);
  CHECK_HIP(hipDeviceSetMemPool(device, pool));
  CHECK_HIP(hipDeviceGetMemPool(&current, device));
  EXPECT(current == pool);

  hipStream_t stream;
  CHECK_HIP(hipStreamCreate(&stream));
  void* a = nullptr;
  void* b = nullptr;
  void* c = nullptr;
  CHECK_HIP(hipMallocAsync(&a, kMax / 2, stream));  // from the device's pool, now the explicit one
  CHECK_HIP(hipMallocFromPoolAsync(&b, kMax / 4, pool, stream));
  EXPECT(PoolAttr(pool, hipMemPoolAttrUsedMemCurrent) == kMax / 2 + kMax / 4);
  EXPECT(PoolAttr(def, hipMemPoolAttrUsedMemCurrent) == 0);
  EXPECT(hipMallocFromPoolAsync(&c, kMax / 2, pool, stream) == hipErrorOutOfMemory);  // over maxSize
  (void)hipGetLastError();
  std::vector<unsigned char> in(kMax / 4), out(kMax / 4, 0);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<unsigned char>(i * 7 + 1);
  CHECK_HIP(hipMemcpyAsync(b, in.data(), in.size(), hipMemcpyHostToDevice, stream));
  CHECK_HIP(hipMemcpyAsync(a, b, in.size(), hipMemcpyDeviceToDevice, stream));
  CHECK_HIP(hipMemcpyAsync(out.data(), a, out.size(), hipMemcpyDeviceToHost, stream));
  CHECK_HIP(hipFreeAsync(a, stream));
  CHECK_HIP(hipStreamSynchronize(stream));
  EXPECT(out == in);

  CHECK_HIP(hipMemPoolDestroy(pool));  // b is still out
  CHECK_HIP(hipDeviceGetMemPool(&current, device));
  EXPECT(current == def);
  CHECK_HIP(hipFreeAsync(b, stream));
  CHECK_HIP(hipStreamSynchronize(stream));
  void* d = nullptr;
  CHECK_HIP(hipMallocAsync(&d, kMiB, stream));  // back on the default pool
  EXPECT(PoolAttr(def, hipMemPoolAttrUsedMemCurrent) == kMiB);
  CHECK_HIP(hipFreeAsync(d, stream));
  CHECK_HIP(hipStreamSynchronize(stream));
  CHECK_HIP(hipStreamDestroy(stream));
}

// Device 1 works on blocks of device 0's pool once the pool grants it access.
void PeerAccess(int count) {
  if (count < 2) return;
  int can = 0;
  CHECK_HIP(hipDeviceCanAccessPeer(&can, 1, 0));
  if (!can) return;
  CHECK_HIP(hipSetDevice(0));
  hipMemPool_t pool = CreatePool(0, 0);
  hipMemLocation peer = {hipMemLocationTypeDevice, 1};
  hipMemAccessFlags flags = hipMemAccessFlagsProtReadWrite;
  CHECK_HIP(hipMemPoolGetAccess(&flags, pool, &peer));
  EXPECT(flags == hipMemAccessFlagsProtNone);
  hipMemAccessDesc grant = {peer, hipMemAccessFlagsProtReadWrite};
  CHECK_HIP(hipMemPoolSetAccess(pool, &grant, 1));
  CHECK_HIP(hipMemPoolGetAccess(&flags, pool, &peer));
  EXPECT(flags == hipMemAccessFlagsProtReadWrite);

  constexpr size_t kBytes = 2 * kMiB;
  hipStream_t s0;
  CHECK_HIP(hipStreamCreate(&s0));
  void* block = nullptr;
  CHECK_HIP(hipMallocFromPoolAsync(&block, kBytes, pool, s0));
  std::vector<unsigned char> in(kBytes), out(kBytes, 0);
  for (size_t i = 0; i < kBytes; ++i) in[i] = static_cast<unsigned char>(i ^ (i >> 11));
  CHECK_HIP(hipMemcpyAsync(block, in.data(), kBytes, hipMemcpyHostToDevice, s0));
  hipEvent_t filled;
  CHECK_HIP(hipEventCreate(&filled));
  CHECK_HIP(hipEventRecord(filled, s0));

  CHECK_HIP(hipSetDevice(1));
  hipStream_t s1;
  CHECK_HIP(hipStreamCreate(&s1));
  CHECK_HIP(hipStreamWaitEvent(s1, filled, 0));
  void* local = nullptr;
  CHECK_HIP(hipMallocAsync(&local, kBytes, s1));
  CHECK_HIP(hipMemcpyAsync(local, block, kBytes, hipMemcpyDeviceToDevice, s1));
  CHECK_HIP(hipMemsetAsync(block, 0x66, kBytes / 2, s1));  // device 1 writes device 0's pool block
  CHECK_HIP(hipMemcpyAsync(out.data(), local, kBytes, hipMemcpyDeviceToHost, s1));
  std::vector<unsigned char> written(kBytes / 2, 0);
  CHECK_HIP(hipMemcpyAsync(written.data(), block, kBytes / 2, hipMemcpyDeviceToHost, s1));
  CHECK_HIP(hipFreeAsync(local, s1));
  CHECK_HIP(hipFreeAsync(block, s1));
  CHECK_HIP(hipStreamSynchronize(s1));
  EXPECT(out == in);
  EXPECT(AllBytes(written, 0x66));
  CHECK_HIP(hipStreamDestroy(s1));

  CHECK_HIP(hipSetDevice(0));
  hipMemAccessDesc revoke = {peer, hipMemAccessFlagsProtNone};
  CHECK_HIP(hipMemPoolSetAccess(pool, &revoke, 1));
  CHECK_HIP(hipMemPoolGetAccess(&flags, pool, &peer));
  EXPECT(flags == hipMemAccessFlagsProtNone);
  CHECK_HIP(hipStreamSynchronize(s0));
  CHECK_HIP(hipEventDestroy(filled));
  CHECK_HIP(hipStreamDestroy(s0));
  EXPECT(PoolAttr(pool, hipMemPoolAttrUsedMemCurrent) == 0);
  CHECK_HIP(hipMemPoolDestroy(pool));
}

}  // namespace

int main() {
  int count = 0;
  CHECK_HIP(hipGetDeviceCount(&count));
  EXPECT(count > 0);
  for (int device = 0; device < count; ++device) {
    CHECK_HIP(hipSetDevice(device));
    int supported = 0;
    CHECK_HIP(hipDeviceGetAttribute(&supported, hipDeviceAttributeMemoryPoolsSupported, device));
    EXPECT(supported == 1);
    PoolHits(device);
    CrossStreamReuse(device);
    Trim(device);
    ExplicitPool(device);
  }
  PeerAccess(count);
  CHECK_HIP(hipSetDevice(0));
  CHECK_HIP(hipDeviceSynchronize());
  std::printf("pool client: %d GPU(s) OK\n", count);
  return 0;
}
