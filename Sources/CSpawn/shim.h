#include <signal.h>
#include <spawn.h>

/* glibc (2.34 and later) declares these only under _GNU_SOURCE, which Swift's Glibc module is not built with: the
   prototypes are repeated here, exactly as spawn.h has them. */
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *, int);
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *__restrict, const char *__restrict);

/* Adds the action that closes every descriptor from `from` up in the spawned child. */
static inline int conform_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
  return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

/* Adds the action that makes `path` the spawned child's working directory. */
static inline int conform_spawn_chdir(posix_spawn_file_actions_t *actions, const char *path) {
  return posix_spawn_file_actions_addchdir_np(actions, path);
}

/* Sets up `attributes` (initialized by the caller) for a child in a process group of its own, with no signal blocked
   and the default disposition for the signals a parent commonly ignores or handles itself (SIGPIPE, SIGINT, SIGTERM,
   SIGHUP, SIGCHLD): what the child gets is its own, not the parent's. */
static inline int conform_spawn_own_group_default_signals(posix_spawnattr_t *attributes) {
  sigset_t defaults, empty;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGHUP);
  sigaddset(&defaults, SIGCHLD);
  sigemptyset(&empty);
  int result = posix_spawnattr_setsigdefault(attributes, &defaults);
  if (result == 0) result = posix_spawnattr_setsigmask(attributes, &empty);
  if (result == 0) result = posix_spawnattr_setpgroup(attributes, 0);
  if (result == 0)
    result = posix_spawnattr_setflags(attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  return result;
}
