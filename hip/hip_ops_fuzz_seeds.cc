// Writes the seed corpus of //hip:hip_ops_fuzzer into the directory given as argv[1]: short programs, one per
// subject (allocation and bad frees, copies, pools, streams and events), each a valid start for the mutator.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "hip/hip_fuzz_input.h"

namespace {

using Op = ::hipmem::hip_fuzz::Op;

struct Seed {
  const char* name;
  std::vector<std::vector<uint8_t>> ops;  // opcode, then operands
};

uint8_t O(Op op) { return static_cast<uint8_t>(op); }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const Seed seeds[] = {
      {"malloc_bad_frees",
       {{O(Op::kMalloc), 0, 16, 0}, {O(Op::kFree), 2, 0, 0}, {O(Op::kFree), 3, 0, 0}, {O(Op::kFree), 0, 0, 0},
        {O(Op::kFree), 1, 0, 0}, {O(Op::kFree), 4, 0, 0}, {O(Op::kPointerAttributes), 1, 0, 0}}},
      {"copies",
       {{O(Op::kMalloc), 0, 64, 0}, {O(Op::kMalloc), 1, 0, 0}, {O(Op::kMemcpyRoundTrip), 0, 5, 0},
        {O(Op::kMemcpyRoundTrip), 1, 6, 1}, {O(Op::kMemcpyD2D), 0, 1, 9}, {O(Op::kMemset), 1, 3, 0}}},
      {"host",
       {{O(Op::kHostMalloc), 0, 16, 0}, {O(Op::kHostFree), 2, 0, 0}, {O(Op::kHostFree), 0, 0, 0},
        {O(Op::kHostFree), 1, 0, 0}, {O(Op::kPointerAttributes), 3, 0, 0}}},
      {"pools",
       {{O(Op::kStreamCreate), 0, 0, 0}, {O(Op::kMallocAsync), 0, 32, 0}, {O(Op::kFreeAsync), 0, 0, 0},
        {O(Op::kFreeAsync), 1, 0, 0}, {O(Op::kMallocAsync), 0, 32, 2}, {O(Op::kStreamDestroy), 0, 0, 0},
        {O(Op::kFreeAsync), 0, 1, 0}}},
      // A freed address allocated again as the other kind (device and host share the GPU's address space), then
      // freed through its stale pointer of the first kind: the live block of the second kind is what goes.
      {"address_reuse_across_kinds",
       {{O(Op::kMalloc), 255, 255, 0}, {O(Op::kFree), 0, 0, 0}, {O(Op::kHostMalloc), 255, 255, 0},
        {O(Op::kFree), 1, 0, 0}, {O(Op::kHostMalloc), 255, 255, 0}, {O(Op::kHostFree), 0, 0, 0},
        {O(Op::kMalloc), 255, 255, 0}, {O(Op::kHostFree), 1, 0, 0}}},
      {"streams_events",
       {{O(Op::kStreamCreate), 0, 0, 0}, {O(Op::kEventCreate), 0, 0, 0}, {O(Op::kEventRecord), 0, 0, 0},
        {O(Op::kEventSynchronize), 0, 0, 0}, {O(Op::kEventDestroy), 0, 0, 0}, {O(Op::kEventSynchronize), 1, 0, 0},
        {O(Op::kStreamDestroy), 0, 0, 0}, {O(Op::kStreamDestroy), 1, 0, 0}, {O(Op::kEventRecord), 1, 1, 0},
        {O(Op::kStreamSynchronize), 1, 0, 0}, {O(Op::kDeviceSynchronize), 0, 0, 0}}},
  };
  for (const Seed& seed : seeds) {
    std::string bytes;
    for (const std::vector<uint8_t>& op : seed.ops) bytes.append(op.begin(), op.end());
    std::ofstream(std::string(argv[1]) + "/" + seed.name, std::ios::binary) << bytes;
  }
  return 0;
}
