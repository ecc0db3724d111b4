#include "testing/kfd_sim/engines/gfx9/dispatch.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "testing/kfd_sim/engines/gfx9/interpreter.h"
#include "testing/kfd_sim/engines/gfx9/memory_port.h"

namespace hipmem::kfd_sim::gfx9 {
namespace aql = ::hipmem::gpu_abi::aql;
namespace amdhsa = ::hipmem::gpu_abi::amdhsa;
namespace {

// Instructions a wave runs before the workgroup's next wave gets a turn; also how many instructions a unit runs
// at most (give or take one turn) before it renews its access scope, so that a page-table change waits about as
// long as one slice takes.
constexpr uint32_t kSlice = 4096;
// Rounds (every resident workgroup one turn) with none ending after which a unit fills more of its resident slots:
// long enough that a compute-bound workgroup of a few slices finishes first, short enough that workgroups spinning
// without s_sleep soon get the ones they wait for started.
constexpr uint32_t kStallRounds = 8;
// GFX9's compute unit: 4 SIMDs, each holding at most 8 waves (the SPI's limit) in a 512-VGPR file (256 on gfx908,
// whose AGPRs are a file of their own), allocated in granules of 8 (4 on gfx908); 64 KiB of LDS.
constexpr uint32_t kSimdsPerCu = 4;
constexpr uint32_t kMaxWavesPerSimd = 8;
constexpr uint32_t kLdsPerCu = 64 * 1024;
constexpr uint32_t kMaxLdsBytes = 64 * 1024;
constexpr uint32_t kMaxWorkgroupThreads = 1024;

}  // namespace

// What a compute unit (or a thread's several units) keeps across the workgroups it runs.
struct KernelDispatch::Worker {
  Worker(GpuMemory* memory, Target target, RegisterLimits limits) : port(memory), code(target, limits) {}
  MemoryPort port;
  CodeCache code;
};

// One resident workgroup: its waves, LDS and scratch (kept for reuse once it ends).
struct KernelDispatch::Resident {
  uint64_t index = 0;
  uint32_t wave_count = 0;
  std::vector<Wave> waves;
  std::vector<unsigned char> lds;
  // The scratch slots its waves use while it is resident: wave w holds slot first_slot + w (TakeSlots), so no two
  // workgroups resident at once share a slot.
  uint64_t first_slot = 0;
};

KernelDispatch::KernelDispatch(GpuMemory* memory, const DispatchRequest& request, const amdhsa::KernelDescriptor& kd)
    : memory_(memory), request_(request), kd_(kd) {}

KernelDispatch::~KernelDispatch() = default;

namespace {

// What the hardware cannot launch, whoever describes the dispatch.
absl::Status CheckGeometry(const aql::KernelDispatchPacket& p) {
  const uint32_t size[3] = {p.workgroup_size_x, p.workgroup_size_y, p.workgroup_size_z};
  const uint32_t grid[3] = {p.grid_size_x, p.grid_size_y, p.grid_size_z};
  const uint16_t dims = aql::Dimensions(p.setup);
  if (dims < 1 || dims > 3) return absl::InvalidArgumentError(absl::StrCat("dispatch of ", dims, " dimensions"));
  uint64_t threads = 1;
  for (int d = 0; d < 3; ++d) {
    if (size[d] == 0 || grid[d] == 0) {
      return absl::InvalidArgumentError(absl::StrCat("workgroup ", size[0], "x", size[1], "x", size[2], " grid ",
                                                     grid[0], "x", grid[1], "x", grid[2]));
    }
    threads *= size[d];
  }
  if (threads > kMaxWorkgroupThreads) {
    return absl::InvalidArgumentError(absl::StrCat("workgroup of ", threads, " work-items (at most 1024)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<KernelDispatch>> KernelDispatch::Create(GpuMemory* memory,
                                                                       const DispatchRequest& request,
                                                                       const amdhsa::KernelDescriptor& kd) {
  const aql::KernelDispatchPacket& p = request.packet;
  if (absl::Status geometry = CheckGeometry(p); !geometry.ok()) return geometry;
  // What no descriptor LLVM writes looks like (AMDGPUUsage: reserved bytes are zero, the entry is 256-byte aligned
  // and, the descriptor not being code, not at offset 0): the CP refuses the object rather than run garbage.
  const auto* raw = reinterpret_cast<const unsigned char*>(&kd);
  const bool reserved_zero = std::all_of(raw + 12, raw + 16, [](unsigned char b) { return b == 0; }) &&
                             std::all_of(raw + 24, raw + 44, [](unsigned char b) { return b == 0; }) &&
                             std::all_of(raw + 60, raw + 64, [](unsigned char b) { return b == 0; });
  const uint64_t entry_va = p.kernel_object + static_cast<uint64_t>(kd.kernel_code_entry_byte_offset);
  if (!reserved_zero || kd.kernel_code_entry_byte_offset == 0 || entry_va % 256 != 0) {
    return absl::FailedPreconditionError(absl::StrCat("kernel_object 0x", absl::Hex(p.kernel_object),
                                                      " is no kernel descriptor (entry offset ",
                                                      kd.kernel_code_entry_byte_offset, ")"));
  }
  if (kd.enable_wavefront_size32()) return absl::FailedPreconditionError("a wave32 kernel on a wave64 GFX9 target");
  const uint32_t lds = std::max(p.group_segment_size, kd.group_segment_fixed_size);
  if (lds > kMaxLdsBytes) return absl::InvalidArgumentError(absl::StrCat(lds, " bytes of LDS (at most 65536)"));
  absl::StatusOr<std::unique_ptr<KernelDispatch>> dispatch = Build(memory, request, kd, entry_va, lds);
  if (!dispatch.ok()) return dispatch;
  if (absl::Status scratch = (*dispatch)->CheckScratch(); !scratch.ok()) return scratch;
  return dispatch;
}

absl::Status KernelDispatch::CheckScratch() const {
  const uint64_t wave_bytes = uint64_t{info_.private_bytes_per_lane} * kWaveSize;
  if (wave_bytes == 0) return absl::OkStatus();
  const ScratchRing& ring = request_.scratch;
  if (wave_bytes > ring.wave_bytes || ring.waves < group_waves_ ||
      uint64_t{ring.waves} * ring.wave_bytes > ring.bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "insufficient scratch: ", info_.private_bytes_per_lane, " bytes per work-item in waves of ", group_waves_,
        "; the queue has ", ring.waves, " slots of ", ring.wave_bytes, " bytes in ", ring.bytes));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<KernelDispatch>> KernelDispatch::CreateFromRegisters(GpuMemory* memory,
                                                                                    const DispatchRequest& request,
                                                                                    const ShaderRegisters& r) {
  DispatchRequest req = request;
  req.packet = aql::KernelDispatchPacket{};
  aql::KernelDispatchPacket& p = req.packet;
  p.setup = 3;
  // The AQL packet's geometry counts work-items; DISPATCH_DIRECT counts workgroups unless USE_THREAD_DIMENSIONS.
  uint32_t grid[3];
  for (int d = 0; d < 3; ++d) {
    const uint64_t items = r.dims_are_threads ? r.dims[d] : uint64_t{r.dims[d]} * r.workgroup_size[d];
    if (items > UINT32_MAX) {
      return absl::InvalidArgumentError(absl::StrCat(r.dims[d], " workgroups of ", r.workgroup_size[d],
                                                     " work-items in dimension ", d, " (over 2^32 work-items)"));
    }
    grid[d] = static_cast<uint32_t>(items);
  }
  if (r.workgroup_size[0] > UINT16_MAX || r.workgroup_size[1] > UINT16_MAX || r.workgroup_size[2] > UINT16_MAX) {
    return absl::InvalidArgumentError(absl::StrCat("workgroup ", r.workgroup_size[0], "x", r.workgroup_size[1], "x",
                                                   r.workgroup_size[2], " (at most 1024 work-items)"));
  }
  p.workgroup_size_x = static_cast<uint16_t>(r.workgroup_size[0]);
  p.workgroup_size_y = static_cast<uint16_t>(r.workgroup_size[1]);
  p.workgroup_size_z = static_cast<uint16_t>(r.workgroup_size[2]);
  p.grid_size_x = grid[0];
  p.grid_size_y = grid[1];
  p.grid_size_z = grid[2];
  if (absl::Status geometry = CheckGeometry(p); !geometry.ok()) return geometry;
  // The registers share the descriptor's rsrc layouts; kernel_code_properties stays 0 because on this path the
  // producer, not the CP, decides what the user SGPRs hold.
  amdhsa::KernelDescriptor kd{};
  kd.compute_pgm_rsrc1 = r.rsrc1;
  kd.compute_pgm_rsrc2 = r.rsrc2;
  kd.compute_pgm_rsrc3 = r.rsrc3;
  kd.private_segment_fixed_size = r.private_bytes_per_lane;
  if (kd.user_sgpr_count() > r.user_data.size()) {
    return absl::InvalidArgumentError(absl::StrCat("USER_SGPR_COUNT ", kd.user_sgpr_count(), " (at most 16)"));
  }
  // GFX9 allocates LDS to a compute workgroup in granules of 128 dwords.
  const uint32_t lds = amdhsa::rsrc2::kGranulatedLdsSize.Get(r.rsrc2) * 512;
  if (lds > kMaxLdsBytes) return absl::InvalidArgumentError(absl::StrCat(lds, " bytes of LDS (at most 65536)"));
  req.user_sgprs = r.user_data;
  absl::StatusOr<std::unique_ptr<KernelDispatch>> dispatch = Build(memory, req, kd, r.entry, lds);
  if (!dispatch.ok()) return dispatch;
  // A PM4 queue has no dynamic scratch: a ring too small for the registers' own WAVESIZE is the producer's error.
  if (absl::Status scratch = (*dispatch)->CheckScratch(); !scratch.ok()) {
    return absl::InvalidArgumentError(scratch.message());
  }
  return dispatch;
}

absl::StatusOr<std::unique_ptr<KernelDispatch>> KernelDispatch::Build(GpuMemory* memory,
                                                                      const DispatchRequest& request,
                                                                      const amdhsa::KernelDescriptor& kd,
                                                                      uint64_t entry, uint32_t lds) {
  const aql::KernelDispatchPacket& p = request.packet;
  const uint32_t size[3] = {p.workgroup_size_x, p.workgroup_size_y, p.workgroup_size_z};
  const uint32_t grid[3] = {p.grid_size_x, p.grid_size_y, p.grid_size_z};
  auto dispatch = std::unique_ptr<KernelDispatch>(new KernelDispatch(memory, request, kd));
  dispatch->code_entry_ = entry;
  dispatch->lds_bytes_ = lds;
  for (int d = 0; d < 3; ++d) dispatch->workgroups_[d] = (uint64_t{grid[d]} + size[d] - 1) / size[d];
  dispatch->group_waves_ = (size[0] * size[1] * size[2] + kWaveSize - 1) / kWaveSize;
  if (request.target == Target::kGfx908) {
    dispatch->vgprs_ = std::min<uint32_t>(amdhsa::VgprCount(kd, 4), 256);
    dispatch->agprs_ = dispatch->vgprs_;  // gfx908's AGPR file is separate and as large as the VGPRs it may use
  } else {
    // One unified file of VGPRs then AGPRs (from accum_offset), allocated in granules of 8.
    const uint32_t total = std::min<uint32_t>(amdhsa::VgprCount(kd, 8), 512);
    const uint32_t first_agpr = std::min(kd.first_agpr(), total);
    dispatch->vgprs_ = std::min<uint32_t>(first_agpr, 256);
    dispatch->agprs_ = std::min<uint32_t>(total - first_agpr, 256);
  }
  DispatchInfo& info = dispatch->info_;
  info.target = request.target;
  info.shared_aperture_base = request.shared_aperture_base;
  info.private_aperture_base = request.private_aperture_base;
  // The CP rounds the private segment up to whole dwords (AMDGPUUsage, private segment size SGPR).
  info.private_bytes_per_lane = (std::max(p.private_segment_size, kd.private_segment_fixed_size) + 3) & ~3u;
  if (info.private_bytes_per_lane > 0 && dispatch->group_waves_ > 0) {
    dispatch->max_slot_groups_ = request.scratch.waves / dispatch->group_waves_;
  }
  // MODE: round modes (3:0), denorm modes (7:4), DX10_CLAMP (8), IEEE (9), from rsrc1.
  dispatch->initial_mode_ = kd.float_round_mode_32() | (kd.float_round_mode_16_64() << 2) |
                            (kd.float_denorm_mode_32() << 4) | (kd.float_denorm_mode_16_64() << 6) |
                            (kd.enable_dx10_clamp() ? 1u << 8 : 0) | (kd.enable_ieee_mode() ? 1u << 9 : 0);
  return dispatch;
}

std::unique_ptr<KernelDispatch::Worker> KernelDispatch::TakeWorker() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      std::unique_ptr<Worker> w = std::move(idle_.back());
      idle_.pop_back();
      return w;
    }
  }
  return std::make_unique<Worker>(memory_, request_.target, RegisterLimits{vgprs_, agprs_});
}

void KernelDispatch::GiveBack(std::unique_ptr<Worker> worker) {
  std::lock_guard<std::mutex> lock(mu_);
  idle_.push_back(std::move(worker));
}

std::optional<uint64_t> KernelDispatch::TakeSlots(const std::function<bool()>* wait_unless) {
  if (info_.private_bytes_per_lane == 0) return 0;  // no scratch: every workgroup may start
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    if (!free_slot_groups_.empty()) {
      const uint64_t first = free_slot_groups_.back();
      free_slot_groups_.pop_back();
      return first;
    }
    // CheckScratch made max_slot_groups_ >= 1.
    if (slot_groups_ < max_slot_groups_) return slot_groups_++ * group_waves_;
    if (wait_unless == nullptr) return std::nullopt;
    // Past the ring's slots a workgroup waits for a resident one to end, as the SPI does. Polled, so a queue being
    // destroyed (the caller's `interrupted`) or a failed dispatch ends the wait.
    lock.unlock();
    if ((*wait_unless)() || failed_.load(std::memory_order_relaxed)) return std::nullopt;
    lock.lock();
    slots_back_.wait_for(lock, std::chrono::milliseconds(1));
  }
}

void KernelDispatch::GiveBackSlots(uint64_t first_slot) {
  if (info_.private_bytes_per_lane == 0) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    free_slot_groups_.push_back(first_slot);
  }
  slots_back_.notify_one();
}

uint64_t KernelDispatch::ScratchOffset(const Resident& r, uint32_t wave) const {
  return info_.private_bytes_per_lane == 0 ? 0 : (r.first_slot + wave) * uint64_t{request_.scratch.wave_bytes};
}

void KernelDispatch::Fail(uint64_t workgroup, DispatchFailure failure) {
  std::lock_guard<std::mutex> lock(mu_);
  if (workgroup < failed_workgroup_) {
    failed_workgroup_ = workgroup;
    failure_ = std::move(failure);
  }
  failed_.store(true, std::memory_order_relaxed);
}

uint32_t KernelDispatch::ResidentWorkgroupsPerCu() const {
  const aql::KernelDispatchPacket& p = request_.packet;
  const uint64_t threads = uint64_t{p.workgroup_size_x} * p.workgroup_size_y * p.workgroup_size_z;
  const uint64_t waves = (threads + kWaveSize - 1) / kWaveSize;
  // The architectural VGPRs only (vgprs_ is already granule-rounded): AGPRs are left out so that this bound is
  // never below the one the runtime admitted a cooperative launch with.
  const uint32_t file = request_.target == Target::kGfx908 ? 256 : 512;
  const uint64_t waves_per_simd = std::min<uint64_t>(kMaxWavesPerSimd, vgprs_ == 0 ? kMaxWavesPerSimd : file / vgprs_);
  uint64_t groups = kSimdsPerCu * waves_per_simd / waves;
  if (lds_bytes_ != 0) groups = std::min<uint64_t>(groups, kLdsPerCu / lds_bytes_);
  return static_cast<uint32_t>(std::clamp<uint64_t>(groups, 1, UINT32_MAX));
}

std::optional<DispatchFailure> KernelDispatch::failure() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (failed_workgroup_ == ~uint64_t{0}) return std::nullopt;
  return failure_;
}

void KernelDispatch::InitWave(Wave& wave, uint32_t wave_index, const uint32_t group_id[3],
                              const uint32_t group_size[3], uint32_t threads, uint64_t scratch_offset) const {
  wave.Allocate(vgprs_, agprs_);
  wave.id_in_group = wave_index;
  wave.pc = code_entry_;
  wave.mode = initial_mode_;
  const uint32_t first = wave_index * kWaveSize;
  const uint32_t lanes = std::min<uint32_t>(kWaveSize, threads - first);
  wave.set_exec(lanes == kWaveSize ? ~uint64_t{0} : (uint64_t{1} << lanes) - 1);

  // User SGPRs, in the ABI's order.
  uint16_t s = 0;
  auto put32 = [&](uint32_t v) { wave.s[s++] = v; };
  auto put64 = [&](uint64_t v) {
    put32(static_cast<uint32_t>(v));
    put32(static_cast<uint32_t>(v >> 32));
  };
  const aql::KernelDispatchPacket& p = request_.packet;
  if (request_.user_sgprs.has_value()) {
    // A register-defined dispatch: COMPUTE_USER_DATA_n is s<n>, whatever the producer meant by it.
    for (uint32_t i = 0; i < kd_.user_sgpr_count(); ++i) put32((*request_.user_sgprs)[i]);
  }
  if (kd_.enable_sgpr_private_segment_buffer()) {
    for (uint32_t word : request_.scratch.resource) put32(word);  // the queue's scratch V#, as the CP copies it
  }
  if (kd_.enable_sgpr_dispatch_ptr()) put64(request_.packet_va);
  if (kd_.enable_sgpr_queue_ptr()) put64(request_.queue_va);
  if (kd_.enable_sgpr_kernarg_segment_ptr()) put64(p.kernarg_address);
  if (kd_.enable_sgpr_dispatch_id()) put64(request_.dispatch_id);
  if (kd_.enable_sgpr_flat_scratch_init()) put64(request_.scratch.base);  // the prologue adds the wave offset
  if (kd_.enable_sgpr_private_segment_size()) put32(info_.private_bytes_per_lane);
  // gfx942 kernarg preload: the loader filled these from the kernarg segment (RunWorkgroup reads them).
  s = static_cast<uint16_t>(kd_.user_sgpr_count());
  if (kd_.enable_sgpr_workgroup_id_x()) put32(group_id[0]);
  if (kd_.enable_sgpr_workgroup_id_y()) put32(group_id[1]);
  if (kd_.enable_sgpr_workgroup_id_z()) put32(group_id[2]);
  if (kd_.enable_sgpr_workgroup_info()) put32(threads);  // not used by LLVM; the workgroup's work-item count
  if (kd_.enable_private_segment()) put32(static_cast<uint32_t>(scratch_offset));  // the wave's slot in the ring
  if (request_.target == Target::kGfx942) {  // architected flat scratch: the hardware adds the wave's slot itself
    wave.Write64(op::kFlatScratchLo, request_.scratch.base + scratch_offset);
  }

  // Work-item ids, X fastest.
  const uint32_t id_enable = kd_.enable_vgpr_workitem_id();
  const bool packed = request_.target != Target::kGfx908;
  uint32_t* v0 = wave.vgpr(0);
  uint32_t* v1 = wave.vgpr(1);
  uint32_t* v2 = wave.vgpr(2);
  if (group_size[1] == 1 && group_size[2] == 1) {  // 1-D: the id is the work-item's index
    for (uint32_t lane = 0; lane < lanes; ++lane) v0[lane] = first + lane;
    return;
  }
  for (uint32_t lane = 0; lane < lanes; ++lane) {
    const uint32_t t = first + lane;
    const uint32_t x = t % group_size[0];
    const uint32_t y = (t / group_size[0]) % group_size[1];
    const uint32_t z = t / (group_size[0] * group_size[1]);
    if (packed) {
      v0[lane] = x | (id_enable >= 1 ? y << 10 : 0) | (id_enable >= 2 ? z << 20 : 0);
    } else {
      v0[lane] = x;
      if (id_enable >= 1) v1[lane] = y;
      if (id_enable >= 2) v2[lane] = z;
    }
  }
}

bool KernelDispatch::Start(uint64_t index, Worker& worker, Resident& r) {
  const aql::KernelDispatchPacket& p = request_.packet;
  const uint32_t wg[3] = {p.workgroup_size_x, p.workgroup_size_y, p.workgroup_size_z};
  const uint32_t grid[3] = {p.grid_size_x, p.grid_size_y, p.grid_size_z};
  const uint32_t id[3] = {static_cast<uint32_t>(index % workgroups_[0]),
                          static_cast<uint32_t>((index / workgroups_[0]) % workgroups_[1]),
                          static_cast<uint32_t>(index / (workgroups_[0] * workgroups_[1]))};
  // A workgroup at the grid's edge has only the work-items inside the grid (HSA's partial workgroups).
  uint32_t size[3];
  for (int d = 0; d < 3; ++d) size[d] = std::min<uint32_t>(wg[d], grid[d] - id[d] * wg[d]);
  const uint32_t threads = size[0] * size[1] * size[2];
  r.index = index;
  r.wave_count = (threads + kWaveSize - 1) / kWaveSize;
  if (r.waves.size() < r.wave_count) r.waves.resize(r.wave_count);
  r.lds.assign(lds_bytes_, 0);
  // gfx942 kernarg preload: the first dwords of the kernarg segment, in the SGPRs after the enabled user SGPRs.
  uint32_t preload[64] = {};
  const uint32_t preload_count = std::min<uint32_t>(kd_.kernarg_preload_spec_length(), 16);
  if (preload_count > 0) {
    const uint64_t va = p.kernarg_address + uint64_t{kd_.kernarg_preload_spec_offset()} * 4;
    if (std::optional<uint64_t> fault = worker.port.Read(va, preload, preload_count * 4)) {
      Fail(index, DispatchFailure{.fault_va = *fault});
      return false;
    }
  }
  const uint32_t preload_first = amdhsa::EnabledUserSgprCount(kd_) - kd_.kernarg_preload_spec_length();
  for (uint32_t w = 0; w < r.wave_count; ++w) {
    InitWave(r.waves[w], w, id, size, threads, ScratchOffset(r, w));
    for (uint32_t k = 0; k < preload_count; ++k) r.waves[w].s[preload_first + k] = preload[k];
  }
  return true;
}

KernelDispatch::Turn KernelDispatch::RunTurn(Worker& worker, Resident& r, uint64_t* executed, bool* slept) {
  uint32_t live = 0;
  uint32_t waiting = 0;
  for (uint32_t w = 0; w < r.wave_count; ++w) {
    Wave& wave = r.waves[w];
    if (wave.state == Wave::State::kEnded) continue;
    if (wave.state == Wave::State::kGwsWait) {
      if (request_.gws->Ready(wave.gws_wait)) {
        wave.state = Wave::State::kRunning;
      } else {
        *slept = true;  // waiting on other workgroups: let the unit admit more of them
      }
    }
    if (wave.state == Wave::State::kRunning) {
      Context context;
      context.memory = &worker.port;
      context.dispatch = &info_;
      context.lds = r.lds.data();
      context.lds_bytes = lds_bytes_;
      context.scratch_va = request_.scratch.base + ScratchOffset(r, w);
      context.scratch_bytes = uint64_t{info_.private_bytes_per_lane} * kWaveSize;
      context.gws = request_.gws.get();
      const WaveStop stop = RunWave(wave, context, worker.code, kSlice, executed);
      if (stop == WaveStop::kStopped) {
        DispatchFailure failure;
        if (context.faulted) {
          failure.fault_va = context.fault_va;
        } else if (context.trap_id.has_value()) {
          failure.trap = DispatchFailure::Trap{*context.trap_id, wave.pc - 4};  // s_trap is one dword: pc moved past it
        } else {
          failure.illegal = std::move(context.illegal);
        }
        Fail(r.index, std::move(failure));
        return Turn::kFailed;
      }
      if (stop == WaveStop::kYield) *slept = true;
    }
    if (wave.state == Wave::State::kEnded) continue;
    ++live;
    if (wave.state == Wave::State::kBarrier) ++waiting;
  }
  if (live == 0) return Turn::kEnded;
  if (waiting == live) {  // every wave still running has reached the barrier: release them together
    for (uint32_t w = 0; w < r.wave_count; ++w) {
      if (r.waves[w].state == Wave::State::kBarrier) r.waves[w].state = Wave::State::kRunning;
    }
  }
  return Turn::kLive;
}

void KernelDispatch::RunUnits(uint32_t compute_units, const std::function<std::optional<uint64_t>()>& next,
                              const std::function<bool()>& interrupted) {
  const uint64_t limit = uint64_t{std::max(compute_units, 1u)} * ResidentWorkgroupsPerCu();
  std::unique_ptr<Worker> worker = TakeWorker();
  MemoryPort& port = worker->port;
  std::vector<std::unique_ptr<Resident>> resident;  // in the order they started: the round-robin order
  std::vector<std::unique_ptr<Resident>> spare;     // ended workgroups' state, for the next ones
  uint64_t target = 1;                              // slots to fill now (lazy admission; see the file comment)
  uint32_t stalled_rounds = 0;
  bool more = true;
  uint64_t executed = 0;
  uint64_t scope_start = 0;  // `executed` when the access scope was last opened
  port.Open();
  while (!failed_.load(std::memory_order_relaxed)) {
    while (more && resident.size() < std::min(target, limit)) {
      // Scratch slots first, so no workgroup is taken that cannot start. A unit holding resident workgroups runs them
      // rather than wait (their slots come back as they end); one holding none waits for another unit's.
      std::optional<uint64_t> slots = TakeSlots(resident.empty() ? &interrupted : nullptr);
      if (!slots.has_value()) break;
      const std::optional<uint64_t> index = next();
      if (!index.has_value()) {
        GiveBackSlots(*slots);
        more = false;
        break;
      }
      std::unique_ptr<Resident> r;
      if (spare.empty()) {
        r = std::make_unique<Resident>();
      } else {
        r = std::move(spare.back());
        spare.pop_back();
      }
      r->first_slot = *slots;
      if (!Start(*index, *worker, *r)) {  // the dispatch has failed
        GiveBackSlots(*slots);
        break;
      }
      resident.push_back(std::move(r));
    }
    if (resident.empty() || failed_.load(std::memory_order_relaxed)) break;
    bool ended = false;
    bool slept = false;
    bool stop = false;
    for (size_t k = 0; k < resident.size();) {
      const Turn turn = RunTurn(*worker, *resident[k], &executed, &slept);
      if (turn == Turn::kFailed) {
        stop = true;
        break;
      }
      if (turn == Turn::kEnded) {
        ended = true;
        GiveBackSlots(resident[k]->first_slot);
        spare.push_back(std::move(resident[k]));
        resident.erase(resident.begin() + static_cast<std::ptrdiff_t>(k));
      } else {
        ++k;
      }
      if (interrupted() || failed_.load(std::memory_order_relaxed)) {
        stop = true;
        break;
      }
      // Let the page table change between turns, as between a real wave's memory operations, once a slice's worth
      // of instructions has run in this scope (or a wave slept: it waits on something outside, which may need the
      // page table). Not after every turn: a turn of small workgroups (a streaming kernel's) is a few dozen
      // instructions, and renewing forgets every translation.
      if (slept || executed - scope_start >= kSlice) {
        port.Close();
        port.Open();
        scope_start = executed;
      }
    }
    if (stop) break;
    if (ended) {
      stalled_rounds = 0;
    } else if (slept || ++stalled_rounds >= kStallRounds) {
      target = std::min(target * 2, limit);
      stalled_rounds = 0;
    }
  }
  port.Close();
  for (const std::unique_ptr<Resident>& r : resident) GiveBackSlots(r->first_slot);  // stopped or failed
  instructions_.fetch_add(executed, std::memory_order_relaxed);
  GiveBack(std::move(worker));
}

void KernelDispatch::RunWorkgroup(uint64_t index, const std::function<bool()>& interrupted) {
  bool taken = false;
  RunUnits(
      1,
      [&]() -> std::optional<uint64_t> {
        if (taken) return std::nullopt;
        taken = true;
        return index;
      },
      interrupted);
}

}  // namespace hipmem::kfd_sim::gfx9
