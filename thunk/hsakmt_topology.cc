// hsaKmt* C entry points for topology; thin shells over thunk::Kfd.
