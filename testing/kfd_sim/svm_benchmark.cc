// What migrating a 256 MiB SVM range costs in the simulated KFD, as ratios to a single-thread memcpy of the same
// size in the same run (issue #10 §3: prefetch migration of 256 MiB vs memcpy):
//   BM_SvmPrefetchToVram: SET_ATTR PREFETCH_LOC=gpu over a range living in system memory (copy into the VRAM pages,
//     register the range with userfaultfd, drop the CPU pages);
//   BM_SvmPrefetchToSystem: SET_ATTR PREFETCH_LOC=sysmem over a range living in VRAM (UFFDIO_COPY back, unregister);
//   BM_SvmCpuTouchBringsBack: the CPU reading one byte per 2 MiB granule of a VRAM-resident range, each read a
//     userfaultfd fault served by the simulator's handler thread.
// The untimed half of each iteration puts the range back where the timed half expects it. Report only: the issue
// sets no goal, and a migration is a copy plus page-table work, so a ratio near 1-2 is what a healthy host shows.
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "kfd_uapi/kfd_svm.h"
#include "testing/kfd_sim/simulator.h"
#include "base/bench/ratio_reporter.h"

namespace hipmem::kfd_sim {
namespace {

namespace uapi = ::hipmem::kfd_uapi;

constexpr int64_t kBytes = int64_t{256} << 20;
constexpr uint64_t kGranule = uint64_t{2} << 20;

// The baseline: a single-thread memcpy between two committed, page-aligned buffers of the range's size.
void BM_Memcpy(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  std::vector<char> src(bytes, 1);
  std::vector<char> dst(bytes, 0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

// One process of a one-GPU simulator with a range of fresh anonymous memory, all pages written once.
class SvmFixture {
 public:
  explicit SvmFixture(uint64_t bytes) : bytes_(bytes) {
    absl::StatusOr<std::unique_ptr<Simulator>> sim = Simulator::Create(DefaultTopology());
    if (!sim.ok()) std::abort();
    sim_ = *std::move(sim);
    file_ = sim_->Open();
    gpu_ = sim_->topology().gpus[0].gpu_id;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) std::abort();
    mem_ = static_cast<char*>(p);
    std::memset(mem_, 1, bytes);
  }
  ~SvmFixture() {
    file_.reset();
    munmap(mem_, bytes_);
  }
  SvmFixture(const SvmFixture&) = delete;
  SvmFixture& operator=(const SvmFixture&) = delete;

  // Issues SET_ATTR PREFETCH_LOC=`location`; false when the ioctl fails.
  bool Prefetch(uint32_t location) {
    struct {
      uapi::SvmArgs args;
      uapi::SvmAttribute attr;
    } request{.args = {.start_addr = reinterpret_cast<uintptr_t>(mem_), .size = bytes_,
                       .op = uapi::ToRaw(uapi::SvmOp::kSetAttr), .nattr = 1},
              .attr = {.type = uapi::ToRaw(uapi::SvmAttrType::kPrefetchLoc), .value = location}};
    return file_->Ioctl(uapi::SvmRequest(1), &request) == 0;
  }
  uint64_t VramUsed() const { return sim_->Snapshot().gpus[0].vram_used.raw(); }

  uint32_t gpu() const { return gpu_; }
  char* mem() const { return mem_; }

 private:
  uint64_t bytes_;
  std::unique_ptr<Simulator> sim_;
  std::unique_ptr<SimFile> file_;
  uint32_t gpu_ = 0;
  char* mem_ = nullptr;
};

void BM_SvmPrefetchToVram(benchmark::State& state) {
  SvmFixture f(static_cast<uint64_t>(state.range(0)));
  for (auto _ : state) {
    if (!f.Prefetch(f.gpu())) state.SkipWithError("SET_ATTR failed");
    state.PauseTiming();
    if (f.VramUsed() != static_cast<uint64_t>(state.range(0))) {
      state.SkipWithError("the range did not move to VRAM (no userfaultfd here?)");
    }
    f.Prefetch(uapi::kSvmLocationSysmem);
    state.ResumeTiming();
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

void BM_SvmPrefetchToSystem(benchmark::State& state) {
  SvmFixture f(static_cast<uint64_t>(state.range(0)));
  for (auto _ : state) {
    state.PauseTiming();
    f.Prefetch(f.gpu());
    if (f.VramUsed() != static_cast<uint64_t>(state.range(0))) {
      state.SkipWithError("the range did not move to VRAM (no userfaultfd here?)");
    }
    state.ResumeTiming();
    if (!f.Prefetch(uapi::kSvmLocationSysmem)) state.SkipWithError("SET_ATTR failed");
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

void BM_SvmCpuTouchBringsBack(benchmark::State& state) {
  const uint64_t bytes = static_cast<uint64_t>(state.range(0));
  SvmFixture f(bytes);
  uint64_t sum = 0;
  for (auto _ : state) {
    state.PauseTiming();
    f.Prefetch(f.gpu());
    if (f.VramUsed() != bytes) state.SkipWithError("the range did not move to VRAM (no userfaultfd here?)");
    state.ResumeTiming();
    for (uint64_t at = 0; at < bytes; at += kGranule) sum += static_cast<unsigned char>(f.mem()[at]);
    benchmark::DoNotOptimize(sum);
  }
  if (f.VramUsed() != 0) state.SkipWithError("a touched granule stayed in VRAM");
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

BENCHMARK(BM_Memcpy)->Arg(kBytes)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SvmPrefetchToVram)->Arg(kBytes)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SvmPrefetchToSystem)->Arg(kBytes)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SvmCpuTouchBringsBack)->Arg(kBytes)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hipmem::kfd_sim

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  const std::string memcpy_name = "BM_Memcpy/" + std::to_string(hipmem::kfd_sim::kBytes) + "/real_time";
  const auto name = [&](const char* bench) {
    return std::string(bench) + "/" + std::to_string(hipmem::kfd_sim::kBytes) + "/real_time";
  };
  hipmem_bench::RatioReporter reporter({
      {name("BM_SvmPrefetchToVram"), memcpy_name, 0},
      {name("BM_SvmPrefetchToSystem"), memcpy_name, 0},
      {name("BM_SvmCpuTouchBringsBack"), memcpy_name, 0},
  });
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const bool met = reporter.PrintRatios();
  benchmark::Shutdown();
  return met ? 0 : 1;
}
