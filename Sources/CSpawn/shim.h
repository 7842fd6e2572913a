#include <spawn.h>

/* glibc (2.34 and later) declares this only under _GNU_SOURCE, which Swift's Glibc module is not built with: the
   prototype is repeated here, exactly as spawn.h has it. */
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *, int);

/* Adds the action that closes every descriptor from `from` up in the spawned child. */
static inline int conform_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
  return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
