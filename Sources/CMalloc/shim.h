#include <malloc.h>

/* M_MMAP_THRESHOLD is a macro of glibc's malloc.h: a typed wrapper around mallopt. */
static inline int conform_malloc_mmap_threshold(int bytes) {
  return mallopt(M_MMAP_THRESHOLD, bytes);
}
