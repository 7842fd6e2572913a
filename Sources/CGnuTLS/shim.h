/* GnuTLS, the TLS library libmicrohttpd speaks HTTPS with: the forward proxy's intercepted tunnels present each
   tunnel's own leaf through GnuTLS's certificate callback. The only door to GnuTLS (ConformServer). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <gnutls/gnutls.h>
#include <gnutls/abstract.h>

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

/* conform_tls_retrieve as the opaque pointer libmicrohttpd's MHD_OPTION_HTTPS_CERT_CALLBACK takes. */
static inline void *conform_tls_retrieve_callback(void) {
  return (void *)conform_tls_retrieve;
}
