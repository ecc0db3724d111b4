// Hand-written code object for the loader's relocation tests (hsa/executable_test.cc): `reloc_target` is a
// global with default visibility, so the linker keeps it preemptible and leaves the references to it in
// .data as dynamic relocations (R_AMDGPU_ABS64; lld refuses
// R_AMDGPU_ABS32_LO/HI in data, and ABS32 of a 64-bit address would not fit) for the loader.
  .amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
  .text
  .globl reloc_kernel
  .p2align 8
  .type reloc_kernel,@function
reloc_kernel:
  s_endpgm
.Lreloc_kernel_end:
  .size reloc_kernel, .Lreloc_kernel_end-reloc_kernel

  .rodata
  .p2align 6
  .amdhsa_kernel reloc_kernel
    .amdhsa_next_free_vgpr 1
    .amdhsa_next_free_sgpr 1
    .amdhsa_accum_offset 4
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_kernarg_size 16
    .amdhsa_group_segment_fixed_size 128
    .amdhsa_private_segment_fixed_size 32
  .end_amdhsa_kernel

  .data
  .globl reloc_target
  .p2align 4
  .type reloc_target,@object
reloc_target:
  .long 0x11223344
  .long 0x55667788
  .size reloc_target, 8

  .globl reloc_slots
  .p2align 3
  .type reloc_slots,@object
reloc_slots:
  .quad reloc_target+4
  .quad reloc_kernel.kd
  .size reloc_slots, 16

  .amdgpu_metadata
---
amdhsa.kernels:
  - .name: reloc_kernel
    .symbol: reloc_kernel.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 128
    .private_segment_fixed_size: 32
    .wavefront_size: 64
    .sgpr_count: 2
    .vgpr_count: 1
    .agpr_count: 0
    .max_flat_workgroup_size: 256
    .uses_dynamic_stack: false
    .args:
      - { .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .offset: 8, .size: 4, .value_kind: by_value }
amdhsa.target: amdgcn-amd-amdhsa--gfx90a
amdhsa.version: [ 1, 2 ]
...
  .end_amdgpu_metadata
