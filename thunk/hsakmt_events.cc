// hsaKmt* C entry points for events; thin shells over thunk::Kfd.
