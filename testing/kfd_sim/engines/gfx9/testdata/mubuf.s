// MUBUF instructions for mubuf_test.cc (one per line; encoded by llvm-mc-19 at build time).
buffer_load_dword v10, v0, s[8:11], 0 idxen
buffer_load_dword v11, v[0:1], s[8:11], s4 idxen offen offset:4
buffer_load_dword v12, off, s[8:11], 4 offset:4092
buffer_load_dword v13, v1, s[8:11], s4 offen
buffer_load_dwordx4 v[10:13], v0, s[8:11], 0 offen
buffer_load_ubyte v14, v1, s[8:11], 0 offen
buffer_load_ushort v15, v1, s[8:11], 0 offen
buffer_load_dword v16, v0, s[8:11], s4 offen
buffer_store_dwordx4 v[4:7], v0, s[8:11], 0 offen
buffer_atomic_add v4, v1, s[8:11], 0 offen offset:3 glc
buffer_load_dword v11, v1, s[8:11], 0 idxen offset:4
buffer_store_dword v1, v0, s[0:3], 0 offen offset:4
buffer_load_dword v2, off, s[0:3], s5 offset:16
buffer_store_dword v1, off, s[0:3], 0 offset:48
buffer_wbl2
buffer_invl2
buffer_wbinvl1
buffer_wbinvl1_vol
buffer_store_dword v1, v0, s[8:11], 0 offen
buffer_atomic_swap v4, off, s[8:11], 0 glc
buffer_atomic_swap v4, off, s[8:11], 0
buffer_atomic_cmpswap v[4:5], off, s[8:11], 0 glc
buffer_atomic_cmpswap v[4:5], off, s[8:11], 0
buffer_atomic_add v4, off, s[8:11], 0 glc
buffer_atomic_add v4, off, s[8:11], 0
buffer_atomic_sub v4, off, s[8:11], 0 glc
buffer_atomic_sub v4, off, s[8:11], 0
buffer_atomic_smin v4, off, s[8:11], 0 glc
buffer_atomic_smin v4, off, s[8:11], 0
buffer_atomic_umin v4, off, s[8:11], 0 glc
buffer_atomic_umin v4, off, s[8:11], 0
buffer_atomic_smax v4, off, s[8:11], 0 glc
buffer_atomic_smax v4, off, s[8:11], 0
buffer_atomic_umax v4, off, s[8:11], 0 glc
buffer_atomic_umax v4, off, s[8:11], 0
buffer_atomic_and v4, off, s[8:11], 0 glc
buffer_atomic_and v4, off, s[8:11], 0
buffer_atomic_or v4, off, s[8:11], 0 glc
buffer_atomic_or v4, off, s[8:11], 0
buffer_atomic_xor v4, off, s[8:11], 0 glc
buffer_atomic_xor v4, off, s[8:11], 0
buffer_atomic_inc v4, off, s[8:11], 0 glc
buffer_atomic_inc v4, off, s[8:11], 0
buffer_atomic_dec v4, off, s[8:11], 0 glc
buffer_atomic_dec v4, off, s[8:11], 0
buffer_atomic_add_f32 v4, off, s[8:11], 0 glc
buffer_atomic_add_f32 v4, off, s[8:11], 0
buffer_atomic_pk_add_f16 v4, off, s[8:11], 0 glc
buffer_atomic_pk_add_f16 v4, off, s[8:11], 0
buffer_atomic_swap_x2 v[4:5], off, s[8:11], 0 glc
buffer_atomic_swap_x2 v[4:5], off, s[8:11], 0
buffer_atomic_cmpswap_x2 v[4:7], off, s[8:11], 0 glc
buffer_atomic_cmpswap_x2 v[4:7], off, s[8:11], 0
buffer_atomic_add_x2 v[4:5], off, s[8:11], 0 glc
buffer_atomic_add_x2 v[4:5], off, s[8:11], 0
buffer_atomic_sub_x2 v[4:5], off, s[8:11], 0 glc
buffer_atomic_sub_x2 v[4:5], off, s[8:11], 0
buffer_atomic_smin_x2 v[4:5], off, s[8:11], 0 glc
buffer_atomic_smin_x2 v[4:5], off, s[8:11], 0
buffer_atomic_umin_x2 v[4:5], off, s[8:11], 0 glc
buffer_atomic_umin_x2 v[4:5], off, s[8:11], 0
buffer_atomic_smax_x2 v[4:5], off, s[8:11], 0 glc
buffer_atomic_smax_x2 v[4:5], off, s[8:11], 0
buffer_atomic_umax_x2 v[4:5], off, s[8:11], 0 glc
buffer_atomic_umax_x2 v[4:5], off, s[8:11], 0
buffer_atomic_and_x2 v[4:5], off, s[8:11], 0 glc
buffer_atomic_and_x2 v[4:5], off, s[8:11], 0
buffer_atomic_or_x2 v[4:5], off, s[8:11], 0 glc
buffer_atomic_or_x2 v[4:5], off, s[8:11], 0
buffer_atomic_xor_x2 v[4:5], off, s[8:11], 0 glc
buffer_atomic_xor_x2 v[4:5], off, s[8:11], 0
buffer_atomic_inc_x2 v[4:5], off, s[8:11], 0 glc
buffer_atomic_inc_x2 v[4:5], off, s[8:11], 0
buffer_atomic_dec_x2 v[4:5], off, s[8:11], 0 glc
buffer_atomic_dec_x2 v[4:5], off, s[8:11], 0
buffer_atomic_add_f64 v[4:5], off, s[8:11], 0 glc
buffer_atomic_add_f64 v[4:5], off, s[8:11], 0
buffer_atomic_min_f64 v[4:5], off, s[8:11], 0 glc
buffer_atomic_min_f64 v[4:5], off, s[8:11], 0
buffer_atomic_max_f64 v[4:5], off, s[8:11], 0 glc
buffer_atomic_max_f64 v[4:5], off, s[8:11], 0
buffer_load_ubyte v10, v0, s[8:11], 0 offen
buffer_load_sbyte v10, v0, s[8:11], 0 offen
buffer_load_ushort v10, v0, s[8:11], 0 offen
buffer_load_sshort v10, v0, s[8:11], 0 offen
buffer_load_dword v10, v0, s[8:11], 0 offen
buffer_load_dwordx2 v[10:11], v0, s[8:11], 0 offen
buffer_load_dwordx3 v[10:12], v0, s[8:11], 0 offen
buffer_load_ubyte_d16 v10, v0, s[8:11], 0 offen
buffer_load_ubyte_d16_hi v10, v0, s[8:11], 0 offen
buffer_load_sbyte_d16 v10, v0, s[8:11], 0 offen
buffer_load_sbyte_d16_hi v10, v0, s[8:11], 0 offen
buffer_load_short_d16 v10, v0, s[8:11], 0 offen
buffer_load_short_d16_hi v10, v0, s[8:11], 0 offen
buffer_store_byte v4, v0, s[8:11], 0 offen
buffer_store_byte_d16_hi v4, v0, s[8:11], 0 offen
buffer_store_short v4, v0, s[8:11], 0 offen
buffer_store_short_d16_hi v4, v0, s[8:11], 0 offen
buffer_store_dword v4, v0, s[8:11], 0 offen
buffer_store_dwordx2 v[4:5], v0, s[8:11], 0 offen
buffer_store_dwordx3 v[4:6], v0, s[8:11], 0 offen
