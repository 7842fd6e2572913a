/* What bench/record/null-proxy.c and bench/replay/null-replay.c both set on an easy handle before a request, as
   Conform's CurlExchange sets it: no signals, no Nagle, the target sent as it is, and the method with its body (GET
   as GET; any other method with its body, named unless it is POST). Included by relative path, so `cc FILE.c` needs
   no -I. */
#ifndef CONFORM_BENCH_CURL_SEND_H
#define CONFORM_BENCH_CURL_SEND_H
#include <curl/curl.h>
#include <string.h>

static inline void bench_curl_request(CURL *easy, const char *method, const char *body, long length) {
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(easy, CURLOPT_PATH_AS_IS, 1L);
  if (strcmp(method, "GET") == 0) {
    curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)length);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, body != NULL ? body : "");
    if (strcmp(method, "POST") != 0) curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, method);
  }
}
#endif
