/* A do-nothing HTTP server on libmicrohttpd, started with the flags and options ConformServer's HTTPServer uses
   (Sources/ConformServer/HTTPServer.swift, Sources/CMicroHTTPD/shim.h), so bench/server-library/run.sh measures
   the library's ceiling without Conform's own work.

   Per request it does what ConformServer's callbacks do with the library: the URI-log callback allocates the
   request's state and copies the raw target, the access handler walks the header fields once the head is in
   (MHD_get_connection_values_n, each name and value copied), collects the body, and answers on its last call with
   a response made from a copied buffer and a Content-Type field; the completed callback frees the state; the
   connection-notify callback counts connections. What it leaves out is Conform's own work: the head rules, the
   ConnectionWatch bookkeeping, building the HTTPRequest and the handler.

   Usage: mhd-null [-t THREADS] [-m MEMORY_LIMIT] [-d] [-T] [-c CONNECTION_LIMIT]
     -t  MHD_OPTION_THREAD_POOL_SIZE (default 2, what bench/serve/run.sh gives `conform serve --threads`)
     -m  MHD_OPTION_CONNECTION_MEMORY_LIMIT (default 63744, HTTPServerLimits.connectionMemoryBytes for the default
         limits: a 16 KB head and a quarter more, 100 fields x 64, a 32 KB response head, 4 KB; 147456 before, twice a
         64 KB head limit + 16 KB)
     -d  deferred answers: MHD_ALLOW_SUSPEND_RESUME, the connection suspended and resumed by a worker thread
         (what ConformServer does for a DeferredHTTPHandler, the recorder's AsyncHandlerAdapter)
     -T  adds MHD_USE_TURBO
     -c  MHD_OPTION_CONNECTION_LIMIT (default 1024)
   Prints "listening PORT" on stdout once the daemon runs on 127.0.0.1 (a free port), then serves until killed. */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char answer[] =
    "{\"pushRegId\":\"0f8fad5b-d9cb-469f-a165-70867728950e\",\"regEnabled\":true,\"isPrimary\":false}";

struct field {
  char *name;
  char *value;
};

struct request {
  char *uri;
  int saw_head;
  struct field *fields;
  size_t field_count, field_capacity;
  char *body;
  size_t body_count;
  /* Deferred answers: set once the request is handed to a worker; `ready` once the worker has answered. */
  int pending;
  atomic_int ready;
  struct MHD_Connection *connection;
  struct request *next;
};

static atomic_long open_connections;

/* The workers of deferred answers: a queue and a condition variable, as Dispatch's concurrent queue hands
   ConformServer's deferred handler its jobs. */
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_ready = PTHREAD_COND_INITIALIZER;
static struct request *queue_head, *queue_tail;

static void *worker(void *unused) {
  (void)unused;
  for (;;) {
    pthread_mutex_lock(&queue_lock);
    while (queue_head == NULL) pthread_cond_wait(&queue_ready, &queue_lock);
    struct request *request = queue_head;
    queue_head = request->next;
    if (queue_head == NULL) queue_tail = NULL;
    pthread_mutex_unlock(&queue_lock);
    atomic_store(&request->ready, 1);
    MHD_resume_connection(request->connection);
  }
  return NULL;
}

static void defer(struct request *request) {
  request->next = NULL;
  pthread_mutex_lock(&queue_lock);
  if (queue_tail != NULL) queue_tail->next = request; else queue_head = request;
  queue_tail = request;
  pthread_cond_signal(&queue_ready);
  pthread_mutex_unlock(&queue_lock);
}

static void *uri_log(void *cls, const char *uri, struct MHD_Connection *connection) {
  (void)cls;
  (void)connection;
  struct request *request = calloc(1, sizeof *request);
  if (request != NULL) request->uri = strdup(uri != NULL ? uri : "/");
  return request;
}

static void completed(void *cls, struct MHD_Connection *connection, void **slot, enum MHD_RequestTerminationCode code) {
  (void)cls;
  (void)connection;
  (void)code;
  struct request *request = *slot;
  if (request == NULL) return;
  for (size_t i = 0; i < request->field_count; i++) {
    free(request->fields[i].name);
    free(request->fields[i].value);
  }
  free(request->fields);
  free(request->body);
  free(request->uri);
  free(request);
  *slot = NULL;
}

static void notify_connection(void *cls, struct MHD_Connection *connection, void **socket_context,
                              enum MHD_ConnectionNotificationCode code) {
  (void)cls;
  (void)connection;
  (void)socket_context;
  if (code == MHD_CONNECTION_NOTIFY_STARTED) atomic_fetch_add(&open_connections, 1);
  else atomic_fetch_sub(&open_connections, 1);
}

static void logger(void *cls, const char *format, va_list args) {
  (void)cls;
  (void)format;
  (void)args;
}

static enum MHD_Result collect_field(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
                                     const char *value, size_t value_size) {
  (void)kind;
  struct request *request = cls;
  if (request->field_count == request->field_capacity) {
    size_t capacity = request->field_capacity == 0 ? 8 : 2 * request->field_capacity;
    struct field *grown = realloc(request->fields, capacity * sizeof *grown);
    if (grown == NULL) return MHD_NO;
    request->fields = grown;
    request->field_capacity = capacity;
  }
  request->fields[request->field_count].name = strndup(key, key_size);
  request->fields[request->field_count].value = strndup(value != NULL ? value : "", value_size);
  request->field_count++;
  return MHD_YES;
}

static enum MHD_Result queue_answer(struct MHD_Connection *connection) {
  struct MHD_Response *response =
      MHD_create_response_from_buffer(sizeof answer - 1, (void *)answer, MHD_RESPMEM_MUST_COPY);
  if (response == NULL) return MHD_NO;
  MHD_add_response_header(response, "Content-Type", "application/json");
  enum MHD_Result queued = MHD_queue_response(connection, 200, response);
  MHD_destroy_response(response);
  return queued;
}

static int deferred_answers;

static enum MHD_Result access_handler(void *cls, struct MHD_Connection *connection, const char *url,
                                      const char *method, const char *version, const char *upload_data,
                                      size_t *upload_data_size, void **slot) {
  (void)cls;
  (void)url;
  (void)method;
  (void)version;
  struct request *request = *slot;
  if (request == NULL) return MHD_NO;
  if (!request->saw_head) {
    request->saw_head = 1;
    MHD_get_connection_values_n(connection, MHD_HEADER_KIND, collect_field, request);
    return MHD_YES;
  }
  if (*upload_data_size > 0) {
    char *grown = realloc(request->body, request->body_count + *upload_data_size);
    if (grown == NULL) return MHD_NO;
    memcpy(grown + request->body_count, upload_data, *upload_data_size);
    request->body = grown;
    request->body_count += *upload_data_size;
    *upload_data_size = 0;
    return MHD_YES;
  }
  if (request->pending) {
    if (!atomic_load(&request->ready)) return MHD_YES;
    return queue_answer(connection);
  }
  if (deferred_answers) {
    request->pending = 1;
    request->connection = connection;
    MHD_suspend_connection(connection);
    defer(request);
    return MHD_YES;
  }
  return queue_answer(connection);
}

int main(int argc, char **argv) {
  unsigned int threads = 2, connection_limit = 1024;
  size_t memory_limit = 16 * 1024 + 16 * 1024 / 4 + 100 * 64 + 32 * 1024 + 4 * 1024;
  unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL;
  int option;
  while ((option = getopt(argc, argv, "t:m:c:dT")) != -1) {
    switch (option) {
    case 't': threads = (unsigned int)strtoul(optarg, NULL, 10); break;
    case 'm': memory_limit = (size_t)strtoul(optarg, NULL, 10); break;
    case 'c': connection_limit = (unsigned int)strtoul(optarg, NULL, 10); break;
    case 'd': deferred_answers = 1; flags |= MHD_ALLOW_SUSPEND_RESUME; break;
    case 'T': flags |= MHD_USE_TURBO; break;
    default:
      fprintf(stderr, "usage: %s [-t THREADS] [-m MEMORY_LIMIT] [-c CONNECTION_LIMIT] [-d] [-T]\n", argv[0]);
      return 64;
    }
  }
  signal(SIGPIPE, SIG_IGN);
  if (deferred_answers) {
    /* Two workers, as many as the cores Dispatch would use here. */
    for (int i = 0; i < 2; i++) {
      pthread_t thread;
      if (pthread_create(&thread, NULL, worker, NULL) != 0) {
        perror("mhd-null: pthread_create");
        return 2;
      }
    }
  }
  struct sockaddr_in address;
  memset(&address, 0, sizeof address);
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  struct MHD_Daemon *daemon = MHD_start_daemon(
      flags, 0, NULL, NULL, access_handler, NULL,
      MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&address,
      MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
      MHD_OPTION_URI_LOG_CALLBACK, uri_log, NULL,
      MHD_OPTION_EXTERNAL_LOGGER, logger, NULL,
      MHD_OPTION_NOTIFY_CONNECTION, notify_connection, NULL,
      MHD_OPTION_THREAD_POOL_SIZE, threads,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
      MHD_OPTION_CONNECTION_TIMEOUT, 30u,
      MHD_OPTION_CONNECTION_LIMIT, connection_limit,
      MHD_OPTION_END);
  if (daemon == NULL) {
    fprintf(stderr, "mhd-null: MHD_start_daemon failed (threads %u, memory limit %zu)\n", threads, memory_limit);
    return 2;
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  if (info == NULL || info->port == 0) {
    fprintf(stderr, "mhd-null: no bound port\n");
    return 2;
  }
  printf("listening %u\n", (unsigned int)info->port);
  fflush(stdout);
  for (;;) pause();
}
