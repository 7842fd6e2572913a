#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/params.h>

/* BIO_get_mem_data and X509V3_set_ctx_nodb are macros, EVP_EC_gen expands to a variadic call: typed wrappers. */

/* The bytes a memory BIO holds; `*data` points into the BIO. */
static inline long conform_bio_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

/* A new EC key on the named curve (NID_X9_62_prime256v1), or NULL. */
static inline EVP_PKEY *conform_ec_key(int curve_nid) {
  EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, NULL);
  EVP_PKEY *key = NULL;
  if (ctx == NULL) return NULL;
  if (EVP_PKEY_keygen_init(ctx) <= 0 || EVP_PKEY_CTX_set_ec_paramgen_curve_nid(ctx, curve_nid) <= 0
      || EVP_PKEY_keygen(ctx, &key) <= 0) {
    key = NULL;
  }
  EVP_PKEY_CTX_free(ctx);
  return key;
}

/* An extension context with no configuration database, issuer and subject as given. */
static inline void conform_x509v3_ctx(X509V3_CTX *ctx, X509 *issuer, X509 *subject) {
  X509V3_set_ctx(ctx, issuer, subject, NULL, NULL, 0);
  X509V3_set_ctx_nodb(ctx);
}

/* The subject of `x` on one line (`CN = …, O = …`), UTF-8 kept; XN_FLAG_ONELINE is a compound macro. */
static inline int conform_print_subject(BIO *bio, X509 *x) {
  return X509_NAME_print_ex(bio, X509_get_subject_name(x), 0, XN_FLAG_ONELINE & ~ASN1_STRFLGS_ESC_MSB);
}

/* Adds `field=value` (UTF-8) to a name; MBSTRING_UTF8 is a compound macro. */
static inline int conform_name_add(X509_NAME *name, const char *field, const char *value) {
  return X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, (const unsigned char *)value, -1, -1, 0);
}

/* An HMAC-SHA-256 context keyed with `key` once, to be copied for each message (EVP_MAC_CTX_dup): the one-shot
   HMAC() looks HMAC and SHA-256 up by name and keys a new context on every call. NULL when libcrypto cannot. */
static inline EVP_MAC_CTX *conform_hmac_sha256_keyed(const unsigned char *key, size_t key_length) {
  EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
  if (mac == NULL) return NULL;
  EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
  EVP_MAC_free(mac); /* the context holds its own reference */
  if (ctx == NULL) return NULL;
  char digest[] = "SHA256";
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("digest", digest, 0), OSSL_PARAM_construct_end()};
  if (EVP_MAC_init(ctx, key, key_length, params) != 1) {
    EVP_MAC_CTX_free(ctx);
    return NULL;
  }
  return ctx;
}

/* The 32-byte HMAC of `message` into `out`, in `copy` (an EVP_MAC_CTX_dup of a keyed context, freed here): 1, or 0
   on failure. */
static inline int conform_hmac_sha256_final(EVP_MAC_CTX *copy, const unsigned char *message, size_t length,
                                            unsigned char *out) {
  size_t written = 0;
  int ok = EVP_MAC_update(copy, message, length) == 1 && EVP_MAC_final(copy, out, &written, 32) == 1 && written == 32;
  EVP_MAC_CTX_free(copy);
  return ok;
}
