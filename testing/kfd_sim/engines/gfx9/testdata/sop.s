// Scalar ALU and control instructions for sop_test.cc (one per line; encoded by llvm-mc-19 at build time).
s_add_u32 s1, s2, s3
s_addc_u32 s4, s5, s6
s_mov_b64 s[2:3], exec
s_and_saveexec_b64 s[2:3], vcc
s_cmp_eq_u32 s1, s2
s_cbranch_scc1 1
s_mov_b32 s7, 1
s_mov_b32 s8, 2
