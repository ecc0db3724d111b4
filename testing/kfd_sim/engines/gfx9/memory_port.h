// A wave's path to memory: every access goes through the GPU page table (GpuMemory), with a small translation
// cache that lives only while one access scope is open.
//
// Plays the compute unit's UTCL1 (the L1 translation cache): translations are looked up in the process's GPU page
// table and kept while the page table cannot change under them, i.e. inside one GpuMemory::AccessScope. The
// dispatch renews the scope between turns once about a slice's worth of instructions (dispatch.cc, kSlice) ran in it,
// or a wave slept, so an UNMAP waits at most about one slice and a later access sees the new page table.
// Thread-compatible: one port per host thread running waves.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_MEMORY_PORT_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_MEMORY_PORT_H_

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>

#include "testing/kfd_sim/engines/gpu_memory.h"

namespace hipmem::kfd_sim::gfx9 {

class MemoryPort {
 public:
  explicit MemoryPort(GpuMemory* memory) : memory_(memory) {}
  ~MemoryPort() { Close(); }
  MemoryPort(const MemoryPort&) = delete;
  MemoryPort& operator=(const MemoryPort&) = delete;

  // Opens the access scope (idempotent); every access below needs one open.
  void Open();
  // Closes it and forgets every translation.
  void Close();
  bool open() const { return open_; }

  // Copies `bytes` bytes at `va` out (Read) or in (Write). Returns the first unmapped VA on a fault; nothing of a
  // faulting Write is written when its first byte is unmapped, and a Read's `out` is then partly filled.
  // Inline when one translation holds all of it (the common case: a scalar load of kernel arguments).
  std::optional<uint64_t> Read(uint64_t va, void* out, uint32_t bytes) {
    if (const void* host = Range(va, bytes)) {
      std::memcpy(out, host, bytes);
      return std::nullopt;
    }
    return ReadPieces(va, out, bytes);
  }
  std::optional<uint64_t> Write(uint64_t va, const void* in, uint32_t bytes) {
    if (void* host = Range(va, bytes)) {
      std::memcpy(host, in, bytes);
      return std::nullopt;
    }
    return WritePieces(va, in, bytes);
  }

  // The host address of the naturally aligned `bytes`-byte word at `va` (bytes 4 or 8; for atomics), or null when
  // it is not mapped. `va` must be aligned; the caller checks.
  void* Word(uint64_t va, uint32_t bytes) { return Range(va, bytes); }

  // The host address of [va, va + bytes) when one translation holds all of it (so the host bytes are contiguous),
  // else null: unmapped, or spread over more than one translation. Lets a whole wave's accesses that fall in one
  // range be translated once.
  void* Range(uint64_t va, uint64_t bytes) {
    // The translation the last access used, inline: a wave's lanes mostly hit the same one.
    const Entry& last = cache_[last_hit_];
    if (va - last.begin < last.end - last.begin && last.end - va >= bytes) return last.host + (va - last.begin);
    return RangeSlow(va, bytes);
  }

 private:
  struct Entry {
    uint64_t begin = 0;
    uint64_t end = 0;  // empty when begin == end
    unsigned char* host = nullptr;
  };
  void* RangeSlow(uint64_t va, uint64_t bytes);
  // Read and Write translation by translation, stopping at the first unmapped byte.
  std::optional<uint64_t> ReadPieces(uint64_t va, void* out, uint32_t bytes);
  std::optional<uint64_t> WritePieces(uint64_t va, const void* in, uint32_t bytes);
  // The host bytes behind `va` and how many follow contiguously, or null when unmapped.
  unsigned char* Lookup(uint64_t va, uint64_t* contiguous);

  GpuMemory* const memory_;  // Not owned; must outlive this.
  std::optional<GpuMemory::AccessScope> scope_;
  bool open_ = false;
  std::array<Entry, 8> cache_{};
  uint32_t next_victim_ = 0;
  uint32_t last_hit_ = 0;  // consecutive accesses mostly fall in the same translation: look there first
};

}  // namespace hipmem::kfd_sim::gfx9

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_MEMORY_PORT_H_
