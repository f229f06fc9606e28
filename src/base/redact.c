/*
 * redact.c — secret detection and redaction (see redact.h).
 *
 * The free-text scanner walks the text once, looking at each maximal
 * "key-like" token ([A-Za-z0-9_.-]+).  A token followed (after an optional
 * closing quote and spaces) by '=' or ':' is a key; when the key is secret
 * its value is skipped and "***" written instead.  A token followed by
 * "://" is a URL scheme and the URL's userinfo is hidden.  Output is built
 * by copying the untouched runs between replacements.
 */
#include "base/redact.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "floe/memory.h"

/* ---- what is secret ---------------------------------------------------- */

static const char *const secret_parts[] = {
    "secret",      "token",      "password",    "passwd",     "passphrase", "credential",
    "authorization", "cookie",   "signature",   "private-key", "private_key", "privatekey",
    "access-key",  "access_key", "accesskey",   "api-key",    "api_key",    "apikey",
    "session-key", "session_key",
};

static const char *const secret_names[] = {"sig", "pwd", "pass", "auth", "jwt", "sas"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static bool icontains(floe_str hay, const char *needle) {
    size_t n = strlen(needle);
    if (n > hay.len) return false;
    for (size_t i = 0; i + n <= hay.len; i++)
        if (floe_str_ieq(floe_str_make(hay.ptr + i, n), floe_str_make(needle, n))) return true;
    return false;
}

bool floe_redact_is_secret_key_n(const char *key, size_t len) {
    if (!key) return false;
    floe_str k = floe_str_trim(floe_str_make(key, len));
    for (size_t i = 0; i < COUNT(secret_names); i++)
        if (floe_str_ieq_c(k, secret_names[i])) return true;
    for (size_t i = 0; i < COUNT(secret_parts); i++)
        if (icontains(k, secret_parts[i])) return true;
    return false;
}

bool floe_redact_is_secret_key(const char *key) {
    return key && floe_redact_is_secret_key_n(key, strlen(key));
}

const char *floe_redact_value(const char *key, const char *value) {
    return floe_redact_is_secret_key(key) ? FLOE_REDACTED : value;
}

/* ---- free text --------------------------------------------------------- */

static bool is_key_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
}

static bool is_blank(char c) { return c == ' ' || c == '\t'; }

/* Where an unquoted "key=value" value ends. */
static size_t plain_value_end(const char *s, size_t p, size_t n) {
    while (p < n) {
        char c = s[p];
        if (floe_ascii_isspace(c) || strchr("&,;\"')]}<>#", c)) break;
        p++;
    }
    return p;
}

/* Schemes whose credential is the word after them ("Bearer abc"). */
static bool is_auth_scheme(floe_str w) {
    static const char *const schemes[] = {"bearer", "basic", "digest", "negotiate", "token", "oauth",
                                          "aws4-hmac-sha256"};
    for (size_t i = 0; i < COUNT(schemes); i++)
        if (floe_str_ieq_c(w, schemes[i])) return true;
    return false;
}

static size_t line_end(const char *s, size_t p, size_t n) {
    while (p < n && s[p] != '\n' && s[p] != '\r') p++;
    return p;
}

/* End of a URL authority starting at a. */
static size_t authority_end(const char *s, size_t a, size_t n) {
    while (a < n && !floe_ascii_isspace(s[a]) && !strchr("/?#\"'<>", s[a])) a++;
    return a;
}

/* The value of a secret key starting at p (after separator and blanks):
 * sets [*vs, *ve) to the bytes to hide. */
static void secret_value_span(const char *s, size_t p, size_t n, char sep, size_t *vs, size_t *ve) {
    if (p < n && (s[p] == '"' || s[p] == '\'')) {
        char q = s[p];
        size_t e = p + 1;
        while (e < n && s[e] != q) e += (s[e] == '\\' && e + 1 < n) ? 2 : 1;
        *vs = p + 1;
        *ve = e < n ? e : n;
        return;
    }
    if (p + 1 < n && s[p] == '\\' && s[p + 1] == '"') { /* \"value\" inside escaped JSON */
        const char *hit = memmem(s + p + 2, n - p - 2, "\\\"", 2);
        *vs = p + 2;
        *ve = hit ? (size_t)(hit - s) : n;
        return;
    }
    *vs = p;
    if (sep == ':') {
        *ve = line_end(s, p, n);
        return;
    }
    size_t e = plain_value_end(s, p, n);
    /* "Authorization=Bearer abc": the credential is the next word. */
    if (e < n && is_blank(s[e]) && is_auth_scheme(floe_str_make(s + p, e - p))) e = line_end(s, e, n);
    *ve = e;
}

floe_status floe_redact_text_n(floe_buf *out, const char *s, size_t n) {
    size_t i = 0, copied = 0;
#define FLUSH_TO(pos) FLOE_TRY(floe_buf_append(out, s + copied, (pos) - copied))
    while (i < n) {
        if (!is_key_char(s[i]) || (i > 0 && is_key_char(s[i - 1]))) {
            i++;
            continue;
        }
        size_t k = i;
        while (k < n && is_key_char(s[k])) k++;
        floe_str word = floe_str_make(s + i, k - i);

        /* scheme://user:pass@host */
        if (k + 2 < n && s[k] == ':' && s[k + 1] == '/' && s[k + 2] == '/') {
            size_t a = k + 3, e = authority_end(s, a, n);
            const char *at = NULL;
            for (size_t j = a; j < e; j++)
                if (s[j] == '@') at = s + j;
            if (at) {
                FLUSH_TO(a);
                FLOE_TRY(floe_buf_append_str(out, FLOE_REDACTED));
                copied = (size_t)(at - s);
                i = copied;
            } else {
                i = a;
            }
            continue;
        }

        /* "Bearer abc..." anywhere. */
        if (k < n && is_blank(s[k]) && (floe_str_ieq_c(word, "bearer") || floe_str_ieq_c(word, "basic"))) {
            size_t v = k;
            while (v < n && is_blank(s[v])) v++;
            size_t e = v;
            while (e < n && !floe_ascii_isspace(s[e]) && s[e] != '"' && s[e] != '\'' && s[e] != ',') e++;
            if (e > v) {
                FLUSH_TO(v);
                FLOE_TRY(floe_buf_append_str(out, FLOE_REDACTED));
                copied = i = e;
                continue;
            }
        }

        /* Command-line style: --password hunter2 */
        if (word.len > 2 && word.ptr[0] == '-' && word.ptr[1] == '-' && k < n && is_blank(s[k]) &&
            floe_redact_is_secret_key_n(word.ptr, word.len)) {
            size_t v = k;
            while (v < n && is_blank(s[v])) v++;
            if (v < n && s[v] != '-' && !floe_ascii_isspace(s[v])) {
                size_t vs, ve;
                secret_value_span(s, v, n, '=', &vs, &ve);
                FLUSH_TO(vs);
                FLOE_TRY(floe_buf_append_str(out, FLOE_REDACTED));
                copied = i = ve;
                continue;
            }
        }

        /* key = value, key: value, "key": value, \"key\": value */
        size_t p = k;
        if (p + 1 < n && s[p] == '\\' && s[p + 1] == '"') p += 2;
        else if (p < n && i > 0 && (s[i - 1] == '"' || s[i - 1] == '\'') && s[p] == s[i - 1]) p++;
        while (p < n && is_blank(s[p])) p++;
        if (p < n && (s[p] == '=' || s[p] == ':') && floe_redact_is_secret_key_n(word.ptr, word.len)) {
            char sep = s[p++];
            while (p < n && is_blank(s[p])) p++;
            size_t vs, ve;
            secret_value_span(s, p, n, sep, &vs, &ve);
            FLUSH_TO(vs);
            FLOE_TRY(floe_buf_append_str(out, FLOE_REDACTED));
            copied = i = ve;
            continue;
        }
        i = k;
    }
    FLUSH_TO(n);
#undef FLUSH_TO
    /* Keep the buffer a valid (possibly empty) C string. */
    return floe_buf_reserve(out, 0);
}

floe_status floe_redact_text(floe_buf *out, const char *text) {
    return floe_redact_text_n(out, text ? text : "", text ? strlen(text) : 0);
}

/* ---- key/value lists --------------------------------------------------- */

static floe_status append_kv(floe_buf *out, const char *key, const char *value, bool first) {
    if (!first) FLOE_TRY(floe_buf_append_str(out, ", "));
    FLOE_TRY(floe_buf_append_str(out, key ? key : "(null)"));
    FLOE_TRY(floe_buf_append_byte(out, '='));
    if (floe_redact_is_secret_key(key)) return floe_buf_append_str(out, FLOE_REDACTED);
    if (!value) return floe_buf_append_str(out, "(null)");
    /* The value is text; a URL or "password=..." inside it is hidden too. */
    return floe_redact_text(out, value);
}

floe_status floe_redact_kv_list(floe_buf *out, const char *const *keys, const char *const *values, size_t n) {
    for (size_t i = 0; i < n; i++) FLOE_TRY(append_kv(out, keys[i], values ? values[i] : NULL, i == 0));
    return floe_buf_reserve(out, 0);
}

static int cmp_cstr_ptr(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

floe_status floe_redact_strmap(floe_buf *out, const floe_strmap *m) {
    size_t n = floe_strmap_size(m);
    if (n == 0) return floe_buf_reserve(out, 0);
    const char **keys = floe_malloc_array(n, sizeof *keys);
    if (!keys) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory printing a map");
    size_t it = 0, i = 0;
    floe_str k;
    while (i < n && floe_strmap_next(m, &it, &k, NULL)) keys[i++] = k.ptr;
    qsort(keys, i, sizeof *keys, cmp_cstr_ptr);
    floe_status st = NULL;
    for (size_t j = 0; j < i && !st; j++) st = append_kv(out, keys[j], floe_strmap_get_c(m, keys[j]), j == 0);
    floe_free(keys);
    return st ? st : floe_buf_reserve(out, 0);
}

/* ---- headers ----------------------------------------------------------- */

floe_status floe_redact_header(floe_buf *out, const char *line) {
    if (!line) return floe_buf_reserve(out, 0);
    const char *colon = strchr(line, ':');
    if (colon && floe_redact_is_secret_key_n(line, (size_t)(colon - line))) {
        const char *v = colon + 1;
        while (is_blank(*v)) v++;
        FLOE_TRY(floe_buf_append(out, line, (size_t)(v - line)));
        return floe_buf_append_str(out, FLOE_REDACTED);
    }
    return floe_redact_text(out, line);
}

/* ---- URLs -------------------------------------------------------------- */

/* name=value&name=value... up to `end` (exclusive), secret values hidden. */
static floe_status redact_params(floe_buf *out, const char *s, size_t end) {
    size_t i = 0;
    while (i < end) {
        size_t amp = i;
        while (amp < end && s[amp] != '&' && s[amp] != ';') amp++;
        const char *eq = memchr(s + i, '=', amp - i);
        if (eq && floe_redact_is_secret_key_n(s + i, (size_t)(eq - (s + i)))) {
            FLOE_TRY(floe_buf_append(out, s + i, (size_t)(eq - (s + i)) + 1));
            FLOE_TRY(floe_buf_append_str(out, FLOE_REDACTED));
        } else {
            FLOE_TRY(floe_buf_append(out, s + i, amp - i));
        }
        if (amp < end) FLOE_TRY(floe_buf_append_byte(out, (uint8_t)s[amp]));
        i = amp + 1;
    }
    return NULL;
}

floe_status floe_redact_url(floe_buf *out, const char *url) {
    if (!url) return floe_buf_reserve(out, 0);
    size_t n = strlen(url), pos = 0;
    const char *scheme_end = strstr(url, "://");
    size_t q = strcspn(url, "?#");
    if (scheme_end && (size_t)(scheme_end - url) < q) {
        size_t a = (size_t)(scheme_end - url) + 3;
        size_t e = a + strcspn(url + a, "/?#");
        const char *at = NULL;
        for (size_t j = a; j < e; j++)
            if (url[j] == '@') at = url + j;
        FLOE_TRY(floe_buf_append(out, url, a));
        if (at) {
            FLOE_TRY(floe_buf_append_str(out, FLOE_REDACTED));
            pos = (size_t)(at - url);
        } else {
            pos = a;
        }
        q = pos + strcspn(url + pos, "?#");
    }
    FLOE_TRY(floe_buf_append(out, url + pos, q - pos)); /* host and path */
    pos = q;
    while (pos < n) { /* '?' query and/or '#' fragment */
        FLOE_TRY(floe_buf_append_byte(out, (uint8_t)url[pos]));
        pos++;
        size_t end = pos + strcspn(url + pos, "#");
        FLOE_TRY(redact_params(out, url + pos, end - pos));
        pos = end;
    }
    return floe_buf_reserve(out, 0);
}

/* ---- JSON -------------------------------------------------------------- */

/* Replace the text of a JSON string by its free-text redaction. */
static floe_status redact_json_string(json_t *str) {
    const char *text = json_string_value(str);
    size_t len = json_string_length(str);
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = floe_redact_text_n(&b, text, len);
    if (!st && (b.len != len || memcmp(b.data, text, len) != 0)) {
        if (json_string_setn(str, (const char *)b.data, b.len) != 0)
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory redacting JSON");
    }
    floe_buf_free(&b);
    return st;
}

/* {"name": "AWS_SECRET_ACCESS_KEY", "value": "..."}: a name/value pair
 * object whose name is secret; its "value" member must be hidden. */
static bool names_a_secret(json_t *obj) {
    static const char *const name_members[] = {"name", "key", "Name", "Key"};
    for (size_t i = 0; i < COUNT(name_members); i++) {
        json_t *name = json_object_get(obj, name_members[i]);
        if (json_is_string(name) && floe_redact_is_secret_key(json_string_value(name))) return true;
    }
    return false;
}

static bool is_value_member(const char *key) {
    floe_str k = floe_str_c(key);
    return floe_str_ieq_c(k, "value") || floe_str_ieq_c(k, "val") || floe_str_ieq_c(k, "default");
}

static floe_status redact_json_value(json_t *v, int depth) {
    if (depth > 512) return floe_error(FLOE_ERR_UNSUPPORTED, "JSON nested too deeply to redact");
    if (json_is_object(v)) {
        bool pair = names_a_secret(v);
        for (void *it = json_object_iter(v); it; it = json_object_iter_next(v, it)) {
            const char *key = json_object_iter_key(it);
            if (floe_redact_is_secret_key(key) || (pair && is_value_member(key))) {
                if (json_object_iter_set_new(v, it, json_string(FLOE_REDACTED)) != 0)
                    return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory redacting JSON");
            } else {
                FLOE_TRY(redact_json_value(json_object_iter_value(it), depth + 1));
            }
        }
    } else if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++) FLOE_TRY(redact_json_value(json_array_get(v, i), depth + 1));
    } else if (json_is_string(v)) {
        FLOE_TRY(redact_json_string(v));
    }
    return NULL;
}

floe_status floe_redact_json(floe_buf *out, const char *json) {
    if (!json) return floe_buf_reserve(out, 0);
    json_error_t err;
    json_t *root = json_loads(json, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
    if (!root) return floe_redact_text(out, json); /* not JSON: redact as text */
    floe_status st = redact_json_value(root, 0);
    if (st) {
        json_decref(root);
        floe_status_free(st);
        /* Never fall back to printing the original. */
        return floe_buf_append_str(out, "<redacted JSON>");
    }
    char *text = json_dumps(root, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!text) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory printing redacted JSON");
    st = floe_buf_append_str(out, text);
    free(text);
    return st;
}
