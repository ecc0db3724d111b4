// valu_int_test.cc's instructions that gfx908 lacks: gfx942's v_mov_b64 and v_lshl_add_u64, and the AGPR moves
// (v_accvgpr_mov_b32 is gfx90a+; the VOP3P reads and writes are here for the decoder's register checks).
v_mov_b64_e32 v[4:5], v[6:7]
v_mov_b64_e32 v[4:5], -1
v_lshl_add_u64 v[4:5], v[6:7], v2, v[10:11]
v_accvgpr_mov_b32 a1, a2
v_accvgpr_mov_b32 a12, a13
v_accvgpr_mov_b32 a12, a17
v_accvgpr_read_b32 v1, a13
v_accvgpr_write_b32 a13, v1
v_mov_b32_dpp v0, v1 row_newbcast:5 row_mask:0xf bank_mask:0xf
v_mov_b64_dpp v[4:5], v[6:7] row_newbcast:1 row_mask:0xf bank_mask:0xf
