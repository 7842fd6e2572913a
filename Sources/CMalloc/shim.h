#include <malloc.h>

/* M_ARENA_MAX and M_MMAP_THRESHOLD are macros of glibc's malloc.h: typed wrappers around mallopt. */
static inline int conform_malloc_arena_max(int arenas) {
  return mallopt(M_ARENA_MAX, arenas);
}

static inline int conform_malloc_mmap_threshold(int bytes) {
  return mallopt(M_MMAP_THRESHOLD, bytes);
}
