// The AMDGPU kernel descriptor: the 64-byte record an AQL KERNEL_DISPATCH packet's kernel_object points at.
//
// Plays the hardware/ABI side of LLVM's AMDGPUUsage "Kernel Descriptor" section (code object v3 and later; the
// layout is the same for v4, v5 and v6). The loader (hsa/, playing ROCr's loader) places the descriptor of a
// kernel `foo` at the dynamic symbol `foo.kd`; the simulated compute CP reads it to build each wave's initial
// state. Every field is little-endian; the descriptor is 64-byte aligned, and the kernel's first instruction
// sits at descriptor address + kernel_code_entry_byte_offset (256-byte aligned on every target).
//
//   @0  group_segment_fixed_size (u32)    static LDS bytes
//   @4  private_segment_fixed_size (u32)  static scratch bytes per work-item
//   @8  kernarg_size (u32)                bytes of the kernarg segment
//   @12 reserved (4 bytes)
//   @16 kernel_code_entry_byte_offset (i64, from the descriptor's own address; may be negative)
//   @24 reserved (20 bytes)
//   @44 compute_pgm_rsrc3 (u32)           GFX90A/GFX942: accum_offset, tg_split; GFX10+: shared VGPRs, ...
//   @48 compute_pgm_rsrc1 (u32)           register granules, float modes, ieee/dx10 clamp
//   @52 compute_pgm_rsrc2 (u32)           user SGPR count, workgroup id and work-item id enables, LDS size
//   @56 kernel_code_properties (u16)      which user SGPRs are set up, wave32, dynamic stack
//   @58 kernarg_preload (u16)             bits 0-6 preload length (dwords), bits 7-15 preload offset (dwords)
//   @60 reserved (4 bytes)
//
// The bit fields below are named as in AMDGPUUsage (and LLVM's AMDHSAKernelDescriptor.h, whose values they
// share); accessors return the raw field, helpers with "Count" in the name decode the granule encodings.
#ifndef HIPMEM_GPU_ABI_KERNEL_DESCRIPTOR_H_
#define HIPMEM_GPU_ABI_KERNEL_DESCRIPTOR_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace hipmem::gpu_abi::amdhsa {

inline constexpr size_t kKernelDescriptorBytes = 64;
inline constexpr size_t kKernelDescriptorAlignment = 64;
// Every kernel entry is 256-byte aligned (AMDGPUUsage: "kernel code entry ... must be 256 byte aligned").
inline constexpr size_t kKernelCodeAlignment = 256;

// A contiguous bit field [shift, shift + width) of a 32-bit register image.
struct BitField {
  int shift;
  int width;
  constexpr uint32_t Mask() const { return (width == 32 ? ~0u : ((1u << width) - 1u)) << shift; }
  constexpr uint32_t Get(uint32_t word) const { return (word & Mask()) >> shift; }
  constexpr uint32_t Set(uint32_t word, uint32_t value) const {
    return (word & ~Mask()) | ((value << shift) & Mask());
  }
};

// COMPUTE_PGM_RSRC1 (GFX6-GFX11).
namespace rsrc1 {
inline constexpr BitField kGranulatedWorkitemVgprCount{0, 6};
inline constexpr BitField kGranulatedWavefrontSgprCount{6, 4};  // GFX6-GFX9; reserved on GFX10+
inline constexpr BitField kPriority{10, 2};
inline constexpr BitField kFloatRoundMode32{12, 2};
inline constexpr BitField kFloatRoundMode16_64{14, 2};
inline constexpr BitField kFloatDenormMode32{16, 2};
inline constexpr BitField kFloatDenormMode16_64{18, 2};
inline constexpr BitField kPriv{20, 1};
inline constexpr BitField kEnableDx10Clamp{21, 1};
inline constexpr BitField kDebugMode{22, 1};
inline constexpr BitField kEnableIeeeMode{23, 1};
inline constexpr BitField kBulky{24, 1};
inline constexpr BitField kCdbgUser{25, 1};
inline constexpr BitField kFp16Ovfl{26, 1};  // GFX9+
inline constexpr BitField kWgpMode{29, 1};   // GFX10+
inline constexpr BitField kMemOrdered{30, 1};  // GFX10+
inline constexpr BitField kFwdProgress{31, 1};  // GFX10+
}  // namespace rsrc1

// COMPUTE_PGM_RSRC2.
namespace rsrc2 {
// Named ENABLE_SGPR_PRIVATE_SEGMENT_WAVEFRONT_OFFSET before LLVM 13: the wave's scratch offset system SGPR.
inline constexpr BitField kEnablePrivateSegment{0, 1};
inline constexpr BitField kUserSgprCount{1, 5};
inline constexpr BitField kEnableTrapHandler{6, 1};
inline constexpr BitField kEnableSgprWorkgroupIdX{7, 1};
inline constexpr BitField kEnableSgprWorkgroupIdY{8, 1};
inline constexpr BitField kEnableSgprWorkgroupIdZ{9, 1};
inline constexpr BitField kEnableSgprWorkgroupInfo{10, 1};
// 0: X only, 1: X and Y, 2: X, Y and Z (3 is reserved and treated as 2).
inline constexpr BitField kEnableVgprWorkitemId{11, 2};
inline constexpr BitField kEnableExceptionAddressWatch{13, 1};
inline constexpr BitField kEnableExceptionMemory{14, 1};
inline constexpr BitField kGranulatedLdsSize{15, 9};  // written by the CP, 0 in the descriptor
inline constexpr BitField kEnableExceptionIeee754FpInvalidOperation{24, 1};
inline constexpr BitField kEnableExceptionFpDenormalSource{25, 1};
inline constexpr BitField kEnableExceptionIeee754FpDivisionByZero{26, 1};
inline constexpr BitField kEnableExceptionIeee754FpOverflow{27, 1};
inline constexpr BitField kEnableExceptionIeee754FpUnderflow{28, 1};
inline constexpr BitField kEnableExceptionIeee754FpInexact{29, 1};
inline constexpr BitField kEnableExceptionIntDivideByZero{30, 1};
}  // namespace rsrc2

// COMPUTE_PGM_RSRC3: the layout depends on the target.
namespace rsrc3 {
// GFX90A and GFX942: the first AGPR follows the VGPRs at (accum_offset + 1) * 4.
inline constexpr BitField kGfx90aAccumOffset{0, 6};
inline constexpr BitField kGfx90aTgSplit{16, 1};
// GFX10-GFX11.
inline constexpr BitField kGfx10SharedVgprCount{0, 4};
inline constexpr BitField kGfx11InstPrefSize{4, 6};
inline constexpr BitField kGfx11TrapOnStart{10, 1};
inline constexpr BitField kGfx11TrapOnEnd{11, 1};
inline constexpr BitField kGfx10ImageOp{31, 1};
}  // namespace rsrc3

// kernel_code_properties (16 bits at byte 56): which user SGPRs the CP sets up, in this order.
namespace properties {
inline constexpr BitField kEnableSgprPrivateSegmentBuffer{0, 1};  // 4 SGPRs (a V# for scratch)
inline constexpr BitField kEnableSgprDispatchPtr{1, 1};           // 2 SGPRs
inline constexpr BitField kEnableSgprQueuePtr{2, 1};              // 2 SGPRs
inline constexpr BitField kEnableSgprKernargSegmentPtr{3, 1};     // 2 SGPRs
inline constexpr BitField kEnableSgprDispatchId{4, 1};            // 2 SGPRs
inline constexpr BitField kEnableSgprFlatScratchInit{5, 1};       // 2 SGPRs
inline constexpr BitField kEnableSgprPrivateSegmentSize{6, 1};    // 1 SGPR
inline constexpr BitField kEnableWavefrontSize32{10, 1};          // GFX10+
inline constexpr BitField kUsesDynamicStack{11, 1};
}  // namespace properties

// kernarg_preload (16 bits at byte 58; GFX90A/GFX942 with code object v5+).
namespace kernarg_preload {
inline constexpr BitField kSpecLength{0, 7};
inline constexpr BitField kSpecOffset{7, 9};
}  // namespace kernarg_preload

// The descriptor as it sits in memory. Trivially copyable: read it with std::memcpy from the bytes at
// kernel_object (FromBytes), never by casting a pointer into GPU memory.
struct KernelDescriptor {
  uint32_t group_segment_fixed_size;
  uint32_t private_segment_fixed_size;
  uint32_t kernarg_size;
  uint8_t reserved0[4];
  int64_t kernel_code_entry_byte_offset;
  uint8_t reserved1[20];
  uint32_t compute_pgm_rsrc3;
  uint32_t compute_pgm_rsrc1;
  uint32_t compute_pgm_rsrc2;
  uint16_t kernel_code_properties;
  uint16_t kernarg_preload;
  uint8_t reserved3[4];

  // Decodes a descriptor from its 64 bytes (little-endian, as every AMDGPU host is).
  static KernelDescriptor FromBytes(const void* bytes) {
    KernelDescriptor kd;
    std::memcpy(&kd, bytes, sizeof(kd));
    return kd;
  }

  // rsrc1.
  constexpr uint32_t granulated_workitem_vgpr_count() const {
    return rsrc1::kGranulatedWorkitemVgprCount.Get(compute_pgm_rsrc1);
  }
  constexpr uint32_t granulated_wavefront_sgpr_count() const {
    return rsrc1::kGranulatedWavefrontSgprCount.Get(compute_pgm_rsrc1);
  }
  constexpr uint32_t float_round_mode_32() const { return rsrc1::kFloatRoundMode32.Get(compute_pgm_rsrc1); }
  constexpr uint32_t float_round_mode_16_64() const {
    return rsrc1::kFloatRoundMode16_64.Get(compute_pgm_rsrc1);
  }
  constexpr uint32_t float_denorm_mode_32() const { return rsrc1::kFloatDenormMode32.Get(compute_pgm_rsrc1); }
  constexpr uint32_t float_denorm_mode_16_64() const {
    return rsrc1::kFloatDenormMode16_64.Get(compute_pgm_rsrc1);
  }
  constexpr bool enable_dx10_clamp() const { return rsrc1::kEnableDx10Clamp.Get(compute_pgm_rsrc1) != 0; }
  constexpr bool enable_ieee_mode() const { return rsrc1::kEnableIeeeMode.Get(compute_pgm_rsrc1) != 0; }
  constexpr bool fp16_ovfl() const { return rsrc1::kFp16Ovfl.Get(compute_pgm_rsrc1) != 0; }

  // rsrc2.
  constexpr bool enable_private_segment() const {
    return rsrc2::kEnablePrivateSegment.Get(compute_pgm_rsrc2) != 0;
  }
  constexpr uint32_t user_sgpr_count() const { return rsrc2::kUserSgprCount.Get(compute_pgm_rsrc2); }
  constexpr bool enable_trap_handler() const { return rsrc2::kEnableTrapHandler.Get(compute_pgm_rsrc2) != 0; }
  constexpr bool enable_sgpr_workgroup_id_x() const {
    return rsrc2::kEnableSgprWorkgroupIdX.Get(compute_pgm_rsrc2) != 0;
  }
  constexpr bool enable_sgpr_workgroup_id_y() const {
    return rsrc2::kEnableSgprWorkgroupIdY.Get(compute_pgm_rsrc2) != 0;
  }
  constexpr bool enable_sgpr_workgroup_id_z() const {
    return rsrc2::kEnableSgprWorkgroupIdZ.Get(compute_pgm_rsrc2) != 0;
  }
  constexpr bool enable_sgpr_workgroup_info() const {
    return rsrc2::kEnableSgprWorkgroupInfo.Get(compute_pgm_rsrc2) != 0;
  }
  // 0: X, 1: X and Y, 2 (or the reserved 3): X, Y and Z.
  constexpr uint32_t enable_vgpr_workitem_id() const {
    return rsrc2::kEnableVgprWorkitemId.Get(compute_pgm_rsrc2);
  }

  // rsrc3 (GFX90A/GFX942 layout).
  constexpr uint32_t accum_offset() const { return rsrc3::kGfx90aAccumOffset.Get(compute_pgm_rsrc3); }
  // The first AGPR's index in the unified VGPR file: (accum_offset + 1) * 4.
  constexpr uint32_t first_agpr() const { return (accum_offset() + 1) * 4; }
  constexpr bool tg_split() const { return rsrc3::kGfx90aTgSplit.Get(compute_pgm_rsrc3) != 0; }

  // kernel_code_properties.
  constexpr bool enable_sgpr_private_segment_buffer() const {
    return properties::kEnableSgprPrivateSegmentBuffer.Get(kernel_code_properties) != 0;
  }
  constexpr bool enable_sgpr_dispatch_ptr() const {
    return properties::kEnableSgprDispatchPtr.Get(kernel_code_properties) != 0;
  }
  constexpr bool enable_sgpr_queue_ptr() const {
    return properties::kEnableSgprQueuePtr.Get(kernel_code_properties) != 0;
  }
  constexpr bool enable_sgpr_kernarg_segment_ptr() const {
    return properties::kEnableSgprKernargSegmentPtr.Get(kernel_code_properties) != 0;
  }
  constexpr bool enable_sgpr_dispatch_id() const {
    return properties::kEnableSgprDispatchId.Get(kernel_code_properties) != 0;
  }
  constexpr bool enable_sgpr_flat_scratch_init() const {
    return properties::kEnableSgprFlatScratchInit.Get(kernel_code_properties) != 0;
  }
  constexpr bool enable_sgpr_private_segment_size() const {
    return properties::kEnableSgprPrivateSegmentSize.Get(kernel_code_properties) != 0;
  }
  constexpr bool enable_wavefront_size32() const {
    return properties::kEnableWavefrontSize32.Get(kernel_code_properties) != 0;
  }
  constexpr bool uses_dynamic_stack() const {
    return properties::kUsesDynamicStack.Get(kernel_code_properties) != 0;
  }

  // kernarg_preload.
  constexpr uint32_t kernarg_preload_spec_length() const {
    return kernarg_preload::kSpecLength.Get(kernarg_preload);
  }
  constexpr uint32_t kernarg_preload_spec_offset() const {
    return kernarg_preload::kSpecOffset.Get(kernarg_preload);
  }
};

static_assert(std::is_trivially_copyable_v<KernelDescriptor>);
static_assert(std::is_standard_layout_v<KernelDescriptor>);
static_assert(sizeof(KernelDescriptor) == kKernelDescriptorBytes);
static_assert(offsetof(KernelDescriptor, group_segment_fixed_size) == 0);
static_assert(offsetof(KernelDescriptor, private_segment_fixed_size) == 4);
static_assert(offsetof(KernelDescriptor, kernarg_size) == 8);
static_assert(offsetof(KernelDescriptor, kernel_code_entry_byte_offset) == 16);
static_assert(offsetof(KernelDescriptor, compute_pgm_rsrc3) == 44);
static_assert(offsetof(KernelDescriptor, compute_pgm_rsrc1) == 48);
static_assert(offsetof(KernelDescriptor, compute_pgm_rsrc2) == 52);
static_assert(offsetof(KernelDescriptor, kernel_code_properties) == 56);
static_assert(offsetof(KernelDescriptor, kernarg_preload) == 58);

// The number of user SGPRs kernel_code_properties asks for, in AMDGPUUsage's order (private segment buffer 4,
// dispatch ptr 2, queue ptr 2, kernarg segment ptr 2, dispatch id 2, flat scratch init 2, private segment
// size 1), plus the preloaded kernarg dwords. rsrc2's user_sgpr_count should equal it.
constexpr uint32_t EnabledUserSgprCount(const KernelDescriptor& kd) {
  return (kd.enable_sgpr_private_segment_buffer() ? 4 : 0) + (kd.enable_sgpr_dispatch_ptr() ? 2 : 0) +
         (kd.enable_sgpr_queue_ptr() ? 2 : 0) + (kd.enable_sgpr_kernarg_segment_ptr() ? 2 : 0) +
         (kd.enable_sgpr_dispatch_id() ? 2 : 0) + (kd.enable_sgpr_flat_scratch_init() ? 2 : 0) +
         (kd.enable_sgpr_private_segment_size() ? 1 : 0) + kd.kernarg_preload_spec_length();
}

// The VGPRs a work-item may use (per wave, the rounded-up allocation), decoded from
// granulated_workitem_vgpr_count: GFX90A/GFX942 allocate the unified VGPR+AGPR file in granules of 8;
// GFX9 (gfx908 and earlier) and GFX10+ wave64 in granules of 4; GFX10+ wave32 in granules of 8.
constexpr uint32_t VgprCount(const KernelDescriptor& kd, uint32_t granule) {
  return (kd.granulated_workitem_vgpr_count() + 1) * granule;
}

// The SGPRs a wave is allocated on GFX9, decoded from granulated_wavefront_sgpr_count: LLVM writes
// 2 * (ceil(sgprs / 16) - 1) (granules of 16 counted in units of 8), so the field is even and the allocation is
// (field / 2 + 1) * 16. GFX10+ leave it 0 and always allocate 128 SGPRs.
constexpr uint32_t Gfx9SgprCount(const KernelDescriptor& kd) {
  return (kd.granulated_wavefront_sgpr_count() / 2 + 1) * 16;
}

}  // namespace hipmem::gpu_abi::amdhsa

#endif  // HIPMEM_GPU_ABI_KERNEL_DESCRIPTOR_H_
