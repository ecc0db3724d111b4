// MFMA instructions mfma_test.cc runs on gfx908 (one per line; encoded by llvm-mc-19 at build time).
v_mfma_f32_32x32x1f32 a[32:63], v0, v2, a[64:95]
v_mfma_f32_16x16x1f32 a[32:47], v0, v2, a[64:79]
v_mfma_f32_4x4x1f32 a[32:35], v0, v2, a[64:67]
v_mfma_f32_32x32x2f32 a[32:47], v0, v2, a[64:79]
v_mfma_f32_16x16x4f32 a[32:35], v0, v2, a[64:67]
v_mfma_f32_32x32x4f16 a[32:63], v[0:1], v[2:3], a[64:95]
v_mfma_f32_16x16x4f16 a[32:47], v[0:1], v[2:3], a[64:79]
v_mfma_f32_4x4x4f16 a[32:35], v[0:1], v[2:3], a[64:67]
v_mfma_f32_32x32x8f16 a[32:47], v[0:1], v[2:3], a[64:79]
v_mfma_f32_16x16x16f16 a[32:35], v[0:1], v[2:3], a[64:67]
v_mfma_i32_32x32x4i8 a[32:63], v0, v2, a[64:95]
v_mfma_i32_16x16x4i8 a[32:47], v0, v2, a[64:79]
v_mfma_i32_4x4x4i8 a[32:35], v0, v2, a[64:67]
v_mfma_i32_32x32x8i8 a[32:47], v0, v2, a[64:79]
v_mfma_i32_16x16x16i8 a[32:35], v0, v2, a[64:67]
v_mfma_f32_32x32x2bf16 a[32:63], v0, v2, a[64:95]
v_mfma_f32_16x16x2bf16 a[32:47], v0, v2, a[64:79]
v_mfma_f32_4x4x2bf16 a[32:35], v0, v2, a[64:67]
v_mfma_f32_32x32x4bf16 a[32:47], v0, v2, a[64:79]
v_mfma_f32_16x16x8bf16 a[32:35], v0, v2, a[64:67]
v_mfma_f32_4x4x1f32 a[32:35], a0, a2, a[64:67]
v_mfma_f32_16x16x1f32 a[32:47], v0, v2, a[64:79] cbsz:2 abid:3
v_mfma_f32_16x16x1f32 a[32:47], v0, v2, a[64:79] cbsz:1 abid:1
v_mfma_f32_16x16x1f32 a[32:47], v0, v2, a[64:79] blgp:1
v_mfma_f32_16x16x1f32 a[32:47], v0, v2, a[64:79] blgp:2
v_mfma_f32_16x16x1f32 a[32:47], v0, v2, a[64:79] blgp:3
v_mfma_f32_16x16x1f32 a[32:47], v0, v2, a[64:79] blgp:4
v_mfma_f32_16x16x1f32 a[32:47], v0, v2, a[64:79] blgp:5
v_mfma_f32_16x16x1f32 a[32:47], v0, v2, a[64:79] blgp:6
v_mfma_f32_16x16x1f32 a[32:47], v0, v2, a[64:79] blgp:7
v_mfma_f32_16x16x1f32 a[32:47], v0, v2, a[64:79] cbsz:1 abid:2
v_mfma_f32_32x32x2f32 a[32:47], v0, v2, a[64:79] cbsz:1
