#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>
#include <gnutls/gnutls.h>
#include <gnutls/abstract.h>

/* MHD_start_daemon and MHD_get_daemon_info are variadic: typed wrappers for Swift. */

typedef void *(*conform_mhd_uri_log_cb)(void *cls, const char *uri, struct MHD_Connection *connection);

static int conform_tls_retrieve(gnutls_session_t session, const gnutls_datum_t *req_ca_rdn, int nreqs,
                                const gnutls_pk_algorithm_t *pk_algos, int pk_algos_length,
                                gnutls_pcert_st **pcert, unsigned int *pcert_length, gnutls_privkey_t *privkey);

/* The protocol versions of every TLS listener: TLS 1.2 and 1.3 only (RFC 8996 deprecates TLS 1.0 and 1.1), with
   GnuTLS's usual ciphers, groups and signatures for them. */
#define CONFORM_TLS_PRIORITIES "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

/* Starts a daemon bound to `address` with the options Conform uses; `logger` receives MHD's messages when MHD_USE_ERROR_LOG is set;
   with a key and a certificate (PEM) it speaks HTTPS; `intercepting` (a forwarding daemon's) speaks TLS on every
   connection added, with the leaf conform_tls_retrieve finds for it. Both speak TLS 1.2 and 1.3 only. */
static inline struct MHD_Daemon *conform_mhd_start(
    unsigned int flags, const struct sockaddr *address,
    MHD_AccessHandlerCallback handler, void *handler_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls,
    conform_mhd_uri_log_cb uri_log, void *uri_log_cls,
    MHD_LogCallback logger, void *logger_cls,
    MHD_NotifyConnectionCallback notify_connection, void *notify_connection_cls,
    unsigned int thread_pool_size, size_t connection_memory_limit,
    unsigned int connection_timeout_seconds, unsigned int connection_limit,
    const char *tls_key_pem, const char *tls_cert_pem, int intercepting) {
  /* HTTPS when both are given: GnuTLS with the PEM key and certificate chain; libmicrohttpd offers ALPN http/1.1.
     The option array is empty (its END entry alone) for plain HTTP. */
  struct MHD_OptionItem tls[] = {
      {MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)tls_key_pem},
      {MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)tls_cert_pem},
      {MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)CONFORM_TLS_PRIORITIES},
      {MHD_OPTION_END, 0, NULL},
  };
  struct MHD_OptionItem intercepted[] = {
      {MHD_OPTION_HTTPS_CERT_CALLBACK, 0, (void *)conform_tls_retrieve},
      {MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)CONFORM_TLS_PRIORITIES},
      {MHD_OPTION_END, 0, NULL},
  };
  int use_tls = intercepting || (tls_key_pem != NULL && tls_cert_pem != NULL);
  return MHD_start_daemon(flags | (use_tls ? MHD_USE_TLS : 0), 0, NULL, NULL, handler, handler_cls,
      MHD_OPTION_ARRAY, intercepting ? intercepted : use_tls ? tls : tls + 3,
      MHD_OPTION_SOCK_ADDR, address,
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

/* ---- Intercepted TLS: the forward proxy's tunnels, decrypted by libmicrohttpd's GnuTLS ---------------------------- */

/* A leaf and its chain (at most 8 certificates) and private key, as GnuTLS presents them to a client. */
struct conform_tls_credential {
  gnutls_pcert_st certificates[8];
  unsigned int count;
  gnutls_privkey_t key;
};

/* Reads a PEM key and PEM chain (leaf first); NULL when GnuTLS cannot read either. */
static inline struct conform_tls_credential *conform_tls_credential_new(const char *key_pem, const char *chain_pem) {
  struct conform_tls_credential *credential = calloc(1, sizeof *credential);
  if (credential == NULL) return NULL;
  gnutls_datum_t chain = {(unsigned char *)chain_pem, (unsigned int)strlen(chain_pem)};
  credential->count = 8;
  if (gnutls_pcert_list_import_x509_raw(credential->certificates, &credential->count, &chain, GNUTLS_X509_FMT_PEM, 0) < 0
      || credential->count == 0) {
    free(credential);
    return NULL;
  }
  gnutls_datum_t key = {(unsigned char *)key_pem, (unsigned int)strlen(key_pem)};
  if (gnutls_privkey_init(&credential->key) < 0) credential->key = NULL;
  if (credential->key == NULL || gnutls_privkey_import_x509_raw(credential->key, &key, GNUTLS_X509_FMT_PEM, NULL, 0) < 0) {
    if (credential->key != NULL) gnutls_privkey_deinit(credential->key);
    for (unsigned int i = 0; i < credential->count; i++) gnutls_pcert_deinit(&credential->certificates[i]);
    free(credential);
    return NULL;
  }
  return credential;
}

static inline void conform_tls_credential_free(struct conform_tls_credential *credential) {
  if (credential == NULL) return;
  gnutls_privkey_deinit(credential->key);
  for (unsigned int i = 0; i < credential->count; i++) gnutls_pcert_deinit(&credential->certificates[i]);
  free(credential);
}

/* What the lookup says of a handshake. */
enum conform_tls_lookup_result { CONFORM_TLS_PRESENT = 0, CONFORM_TLS_WRONG_NAME = 1, CONFORM_TLS_UNKNOWN = 2 };

/* Implemented in Swift (ConformServer, InterceptedTLS.swift): the credential for the tunnel on `socket`, given the
   SNI name the client sent (NULL when it sent none). */
extern int conform_forward_tls_lookup(int socket, const char *server_name, struct conform_tls_credential **found);

/* GnuTLS's certificate callback for intercepted tunnels: the tunnel's own leaf, found by the connection's socket
   (libmicrohttpd gives GnuTLS the socket as its transport); an SNI name other than the tunnel's host ends the
   handshake with unrecognized_name. */
static int conform_tls_retrieve(gnutls_session_t session, const gnutls_datum_t *req_ca_rdn, int nreqs,
                                const gnutls_pk_algorithm_t *pk_algos, int pk_algos_length,
                                gnutls_pcert_st **pcert, unsigned int *pcert_length, gnutls_privkey_t *privkey) {
  (void)req_ca_rdn; (void)nreqs; (void)pk_algos; (void)pk_algos_length;
  char name[256];
  size_t length = sizeof name - 1;
  unsigned int type = 0;
  const char *sent = NULL;
  int got = gnutls_server_name_get(session, name, &length, &type, 0);
  if (got == GNUTLS_E_SUCCESS && type == GNUTLS_NAME_DNS) {
    name[length < sizeof name ? length : sizeof name - 1] = 0;
    sent = name;
  } else if (got != GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE) {
    /* A name too long for any host, or of another type: not the tunnel's host. */
    gnutls_alert_send(session, GNUTLS_AL_FATAL, GNUTLS_A_UNRECOGNIZED_NAME);
    return -1;
  }
  struct conform_tls_credential *credential = NULL;
  int result = conform_forward_tls_lookup(gnutls_transport_get_int(session), sent, &credential);
  if (result != CONFORM_TLS_PRESENT || credential == NULL) {
    if (result == CONFORM_TLS_WRONG_NAME) gnutls_alert_send(session, GNUTLS_AL_FATAL, GNUTLS_A_UNRECOGNIZED_NAME);
    return -1;
  }
  *pcert = credential->certificates;
  *pcert_length = credential->count;
  *privkey = credential->key;
  return 0;
}
