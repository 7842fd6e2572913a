#include <sys/epoll.h>

/* struct epoll_event is packed and its data a union: typed wrappers that take and give plain descriptors and event
   masks instead. */
static const unsigned conform_epoll_in = EPOLLIN;
static const unsigned conform_epoll_out = EPOLLOUT;
static const unsigned conform_epoll_err = EPOLLERR;
static const unsigned conform_epoll_hup = EPOLLHUP;

static inline int conform_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

/* EPOLL_CTL_ADD, _MOD or _DEL of `fd` for `events`, with the descriptor as the event's data. */
static inline int conform_epoll_control(int epoll, int operation, int fd, unsigned events) {
  struct epoll_event event;
  event.events = events;
  event.data.fd = fd;
  return epoll_ctl(epoll, operation, fd, &event);
}
static const int conform_epoll_add = EPOLL_CTL_ADD;
static const int conform_epoll_modify = EPOLL_CTL_MOD;
static const int conform_epoll_delete = EPOLL_CTL_DEL;

/* The descriptors ready now (no wait), at most `capacity` (at most 64), with their events. */
static inline int conform_epoll_ready(int epoll, int *fds, unsigned *events, int capacity) {
  struct epoll_event ready[64];
  if (capacity > 64) capacity = 64;
  int count = epoll_wait(epoll, ready, capacity, 0);
  for (int i = 0; i < count; i++) {
    fds[i] = ready[i].data.fd;
    events[i] = ready[i].events;
  }
  return count;
}
