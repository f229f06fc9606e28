/*
 * scram.h — the server side of SCRAM-SHA-256 (RFC 5802, RFC 7677) as
 * PostgreSQL speaks it: no channel binding (the client's gs2 header is
 * "n,," or "y,,"), the user name taken from the startup packet (the
 * client sends "n=" empty), 4096 iterations by default.
 *
 * The password is turned into a verifier once (salted password →
 * StoredKey, ServerKey); the exchange needs only the verifier.  SASLprep
 * is not applied: passwords are used as their UTF-8 bytes (the same as
 * SASLprep for ASCII passwords).
 */
#ifndef FLOE_SERVER_SCRAM_H
#define FLOE_SERVER_SCRAM_H

#include <stddef.h>
#include <stdint.h>

#include "base/buffer.h"
#include "floe/status.h"

#define FLOE_SCRAM_ITERATIONS 4096

typedef struct floe_scram_verifier {
    uint8_t salt[32];
    size_t salt_len;
    int iterations;
    uint8_t stored_key[32];
    uint8_t server_key[32];
} floe_scram_verifier;

/* One exchange. */
typedef struct floe_scram_server {
    const floe_scram_verifier *verifier;
    floe_buf client_first_bare; /* "n=,r=<client nonce>" */
    floe_buf server_first;      /* "r=<nonce>,s=<salt>,i=<n>" */
    floe_buf gs2_header;        /* "n,," */
    floe_buf nonce;             /* client nonce + server nonce */
} floe_scram_server;

/* salt_len <= 32. */
floe_status floe_scram_make_verifier(const char *password, const uint8_t *salt, size_t salt_len, int iterations,
                                     floe_scram_verifier *out) FLOE_WARN_UNUSED;

void floe_scram_server_init(floe_scram_server *s, const floe_scram_verifier *v);
void floe_scram_server_free(floe_scram_server *s);
/* The client-first-message in, the server-first-message out (appended to
 * `out`).  `server_nonce` is printable ASCII without ','. */
floe_status floe_scram_server_first(floe_scram_server *s, const char *client_first, size_t len,
                                    const char *server_nonce, floe_buf *out) FLOE_WARN_UNUSED;
/* The client-final-message in; on a right proof the server-final-message
 * ("v=<signature>") is appended to `out`.  A wrong proof, nonce or
 * channel-binding field is FLOE_ERR_AUTH. */
floe_status floe_scram_server_final(floe_scram_server *s, const char *client_final, size_t len,
                                    floe_buf *out) FLOE_WARN_UNUSED;

/* Base64 (standard alphabet, padded). */
floe_status floe_base64_encode(const uint8_t *p, size_t n, floe_buf *out) FLOE_WARN_UNUSED;
/* Decodes into out (cap bytes); *n_out the length.  Bad text is CORRUPT. */
floe_status floe_base64_decode(const char *text, size_t len, uint8_t *out, size_t cap,
                               size_t *n_out) FLOE_WARN_UNUSED;

#endif
