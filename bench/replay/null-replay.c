/* A replayer that judges nothing, in C on libcurl, used the way `conform replay` uses it: one multi handle on one
   thread, CONNECTIONS transfers at once (connections kept alive, as many kept as run at once, easy handles reused),
   each answer's status and body read whole. bench/replay/run.sh runs it beside wrk and `conform replay` against the
   same server: the rate it reaches is what the HTTP client library allows before the replayer does any work of its
   own (reading the recording, remapping ids, comparing each answer with the recorded one).

   It sends the requests of FILE (written by `conform-bench-replay requests`) in a cycle until TOTAL are answered.

   Usage: null-replay -f FILE -u http://HOST:PORT -n TOTAL [-c CONNECTIONS]   (default 8, replay's --connections)
   Prints "answered N in S s: R/s, K not 2xx". */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../lib/curl-send.h"

struct request {
  char *method;
  char *url;
  struct curl_slist *fields;
  char *body;
  long body_length;
};

struct transfer {
  CURL *easy;
  size_t received;
};

static struct request *requests;
static size_t request_count;

/* `pointer`, or the end of the program when memory ran out. */
static void *must(void *pointer) {
  if (pointer == NULL) {
    fprintf(stderr, "null-replay: out of memory\n");
    exit(2);
  }
  return pointer;
}

static size_t discard(char *data, size_t size, size_t count, void *context) {
  (void)data;
  struct transfer *transfer = context;
  transfer->received += size * count;
  return size * count;
}

/* Reads FILE whole and splits it into requests; exits with a message on anything malformed. */
static void load(const char *path, const char *base) {
  FILE *file = fopen(path, "rb");
  if (file == NULL) {
    perror(path);
    exit(2);
  }
  size_t capacity = 1024;
  requests = must(calloc(capacity, sizeof *requests));
  char line[65536];
  while (fgets(line, sizeof line, file) != NULL) {
    line[strcspn(line, "\n")] = 0;
    char *space = strchr(line, ' ');
    if (space == NULL) {
      fprintf(stderr, "null-replay: %s: request %zu has no target\n", path, request_count + 1);
      exit(2);
    }
    if (request_count == capacity) {
      capacity *= 2;
      requests = must(realloc(requests, capacity * sizeof *requests));
    }
    struct request *request = &requests[request_count++];
    memset(request, 0, sizeof *request);
    *space = 0;
    request->method = must(strdup(line));
    size_t url_length = strlen(base) + strlen(space + 1) + 1;
    request->url = must(malloc(url_length));
    snprintf(request->url, url_length, "%s%s", base, space + 1);
    request->fields = curl_slist_append(NULL, "Expect:");
    while (fgets(line, sizeof line, file) != NULL && line[0] != '\n') {
      line[strcspn(line, "\n")] = 0;
      request->fields = curl_slist_append(request->fields, line);
    }
    if (fgets(line, sizeof line, file) == NULL) {
      fprintf(stderr, "null-replay: %s: request %zu has no body length\n", path, request_count);
      exit(2);
    }
    request->body_length = strtol(line, NULL, 10);
    if (request->body_length < 0 || request->body_length > 16 * 1024 * 1024) {
      fprintf(stderr, "null-replay: %s: request %zu: body length out of range\n", path, request_count);
      exit(2);
    }
    request->body = must(malloc((size_t)request->body_length + 1));
    if (fread(request->body, 1, (size_t)request->body_length + 1, file) != (size_t)request->body_length + 1) {
      fprintf(stderr, "null-replay: %s: request %zu: body cut short\n", path, request_count);
      exit(2);
    }
  }
  fclose(file);
  if (request_count == 0) {
    fprintf(stderr, "null-replay: %s holds no request\n", path);
    exit(2);
  }
}

static void configure(CURL *easy, struct request *request, struct transfer *transfer) {
  curl_easy_reset(easy);
  curl_easy_setopt(easy, CURLOPT_URL, request->url);
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, request->fields);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, transfer);
  curl_easy_setopt(easy, CURLOPT_PRIVATE, transfer);
  bench_curl_request(easy, request->method, request->body, request->body_length);
}

int main(int argc, char **argv) {
  const char *path = NULL, *base = NULL;
  long total = 0, connections = 8;
  int option;
  while ((option = getopt(argc, argv, "f:u:n:c:")) != -1) {
    switch (option) {
    case 'f': path = optarg; break;
    case 'u': base = optarg; break;
    case 'n': total = strtol(optarg, NULL, 10); break;
    case 'c': connections = strtol(optarg, NULL, 10); break;
    default: break;
    }
  }
  if (path == NULL || base == NULL || strncmp(base, "http://", 7) != 0 || total < 1 || total > 100000000 ||
      connections < 1 || connections > 1024) {
    fprintf(stderr, "usage: %s -f FILE -u http://HOST:PORT -n 1..100000000 [-c 1..1024]\n", argv[0]);
    return 64;
  }
  curl_global_init(CURL_GLOBAL_DEFAULT);
  load(path, base);
  CURLM *multi = must(curl_multi_init());
  curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, connections);
  struct transfer *transfers = must(calloc((size_t)connections, sizeof *transfers));
  long started = 0, answered = 0, failed = 0;
  struct timespec from, to;
  clock_gettime(CLOCK_MONOTONIC, &from);
  for (long i = 0; i < connections && started < total; i++) {
    transfers[i].easy = must(curl_easy_init());
    configure(transfers[i].easy, &requests[(size_t)started++ % request_count], &transfers[i]);
    curl_multi_add_handle(multi, transfers[i].easy);
  }
  while (answered < total) {
    int running = 0;
    curl_multi_perform(multi, &running);
    CURLMsg *message;
    int left;
    while ((message = curl_multi_info_read(multi, &left)) != NULL) {
      if (message->msg != CURLMSG_DONE) continue;
      struct transfer *transfer;
      curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, (char **)&transfer);
      long status = 0;
      curl_easy_getinfo(transfer->easy, CURLINFO_RESPONSE_CODE, &status);
      if (message->data.result != CURLE_OK || status < 200 || status > 299) failed++;
      answered++;
      curl_multi_remove_handle(multi, transfer->easy);
      if (started < total) {
        transfer->received = 0;
        configure(transfer->easy, &requests[(size_t)started++ % request_count], transfer);
        curl_multi_add_handle(multi, transfer->easy);
      }
    }
    if (answered < total) curl_multi_poll(multi, NULL, 0, 1000, NULL);
  }
  clock_gettime(CLOCK_MONOTONIC, &to);
  double seconds = (double)(to.tv_sec - from.tv_sec) + (double)(to.tv_nsec - from.tv_nsec) / 1e9;
  printf("answered %ld in %.3f s: %.0f/s, %ld not 2xx\n", answered, seconds, (double)answered / seconds, failed);
  return failed == 0 ? 0 : 1;
}
