#include <malloc.h>

/* M_ARENA_MAX is a macro of glibc's malloc.h; mallopt is declared there too. */
static inline int conform_malloc_arena_max(int arenas) {
  return mallopt(M_ARENA_MAX, arenas);
}
