// VALU float instructions valu_float_test.cc runs on gfx942.
v_add_f32_e32 v0, v1, v2
v_mul_legacy_f32 v0, v1, v2
v_cvt_f16_f32_e32 v0, v1
v_fmamk_f32 v0, v1, 0x3f7fffff, v2
v_fmaak_f32 v0, v1, v2, 0x3f800000
