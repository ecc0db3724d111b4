// The thunk's C++ API: one open KFD process context with its topology, GPU VMs and allocations.
//
// Plays libhsakmt (openclose.c, topology.c, fmm.c, memory.c). hsaKmt* C functions in hsakmt.cc are
// thin shells over this class; the HSA runtime above uses this class directly.
// Thread-safe.
#ifndef HIPMEM_THUNK_KFD_H_
#define HIPMEM_THUNK_KFD_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/btree_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "base/address_range_map.h"
#include "base/units.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "thunk/dma_buf_fd.h"
#include "thunk/kfd_buffer.h"
#include "thunk/kfd_registration.h"
#include "thunk/kfd_device.h"
#include "thunk/svm_aperture.h"
#include "thunk/topology.h"

namespace hipmem::thunk {

// HsaMemFlags, bit for bit (hsakmttypes.h): ToRaw() is HsaMemFlags.Value. Only the single-bit
// fields have names; CachePolicy (bits 1-2) and PageSize (bits 4-5) pass through untouched.
enum class MemFlags : uint32_t {
  kNone = 0,
  kNonPaged = 1u << 0,
  kReadOnly = 1u << 3,
  kHostAccess = 1u << 6,
  kNoSubstitute = 1u << 7,
  kGdsMemory = 1u << 8,
  kScratch = 1u << 9,
  kAtomicAccessFull = 1u << 10,
  kAtomicAccessPartial = 1u << 11,
  kExecuteAccess = 1u << 12,
  kCoarseGrain = 1u << 13,
  kAqlQueueMemory = 1u << 14,
  kFixedAddress = 1u << 15,
  kNoNumaBind = 1u << 16,
  kUncached = 1u << 17,
  kNoAddress = 1u << 18,
  kOnlyAddress = 1u << 19,
  kExtendedCoherent = 1u << 20,
  kGttAccess = 1u << 21,
  kContiguous = 1u << 22,
};
constexpr MemFlags operator|(MemFlags a, MemFlags b) {
  return static_cast<MemFlags>(static_cast<uint32_t>(a) | static_cast<uint32_t>(b));
}
constexpr bool HasFlag(MemFlags set, MemFlags f) {
  return (static_cast<uint32_t>(set) & static_cast<uint32_t>(f)) == static_cast<uint32_t>(f);
}
constexpr uint32_t ToRaw(MemFlags f) { return static_cast<uint32_t>(f); }
constexpr MemFlags MemFlagsFromRaw(uint32_t raw) { return static_cast<MemFlags>(raw); }

// What a pointer points into, as hsaKmtQueryPointerInfo's HSA_POINTER_TYPE reports it (same values).
enum class PointerType : uint32_t {
  kUnknown = 0,         // nothing this process allocated or registered
  kAllocated = 1,       // AllocMemory
  kRegisteredUser = 2,  // RegisterMemory
  kRegisteredGraphics = 3,  // ImportDmaBuf (hsaKmtRegisterGraphicsHandleToNodes)
  kRegisteredShared = 4,    // RegisterSharedHandle (hsaKmtRegisterSharedHandle, IPC)
  kReservedAddr = 5,    // AllocMemory with OnlyAddress: a VA reservation without memory
};

// The memory a pointer falls in (hsaKmtQueryPointerInfo's HsaPointerInfo). All zero for kUnknown.
struct PointerInfo {
  PointerType type = PointerType::kUnknown;
  // kAllocated: the node it was allocated for; kRegisteredUser: the node of the GPU holding the USERPTR BO.
  NodeId node = NodeId(0);
  // kAllocated: the flags it was allocated with; kRegisteredUser: CoarseGrain / ExtendedCoherent as registered;
  // kRegisteredGraphics: the dma-buf's, as fmm_translate_ioc_to_hsa_flags reads them, plus CoarseGrain;
  // kRegisteredShared: the exporter's, as its ShareMemory passed them to the kernel.
  MemFlags flags = MemFlags::kNone;
  // kAllocated: the allocation's start; kRegisteredUser: the pointer as registered (not page-aligned);
  // kRegisteredGraphics, kRegisteredShared: 0 (hsakmt_fmm_get_mem_info sets it for the two kinds above only).
  DeviceAddress cpu_address = DeviceAddress(0);
  // kAllocated: the same; kRegisteredUser: the registration's GPU VA plus the pointer's offset in its page.
  DeviceAddress gpu_address = DeviceAddress(0);
  Bytes size;                            // as allocated, or as registered
  std::vector<NodeId> registered_nodes;  // RegisterMemory's `nodes`
  std::vector<NodeId> mapped_nodes;      // the GPUs whose page tables map it
  void* user_data = nullptr;             // SetMemoryUserData's
};

struct KfdVersion {
  uint32_t major;
  uint32_t minor;
};

class Kfd;

// One allocation Kfd::AllocMemory made, owned: the destructor frees it (Kfd::FreeMemory) and logs a failure;
// Free() && reports it instead. Move-only; a move empties the source. Release() && gives up ownership and
// returns the address, for the C shell, whose caller frees it with hsaKmtFreeMemory. The Kfd must outlive it.
class [[nodiscard]] KfdAllocation {
 public:
  KfdAllocation(KfdAllocation&& other) noexcept;
  KfdAllocation& operator=(KfdAllocation&& other) noexcept;
  KfdAllocation(const KfdAllocation&) = delete;
  KfdAllocation& operator=(const KfdAllocation&) = delete;
  ~KfdAllocation();

  DeviceAddress address() const { return address_; }
  Bytes size() const { return size_; }
  void* pointer() const { return address_.ToPointer(); }

  // Gives up ownership: the allocation stays until someone frees its address.
  [[nodiscard]] DeviceAddress Release() &&;
  // Frees the allocation now; kFailedPrecondition when the owner is empty (moved from, released, freed).
  absl::Status Free() &&;

 private:
  friend class Kfd;
  KfdAllocation(Kfd* kfd, DeviceAddress address, Bytes size) : kfd_(kfd), address_(address), size_(size) {}

  Kfd* kfd_;  // Not owned; must outlive this. Null once empty.
  DeviceAddress address_;
  Bytes size_;
};

class Kfd {
 public:
  // Opens the default backend (see kfd_device.h) and initialises the process: GET_VERSION (major
  // must be 1, else DRIVER_MISMATCH / kFailedPrecondition), the sysfs topology snapshot, a render
  // node and ACQUIRE_VM per GPU, and the SVM aperture from GET_PROCESS_APERTURES_NEW.
  static absl::StatusOr<std::unique_ptr<Kfd>> Open();
  // The same on an already-open device (tests pick a simulated machine this way).
  static absl::StatusOr<std::unique_ptr<Kfd>> Open(std::unique_ptr<KfdDevice> device);

  // Frees every allocation still held, then closes the device (which releases the process).
  ~Kfd();
  Kfd(const Kfd&) = delete;
  Kfd& operator=(const Kfd&) = delete;

  KfdVersion version() const { return version_; }
  absl::string_view backend_name() const { return device_->backend_name(); }
  const SystemTopology& topology() const { return topology_; }

  // Returns node `node`'s properties. kInvalidArgument (INVALID_NODE_UNIT) for an unknown node.
  absl::StatusOr<const NodeProperties*> Node(NodeId node) const;
  // The apertures GET_PROCESS_APERTURES_NEW gave GPU `gpu` at open (LDS, scratch, GPUVM), which libhsakmt reports as
  // memory banks of the node; nullopt for a GPU the kernel did not list.
  std::optional<kfd_uapi::ProcessDeviceApertures> ProcessApertures(GpuId gpu) const;
  // The SVM aperture every GPU of the process addresses, [base, limit].
  DeviceAddress svm_base() const;
  DeviceAddress svm_limit() const;
  // Returns whether every GPU node advertises SVMAPISupported (HSA_CAP_SVMAPI_SUPPORTED, capability bit 27):
  // libhsakmt's hsakmt_is_svm_api_supported, which changes what freeing an unknown address answers.
  bool svm_api_supported() const;

  // Allocates `size` bytes for `node` as hsaKmtAllocMemoryAlign does. Returns the address (GPU VA ==
  // CPU VA). As fmm.c:
  //  - OnlyAddress: only a VA range (host or device path alike); freeing it releases the VA. QueryPointerInfo
  //    reports kReservedAddr on node 0; MapMemoryToGpu refuses it (INVALID_PARAMETER).
  //  - NoAddress (device path): a VRAM buffer the kernel gets without a GPU VA; the returned address is only its
  //    name, from the handle aperture in the non-canonical hole (never CPU-accessible). MapMemoryToGpu refuses it.
  //  - Scratch (a GPU node): the GPU's scratch backing range, 64 KiB aligned and sized, one per GPU; a second one is
  //    NO_MEMORY, an alignment NOT_IMPLEMENTED. MapMemoryToGpu(address, {}, size) backs part of it with VRAM mapped
  //    on that GPU and UnmapMemoryFromGpu(address) drops that part; FreeMemory of any address in it frees it all.
  //  - FixedAddress: at `fixed` (required, else INVALID_PARAMETER), which must be page aligned, free, and inside
  //    the SVM aperture with a free guard page on each side (see SvmAperture::AllocateAt); otherwise the path's
  //    failure code. Without the flag `fixed` is ignored, as libhsakmt treats *MemoryAddress as output only.
  // Errors: kInvalidArgument INVALID_NODE_UNIT (unknown node), INVALID_PARAMETER (size 0 or not a page
  // multiple, bad alignment, contradictory flags, OnlyAddress with NoAddress on the device path); a failed
  // host-path allocation is HSAKMT_STATUS_ERROR and a failed VRAM or scratch allocation NO_MEMORY, each
  // with the cause (the kernel's errno, an address in use...).
  // The allocation is owned by what this returns: it is freed when that goes (see KfdAllocation).
  absl::StatusOr<KfdAllocation> AllocMemory(NodeId node, Bytes size, MemFlags flags, Bytes alignment = Bytes(0),
                                            std::optional<DeviceAddress> fixed = std::nullopt);

  // Frees an allocation by its start address; GPU mappings go with it. Given a registered pointer (or its GPU
  // address) it drops one registration, as DeregisterMemory, as libhsakmt's hsaKmtFreeMemory does. kNotFound
  // (MEMORY_NOT_REGISTERED) for an address this process did not allocate or register; HSAKMT_STATUS_ERROR for
  // null or when the kernel refuses the free.
  absl::Status FreeMemory(DeviceAddress address);

  // Maps the allocation starting at `address` into the GPU page tables of `nodes` (empty: registered memory to
  // its registered nodes, else VRAM to its own GPU and every GPU with an io link to it, system memory to every
  // GPU). With `nodes` (hsaKmtMapMemoryToGPUNodes) an allocation's mapping becomes exactly that set: GPUs
  // mapping it that are not in `nodes` are unmapped, the others mapped, and the same set again changes nothing;
  // every node must be among its registered nodes, if any (else HSAKMT_STATUS_ERROR). An address reservation
  // (OnlyAddress) or a buffer without an address (NoAddress) is INVALID_PARAMETER; an address in a scratch range
  // backs [address, address + size) (see AllocMemory). `address` may be a registered pointer or its GPU address; `size`, when not 0, picks the registration of
  // that size among several of one pointer. Mapping registered memory that is already mapped only counts (its
  // nodes cannot change), and it stays mapped until as many UnmapMemoryFromGpu calls, as in libhsakmt.
  // Errors: kNotFound (INVALID_HANDLE) for an unknown address; kInvalidArgument for an unknown node
  // (INVALID_NODE_UNIT) or one without a GPU (INVALID_PARAMETER); HSAKMT_STATUS_ERROR with the kernel's errno.
  absl::Status MapMemoryToGpu(DeviceAddress address, std::span<const NodeId> nodes = {}, Bytes size = Bytes(0));

  // Removes every GPU mapping of the allocation at `address` (for registered memory mapped n times, the n-th
  // call does; for scratch, the backing that starts at `address`). kNotFound (INVALID_HANDLE) when unknown; HSAKMT_STATUS_ERROR when the kernel refuses.
  absl::Status UnmapMemoryFromGpu(DeviceAddress address);

  // Returns the address a GPU uses for `address` (hsaKmtMapMemoryToGPU's AlternateVAGPU): an allocation's start
  // itself, or for a registered pointer its registration's GPU address; `size` as in MapMemoryToGpu. nullopt
  // when MapMemoryToGpu would not find it.
  std::optional<DeviceAddress> GpuAddressOf(DeviceAddress address, Bytes size = Bytes(0)) const;

  // Registers the host memory [address, address + size) for GPU access, as libhsakmt does without the SVM API
  // (hsaKmtRegisterMemory / ToNodes / WithFlags): the pages containing the range become a USERPTR BO of the first
  // GPU at a GPU VA of its own from the SVM aperture, so the GPU address is that VA plus `address`'s offset in its
  // page, not `address` (with the SVM API upstream the GPU address equals the CPU address; this thunk has no SVM
  // ranges). Returns that GPU address. `nodes` become the default set MapMemoryToGpu maps to (empty: every GPU).
  // `flags` must describe pageable host memory (HostAccess set, NonPaged clear); CoarseGrain drops the COHERENT
  // flag and ExtendedCoherent adds EXT_COHERENT. The default is hsaKmtRegisterMemory's: coarse-grained.
  // Registering the same pointer with the same size again only counts (every registration needs a
  // DeregisterMemory), and may add `nodes` to a registration that had none; the same pointer with another size
  // is a registration of its own. The kernel pins the pages: all of them must be mapped and readable.
  // Errors: kInvalidArgument INVALID_PARAMETER for CoarseGrain with ExtendedCoherent or a node without a GPU,
  // INVALID_NODE_UNIT for an unknown node, HSAKMT_STATUS_ERROR for a null pointer, a zero size or a range that
  // wraps; kUnimplemented (NOT_SUPPORTED) for flags that are not pageable host memory; kNotFound (INVALID_HANDLE)
  // for the start of memory AllocMemory returned; kAlreadyExists (MEMORY_ALREADY_REGISTERED) for a registration
  // with other nodes than before; kFailedPrecondition (HSAKMT_STATUS_ERROR) without a GPU; HSAKMT_STATUS_ERROR
  // with the kernel's errno when it refuses the BO (EFAULT: unmapped or inaccessible pages). A failed
  // registration leaves nothing behind. The registration is owned by what this returns: it is dropped when that
  // goes (see KfdRegistration).
  absl::StatusOr<KfdRegistration> RegisterMemory(void* address, Bytes size, std::span<const NodeId> nodes = {},
                                               MemFlags flags = MemFlags::kHostAccess | MemFlags::kCoarseGrain);

  // Drops one registration of a registered pointer (or of its GPU address); the last one frees the BO, GPU
  // mappings included, and its GPU VA. Given a dma-buf import (ImportDmaBuf's address) it frees the import, as
  // fmm_deregister_memory releases imported graphics buffers. kNotFound (MEMORY_NOT_REGISTERED) for anything else,
  // allocations included; HSAKMT_STATUS_ERROR when the kernel refuses the free (the registration stays).
  absl::Status DeregisterMemory(const void* address);

  // Describes the allocation or registration containing `pointer` (CPU or GPU address; registered CPU ranges are
  // searched first). PointerType::kUnknown when there is none.
  PointerInfo QueryPointerInfo(const void* pointer) const;

  // Attaches `user_data` to the allocation or registration starting at `pointer` (a start address, as for
  // FreeMemory); QueryPointerInfo reports it. kNotFound (HSAKMT_STATUS_ERROR, as libhsakmt) when there is none.
  absl::Status SetMemoryUserData(const void* pointer, void* user_data);

  // ---- DMA-buf sharing (fmm.c: fmm_export_dma_buf_fd, fmm_register_graphics_handle) ----

  // An exported buffer: a new dma-buf descriptor of the whole buffer, and where `address` lies in it.
  struct DmaBufExport {
    DmaBufFd fd;
    Bytes offset;
  };
  // Exports the buffer holding [address, address + size) as a dma-buf (hsaKmtExportDMABufHandle):
  // AMDKFD_IOC_EXPORT_DMABUF of the allocation containing `address` (close-on-exec), as fmm_export_dma_buf_fd.
  // Errors: kInvalidArgument (INVALID_PARAMETER) when no allocation or registration holds `address`, or the range
  // runs past its end; HSAKMT_STATUS_ERROR when the kernel refuses (user pages: EPERM; a reservation or scratch
  // range without a buffer: EINVAL).
  absl::StatusOr<DmaBufExport> ExportDmaBuf(DeviceAddress address, Bytes size);

  // A dma-buf imported into this process.
  struct ImportedDmaBuf {
    DeviceAddress address;  // for MapMemoryToGpu / UnmapMemoryFromGpu / FreeMemory / DeregisterMemory
    Bytes size;
    NodeId node;                       // the node of the GPU whose memory it is
    std::span<const uint8_t> metadata;  // the buffer's UMD metadata; valid until the import is freed
  };
  // Imports the dma-buf behind `dmabuf_fd` (hsaKmtRegisterGraphicsHandleToNodes(Ext)), as
  // fmm_register_graphics_handle: GET_DMABUF_INFO, a VA from the SVM aperture aligned to 256 KiB (IMAGE_ALIGN) --
  // or, without `with_va` (Ext's requiresVAddr clear), a name from the handle aperture and no GPU VA --, then
  // IMPORT_DMABUF on the buffer's own GPU. The import is not CPU-mapped (libhsakmt does not map it either): the
  // range stays an inaccessible reservation, and the GPU reaches the pages once MapMemoryToGpu maps it. `nodes`
  // become its registered nodes, the default map set. QueryPointerInfo reports kRegisteredGraphics. The
  // descriptor stays the caller's. Errors: kInvalidArgument INVALID_NODE_UNIT for an unknown node,
  // INVALID_PARAMETER for a node without a GPU; HSAKMT_STATUS_ERROR when the kernel refuses the descriptor (EBADF:
  // not open; EINVAL: not a dma-buf) or the import, or no VA is left. A failed import leaves nothing behind.
  absl::StatusOr<ImportedDmaBuf> ImportDmaBuf(int dmabuf_fd, std::span<const NodeId> nodes, bool with_va = true);

  // ---- IPC sharing (fmm.c: fmm_share_memory, fmm_register_shared_memory) over the amdgpu-DKMS ioctls ----

  // libhsakmt's HsaSharedMemoryStruct: the eight words of an HsaSharedMemoryHandle, all another process needs to
  // import a buffer. Plain data; it may travel through a pipe or a file.
  struct SharedMemoryHandle {
    std::array<uint32_t, 4> share_handle;  // the kernel's name for the buffer
    uint32_t aperture_type;   // HsaApertureInfo.type (HSA_APERTURE_*): where the importer reserves the VA
    uint32_t aperture_index;  // HsaApertureInfo.idx: which GPUVM aperture (APUs only); 0 here
    uint32_t size_in_pages;   // 4 KiB pages
    uint32_t export_gpu_id;   // the GPU to import on
  };
  static_assert(sizeof(SharedMemoryHandle) == 32, "HsaSharedMemoryHandle is 8 words");
  // HSA_APERTURE values of SharedMemoryHandle::aperture_type.
  static constexpr uint32_t kApertureSvm = 1;        // HSA_APERTURE_DGPU: the SVM aperture
  static constexpr uint32_t kApertureMemHandle = 5;  // HSA_APERTURE_MEMHANDLE: the handle aperture (NoAddress)

  // Shares the allocation that starts at `address` with other processes (hsaKmtShareMemory), as fmm_share_memory:
  // AMDKFD_IOC_IPC_EXPORT_HANDLE of its BO on its GPU with the allocation's MemFlags, which every importer gets
  // back. Sharing it again returns the same share_handle. Deliberate: `size` must cover the allocation (rounded up
  // to pages it is the allocation's size); libhsakmt takes any size, truncates it to pages and leaves the
  // importer a VA reservation that may be smaller than the BO the kernel maps there.
  // Errors: kInvalidArgument (INVALID_PARAMETER) for a size of 2^44 bytes or more (it must fit 32 bits of pages),
  // an address at which no allocation starts, or a size that is not the allocation's; HSAKMT_STATUS_ERROR when the
  // kernel refuses: user pages (EPERM), a reservation or a scratch range (no BO: EINVAL), or a kernel without the
  // DKMS IPC ioctls (mainline: ENOTTY, which the message names).
  absl::StatusOr<SharedMemoryHandle> ShareMemory(DeviceAddress address, Bytes size);

  // A buffer another process shared, imported into this one.
  struct ImportedShared {
    DeviceAddress address;  // for MapMemoryToGpu / UnmapMemoryFromGpu / FreeMemory / DeregisterMemory
    Bytes size;             // the handle's pages
  };
  // Imports the buffer `handle` names (hsaKmtRegisterSharedHandle(ToNodes)), as fmm_register_shared_memory: a VA of
  // the handle's size in its aperture, AMDKFD_IOC_IPC_IMPORT_HANDLE there on the exporter's GPU, and a CPU mapping
  // through that GPU's render node -- read-write when the exporter's flags say HostAccess, else the inaccessible
  // placeholder invisible VRAM gets (libhsakmt always asks read-write, which invisible VRAM refuses here). `nodes`
  // become its registered nodes (the default map set); without them a map goes to the GPU and its peers, as for
  // VRAM. QueryPointerInfo reports kRegisteredShared with the exporter's MemFlags. FreeMemory or DeregisterMemory
  // releases it; the buffer stays alive while the exporter or any importer holds it.
  // Errors: kInvalidArgument INVALID_NODE_UNIT for an unknown node, INVALID_PARAMETER for a node without a GPU,
  // for an aperture this thunk does not have or an empty handle; NO_MEMORY when no VA is left;
  // HSAKMT_STATUS_ERROR when the kernel refuses (an unknown or freed handle: EINVAL; a GPU this process does not
  // have: EINVAL; no IPC ioctls: ENOTTY) or the CPU mapping fails (a handle claiming more pages than the buffer
  // has). A failed import leaves nothing behind.
  absl::StatusOr<ImportedShared> RegisterSharedHandle(const SharedMemoryHandle& handle, std::span<const NodeId> nodes);

  // Returns the VRAM the kernel would still let this process allocate on `node`'s GPU.
  absl::StatusOr<Bytes> AvailableMemory(NodeId node);

  // Describes the allocation or registration containing `address`, if any (looked up as QueryPointerInfo).
  struct AllocationInfo {
    AddressRange range;  // the BO's GPU VA range (for a registration, page-aligned and apart from the CPU range)
    NodeId node;
    MemFlags flags;
    bool is_vram;
    std::vector<GpuId> mapped_gpus;
  };
  std::optional<AllocationInfo> FindAllocation(DeviceAddress address) const;

  // ---- for thunk components layered on this process (events.h) ----

  // The open device. Borrowed: valid as long as this Kfd.
  KfdDevice& device() const { return *device_; }

  // Runs `create_event`, which must issue AMDKFD_IOC_CREATE_EVENT with the event_page_offset it is given,
  // serialised with every other call, as libhsakmt serialises hsaKmtCreateEvent under hsakmt_mutex.
  // The first call allocates the process's event page (libhsakmt's events_page: kSignalEventLimit
  // 8-byte slots of host-visible, uncached system memory, a GTT buffer mapped on every GPU) and passes
  // its buffer handle, which hands the page to the kernel; every later call passes 0. From then on the
  // page is the kernel's, as upstream: FreeMemory of it fails (the kernel answers -EPERM) and ~Kfd leaves
  // it to close(). Returns the page's slots, which the kernel's event_slot_index indexes; empty without a
  // GPU, where the kernel keeps a page of its own that only an mmap of /dev/kfd reaches (TODO(#3)).
  // Errors: AllocMemory's or MapMemoryToGpu's for the page (nothing is created then); `create_event`'s.
  absl::StatusOr<std::span<uint64_t>> CreateEventWithPage(
      absl::FunctionRef<absl::Status(uint64_t event_page_offset)> create_event);

  // The process's doorbell slice on `node`'s GPU, set up on first use as libhsakmt's map_doorbell does for
  // the first queue: a DOORBELL buffer of kDoorbellSliceBytes in the SVM aperture, mapped on that GPU and
  // CPU-mapped through /dev/kfd at the offset the kernel returned. Returns its first doorbell (a queue's
  // doorbell is at the byte offset CREATE_QUEUE reports); valid until ~Kfd, which frees it.
  // Errors: kInvalidArgument (INVALID_NODE_UNIT) for a node without a GPU; the kernel's errno otherwise.
  static constexpr uint64_t kDoorbellSliceBytes = 8192;  // 1024 8-byte doorbells (SOC15)
  absl::StatusOr<uint64_t*> DoorbellSlice(NodeId node);

  // `node`'s remapped MMIO page (its HDP flush registers at KFD_MMIO_REMAP_* offsets), mapped at open for the CPU
  // and the GPU as libhsakmt's map_mmio does; valid until ~Kfd. nullopt for a CPU node, a GPU before GFX9, or a
  // GPU whose page the KFD refused.
  std::optional<DeviceAddress> MmioPage(NodeId node) const;
  // The two HDP flush registers in that page (KFD_MMIO_REMAP_HDP_MEM/REG_FLUSH_CNTL); a write flushes.
  struct HdpFlush {
    uint32_t* mem_flush_cntl;
    uint32_t* reg_flush_cntl;
  };
  std::optional<HdpFlush> HdpFlushRegisters(NodeId node) const;

 private:
  struct Gpu {
    NodeId node;
    GpuId gpu_id;
    int render_fd;
  };
  // What an allocation holds besides its VA (libhsakmt tells these apart by handles[0] == 0, by aperture, and by
  // the scratch backing aperture).
  enum class Kind {
    kBuffer,       // a KFD buffer at its VA: AllocMemory's, a registration's, the doorbell slice
    kAddressOnly,  // OnlyAddress: a VA reservation, no buffer
    kHandleOnly,   // NoAddress: a VRAM buffer without a GPU VA; its "address" names it in the handle aperture
    kScratch,      // Scratch: the GPU's scratch backing range; MapMemoryToGpu backs and maps parts of it
  };
  struct Allocation {
    // Declared before `bo` so that it is destroyed after it: the buffer goes before the VA it sits in, as
    // __fmm_release frees the BO before it releases the area.
    VaReservation va;
    std::optional<KfdBuffer> bo;  // set for kBuffer and kHandleOnly
    Kind kind = Kind::kBuffer;
    NodeId node = NodeId(0);
    GpuId owner_gpu = GpuId(0);  // the gpu_id in the BO handle
    MemFlags flags = MemFlags::kNone;
    bool is_vram = false;
    std::vector<GpuId> mapped_gpus = {};
    bool kernel_owned = false;  // the event page once handed to the kernel: close() frees it
    // RegisterMemory's: the BO is a USERPTR of the pages holding [user->cpu, user->cpu + user->size).
    struct UserRange {
      DeviceAddress cpu;       // the pointer as registered
      Bytes size;              // as registered
      uint32_t registrations;  // identical registrations share the BO; the last deregistration frees it
      uint32_t mappings;       // maps of a mapped registration only count; the last unmap unmaps
    };
    std::optional<UserRange> user = std::nullopt;
    std::vector<GpuId> registered_gpus = {};  // RegisterMemory's / ImportDmaBuf's nodes: the default map set
    // ImportDmaBuf's: a dma-buf import (libhsakmt's obj->metadata), freed by FreeMemory or DeregisterMemory.
    bool imported = false;
    // RegisterSharedHandle's: an IPC import (libhsakmt's is_imported_kfd_bo), freed likewise.
    bool shared_import = false;
    std::vector<uint8_t> metadata = {};
    void* user_data = nullptr;
    // kScratch: the VRAM buffers backing parts of the range, by start address, each mapped on owner_gpu.
    struct ScratchBacking {
      Bytes size;
      KfdBuffer buffer;
    };
    absl::btree_map<uint64_t, ScratchBacking> scratch_backing = {};

    const AddressRange& range() const { return va.range(); }
    std::optional<KfdBufferHandle> handle() const { return bo.has_value() ? bo->handle() : std::nullopt; }
  };
  struct EventPage {
    DeviceAddress address;
    KfdBufferHandle handle;
    std::span<uint64_t> slots;
  };

  // At open, once: each GFX9+ GPU's MMIO page (kfd_mmio.cc); a GPU whose page fails is logged and left without.
  void MapMmioPages();
  absl::StatusOr<DeviceAddress> MapMmioPage(const Gpu& gpu);

  Kfd(std::unique_ptr<KfdDevice> device, KfdVersion version, SystemTopology topology, std::vector<Gpu> gpus,
      std::unique_ptr<SvmAperture> aperture, std::unique_ptr<HandleAperture> handle_aperture, bool disable_cache,
      std::vector<kfd_uapi::ProcessDeviceApertures> apertures);

  const Gpu* GpuOfNode(NodeId node) const;
  absl::StatusOr<Allocation> AllocOnHost(const NodeProperties& node, Bytes size, MemFlags flags, Bytes alignment,
                                         std::optional<DeviceAddress> fixed);
  absl::StatusOr<Allocation> AllocOnDevice(const Gpu& gpu, Bytes size, MemFlags flags, Bytes alignment,
                                           std::optional<DeviceAddress> fixed);
  absl::StatusOr<Allocation> AllocScratch(const Gpu& gpu, Bytes size, std::optional<DeviceAddress> fixed);
  // A VA range for an allocation: at `fixed` when set, else anywhere suitably aligned.
  absl::StatusOr<VaReservation> ReserveVa(Bytes size, Bytes alignment, std::optional<DeviceAddress> fixed);
  // fmm_map_to_cpu: the device's mmap of a buffer over `addr` (KfdDevice::MapBoForCpu), then kept out of forked
  // children (MADV_DONTFORK, as libhsakmt marks its mappings): a child has none of the parent's GPU memory, so
  // nothing it does reaches the parent's buffers, rings or signals.
  absl::Status MapBoForCpu(const Gpu& gpu, void* addr, Bytes size, int prot, uint64_t mmap_offset);
  absl::StatusOr<KfdBuffer::Allocated> AllocBo(const Gpu& gpu, DeviceAddress va, Bytes size, uint32_t ioc_flags,
                                               uint64_t mmap_offset_in);
  // Records a new allocation; returns its start.
  DeviceAddress Insert(Allocation allocation) ABSL_LOCKS_EXCLUDED(mu_);
  // Raw gpu_ids, inline (on the stack) for up to 8 GPUs: the kernel copies such arrays from user memory.
  using GpuIdList = absl::InlinedVector<uint32_t, 8>;
  absl::StatusOr<GpuIdList> GpuIdsOfNodes(std::span<const NodeId> nodes, absl::string_view context) const;
  std::vector<NodeId> NodesOfGpus(const std::vector<GpuId>& gpus) const;
  // The gpu_ids MapMemoryToGpu maps `allocation` to when no nodes are given.
  GpuIdList DefaultMapSet(const Allocation& allocation) const;
  const Allocation* FindLocked(DeviceAddress address, Bytes size) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  Allocation* FindLocked(DeviceAddress address, Bytes size) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  const Allocation* FindContainingLocked(DeviceAddress address) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // The scratch range holding `address`, if any: O(number of GPUs).
  Allocation* ScratchContainingLocked(DeviceAddress address) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Erases an allocation record (its owners free its buffers, then its VA), keeping scratch_starts_ in step.
  void EraseLocked(const Allocation& allocation) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status FreeLocked(Allocation& allocation) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status ReleaseRegistrationLocked(Allocation& allocation) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status MapLocked(Allocation& allocation, const GpuIdList& gpu_ids) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status UnmapLocked(Allocation& allocation, const GpuIdList& gpu_ids) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status MapScratchLocked(Allocation& scratch, DeviceAddress address, Bytes size)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status UnmapScratchLocked(Allocation& scratch, DeviceAddress address) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<EventPage> AllocEventPage() ABSL_EXCLUSIVE_LOCKS_REQUIRED(event_mu_);

  const std::unique_ptr<KfdDevice> device_;
  const KfdVersion version_;
  const SystemTopology topology_;
  const std::vector<Gpu> gpus_;
  const std::vector<kfd_uapi::ProcessDeviceApertures> apertures_;  // as the kernel listed them at open
  const std::unique_ptr<SvmAperture> aperture_;  // never null
  const std::unique_ptr<HandleAperture> handle_aperture_;  // never null
  const bool disable_cache_;                       // HSA_DISABLE_CACHE, read at Open as libhsakmt does

  // Serialises event creation and guards the event page. Taken before mu_.
  absl::Mutex event_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  std::optional<EventPage> event_page_ ABSL_GUARDED_BY(event_mu_);
  bool event_page_handed_over_ ABSL_GUARDED_BY(event_mu_) = false;

  // Guards doorbells_; taken before mu_.
  absl::Mutex doorbell_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  absl::btree_map<uint32_t, uint64_t*> doorbells_ ABSL_GUARDED_BY(doorbell_mu_);  // by node
  // Set by MapMmioPages before Open returns, read-only after: by node. The pages are allocations_ entries.
  absl::btree_map<uint32_t, DeviceAddress> mmio_pages_;

  mutable absl::Mutex mu_;
  // By GPU VA range (Allocation::range()).
  AddressRangeMap<Allocation> allocations_ ABSL_GUARDED_BY(mu_);
  // The scratch ranges (Kind::kScratch), at most one per GPU: their keys in allocations_. Looked up by every map,
  // unmap and free, so those need not scan allocations_.
  absl::InlinedVector<uint64_t, 8> scratch_starts_ ABSL_GUARDED_BY(mu_);
  // Registered pointers (Allocation::user->cpu) -> the registration's key in allocations_. One pointer may carry
  // several registrations of different sizes, and registered ranges may overlap.
  absl::btree_multimap<uint64_t, uint64_t> user_ranges_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_KFD_H_
