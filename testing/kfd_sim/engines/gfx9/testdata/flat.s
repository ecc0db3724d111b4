// FLAT, GLOBAL and SCRATCH instructions for flat_test.cc (one per line; encoded by llvm-mc-19 at build time).
global_atomic_add v1, v[2:3], v4, off glc
flat_atomic_add v1, v[2:3], v4 glc
flat_store_dword v[2:3], v1 offset:4
flat_load_dword v5, v[2:3] offset:4
global_load_dword v1, v0, s[4:5] offset:-8
global_load_dword v1, v[2:3], off offset:4095
global_load_dword v6, v[2:3], off offset:-4096
global_store_dword v0, v7, s[4:5] offset:4
scratch_load_dword v1, off, s2 offset:4
scratch_load_dword v3, v2, off offset:-4
scratch_load_dword v5, off, s2 offset:60
scratch_store_dword off, v4, s2
scratch_store_dword v2, v4, off offset:60
global_store_dword v[2:3], v1, off
global_load_dword v6, v[2:3], off
global_store_dwordx2 v[2:3], v[4:5], off
global_load_dwordx2 v[10:11], v[2:3], off
global_atomic_swap v1, v[2:3], v4, off glc
global_atomic_swap v[2:3], v4, off
global_atomic_cmpswap v1, v[2:3], v[4:5], off glc
global_atomic_cmpswap v[2:3], v[4:5], off
global_atomic_add v[2:3], v4, off
global_atomic_sub v1, v[2:3], v4, off glc
global_atomic_sub v[2:3], v4, off
global_atomic_smin v1, v[2:3], v4, off glc
global_atomic_smin v[2:3], v4, off
global_atomic_umin v1, v[2:3], v4, off glc
global_atomic_umin v[2:3], v4, off
global_atomic_smax v1, v[2:3], v4, off glc
global_atomic_smax v[2:3], v4, off
global_atomic_umax v1, v[2:3], v4, off glc
global_atomic_umax v[2:3], v4, off
global_atomic_and v1, v[2:3], v4, off glc
global_atomic_and v[2:3], v4, off
global_atomic_or v1, v[2:3], v4, off glc
global_atomic_or v[2:3], v4, off
global_atomic_xor v1, v[2:3], v4, off glc
global_atomic_xor v[2:3], v4, off
global_atomic_inc v1, v[2:3], v4, off glc
global_atomic_inc v[2:3], v4, off
global_atomic_dec v1, v[2:3], v4, off glc
global_atomic_dec v[2:3], v4, off
global_atomic_add_f32 v1, v[2:3], v4, off glc
global_atomic_add_f32 v[2:3], v4, off
global_atomic_pk_add_f16 v1, v[2:3], v4, off glc
global_atomic_pk_add_f16 v[2:3], v4, off
global_atomic_swap_x2 v[0:1], v[2:3], v[4:5], off glc
global_atomic_swap_x2 v[2:3], v[4:5], off
global_atomic_cmpswap_x2 v[0:1], v[2:3], v[4:7], off glc
global_atomic_cmpswap_x2 v[2:3], v[4:7], off
global_atomic_add_x2 v[0:1], v[2:3], v[4:5], off glc
global_atomic_add_x2 v[2:3], v[4:5], off
global_atomic_sub_x2 v[0:1], v[2:3], v[4:5], off glc
global_atomic_sub_x2 v[2:3], v[4:5], off
global_atomic_smin_x2 v[0:1], v[2:3], v[4:5], off glc
global_atomic_smin_x2 v[2:3], v[4:5], off
global_atomic_umin_x2 v[0:1], v[2:3], v[4:5], off glc
global_atomic_umin_x2 v[2:3], v[4:5], off
global_atomic_smax_x2 v[0:1], v[2:3], v[4:5], off glc
global_atomic_smax_x2 v[2:3], v[4:5], off
global_atomic_umax_x2 v[0:1], v[2:3], v[4:5], off glc
global_atomic_umax_x2 v[2:3], v[4:5], off
global_atomic_and_x2 v[0:1], v[2:3], v[4:5], off glc
global_atomic_and_x2 v[2:3], v[4:5], off
global_atomic_or_x2 v[0:1], v[2:3], v[4:5], off glc
global_atomic_or_x2 v[2:3], v[4:5], off
global_atomic_xor_x2 v[0:1], v[2:3], v[4:5], off glc
global_atomic_xor_x2 v[2:3], v[4:5], off
global_atomic_inc_x2 v[0:1], v[2:3], v[4:5], off glc
global_atomic_inc_x2 v[2:3], v[4:5], off
global_atomic_dec_x2 v[0:1], v[2:3], v[4:5], off glc
global_atomic_dec_x2 v[2:3], v[4:5], off
global_atomic_add_f64 v[0:1], v[2:3], v[4:5], off glc
global_atomic_add_f64 v[2:3], v[4:5], off
global_atomic_min_f64 v[0:1], v[2:3], v[4:5], off glc
global_atomic_min_f64 v[2:3], v[4:5], off
global_atomic_max_f64 v[0:1], v[2:3], v[4:5], off glc
global_atomic_max_f64 v[2:3], v[4:5], off
global_load_ubyte v10, v[2:3], off
global_load_sbyte v10, v[2:3], off
global_load_ushort v10, v[2:3], off
global_load_sshort v10, v[2:3], off
global_load_dword v10, v[2:3], off
global_load_dwordx3 v[10:12], v[2:3], off
global_load_dwordx4 v[10:13], v[2:3], off
global_load_ubyte_d16 v10, v[2:3], off
global_load_ubyte_d16_hi v10, v[2:3], off
global_load_sbyte_d16 v10, v[2:3], off
global_load_sbyte_d16_hi v10, v[2:3], off
global_load_short_d16 v10, v[2:3], off
global_load_short_d16_hi v10, v[2:3], off
global_store_byte v[2:3], v4, off
global_store_byte_d16_hi v[2:3], v4, off
global_store_short v[2:3], v4, off
global_store_short_d16_hi v[2:3], v4, off
global_store_dword v[2:3], v4, off
global_store_dwordx3 v[2:3], v[4:6], off
global_store_dwordx4 v[2:3], v[4:7], off
global_atomic_add v6, v[2:3], v1, off glc
