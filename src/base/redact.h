/*
 * redact.h — the ONE place that decides what is a secret and hides it.
 *
 * Anything that prints a configuration, a catalog property map, an HTTP
 * request (URL, headers), a JSON document or an error/log message that may
 * contain them goes through these functions first.  The log functions
 * (log.h) run every message through floe_redact_text() as a last line of
 * defence, but callers printing structured data should use the specific
 * helper (kv list, header, URL, JSON), which knows the structure.
 *
 * A key is secret when, ignoring ASCII case, it contains one of: secret,
 * token, password, passwd, passphrase, credential, authorization, cookie,
 * signature, private-key/private_key/privatekey, access-key/access_key/
 * accesskey, api-key/api_key/apikey, session-key/session_key — or is
 * exactly one of: sig, pwd, pass, auth, jwt, sas.  So "s3.secret-access-key",
 * "client-secret", "X-Amz-Security-Token", "X-Amz-Signature",
 * "X-Amz-Credential", "Cookie", "Set-Cookie", "Authorization", "token" and
 * "rest.auth.token" are all secret.  Secret values are replaced by "***".
 *
 * Redaction is deliberately greedy: it may hide a harmless value, it must
 * never show a secret one.
 */
#ifndef FLOE_BASE_REDACT_H
#define FLOE_BASE_REDACT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buffer.h"
#include "base/hashmap.h"
#include "floe/status.h"

#define FLOE_REDACTED "***"

/* Does this key (property name, header name, query parameter, JSON member)
 * name a secret?  NULL is not secret. */
bool floe_redact_is_secret_key(const char *key);
bool floe_redact_is_secret_key_n(const char *key, size_t len);

/* `value`, or FLOE_REDACTED when `key` names a secret. */
const char *floe_redact_value(const char *key, const char *value);

/* The functions below APPEND the redacted form to `out`. */

/* "k1=v1, k2=***" for parallel arrays of keys and values (values may be
 * NULL, printed as "(null)"; non-secret values are also passed through
 * floe_redact_text so embedded URLs lose their credentials). */
floe_status floe_redact_kv_list(floe_buf *out, const char *const *keys, const char *const *values,
                                size_t n) FLOE_WARN_UNUSED;
/* Same for a string map whose values are C strings, in key order. */
floe_status floe_redact_strmap(floe_buf *out, const floe_strmap *m) FLOE_WARN_UNUSED;

/* One HTTP header line "Name: value" -> "Name: ***" when Name is secret. */
floe_status floe_redact_header(floe_buf *out, const char *line) FLOE_WARN_UNUSED;

/* A URL with its userinfo ("user:pass@") replaced by "***@" and the
 * values of secret-named query/fragment parameters by "***":
 *   https://u:p@h/x?X-Amz-Signature=abc&a=1 -> https://R@h/x?X-Amz-Signature=R&a=1
 * where R is "***". */
floe_status floe_redact_url(floe_buf *out, const char *url) FLOE_WARN_UNUSED;

/* A JSON text with the value of every secret-named member, at any depth,
 * replaced by "***" (and credentials stripped from URL strings), printed
 * compactly.  Text that does not parse is redacted as free text instead. */
floe_status floe_redact_json(floe_buf *out, const char *json) FLOE_WARN_UNUSED;

/* Free text: values of "key=value", "key: value", "key = value",
 * "\"key\": \"value\"" where key is secret, URL userinfo, and the word
 * after "Bearer"/"Basic" are replaced by "***".  A value after ':' (header
 * style) is hidden to the end of the line. */
floe_status floe_redact_text(floe_buf *out, const char *text) FLOE_WARN_UNUSED;
floe_status floe_redact_text_n(floe_buf *out, const char *text, size_t len) FLOE_WARN_UNUSED;

#endif
