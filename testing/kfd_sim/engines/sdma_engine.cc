#include "testing/kfd_sim/engines/sdma_engine.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "base/aliased_memory_sync.h"
#include "base/log.h"
#include "base/trace.h"
#include "gpu_abi/sdma_packets.h"

namespace hipmem::kfd_sim {
namespace sdma = ::hipmem::gpu_abi::sdma;
namespace {

using sdma::Opcode;

uint64_t Addr(uint32_t lo, uint32_t hi) { return (static_cast<uint64_t>(hi) << 32) | lo; }

// A COPY_LINEAR longer than this is split over the copy workers. Below about 1 MiB, waking a sleeping worker (tens
// of microseconds, more on a loaded host) costs about what it saves (sdma_benchmark's BM_SdmaLinearCopy against
// BM_SdmaOneThreadCopy around this size). Exactly 1 MiB is not split either: that is one chunk of the runtime's
// staging ring (GPU_STAGING_BUFFER_SIZE), and while the engine moves it the caller fills or drains the next chunk on
// another core, where a worker would take that core from it. Measured on 2 cores (hip_benchmark, staged 64 MiB
// against BM_ChunkHandoff): H2D 1.32x -> 1.07x, D2H 1.21x -> 1.12x; a lone 1 MiB copy takes ~69 us instead of ~58.
constexpr uint64_t kSplitAbove = uint64_t{1} << 20;
// The share of a split copy one thread takes at a time: claiming one is noise beside moving it, and a range of a
// few of them still spreads evenly over the threads.
constexpr uint64_t kPieceBytes = uint64_t{256} << 10;

// memcpy where the ranges are disjoint (the common case); memmove keeps overlap correct.
void MoveBytes(uint8_t* dst, const uint8_t* src, uint64_t n) {
  if (dst + n <= src || src + n <= dst) {
    std::memcpy(dst, src, n);
  } else {
    std::memmove(dst, src, n);
  }
}

bool Compare(uint32_t value, uint32_t reference, uint32_t function) {
  switch (static_cast<sdma::PollFunction>(function)) {
    case sdma::PollFunction::kAlways: return true;
    case sdma::PollFunction::kLess: return value < reference;
    case sdma::PollFunction::kLessEqual: return value <= reference;
    case sdma::PollFunction::kEqual: return value == reference;
    case sdma::PollFunction::kNotEqual: return value != reference;
    case sdma::PollFunction::kGreaterEqual: return value >= reference;
    case sdma::PollFunction::kGreater: return value > reference;
  }
  return false;  // function 7 is reserved: never satisfied, as a poll on it would never end
}

// One TC atomic on `old` (the texture cache's semantics, which the SDMA's atomics share): the new value, or
// nullopt for an operation code the engine does not know. CMPSWAP stores `src` only when `old` equals `cmp`.
template <typename T>
std::optional<T> ApplyAtomic(uint32_t op, T old, T src, T cmp) {
  using S = std::make_signed_t<T>;
  switch (op & 0x1f) {  // the 32- and 64-bit forms differ in bit 5 only
    case 0x07: return src;                                                     // SWAP
    case 0x08: return old == cmp ? src : old;                                  // CMPSWAP
    case 0x0f: return static_cast<T>(old + src);                               // ADD
    case 0x10: return static_cast<T>(old - src);                               // SUB
    case 0x11: return static_cast<T>(std::min(static_cast<S>(old), static_cast<S>(src)));  // SMIN
    case 0x12: return std::min(old, src);                                      // UMIN
    case 0x13: return static_cast<T>(std::max(static_cast<S>(old), static_cast<S>(src)));  // SMAX
    case 0x14: return std::max(old, src);                                      // UMAX
    case 0x15: return static_cast<T>(old & src);                               // AND
    case 0x16: return static_cast<T>(old | src);                               // OR
    case 0x17: return static_cast<T>(old ^ src);                               // XOR
    case 0x18: return old >= src ? T{0} : static_cast<T>(old + 1);             // INC (wraps at src)
    case 0x19: return old == 0 || old > src ? src : static_cast<T>(old - 1);   // DEC (wraps at src)
  }
  return std::nullopt;
}

}  // namespace

SdmaEngine::SdmaEngine(std::string name, GpuMemory* memory, SdmaQueueDescriptor queue, Callbacks callbacks)
    : QueueEngine(std::move(name), queue.doorbell, /*idle_doorbell=*/0, queue.initial_rptr, callbacks.on_vm_fault),
      memory_(memory),
      queue_(queue),
      callbacks_(std::move(callbacks)),
      rptr_(queue.initial_rptr) {
  Start();
}

SdmaEngine::~SdmaEngine() { Stop(); }

SdmaEngine::Outcome SdmaEngine::Illegal(std::string reason) {
  illegal_reason_ = std::move(reason);
  return Outcome::kHalt;
}

void SdmaEngine::ReportError() {
  // amdgpu's "Illegal instruction in SDMA command stream": the engine stops on the packet.
  const std::string reason = absl::StrCat(illegal_reason_, " at ring offset 0x", absl::Hex(rptr_ % queue_.ring_bytes),
                                          " (", sdma::GenerationName(queue_.generation), ")");
  HIPMEM_LOG(kWarning, name(), ": illegal packet: ", reason, "; queue halted");
  if (callbacks_.on_illegal_packet) callbacks_.on_illegal_packet(reason);
}

SdmaEngine::Outcome SdmaEngine::Process(uint64_t wptr) {
  // A stale doorbell write never rewinds the ring.
  if (wptr <= rptr_) return Outcome::kNotReady;
  uint32_t dwords = 0;
  TraceSlice trace_slice(TraceCategory::kSdma, "SDMA packet");
  if (trace_slice.active()) {
    trace_slice.Arg("rptr", rptr_);
    TraceFlowEnd(TraceCategory::kSdma, "enqueue", QueueSlotFlowId(queue_.ring_va, rptr_));
  }
  if (const Outcome outcome = Execute(rptr_, &dwords); outcome != Outcome::kDone) return outcome;
  const uint64_t rptr = rptr_ + uint64_t{dwords} * 4;
  // The read pointer write-back lives in GPU-mapped memory too.
  GpuMemory::AccessScope scope(memory_);
  auto* write_back = TranslateWord<uint64_t>(memory_, queue_.rptr_va);
  if (write_back == nullptr) return Fault(queue_.rptr_va);
  rptr_ = rptr;
  Advance(rptr, [&] { std::atomic_ref<uint64_t>(*write_back).store(rptr, std::memory_order_release); });
  return Outcome::kDone;
}

bool SdmaEngine::ReadRing(uint64_t offset, uint32_t* out, uint32_t count) {
  for (uint32_t i = 0; i < count;) {
    const uint64_t ring_offset = (offset + uint64_t{i} * 4) % queue_.ring_bytes;
    const uint64_t va = queue_.ring_va + ring_offset;
    // One translation for every dword up to the ring's end that one mapping covers, not one per dword.
    const uint64_t want = std::max<uint64_t>(std::min<uint64_t>(uint64_t{count - i} * 4, queue_.ring_bytes - ring_offset), 4);
    std::optional<GpuMemory::Span> span = memory_->Translate(va, want);
    if (!span.has_value() || span->bytes < 4) {
      Fault(va);
      return false;
    }
    const auto n = static_cast<uint32_t>(std::min<uint64_t>(span->bytes, want) / 4);
    std::memcpy(&out[i], span->host, uint64_t{n} * 4);
    i += n;
  }
  return true;
}

SdmaEngine::Outcome SdmaEngine::Execute(uint64_t rptr, uint32_t* dwords_consumed) {
  // Every access of the packet happens inside one scope, except the waits of POLL and a looping ATOMIC.
  std::optional<GpuMemory::AccessScope> scope;
  scope.emplace(memory_);
  // A packet may complete a signal (ATOMIC, FENCE, a write): what earlier packets did is published first; and it
  // may read what the host wrote through its own mapping.
  PublishThroughAliases();
  ObserveThroughAliases();
  uint32_t p[9] = {};
  if (!ReadRing(rptr, p, 1)) return Outcome::kHalt;
  const uint32_t opcode = p[0] & 0xff;
  const uint32_t sub_op = (p[0] >> 8) & 0xff;
  const sdma::Generation gen = queue_.generation;
  auto read = [&](uint32_t n) { return ReadRing(rptr, p, n); };
  auto bad_sub_op = [&](const char* packet) {
    return Illegal(absl::StrCat(packet, " with unknown sub-opcode ", sub_op));
  };
  // A count with bits set above its field: hardware would drop them and move less than asked; halting says
  // which packet was built for another generation. Deliberate.
  const uint64_t linear_mask = sdma::MaxLinearBytes(gen) - 1;
  auto linear_count = [&](uint32_t count) -> std::optional<uint64_t> {
    if ((count & ~linear_mask) != 0) return std::nullopt;
    return uint64_t{count} + 1;
  };
  auto too_wide = [&](const char* packet, uint32_t count) {
    return Illegal(absl::StrCat(packet, " count 0x", absl::Hex(count), " exceeds its ",
                                sdma::LinearCountBits(gen), "-bit field"));
  };

  switch (static_cast<Opcode>(opcode)) {
    case Opcode::kNop:
      *dwords_consumed = 1 + ((p[0] >> sdma::kNopCountShift) & sdma::kNopCountMask);
      return Outcome::kDone;

    case Opcode::kCopy: {
      if (sub_op == sdma::kSubCopyLinearRect) {
        *dwords_consumed = sizeof(sdma::CopyLinearRect) / 4;
        uint32_t r[sizeof(sdma::CopyLinearRect) / 4];
        if (!ReadRing(rptr, r, *dwords_consumed)) return Outcome::kHalt;
        return CopyRect(r);
      }
      if (sub_op != sdma::kSubCopyLinear) {
        return Illegal(absl::StrCat("COPY with sub-opcode ", sub_op,
                                    " (only COPY_LINEAR and COPY_LINEAR_SUB_WINDOW are simulated)"));
      }
      const bool broadcast = (p[0] & sdma::kCopyBroadcastBit) != 0;
      *dwords_consumed = broadcast ? 9 : 7;
      if (!read(*dwords_consumed)) return Outcome::kHalt;
      const std::optional<uint64_t> bytes = linear_count(p[1]);
      if (!bytes) return too_wide("COPY_LINEAR", p[1]);
      const uint64_t src = Addr(p[3], p[4]);
      if (const Outcome o = Copy(Addr(p[5], p[6]), src, *bytes); o != Outcome::kDone || !broadcast) return o;
      return Copy(Addr(p[7], p[8]), src, *bytes);
    }

    case Opcode::kWrite: {
      if (sub_op != sdma::kSubWriteLinear) {
        return Illegal(absl::StrCat("WRITE with sub-opcode ", sub_op, " (only WRITE_LINEAR is simulated)"));
      }
      if (!read(4)) return Outcome::kHalt;
      const uint32_t count_mask = (1u << sdma::WriteCountBits(gen)) - 1;
      if ((p[3] & ~count_mask) != 0) {
        return Illegal(absl::StrCat("WRITE_LINEAR count 0x", absl::Hex(p[3]), " exceeds its ",
                                    sdma::WriteCountBits(gen), "-bit field"));
      }
      const uint64_t dwords = uint64_t{p[3]} + 1;
      // The whole packet must fit in the ring, or its tail would be its own head.
      if ((4 + dwords) * 4 > queue_.ring_bytes) {
        return Illegal(absl::StrCat("WRITE_LINEAR of ", dwords, " dwords is longer than the ring"));
      }
      *dwords_consumed = static_cast<uint32_t>(4 + dwords);
      return Write(rptr + 16, Addr(p[1], p[2]), static_cast<uint32_t>(dwords));
    }

    case Opcode::kFence: {
      // v5+ headers carry cache-policy bits (mtype, gcc, sys, snp, gpa, l2_policy): every write here is coherent.
      if (sub_op != 0) return bad_sub_op("FENCE");
      *dwords_consumed = 4;
      if (!read(4)) return Outcome::kHalt;
      const uint64_t addr = Addr(p[1], p[2]);
      if (addr % 4 != 0) return Illegal(absl::StrCat("FENCE to unaligned address 0x", absl::Hex(addr)));
      std::optional<GpuMemory::Span> span = memory_->Translate(addr, 4);
      if (!span.has_value()) {
        return Fault(addr);
      }
      std::atomic_ref<uint32_t>(*static_cast<uint32_t*>(span->host)).store(p[3], std::memory_order_release);
      return Outcome::kDone;
    }

    case Opcode::kTrap:
      if (sub_op != 0) return bad_sub_op("TRAP");
      *dwords_consumed = 2;
      if (!read(2)) return Outcome::kHalt;
      if (callbacks_.on_trap) callbacks_.on_trap(p[1] & sdma::kTrapContextMask);
      return Outcome::kDone;

    case Opcode::kPollRegMem: {
      if (sub_op != 0) {
        return Illegal(absl::StrCat("POLL_REGMEM with sub-opcode ", sub_op, " (only the plain poll is simulated)"));
      }
      *dwords_consumed = 6;
      if (!read(6)) return Outcome::kHalt;
      const uint32_t function = (p[0] >> 28) & 7;
      if ((p[0] & sdma::kPollMemBit) == 0) {
        // A register poll. The HDP flush (hdp_flush bit, or ROCr's always-true register poll) has nothing to flush
        // here: the CPU's and the engine's views of memory are one. Any other register poll waits on a register
        // we do not have. Deliberate: halting beats spinning forever.
        if ((p[0] & sdma::kPollHdpFlushBit) != 0 || function == static_cast<uint32_t>(sdma::PollFunction::kAlways)) {
          return Outcome::kDone;
        }
        return Illegal(absl::StrCat("POLL_REGMEM of register 0x", absl::Hex(p[1]), " (registers are not simulated)"));
      }
      scope.reset();
      return Poll(Addr(p[1], p[2]), p[3], p[4], function, p[5] & 0xffff, (p[5] >> 16) & 0xfff);
    }

    case Opcode::kAtomic:
      if (sub_op != 0) return bad_sub_op("ATOMIC");
      *dwords_consumed = 8;
      if (!read(8)) return Outcome::kHalt;
      scope.reset();
      return DoAtomic(p);

    case Opcode::kConstFill: {
      if (sub_op != 0) {
        return Illegal(absl::StrCat("CONST_FILL with sub-opcode ", sub_op, " (only the linear fill is simulated)"));
      }
      *dwords_consumed = 5;
      if (!read(5)) return Outcome::kHalt;
      const std::optional<uint64_t> count = linear_count(p[4]);
      if (!count) return too_wide("CONST_FILL", p[4]);
      const uint32_t fill_size = p[0] >> sdma::kFillSizeShift;
      if (fill_size == sdma::kFillBytes) return Fill(Addr(p[1], p[2]), p[3], *count, /*dwords=*/false);
      if (fill_size == sdma::kFillDwords) {
        // A dword fill ignores the count's low two bits: amdgpu writes bytes-1, ROCr (dwords-1)*4, and both fill
        // the same dwords.
        return Fill(Addr(p[1], p[2]), p[3], ((*count - 1) & ~uint64_t{3}) + 4, /*dwords=*/true);
      }
      return Illegal(absl::StrCat("CONST_FILL with fill size ", fill_size, " (only byte and dword fills exist)"));
    }

    case Opcode::kTimestamp: {
      *dwords_consumed = 3;
      if (!read(3)) return Outcome::kHalt;
      const uint64_t global = queue_.clock.Now();
      switch (sub_op) {
        case sdma::kSubTimestampSetLocal:
          local_time_offset_ = static_cast<int64_t>(Addr(p[1], p[2]) - global);
          return Outcome::kDone;
        case sdma::kSubTimestampGetLocal:
          return Store64(Addr(p[1], p[2]), global + static_cast<uint64_t>(local_time_offset_));
        case sdma::kSubTimestampGetGlobal:
          return Store64(Addr(p[1], p[2]), global);
        default:
          return bad_sub_op("TIMESTAMP");
      }
    }

    case Opcode::kGcrReq:
      if (!sdma::HasGcr(gen)) break;  // no such opcode before SDMA 5
      if (sub_op != sdma::kSubGcrKernel && sub_op != sdma::kSubGcrUser) return bad_sub_op("GCR_REQ");
      // A cache writeback / invalidate: the simulated engine has no caches to maintain.
      *dwords_consumed = 5;
      if (!read(5)) return Outcome::kHalt;
      return Outcome::kDone;
  }
  return Illegal(absl::StrCat("unknown opcode ", opcode));
}

SdmaEngine::Outcome SdmaEngine::Copy(uint64_t dst, uint64_t src, uint64_t bytes) {
  if (bytes > kSplitAbove && queue_.copy_workers != nullptr && queue_.copy_workers->max_threads() > 0) {
    return CopySplit(dst, src, bytes);
  }
  const uint64_t total = bytes;
  while (bytes > 0) {
    std::optional<GpuMemory::Span> s = memory_->Translate(src, bytes);
    if (!s.has_value()) {
      return Fault(src);
    }
    std::optional<GpuMemory::Span> d = memory_->Translate(dst, bytes);
    if (!d.has_value()) {
      return Fault(dst);
    }
    const uint64_t n = std::min({s->bytes, d->bytes, bytes});
    MoveBytes(static_cast<uint8_t*>(d->host), static_cast<const uint8_t*>(s->host), n);
    src += n;
    dst += n;
    bytes -= n;
  }
  bytes_moved_.fetch_add(total, std::memory_order_relaxed);
  return Outcome::kDone;
}

void SdmaEngine::SpreadRuns(uint64_t bytes, absl::FunctionRef<void(const CopyRun&, uint64_t, uint64_t)> move) {
  queue_.copy_workers->ParallelFor((bytes + kPieceBytes - 1) / kPieceBytes, [&](uint64_t piece) {
    uint64_t at = piece * kPieceBytes;
    const uint64_t end = std::min(at + kPieceBytes, bytes);
    // The run holding `at`: the last one starting at or before it.
    auto run = std::upper_bound(runs_.begin(), runs_.end(), at,
                                [](uint64_t offset, const CopyRun& r) { return offset < r.offset; });
    for (--run; at < end; ++run) {
      const uint64_t skip = at - run->offset;
      const uint64_t n = std::min(run->bytes - skip, end - at);
      move(*run, skip, n);
      at += n;
    }
  });
}

SdmaEngine::Outcome SdmaEngine::CopySplit(uint64_t dst, uint64_t src, uint64_t bytes) {
  // Every translation first, on this thread and inside the packet's scope: the page table cannot change before the
  // packet ends, so each byte is still reached through the mapping it had when the packet ran. Translating here, not
  // on the workers, also keeps what a translation records for the scope (doorbell stores) on the thread whose scope
  // closes.
  runs_.clear();
  std::optional<uint64_t> fault;
  uint64_t mapped = 0;  // the copy's bytes before its first unmapped one
  // Whether any destination byte may be a source byte: the host ranges' hulls, which is exact for the common case of
  // one mapping on each side.
  uintptr_t src_low = UINTPTR_MAX, src_high = 0, dst_low = UINTPTR_MAX, dst_high = 0;
  while (mapped < bytes) {
    std::optional<GpuMemory::Span> s = memory_->Translate(src + mapped, bytes - mapped);
    if (!s.has_value()) {
      fault = src + mapped;
      break;
    }
    std::optional<GpuMemory::Span> d = memory_->Translate(dst + mapped, bytes - mapped);
    if (!d.has_value()) {
      fault = dst + mapped;
      break;
    }
    const uint64_t n = std::min({s->bytes, d->bytes, bytes - mapped});
    const CopyRun run{mapped, n, static_cast<const uint8_t*>(s->host), static_cast<uint8_t*>(d->host)};
    runs_.push_back(run);
    src_low = std::min(src_low, reinterpret_cast<uintptr_t>(run.src));
    src_high = std::max(src_high, reinterpret_cast<uintptr_t>(run.src) + n);
    dst_low = std::min(dst_low, reinterpret_cast<uintptr_t>(run.dst));
    dst_high = std::max(dst_high, reinterpret_cast<uintptr_t>(run.dst) + n);
    mapped += n;
  }
  if (dst_high <= src_low || src_high <= dst_low) {
    // No piece reads what another writes: any order, any thread.
    SpreadRuns(mapped, [](const CopyRun& run, uint64_t skip, uint64_t n) {
      std::memcpy(run.dst + skip, run.src + skip, n);
    });
  } else {
    // Overlap: in order on this thread, as an unsplit copy moves it.
    for (const CopyRun& run : runs_) MoveBytes(run.dst, run.src, run.bytes);
  }
  if (fault.has_value()) return Fault(*fault);
  bytes_moved_.fetch_add(bytes, std::memory_order_relaxed);
  return Outcome::kDone;
}

SdmaEngine::Outcome SdmaEngine::CopyRect(const uint32_t* p) {
  const uint32_t element = p[0] >> sdma::kRectElementShift;
  if (element > sdma::kRectMaxElement) {
    return Illegal(absl::StrCat("COPY_LINEAR_SUB_WINDOW with element ", element, " (at most 4: 16 bytes)"));
  }
  const uint32_t swaps = (p[12] >> sdma::kRectDstSwapShift & sdma::kRectSwapMask) |
                         (p[12] >> sdma::kRectSrcSwapShift & sdma::kRectSwapMask);
  if (swaps != 0) return Illegal("COPY_LINEAR_SUB_WINDOW with an endian swap (not simulated)");
  const uint64_t src = Addr(p[1], p[2]);
  const uint64_t dst = Addr(p[6], p[7]);
  // The hardware ignores the low two address bits; a producer that sets them meant an offset it did not encode.
  if (src % 4 != 0 || dst % 4 != 0) {
    return Illegal(absl::StrCat("COPY_LINEAR_SUB_WINDOW with a base not dword aligned (src 0x", absl::Hex(src),
                                ", dst 0x", absl::Hex(dst), ")"));
  }
  const uint32_t xy_mask = sdma::RectMask(sdma::kRectXYBits);
  const uint32_t z_mask = sdma::RectMask(sdma::kRectZBits);
  // Each side's first byte of row (y, z) of the box, from its offsets and pitches (in elements).
  struct Side {
    uint64_t base, x, y, z, pitch, slice;
    uint64_t Row(uint64_t row, uint64_t layer, uint32_t element) const {
      return base + ((x + (y + row) * pitch + (z + layer) * slice) << element);
    }
  };
  auto side = [&](uint64_t base, uint32_t xy, uint32_t z_pitch, uint32_t slice) {
    return Side{base,
                xy & xy_mask,
                (xy >> sdma::kRectYShift) & xy_mask,
                z_pitch & z_mask,
                uint64_t{(z_pitch >> sdma::kRectPitchShift) & sdma::RectMask(sdma::kRectPitchBits)} + 1,
                uint64_t{slice & sdma::RectMask(sdma::kRectSliceBits)} + 1};
  };
  const Side s = side(src, p[3], p[4], p[5]);
  const Side d = side(dst, p[8], p[9], p[10]);
  const uint64_t row_bytes = (uint64_t{p[11] & xy_mask} + 1) << element;
  const uint64_t rows = uint64_t{(p[11] >> sdma::kRectYShift) & xy_mask} + 1;
  const uint64_t layers = uint64_t{p[12] & z_mask} + 1;
  // Row by row through the page table, as COPY_LINEAR: an unmapped byte of any row is a VM fault.
  for (uint64_t layer = 0; layer < layers; ++layer) {
    for (uint64_t row = 0; row < rows; ++row) {
      if (const Outcome o = Copy(d.Row(row, layer, element), s.Row(row, layer, element), row_bytes);
          o != Outcome::kDone) {
        return o;
      }
    }
  }
  return Outcome::kDone;
}

SdmaEngine::Outcome SdmaEngine::Write(uint64_t data_offset, uint64_t dst, uint32_t dwords) {
  if (dst % 4 != 0) return Illegal(absl::StrCat("WRITE_LINEAR to unaligned address 0x", absl::Hex(dst)));
  uint32_t chunk[64];
  for (uint32_t done = 0; done < dwords;) {
    const uint32_t n = std::min<uint32_t>(64, dwords - done);
    if (!ReadRing(data_offset + uint64_t{done} * 4, chunk, n)) return Outcome::kHalt;
    for (uint32_t written = 0; written < n;) {
      const uint64_t va = dst + uint64_t{done + written} * 4;
      std::optional<GpuMemory::Span> d = memory_->Translate(va, uint64_t{n - written} * 4);
      if (!d.has_value() || d->bytes < 4) {
        return Fault(va);
      }
      const uint32_t m = static_cast<uint32_t>(std::min<uint64_t>(d->bytes / 4, n - written));
      // Dword release stores: the target may be a doorbell (kfdtest's GPUDoorbellWrite rings a queue with a
      // WRITE_LINEAR), which the engine behind it reads with acquire loads while the write lands.
      auto* out = static_cast<uint32_t*>(d->host);
      for (uint32_t i = 0; i < m; ++i) {
        std::atomic_ref<uint32_t>(out[i]).store(chunk[written + i], std::memory_order_release);
      }
      written += m;
    }
    done += n;
  }
  return Outcome::kDone;
}

SdmaEngine::Outcome SdmaEngine::Fill(uint64_t dst, uint32_t value, uint64_t bytes, bool dwords) {
  if (dwords && dst % 4 != 0) return Illegal(absl::StrCat("dword CONST_FILL to unaligned address 0x", absl::Hex(dst)));
  if (bytes > kSplitAbove && queue_.copy_workers != nullptr && queue_.copy_workers->max_threads() > 0) {
    return FillSplit(dst, value, bytes, dwords);
  }
  const uint64_t total = bytes;
  while (bytes > 0) {
    std::optional<GpuMemory::Span> d = memory_->Translate(dst, bytes);
    if (!d.has_value()) {
      return Fault(dst);
    }
    uint64_t n = std::min(d->bytes, bytes);
    if (dwords) {
      n &= ~uint64_t{3};
      if (n == 0) {  // a mapping ends inside a dword: the rest of it is unmapped
        return Fault(dst + d->bytes);
      }
      auto* out = static_cast<uint32_t*>(d->host);
      std::fill(out, out + n / 4, value);
    } else {
      std::memset(d->host, static_cast<int>(value & 0xff), n);
    }
    dst += n;
    bytes -= n;
  }
  bytes_moved_.fetch_add(total, std::memory_order_relaxed);
  return Outcome::kDone;
}

SdmaEngine::Outcome SdmaEngine::FillSplit(uint64_t dst, uint32_t value, uint64_t bytes, bool dwords) {
  // As CopySplit: every translation first, on this thread; then the runs up to the first unmapped byte, spread.
  runs_.clear();
  std::optional<uint64_t> fault;
  uint64_t mapped = 0;
  while (mapped < bytes) {
    std::optional<GpuMemory::Span> d = memory_->Translate(dst + mapped, bytes - mapped);
    if (!d.has_value()) {
      fault = dst + mapped;
      break;
    }
    uint64_t n = std::min(d->bytes, bytes - mapped);
    if (dwords) {
      n &= ~uint64_t{3};
      if (n == 0) {  // a mapping ends inside a dword: the rest of it is unmapped
        fault = dst + mapped + d->bytes;
        break;
      }
    }
    runs_.push_back(CopyRun{mapped, n, nullptr, static_cast<uint8_t*>(d->host)});
    mapped += n;
  }
  // Pieces and runs start on dword boundaries of the fill (kPieceBytes and every dword run are whole dwords).
  SpreadRuns(mapped, [&](const CopyRun& run, uint64_t skip, uint64_t n) {
    if (dwords) {
      auto* out = reinterpret_cast<uint32_t*>(run.dst + skip);
      std::fill(out, out + n / 4, value);
    } else {
      std::memset(run.dst + skip, static_cast<int>(value & 0xff), n);
    }
  });
  if (fault.has_value()) return Fault(*fault);
  bytes_moved_.fetch_add(bytes, std::memory_order_relaxed);
  return Outcome::kDone;
}

SdmaEngine::Outcome SdmaEngine::Store64(uint64_t addr, uint64_t value) {
  if (addr % sdma::kTimestampAlignment != 0) {
    return Illegal(absl::StrCat("TIMESTAMP to address 0x", absl::Hex(addr), ", not 32-byte aligned"));
  }
  std::optional<GpuMemory::Span> span = memory_->Translate(addr, 8);
  if (!span.has_value() || span->bytes < 8) {
    return Fault(span.has_value() ? addr + span->bytes : addr);
  }
  std::atomic_ref<uint64_t>(*static_cast<uint64_t*>(span->host)).store(value, std::memory_order_release);
  return Outcome::kDone;
}

SdmaEngine::Outcome SdmaEngine::Poll(uint64_t addr, uint32_t reference, uint32_t mask, uint32_t function,
                                     uint32_t interval_us, uint32_t retries) {
  if (addr % 4 != 0) return Illegal(absl::StrCat("POLL_REGMEM of unaligned address 0x", absl::Hex(addr)));
  const auto interval = std::chrono::microseconds(std::max<uint32_t>(interval_us, 1));
  for (uint32_t attempt = 0;; ++attempt) {
    uint32_t value = 0;
    {
      // One scope per look: the page table may change between looks, as between a real engine's reads.
      GpuMemory::AccessScope scope(memory_);
      std::optional<GpuMemory::Span> span = memory_->Translate(addr, 4);
      if (!span.has_value()) {
        return Fault(addr);
      }
      value = std::atomic_ref<uint32_t>(*static_cast<uint32_t*>(span->host)).load(std::memory_order_acquire);
    }
    ObserveThroughAliases();  // the host may have written the word through its own mapping
    if (Compare(value & mask, reference, function)) return Outcome::kDone;
    // Hardware moves on after the retry count (and raises a timeout interrupt we do not model).
    if (retries != sdma::kPollForever && attempt >= retries) return Outcome::kDone;
    if (!SleepUnlessInterrupted(interval)) return Outcome::kStopped;
  }
}

SdmaEngine::Outcome SdmaEngine::DoAtomic(const uint32_t* p) {
  const uint32_t op = p[0] >> 25;
  const bool loop = (p[0] & sdma::kAtomicLoopBit) != 0;
  const uint64_t addr = Addr(p[1], p[2]);
  const uint64_t src = Addr(p[3], p[4]);
  const uint64_t cmp = Addr(p[5], p[6]);
  const bool wide = (op & 0x20) != 0;
  const uint32_t base = op & ~sdma::kAtomicNoReturn;
  if (!ApplyAtomic<uint64_t>(base, 0, 0, 0).has_value()) {
    return Illegal(absl::StrCat("ATOMIC with unknown operation 0x", absl::Hex(op)));
  }
  const uint64_t size = wide ? 8 : 4;
  if (addr % size != 0) return Illegal(absl::StrCat("ATOMIC on unaligned address 0x", absl::Hex(addr)));
  // A looping compare-and-swap retries until the compare succeeds (loop_interval apart); anything else runs once.
  const bool retry = loop && (base & 0x1f) == 0x08;
  const auto interval = std::chrono::microseconds(std::max<uint32_t>(p[7] & 0x1fff, 1));
  while (true) {
    bool swapped = true;
    {
      GpuMemory::AccessScope scope(memory_);
      std::optional<GpuMemory::Span> span = memory_->Translate(addr, size);
      if (!span.has_value() || span->bytes < size) {
        return Fault(addr);
      }
      // A CAS loop makes every operation one atomic read-modify-write against the CPU's atomics.
      auto rmw = [&](auto* word, auto s, auto c) {
        using T = std::remove_pointer_t<decltype(word)>;
        std::atomic_ref<T> ref(*word);
        T old = ref.load(std::memory_order_acquire);
        while (true) {
          if ((base & 0x1f) == 0x08 && old != c) {
            swapped = false;
            return;
          }
          const T next = *ApplyAtomic<T>(base, old, s, c);
          // A 64-bit atomic is how a copy completes its signal (the value sits 8 bytes into amd_signal_t): the arrow
          // to whoever waits for that value starts before the value can be seen.
          if constexpr (sizeof(T) == 8) {
            TraceFlowStart(TraceCategory::kSdma, "completion", SignalFlowId(addr - 8, static_cast<int64_t>(next)));
          }
          if (ref.compare_exchange_weak(old, next, std::memory_order_acq_rel)) return;
        }
      };
      if (wide) {
        rmw(static_cast<uint64_t*>(span->host), src, cmp);
      } else {
        rmw(static_cast<uint32_t*>(span->host), static_cast<uint32_t>(src), static_cast<uint32_t>(cmp));
      }
    }
    if (swapped || !retry) return Outcome::kDone;
    if (!SleepUnlessInterrupted(interval)) return Outcome::kStopped;
  }
}

}  // namespace hipmem::kfd_sim
