/* A reverse proxy that records nothing, built in C on the two libraries `conform record` is built on, used the way
   the recorder uses them: libmicrohttpd serving the clients (epoll, a pool of THREADS server threads, the connection
   suspended while its request is upstream and resumed with the answer) and one libcurl multi handle on its own
   thread sending every request upstream (easy handles reused, connections kept alive, as many kept as transfers may
   run at once). bench/record/run.sh runs it beside nginx proxy_pass and `conform record`: the rate it reaches is
   what these libraries allow on the machine before the recorder does any work of its own (building the exchange,
   redacting, writing the line, the live check).

   Per request: the head's fields and the body are copied (as ConformServer copies them); the request goes upstream
   with its method, target, body and every field but Host, Connection, Content-Length and Transfer-Encoding; the
   answer's status, its fields (but the connection's own) and its body come back to the client.

   With -l LOOPS, the way `conform record` uses them since its listener joins libcurl's loops: LOOPS threads, each
   with its own multi handle and its own libmicrohttpd daemon without a thread of its own (epoll, the daemons
   accepting on copies of one listening socket), each thread waiting on its daemon's epoll descriptor beside
   libcurl's sockets: a request is received, sent upstream and answered on one thread.

   Two other ways to use the same libraries, to see whether another structure would raise that ceiling (-b):
   each server thread sends its request itself with a blocking curl_easy_perform on an easy handle of its own (so
   its connection upstream is kept), either in the pool of THREADS server threads or on a thread per connection (-p).

   Usage: null-proxy -u http://127.0.0.1:PORT [-t THREADS] [-n MAX_TRANSFERS] [-l LOOPS | -b [-p]]
     -u  the upstream's origin (http only)
     -t  libmicrohttpd's thread pool (default 4, HTTPServerLimits.threads)
     -n  transfers at once and connections kept (default 64, the recorder's ProxyLimits.maxInFlight), shared out
         among the loops with -l
     -l  LOOPS threads, each serving its own daemon and sending on its own multi handle (1 to 16)
     -b  blocking: the server thread sends the request upstream itself, nothing suspended
     -p  with -b, a thread per connection instead of the pool
   Prints "listening PORT" on stdout once it serves on 127.0.0.1 (a free port), then serves until killed. */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../lib/curl-send.h"

struct buffer {
  char *bytes;
  size_t count;
};

struct field {
  char *name;
  char *value;
};

struct exchange {
  char *target;
  char *method;
  int saw_head;
  struct curl_slist *outgoing;
  struct buffer body;
  /* The answer, filled on the curl thread. */
  long status;
  struct field *fields;
  size_t field_count, field_capacity;
  struct buffer answer;
  int failed;
  int pending;
  atomic_int ready;
  struct MHD_Connection *connection;
  CURL *easy;
  struct exchange *next;
};

/* One multi handle and what waits for it; the curl thread's, or each loop's with -l. */
struct loop {
  CURLM *multi;
  CURL **idle;
  long idle_count;
  long running_transfers;
  long max_transfers;
  struct exchange *waiting_head, *waiting_tail;
};

static const char *upstream;
static long max_transfers = 64;
static pthread_mutex_t inbox_lock = PTHREAD_MUTEX_INITIALIZER;
static struct exchange *inbox_head, *inbox_tail;
static struct loop shared;
/* The loop of the calling thread: `shared` on the curl thread, its own on a loop's thread. */
static __thread struct loop *here;
static int blocking;
static int loop_count;

static int append(struct buffer *buffer, const void *bytes, size_t count) {
  char *grown = realloc(buffer->bytes, buffer->count + count + 1);
  if (grown == NULL) return 0;
  memcpy(grown + buffer->count, bytes, count);
  buffer->bytes = grown;
  buffer->count += count;
  buffer->bytes[buffer->count] = 0;
  return 1;
}

static int hop_by_hop(const char *name, size_t length) {
  static const char *names[] = {"Host", "Connection", "Content-Length", "Transfer-Encoding", "Keep-Alive",
                                "Proxy-Connection", "TE", "Upgrade"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (strlen(names[i]) == length && strncasecmp(names[i], name, length) == 0) return 1;
  return 0;
}

static size_t write_body(char *data, size_t size, size_t count, void *context) {
  struct exchange *exchange = context;
  return append(&exchange->answer, data, size * count) ? size * count : 0;
}

static size_t write_header(char *data, size_t size, size_t count, void *context) {
  struct exchange *exchange = context;
  size_t length = size * count;
  if (length >= 5 && strncmp(data, "HTTP/", 5) == 0) {
    /* A new status line (after a 100 Continue): the fields so far belonged to the interim answer. */
    for (size_t i = 0; i < exchange->field_count; i++) {
      free(exchange->fields[i].name);
      free(exchange->fields[i].value);
    }
    exchange->field_count = 0;
    return length;
  }
  const char *colon = memchr(data, ':', length);
  if (colon == NULL) return length;
  size_t name_length = (size_t)(colon - data);
  if (hop_by_hop(data, name_length)) return length;
  const char *value = colon + 1;
  const char *end = data + length;
  while (value < end && (*value == ' ' || *value == '\t')) value++;
  while (end > value && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ')) end--;
  if (exchange->field_count == exchange->field_capacity) {
    size_t capacity = exchange->field_capacity == 0 ? 8 : 2 * exchange->field_capacity;
    struct field *grown = realloc(exchange->fields, capacity * sizeof *grown);
    if (grown == NULL) return 0;
    exchange->fields = grown;
    exchange->field_capacity = capacity;
  }
  exchange->fields[exchange->field_count].name = strndup(data, name_length);
  exchange->fields[exchange->field_count].value = strndup(value, (size_t)(end - value));
  exchange->field_count++;
  return length;
}

/* Sets `easy` up to send `exchange` upstream. */
static void configure(CURL *easy, struct exchange *exchange) {
  curl_easy_reset(easy);
  exchange->easy = easy;
  size_t url_length = strlen(upstream) + strlen(exchange->target) + 1;
  char *url = malloc(url_length);
  if (url == NULL) {
    fprintf(stderr, "null-proxy: out of memory\n");
    exit(2);
  }
  snprintf(url, url_length, "%s%s", upstream, exchange->target);
  curl_easy_setopt(easy, CURLOPT_URL, url);
  free(url);
  curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, exchange->outgoing);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, write_body);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, exchange);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, write_header);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, exchange);
  curl_easy_setopt(easy, CURLOPT_PRIVATE, exchange);
  bench_curl_request(easy, exchange->method, exchange->body.bytes, (long)exchange->body.count);
}

/* On the curl thread: starts `exchange` on a reused easy handle. */
static void start(struct exchange *exchange) {
  struct loop *loop = here;
  CURL *easy = loop->idle_count > 0 ? loop->idle[--loop->idle_count] : curl_easy_init();
  if (easy == NULL) {
    exchange->failed = 1;
    atomic_store(&exchange->ready, 1);
    MHD_resume_connection(exchange->connection);
    return;
  }
  configure(easy, exchange);
  curl_multi_add_handle(loop->multi, easy);
  loop->running_transfers++;
}

/* Queues `exchange` on the calling thread's loop. */
static void queue(struct exchange *exchange) {
  struct loop *loop = here;
  if (loop->waiting_tail != NULL) loop->waiting_tail->next = exchange; else loop->waiting_head = exchange;
  loop->waiting_tail = exchange;
}

/* Starts what waits while transfers may run, drives the transfers, and resumes the connections of those that
   finished; returns how many finished. */
static int drive(void) {
  struct loop *loop = here;
  while (loop->waiting_head != NULL && loop->running_transfers < loop->max_transfers) {
    struct exchange *exchange = loop->waiting_head;
    loop->waiting_head = exchange->next;
    if (loop->waiting_head == NULL) loop->waiting_tail = NULL;
    start(exchange);
  }
  int running = 0;
  curl_multi_perform(loop->multi, &running);
  CURLMsg *message;
  int left, finished = 0;
  while ((message = curl_multi_info_read(loop->multi, &left)) != NULL) {
    if (message->msg != CURLMSG_DONE) continue;
    CURL *easy = message->easy_handle;
    struct exchange *exchange;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&exchange);
    exchange->failed = message->data.result != CURLE_OK;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &exchange->status);
    curl_multi_remove_handle(loop->multi, easy);
    loop->idle[loop->idle_count++] = easy;
    loop->running_transfers--;
    atomic_store(&exchange->ready, 1);
    MHD_resume_connection(exchange->connection);
    finished++;
  }
  return finished;
}

static void *curl_loop(void *unused) {
  (void)unused;
  here = &shared;
  for (;;) {
    pthread_mutex_lock(&inbox_lock);
    struct exchange *arrived = inbox_head;
    inbox_head = inbox_tail = NULL;
    pthread_mutex_unlock(&inbox_lock);
    while (arrived != NULL) {
      struct exchange *next = arrived->next;
      arrived->next = NULL;
      queue(arrived);
      arrived = next;
    }
    drive();
    curl_multi_poll(shared.multi, NULL, 0, 1000, NULL);
  }
  return NULL;
}

static void *uri_log(void *cls, const char *uri, struct MHD_Connection *connection) {
  (void)cls;
  (void)connection;
  struct exchange *exchange = calloc(1, sizeof *exchange);
  if (exchange != NULL) exchange->target = strdup(uri != NULL ? uri : "/");
  return exchange;
}

static void completed(void *cls, struct MHD_Connection *connection, void **slot, enum MHD_RequestTerminationCode code) {
  (void)cls;
  (void)connection;
  (void)code;
  struct exchange *exchange = *slot;
  if (exchange == NULL) return;
  for (size_t i = 0; i < exchange->field_count; i++) {
    free(exchange->fields[i].name);
    free(exchange->fields[i].value);
  }
  free(exchange->fields);
  curl_slist_free_all(exchange->outgoing);
  free(exchange->body.bytes);
  free(exchange->answer.bytes);
  free(exchange->target);
  free(exchange->method);
  free(exchange);
  *slot = NULL;
}

static void logger(void *cls, const char *format, va_list args) {
  (void)cls;
  (void)format;
  (void)args;
}

static enum MHD_Result collect_field(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
                                     const char *value, size_t value_size) {
  (void)kind;
  struct exchange *exchange = cls;
  if (hop_by_hop(key, key_size)) return MHD_YES;
  size_t length = key_size + value_size + 3;
  char *line = malloc(length);
  if (line == NULL) return MHD_NO;
  snprintf(line, length, "%.*s: %.*s", (int)key_size, key, (int)value_size, value != NULL ? value : "");
  struct curl_slist *grown = curl_slist_append(exchange->outgoing, line);
  free(line);
  if (grown == NULL) return MHD_NO;
  exchange->outgoing = grown;
  return MHD_YES;
}

static enum MHD_Result answer(struct MHD_Connection *connection, struct exchange *exchange) {
  static const char failure[] = "{\"error\":\"upstream gave no response\"}";
  struct MHD_Response *response =
      exchange->failed
          ? MHD_create_response_from_buffer(sizeof failure - 1, (void *)failure, MHD_RESPMEM_PERSISTENT)
          : MHD_create_response_from_buffer(exchange->answer.count, exchange->answer.bytes, MHD_RESPMEM_MUST_COPY);
  if (response == NULL) return MHD_NO;
  if (!exchange->failed)
    for (size_t i = 0; i < exchange->field_count; i++)
      MHD_add_response_header(response, exchange->fields[i].name, exchange->fields[i].value);
  enum MHD_Result queued =
      MHD_queue_response(connection, exchange->failed ? 502 : (unsigned int)exchange->status, response);
  MHD_destroy_response(response);
  return queued;
}

static enum MHD_Result access_handler(void *cls, struct MHD_Connection *connection, const char *url,
                                      const char *method, const char *version, const char *upload_data,
                                      size_t *upload_data_size, void **slot) {
  (void)cls;
  (void)url;
  (void)version;
  struct exchange *exchange = *slot;
  if (exchange == NULL) return MHD_NO;
  if (!exchange->saw_head) {
    exchange->saw_head = 1;
    exchange->method = strdup(method);
    /* libcurl adds "Expect: 100-continue" to large bodies unless told not to. */
    exchange->outgoing = curl_slist_append(NULL, "Expect:");
    MHD_get_connection_values_n(connection, MHD_HEADER_KIND, collect_field, exchange);
    return MHD_YES;
  }
  if (*upload_data_size > 0) {
    if (!append(&exchange->body, upload_data, *upload_data_size)) return MHD_NO;
    *upload_data_size = 0;
    return MHD_YES;
  }
  if (exchange->pending) {
    if (!atomic_load(&exchange->ready)) return MHD_YES;
    return answer(connection, exchange);
  }
  if (blocking) {
    /* The server thread's own easy handle keeps its connection upstream from one request to the next. */
    static __thread CURL *own;
    if (own == NULL) own = curl_easy_init();
    if (own == NULL) {
      exchange->failed = 1;
      return answer(connection, exchange);
    }
    configure(own, exchange);
    exchange->failed = curl_easy_perform(own) != CURLE_OK;
    curl_easy_getinfo(own, CURLINFO_RESPONSE_CODE, &exchange->status);
    return answer(connection, exchange);
  }
  exchange->pending = 1;
  exchange->connection = connection;
  MHD_suspend_connection(connection);
  exchange->next = NULL;
  if (loop_count > 0) {
    /* On the loop's own thread: queued for its next turn, no hand-over. */
    queue(exchange);
    return MHD_YES;
  }
  pthread_mutex_lock(&inbox_lock);
  if (inbox_tail != NULL) inbox_tail->next = exchange; else inbox_head = exchange;
  inbox_tail = exchange;
  pthread_mutex_unlock(&inbox_lock);
  curl_multi_wakeup(shared.multi);
  return MHD_YES;
}

static int make_loop(struct loop *loop, long transfers) {
  loop->multi = curl_multi_init();
  loop->idle = calloc((size_t)transfers, sizeof *loop->idle);
  loop->max_transfers = transfers;
  if (loop->multi == NULL || loop->idle == NULL) return 0;
  curl_multi_setopt(loop->multi, CURLMOPT_MAXCONNECTS, transfers);
  return 1;
}

/* The options every daemon gets, but where it listens and its threads. */
#define SERVER_OPTIONS \
  MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_URI_LOG_CALLBACK, uri_log, NULL, \
      MHD_OPTION_EXTERNAL_LOGGER, logger, NULL, MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit, \
      MHD_OPTION_CONNECTION_TIMEOUT, 30u
static const size_t memory_limit = 16 * 1024 + 16 * 1024 / 4 + 100 * 64 + 32 * 1024 + 4 * 1024;

struct joined {
  struct loop loop;
  struct MHD_Daemon *daemon;
  pthread_t thread;
};

/* A loop's thread with -l: waits on its daemon's epoll descriptor and libcurl's sockets, runs both. */
static void *joined_loop(void *context) {
  struct joined *joined = context;
  here = &joined->loop;
  int epoll_fd = MHD_get_daemon_info(joined->daemon, MHD_DAEMON_INFO_EPOLL_FD)->epoll_fd;
  for (;;) {
    MHD_run(joined->daemon);
    /* A connection resumed here is sent by the daemon's next run, at once. */
    if (drive() > 0) continue;
    struct curl_waitfd wait = {epoll_fd, CURL_WAIT_POLLIN, 0};
    MHD_UNSIGNED_LONG_LONG daemon_timeout;
    int timeout = 1000;
    if (MHD_get_timeout(joined->daemon, &daemon_timeout) == MHD_YES && daemon_timeout < 1000u)
      timeout = (int)daemon_timeout;
    curl_multi_poll(joined->loop.multi, &wait, 1, timeout, NULL);
  }
  return NULL;
}

/* -l: LOOPS daemons without threads of their own on copies of one listening socket, a thread each. */
static int serve_joined(const struct sockaddr_in *address) {
  static struct joined loops[16];
  long transfers = max_transfers / loop_count > 0 ? max_transfers / loop_count : 1;
  int listening = -1;
  for (int index = 0; index < loop_count; index++) {
    if (!make_loop(&loops[index].loop, transfers)) return 0;
    unsigned int flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
    loops[index].daemon =
        index == 0 ? MHD_start_daemon(flags, 0, NULL, NULL, access_handler, NULL, MHD_OPTION_SOCK_ADDR, address,
                                      SERVER_OPTIONS, MHD_OPTION_CONNECTION_LIMIT, 1024u / (unsigned)loop_count,
                                      MHD_OPTION_END)
                   : MHD_start_daemon(flags, 0, NULL, NULL, access_handler, NULL, MHD_OPTION_LISTEN_SOCKET,
                                      dup(listening), SERVER_OPTIONS, MHD_OPTION_CONNECTION_LIMIT,
                                      1024u / (unsigned)loop_count, MHD_OPTION_END);
    if (loops[index].daemon == NULL) return 0;
    if (index == 0) listening = MHD_get_daemon_info(loops[0].daemon, MHD_DAEMON_INFO_LISTEN_FD)->listen_fd;
  }
  for (int index = 0; index < loop_count; index++)
    if (pthread_create(&loops[index].thread, NULL, joined_loop, &loops[index]) != 0) return 0;
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(loops[0].daemon, MHD_DAEMON_INFO_BIND_PORT);
  printf("listening %u\n", (unsigned int)info->port);
  fflush(stdout);
  return 1;
}

int main(int argc, char **argv) {
  unsigned int threads = 4;
  int per_connection = 0;
  int option;
  while ((option = getopt(argc, argv, "u:t:n:l:bp")) != -1) {
    switch (option) {
    case 'u': upstream = optarg; break;
    case 'l': loop_count = (int)strtol(optarg, NULL, 10); break;
    case 'b': blocking = 1; break;
    case 'p': per_connection = 1; break;
    case 't': threads = (unsigned int)strtoul(optarg, NULL, 10); break;
    case 'n': max_transfers = strtol(optarg, NULL, 10); break;
    default:
      fprintf(stderr, "usage: %s -u UPSTREAM [-t THREADS] [-n MAX_TRANSFERS] [-l LOOPS | -b [-p]]\n", argv[0]);
      return 64;
    }
  }
  if (upstream == NULL || strncmp(upstream, "http://", 7) != 0 || threads < 1 || threads > 64 || max_transfers < 1 ||
      max_transfers > 4096 || (per_connection && !blocking) || loop_count < 0 || loop_count > 16 ||
      (loop_count > 0 && blocking)) {
    fprintf(stderr, "usage: %s -u http://HOST:PORT [-t 1..64] [-n 1..4096] [-l 1..16 | -b [-p]]\n", argv[0]);
    return 64;
  }
  signal(SIGPIPE, SIG_IGN);
  curl_global_init(CURL_GLOBAL_DEFAULT);
  struct sockaddr_in address;
  memset(&address, 0, sizeof address);
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (loop_count > 0) {
    if (!serve_joined(&address)) {
      fprintf(stderr, "null-proxy: cannot start %d loops\n", loop_count);
      return 2;
    }
    for (;;) pause();
  }
  if (!make_loop(&shared, max_transfers)) {
    fprintf(stderr, "null-proxy: out of memory\n");
    return 2;
  }
  pthread_t thread;
  if (!blocking && pthread_create(&thread, NULL, curl_loop, NULL) != 0) {
    perror("null-proxy: pthread_create");
    return 2;
  }
  unsigned int flags = per_connection ? MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL
                      : MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | (blocking ? 0 : MHD_ALLOW_SUSPEND_RESUME);
  struct MHD_Daemon *daemon = MHD_start_daemon(
      flags, 0, NULL, NULL, access_handler, NULL,
      MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&address, SERVER_OPTIONS,
      MHD_OPTION_THREAD_POOL_SIZE, per_connection ? 0u : threads,
      MHD_OPTION_CONNECTION_LIMIT, 1024u,
      MHD_OPTION_END);
  if (daemon == NULL) {
    fprintf(stderr, "null-proxy: MHD_start_daemon failed\n");
    return 2;
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  if (info == NULL || info->port == 0) {
    fprintf(stderr, "null-proxy: no bound port\n");
    return 2;
  }
  printf("listening %u\n", (unsigned int)info->port);
  fflush(stdout);
  for (;;) pause();
}
