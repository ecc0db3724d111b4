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

// Instructions a wave runs before the workgroup's next wave gets a turn (and the access scope is renewed).
constexpr uint32_t kSlice = 4096;
constexpr uint32_t kMaxLdsBytes = 64 * 1024;
constexpr uint32_t kMaxWorkgroupThreads = 1024;

}  // namespace

struct KernelDispatch::Worker {
  Worker(GpuMemory* memory, Target target, RegisterLimits limits, uint64_t first_slot)
      : port(memory), code(target, limits), first_slot(first_slot) {}
  MemoryPort port;
  CodeCache code;
  std::vector<Wave> waves;
  std::vector<unsigned char> lds;
  // The scratch slots this worker's waves use: wave w of the workgroup it runs holds slot first_slot + w. Fixed per
  // worker, so no two workgroups running at once share a slot.
  const uint64_t first_slot;
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
    dispatch->max_workers_ = request.scratch.waves / dispatch->group_waves_;
  }
  // MODE: round modes (3:0), denorm modes (7:4), DX10_CLAMP (8), IEEE (9), from rsrc1.
  dispatch->initial_mode_ = kd.float_round_mode_32() | (kd.float_round_mode_16_64() << 2) |
                            (kd.float_denorm_mode_32() << 4) | (kd.float_denorm_mode_16_64() << 6) |
                            (kd.enable_dx10_clamp() ? 1u << 8 : 0) | (kd.enable_ieee_mode() ? 1u << 9 : 0);
  return dispatch;
}

std::unique_ptr<KernelDispatch::Worker> KernelDispatch::TakeWorker() {
  uint64_t k = 0;
  {
    std::unique_lock<std::mutex> lock(mu_);
    // Past the scratch slots, a workgroup waits for a running one to end (CheckScratch made max_workers_ >= 1).
    worker_back_.wait(lock, [&] { return !idle_.empty() || workers_ < max_workers_; });
    if (!idle_.empty()) {
      std::unique_ptr<Worker> w = std::move(idle_.back());
      idle_.pop_back();
      return w;
    }
    k = workers_++;
  }
  return std::make_unique<Worker>(memory_, request_.target, RegisterLimits{vgprs_, agprs_}, k * group_waves_);
}

void KernelDispatch::GiveBack(std::unique_ptr<Worker> worker) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    idle_.push_back(std::move(worker));
  }
  worker_back_.notify_one();
}

void KernelDispatch::Fail(uint64_t workgroup, DispatchFailure failure) {
  std::lock_guard<std::mutex> lock(mu_);
  if (workgroup < failed_workgroup_) {
    failed_workgroup_ = workgroup;
    failure_ = std::move(failure);
  }
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

void KernelDispatch::RunWorkgroup(uint64_t index, const std::function<bool()>& interrupted) {
  std::unique_ptr<Worker> worker = TakeWorker();
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
  const uint32_t wave_count = (threads + kWaveSize - 1) / kWaveSize;

  if (worker->waves.size() < wave_count) worker->waves.resize(wave_count);
  worker->lds.assign(lds_bytes_, 0);
  const uint64_t scratch_bytes = uint64_t{info_.private_bytes_per_lane} * kWaveSize;
  auto scratch_offset = [&](uint32_t w) {
    return scratch_bytes == 0 ? 0 : (worker->first_slot + w) * uint64_t{request_.scratch.wave_bytes};
  };

  MemoryPort& port = worker->port;
  port.Open();
  // gfx942 kernarg preload: the first dwords of the kernarg segment, in the SGPRs after the enabled user SGPRs.
  uint32_t preload[64] = {};
  const uint32_t preload_count = std::min<uint32_t>(kd_.kernarg_preload_spec_length(), 16);
  if (preload_count > 0) {
    const uint64_t va = p.kernarg_address + uint64_t{kd_.kernarg_preload_spec_offset()} * 4;
    if (std::optional<uint64_t> fault = port.Read(va, preload, preload_count * 4)) {
      port.Close();
      Fail(index, DispatchFailure{*fault, ""});
      GiveBack(std::move(worker));
      return;
    }
  }
  const uint32_t preload_first = amdhsa::EnabledUserSgprCount(kd_) - kd_.kernarg_preload_spec_length();
  for (uint32_t w = 0; w < wave_count; ++w) {
    InitWave(worker->waves[w], w, id, size, threads, scratch_offset(w));
    for (uint32_t k = 0; k < preload_count; ++k) worker->waves[w].s[preload_first + k] = preload[k];
  }

  uint64_t executed = 0;
  while (true) {
    uint32_t live = 0;
    uint32_t waiting = 0;
    for (uint32_t w = 0; w < wave_count; ++w) {
      Wave& wave = worker->waves[w];
      if (wave.state == Wave::State::kEnded) continue;
      if (wave.state == Wave::State::kRunning) {
        Context context;
        context.memory = &port;
        context.dispatch = &info_;
        context.lds = worker->lds.data();
        context.lds_bytes = lds_bytes_;
        context.scratch_va = request_.scratch.base + scratch_offset(w);
        context.scratch_bytes = scratch_bytes;
        const WaveStop stop = RunWave(wave, context, worker->code, kSlice, &executed);
        if (stop == WaveStop::kStopped) {
          port.Close();
          DispatchFailure failure;
          if (context.faulted) {
            failure.fault_va = context.fault_va;
          } else {
            failure.illegal = std::move(context.illegal);
          }
          Fail(index, std::move(failure));
          instructions_.fetch_add(executed, std::memory_order_relaxed);
          GiveBack(std::move(worker));
          return;
        }
      }
      if (wave.state == Wave::State::kEnded) continue;
      ++live;
      if (wave.state == Wave::State::kBarrier) ++waiting;
    }
    if (live == 0) break;
    if (waiting == live) {  // every wave still running has reached the barrier: release them together
      for (uint32_t w = 0; w < wave_count; ++w) {
        if (worker->waves[w].state == Wave::State::kBarrier) worker->waves[w].state = Wave::State::kRunning;
      }
    }
    // Let the page table change between slices, as between a real wave's memory operations.
    port.Close();
    if (interrupted()) break;
    port.Open();
  }
  port.Close();
  instructions_.fetch_add(executed, std::memory_order_relaxed);
  GiveBack(std::move(worker));
}

}  // namespace hipmem::kfd_sim::gfx9
