#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

/* MHD_start_daemon and MHD_get_daemon_info are variadic: typed wrappers for Swift. */

typedef void *(*conform_mhd_uri_log_cb)(void *cls, const char *uri, struct MHD_Connection *connection);

/* The protocol versions of every TLS listener: TLS 1.2 and 1.3 only (RFC 8996 deprecates TLS 1.0 and 1.1), with
   GnuTLS's usual ciphers, groups and signatures for them. */
#define CONFORM_TLS_PRIORITIES "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

/* Starts a daemon bound to `address` with the options Conform uses; `logger` receives MHD's messages when MHD_USE_ERROR_LOG is set;
   with a key and a certificate (PEM) it speaks HTTPS; with `certificate_callback` (a forwarding daemon's: GnuTLS's
   gnutls_certificate_retrieve_function2, CGnuTLS's conform_tls_retrieve_callback()) it speaks TLS on every connection
   added, with the leaf the callback finds for it. Both speak TLS 1.2 and 1.3 only. */
static inline struct MHD_Daemon *conform_mhd_start(
    unsigned int flags, const struct sockaddr *address,
    MHD_AccessHandlerCallback handler, void *handler_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls,
    conform_mhd_uri_log_cb uri_log, void *uri_log_cls,
    MHD_LogCallback logger, void *logger_cls,
    MHD_NotifyConnectionCallback notify_connection, void *notify_connection_cls,
    unsigned int thread_pool_size, size_t connection_memory_limit,
    unsigned int connection_timeout_seconds, unsigned int connection_limit,
    const char *tls_key_pem, const char *tls_cert_pem, void *certificate_callback, int listen_socket) {
  /* HTTPS when both are given: GnuTLS with the PEM key and certificate chain; libmicrohttpd offers ALPN http/1.1.
     The option array is empty (its END entry alone) for plain HTTP. */
  struct MHD_OptionItem tls[] = {
      {MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)tls_key_pem},
      {MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)tls_cert_pem},
      {MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)CONFORM_TLS_PRIORITIES},
      {MHD_OPTION_END, 0, NULL},
  };
  struct MHD_OptionItem intercepted[] = {
      {MHD_OPTION_HTTPS_CERT_CALLBACK, 0, certificate_callback},
      {MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)CONFORM_TLS_PRIORITIES},
      {MHD_OPTION_END, 0, NULL},
  };
  /* Where to listen: a socket bound to `address` here, or, when `listen_socket` is not -1, that socket, already
     bound and listening (libmicrohttpd owns it from here and closes it when it stops). */
  struct MHD_OptionItem where[] = {
      {MHD_OPTION_SOCK_ADDR, 0, (void *)address},
      {MHD_OPTION_END, 0, NULL},
  };
  if (listen_socket != -1) {
    where[0].option = MHD_OPTION_LISTEN_SOCKET;
    where[0].value = listen_socket;
    where[0].ptr_value = NULL;
  }
  int intercepting = certificate_callback != NULL;
  int use_tls = intercepting || (tls_key_pem != NULL && tls_cert_pem != NULL);
  return MHD_start_daemon(flags | (use_tls ? MHD_USE_TLS : 0), 0, NULL, NULL, handler, handler_cls,
      MHD_OPTION_ARRAY, intercepting ? intercepted : use_tls ? tls : tls + 3,
      MHD_OPTION_ARRAY, where,
      MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
      MHD_OPTION_URI_LOG_CALLBACK, uri_log, uri_log_cls,
      MHD_OPTION_EXTERNAL_LOGGER, logger, logger_cls,
      MHD_OPTION_NOTIFY_CONNECTION, notify_connection, notify_connection_cls,
      MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
      MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
      MHD_OPTION_CONNECTION_LIMIT, connection_limit,
      MHD_OPTION_END);
}

/* The port the daemon listens on (useful after binding port 0), or 0. */
static inline uint16_t conform_mhd_bound_port(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  return info == NULL ? 0 : info->port;
}

/* The socket of a connection, or -1. */
static inline int conform_mhd_connection_fd(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  return info == NULL ? -1 : info->connect_fd;
}

/* Formats one log message from MHD's printf-style logger arguments into `buffer`. */
static inline int conform_mhd_format_log(char *buffer, size_t size, const char *format, va_list args) {
  return vsnprintf(buffer, size, format, args);
}

/* A response of unknown length, sent with chunked transfer encoding to HTTP/1.1 clients. MHD_SIZE_UNKNOWN and
   MHD_CONTENT_READER_END_OF_STREAM are cast macros Swift cannot import. */
static inline struct MHD_Response *conform_mhd_create_chunked_response(
    size_t block_size, MHD_ContentReaderCallback reader, void *reader_cls, MHD_ContentReaderFreeCallback free_cls) {
  return MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, block_size, reader, reader_cls, free_cls);
}

/* What a content reader returns when the body is complete. */
static inline ssize_t conform_mhd_end_of_stream(void) {
  return MHD_CONTENT_READER_END_OF_STREAM;
}

/* The length of the request head (request line, header lines and the empty line), or 0. */
static inline size_t conform_mhd_header_size(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
  return info == NULL ? 0 : info->header_size;
}

/* The context the connection-notify callback stored for a connection (its socket context), or NULL. */
static inline void *conform_mhd_socket_context(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return info == NULL ? NULL : info->socket_context;
}

/* The epoll descriptor of a daemon started with MHD_USE_EPOLL and no thread of its own (the one an outside event loop
   waits on before MHD_run), or -1. */
static inline int conform_mhd_epoll_fd(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
  return info == NULL ? -1 : info->epoll_fd;
}

/* The daemon's listening socket, or -1. */
static inline int conform_mhd_listen_fd(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_LISTEN_FD);
  return info == NULL ? -1 : info->listen_fd;
}

/* Milliseconds until a daemon without a thread of its own must run again: a connection's timeout or work it left
   pending, and at most 100. Its descriptor alone is not enough: a daemon that reached its connection limit took its
   listening socket out of its epoll set, and puts it back only when it runs after a connection closed, which no
   event on that set announces once its last connection is gone. */
static inline long conform_mhd_timeout_ms(struct MHD_Daemon *daemon) {
  MHD_UNSIGNED_LONG_LONG timeout = 0;
  if (MHD_get_timeout(daemon, &timeout) != MHD_YES) return 100;
  return timeout > 100 ? 100 : (long)timeout;
}

/* The daemon a connection belongs to, or NULL. */
static inline struct MHD_Daemon *conform_mhd_connection_daemon(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_DAEMON);
  return info == NULL ? NULL : info->daemon;
}
