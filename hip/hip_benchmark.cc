// The HIP runtime's costs through its public C API (issue #9 §5), each goal a ratio to a baseline measured in
// the same run:
//   cold hipMalloc+hipFree, 4 KiB and 1 GiB       goal: 1 GiB / 4 KiB <= 2 (the absolute goal, p50
//                                                  <= 5 us, is printed as the p50_ns counter)
//   hipMalloc+hipFree from a cached fragment,     goal: <= 30x a glibc malloc+free pair of the same size
//     4 KiB, 64 KiB and 2 MiB - 4 KiB               (exactly 2 MiB is reported, not judged: like ROCr's
//                                                  SimpleHeap, the allocator serves only requests smaller
//                                                  than its 2 MiB block from a cached block, so a 2 MiB
//                                                  pair takes a new block from the KFD each time)
//   pinned (hipHostMalloc) H2D, D2H and D2D,      goal: >= 0.8x a single-thread memcpy's throughput (time
//     64 MiB                                        ratio <= 1.25), and >= 0.5x a memcpy spread over every
//                                                  core (BM_MemcpyAllCores; time ratio <= 2, issue #26)
//   pageable (malloc'd) H2D and D2H through the   goal (issue #26's ruling): <= 1.3x its floor on this host,
//     staging ring, 64 MiB                          BM_ChunkHandoff (two bare threads moving the same bytes
//                                                  through the same ring), and never faster than pinned; the
//                                                  ratio to pinned is reported (see StagedGoals)
//   4 KiB pinned hipMemcpy round trip: one       goal: <= 2x a futex round trip between two threads for one
//     call H2D, one D2H, and the two in a row       call, 4x for the pair; p50_ns printed for the issue's
//                                                  absolute goal (<= 5 us), which the single calls are
//                                                  judged by (a call's round trip, as copy_benchmark's 4 KiB
//                                                  async copy round trip is one copy)
//   hipPointerGetAttributes among 10^3, 10^5 and  goal: 10^6 / 10^3 <= 1.3 on a fixed working set: the same
//     10^6 live hipMalloc allocations               1000 allocations, spread evenly over the whole address
//                                                  range and queried in a shuffled order, at every
//                                                  population (BM_PointerGetAttributesWorkingSet). The
//                                                  allocations are real: 10^6 x 256 B, each a 4 KiB fragment,
//                                                  is 4 GiB of the simulated MI300X's VRAM. The absolute goal,
//                                                  <= 100 ns at 10^5, is the printed time of both the working
//                                                  set row and the uniformly random one.
//                                                  Why the working set is the goal row: the growth goal asks how
//                                                  the lookup scales with the number of live allocations. A query
//                                                  uniformly random over 10^6 objects misses the private caches
//                                                  nearly every time whatever the structure (the least it can read,
//                                                  one line per object, is 64 MiB), so its 10^6 / 10^3 ratio
//                                                  measures the host's L3 or DRAM latency against its L1's. A fixed
//                                                  working set keeps what the program touches the same at every
//                                                  population, so only the structure's own growth (deeper trees,
//                                                  longer probes, a bigger table's TLB reach) can move the ratio.
//                                                  The uniformly random rows stay, reported as ratios to
//                                                  BM_DependentRandomReads at the same population: one dependent
//                                                  random read per query over one cache line per object, the
//                                                  memory-latency floor (each query depends on the previous
//                                                  answer, as each read on the previous read), so the ratio says
//                                                  how many memory round trips a query costs. The same query
//                                                  repeated on one pointer is reported too (no cache misses).
//   hipMemcpyAsync enqueue (4 KiB D2D)            goal: <= 1x a futex round trip
//   hipStreamSynchronize of an idle stream        goal: <= 20x an uncontended mutex lock+unlock pair
//                                                  (the issue names no number for these two: the reasons
//                                                  for ours are beside them in DefaultGoals)
//
// The runtime reads its environment once, so the binary runs each configuration in a child process of its own,
// one after the other, and each prints its own ratios (both sides of every ratio are measured in one child):
//   default                           everything above but the next two groups;
//   HSA_DISABLE_FRAGMENT_ALLOCATOR=1  the cold pairs: with ROCr's fragment allocator off, every hipMalloc is a
//                                     KFD allocation and every hipFree gives it back, so no cached block can
//                                     serve either size (with it on, a 4 KiB pair would be carved from a cached
//                                     2 MiB block and never reach the KFD);
//   GPU_PINNED_MIN_XFER_SIZE=1024     the pageable copies through staging: current CLR pins pageable chunks
//                                     above 64 KiB (the default configuration measures that path too, report
//                                     only); with the threshold at 1024 MiB a 64 MiB copy goes through the
//                                     staging ring.
// Exit status: 0 when every goal was met, 1 when one was missed, 2 when a benchmark failed or a child crashed.
// Run: bazel run -c opt //hip:hip_benchmark
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <numeric>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "benchmark/benchmark.h"
#include "hip/hip_runtime_api.h"
#include "base/bench/baselines.h"
#include "base/bench/ratio_reporter.h"

namespace {

constexpr int64_t kKiB = 1 << 10;
constexpr int64_t kMiB = 1 << 20;
constexpr int64_t kGiB = 1 << 30;
// The largest hipMalloc a cached 2 MiB fragment block serves: one 4 KiB granule less than the block.
constexpr int64_t kLargestCachedSize = 2 * kMiB - 4 * kKiB;

// ---- helpers ----

// Per-iteration wall times, for the p50 the issue states its absolute goals in.
class Latencies {
 public:
  void Start() { start_ = std::chrono::steady_clock::now(); }
  void Stop() {
    samples_.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start_).count());
  }
  // Sets the p50_ns counter (0 without samples).
  void Report(benchmark::State& state) {
    if (samples_.empty()) return;
    std::nth_element(samples_.begin(), samples_.begin() + samples_.size() / 2, samples_.end());
    state.counters["p50_ns"] = samples_[samples_.size() / 2];
  }

 private:
  std::chrono::steady_clock::time_point start_;
  std::vector<double> samples_;
};

// hipMalloc'd VRAM or hipHostMalloc'd host memory, freed on destruction.
class HipBuffer {
 public:
  enum class Kind { kDevice, kPinnedHost };
  HipBuffer(Kind kind, size_t size) {
    const hipError_t e = kind == Kind::kDevice ? hipMalloc(&ptr_, size) : hipHostMalloc(&ptr_, size, hipHostMallocDefault);
    if (e != hipSuccess) ptr_ = nullptr;
    // Host pages touched now, so no first-touch fault lands in a timing.
    if (ptr_ != nullptr && kind == Kind::kPinnedHost) std::memset(ptr_, 1, size);
  }
  ~HipBuffer() {
    if (ptr_ != nullptr) (void)hipFree(ptr_);
  }
  HipBuffer(const HipBuffer&) = delete;
  HipBuffer& operator=(const HipBuffer&) = delete;
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
};

// The two sides of a copy in `direction`: pinned or pageable host memory, and VRAM.
enum Direction : int64_t { kH2D = 0, kD2H = 1, kD2D = 2 };

hipMemcpyKind KindOf(Direction direction) {
  switch (direction) {
    case kH2D: return hipMemcpyHostToDevice;
    case kD2H: return hipMemcpyDeviceToHost;
    case kD2D: return hipMemcpyDeviceToDevice;
  }
  return hipMemcpyDefault;
}

// ---- baselines ----

void BM_GlibcMallocFree(benchmark::State& state) {
  const auto size = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    void* p = std::malloc(size);
    benchmark::DoNotOptimize(p);
    std::free(p);
  }
}

using ::hipmem::bench::BM_FutexRoundTrip;
using ::hipmem::bench::BM_Memcpy;
using ::hipmem::bench::BM_MemcpyAllCores;

// The cheapest thing a runtime call that takes a lock can cost.
void BM_MutexLockUnlock(benchmark::State& state) {
  std::mutex mu;
  for (auto _ : state) {
    mu.lock();
    benchmark::ClobberMemory();
    mu.unlock();
  }
}

// ---- allocation ----

// hipMalloc + hipFree of one size. In the HSA_DISABLE_FRAGMENT_ALLOCATOR=1 child both reach the KFD every
// time (cold), and each pair is timed on its own for the p50_ns counter; in the default child, sizes up to 2 MiB
// are carved from a cached fragment block, and the pairs are not timed one by one (two clock reads would add a
// tenth to a pair that costs a few hundred nanoseconds, and to the pair only, not to glibc's baseline).
void HipMallocFree(benchmark::State& state, bool time_each_pair) {
  const auto size = static_cast<size_t>(state.range(0));
  // The first pair is untimed: it makes the runtime, and in the default child leaves a cached block behind.
  void* warm = nullptr;
  if (hipMalloc(&warm, size) != hipSuccess || hipFree(warm) != hipSuccess) {
    state.SkipWithError("the warm-up hipMalloc/hipFree failed");
    return;
  }
  Latencies latencies;
  for (auto _ : state) {
    if (time_each_pair) latencies.Start();
    void* p = nullptr;
    if (hipMalloc(&p, size) != hipSuccess) {
      state.SkipWithError("hipMalloc failed");
      return;
    }
    benchmark::DoNotOptimize(p);
    if (hipFree(p) != hipSuccess) {
      state.SkipWithError("hipFree failed");
      return;
    }
    if (time_each_pair) latencies.Stop();
  }
  latencies.Report(state);
}

void BM_HipMallocFree(benchmark::State& state) { HipMallocFree(state, /*time_each_pair=*/false); }
void BM_HipMallocFreeP50(benchmark::State& state) { HipMallocFree(state, /*time_each_pair=*/true); }

// ---- copies ----

// One blocking hipMemcpy per iteration between a host buffer (pinned or pageable) and VRAM, or VRAM and VRAM.
void HipMemcpy(benchmark::State& state, bool pinned) {
  const auto size = static_cast<size_t>(state.range(0));
  const auto direction = static_cast<Direction>(state.range(1));
  HipBuffer device(HipBuffer::Kind::kDevice, size);
  HipBuffer other(direction == kD2D ? HipBuffer::Kind::kDevice : HipBuffer::Kind::kPinnedHost,
                  pinned || direction == kD2D ? size : 0);
  std::vector<uint8_t> pageable(pinned ? 0 : size, 1);
  void* host = pinned || direction == kD2D ? other.get() : pageable.data();
  if (device.get() == nullptr || host == nullptr) {
    state.SkipWithError("allocation failed");
    return;
  }
  void* dst = direction == kD2H ? host : device.get();
  const void* src = direction == kD2H ? device.get() : host;
  // A copy inside one device may still be running when hipMemcpy returns (as in CLR): wait for it.
  const bool sync = direction == kD2D;
  // Untimed: the simulator commits VRAM pages and the engines' queues are built on first use.
  if (hipMemcpy(dst, src, size, KindOf(direction)) != hipSuccess || hipDeviceSynchronize() != hipSuccess) {
    state.SkipWithError("the warm-up copy failed");
    return;
  }
  for (auto _ : state) {
    if (hipMemcpy(dst, src, size, KindOf(direction)) != hipSuccess ||
        (sync && hipDeviceSynchronize() != hipSuccess)) {
      state.SkipWithError("hipMemcpy failed");
      return;
    }
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

void BM_PinnedCopy(benchmark::State& state) { HipMemcpy(state, /*pinned=*/true); }
void BM_PageableCopy(benchmark::State& state) { HipMemcpy(state, /*pinned=*/false); }

// The floor of a staged copy in the simulator, without any runtime: 64 MiB moved as 1 MiB chunks through a ring of
// four, one memcpy per chunk on this thread and one on a second thread (the simulated engine is a thread too).
// D2H (arg kD2H) is serialized as CLR's staged read is: the second thread fills a chunk, this one waits and copies
// it out. H2D (arg kH2D) is pipelined as CLR's staged write is: this thread fills chunk i while the other drains
// chunk i-1, waiting only when the ring wraps. Both threads spin (yielding), as an active wait and a watching engine
// do. Staged copies are reported against it: the gap is the runtime's own cost, the rest is how two vCPUs hand
// data to each other on this host.
void BM_ChunkHandoff(benchmark::State& state) {
  constexpr size_t kTotal = 64 * kMiB;
  constexpr size_t kChunk = kMiB;
  constexpr size_t kRing = 4;
  const bool h2d = state.range(0) == kH2D;
  std::vector<char> src(kTotal, 1), dst(kTotal, 0), ring(kRing * kChunk, 0);
  std::atomic<uint64_t> posted{0};  // chunks handed to the other thread
  std::atomic<uint64_t> done{0};    // chunks it has copied
  std::atomic<bool> stop{false};
  std::thread other([&] {
    for (uint64_t next = 0;; ++next) {
      while (posted.load(std::memory_order_acquire) <= next) {
        if (stop.load(std::memory_order_acquire)) return;
        std::this_thread::yield();
      }
      const size_t chunk = next % (kTotal / kChunk);
      char* slot = ring.data() + (next % kRing) * kChunk;
      if (h2d) {
        std::memcpy(dst.data() + chunk * kChunk, slot, kChunk);
      } else {
        std::memcpy(slot, src.data() + chunk * kChunk, kChunk);
      }
      done.store(next + 1, std::memory_order_release);
    }
  });
  uint64_t issued = 0;
  for (auto _ : state) {
    for (size_t chunk = 0; chunk < kTotal / kChunk; ++chunk, ++issued) {
      char* slot = ring.data() + (issued % kRing) * kChunk;
      if (h2d) {
        while (issued >= kRing && done.load(std::memory_order_acquire) < issued - kRing + 1) std::this_thread::yield();
        std::memcpy(slot, src.data() + chunk * kChunk, kChunk);
        posted.store(issued + 1, std::memory_order_release);
      } else {
        posted.store(issued + 1, std::memory_order_release);
        while (done.load(std::memory_order_acquire) < issued + 1) std::this_thread::yield();
        std::memcpy(dst.data() + chunk * kChunk, slot, kChunk);
      }
    }
    while (done.load(std::memory_order_acquire) < issued) std::this_thread::yield();  // the copy is complete
  }
  stop.store(true, std::memory_order_release);
  other.join();
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kTotal));
}

// 4 KiB between pinned host memory and VRAM, each hipMemcpy waited for (it is synchronous): one call's round trip
// from the host to the engine and back, H2D (arg kH2D) or D2H (arg kD2H) alone, or both one after the other (arg
// kRoundTripBoth). A single call is what copy_benchmark's 4 KiB async copy round trip measures one layer down.
constexpr int64_t kRoundTripBoth = 3;

void BM_PinnedRoundTrip(benchmark::State& state) {
  constexpr size_t kSize = 4 * kKiB;
  const int64_t which = state.range(0);
  HipBuffer host(HipBuffer::Kind::kPinnedHost, kSize);
  HipBuffer device(HipBuffer::Kind::kDevice, kSize);
  if (host.get() == nullptr || device.get() == nullptr) {
    state.SkipWithError("allocation failed");
    return;
  }
  if (hipMemcpy(device.get(), host.get(), kSize, hipMemcpyHostToDevice) != hipSuccess) {
    state.SkipWithError("the warm-up copy failed");
    return;
  }
  const bool h2d = which == kH2D || which == kRoundTripBoth;
  const bool d2h = which == kD2H || which == kRoundTripBoth;
  Latencies latencies;
  for (auto _ : state) {
    latencies.Start();
    if ((h2d && hipMemcpy(device.get(), host.get(), kSize, hipMemcpyHostToDevice) != hipSuccess) ||
        (d2h && hipMemcpy(host.get(), device.get(), kSize, hipMemcpyDeviceToHost) != hipSuccess)) {
      state.SkipWithError("hipMemcpy failed");
      return;
    }
    latencies.Stop();
  }
  latencies.Report(state);
}

// ---- pointer queries ----

// The small allocations alive while hipPointerGetAttributes is measured: grown, never shrunk, between the
// benchmarks of one child (10^3, then 10^5, then 10^6), freed when the child's benchmarks are done.
std::vector<void*>& LiveAllocations() {
  static auto* live = new std::vector<void*>;
  return *live;
}

constexpr size_t kLiveAllocationSize = 256;  // the runtime rounds it up to one 4 KiB fragment granule

bool GrowLiveAllocations(size_t count) {
  std::vector<void*>& live = LiveAllocations();
  live.reserve(count);
  while (live.size() < count) {
    void* p = nullptr;
    if (hipMalloc(&p, kLiveAllocationSize) != hipSuccess) return false;
    live.push_back(p);
  }
  return true;
}

void FreeLiveAllocations() {
  for (void* p : LiveAllocations()) (void)hipFree(p);
  LiveAllocations().clear();
}

// Interior pointers into allocations (the query resolves ranges, not only bases).
const void* Interior(const void* allocation) { return static_cast<const char*>(allocation) + 64; }

// hipPointerGetAttributes on `queries` in turn, over and over. The queries are read in order, so reading them
// costs the loop no cache miss of its own. Each query's pointer is made to depend on the previous answer (its
// device pointer, which for hipMalloc memory is the queried pointer itself, so the pointer does not change):
// the queries then run one after the other, as a program that acts on each answer runs them, instead of
// overlapping their cache misses, and compare like for like with BM_DependentRandomReads' chain.
void QueryPointers(benchmark::State& state, const std::vector<const void*>& queries) {
  hipPointerAttribute_t attributes;
  if (hipPointerGetAttributes(&attributes, queries[0]) != hipSuccess || attributes.type != hipMemoryTypeDevice ||
      attributes.devicePointer != queries[0]) {
    state.SkipWithError("hipPointerGetAttributes does not see a live allocation as device memory");
    return;
  }
  const void* previous = queries[0];
  size_t i = 0;
  for (auto _ : state) {
    const uintptr_t zero =
        reinterpret_cast<uintptr_t>(attributes.devicePointer) - reinterpret_cast<uintptr_t>(previous);
    previous = reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(queries[i]) + zero);
    if (hipPointerGetAttributes(&attributes, previous) != hipSuccess) {
      state.SkipWithError("hipPointerGetAttributes failed");
      return;
    }
    benchmark::DoNotOptimize(attributes);
    if (++i == queries.size()) i = 0;
  }
}

// Uniformly random queries among all `count` live allocations (report only; see the header for why): 2^20 of
// them, so even at 10^6 they do not repeat a small set the caches could keep.
void BM_PointerGetAttributes(benchmark::State& state) {
  const auto count = static_cast<size_t>(state.range(0));
  if (!GrowLiveAllocations(count)) {
    state.SkipWithError("hipMalloc of the live allocations failed");
    return;
  }
  std::mt19937_64 random(42);
  std::uniform_int_distribution<size_t> pick(0, count - 1);
  std::vector<const void*> queries(size_t{1} << 20);
  for (const void*& query : queries) query = Interior(LiveAllocations()[pick(random)]);
  QueryPointers(state, queries);
}

// The goal row: the same number of allocations queried at every population, spread evenly over all of them
// (so over the whole address range the runtime handed out) and visited in a shuffled order (so no prefetcher
// follows them).
constexpr size_t kWorkingSet = 1000;  // all of the smallest population

void BM_PointerGetAttributesWorkingSet(benchmark::State& state) {
  const auto count = static_cast<size_t>(state.range(0));
  if (count < kWorkingSet || !GrowLiveAllocations(count)) {
    state.SkipWithError("hipMalloc of the live allocations failed (or fewer than the working set)");
    return;
  }
  std::vector<const void*> queries(kWorkingSet);
  for (size_t k = 0; k < kWorkingSet; ++k) queries[k] = Interior(LiveAllocations()[k * count / kWorkingSet]);
  std::shuffle(queries.begin(), queries.end(), std::mt19937_64(42));
  QueryPointers(state, queries);
}

// The memory-latency floor under uniformly random queries among `count` objects: per iteration one read of a
// random one of `count` 64-byte cells (one cache line per object, the least any per-object index reads),
// dependent on the read before, as each query's lock keeps its misses from overlapping the next query's. The
// cells form one random cycle through all of them and sit on transparent huge pages, as the runtime's page
// index does once it passes 2 MiB, so the floor pays the same few TLB misses and the ratio is the lookup's own.
void BM_DependentRandomReads(benchmark::State& state) {
  const auto count = static_cast<size_t>(state.range(0));
  struct alignas(64) Cell {
    const Cell* next;
  };
  constexpr size_t kHugePage = 2 * kMiB;
  const size_t bytes = (count * sizeof(Cell) + kHugePage - 1) / kHugePage * kHugePage;
  Cell* cells = static_cast<Cell*>(std::aligned_alloc(kHugePage, bytes));
  if (cells == nullptr) {
    state.SkipWithError("aligned_alloc failed");
    return;
  }
  (void)madvise(cells, bytes, MADV_HUGEPAGE);  // a hint: without it the floor only gets higher
  std::vector<size_t> order(count);
  std::iota(order.begin(), order.end(), size_t{0});
  std::shuffle(order.begin(), order.end(), std::mt19937_64(42));
  for (size_t i = 0; i < count; ++i) cells[order[i]].next = &cells[order[(i + 1) % count]];
  const Cell* cell = &cells[order[0]];
  for (auto _ : state) {
    cell = cell->next;
    benchmark::DoNotOptimize(cell);
  }
  std::free(cells);
}

// The same query on one pointer over and over: the map's depth without its cache misses (report only), to
// tell how much of BM_PointerGetAttributes' growth is the memory system's rather than the lookup's.
void BM_PointerGetAttributesSamePointer(benchmark::State& state) {
  const auto count = static_cast<size_t>(state.range(0));
  if (!GrowLiveAllocations(count)) {
    state.SkipWithError("hipMalloc of the live allocations failed");
    return;
  }
  const char* ptr = static_cast<const char*>(LiveAllocations()[count / 2]) + 64;
  hipPointerAttribute_t attributes;
  for (auto _ : state) {
    if (hipPointerGetAttributes(&attributes, ptr) != hipSuccess) {
      state.SkipWithError("hipPointerGetAttributes failed");
      return;
    }
    benchmark::DoNotOptimize(attributes);
  }
}

// Random positions among the first `count` of something (BM_StdMapLookup's queries).
std::vector<size_t> RandomIndices(size_t count) {
  std::mt19937_64 random(42);
  std::uniform_int_distribution<size_t> pick(0, count - 1);
  std::vector<size_t> indices(4096);
  for (size_t& i : indices) i = pick(random);
  return indices;
}

// The floor under an address-to-allocation map: an ordered map's lookup among as many ranges, at random.
void BM_StdMapLookup(benchmark::State& state) {
  const auto count = static_cast<size_t>(state.range(0));
  std::map<uintptr_t, size_t> ranges;
  for (size_t i = 0; i < count; ++i) ranges.emplace(i * 4 * kKiB, 4 * kKiB);
  const std::vector<size_t> indices = RandomIndices(count);
  size_t i = 0;
  for (auto _ : state) {
    const uintptr_t address = indices[i++ & (indices.size() - 1)] * 4 * kKiB + 64;
    auto it = ranges.upper_bound(address);
    benchmark::DoNotOptimize(--it);
  }
}

// ---- streams ----

// 4 KiB D2D copies queued on a stream, not waited for one by one. Every kBatch copies the stream is drained,
// untimed, so the time is the enqueue (plus any wait for room in the queue, which a real program meets too).
void BM_MemcpyAsyncEnqueue(benchmark::State& state) {
  constexpr size_t kSize = 4 * kKiB;
  constexpr int64_t kBatch = 64;
  HipBuffer a(HipBuffer::Kind::kDevice, kSize);
  HipBuffer b(HipBuffer::Kind::kDevice, kSize);
  hipStream_t stream = nullptr;
  if (a.get() == nullptr || b.get() == nullptr || hipStreamCreate(&stream) != hipSuccess) {
    state.SkipWithError("allocation or hipStreamCreate failed");
    return;
  }
  if (hipMemcpyAsync(b.get(), a.get(), kSize, hipMemcpyDeviceToDevice, stream) != hipSuccess ||
      hipStreamSynchronize(stream) != hipSuccess) {
    state.SkipWithError("the warm-up copy failed");
  }
  int64_t queued = 0;
  for (auto _ : state) {
    if (hipMemcpyAsync(b.get(), a.get(), kSize, hipMemcpyDeviceToDevice, stream) != hipSuccess) {
      state.SkipWithError("hipMemcpyAsync failed");
      break;
    }
    if (++queued % kBatch == 0) {
      state.PauseTiming();
      if (hipStreamSynchronize(stream) != hipSuccess) state.SkipWithError("hipStreamSynchronize failed");
      state.ResumeTiming();
    }
  }
  if (hipStreamSynchronize(stream) != hipSuccess) state.SkipWithError("hipStreamSynchronize failed");
  (void)hipStreamDestroy(stream);
}

// hipStreamSynchronize of a stream whose work is all done: nothing to wait for, nothing to wake.
void BM_StreamSynchronizeIdle(benchmark::State& state) {
  HipBuffer a(HipBuffer::Kind::kDevice, 4 * kKiB);
  HipBuffer b(HipBuffer::Kind::kDevice, 4 * kKiB);
  hipStream_t stream = nullptr;
  if (a.get() == nullptr || b.get() == nullptr || hipStreamCreate(&stream) != hipSuccess) {
    state.SkipWithError("allocation or hipStreamCreate failed");
    return;
  }
  // The stream has run a command, so the query has a last command to look at.
  if (hipMemcpyAsync(b.get(), a.get(), 4 * kKiB, hipMemcpyDeviceToDevice, stream) != hipSuccess ||
      hipStreamSynchronize(stream) != hipSuccess) {
    state.SkipWithError("the warm-up copy failed");
  }
  for (auto _ : state) {
    if (hipStreamSynchronize(stream) != hipSuccess) {
      state.SkipWithError("hipStreamSynchronize failed");
      break;
    }
  }
  (void)hipStreamDestroy(stream);
}

// ---- configurations ----

std::string Name(const char* benchmark, std::initializer_list<int64_t> args) {
  std::string name = benchmark;
  for (int64_t arg : args) name += "/" + std::to_string(arg);
  return name + "/real_time";
}

struct Configuration {
  const char* name;
  const char* env_name;   // nullptr: the environment as given
  const char* env_value;
  void (*register_benchmarks)();
  std::vector<hipmem_bench::RatioGoal> (*goals)();
};

void RegisterDefault() {
  for (const char* name : {"BM_GlibcMallocFree", "BM_HipMallocFree"}) {
    benchmark::RegisterBenchmark(name, name[3] == 'G' ? BM_GlibcMallocFree : BM_HipMallocFree)
        ->Arg(4 * kKiB)->Arg(64 * kKiB)->Arg(kLargestCachedSize)->Arg(2 * kMiB)->UseRealTime();
  }
  benchmark::RegisterBenchmark("BM_Memcpy", BM_Memcpy)->Arg(64 * kMiB)->UseRealTime();
  benchmark::RegisterBenchmark("BM_MemcpyAllCores", BM_MemcpyAllCores)->Arg(64 * kMiB)->UseRealTime();
  benchmark::RegisterBenchmark("BM_PinnedCopy", BM_PinnedCopy)
      ->Args({64 * kMiB, kH2D})->Args({64 * kMiB, kD2H})->Args({64 * kMiB, kD2D})->UseRealTime();
  // Current CLR's path for pageable memory this large: pinned 32 MiB chunks (report only).
  benchmark::RegisterBenchmark("BM_PageableCopy", BM_PageableCopy)->Args({64 * kMiB, kH2D})->Args({64 * kMiB, kD2H})
      ->UseRealTime();
  benchmark::RegisterBenchmark("BM_FutexRoundTrip", BM_FutexRoundTrip)->UseRealTime();
  benchmark::RegisterBenchmark("BM_MutexLockUnlock", BM_MutexLockUnlock)->UseRealTime();
  benchmark::RegisterBenchmark("BM_PinnedRoundTrip", BM_PinnedRoundTrip)
      ->Arg(kH2D)->Arg(kD2H)->Arg(kRoundTripBoth)->UseRealTime();
  benchmark::RegisterBenchmark("BM_MemcpyAsyncEnqueue", BM_MemcpyAsyncEnqueue)->UseRealTime();
  benchmark::RegisterBenchmark("BM_StreamSynchronizeIdle", BM_StreamSynchronizeIdle)->UseRealTime();
  benchmark::RegisterBenchmark("BM_StdMapLookup", BM_StdMapLookup)->Arg(100000)->UseRealTime();
  // In growing order: each one adds to the allocations the one before left alive.
  for (int64_t count : {1000, 100000, 1000000}) {
    benchmark::RegisterBenchmark("BM_DependentRandomReads", BM_DependentRandomReads)->Arg(count)->UseRealTime();
    benchmark::RegisterBenchmark("BM_PointerGetAttributes", BM_PointerGetAttributes)->Arg(count)->UseRealTime();
    benchmark::RegisterBenchmark("BM_PointerGetAttributesWorkingSet", BM_PointerGetAttributesWorkingSet)
        ->Arg(count)->UseRealTime();
    benchmark::RegisterBenchmark("BM_PointerGetAttributesSamePointer", BM_PointerGetAttributesSamePointer)
        ->Arg(count)->UseRealTime();
  }
}

std::vector<hipmem_bench::RatioGoal> DefaultGoals() {
  std::vector<hipmem_bench::RatioGoal> goals;
  for (int64_t size : {4 * kKiB, 64 * kKiB, kLargestCachedSize, 2 * kMiB}) {
    goals.push_back({Name("BM_HipMallocFree", {size}), Name("BM_GlibcMallocFree", {size}), size < 2 * kMiB ? 30.0 : 0});
  }
  for (int64_t direction : {kH2D, kD2H, kD2D}) {
    goals.push_back({Name("BM_PinnedCopy", {64 * kMiB, direction}), Name("BM_Memcpy", {64 * kMiB}), 1.25});
    // Issue #26: bulk copies at the host's memory speed, at least half of what every core's memcpy moves.
    goals.push_back({Name("BM_PinnedCopy", {64 * kMiB, direction}), Name("BM_MemcpyAllCores", {64 * kMiB}), 2.0});
  }
  for (int64_t direction : {kH2D, kD2H}) {
    goals.push_back({Name("BM_PageableCopy", {64 * kMiB, direction}), Name("BM_PinnedCopy", {64 * kMiB, direction}), 0});
  }
  // One hipMemcpy is at most a doorbell wake-up and a completion wake-up, a futex round trip's worth, as for
  // copy_benchmark's async copy (the same 2x allowance); two of them one after the other, twice that.
  for (int64_t which : {kH2D, kD2H}) {
    goals.push_back({Name("BM_PinnedRoundTrip", {which}), Name("BM_FutexRoundTrip", {}), 2.0});
  }
  goals.push_back({Name("BM_PinnedRoundTrip", {kRoundTripBoth}), Name("BM_FutexRoundTrip", {}), 4.0});
  // The working set is the goal row (header); uniformly random queries are shown against the memory-latency floor.
  goals.push_back({Name("BM_PointerGetAttributesWorkingSet", {1000000}),
                   Name("BM_PointerGetAttributesWorkingSet", {1000}), 1.3});
  goals.push_back({Name("BM_PointerGetAttributesWorkingSet", {100000}),
                   Name("BM_PointerGetAttributesWorkingSet", {1000}), 0});
  for (int64_t count : {1000, 100000, 1000000}) {
    goals.push_back({Name("BM_PointerGetAttributes", {count}), Name("BM_DependentRandomReads", {count}), 0});
  }
  goals.push_back({Name("BM_PointerGetAttributes", {1000000}), Name("BM_PointerGetAttributes", {1000}), 0});
  goals.push_back({Name("BM_PointerGetAttributesSamePointer", {1000000}),
                   Name("BM_PointerGetAttributesSamePointer", {1000}), 0});
  goals.push_back({Name("BM_PointerGetAttributes", {100000}), Name("BM_StdMapLookup", {100000}), 0});
  goals.push_back({Name("BM_PointerGetAttributes", {100000}), Name("BM_MutexLockUnlock", {}), 0});
  // Queuing a copy needs at most one wake-up (the doorbell), never a round trip.
  goals.push_back({Name("BM_MemcpyAsyncEnqueue", {}), Name("BM_FutexRoundTrip", {}), 1.0});
  goals.push_back({Name("BM_MemcpyAsyncEnqueue", {}), Name("BM_MutexLockUnlock", {}), 0});
  // An idle stream has nothing to wait for: a few lock pairs and a signal load, no system call.
  goals.push_back({Name("BM_StreamSynchronizeIdle", {}), Name("BM_MutexLockUnlock", {}), 20.0});
  goals.push_back({Name("BM_StreamSynchronizeIdle", {}), Name("BM_FutexRoundTrip", {}), 0});
  return goals;
}

void RegisterCold() {
  benchmark::RegisterBenchmark("BM_HipMallocFree", BM_HipMallocFreeP50)->Arg(4 * kKiB)->Arg(kGiB)->UseRealTime();
  benchmark::RegisterBenchmark("BM_FutexRoundTrip", BM_FutexRoundTrip)->UseRealTime();
}

std::vector<hipmem_bench::RatioGoal> ColdGoals() {
  return {
      {Name("BM_HipMallocFree", {kGiB}), Name("BM_HipMallocFree", {4 * kKiB}), 2.0},
      {Name("BM_HipMallocFree", {4 * kKiB}), Name("BM_FutexRoundTrip", {}), 0},
  };
}

void RegisterStaged() {
  benchmark::RegisterBenchmark("BM_Memcpy", BM_Memcpy)->Arg(64 * kMiB)->UseRealTime();
  benchmark::RegisterBenchmark("BM_PinnedCopy", BM_PinnedCopy)->Args({64 * kMiB, kH2D})->Args({64 * kMiB, kD2H})
      ->UseRealTime();
  benchmark::RegisterBenchmark("BM_PageableCopy", BM_PageableCopy)->Args({64 * kMiB, kH2D})->Args({64 * kMiB, kD2H})
      ->UseRealTime();
  benchmark::RegisterBenchmark("BM_ChunkHandoff", BM_ChunkHandoff)->Arg(kH2D)->Arg(kD2H)->UseRealTime();
}

// The goals issue #26 ruled for pageable copies through the staging ring: each direction against its floor on this
// host, BM_ChunkHandoff (the same 64 MiB through a ring of four 1 MiB chunks by two bare threads, in the same run):
// staged / floor <= 1.3, and never faster than pinned. The gap to the floor is the runtime's own cost per chunk.
// Throughput against pinned is reported, not judged: here the simulated engine is itself a memcpy on the other core,
// so the staged H2D pipeline (the caller fills chunk i+1 while the engine drains chunk i, as CLR's does) overlaps
// two host copies, which says nothing about a real link's speed. BM_Memcpy, one CPU copy, is beside it.
std::vector<hipmem_bench::RatioGoal> StagedGoals() {
  std::vector<hipmem_bench::RatioGoal> goals;
  for (int64_t direction : {kH2D, kD2H}) {
    const std::string pageable = Name("BM_PageableCopy", {64 * kMiB, direction});
    const std::string pinned = Name("BM_PinnedCopy", {64 * kMiB, direction});
    goals.push_back({pageable, Name("BM_ChunkHandoff", {direction}), 1.3});  // the runtime's cost above the floor
    goals.push_back({pinned, pageable, 1.0});                                 // never faster than pinned
    goals.push_back({pageable, pinned, 0});
    goals.push_back({pageable, Name("BM_Memcpy", {64 * kMiB}), 0});  // one CPU copy of every byte
  }
  return goals;
}

const Configuration kConfigurations[] = {
    {"default", nullptr, nullptr, RegisterDefault, DefaultGoals},
    {"cold allocations", "HSA_DISABLE_FRAGMENT_ALLOCATOR", "1", RegisterCold, ColdGoals},
    {"pageable copies through staging", "GPU_PINNED_MIN_XFER_SIZE", "1024", RegisterStaged, StagedGoals},
};

// In a child process: 0 when every goal was met (or the filter selected nothing), 1 when one was missed, 2 when
// a benchmark failed.
int RunConfiguration(const Configuration& configuration) {
  if (configuration.env_name != nullptr) setenv(configuration.env_name, configuration.env_value, 1);
  configuration.register_benchmarks();
  hipmem_bench::RatioReporter reporter(configuration.goals());
  const size_t ran = benchmark::RunSpecifiedBenchmarks(&reporter);
  FreeLiveAllocations();
  if (ran == 0) return 0;
  const bool met = reporter.PrintRatios();
  if (reporter.failed()) return 2;
  return met ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  int worst = 0;
  for (const Configuration& configuration : kConfigurations) {
    std::printf("==== configuration: %s%s%s%s\n", configuration.name, configuration.env_name != nullptr ? " (" : "",
                configuration.env_name != nullptr ? configuration.env_name : "",
                configuration.env_name != nullptr ? (std::string("=") + configuration.env_value + ")").c_str() : "");
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t child = fork();
    if (child < 0) {
      std::perror("fork");
      return 2;
    }
    if (child == 0) {
      const int code = RunConfiguration(configuration);
      std::fflush(stdout);
      std::exit(code);
    }
    int status = 0;
    if (waitpid(child, &status, 0) != child) {
      std::perror("waitpid");
      return 2;
    }
    int code = 2;
    if (WIFEXITED(status)) {
      code = WEXITSTATUS(status);
    } else {
      std::printf("configuration %s: the child died (signal %d)\n", configuration.name,
                  WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    }
    worst = std::max(worst, code);
  }
  benchmark::Shutdown();
  return worst;
}
