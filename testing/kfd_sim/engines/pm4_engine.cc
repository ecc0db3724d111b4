#include "testing/kfd_sim/engines/pm4_engine.h"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "gpu_abi/pm4_packets.h"
#include "testing/kfd_sim/engines/gfx9/dispatch.h"

namespace hipmem::kfd_sim {
namespace pm4 = ::hipmem::gpu_abi::pm4;
namespace {

using pm4::Opcode;

// Past this many nested INDIRECT_BUFFERs (ring -> IB1 -> IB2) the CP refuses another level.
constexpr int kMaxIbDepth = 2;
// WAIT_REG_MEM looks again after this, doubling up to kMaxPoll: a bound on how often a wait reads memory.
constexpr std::chrono::microseconds kFirstPoll(10);
constexpr std::chrono::microseconds kMaxPoll(1000);

bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

uint64_t Addr(uint32_t lo, uint32_t hi) { return (uint64_t{hi} << 32) | lo; }

bool Compare(uint32_t value, uint32_t reference, uint32_t function) {
  switch (static_cast<pm4::CompareFunction>(function)) {
    case pm4::CompareFunction::kAlways: return true;
    case pm4::CompareFunction::kLess: return value < reference;
    case pm4::CompareFunction::kLessEqual: return value <= reference;
    case pm4::CompareFunction::kEqual: return value == reference;
    case pm4::CompareFunction::kNotEqual: return value != reference;
    case pm4::CompareFunction::kGreaterEqual: return value >= reference;
    case pm4::CompareFunction::kGreater: return value > reference;
  }
  return false;
}


bool IsMemorySelect(uint32_t sel) { return sel == pm4::kSelMemory || sel == pm4::kSelTcL2 || sel == pm4::kSelMemoryAsync; }

}  // namespace

const char* Pm4ErrorName(Pm4Error error) {
  switch (error) {
    case Pm4Error::kInvalidQueue: return "invalid queue";
    case Pm4Error::kBadPacketType: return "bad packet type";
    case Pm4Error::kUnknownOpcode: return "unknown opcode";
    case Pm4Error::kMalformedPacket: return "malformed packet";
    case Pm4Error::kUnsupported: return "unsupported operation";
    case Pm4Error::kIbNesting: return "indirect buffers nested too deep";
    case Pm4Error::kShaderDispatch: return "shader dispatch";
    case Pm4Error::kInvalidDispatch: return "invalid dispatch";
    case Pm4Error::kIllegalInstruction: return "illegal instruction";
    case Pm4Error::kTrap: return "wave trap";
  }
  return "unknown";
}

Pm4Engine::Pm4Engine(std::string name, GpuMemory* memory, Pm4QueueDescriptor queue, Callbacks callbacks)
    : QueueEngine(std::move(name), queue.doorbell, /*idle_doorbell=*/queue.initial_rptr, queue.initial_rptr,
                  callbacks.on_vm_fault),
      memory_(memory),
      queue_(queue),
      callbacks_(std::move(callbacks)),
      ring_dwords_(IsPowerOfTwo(queue.ring_bytes) && queue.ring_bytes >= 8 && queue.ring_va % 4 == 0 &&
                           queue.rptr_va % 4 == 0
                       ? queue.ring_bytes / 4
                       : 0),
      rptr_(queue.initial_rptr) {
  Start();
}

Pm4Engine::~Pm4Engine() { Stop(); }

std::optional<uint32_t> Pm4Engine::sh_register(uint32_t reg) const {
  std::lock_guard<std::mutex> lock(registers_mu_);
  const auto it = sh_regs_.find(reg);
  if (it == sh_regs_.end()) return std::nullopt;
  return it->second;
}

Pm4Engine::Outcome Pm4Engine::Error(Pm4Error error, std::string detail) {
  error_ = error;
  error_detail_ = std::move(detail);
  return Outcome::kHalt;
}

void Pm4Engine::ReportError() {
  HIPMEM_LOG(kWarning, name(), ": ", Pm4ErrorName(*error_), " (", error_detail_, "); queue halted");
  if (callbacks_.on_queue_error) callbacks_.on_queue_error(*error_, error_detail_);
}

bool Pm4Engine::Validate() {
  if (ring_dwords_ != 0) return true;
  Error(Pm4Error::kInvalidQueue, absl::StrCat("ring_bytes=", queue_.ring_bytes, " ring_va=0x",
                                              absl::Hex(queue_.ring_va), " rptr_va=0x", absl::Hex(queue_.rptr_va)));
  return false;
}

Pm4Engine::Outcome Pm4Engine::Process(uint64_t wptr) {
  // A stale doorbell value never rewinds the ring. A write pointer more than a ring ahead cannot describe packets
  // the ring still holds: the CP reads at most one ring's worth. A packet the write pointer covers only partly
  // waits for a later doorbell (kNotReady).
  if (wptr <= rptr_) return Outcome::kNotReady;
  const uint64_t end = std::min(wptr, rptr_ + ring_dwords_);
  const Stream ring{.base = queue_.ring_va, .dwords = ring_dwords_, .ring = true};
  uint32_t consumed = 0;
  if (const Outcome outcome = Execute(ring, rptr_, end - rptr_, 0, &consumed); outcome != Outcome::kDone) {
    return outcome;
  }
  const uint64_t rptr = rptr_ + consumed;
  GpuMemory::AccessScope scope(memory_);
  auto* word = TranslateWord<uint32_t>(memory_, queue_.rptr_va);
  if (word == nullptr) return Fault(queue_.rptr_va);
  rptr_ = rptr;
  Advance(rptr, [&] {
    std::atomic_ref<uint32_t>(*word).store(static_cast<uint32_t>(rptr % ring_dwords_), std::memory_order_release);
  });
  return Outcome::kDone;
}

Pm4Engine::Outcome Pm4Engine::ReadPacket(const Stream& stream, uint64_t index, uint64_t available, Packet* packet) {
  const auto where = [&] {
    return stream.ring ? absl::StrCat("ring dword ", index % stream.dwords)
                       : absl::StrCat("IB 0x", absl::Hex(stream.base), " dword ", index);
  };
  // The VA of dword `i` of the packet, and how many dwords follow it contiguously in the stream.
  const auto va_of = [&](uint64_t i) {
    return stream.ring ? stream.base + ((index + i) % stream.dwords) * 4 : stream.base + (index + i) * 4;
  };
  GpuMemory::AccessScope scope(memory_);
  if (std::optional<uint64_t> fault = ReadGpu(memory_, va_of(0), &packet->header, 4)) return Fault(*fault);
  const uint32_t header = packet->header;
  packet->body.clear();
  if (pm4::PacketType(header) != pm4::kType3) {
    return Error(Pm4Error::kBadPacketType,
                 absl::StrCat("type-", pm4::PacketType(header), " header 0x", absl::Hex(header), " at ", where()));
  }
  const uint32_t count = pm4::Count(header);
  const auto opcode = static_cast<Opcode>(pm4::OpcodeOf(header));
  // The header-only NOP.
  if (opcode == Opcode::kNop && count == pm4::kMaxCount) return Outcome::kDone;
  const uint64_t length = uint64_t{count} + 2;
  if (length > stream.dwords) {
    return Error(Pm4Error::kMalformedPacket, absl::StrCat("packet of ", length, " dwords (header 0x", absl::Hex(header),
                                                          ") at ", where(), " is longer than its ",
                                                          stream.ring ? "ring" : "IB"));
  }
  // In the ring the rest of the packet may not be written yet; an IB is complete when it is submitted.
  if (length > available) {
    if (stream.ring) return Outcome::kNotReady;
    return Error(Pm4Error::kMalformedPacket, absl::StrCat("packet of ", length, " dwords (header 0x", absl::Hex(header),
                                                          ") at ", where(), " runs past the end of its IB"));
  }
  packet->body.resize(count + 1);
  // A NOP's body is never looked at.
  if (opcode == Opcode::kNop) return Outcome::kDone;
  uint64_t done = 0;
  while (done < packet->body.size()) {
    // Up to the ring's end, then from its start.
    const uint64_t offset = stream.ring ? (index + 1 + done) % stream.dwords : index + 1 + done;
    const uint64_t run = std::min<uint64_t>(packet->body.size() - done, stream.ring ? stream.dwords - offset : ~0ull);
    if (std::optional<uint64_t> fault = ReadGpu(memory_, va_of(1 + done), packet->body.data() + done, uint64_t{run} * 4)) {
      return Fault(*fault);
    }
    done += run;
  }
  return Outcome::kDone;
}

Pm4Engine::Outcome Pm4Engine::Execute(const Stream& stream, uint64_t index, uint64_t available, int ib_depth,
                                      uint32_t* consumed) {
  Packet p;
  if (const Outcome read = ReadPacket(stream, index, available, &p); read != Outcome::kDone) return read;
  *consumed = static_cast<uint32_t>(p.body.size() + 1);
  const auto where = [&] {
    return stream.ring ? absl::StrCat("ring dword ", index % stream.dwords)
                       : absl::StrCat("IB 0x", absl::Hex(stream.base), " dword ", index);
  };
  const auto too_short = [&](const char* what, size_t needed) {
    return Error(Pm4Error::kMalformedPacket, absl::StrCat(what, " of ", p.body.size() + 1, " dwords at ", where(),
                                                          " (needs at least ", needed + 1, ")"));
  };
  switch (static_cast<Opcode>(pm4::OpcodeOf(p.header))) {
    case Opcode::kNop: return Outcome::kDone;
    case Opcode::kWriteData:
      if (p.body.size() < 4) return too_short("WRITE_DATA", 4);
      return WriteData(p);
    case Opcode::kReleaseMem:
      if (p.body.size() < 7) return too_short("RELEASE_MEM", 7);
      return ReleaseMem(p);
    case Opcode::kWaitRegMem:
      if (p.body.size() < 6) return too_short("WAIT_REG_MEM", 6);
      return WaitRegMem(p);
    case Opcode::kCopyData:
      if (p.body.size() < 5) return too_short("COPY_DATA", 5);
      return CopyData(p);
    case Opcode::kAcquireMem:
      // Every earlier packet has completed and memory is coherent: there is nothing to invalidate or wait for.
      if (p.body.size() < 6) return too_short("ACQUIRE_MEM", 6);
      return Outcome::kDone;
    case Opcode::kEventWrite:
      if (p.body.empty()) return too_short("EVENT_WRITE", 1);
      // Flushes and partial flushes are satisfied by in-order completion; events that write counters to memory
      // (the forms with an address) are not simulated.
      if (p.body.size() > 1) {
        return Error(Pm4Error::kUnsupported,
                     absl::StrCat("EVENT_WRITE of event type 0x", absl::Hex(p.body[0] & 0x3f), " with an address at ",
                                  where()));
      }
      return Outcome::kDone;
    case Opcode::kSetShReg:
      if (p.body.size() < 2) return too_short("SET_SH_REG", 2);
      return SetRegisters(p, pm4::kShRegBase, sh_regs_);
    case Opcode::kSetUconfigReg:
      if (p.body.size() < 2) return too_short("SET_UCONFIG_REG", 2);
      return SetRegisters(p, pm4::kUconfigRegBase, uconfig_regs_);
    case Opcode::kDispatchDirect:
      if (p.body.size() < 4) return too_short("DISPATCH_DIRECT", 4);
      return Dispatch("DISPATCH_DIRECT", {p.body[0], p.body[1], p.body[2]}, p.body[3], where());
    case Opcode::kDispatchIndirect:
      if (p.body.size() < 3) return too_short("DISPATCH_INDIRECT", 3);
      return DispatchIndirect(p, where());
    case Opcode::kIndirectBuffer: {
      if (p.body.size() < 3) return too_short("INDIRECT_BUFFER", 3);
      // Bits 0-1 of the base dword are the swap control, not address bits.
      const Stream ib{.base = Addr(p.body[0] & ~3u, p.body[1]), .dwords = p.body[2] & pm4::kMaxIbDwords, .ring = false};
      // Inside an IB, CHAIN replaces the rest of the current IB with the new one (the caller runs it); from the
      // ring it is an ordinary call.
      if ((p.body[2] & (1u << 20)) != 0 && ib_depth > 0) {
        chain_ = ib;
        return Outcome::kDone;
      }
      if (ib_depth >= kMaxIbDepth) {
        return Error(Pm4Error::kIbNesting, absl::StrCat("INDIRECT_BUFFER 0x", absl::Hex(ib.base), " at ", where(),
                                                        " would be level ", ib_depth + 1));
      }
      return RunIndirectBuffer(ib, ib_depth + 1);
    }
  }
  return Error(Pm4Error::kUnknownOpcode,
               absl::StrCat("opcode 0x", absl::Hex(pm4::OpcodeOf(p.header)), " (header 0x", absl::Hex(p.header),
                            ") at ", where()));
}

Pm4Engine::Outcome Pm4Engine::RunIndirectBuffer(Stream ib, int ib_depth) {
  uint64_t index = 0;
  while (index < ib.dwords) {
    if (interrupted()) return Outcome::kStopped;
    uint32_t consumed = 0;
    if (const Outcome outcome = Execute(ib, index, ib.dwords - index, ib_depth, &consumed);
        outcome != Outcome::kDone) {
      return outcome;
    }
    index += consumed;
    if (chain_.has_value()) {
      ib = *chain_;
      chain_.reset();
      index = 0;
    }
  }
  return Outcome::kDone;
}

Pm4Engine::Outcome Pm4Engine::WriteData(const Packet& p) {
  const uint32_t control = p.body[0];
  const uint32_t dst_sel = (control >> 8) & 0xf;
  if (!IsMemorySelect(dst_sel)) {
    return Error(Pm4Error::kUnsupported,
                 absl::StrCat("WRITE_DATA to dst_sel ", dst_sel, ": only memory destinations are simulated"));
  }
  const bool one_address = (control & (1u << 16)) != 0;
  const uint64_t dst = Addr(p.body[1] & ~3u, p.body[2]);
  GpuMemory::AccessScope scope(memory_);
  for (size_t i = 3; i < p.body.size(); ++i) {
    const uint64_t va = one_address ? dst : dst + (i - 3) * 4;
    auto* word = TranslateWord<uint32_t>(memory_, va);
    if (word == nullptr) return Fault(va);
    std::atomic_ref<uint32_t>(*word).store(p.body[i], std::memory_order_release);
  }
  return Outcome::kDone;
}

Pm4Engine::Outcome Pm4Engine::ReleaseMem(const Packet& p) {
  const uint32_t select = p.body[1];
  const uint32_t dst_sel = (select >> 16) & 3;
  const auto int_sel = static_cast<pm4::ReleaseInterrupt>((select >> 24) & 7);
  const auto data_sel = static_cast<pm4::ReleaseData>((select >> 29) & 7);
  if (dst_sel > 1) {
    return Error(Pm4Error::kUnsupported,
                 absl::StrCat("RELEASE_MEM to dst_sel ", dst_sel, ": queue write-pointer registers are not simulated"));
  }
  bool interrupt = false;
  switch (int_sel) {
    case pm4::ReleaseInterrupt::kNone:
    case pm4::ReleaseInterrupt::kWriteConfirmOnly: break;
    case pm4::ReleaseInterrupt::kInterruptOnly:
    case pm4::ReleaseInterrupt::kInterruptAfterWriteConfirm: interrupt = true; break;
    default:
      return Error(Pm4Error::kUnsupported,
                   absl::StrCat("RELEASE_MEM int_sel ", static_cast<uint32_t>(int_sel), " (conditional interrupts)"));
  }
  const uint64_t data = Addr(p.body[4], p.body[5]);
  std::optional<uint64_t> value64;
  switch (data_sel) {
    case pm4::ReleaseData::kNone: break;
    case pm4::ReleaseData::kLow32: {
      const uint64_t va = Addr(p.body[2] & ~3u, p.body[3]);
      GpuMemory::AccessScope scope(memory_);
      auto* word = TranslateWord<uint32_t>(memory_, va);
      if (word == nullptr) return Fault(va);
      std::atomic_ref<uint32_t>(*word).store(static_cast<uint32_t>(data), std::memory_order_release);
      break;
    }
    case pm4::ReleaseData::kData64: value64 = data; break;
    case pm4::ReleaseData::kGpuClock: value64 = queue_.clock.Now(); break;
    case pm4::ReleaseData::kSystemClock: value64 = MonotonicRawNs(); break;
    default:
      return Error(Pm4Error::kUnsupported,
                   absl::StrCat("RELEASE_MEM data_sel ", static_cast<uint32_t>(data_sel), " (GDS and semaphores)"));
  }
  if (value64.has_value()) {
    const uint64_t va = Addr(p.body[2] & ~7u, p.body[3]);
    GpuMemory::AccessScope scope(memory_);
    auto* word = TranslateWord<uint64_t>(memory_, va);
    if (word == nullptr) return Fault(va);
    std::atomic_ref<uint64_t>(*word).store(*value64, std::memory_order_release);
  }
  // The write is confirmed (its scope closed) before the interrupt, which carries int_ctxid to the kernel.
  if (interrupt && callbacks_.on_interrupt) callbacks_.on_interrupt(p.body[6]);
  return Outcome::kDone;
}

Pm4Engine::Outcome Pm4Engine::WaitRegMem(const Packet& p) {
  const uint32_t control = p.body[0];
  const uint32_t function = control & 7;
  const uint32_t mem_space = (control >> 4) & 3;
  const uint32_t operation = (control >> 6) & 3;
  if (function == 7) return Error(Pm4Error::kMalformedPacket, "WAIT_REG_MEM with the reserved compare function 7");
  if (mem_space != pm4::kMemSpaceMemory) {
    return Error(Pm4Error::kUnsupported, absl::StrCat("WAIT_REG_MEM in mem_space ", mem_space,
                                                      ": register polls are not simulated"));
  }
  if (operation != pm4::kOperationWait && operation != pm4::kOperationWaitPreemptible) {
    return Error(Pm4Error::kUnsupported, absl::StrCat("WAIT_REG_MEM operation ", operation));
  }
  const uint64_t va = Addr(p.body[1] & ~3u, p.body[2]);
  const uint32_t reference = p.body[3];
  const uint32_t mask = p.body[4];
  auto backoff = kFirstPoll;
  while (true) {
    uint32_t value = 0;
    {
      // One scope per look: the page table may change between looks, as between a real CP's reads.
      GpuMemory::AccessScope scope(memory_);
      auto* word = TranslateWord<uint32_t>(memory_, va);
      if (word == nullptr) return Fault(va);
      value = std::atomic_ref<uint32_t>(*word).load(std::memory_order_acquire);
    }
    if (Compare(value & mask, reference, function)) return Outcome::kDone;
    if (!SleepUnlessInterrupted(backoff)) return Outcome::kStopped;
    backoff = std::min(backoff * 2, kMaxPoll);
  }
}

Pm4Engine::Outcome Pm4Engine::CopyData(const Packet& p) {
  const uint32_t control = p.body[0];
  const uint32_t src_sel = control & 0xf;
  const uint32_t dst_sel = (control >> 8) & 0xf;
  const bool is64 = (control & (1u << 16)) != 0;
  const uint32_t align = is64 ? ~7u : ~3u;
  if (dst_sel != pm4::kSelTcL2 && dst_sel != pm4::kSelMemoryAsync) {
    return Error(Pm4Error::kUnsupported,
                 absl::StrCat("COPY_DATA to dst_sel ", dst_sel, ": only memory destinations are simulated"));
  }
  const uint64_t dst = Addr(p.body[3] & align, p.body[4]);
  GpuMemory::AccessScope scope(memory_);
  uint64_t value = 0;
  switch (src_sel) {
    case pm4::kSelMemory:
    case pm4::kSelTcL2: {
      const uint64_t src = Addr(p.body[1] & align, p.body[2]);
      if (is64) {
        auto* word = TranslateWord<uint64_t>(memory_, src);
        if (word == nullptr) return Fault(src);
        value = std::atomic_ref<uint64_t>(*word).load(std::memory_order_acquire);
      } else {
        auto* word = TranslateWord<uint32_t>(memory_, src);
        if (word == nullptr) return Fault(src);
        value = std::atomic_ref<uint32_t>(*word).load(std::memory_order_acquire);
      }
      break;
    }
    case pm4::kSelImmediate: value = Addr(p.body[1], p.body[2]); break;
    case pm4::kSelGpuClock: value = queue_.clock.Now(); break;
    case pm4::kSelSystemClock: value = MonotonicRawNs(); break;
    default:
      return Error(Pm4Error::kUnsupported, absl::StrCat("COPY_DATA from src_sel ", src_sel,
                                                        ": registers, counters and atomic results are not simulated"));
  }
  if (is64) {
    auto* word = TranslateWord<uint64_t>(memory_, dst);
    if (word == nullptr) return Fault(dst);
    std::atomic_ref<uint64_t>(*word).store(value, std::memory_order_release);
  } else {
    auto* word = TranslateWord<uint32_t>(memory_, dst);
    if (word == nullptr) return Fault(dst);
    std::atomic_ref<uint32_t>(*word).store(static_cast<uint32_t>(value), std::memory_order_release);
  }
  return Outcome::kDone;
}

Pm4Engine::Outcome Pm4Engine::SetRegisters(const Packet& p, uint32_t base, std::map<uint32_t, uint32_t>& file) {
  const uint32_t first = base + (p.body[0] & 0xffff);
  std::lock_guard<std::mutex> lock(registers_mu_);
  for (size_t i = 1; i < p.body.size(); ++i) file[first + static_cast<uint32_t>(i - 1)] = p.body[i];
  return Outcome::kDone;
}

uint32_t Pm4Engine::ShRegister(uint32_t reg) const { return sh_register(reg).value_or(0); }

Pm4Engine::Outcome Pm4Engine::DispatchIndirect(const Packet& p, const std::string& where) {
  // Without an instruction set the dims are never needed: the queue halts as for DISPATCH_DIRECT.
  if (!queue_.isa.has_value()) return Dispatch("DISPATCH_INDIRECT", {1, 1, 1}, p.body[2], where);
  const uint64_t va = Addr(p.body[0] & ~3u, p.body[1]);
  std::array<uint32_t, 3> dims{};
  {
    GpuMemory::AccessScope scope(memory_);
    if (std::optional<uint64_t> fault = ReadGpu(memory_, va, dims.data(), sizeof(dims))) return Fault(*fault);
  }
  return Dispatch("DISPATCH_INDIRECT", dims, p.body[2], where);
}

Pm4Engine::Outcome Pm4Engine::Dispatch(const char* what, const std::array<uint32_t, 3>& dims, uint32_t initiator,
                                       const std::string& where) {
  if (!queue_.isa.has_value()) {
    return Error(Pm4Error::kShaderDispatch,
                 absl::StrCat(what, " at ", where, ": the simulator runs no shader code of this GPU's family"));
  }
  // Without COMPUTE_SHADER_EN, or with an empty grid, the SPI launches no wave: the packet completes at once.
  if ((initiator & pm4::kInitiatorComputeShaderEn) == 0 || dims[0] == 0 || dims[1] == 0 || dims[2] == 0) {
    return Outcome::kDone;
  }
  if ((initiator & pm4::kInitiatorOrderedAppendEnbl) != 0) {
    return Error(Pm4Error::kUnsupported, absl::StrCat(what, " at ", where, ": ordered append (GDS) is not simulated"));
  }
  const uint32_t start[3] = {ShRegister(pm4::kComputeStartX), ShRegister(pm4::kComputeStartX + 1),
                             ShRegister(pm4::kComputeStartX + 2)};
  if ((initiator & pm4::kInitiatorForceStartAt000) == 0 && (start[0] | start[1] | start[2]) != 0) {
    return Error(Pm4Error::kUnsupported, absl::StrCat(what, " at ", where, ": COMPUTE_START ", start[0], ",", start[1],
                                                      ",", start[2], " (a grid not starting at 0 is not simulated)"));
  }
  gfx9::ShaderRegisters r;
  // PGM_HI: address bits 40-47 in bits 0-7; bit 8 is PGM_ATC (APUs), not an address bit.
  r.entry = ((uint64_t{ShRegister(pm4::kComputePgmHi) & 0xff} << 32) | ShRegister(pm4::kComputePgmLo)) << 8;
  r.rsrc1 = ShRegister(pm4::kComputePgmRsrc1);
  r.rsrc2 = ShRegister(pm4::kComputePgmRsrc2);
  // gfx908 has no RSRC3: its AGPRs are a separate file, not an offset into the VGPRs.
  r.rsrc3 = *queue_.isa == gfx9::Target::kGfx908 ? 0 : ShRegister(pm4::kComputePgmRsrc3);
  for (uint32_t i = 0; i < pm4::kComputeUserDataCount; ++i) r.user_data[i] = ShRegister(pm4::kComputeUserData0 + i);
  // NUM_THREAD_*: bits 0-15 the full workgroup's size (bits 16-31, the partial one, follow from the grid).
  for (uint32_t d = 0; d < 3; ++d) r.workgroup_size[d] = ShRegister(pm4::kComputeNumThreadX + d) & 0xffff;
  r.dims = dims;
  r.dims_are_threads = (initiator & pm4::kInitiatorUseThreadDimensions) != 0;
  // TMPRING_SIZE.WAVESIZE: scratch per wave in 1 KiB units, shared by the wave's 64 lanes.
  const uint32_t tmpring = ShRegister(pm4::kComputeTmpringSize);
  r.private_bytes_per_lane = gfx9::ScratchRing::WaveBytes(tmpring) / 64;

  gfx9::DispatchRequest request;
  request.target = *queue_.isa;
  request.shared_aperture_base = queue_.shared_aperture_base;
  request.private_aperture_base = queue_.private_aperture_base;
  request.gws = gws_.Get();
  // Without AQL there is no queue scratch: the waves' slots start at the process's SH_HIDDEN_PRIVATE_BASE, WAVES of
  // WAVESIZE each (the hardware knows no size for that range; the producer maps what it programs). The shader gets
  // no V# or flat scratch init from the CP: its user data carries whatever it needs.
  request.scratch.base = queue_.scratch_backing_base;
  request.scratch.wave_bytes = gfx9::ScratchRing::WaveBytes(tmpring);
  request.scratch.waves = gfx9::ScratchRing::Waves(tmpring);
  request.scratch.bytes = uint64_t{request.scratch.waves} * request.scratch.wave_bytes;
  absl::StatusOr<std::unique_ptr<gfx9::KernelDispatch>> dispatch =
      gfx9::KernelDispatch::CreateFromRegisters(memory_, request, r);
  if (!dispatch.ok()) {
    return Error(Pm4Error::kInvalidDispatch, absl::StrCat(what, " at ", where, ": ", dispatch.status().message()));
  }
  gfx9::KernelDispatch& d = **dispatch;
  const std::function<bool()> stop = [this] { return interrupted(); };
  // On the CP thread, as one compute unit (its resident workgroups take turns); a failure halts the dispatch.
  uint64_t next = 0;
  d.RunUnits(
      1,
      [&]() -> std::optional<uint64_t> {
        if (next == d.workgroup_count() || interrupted()) return std::nullopt;
        return next++;
      },
      stop);
  if (std::optional<gfx9::DispatchFailure> failure = d.failure()) {
    if (failure->fault_va.has_value()) return Fault(*failure->fault_va);
    if (failure->trap.has_value()) {
      return Error(Pm4Error::kTrap, absl::StrCat(what, " at ", where, ": s_trap ", failure->trap->id, " at 0x",
                                                 absl::Hex(failure->trap->pc)));
    }
    return Error(Pm4Error::kIllegalInstruction, absl::StrCat(what, " at ", where, ": ", failure->illegal));
  }
  // An interrupted dispatch runs again from its start on Resume, as the AQL CP restarts one.
  if (interrupted()) return Outcome::kStopped;
  return Outcome::kDone;
}

}  // namespace hipmem::kfd_sim
