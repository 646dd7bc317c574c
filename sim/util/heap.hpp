// glibc's allocator, told to keep freed memory for reuse.
#pragma once
#include <malloc.h>

namespace p2psim {

/// Makes glibc keep freed memory in the heap for the rest of the process. By default it maps every block over
/// 128 KiB afresh and unmaps it when freed, and each new mapping costs a page fault per page touched. Two
/// callers paid for that: a replay (a convolution's 42 MB workspace: a 4-peer MNIST replay ran 2.9x slower,
/// 24.7 s -> 8.4 s measured, same output) and a simulation (each SimGrid actor's stack, then 256 KiB, mapped and
/// unmapped per actor: a tenth of the paper grid took 1.23x more CPU). Call once, before the work starts.
inline void keep_freed_memory_in_heap() {
  ::mallopt(M_MMAP_MAX, 0);
  ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

}  // namespace p2psim
