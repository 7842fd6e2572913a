/* A do-nothing HTTP/1.1 server on libh2o (Debian's libh2o-evloop, h2o 2.2.5 with its own event loop), doing per
   request the same as bench/server-library/mhd-null.c: the raw target and every header field copied, the body
   (which h2o has read whole before calling the handler) copied, and the same JSON answer made from a copied buffer
   with a Content-Type field. Each of THREADS threads runs its own event loop and h2o context on its own listening
   socket (SO_REUSEPORT, one port), as h2o's own server does.

   With -u it is a reverse proxy instead, with h2o's own proxy handler and HTTP client (connections upstream kept
   alive): bench/record/run.sh runs it beside the recorder's libraries used alone (bench/record/null-proxy.c).

   Usage: h2o-null [-t THREADS] [-u http://HOST:PORT]   (default 2 threads, as many as the cores here)
   Prints "listening PORT" on stdout once every thread listens on 127.0.0.1 (a free port), then serves until killed. */
#define H2O_USE_LIBUV 0
#include <arpa/inet.h>
#include <h2o.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char answer[] =
    "{\"pushRegId\":\"0f8fad5b-d9cb-469f-a165-70867728950e\",\"regEnabled\":true,\"isPrimary\":false}";

static h2o_globalconf_t config;

struct loop_thread {
  pthread_t thread;
  int fd;
  h2o_context_t context;
  h2o_accept_ctx_t accept;
};

static int on_request(h2o_handler_t *self, h2o_req_t *req) {
  (void)self;
  static h2o_generator_t generator = {NULL, NULL};
  /* What a Conform handler would be given: its own copies of the target, the fields and the body. */
  h2o_iovec_t target = h2o_strdup(&req->pool, req->path.base, req->path.len);
  (void)target;
  for (size_t i = 0; i != req->headers.size; i++) {
    h2o_header_t *field = req->headers.entries + i;
    (void)h2o_strdup(&req->pool, field->orig_name != NULL ? field->orig_name : field->name->base, field->name->len);
    (void)h2o_strdup(&req->pool, field->value.base, field->value.len);
  }
  if (req->entity.base != NULL) (void)h2o_strdup(&req->pool, req->entity.base, req->entity.len);
  h2o_iovec_t body = h2o_strdup(&req->pool, answer, sizeof answer - 1);
  req->res.status = 200;
  req->res.reason = "OK";
  req->res.content_length = body.len;
  h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CONTENT_TYPE, NULL, H2O_STRLIT("application/json"));
  h2o_start_response(req, &generator);
  h2o_send(req, &body, 1, H2O_SEND_STATE_FINAL);
  return 0;
}

static void on_accept(h2o_socket_t *listener, const char *err) {
  if (err != NULL) return;
  struct loop_thread *self = listener->data;
  h2o_socket_t *sock = h2o_evloop_socket_accept(listener);
  if (sock != NULL) h2o_accept(&self->accept, sock);
}

static void *run_loop(void *arg) {
  struct loop_thread *self = arg;
  h2o_context_init(&self->context, h2o_evloop_create(), &config);
  self->accept.ctx = &self->context;
  self->accept.hosts = config.hosts;
  h2o_socket_t *listener = h2o_evloop_socket_create(self->context.loop, self->fd, H2O_SOCKET_FLAG_DONT_READ);
  listener->data = self;
  h2o_socket_read_start(listener, on_accept);
  while (h2o_evloop_run(self->context.loop, INT32_MAX) == 0) {
  }
  return NULL;
}

/* A listening socket on 127.0.0.1:port (0 picks one) that other threads' sockets may share. */
static int listen_on(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int on = 1;
  struct sockaddr_in address;
  memset(&address, 0, sizeof address);
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(port);
  if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 ||
      setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on) != 0 ||
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) != 0 ||
      bind(fd, (struct sockaddr *)&address, sizeof address) != 0 || listen(fd, SOMAXCONN) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int main(int argc, char **argv) {
  int threads = 2, option;
  const char *upstream = NULL;
  while ((option = getopt(argc, argv, "t:u:")) != -1) {
    if (option == 't') {
      threads = atoi(optarg);
    } else if (option == 'u') {
      upstream = optarg;
    } else {
      fprintf(stderr, "usage: %s [-t THREADS] [-u http://HOST:PORT]\n", argv[0]);
      return 64;
    }
  }
  if (threads < 1 || threads > 64) {
    fprintf(stderr, "h2o-null: threads must be 1 to 64\n");
    return 64;
  }
  signal(SIGPIPE, SIG_IGN);
  h2o_config_init(&config);
  h2o_hostconf_t *host = h2o_config_register_host(&config, h2o_iovec_init(H2O_STRLIT("default")), 65535);
  h2o_pathconf_t *path = h2o_config_register_path(host, "/", 0);
  if (upstream != NULL) {
    static h2o_url_t origin;
    if (h2o_url_parse(upstream, SIZE_MAX, &origin) != 0) {
      fprintf(stderr, "h2o-null: not a URL: %s\n", upstream);
      return 64;
    }
    h2o_proxy_config_vars_t proxy = {.io_timeout = 30000, .keepalive_timeout = 30000};
    h2o_proxy_register_reverse_proxy(path, &origin, &proxy);
  } else {
    h2o_handler_t *handler = h2o_create_handler(path, sizeof *handler);
    handler->on_req = on_request;
  }

  struct loop_thread *loops = calloc((size_t)threads, sizeof *loops);
  if (loops == NULL) return 2;
  uint16_t port = 0;
  for (int i = 0; i < threads; i++) {
    loops[i].fd = listen_on(port);
    if (loops[i].fd < 0) {
      perror("h2o-null: cannot listen on 127.0.0.1");
      return 2;
    }
    if (i == 0) {
      struct sockaddr_in bound;
      socklen_t length = sizeof bound;
      if (getsockname(loops[0].fd, (struct sockaddr *)&bound, &length) != 0) {
        perror("h2o-null: getsockname");
        return 2;
      }
      port = ntohs(bound.sin_port);
    }
  }
  for (int i = 0; i < threads; i++) {
    if (pthread_create(&loops[i].thread, NULL, run_loop, &loops[i]) != 0) {
      perror("h2o-null: pthread_create");
      return 2;
    }
  }
  printf("listening %u\n", (unsigned int)port);
  fflush(stdout);
  for (int i = 0; i < threads; i++) pthread_join(loops[i].thread, NULL);
  return 0;
}
