// DS instructions for ds_test.cc (one per line; encoded by llvm-mc-19 at build time).
ds_write_b32 v0, v4 offset:65532
ds_read_b32 v10, v0 offset:65532
ds_write2_b32 v0, v4, v5 offset0:1 offset1:255
ds_read2_b32 v[10:11], v0 offset0:1 offset1:255
ds_write2st64_b32 v0, v4, v5 offset0:1 offset1:3
ds_read2st64_b32 v[10:11], v0 offset0:1 offset1:3
ds_write2_b64 v0, v[4:5], v[6:7] offset0:1 offset1:2
ds_read2_b64 v[10:13], v0 offset0:1 offset1:2
ds_write2st64_b64 v0, v[4:5], v[6:7] offset0:1 offset1:2
ds_read2st64_b64 v[10:13], v0 offset0:1 offset1:2
ds_read2_b32 v[0:1], v0 offset1:1
ds_add_rtn_f32 v1, v0, v4
ds_add_rtn_u32 v1, v0, v4
ds_wrxchg2_rtn_b32 v[10:11], v0, v4, v5 offset0:1 offset1:128
ds_wrxchg2st64_rtn_b64 v[10:13], v0, v[4:5], v[6:7] offset0:1 offset1:2
ds_wrxchg2st64_rtn_b32 v[10:11], v0, v4, v5 offset0:0 offset1:1
ds_wrxchg2_rtn_b64 v[10:13], v0, v[4:5], v[6:7] offset0:1 offset1:3
ds_read_b32 v10, v0
ds_write_b32 v0, v4
ds_read_b64 v[12:13], v0
ds_swizzle_b32 v1, v2 offset:swizzle(QUAD_PERM,1,2,3,0)
ds_swizzle_b32 v1, v2 offset:swizzle(SWAP,16)
ds_swizzle_b32 v1, v2 offset:swizzle(REVERSE,8)
ds_swizzle_b32 v1, v2 offset:swizzle(BROADCAST,8,3)
ds_swizzle_b32 v1, v2 offset:2310
ds_bpermute_b32 v1, v0, v2 offset:4
ds_permute_b32 v3, v0, v2 offset:4
ds_permute_b32 v3, v0, v2
ds_append v1 offset:8
ds_consume v2 offset:8
ds_nop
ds_wrxchg_rtn_b32 v1, v0, v4
ds_cmpst_rtn_b32 v1, v0, v5, v4
ds_cmpst_b32 v0, v5, v4
ds_add_u32 v0, v4
ds_sub_rtn_u32 v1, v0, v4
ds_sub_u32 v0, v4
ds_rsub_rtn_u32 v1, v0, v4
ds_rsub_u32 v0, v4
ds_min_rtn_i32 v1, v0, v4
ds_min_i32 v0, v4
ds_min_rtn_u32 v1, v0, v4
ds_min_u32 v0, v4
ds_max_rtn_i32 v1, v0, v4
ds_max_i32 v0, v4
ds_max_rtn_u32 v1, v0, v4
ds_max_u32 v0, v4
ds_and_rtn_b32 v1, v0, v4
ds_and_b32 v0, v4
ds_or_rtn_b32 v1, v0, v4
ds_or_b32 v0, v4
ds_xor_rtn_b32 v1, v0, v4
ds_xor_b32 v0, v4
ds_inc_rtn_u32 v1, v0, v4
ds_inc_u32 v0, v4
ds_dec_rtn_u32 v1, v0, v4
ds_dec_u32 v0, v4
ds_mskor_rtn_b32 v1, v0, v5, v4
ds_mskor_b32 v0, v5, v4
ds_wrap_rtn_b32 v1, v0, v5, v4
ds_add_f32 v0, v4
ds_min_rtn_f32 v1, v0, v4
ds_min_f32 v0, v4
ds_max_rtn_f32 v1, v0, v4
ds_max_f32 v0, v4
ds_cmpst_rtn_f32 v1, v0, v5, v4
ds_cmpst_f32 v0, v5, v4
ds_wrxchg_rtn_b64 v[0:1], v8, v[4:5]
ds_cmpst_rtn_b64 v[0:1], v8, v[6:7], v[4:5]
ds_cmpst_b64 v8, v[6:7], v[4:5]
ds_add_rtn_u64 v[0:1], v8, v[4:5]
ds_add_u64 v8, v[4:5]
ds_sub_rtn_u64 v[0:1], v8, v[4:5]
ds_sub_u64 v8, v[4:5]
ds_rsub_rtn_u64 v[0:1], v8, v[4:5]
ds_rsub_u64 v8, v[4:5]
ds_min_rtn_i64 v[0:1], v8, v[4:5]
ds_min_i64 v8, v[4:5]
ds_min_rtn_u64 v[0:1], v8, v[4:5]
ds_min_u64 v8, v[4:5]
ds_max_rtn_i64 v[0:1], v8, v[4:5]
ds_max_i64 v8, v[4:5]
ds_max_rtn_u64 v[0:1], v8, v[4:5]
ds_max_u64 v8, v[4:5]
ds_and_rtn_b64 v[0:1], v8, v[4:5]
ds_and_b64 v8, v[4:5]
ds_or_rtn_b64 v[0:1], v8, v[4:5]
ds_or_b64 v8, v[4:5]
ds_xor_rtn_b64 v[0:1], v8, v[4:5]
ds_xor_b64 v8, v[4:5]
ds_inc_rtn_u64 v[0:1], v8, v[4:5]
ds_inc_u64 v8, v[4:5]
ds_dec_rtn_u64 v[0:1], v8, v[4:5]
ds_dec_u64 v8, v[4:5]
ds_mskor_rtn_b64 v[0:1], v8, v[6:7], v[4:5]
ds_mskor_b64 v8, v[6:7], v[4:5]
ds_add_rtn_f64 v[0:1], v8, v[4:5]
ds_add_f64 v8, v[4:5]
ds_min_rtn_f64 v[0:1], v8, v[4:5]
ds_min_f64 v8, v[4:5]
ds_max_rtn_f64 v[0:1], v8, v[4:5]
ds_max_f64 v8, v[4:5]
ds_cmpst_rtn_f64 v[0:1], v8, v[6:7], v[4:5]
ds_cmpst_f64 v8, v[6:7], v[4:5]
ds_read_u8 v10, v0
ds_read_i8 v10, v0
ds_read_u16 v10, v0
ds_read_i16 v10, v0
ds_read_b64 v[10:11], v0
ds_read_b96 v[10:12], v0
ds_read_b128 v[10:13], v0
ds_read_u8_d16 v10, v0
ds_read_u8_d16_hi v10, v0
ds_read_i8_d16 v10, v0
ds_read_i8_d16_hi v10, v0
ds_read_u16_d16 v10, v0
ds_read_u16_d16_hi v10, v0
ds_write_b8 v0, v4
ds_write_b8_d16_hi v0, v4
ds_write_b16 v0, v4
ds_write_b16_d16_hi v0, v4
ds_write_b64 v0, v[4:5]
ds_write_b96 v0, v[4:6]
ds_write_b128 v0, v[4:7]
ds_write_b16 v0, v4 offset:510
ds_read_u16 v10, v0 offset:510
