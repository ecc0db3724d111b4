// The simulated kernel's queue ioctls (kfd_chardev.c create/destroy/update_queue, kfd_process_queue_manager.c):
// each active queue runs on a simulated engine (engines/), started and stopped as the kernel maps its MQD.
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/log.h"
#include "base/units.h"
#include "gpu_abi/sdma_packets.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gpu_clock.h"
#include "testing/kfd_sim/host/host_thread.h"
#include "testing/kfd_sim/sim_internal.h"

namespace hipmem::kfd_sim::sim_internal {
namespace {

// KFD_MIN_QUEUE_RING_SIZE: CREATE/UPDATE_QUEUE raise a smaller ring size to this.
constexpr uint32_t kMinQueueRingSize = 1024;
// num_sdma_queues_per_engine, as the sysfs tree reports it (sysfs_writer.cc).
constexpr uint32_t kSdmaQueuesPerEngine = 8;

// access_ok() on x86-64: the range lies below TASK_SIZE_MAX.
bool UserRange(uint64_t address, uint64_t size) {
  constexpr uint64_t kTaskSizeMax = (uint64_t{1} << 47) - 4096;
  return address <= kTaskSizeMax && size <= kTaskSizeMax - address;
}

// The checks set_queue_properties_from_user and kfd_ioctl_update_queue share, in the kernel's order.
// Raises a short ring to KFD_MIN_QUEUE_RING_SIZE, as the kernel does.
int CheckQueueCommon(uint32_t percentage, uint32_t priority, uint64_t ring_base, uint32_t& ring_size) {
  if ((percentage & 0xff) > uapi::kMaxQueuePercentage) return -EINVAL;
  if (priority > uapi::kMaxQueuePriority) return -EINVAL;
  if (ring_base != 0 && !UserRange(ring_base, sizeof(uint64_t))) return -EFAULT;
  if (ring_size != 0 && (ring_size & (ring_size - 1)) != 0) return -EINVAL;
  if (ring_size < kMinQueueRingSize) ring_size = kMinQueueRingSize;
  return 0;
}

// kfd_queue_ctx_save_restore_size: the EOP buffer size a node asks compute queues for (gfx8+; Tonga wants
// 32 KiB).
uint64_t NodeEopBufferSize(const GpuConfig& gpu) {
  if (gpu.gfx_target_version == 80002) return 0x8000;
  return gpu.gfx_target_version >= 80000 ? 4096 : 0;
}

bool QueueIsActive(const Queue& q) { return q.ring_size > 0 && q.ring_base != 0 && (q.percentage & 0xff) > 0; }

bool IsSdma(uapi::QueueType type) {
  return type == uapi::QueueType::kSdma || type == uapi::QueueType::kSdmaXgmi ||
         type == uapi::QueueType::kSdmaByEngineId;
}

// The GFX9 instruction set the compute units of a GPU run (gfx_target_version 90008 gfx908, 90010 gfx90a,
// 90400-90402 gfx940-gfx942); none for other families, whose kernels the simulator cannot run yet.
std::optional<gfx9::Target> Gfx9TargetOf(uint32_t gfx_target_version) {
  switch (gfx_target_version) {
    case 90008: return gfx9::Target::kGfx908;
    case 90010: return gfx9::Target::kGfx90a;
    case 90400:
    case 90401:
    case 90402: return gfx9::Target::kGfx942;
    default: return std::nullopt;
  }
}

// StartEngine's engine, whose thread may not have started.
void StartEngineThread(IoctlContext& c, Queue& q, uint64_t initial_progress) {
  q.engine_ring_base = q.ring_base;
  q.engine_ring_size = q.ring_size;
  ProcessDevice& device = c.process.devices[q.gpu_index];
  const GpuConfig& gpu = c.topology.gpus[q.gpu_index];
  const uint32_t gpu_id = gpu.gpu_id;
  auto* doorbell = reinterpret_cast<uint64_t*>(device.doorbells->EngineView() + uint64_t{q.id} * kDoorbellBytes);
  SimFile* file = &c.file;
  const uint32_t queue_id = q.id;
  auto on_vm_fault = [file, gpu_id, queue_id](uint64_t va) {
    file->RaiseMemoryException(SimVmFault{.gpu_id = gpu_id,
                                          .va = DeviceAddress(va),
                                          .not_present = true,
                                          .read_only = false,
                                          .no_execute = false,
                                          .queue_id = queue_id});
  };
  if (q.type == uapi::QueueType::kComputeAql) {
    const std::string name = absl::StrCat("gpu 0x", absl::Hex(gpu_id), " aql queue ", q.id);
    q.engine = std::make_unique<ComputeEngine>(
        name, device.page_table.get(),
        AqlQueueDescriptor{.ring_va = q.ring_base,
                           .ring_bytes = q.ring_size,
                           .read_dispatch_id_va = q.read_pointer,
                           .write_dispatch_id_va = q.write_pointer,
                           .doorbell = doorbell,
                           .initial_read_index = initial_progress,
                           .clock = GpuClock(gpu.gpu_clock_counter_hz),
                           .isa = Gfx9TargetOf(gpu.gfx_target_version),
                           .scratch_backing_base = device.sh_hidden_private_base << 16,
                           .xcc_count = gpu.num_xcc == 0 ? 1 : gpu.num_xcc},
        gpu.simd_per_cu == 0 ? 1 : gpu.simd_count / gpu.simd_per_cu,
        ComputeEngine::Callbacks{
            // The CP's end-of-pipe interrupt carries the event id the signal's mailbox names.
            .on_signal_interrupt = [file](uint32_t event_id) { file->SignalEventInterrupt(event_id, 32); },
            .on_vm_fault = on_vm_fault,
            // The CP's bad-opcode / invalid-packet interrupt: amdgpu reports it as an error (and echoes it
            // to the console).
            .on_queue_error =
                [log = &c.log, process_id = c.process_id, name](QueueError error) {
                  log->Write(SimLogLevel::kError, absl::StrCat("kfd_sim: process ", process_id, ": ", name,
                                                               ": halted on a queue error: ", QueueErrorName(error)));
                },
        });
    if (q.gws != nullptr) q.engine->SetGws(q.gws);  // an UPDATE_QUEUE that moved the ring keeps the queue's GWS
    return;
  }
  if (q.type == uapi::QueueType::kCompute) {
    const std::string name = absl::StrCat("gpu 0x", absl::Hex(gpu_id), " pm4 queue ", q.id);
    q.engine = std::make_unique<Pm4Engine>(
        name, device.page_table.get(),
        Pm4QueueDescriptor{.ring_va = q.ring_base,
                           .ring_bytes = q.ring_size,
                           .rptr_va = q.read_pointer,
                           .wptr_va = q.write_pointer,
                           .doorbell = doorbell,
                           .initial_rptr = initial_progress,
                           .clock = GpuClock(gpu.gpu_clock_counter_hz),
                           .isa = Gfx9TargetOf(gpu.gfx_target_version),
                           .scratch_backing_base = device.sh_hidden_private_base << 16},
        Pm4Engine::Callbacks{
            // RELEASE_MEM's end-of-pipe interrupt: kfd_int_process_v9 hands its context id to
            // kfd_signal_event_interrupt with all 32 bits valid, as for the AQL CP.
            .on_interrupt = [file](uint32_t context_id) { file->SignalEventInterrupt(context_id, 32); },
            .on_vm_fault = on_vm_fault,
            .on_queue_error =
                [file, log = &c.log, process_id = c.process_id, name, gpu_id](Pm4Error error,
                                                                              const std::string& detail) {
                  log->Write(SimLogLevel::kError,
                             absl::StrCat("kfd_sim: process ", process_id, ": ", name, ": halted on a queue error: ",
                                          Pm4ErrorName(error), " (", detail, ")"));
                  // A dispatch on a GPU whose shaders the simulator cannot run (no GFX9 instruction set) stands
                  // for a wave that never finishes: on hardware the queue hangs, the
                  // scheduler's preemption times out and amdgpu resets the GPU, which amdkfd reports as a
                  // HW_EXCEPTION event (kfd_signal_reset_event, cause GPU_HANG). Bad packets raise the CP's
                  // bad-opcode interrupt instead, which without a debugger only evicts the queues: no event.
                  if (error == Pm4Error::kShaderDispatch) file->RaiseGpuHang(gpu_id);
                },
        });
    if (q.gws != nullptr) q.engine->SetGws(q.gws);
    return;
  }
  const std::string name = absl::StrCat("gpu 0x", absl::Hex(gpu_id), " sdma queue ", q.id);
  // Deliberate: a GPU outside the SDMA generations we decode (none of the presets) gets SDMA 4.4's encoding
  // rather than no queue.
  const gpu_abi::sdma::Generation generation =
      gpu_abi::sdma::GenerationOf(gpu.gfx_target_version).value_or(gpu_abi::sdma::Generation::kV4_4);
  q.engine = std::make_unique<SdmaEngine>(
      name, device.page_table.get(),
      SdmaQueueDescriptor{.ring_va = q.ring_base,
                          .ring_bytes = q.ring_size,
                          .rptr_va = q.read_pointer,
                          .wptr_va = q.write_pointer,
                          .doorbell = doorbell,
                          .initial_rptr = initial_progress,
                          .generation = generation,
                          .clock = GpuClock(gpu.gpu_clock_counter_hz),
                          .copy_workers = device.copy_workers.get()},
      SdmaEngine::Callbacks{
          // The SDMA trap interrupt carries 28 bits of context: the event id (sdma_v4/v5 + kfd_int_process).
          .on_trap = [file](uint32_t context) { file->SignalEventInterrupt(context & 0x0fffffff, 28); },
          .on_vm_fault = on_vm_fault,
          // An illegal packet. On hardware the SDMA's illegal-instruction interrupt goes to amdgpu, which prints
          // "Illegal instruction in SDMA command stream", and never to KFD: the queue just stops, and the process
          // learns of it only when its waits time out (or a later GPU reset raises HW_EXCEPTION). Deliberate: the
          // simulator takes the path amdkfd took for the CP's bad-opcode interrupt before the debugger's exception
          // codes (kfd_int_process_v9.c: kfd_signal_hw_exception_event), so a client can wait for the halt on a
          // HW_EXCEPTION event instead of timing out.
          .on_illegal_packet =
              [file, log = &c.log, process_id = c.process_id, name](const std::string& reason) {
                log->Write(SimLogLevel::kError,
                           absl::StrCat("kfd_sim: process ", process_id, ": ", name,
                                        ": Illegal instruction in SDMA command stream: ", reason, "; queue halted"));
                file->RaiseHwException();
              },
      });
}

// Starts the engine of an active queue (the MQD loaded onto a hardware queue) on its current ring.
// `initial_progress` continues a queue whose ring UPDATE_QUEUE moved: bytes for SDMA, the next packet index for
// AQL, dwords for PM4. Returns 0, or -kThreadStartErrno when the host refused the engine a thread: the queue is
// then left without an engine (inactive), for the caller to fail its ioctl.
int StartEngine(IoctlContext& c, Queue& q, uint64_t initial_progress) {
  if (!QueueIsActive(q)) return 0;
  StartEngineThread(c, q, initial_progress);
  if (q.engine != nullptr && q.engine->running()) return 0;
  q.engine.reset();
  q.parked_progress = initial_progress;
  return -kThreadStartErrno;
}

// Stops a queue's engine for good; returns the progress it reached.
uint64_t StopEngine(Queue& q) {
  const uint64_t progress = q.progress();
  q.parked_progress = progress;
  q.engine.reset();
  return progress;
}

// Writes one queue lifecycle line: "kfd_sim: process 1: gpu_id 0x1e6a: <what> SDMA queue 0: ring ..., <state>".
void LogQueue(IoctlContext& c, const Queue& q, absl::string_view what) {
  const uint32_t gpu_id = c.topology.gpus[q.gpu_index].gpu_id;
  c.log.Write(SimLogLevel::kInfo,
              absl::StrCat("kfd_sim: process ", c.process_id, ": gpu_id 0x", absl::Hex(gpu_id), ": ", what, " ",
                           QueueTypeName(q.type), " queue ", q.id, ": ring 0x", absl::Hex(q.ring_base), " (",
                           SizeText(Bytes(q.ring_size)), "), ", q.percentage & 0xff, "%, priority ", q.priority, ", ",
                           q.running() ? "active" : "inactive"));
}

}  // namespace

void ReleaseQueue(IoctlContext& c, absl::btree_map<uint32_t, Queue>::iterator it) {
  Queue& q = it->second;
  StopEngine(q);
  if (q.sdma_pool_xgmi) c.shared.ReturnSdmaQueue(q.gpu_index, *q.sdma_pool_xgmi);
  c.process.queues.erase(it);
}

int CreateQueue(IoctlContext& c, uapi::CreateQueueArgs& args) {
  // set_queue_properties_from_user.
  if (const int err = CheckQueueCommon(args.queue_percentage, args.queue_priority, args.ring_base_address,
                                       args.ring_size);
      err != 0) {
    return err;
  }
  if (!UserRange(args.read_pointer_address, sizeof(uint64_t))) return -EFAULT;
  if (!UserRange(args.write_pointer_address, sizeof(uint64_t))) return -EFAULT;
  if (args.eop_buffer_address != 0 && !UserRange(args.eop_buffer_address, sizeof(uint32_t))) return -EFAULT;
  if (args.ctx_save_restore_address != 0 && !UserRange(args.ctx_save_restore_address, sizeof(uint32_t))) {
    return -EFAULT;
  }
  const auto type = static_cast<uapi::QueueType>(args.queue_type);
  switch (type) {
    case uapi::QueueType::kCompute:
    case uapi::QueueType::kSdma:
    case uapi::QueueType::kComputeAql:
    case uapi::QueueType::kSdmaXgmi:
    case uapi::QueueType::kSdmaByEngineId:
      break;
    default:
      return -kEnotsupp;
  }

  const std::optional<size_t> gpu = FindGpu(c.topology, args.gpu_id);
  if (!gpu) return -EINVAL;  // "Did not find gpu"
  ProcessDevice& device = c.process.devices[*gpu];
  if (!device.vm_token) return -ESRCH;  // kfd_bind_process_to_device failing
  // kfd_queue_acquire_buffers (Linux 6.12+): the ring and both pointers must sit in buffers this GPU maps.
  if (args.ring_base_address == 0 ||
      !device.page_table->Covers(AddressRange{DeviceAddress(args.ring_base_address), Bytes(args.ring_size)}) ||
      !device.page_table->Covers(AddressRange{DeviceAddress(args.read_pointer_address), Bytes(8)}) ||
      !device.page_table->Covers(AddressRange{DeviceAddress(args.write_pointer_address), Bytes(8)})) {
    return -EINVAL;
  }
  // kfd_queue_acquire_buffers, compute queues only (PM4 and AQL alike): an EOP buffer, where given (it is
  // optional: not every ASIC needs one), must be at least the node's eop_buffer_size and GPU-mapped. Deliberate:
  // the kernel also demands ctl_stack_size and ctx_save_restore_size equal to the node's CWSR sizes and a mapped
  // CWSR area; the simulator publishes no CWSR sizes in its topology and saves no wave context, so it accepts
  // any (libhsakmt without CWSR passes zeros).
  if ((type == uapi::QueueType::kCompute || type == uapi::QueueType::kComputeAql) && args.eop_buffer_address != 0) {
    const uint64_t node_eop_size = NodeEopBufferSize(c.topology.gpus[*gpu]);
    const std::optional<Bytes> eop_span = AlignUp(Bytes(args.eop_buffer_size), kPageSize);
    if (args.eop_buffer_size < node_eop_size || !eop_span ||
        !device.page_table->Covers(AddressRange{DeviceAddress(args.eop_buffer_address), *eop_span})) {
      return -EINVAL;
    }
  }

  // find_available_queue_slot: the lowest free queue id of the process.
  uint32_t qid = 0;
  while (c.process.queues.contains(qid)) ++qid;
  if (qid >= kMaxQueuesPerProcess) return -ENOMEM;

  Queue q;
  q.id = qid;
  q.gpu_index = *gpu;
  q.type = type;
  q.ring_base = args.ring_base_address;
  q.ring_size = args.ring_size;
  q.read_pointer = args.read_pointer_address;
  q.write_pointer = args.write_pointer_address;
  q.percentage = args.queue_percentage;
  q.priority = args.queue_priority;

  if (IsSdma(type)) {
    const GpuConfig& config = c.topology.gpus[*gpu];
    bool xgmi = type == uapi::QueueType::kSdmaXgmi;
    if (type == uapi::QueueType::kSdmaByEngineId) {
      if (args.sdma_engine_id >= config.num_sdma_engines + config.num_sdma_xgmi_engines) return -EINVAL;
      xgmi = args.sdma_engine_id >= config.num_sdma_engines;
    }
    const uint32_t engines = xgmi ? config.num_sdma_xgmi_engines : config.num_sdma_engines;
    // allocate_sdma_queue: "No more SDMA queue to allocate".
    if (!c.shared.TryTakeSdmaQueue(*gpu, xgmi, engines * kSdmaQueuesPerEngine)) return -ENOMEM;
    q.sdma_pool_xgmi = xgmi;
  }
  absl::Cleanup return_slot = [&] {
    if (q.sdma_pool_xgmi) c.shared.ReturnSdmaQueue(*gpu, *q.sdma_pool_xgmi);
  };
  const std::shared_ptr<BoPages> doorbells = DoorbellsOf(c.topology, device, *gpu);
  std::byte* doorbell_view = doorbells->EngineView();
  if (doorbell_view == nullptr) return -ENOMEM;
  // Where the engine starts: an SDMA ring at byte 0 (the MQD's initial pointers); an AQL queue at the read
  // index user space left in read_dispatch_id. The doorbell slot then announces nothing, whatever a queue that
  // had this slot before left in it: 0 for SDMA, the index before the first packet for AQL.
  uint64_t start = 0;
  if (type == uapi::QueueType::kComputeAql) {
    GpuMemory::AccessScope scope(device.page_table.get());
    const std::optional<GpuMemory::Span> rptr = device.page_table->Translate(args.read_pointer_address, 8);
    if (!rptr || rptr->bytes < 8) return -EINVAL;
    start = std::atomic_ref<uint64_t>(*static_cast<uint64_t*>(rptr->host)).load();
  }
  const uint64_t idle = type == uapi::QueueType::kComputeAql ? ComputeEngine::IdleDoorbellValue(start) : 0;
  std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(doorbell_view + uint64_t{qid} * kDoorbellBytes)).store(idle);
  std::move(return_slot).Cancel();

  q.parked_progress = start;
  auto [it, inserted] = c.process.queues.emplace(qid, std::move(q));
  HIPMEM_CHECK(inserted, "queue id reused while live");
  if (const int err = StartEngine(c, it->second, start); err != 0) {
    // The queue never ran: it goes as if never made (its id and SDMA slot free again).
    ReleaseQueue(c, it);
    return err;
  }
  LogQueue(c, it->second, "created");

  args.queue_id = qid;
  // SOC15: the mmap offset of the process's doorbell slice, plus this queue's byte offset inside it.
  args.doorbell_offset = uapi::kMmapTypeDoorbell | (uint64_t{args.gpu_id} << uapi::kMmapGpuIdShift) |
                         uint64_t{qid} * kDoorbellBytes;
  return 0;
}

int DestroyQueue(IoctlContext& c, uapi::DestroyQueueArgs& args) {
  const auto it = c.process.queues.find(args.queue_id);
  if (it == c.process.queues.end()) return -EINVAL;  // "Queue id does not match any known queue"
  const Queue& q = it->second;
  const uint32_t gpu_id = c.topology.gpus[q.gpu_index].gpu_id;
  c.log.Write(SimLogLevel::kInfo, absl::StrCat("kfd_sim: process ", c.process_id, ": gpu_id 0x", absl::Hex(gpu_id),
                                               ": destroyed ", QueueTypeName(q.type), " queue ", q.id,
                                               " at read pointer ", q.progress(), q.halted() ? " (halted)" : ""));
  ReleaseQueue(c, it);
  return 0;
}

int UpdateQueue(IoctlContext& c, uapi::UpdateQueueArgs& args) {
  uint32_t ring_size = args.ring_size;
  if (const int err = CheckQueueCommon(args.queue_percentage, args.queue_priority, args.ring_base_address, ring_size);
      err != 0) {
    return err;
  }
  const auto it = c.process.queues.find(args.queue_id);
  if (it == c.process.queues.end()) return -EFAULT;  // pqm_update_queue_properties: "No queue ... exists"
  Queue& q = it->second;
  ProcessDevice& device = c.process.devices[q.gpu_index];
  if (args.ring_base_address != 0 &&
      !device.page_table->Covers(AddressRange{DeviceAddress(args.ring_base_address), Bytes(ring_size)})) {
    return -EINVAL;  // kfd_queue_buffer_get on the new ring
  }
  // update_queue: the queue is unmapped (its engine suspended between packets), its MQD updated, and mapped again
  // if it is still active. Mapped again on the same ring, the engine goes on with whatever its doorbell announced
  // meanwhile, without a new ring (kfdtest's DisableSdmaQueueByUpdateWithNullAddress only polls the read pointer);
  // on another ring a new engine starts where the old one stopped.
  if (q.engine != nullptr) q.engine->Suspend();
  q.ring_base = args.ring_base_address;
  q.ring_size = ring_size;
  q.percentage = args.queue_percentage;
  q.priority = args.queue_priority;
  if (QueueIsActive(q)) {
    if (q.engine != nullptr && q.engine_ring_base == q.ring_base && q.engine_ring_size == q.ring_size) {
      q.engine->Resume();
    } else if (const int err = StartEngine(c, q, StopEngine(q)); err != 0) {
      // The queue stays, without an engine (as an inactive one), where the old engine stopped.
      LogQueue(c, q, "not updated: no engine thread");
      return err;
    }
  }
  LogQueue(c, q, "updated");
  return 0;
}

}  // namespace hipmem::kfd_sim::sim_internal
