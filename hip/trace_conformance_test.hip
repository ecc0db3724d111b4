// One call through five layers, seen: a HIP program traced into a Chrome trace-event file (what HIPMEM_TRACE=FILE
// writes), read back by a strict reader of the format. Every hipMemcpy is a hip_api slice with clr and hsa_api slices
// nested inside it on its thread and an arrow from its enqueue to the engine that ran the work (an sdma or compute
// track); one from pageable memory also pins it through hsakmt and kfd, and waits for the arrow from the engine's
// completion back into the call. A copy inside one device is left running, as CLR leaves it, and needs no thunk call
// (the doorbell is a user-mode store), as on ROCm.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "base/trace.h"
#include "base/trace_file_sink.h"
#include "gtest/gtest.h"
#include "testing/chrome_trace_reader.h"

namespace {

using ::hipmem::testing::TraceEvent;

__global__ void twice(const int* in, int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i];
}

const std::set<std::string> kCategories = {"hip_api", "clr", "hsa_api", "hsakmt", "kfd", "sdma", "compute"};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool Within(const TraceEvent& outer, double ts) { return outer.ts <= ts && ts <= outer.ts + outer.dur; }

struct Traced {
  std::vector<TraceEvent> events;
  std::string text;
};

// Runs `body` with a trace file installed, then reads the file back strictly.
template <typename Body>
Traced TraceOf(Body body) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir != nullptr ? dir : "/tmp") + "/hip_trace_" + std::to_string(getpid()) + ".json";
  absl::StatusOr<std::unique_ptr<hipmem::TraceFileSink>> sink = hipmem::TraceFileSink::Open(path);
  EXPECT_TRUE(sink.ok()) << sink.status();
  if (!sink.ok()) return {};
  hipmem::SetTraceSink(sink->get());
  body();
  hipmem::SetTraceSink(nullptr);
  (*sink)->Close();
  Traced traced;
  traced.text = ReadFile(path);
  absl::StatusOr<std::vector<TraceEvent>> events = hipmem::testing::ReadChromeTrace(traced.text, kCategories);
  EXPECT_TRUE(events.ok()) << events.status();
  if (events.ok()) traced.events = std::move(*events);
  return traced;
}

// The categories of the slices nested in `call` on its thread.
std::set<std::string> NestedCategories(const std::vector<TraceEvent>& events, const TraceEvent& call) {
  std::set<std::string> out;
  for (const TraceEvent& e : events) {
    if (&e != &call && e.ph == "X" && e.tid == call.tid && Within(call, e.ts) && Within(call, e.ts + e.dur)) {
      out.insert(e.cat);
    }
  }
  return out;
}

// The engine slices a flow starting inside `call` on its thread ends in, and whether a flow that an engine started
// ends inside `call` (the completion reaching the waiter).
struct Arrows {
  std::set<std::string> enqueued_to;
  std::set<std::string> completed_from;
};

Arrows ArrowsOf(const std::vector<TraceEvent>& events, const TraceEvent& call) {
  Arrows arrows;
  auto slice_at = [&](const TraceEvent& point) -> const TraceEvent* {
    const TraceEvent* best = nullptr;
    for (const TraceEvent& e : events) {
      if (e.ph == "X" && e.tid == point.tid && Within(e, point.ts) && (best == nullptr || e.dur < best->dur)) best = &e;
    }
    return best;
  };
  for (const TraceEvent& start : events) {
    if (start.ph != "s") continue;
    for (const TraceEvent& end : events) {
      if (end.ph != "f" || end.id != start.id || end.ts < start.ts) continue;
      const TraceEvent* from = slice_at(start);
      const TraceEvent* to = slice_at(end);
      if (from == nullptr || to == nullptr) continue;
      if (start.tid == call.tid && Within(call, start.ts)) arrows.enqueued_to.insert(to->cat);
      if (end.tid == call.tid && Within(call, end.ts)) arrows.completed_from.insert(from->cat);
      break;  // the first end after this start closes its chain
    }
  }
  return arrows;
}

TEST(HipTraceTest, EveryHipMemcpyNestsTheLayersBelowItAndReachesAnEngine) {
  // Pageable host memory above the pinning threshold: each copy pins it through the thunk and the KFD, so every
  // hipMemcpy reaches all five layers whatever the timing.
  constexpr size_t kBytes = 8 << 20;
  std::vector<char> host(kBytes, 7), back(kBytes, 0);
  void* a = nullptr;
  void* b = nullptr;
  const Traced traced = TraceOf([&] {
    ASSERT_EQ(hipMalloc(&a, kBytes), hipSuccess);
    ASSERT_EQ(hipMalloc(&b, kBytes), hipSuccess);
    ASSERT_EQ(hipMemcpy(a, host.data(), kBytes, hipMemcpyHostToDevice), hipSuccess);
    ASSERT_EQ(hipMemcpy(b, a, kBytes, hipMemcpyDeviceToDevice), hipSuccess);
    ASSERT_EQ(hipMemcpy(back.data(), b, kBytes, hipMemcpyDeviceToHost), hipSuccess);
    ASSERT_EQ(hipFree(a), hipSuccess);
    ASSERT_EQ(hipFree(b), hipSuccess);
  });
  ASSERT_EQ(back, host);
  std::vector<const TraceEvent*> copies;
  for (const TraceEvent& e : traced.events) {
    if (e.ph == "X" && e.name == "hipMemcpy") copies.push_back(&e);
  }
  ASSERT_EQ(copies.size(), 3u);
  std::sort(copies.begin(), copies.end(), [](const TraceEvent* x, const TraceEvent* y) { return x->ts < y->ts; });
  for (size_t i = 0; i < copies.size(); ++i) {
    const TraceEvent& e = *copies[i];
    const bool device_to_device = i == 1;
    SCOPED_TRACE(device_to_device ? "device to device" : i == 0 ? "host to device" : "device to host");
    EXPECT_EQ(e.cat, "hip_api");
    const std::set<std::string> nested = NestedCategories(traced.events, e);
    EXPECT_TRUE(nested.contains("clr"));
    EXPECT_TRUE(nested.contains("hsa_api"));
    const Arrows arrows = ArrowsOf(traced.events, e);
    EXPECT_TRUE(arrows.enqueued_to.contains("sdma") || arrows.enqueued_to.contains("compute"));
    if (device_to_device) continue;  // a copy inside one device is left running (CLR): user-mode submission only
    // Pinning pageable memory goes through the thunk to the KFD; the call waits for the engine's completion.
    EXPECT_TRUE(nested.contains("hsakmt"));
    EXPECT_TRUE(nested.contains("kfd"));
    EXPECT_TRUE(arrows.completed_from.contains("sdma") || arrows.completed_from.contains("compute"));
  }
  bool malloc_reaches_the_kfd = false;
  for (const TraceEvent& e : traced.events) {
    if (e.ph == "X" && e.name == "hipMalloc") {
      const std::set<std::string> nested = NestedCategories(traced.events, e);
      malloc_reaches_the_kfd = malloc_reaches_the_kfd || nested.contains("kfd");
    }
  }
  EXPECT_TRUE(malloc_reaches_the_kfd);  // the first allocations go down to AMDKFD_IOC_ALLOC_MEMORY_OF_GPU
}

TEST(HipTraceTest, AKernelLaunchHasAnArrowToTheComputeEngineAndItsDispatchSlice) {
  constexpr int kN = 1000;
  int* in = nullptr;
  int* out = nullptr;
  std::vector<int> host(kN, 3), result(kN, 0);
  const Traced traced = TraceOf([&] {
    ASSERT_EQ(hipMalloc(&in, kN * sizeof(int)), hipSuccess);
    ASSERT_EQ(hipMalloc(&out, kN * sizeof(int)), hipSuccess);
    ASSERT_EQ(hipMemcpy(in, host.data(), kN * sizeof(int), hipMemcpyHostToDevice), hipSuccess);
    twice<<<(kN + 255) / 256, 256>>>(in, out, kN);
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
    ASSERT_EQ(hipMemcpy(result.data(), out, kN * sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
  });
  EXPECT_EQ(result, std::vector<int>(kN, 6));
  ASSERT_EQ(hipFree(in), hipSuccess);
  ASSERT_EQ(hipFree(out), hipSuccess);
  const TraceEvent* launch = nullptr;
  bool dispatch_slice = false;
  for (const TraceEvent& e : traced.events) {
    if (e.ph == "X" && e.cat == "hip_api" && e.name.find("Launch") != std::string::npos) launch = &e;
    if (e.ph == "X" && e.cat == "compute" && e.name == "kernel dispatch") dispatch_slice = true;
  }
  ASSERT_NE(launch, nullptr) << traced.text;
  EXPECT_TRUE(dispatch_slice);
  EXPECT_TRUE(ArrowsOf(traced.events, *launch).enqueued_to.contains("compute"));
}

TEST(HipTraceTest, EngineThreadsAreNamedTracks) {
  void* p = nullptr;
  std::vector<char> host(1 << 20, 1);
  const Traced traced = TraceOf([&] {
    ASSERT_EQ(hipMalloc(&p, host.size()), hipSuccess);
    ASSERT_EQ(hipMemcpy(p, host.data(), host.size(), hipMemcpyHostToDevice), hipSuccess);
  });
  ASSERT_EQ(hipFree(p), hipSuccess);
  std::set<int64_t> engine_threads;
  for (const TraceEvent& e : traced.events) {
    if (e.ph == "X" && (e.cat == "sdma" || e.cat == "compute")) engine_threads.insert(e.tid);
  }
  ASSERT_FALSE(engine_threads.empty());
  for (const int64_t tid : engine_threads) {
    bool named = false;
    for (const TraceEvent& e : traced.events) named = named || (e.ph == "M" && e.name == "thread_name" && e.tid == tid);
    EXPECT_TRUE(named) << "thread " << tid;
  }
}

}  // namespace
