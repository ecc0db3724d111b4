// How fast the simulated GPU runs real kernels (issue #22 §5), as same-run ratios to one host thread doing the
// same work: a memory-bound vector add over 64 Mi floats, a compute-bound dependent FMA chain, an LDS reduction
// with barriers, and the scaling of one large dispatch from one compute-unit thread to every host core.
// Instructions per second per core are reported as a counter ("inst/s/core": wave instructions, 64 lanes each).
//
// CPU time is the whole process's (the compute units are other threads), so a ratio's "cpu" figure says how much
// work the GPU rows cost whatever else the machine runs; wall-time ratios on a shared machine move with its load.
//
// Goals (judged on medians of interleaved repetitions): vector add on one core <= 20x the host loop, FMA chain on
// one core <= 100x, and all cores at >= 0.7 parallel efficiency (time(N) / time(1) <= 1 / (0.7 N)).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "benchmark/benchmark.h"
#include "gpu_abi/aql_packets.h"
#include "testing/kfd_sim/engines/compute_engine.h"
#include "testing/kfd_sim/engines/gfx9/kernel_runner.h"
#include "testing/kfd_sim/engines/gfx9/test_code_objects.h"
#include "testing/kfd_sim/engines/test_memory.h"
#include "base/bench/ratio_reporter.h"

namespace hipmem::kfd_sim {
namespace {

constexpr uint32_t kVectorElements = 64u << 20;  // 64 Mi floats
constexpr uint32_t kFmaItems = 64u << 10;         // work-items of the FMA chain
constexpr uint32_t kFmaIterations = 1000;
constexpr uint32_t kSumGroups = 16384;            // 4 Mi elements in workgroups of 256

uint64_t Va(const void* p) { return reinterpret_cast<uint64_t>(p); }

struct alignas(64) Slot {
  unsigned char bytes[aql::kPacketBytes];
};


// A gfx942 compute queue with `units` compute-unit threads and the test kernels loaded.
class Gpu {
 public:
  explicit Gpu(int units) : ring_(8) {
    for (Slot& s : ring_) aql::InvalidateSlot(&s);
    memory_.Map(ring_.data(), ring_.size() * aql::kPacketBytes);
    memory_.Map(&read_index_, sizeof(read_index_));
    memory_.Map(&signal_, sizeof(signal_));
    code_ = std::move(*gfx9::LoadedCodeObject::Load(hipmem_testing::kernels_gfx942(), &memory_));
    AqlQueueDescriptor queue{.ring_va = Va(ring_.data()),
                             .ring_bytes = static_cast<uint32_t>(ring_.size() * aql::kPacketBytes),
                             .read_dispatch_id_va = Va(&read_index_),
                             .write_dispatch_id_va = Va(&write_index_)};
    queue.isa = gfx9::Target::kGfx942;
    engine_ = std::make_unique<ComputeEngine>("bench", &memory_, queue, units, ComputeEngine::Callbacks{});
  }
  ~Gpu() {
    engine_.reset();
    code_.reset();
  }

  void Map(const void* p, uint64_t bytes) { memory_.Map(p, bytes); }
  int units() const { return engine_->worker_count(); }
  uint64_t instructions() const { return engine_->instructions_executed(); }

  // Dispatches and waits; false if the queue halted.
  bool Run(const char* kernel, uint32_t grid, uint16_t workgroup, const void* kernargs) {
    aql::KernelDispatchPacket p{};
    p.header = aql::Header(aql::PacketType::kKernelDispatch);
    p.setup = 1;
    p.workgroup_size_x = workgroup;
    p.workgroup_size_y = p.workgroup_size_z = 1;
    p.grid_size_x = grid;
    p.grid_size_y = p.grid_size_z = 1;
    p.kernel_object = *code_->KernelObject(kernel);
    p.kernarg_address = Va(kernargs);
    p.completion_signal = Va(&signal_);
    std::atomic_ref<int64_t>(signal_.value).store(1, std::memory_order_release);
    aql::WritePacket(&ring_[write_index_ % ring_.size()], p);
    engine_->RingDoorbell(write_index_);
    ++write_index_;
    return engine_->WaitIdle();
  }

 private:
  IdentityPageTable memory_;
  std::vector<Slot> ring_;
  uint64_t read_index_ = 0;
  uint64_t write_index_ = 0;
  aql::AmdSignal signal_{};
  std::unique_ptr<gfx9::LoadedCodeObject> code_;
  std::unique_ptr<ComputeEngine> engine_;
};

// The vector add's operands, made once and shared by the host and GPU rows.
struct Vectors {
  std::vector<float> a, b, c;
  Vectors() : a(kVectorElements), b(kVectorElements), c(kVectorElements) {
    for (uint32_t i = 0; i < kVectorElements; ++i) {
      a[i] = static_cast<float>(i & 1023);
      b[i] = static_cast<float>(i >> 10);
    }
  }
};
Vectors& SharedVectors() {
  static Vectors* v = new Vectors();
  return *v;
}

void ReportInstructions(benchmark::State& state, uint64_t instructions, int units) {
  state.counters["inst/s/core"] = benchmark::Counter(static_cast<double>(instructions) / units,
                                                     benchmark::Counter::kIsRate);
}

void BM_HostVectorAdd(benchmark::State& state) {
  Vectors& v = SharedVectors();
  for (auto _ : state) {
    for (uint32_t i = 0; i < kVectorElements; ++i) v.c[i] = v.a[i] + v.b[i];
    benchmark::DoNotOptimize(v.c.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * uint64_t{kVectorElements} * 12);
}

void BM_GpuVectorAdd(benchmark::State& state) {
  Vectors& v = SharedVectors();
  Gpu gpu(static_cast<int>(state.range(0)));
  gpu.Map(v.a.data(), kVectorElements * 4ull);
  gpu.Map(v.b.data(), kVectorElements * 4ull);
  gpu.Map(v.c.data(), kVectorElements * 4ull);
  struct {
    const float* a;
    const float* b;
    float* c;
    uint32_t n;
    uint32_t pad;
    gfx9::HiddenArgs hidden;
  } args{v.a.data(), v.b.data(), v.c.data(), kVectorElements, 0, gfx9::Hidden1d(kVectorElements, 256)};
  gpu.Map(&args, sizeof(args));
  const uint64_t before = gpu.instructions();
  for (auto _ : state) {
    if (!gpu.Run("vector_add", kVectorElements, 256, &args)) state.SkipWithError("queue halted");
  }
  state.SetBytesProcessed(state.iterations() * uint64_t{kVectorElements} * 12);
  ReportInstructions(state, gpu.instructions() - before, gpu.units());
}

float HostFmaChain(uint32_t t) {
  float v = static_cast<float>(t);
  for (uint32_t k = 0; k < kFmaIterations; ++k) v = std::fma(v, 0.999f, 0.5f);
  return v;
}

void BM_HostFmaChain(benchmark::State& state) {
  std::vector<float> out(kFmaItems);
  for (auto _ : state) {
    for (uint32_t i = 0; i < kFmaItems; ++i) out[i] = HostFmaChain(i % 256);
    benchmark::DoNotOptimize(out.data());
  }
}

void BM_GpuFmaChain(benchmark::State& state) {
  Gpu gpu(static_cast<int>(state.range(0)));
  std::vector<float> out(kFmaItems);
  gpu.Map(out.data(), out.size() * 4);
  struct {
    float* out;
    uint32_t iterations;
    uint32_t pad;
    gfx9::HiddenArgs hidden;
  } args{out.data(), kFmaIterations, 0, gfx9::Hidden1d(kFmaItems, 256)};
  gpu.Map(&args, sizeof(args));
  const uint64_t before = gpu.instructions();
  for (auto _ : state) {
    if (!gpu.Run("fma_chain", kFmaItems, 256, &args)) state.SkipWithError("queue halted");
  }
  if (out[1] != HostFmaChain(1)) state.SkipWithError("wrong result");
  ReportInstructions(state, gpu.instructions() - before, gpu.units());
}

void BM_HostBlockSum(benchmark::State& state) {
  std::vector<uint32_t> in(kSumGroups * 256, 3), out(kSumGroups);
  for (auto _ : state) {
    for (uint32_t g = 0; g < kSumGroups; ++g) {
      uint32_t sum = 0;
      for (uint32_t t = 0; t < 256; ++t) sum += in[g * 256 + t];
      out[g] = sum;
    }
    benchmark::DoNotOptimize(out.data());
  }
}

void BM_GpuBlockSum(benchmark::State& state) {
  Gpu gpu(static_cast<int>(state.range(0)));
  std::vector<uint32_t> in(kSumGroups * 256, 3), out(kSumGroups);
  gpu.Map(in.data(), in.size() * 4);
  gpu.Map(out.data(), out.size() * 4);
  struct {
    const uint32_t* in;
    uint32_t* out;
    gfx9::HiddenArgs hidden;
  } args{in.data(), out.data(), gfx9::Hidden1d(kSumGroups * 256, 256)};
  gpu.Map(&args, sizeof(args));
  const uint64_t before = gpu.instructions();
  for (auto _ : state) {
    if (!gpu.Run("block_sum", kSumGroups * 256, 256, &args)) state.SkipWithError("queue halted");
  }
  if (out[kSumGroups - 1] != 3 * 256) state.SkipWithError("wrong result");
  ReportInstructions(state, gpu.instructions() - before, gpu.units());
}

int Cores() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

BENCHMARK(BM_HostVectorAdd)->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GpuVectorAdd)->Arg(1)->Arg(Cores())->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HostFmaChain)->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GpuFmaChain)->Arg(1)->Arg(Cores())->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HostBlockSum)->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GpuBlockSum)->Arg(1)->Arg(Cores())->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hipmem::kfd_sim

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  const std::string n = std::to_string(hipmem::kfd_sim::Cores());
  const double scaling = 1.0 / (0.7 * hipmem::kfd_sim::Cores());
  hipmem_bench::RatioReporter reporter({
      {"BM_GpuVectorAdd/1/process_time/real_time", "BM_HostVectorAdd/process_time/real_time", 20.0},
      {"BM_GpuFmaChain/1/process_time/real_time", "BM_HostFmaChain/process_time/real_time", 100.0},
      {"BM_GpuBlockSum/1/process_time/real_time", "BM_HostBlockSum/process_time/real_time", 0.0},
      {"BM_GpuVectorAdd/" + n + "/process_time/real_time", "BM_GpuVectorAdd/1/process_time/real_time", scaling},
      {"BM_GpuFmaChain/" + n + "/process_time/real_time", "BM_GpuFmaChain/1/process_time/real_time", scaling},
      {"BM_GpuBlockSum/" + n + "/process_time/real_time", "BM_GpuBlockSum/1/process_time/real_time", scaling},
  });
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const bool met = reporter.PrintRatios();
  benchmark::Shutdown();
  return met ? 0 : 1;
}
