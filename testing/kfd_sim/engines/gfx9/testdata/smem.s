// Scalar memory instructions for smem_test.cc (one per line; encoded by llvm-mc-19 at build time for gfx908,
// gfx90a and gfx942). The atomics are every op in both forms, with and without GLC, as AtomicLine() spells them.
s_load_dword s4, s[2:3], 0x10
s_load_dwordx2 s[4:5], s[2:3], 0x8
s_load_dwordx4 s[4:7], s[2:3], 0x10
s_load_dwordx8 s[12:19], s[2:3], 0x20
s_load_dwordx16 s[12:27], s[2:3], 0x0
s_load_dword s4, s[2:3], s8
s_load_dword s4, s[2:3], s8 offset:0x10
s_load_dword s4, s[2:3], m0
s_load_dword s4, s[2:3], -0x8
s_load_dwordx2 s[4:5], s[2:3], 0x8 glc
s_load_dwordx8 s[4:11], s[2:3], 0x0
s_store_dword s4, s[2:3], 0x10
s_store_dword s4, s[2:3], 0x0 glc
s_store_dwordx2 s[4:5], s[2:3], 0x8
s_store_dwordx4 s[4:7], s[2:3], s8
s_buffer_load_dword s4, s[8:11], s12
s_buffer_load_dwordx2 s[4:5], s[8:11], 0x0
s_buffer_load_dwordx4 s[4:7], s[8:11], 0x10
s_buffer_load_dwordx8 s[12:19], s[8:11], 0x20
s_buffer_load_dwordx16 s[12:27], s[8:11], 0x40
s_buffer_store_dword s4, s[8:11], s12
s_buffer_store_dwordx2 s[4:5], s[8:11], 0x8
s_buffer_store_dwordx4 s[4:7], s[8:11], 0x10 glc
s_scratch_store_dword s4, s[0:1], 0x104
s_scratch_store_dwordx2 s[4:5], s[0:1], 0x1fc
s_scratch_load_dwordx4 s[4:7], s[0:1], 0x300
s_scratch_load_dword s8, s[0:1], 0x214
s_scratch_load_dwordx2 s[8:9], s[0:1], 0x4
s_scratch_store_dwordx4 s[4:7], s[0:1], 0x10000
s_scratch_load_dword s8, s[0:1], 0x10000
s_buffer_atomic_add s4, s[8:11], 0x8 glc
s_atomic_add s4, s[2:3], 0x8 glc
s_atomic_add_x2 s[4:5], s[2:3], 0x8 glc
s_atomic_add s4, s[2:3], 0x0
s_sub_u32 s6, s6, 1
s_cmp_lg_u32 s6, 0
s_cbranch_scc1 -5
s_memtime s[4:5]
s_memrealtime s[6:7]
s_memtime s[8:9]
s_dcache_inv
s_dcache_wb
s_dcache_inv_vol
s_dcache_wb_vol
s_atc_probe 1, s[2:3], 0x10
s_atc_probe_buffer 1, s[8:11], 0x10
s_dcache_discard s[2:3], 0x10
s_dcache_discard_x2 s[2:3], 0x10
s_atomic_swap s4, s[2:3], 0x8 glc
s_atomic_cmpswap s[4:5], s[2:3], 0x8 glc
s_atomic_sub s4, s[2:3], 0x8 glc
s_atomic_smin s4, s[2:3], 0x8 glc
s_atomic_umin s4, s[2:3], 0x8 glc
s_atomic_smax s4, s[2:3], 0x8 glc
s_atomic_umax s4, s[2:3], 0x8 glc
s_atomic_and s4, s[2:3], 0x8 glc
s_atomic_or s4, s[2:3], 0x8 glc
s_atomic_xor s4, s[2:3], 0x8 glc
s_atomic_inc s4, s[2:3], 0x8 glc
s_atomic_dec s4, s[2:3], 0x8 glc
s_atomic_swap s4, s[2:3], 0x8
s_atomic_cmpswap s[4:5], s[2:3], 0x8
s_atomic_add s4, s[2:3], 0x8
s_atomic_sub s4, s[2:3], 0x8
s_atomic_smin s4, s[2:3], 0x8
s_atomic_umin s4, s[2:3], 0x8
s_atomic_smax s4, s[2:3], 0x8
s_atomic_umax s4, s[2:3], 0x8
s_atomic_and s4, s[2:3], 0x8
s_atomic_or s4, s[2:3], 0x8
s_atomic_xor s4, s[2:3], 0x8
s_atomic_inc s4, s[2:3], 0x8
s_atomic_dec s4, s[2:3], 0x8
s_atomic_swap_x2 s[4:5], s[2:3], 0x8 glc
s_atomic_cmpswap_x2 s[4:7], s[2:3], 0x8 glc
s_atomic_sub_x2 s[4:5], s[2:3], 0x8 glc
s_atomic_smin_x2 s[4:5], s[2:3], 0x8 glc
s_atomic_umin_x2 s[4:5], s[2:3], 0x8 glc
s_atomic_smax_x2 s[4:5], s[2:3], 0x8 glc
s_atomic_umax_x2 s[4:5], s[2:3], 0x8 glc
s_atomic_and_x2 s[4:5], s[2:3], 0x8 glc
s_atomic_or_x2 s[4:5], s[2:3], 0x8 glc
s_atomic_xor_x2 s[4:5], s[2:3], 0x8 glc
s_atomic_inc_x2 s[4:5], s[2:3], 0x8 glc
s_atomic_dec_x2 s[4:5], s[2:3], 0x8 glc
s_atomic_swap_x2 s[4:5], s[2:3], 0x8
s_atomic_cmpswap_x2 s[4:7], s[2:3], 0x8
s_atomic_add_x2 s[4:5], s[2:3], 0x8
s_atomic_sub_x2 s[4:5], s[2:3], 0x8
s_atomic_smin_x2 s[4:5], s[2:3], 0x8
s_atomic_umin_x2 s[4:5], s[2:3], 0x8
s_atomic_smax_x2 s[4:5], s[2:3], 0x8
s_atomic_umax_x2 s[4:5], s[2:3], 0x8
s_atomic_and_x2 s[4:5], s[2:3], 0x8
s_atomic_or_x2 s[4:5], s[2:3], 0x8
s_atomic_xor_x2 s[4:5], s[2:3], 0x8
s_atomic_inc_x2 s[4:5], s[2:3], 0x8
s_atomic_dec_x2 s[4:5], s[2:3], 0x8
s_buffer_atomic_swap s4, s[8:11], 0x8 glc
s_buffer_atomic_cmpswap s[4:5], s[8:11], 0x8 glc
s_buffer_atomic_sub s4, s[8:11], 0x8 glc
s_buffer_atomic_smin s4, s[8:11], 0x8 glc
s_buffer_atomic_umin s4, s[8:11], 0x8 glc
s_buffer_atomic_smax s4, s[8:11], 0x8 glc
s_buffer_atomic_umax s4, s[8:11], 0x8 glc
s_buffer_atomic_and s4, s[8:11], 0x8 glc
s_buffer_atomic_or s4, s[8:11], 0x8 glc
s_buffer_atomic_xor s4, s[8:11], 0x8 glc
s_buffer_atomic_inc s4, s[8:11], 0x8 glc
s_buffer_atomic_dec s4, s[8:11], 0x8 glc
s_buffer_atomic_swap s4, s[8:11], 0x8
s_buffer_atomic_cmpswap s[4:5], s[8:11], 0x8
s_buffer_atomic_add s4, s[8:11], 0x8
s_buffer_atomic_sub s4, s[8:11], 0x8
s_buffer_atomic_smin s4, s[8:11], 0x8
s_buffer_atomic_umin s4, s[8:11], 0x8
s_buffer_atomic_smax s4, s[8:11], 0x8
s_buffer_atomic_umax s4, s[8:11], 0x8
s_buffer_atomic_and s4, s[8:11], 0x8
s_buffer_atomic_or s4, s[8:11], 0x8
s_buffer_atomic_xor s4, s[8:11], 0x8
s_buffer_atomic_inc s4, s[8:11], 0x8
s_buffer_atomic_dec s4, s[8:11], 0x8
s_buffer_atomic_swap_x2 s[4:5], s[8:11], 0x8 glc
s_buffer_atomic_cmpswap_x2 s[4:7], s[8:11], 0x8 glc
s_buffer_atomic_add_x2 s[4:5], s[8:11], 0x8 glc
s_buffer_atomic_sub_x2 s[4:5], s[8:11], 0x8 glc
s_buffer_atomic_smin_x2 s[4:5], s[8:11], 0x8 glc
s_buffer_atomic_umin_x2 s[4:5], s[8:11], 0x8 glc
s_buffer_atomic_smax_x2 s[4:5], s[8:11], 0x8 glc
s_buffer_atomic_umax_x2 s[4:5], s[8:11], 0x8 glc
s_buffer_atomic_and_x2 s[4:5], s[8:11], 0x8 glc
s_buffer_atomic_or_x2 s[4:5], s[8:11], 0x8 glc
s_buffer_atomic_xor_x2 s[4:5], s[8:11], 0x8 glc
s_buffer_atomic_inc_x2 s[4:5], s[8:11], 0x8 glc
s_buffer_atomic_dec_x2 s[4:5], s[8:11], 0x8 glc
s_buffer_atomic_swap_x2 s[4:5], s[8:11], 0x8
s_buffer_atomic_cmpswap_x2 s[4:7], s[8:11], 0x8
s_buffer_atomic_add_x2 s[4:5], s[8:11], 0x8
s_buffer_atomic_sub_x2 s[4:5], s[8:11], 0x8
s_buffer_atomic_smin_x2 s[4:5], s[8:11], 0x8
s_buffer_atomic_umin_x2 s[4:5], s[8:11], 0x8
s_buffer_atomic_smax_x2 s[4:5], s[8:11], 0x8
s_buffer_atomic_umax_x2 s[4:5], s[8:11], 0x8
s_buffer_atomic_and_x2 s[4:5], s[8:11], 0x8
s_buffer_atomic_or_x2 s[4:5], s[8:11], 0x8
s_buffer_atomic_xor_x2 s[4:5], s[8:11], 0x8
s_buffer_atomic_inc_x2 s[4:5], s[8:11], 0x8
s_buffer_atomic_dec_x2 s[4:5], s[8:11], 0x8
