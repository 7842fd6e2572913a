#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/bio.h>

/* SSL_CTX_set_tlsext_servername_callback, SSL_CTX_set_min_proto_version and SSL_CTX_set_mode are macros: typed
   wrappers for Swift. */

typedef int (*conform_servername_cb)(SSL *ssl, int *alert, void *arg);

/* Calls `callback` with the SNI name once OpenSSL has parsed the ClientHello; `arg` is passed through. */
static inline void conform_ssl_ctx_set_servername(SSL_CTX *ctx, conform_servername_cb callback, void *arg) {
  SSL_CTX_set_tlsext_servername_callback(ctx, callback);
  SSL_CTX_set_tlsext_servername_arg(ctx, arg);
}

/* TLS 1.2 and later only; writes may return after part of the data; the peer's close_notify is not required. */
static inline int conform_ssl_ctx_defaults(SSL_CTX *ctx) {
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
  return SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}

/* The SNI host name the client sent, or NULL. */
static inline const char *conform_ssl_servername(const SSL *ssl) {
  return SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
}

/* What a servername callback returns to go on, or to end the handshake with the alert in `*alert`. */
static inline int conform_ssl_sni_ok(void) { return SSL_TLSEXT_ERR_OK; }
static inline int conform_ssl_sni_fatal(int *alert) {
  *alert = SSL_AD_UNRECOGNIZED_NAME;
  return SSL_TLSEXT_ERR_ALERT_FATAL;
}

/* The ALPN protocol to use: http/1.1 when the client offers it (the server behind speaks only HTTP/1.1). */
static inline int conform_ssl_alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                                          const unsigned char *in, unsigned int inlen, void *arg) {
  static const unsigned char ours[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  unsigned char *selected = NULL;
  (void)ssl; (void)arg;
  if (SSL_select_next_proto(&selected, outlen, ours, sizeof ours, in, inlen) != OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_ALERT_FATAL;
  }
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

static inline void conform_ssl_ctx_set_alpn(SSL_CTX *ctx) {
  SSL_CTX_set_alpn_select_cb(ctx, conform_ssl_alpn_select, NULL);
}

/* Reads a PEM key and certificate chain (leaf first) into `ctx`; 1 on success. */
static inline int conform_ssl_ctx_use_pem(SSL_CTX *ctx, const char *key_pem, const char *chain_pem) {
  int ok = 0;
  BIO *bio = BIO_new_mem_buf(chain_pem, -1);
  X509 *leaf = bio == NULL ? NULL : PEM_read_bio_X509(bio, NULL, NULL, NULL);
  if (leaf != NULL && SSL_CTX_use_certificate(ctx, leaf) == 1) {
    X509 *extra;
    ok = 1;
    while ((extra = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
      if (SSL_CTX_add0_chain_cert(ctx, extra) != 1) { X509_free(extra); ok = 0; break; }
    }
    ERR_clear_error();
  }
  X509_free(leaf);
  BIO_free(bio);
  if (!ok) return 0;
  bio = BIO_new_mem_buf(key_pem, -1);
  EVP_PKEY *key = bio == NULL ? NULL : PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
  ok = key != NULL && SSL_CTX_use_PrivateKey(ctx, key) == 1 && SSL_CTX_check_private_key(ctx) == 1;
  EVP_PKEY_free(key);
  BIO_free(bio);
  return ok;
}
