// Fuzzes sequences of HIP calls (hip_fuzz_input.h) over live, freed, interior, foreign and null pointers, live and
// destroyed streams and events, on the process's simulated GPU. Beyond "no crash, no sanitizer report, no hang":
// every copy and memset through live memory reads back what was written, and a program run twice (releasing what it
// holds after each run) leaves the simulated kernel holding no more after the second run than after the first (see
// LLVMFuzzerTestOneInput), else the fuzzer aborts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hip/fuzz_steady_state.h"
#include "hip/hip_fuzz_input.h"
#include "hip/hip_runtime.h"

namespace {

namespace fuzz = ::hipmem::hip_fuzz;
using Op = fuzz::Op;

[[noreturn]] void Die(const char* what, long long a = 0, long long b = 0) {
  std::fprintf(stderr, "hip_ops_fuzzer: %s (%lld, %lld)\n", what, a, b);
  std::abort();
}

struct Block {
  uint8_t* ptr;
  size_t size;
};

// What one program holds. Handles are compared, never dereferenced, once given back.
struct State {
  std::vector<Block> device, host;
  std::vector<void*> freed_device, freed_host;
  std::vector<hipStream_t> streams, dead_streams;
  std::vector<hipEvent_t> events, dead_events;
};

alignas(64) uint8_t g_foreign[4096];  // plain host memory no HIP call ever owns

template <typename T>
void Erase(std::vector<T>& v, T x) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] == x) {
      v.erase(v.begin() + static_cast<long>(i));
      return;
    }
  }
}

// A pointer of the kind `sel % 5` picks: live, freed, interior of a live one, foreign, null.
void* PickPointer(const std::vector<Block>& live, const std::vector<void*>& freed, uint8_t sel) {
  const unsigned index = sel / 5;
  switch (sel % 5) {
    case 0:
      return live.empty() ? nullptr : live[index % live.size()].ptr;
    case 1:
      return freed.empty() ? nullptr : freed[index % freed.size()];
    case 2:
      if (live.empty()) return g_foreign + 64;
      return live[index % live.size()].ptr + 1 + index % (live[index % live.size()].size - 1);
    case 3:
      return g_foreign + (index % 8) * 8;
    default:
      return nullptr;
  }
}

template <typename H>
H PickHandle(const std::vector<H>& live, const std::vector<H>& dead, uint8_t sel) {
  switch (sel % 3) {
    case 0:
      return live.empty() ? nullptr : live[(sel / 3) % live.size()];
    case 1:
      return dead.empty() ? nullptr : dead[(sel / 3) % dead.size()];
    default:
      return nullptr;
  }
}

const Block* PickLive(const std::vector<Block>& live, uint8_t sel) {
  return live.empty() ? nullptr : &live[sel % live.size()];
}

// An address is live or freed whatever kind it was allocated as: hipFree and hipHostFree each free either kind (as
// CLR's do), and an address freed as one kind may come back as the other, since device and host allocations share
// the GPU's virtual address space. Keeping the kinds apart once let a stale device pointer free a live host block
// behind the program's back (a 1 h run stopped in Release on the hipHostFree of a block already gone).

// hipFree / hipHostFree / hipFreeAsync succeeded on `p`: whatever live block holds it, of either kind, is gone.
void Forget(State& s, void* p) {
  const auto* q = static_cast<const uint8_t*>(p);
  for (auto [live, freed] : {std::pair{&s.device, &s.freed_device}, std::pair{&s.host, &s.freed_host}}) {
    for (size_t i = 0; i < live->size(); ++i) {
      if (q >= (*live)[i].ptr && q < (*live)[i].ptr + (*live)[i].size) {
        freed->push_back((*live)[i].ptr);
        live->erase(live->begin() + static_cast<long>(i));
        return;
      }
    }
  }
}

// An allocation returned `p`: it is live in `live`, and no longer a freed address of either kind.
void Adopt(State& s, std::vector<Block>& live, void* p, size_t size) {
  Erase(s.freed_device, p);
  Erase(s.freed_host, p);
  live.push_back(Block{static_cast<uint8_t*>(p), size});
}

void CheckCopy(const Block& block, uint8_t seed, bool pinned) {
  std::vector<uint8_t> src(block.size), back(block.size, 0);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(seed + i * 29);
  void* staging = nullptr;
  const void* from = src.data();
  if (pinned && hipHostMalloc(&staging, block.size, hipHostMallocDefault) == hipSuccess) {
    std::memcpy(staging, src.data(), block.size);
    from = staging;
  }
  if (hipMemcpy(block.ptr, from, block.size, hipMemcpyHostToDevice) != hipSuccess) Die("H2D of a live block failed");
  if (hipMemcpy(back.data(), block.ptr, block.size, hipMemcpyDeviceToHost) != hipSuccess) Die("D2H failed");
  if (back != src) Die("a round trip read back other bytes", static_cast<long long>(block.size));
  if (staging != nullptr && hipHostFree(staging) != hipSuccess) Die("hipHostFree of staging failed");
}

void Run(const uint8_t* data, size_t size, State& s) {
  for (size_t at = 0; at < size; at += 1 + fuzz::kOperandBytes) {
    uint8_t a[fuzz::kOperandBytes] = {};
    for (int i = 0; i < fuzz::kOperandBytes && at + 1 + i < size; ++i) a[i] = data[at + 1 + i];
    const auto op = static_cast<Op>(data[at] % static_cast<uint8_t>(Op::kCount));
    const size_t bytes = (static_cast<size_t>(a[0]) << 8 | a[1]) * 64 + 64;
    switch (op) {
      case Op::kMalloc: {
        void* p = nullptr;
        if (hipMalloc(&p, bytes) == hipSuccess) Adopt(s, s.device, p, bytes);
        break;
      }
      case Op::kFree: {
        void* p = PickPointer(s.device, s.freed_device, a[0]);
        if (hipFree(p) == hipSuccess && p != nullptr) Forget(s, p);
        break;
      }
      case Op::kHostMalloc: {
        void* p = nullptr;
        if (hipHostMalloc(&p, bytes, hipHostMallocDefault) == hipSuccess) Adopt(s, s.host, p, bytes);
        break;
      }
      case Op::kHostFree: {
        void* p = PickPointer(s.host, s.freed_host, a[0]);
        if (hipHostFree(p) == hipSuccess && p != nullptr) Forget(s, p);
        break;
      }
      case Op::kMemcpyRoundTrip:
        if (const Block* b = PickLive(s.device, a[0])) CheckCopy(*b, a[1], (a[2] & 1) != 0);
        break;
      case Op::kMemcpyD2D: {
        const Block* x = PickLive(s.device, a[0]);
        const Block* y = PickLive(s.device, a[1]);
        if (x == nullptr || y == nullptr || x == y) break;
        const size_t n = x->size < y->size ? x->size : y->size;
        if (hipMemset(x->ptr, a[2], n) != hipSuccess) Die("hipMemset of a live block failed");
        if (hipMemcpy(y->ptr, x->ptr, n, hipMemcpyDeviceToDevice) != hipSuccess) Die("D2D of live blocks failed");
        std::vector<uint8_t> back(n);
        if (hipMemcpy(back.data(), y->ptr, n, hipMemcpyDeviceToHost) != hipSuccess) Die("D2H failed");
        for (uint8_t v : back) {
          if (v != a[2]) Die("D2D read back other bytes", v, a[2]);
        }
        break;
      }
      case Op::kMemset: {
        const Block* b = PickLive(s.device, a[0]);
        if (b == nullptr) break;
        if (hipMemset(b->ptr, a[1], b->size) != hipSuccess) Die("hipMemset of a live block failed");
        uint8_t last = 0;
        if (hipMemcpy(&last, b->ptr + b->size - 1, 1, hipMemcpyDeviceToHost) != hipSuccess) Die("D2H failed");
        if (last != a[1]) Die("hipMemset did not reach the end", last, a[1]);
        break;
      }
      case Op::kMallocAsync: {
        void* p = nullptr;
        hipStream_t stream = PickHandle(s.streams, s.dead_streams, a[2]);
        if (hipMallocAsync(&p, bytes, stream) == hipSuccess) {
          if (hipStreamSynchronize(stream) != hipSuccess) Die("synchronizing a stream that just allocated failed");
          Adopt(s, s.device, p, bytes);
        }
        break;
      }
      case Op::kFreeAsync: {
        void* p = PickPointer(s.device, s.freed_device, a[0]);
        hipStream_t stream = PickHandle(s.streams, s.dead_streams, a[1]);
        if (hipFreeAsync(p, stream) == hipSuccess && p != nullptr) {
          Forget(s, p);
          (void)hipStreamSynchronize(stream);
        }
        break;
      }
      case Op::kStreamCreate: {
        hipStream_t stream = nullptr;
        if (hipStreamCreate(&stream) == hipSuccess) {
          Erase(s.dead_streams, stream);
          s.streams.push_back(stream);
        }
        break;
      }
      case Op::kStreamDestroy: {
        hipStream_t stream = PickHandle(s.streams, s.dead_streams, a[0]);
        if (hipStreamDestroy(stream) == hipSuccess && stream != nullptr) {
          Erase(s.streams, stream);
          s.dead_streams.push_back(stream);
        }
        break;
      }
      case Op::kStreamSynchronize:
        (void)hipStreamSynchronize(PickHandle(s.streams, s.dead_streams, a[0]));
        break;
      case Op::kEventCreate: {
        hipEvent_t event = nullptr;
        if (hipEventCreate(&event) == hipSuccess) {
          Erase(s.dead_events, event);
          s.events.push_back(event);
        }
        break;
      }
      case Op::kEventRecord:
        (void)hipEventRecord(PickHandle(s.events, s.dead_events, a[0]), PickHandle(s.streams, s.dead_streams, a[1]));
        break;
      case Op::kEventSynchronize:
        (void)hipEventSynchronize(PickHandle(s.events, s.dead_events, a[0]));
        break;
      case Op::kEventDestroy: {
        hipEvent_t event = PickHandle(s.events, s.dead_events, a[0]);
        if (hipEventDestroy(event) == hipSuccess && event != nullptr) {
          Erase(s.events, event);
          s.dead_events.push_back(event);
        }
        break;
      }
      case Op::kPointerAttributes: {
        hipPointerAttribute_t attributes{};
        std::vector<Block> all = s.device;
        all.insert(all.end(), s.host.begin(), s.host.end());
        (void)hipPointerGetAttributes(&attributes, PickPointer(all, s.freed_device, a[0]));
        break;
      }
      case Op::kDeviceSynchronize:
        if (hipDeviceSynchronize() != hipSuccess) Die("hipDeviceSynchronize failed");
        break;
      case Op::kCount:
        break;
    }
  }
}

// Gives back everything a program still holds, and trims the default pool.
void Release(State& s) {
  for (hipEvent_t e : s.events) {
    if (hipEventSynchronize(e) != hipSuccess || hipEventDestroy(e) != hipSuccess) Die("releasing an event failed");
  }
  for (hipStream_t stream : s.streams) {
    if (hipStreamSynchronize(stream) != hipSuccess || hipStreamDestroy(stream) != hipSuccess) {
      Die("releasing a stream failed");
    }
  }
  if (hipDeviceSynchronize() != hipSuccess) Die("hipDeviceSynchronize failed");
  for (const Block& b : s.device) {
    if (const hipError_t e = hipFree(b.ptr); e != hipSuccess) {
      Die("hipFree of a live block failed (error, size)", e, static_cast<long long>(b.size));
    }
  }
  for (const Block& b : s.host) {
    if (const hipError_t e = hipHostFree(b.ptr); e != hipSuccess) {
      Die("hipHostFree of a live block failed (error, size)", e, static_cast<long long>(b.size));
    }
  }
  hipMemPool_t pool = nullptr;
  if (hipDeviceGetDefaultMemPool(&pool, 0) != hipSuccess || hipMemPoolTrimTo(pool, 0) != hipSuccess) {
    Die("trimming the default pool failed");
  }
  s = State{};
}

void Init() {
  static const bool ready = [] {
    setenv("HIPMEM_KFD_BACKEND", "sim", 1);  // hermetic whatever the machine has
    if (hipInit(0) != hipSuccess) Die("hipInit failed");
    return true;
  }();
  (void)ready;
}

// Runs the program once and releases what it holds; returns what the simulated kernel and the runtime hold
// afterwards.
fuzz::SteadyState Pass(const uint8_t* data, size_t size) {
  State s;
  Run(data, size, s);
  Release(s);
  return fuzz::CaptureSteadyState();
}

}  // namespace

// The invariant, as for ROCm: the runtime may keep what a first use creates for the rest of the process (ROCr makes
// the SDMA engine of each copy direction on its first copy, with its ring, signals and KFD events, and keeps it until
// hsa_shut_down; likewise the staging buffers and the pools' blocks), so usage after an input is not compared with
// the state before it: a program's first large copy adds two SDMA queues. What it keeps must be bounded, though, and
// nothing may stay behind per op: the same program run a second time, on those caches, must not end holding more than
// the first run ended with (UsageAtMost: buffers, mappings, queues, SVM ranges, VRAM and system bytes), nor with more
// live runtime memory objects: a small allocation leaked inside a 2 MiB block the runtime already holds changes no
// kernel count, only the runtime's (fuzz_steady_state.h). KFD events are left out: the signal pool keeps up to 256
// idle ones, and how many exist follows how many signals happened to be alive at once, which the copy watchers'
// timing decides (the fault sweeps leave them out for the same reason).
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Init();
  const fuzz::SteadyState first = Pass(data, size);
  const fuzz::SteadyState second = Pass(data, size);
  if (const std::optional<std::string> grew = fuzz::SteadyStateGrew(first, second); grew.has_value()) {
    std::fprintf(stderr, "hip_ops_fuzzer: a second run of the same input left more behind than the first: %s\n",
                 grew->c_str());
    std::abort();
  }
  return 0;
}
