// gfx908-only VALU float instructions for valu_float_test.cc (VOP2 0x04 is v_mul_legacy_f32 there).
v_mul_legacy_f32_e32 v0, v1, v2
v_mad_f32 v0, v1, v2, v3
v_mad_legacy_f32 v0, v1, v2, v3
v_madmk_f32 v0, v1, 0x41000000, v2
v_madak_f32 v0, v1, v2, 0x41000000
v_mac_f16_e32 v0, v1, v2
v_madmk_f16 v0, v1, 0x4400, v2
v_madak_f16 v5, v1, v2, 0x4400
