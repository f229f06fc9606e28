/*
 * scram.c — SCRAM-SHA-256 server computations (see scram.h), on
 * OpenSSL's PBKDF2, HMAC and SHA-256.
 *
 *   SaltedPassword  = PBKDF2-HMAC-SHA256(password, salt, i)
 *   ClientKey       = HMAC(SaltedPassword, "Client Key")
 *   StoredKey       = SHA256(ClientKey)
 *   ServerKey       = HMAC(SaltedPassword, "Server Key")
 *   AuthMessage     = client-first-bare "," server-first "," client-final-without-proof
 *   ClientSignature = HMAC(StoredKey, AuthMessage)
 *   proof           = ClientKey XOR ClientSignature
 *
 * The server recovers ClientKey = proof XOR ClientSignature and accepts when
 * SHA256(ClientKey) equals StoredKey; it answers with
 * HMAC(ServerKey, AuthMessage) so the client knows the server had the key.
 */
#include "server/scram.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <stdbool.h>
#include <string.h>

static floe_status hmac(const uint8_t *key, size_t key_len, const void *msg, size_t n, uint8_t out[32]) {
    unsigned int len = 32;
    if (!HMAC(EVP_sha256(), key, (int)key_len, msg, n, out, &len) || len != 32)
        return floe_error(FLOE_ERR_INTERNAL, "SCRAM: HMAC-SHA-256 failed");
    return NULL;
}

floe_status floe_scram_make_verifier(const char *password, const uint8_t *salt, size_t salt_len, int iterations,
                                     floe_scram_verifier *out) {
    memset(out, 0, sizeof *out);
    if (salt_len > sizeof out->salt || iterations < 1)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "SCRAM: bad salt length or iteration count");
    memcpy(out->salt, salt, salt_len);
    out->salt_len = salt_len;
    out->iterations = iterations;
    uint8_t salted[32], client_key[32];
    if (!PKCS5_PBKDF2_HMAC(password, (int)strlen(password), salt, (int)salt_len, iterations, EVP_sha256(), 32,
                           salted))
        return floe_error(FLOE_ERR_INTERNAL, "SCRAM: PBKDF2 failed");
    floe_status st = hmac(salted, 32, "Client Key", 10, client_key);
    if (!st) st = hmac(salted, 32, "Server Key", 10, out->server_key);
    if (!st) SHA256(client_key, 32, out->stored_key);
    OPENSSL_cleanse(salted, sizeof salted);
    OPENSSL_cleanse(client_key, sizeof client_key);
    return st;
}

void floe_scram_server_init(floe_scram_server *s, const floe_scram_verifier *v) {
    memset(s, 0, sizeof *s);
    s->verifier = v;
}

void floe_scram_server_free(floe_scram_server *s) {
    floe_buf_free(&s->client_first_bare);
    floe_buf_free(&s->server_first);
    floe_buf_free(&s->gs2_header);
    floe_buf_free(&s->nonce);
}

floe_status floe_base64_encode(const uint8_t *p, size_t n, floe_buf *out) {
    size_t need = 4 * ((n + 2) / 3) + 1;
    FLOE_TRY(floe_buf_reserve(out, need));
    int w = EVP_EncodeBlock(out->data + out->len, p, (int)n);
    out->len += (size_t)w;
    out->data[out->len] = 0;
    return NULL;
}

floe_status floe_base64_decode(const char *text, size_t len, uint8_t *out, size_t cap, size_t *n_out) {
    *n_out = 0;
    if (len % 4 != 0 || len / 4 * 3 > cap + 2)
        return floe_error(FLOE_ERR_CORRUPT, "SCRAM: bad base64 text");
    uint8_t tmp[256];
    if (len / 4 * 3 > sizeof tmp) return floe_error(FLOE_ERR_CORRUPT, "SCRAM: base64 value too long");
    int n = EVP_DecodeBlock(tmp, (const unsigned char *)text, (int)len);
    if (n < 0) return floe_error(FLOE_ERR_CORRUPT, "SCRAM: bad base64 text");
    if (len >= 1 && text[len - 1] == '=') n--;
    if (len >= 2 && text[len - 2] == '=') n--;
    if ((size_t)n > cap) return floe_error(FLOE_ERR_CORRUPT, "SCRAM: base64 value too long");
    memcpy(out, tmp, (size_t)n);
    *n_out = (size_t)n;
    return NULL;
}

/* The value of attribute `name` ("r=...") in a comma-separated message,
 * as a view; false when missing. */
static bool attr(const char *msg, size_t len, char name, const char **val, size_t *vlen) {
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && msg[j] != ',') j++;
        if (j - i >= 2 && msg[i] == name && msg[i + 1] == '=') {
            *val = msg + i + 2;
            *vlen = j - i - 2;
            return true;
        }
        i = j + 1;
    }
    return false;
}

floe_status floe_scram_server_first(floe_scram_server *s, const char *msg, size_t len, const char *server_nonce,
                                    floe_buf *out) {
    /* gs2-header: "n,," or "y,," (the client could bind but thinks we
     * cannot); "p=..." asks for channel binding, which is not offered. */
    if (len < 3 || (msg[0] != 'n' && msg[0] != 'y') || msg[1] != ',')
        return floe_error(FLOE_ERR_AUTH, "SCRAM: malformed client-first-message (channel binding is not supported)");
    const char *comma = memchr(msg + 2, ',', len - 2);
    if (!comma) return floe_error(FLOE_ERR_AUTH, "SCRAM: malformed client-first-message");
    if (comma != msg + 2) return floe_error(FLOE_ERR_AUTH, "SCRAM: authorization identities are not supported");
    size_t gs2_len = (size_t)(comma - msg) + 1;
    const char *bare = msg + gs2_len;
    size_t bare_len = len - gs2_len;
    const char *cnonce;
    size_t cnonce_len;
    if (!attr(bare, bare_len, 'r', &cnonce, &cnonce_len) || cnonce_len == 0)
        return floe_error(FLOE_ERR_AUTH, "SCRAM: client-first-message without a nonce");
    FLOE_TRY(floe_buf_append(&s->gs2_header, msg, gs2_len));
    FLOE_TRY(floe_buf_append(&s->client_first_bare, bare, bare_len));
    FLOE_TRY(floe_buf_append(&s->nonce, cnonce, cnonce_len));
    FLOE_TRY(floe_buf_append_str(&s->nonce, server_nonce));
    FLOE_TRY(floe_buf_append_str(&s->server_first, "r="));
    FLOE_TRY(floe_buf_append(&s->server_first, s->nonce.data, s->nonce.len));
    FLOE_TRY(floe_buf_append_str(&s->server_first, ",s="));
    FLOE_TRY(floe_base64_encode(s->verifier->salt, s->verifier->salt_len, &s->server_first));
    FLOE_TRY(floe_buf_printf(&s->server_first, ",i=%d", s->verifier->iterations));
    return floe_buf_append(out, s->server_first.data, s->server_first.len);
}

floe_status floe_scram_server_final(floe_scram_server *s, const char *msg, size_t len, floe_buf *out) {
    const char *cb, *nonce, *proof_text;
    size_t cb_len, nonce_len, proof_len;
    if (!attr(msg, len, 'c', &cb, &cb_len) || !attr(msg, len, 'r', &nonce, &nonce_len) ||
        !attr(msg, len, 'p', &proof_text, &proof_len))
        return floe_error(FLOE_ERR_AUTH, "SCRAM: malformed client-final-message");
    /* The proof is the last attribute; everything before ",p=" is signed. */
    size_t without_proof = (size_t)(proof_text - msg) - 3;
    floe_buf cb_want = FLOE_BUF_INIT, auth = FLOE_BUF_INIT;
    floe_status st = floe_base64_encode(s->gs2_header.data, s->gs2_header.len, &cb_want);
    if (!st && (cb_len != cb_want.len || memcmp(cb, cb_want.data, cb_len) != 0))
        st = floe_error(FLOE_ERR_AUTH, "SCRAM: channel binding field does not match");
    if (!st && (nonce_len != s->nonce.len || memcmp(nonce, s->nonce.data, nonce_len) != 0))
        st = floe_error(FLOE_ERR_AUTH, "SCRAM: nonce does not match");
    uint8_t proof[32];
    size_t n = 0;
    if (!st) st = floe_base64_decode(proof_text, proof_len, proof, sizeof proof, &n);
    if (!st && n != 32) st = floe_error(FLOE_ERR_AUTH, "SCRAM: the proof is not 32 bytes");
    if (st && floe_status_code(st) != FLOE_ERR_AUTH) {
        floe_status_free(st);
        st = floe_error(FLOE_ERR_AUTH, "SCRAM: malformed proof");
    }
    if (!st) st = floe_buf_append(&auth, s->client_first_bare.data, s->client_first_bare.len);
    if (!st) st = floe_buf_append_byte(&auth, ',');
    if (!st) st = floe_buf_append(&auth, s->server_first.data, s->server_first.len);
    if (!st) st = floe_buf_append_byte(&auth, ',');
    if (!st) st = floe_buf_append(&auth, msg, without_proof);
    uint8_t sig[32], client_key[32], stored[32], server_sig[32];
    if (!st) st = hmac(s->verifier->stored_key, 32, auth.data, auth.len, sig);
    if (!st) {
        for (int i = 0; i < 32; i++) client_key[i] = proof[i] ^ sig[i];
        SHA256(client_key, 32, stored);
        if (CRYPTO_memcmp(stored, s->verifier->stored_key, 32) != 0)
            st = floe_error(FLOE_ERR_AUTH, "SCRAM: wrong password");
    }
    if (!st) st = hmac(s->verifier->server_key, 32, auth.data, auth.len, server_sig);
    if (!st) st = floe_buf_append_str(out, "v=");
    if (!st) st = floe_base64_encode(server_sig, 32, out);
    floe_buf_free(&cb_want);
    floe_buf_free(&auth);
    return st;
}
