// DS instructions only gfx942 has (the packed f16/bf16 adds), for ds_test.cc.
ds_pk_add_rtn_f16 v1, v0, v4
ds_pk_add_f16 v0, v4
ds_pk_add_rtn_bf16 v1, v0, v4
ds_pk_add_bf16 v0, v4
