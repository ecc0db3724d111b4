// Raw shader with an instruction the engine does not implement this round (an MFMA): the illegal-instruction
// path of a PM4 dispatch. v0..v3 are the accumulator, so the result is never looked at.
  v_mfma_f32_4x4x1f32 a[0:3], v0, v1, a[0:3]
  s_endpgm
