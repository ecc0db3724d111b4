// Counts the cache lines one MemObjMap lookup misses, under a cache simulator.
//
// This machine's VM exposes no hardware performance counters (`perf stat -e cache-misses` answers
// "<not supported>"), so the per-lookup miss counts issue #9 §5 asks for come from Cachegrind instead:
//
//   valgrind --tool=cachegrind --cache-sim=yes --LL=8388608,16,64 bazel-bin/clr/pointer_index_misses N L
//
// run once with L=0 and once with L lookups: (D1 misses(L) - D1 misses(0)) / L is the number of cache
// lines a lookup touches that were not already in the 48 KiB L1 (every line, once the population's index is
// far larger than L1), and the same difference of LL misses is the lines that came from DRAM with an 8 MiB
// last-level cache. Cachegrind simulates no TLB: the dTLB side is argued from the layout in pointer_index.h.
//
// The objects are laid out as hipMalloc lays out small allocations: one per 4 KiB fragment granule, side by
// side. The queried addresses are uniformly random among them (a fixed-seed xorshift, computed in registers,
// so the driver's own reads add no misses), and each lookup is an interior pointer.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>

#include "clr/mem_obj_map.h"
#include "clr/memory.h"

namespace {

using ::hipmem::AddressRange;
using ::hipmem::Bytes;
using ::hipmem::DeviceAddress;
using ::hipmem::clr::MemObjMap;
using ::hipmem::clr::MemObjRef;
using ::hipmem::clr::Memory;
using ::hipmem::clr::MemoryDesc;
using ::hipmem::clr::MemoryKind;

constexpr uint64_t kFirstBase = uint64_t{0x7f0000000000};
constexpr uint64_t kGranule = 4096;
constexpr uint64_t kObjectSize = 256;

uint64_t Next(uint64_t& state) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s POPULATION LOOKUPS\n", argv[0]);
    return 2;
  }
  const uint64_t population = std::strtoull(argv[1], nullptr, 10);
  const uint64_t lookups = std::strtoull(argv[2], nullptr, 10);
  if (population == 0) {
    std::fprintf(stderr, "POPULATION must be at least 1\n");
    return 2;
  }
  MemObjMap map;
  for (uint64_t i = 0; i < population; ++i) {
    const DeviceAddress base(kFirstBase + i * kGranule);
    const MemoryDesc desc{.range = AddressRange{base, Bytes(kObjectSize)},
                          .gpu_address = base,
                          .kind = MemoryKind::kDevice,
                          .device = 0,
                          .user_flags = 0,
                          .pool = hipmem::hsa::PoolId(1)};
    // No runtime behind the object: the map's destructor has nothing to release.
    if (!map.Insert(std::make_unique<Memory>(nullptr, desc)).ok()) {
      std::fprintf(stderr, "insert %llu failed\n", static_cast<unsigned long long>(i));
      return 1;
    }
  }
  uint64_t state = 0x9e3779b97f4a7c15;
  uint64_t checksum = 0;
  for (uint64_t i = 0; i < lookups; ++i) {
    const uint64_t object = Next(state) % population;
    const std::optional<MemObjRef> ref = map.Find(DeviceAddress(kFirstBase + object * kGranule + 64));
    if (!ref.has_value()) {
      std::fprintf(stderr, "lookup %llu found nothing\n", static_cast<unsigned long long>(i));
      return 1;
    }
    checksum += ref->desc.gpu_address.raw() + static_cast<uint64_t>(ref->desc.kind) + ref->offset.raw();
  }
  std::printf("population %llu lookups %llu checksum %llx\n", static_cast<unsigned long long>(population),
              static_cast<unsigned long long>(lookups), static_cast<unsigned long long>(checksum));
  return 0;
}
