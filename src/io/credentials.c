/*
 * credentials.c — the process-wide store of short-lived storage
 * credentials (fileio.h "the credential store"; io/credentials.h).
 *
 * Entries are few (one per table a session reads through a REST catalog),
 * so they live in a plain list under one mutex; a condition variable lets
 * threads wait for a refresh another thread is running.  Refreshers run
 * with no lock held (they make HTTP calls and call floe_credentials_put).
 *
 * An entry may be forgotten while threads wait on it or refresh it: it is
 * then unlinked at once and freed by the last thread to let go of it
 * (`pins`).  Secrets are zeroed before their memory is freed.
 *
 * Times are wall-clock Unix milliseconds, the unit the REST catalog's
 * expiry (s3.session-token-expires-at-ms) comes in.
 */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "base/buffer.h"
#include "base/log.h"
#include "floe/memory.h"
#include "io/credentials.h"

#define CRED_DEBUG(...) FLOE_LOG_DEBUG("credentials", __VA_ARGS__)

/* Early-refresh window: max(5 s, lifetime / 5), at most lifetime / 2. */
#define MIN_WINDOW_MS 5000
/* After a failed early refresh (the old keys still valid), wait this long
 * before trying again, so that a failing catalog is not hammered. */
#define RETRY_AFTER_FAILURE_MS 1000

typedef struct cred_entry {
    struct cred_entry *next;
    char *id;
    floe_property *props; /* owned copies */
    size_t n;
    int64_t expires_at_ms;  /* 0 = unknown */
    int64_t issued_at_ms;   /* when put (or the exporter's put time) */
    uint64_t version;       /* unique per put; 0 = nothing put yet */
    floe_credentials_refresh_fn fn;
    void *ctx;
    int refreshing;         /* a thread is running fn */
    uint64_t refresh_gen;   /* completed refreshes */
    int last_failed;        /* the last refresh failed ... */
    floe_code last_code;    /* ... with this code and message */
    char *last_message;
    int64_t retry_at_ms;    /* no early refresh before this (after a failure) */
    uint64_t refresh_calls;
    int pins;               /* threads waiting on or refreshing this entry */
    int dead;               /* forgotten: unlinked, freed at pins == 0 */
} cred_entry;

static pthread_mutex_t store_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t store_cv = PTHREAD_COND_INITIALIZER;
static cred_entry *entries;      /* guarded by store_mu */
static uint64_t next_version = 1; /* guarded by store_mu */

static int64_t wall_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void zero_free(char *s) {
    if (!s) return;
    memset(s, 0, strlen(s));
    floe_free(s);
}

void floe_properties_free(floe_property *props, size_t n) {
    if (!props) return;
    for (size_t i = 0; i < n; i++) {
        zero_free((char *)props[i].key);
        zero_free((char *)props[i].value);
    }
    floe_free(props);
}

floe_status floe_properties_copy(const floe_property *src, size_t n, floe_property **out) {
    *out = NULL;
    if (n == 0) return NULL;
    floe_property *p = floe_calloc(n, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "copying %zu properties", n);
    for (size_t i = 0; i < n; i++) {
        if (!src[i].key) {
            floe_properties_free(p, n);
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "property %zu has no key", i);
        }
        p[i].key = floe_strdup(src[i].key);
        p[i].value = floe_strdup(src[i].value ? src[i].value : "");
        if (!p[i].key || !p[i].value) {
            floe_properties_free(p, n);
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "copying %zu properties", n);
        }
    }
    *out = p;
    return NULL;
}

static const char *prop_value(const floe_property *p, size_t n, const char *key) {
    const char *v = NULL;
    for (size_t i = 0; i < n; i++) /* the last setting wins, as in s3.c */
        if (strcmp(p[i].key, key) == 0) v = p[i].value;
    return v && *v ? v : NULL;
}

static void entry_free(cred_entry *e) {
    floe_properties_free(e->props, e->n);
    floe_free(e->last_message);
    floe_free(e->id);
    floe_free(e);
}

/* Lock held. */
static cred_entry *find_locked(const char *id) {
    for (cred_entry *e = entries; e; e = e->next)
        if (strcmp(e->id, id) == 0) return e;
    return NULL;
}

/* Lock held; NULL when out of memory. */
static cred_entry *find_or_create_locked(const char *id) {
    cred_entry *e = find_locked(id);
    if (e) return e;
    e = floe_calloc(1, sizeof *e);
    if (!e || !(e->id = floe_strdup(id))) {
        floe_free(e);
        return NULL;
    }
    /* At the tail: export order is creation order, so an import in
     * another process exports the same bytes again. */
    cred_entry **tail = &entries;
    while (*tail) tail = &(*tail)->next;
    *tail = e;
    return e;
}

/* Lock held: let go of a pinned entry, freeing it when forgotten. */
static void unpin_locked(cred_entry *e) {
    if (--e->pins == 0 && e->dead) entry_free(e);
}

/* Lock held: replace the entry's credentials (takes `props`). */
static void replace_locked(cred_entry *e, floe_property *props, size_t n, int64_t expires_at_ms,
                           int64_t issued_at_ms) {
    floe_properties_free(e->props, e->n);
    e->props = props;
    e->n = n;
    e->expires_at_ms = expires_at_ms > 0 ? expires_at_ms : 0;
    e->issued_at_ms = issued_at_ms;
    e->version = next_version++;
    e->retry_at_ms = 0;
}

floe_status floe_credentials_put(const char *id, const floe_property *props, size_t n, int64_t expires_at_ms) {
    if (!id || !*id) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "credentials need an id");
    floe_property *copy = NULL;
    FLOE_TRY_CTX(floe_properties_copy(props, n, &copy), "storing credentials '%s'", id);
    pthread_mutex_lock(&store_mu);
    cred_entry *e = find_or_create_locked(id);
    if (e) {
        replace_locked(e, copy, n, expires_at_ms, wall_ms());
        copy = NULL;
        pthread_cond_broadcast(&store_cv);
    }
    pthread_mutex_unlock(&store_mu);
    if (!e) {
        floe_properties_free(copy, n);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "storing credentials '%s'", id);
    }
    CRED_DEBUG("credentials '%s' stored (%zu properties, %s %lld ms)", id, n,
               expires_at_ms > 0 ? "expiring in" : "no expiry,",
               expires_at_ms > 0 ? (long long)(expires_at_ms - wall_ms()) : 0LL);
    return NULL;
}

void floe_credentials_set_refresher(const char *id, floe_credentials_refresh_fn fn, void *ctx) {
    if (!id || !*id) return;
    pthread_mutex_lock(&store_mu);
    cred_entry *e = fn ? find_or_create_locked(id) : find_locked(id);
    if (e) {
        e->fn = fn;
        e->ctx = fn ? ctx : NULL;
    }
    pthread_mutex_unlock(&store_mu);
}

void floe_credentials_forget(const char *id) {
    if (!id) return;
    pthread_mutex_lock(&store_mu);
    for (cred_entry **pe = &entries; *pe; pe = &(*pe)->next) {
        cred_entry *e = *pe;
        if (strcmp(e->id, id) != 0) continue;
        *pe = e->next;
        e->next = NULL;
        if (e->pins) {
            e->dead = 1;
            pthread_cond_broadcast(&store_cv);
        } else {
            entry_free(e);
        }
        break;
    }
    pthread_mutex_unlock(&store_mu);
}

/* ---- acquire: the S3 client's view ------------------------------------------- */

void floe_cred_snapshot_clear(floe_cred_snapshot *s) {
    zero_free(s->access_key_id);
    zero_free(s->secret_access_key);
    zero_free(s->session_token);
    memset(s, 0, sizeof *s);
}

static int has_keys(const cred_entry *e) { return prop_value(e->props, e->n, "s3.access-key-id") != NULL; }

/* Lock held: is the entry due for an early refresh at `now`? */
static int near_expiry(const cred_entry *e, int64_t now) {
    if (e->expires_at_ms <= 0) return 0;
    int64_t left = e->expires_at_ms - now;
    if (left <= 0) return 1;
    int64_t life = e->expires_at_ms - e->issued_at_ms;
    int64_t window = life / 5 > MIN_WINDOW_MS ? life / 5 : MIN_WINDOW_MS;
    if (life > 0 && window > life / 2) window = life / 2;
    return left <= window;
}

/* Lock held: copy the entry's keys into `out`. */
static floe_status snapshot_locked(const cred_entry *e, floe_cred_snapshot *out) {
    const char *ak = prop_value(e->props, e->n, "s3.access-key-id");
    const char *sk = prop_value(e->props, e->n, "s3.secret-access-key");
    const char *tok = prop_value(e->props, e->n, "s3.session-token");
    memset(out, 0, sizeof *out);
    out->version = e->version;
    if (!ak) return NULL;
    if (!sk)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                          "credentials '%s' have an access key id but no secret access key", e->id);
    out->found = 1;
    out->access_key_id = floe_strdup(ak);
    out->secret_access_key = floe_strdup(sk);
    out->session_token = tok ? floe_strdup(tok) : NULL;
    if (!out->access_key_id || !out->secret_access_key || (tok && !out->session_token)) {
        floe_cred_snapshot_clear(out);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "copying credentials '%s'", e->id);
    }
    return NULL;
}

/* Lock held, entry pinned: run the refresher (unlocking around it) and
 * record the outcome.  Returns the refresher's status. */
static floe_status refresh_locked(cred_entry *e, const char *why) {
    floe_credentials_refresh_fn fn = e->fn;
    void *ctx = e->ctx;
    e->refreshing = 1;
    e->refresh_calls++;
    char *id = floe_strdup(e->id);
    pthread_mutex_unlock(&store_mu);
    CRED_DEBUG("credentials '%s': refreshing (%s)", id ? id : "?", why);
    floe_status st = id ? fn(ctx, id) : floe_error(FLOE_ERR_OUT_OF_MEMORY, "refreshing credentials");
    floe_free(id);
    pthread_mutex_lock(&store_mu);
    e->refreshing = 0;
    e->refresh_gen++;
    e->last_failed = st != NULL;
    floe_free(e->last_message);
    e->last_message = NULL;
    if (st) {
        e->last_code = floe_status_code(st);
        e->last_message = floe_strdup(floe_status_message(st));
        e->retry_at_ms = wall_ms() + RETRY_AFTER_FAILURE_MS;
    }
    pthread_cond_broadcast(&store_cv);
    return st;
}

static floe_status refresh_failed(const cred_entry *e, const char *what) {
    return floe_error(e->last_code ? e->last_code : FLOE_ERR_AUTH, "credentials '%s' %s and their refresh failed: %s",
                      e->id, what, e->last_message ? e->last_message : "(no message)");
}

floe_status floe_credentials_acquire(const char *id, uint64_t stale_version, floe_cred_snapshot *out, int *changed) {
    memset(out, 0, sizeof *out);
    if (changed) *changed = 0;
    if (!id) return NULL;
    floe_status st = NULL;
    pthread_mutex_lock(&store_mu);
    cred_entry *e = find_locked(id);
    if (!e) {
        pthread_mutex_unlock(&store_mu);
        return NULL;
    }
    e->pins++;
    uint64_t seen_gen = e->refresh_gen;
    int waited_for_other = 0;
    for (;;) {
        if (e->dead) break; /* forgotten meanwhile: nothing stored */
        if (e->refreshing) {
            /* Single flight: wait for the refresh in progress, then look again. */
            pthread_cond_wait(&store_cv, &store_mu);
            waited_for_other = 1;
            continue;
        }
        int64_t now = wall_ms();
        int expired = e->expires_at_ms > 0 && now >= e->expires_at_ms;
        if (stale_version) {
            /* The server rejected the keys of stale_version. */
            if (e->version != stale_version) break; /* already replaced */
            if (!e->fn) break;                       /* nothing can replace them here */
            if (waited_for_other && e->refresh_gen != seen_gen && e->last_failed) {
                st = refresh_failed(e, "were rejected");
                break;
            }
            floe_status_free(refresh_locked(e, "rejected by the server"));
            if (e->last_failed) st = refresh_failed(e, "were rejected");
            break;
        }
        int due = e->fn && (!has_keys(e) || (near_expiry(e, now) && (expired || now >= e->retry_at_ms)));
        if (!due) break;
        if (waited_for_other && e->refresh_gen != seen_gen && e->last_failed) {
            /* Another thread's refresh just failed: share its outcome
             * rather than calling the refresher again at once. */
            if (expired || !has_keys(e)) st = refresh_failed(e, expired ? "expired" : "are missing");
            break;
        }
        floe_status rst = refresh_locked(e, !has_keys(e) ? "none yet" : expired ? "expired" : "expiring soon");
        if (rst) {
            now = wall_ms();
            expired = e->expires_at_ms > 0 && now >= e->expires_at_ms;
            if (expired || !has_keys(e)) st = refresh_failed(e, expired ? "expired" : "are missing");
            else CRED_DEBUG("credentials '%s': early refresh failed, using the current ones: %s", id,
                            floe_status_message(rst));
            floe_status_free(rst);
        }
        break;
    }
    if (!st && !e->dead) {
        st = snapshot_locked(e, out);
        if (!st && changed) *changed = stale_version != 0 && out->found && out->version != stale_version;
    }
    unpin_locked(e);
    pthread_mutex_unlock(&store_mu);
    return st;
}

floe_status floe_credentials_lookup(const char *id, floe_property **props, size_t *n, int64_t *expires_at_ms,
                                    int *found) {
    *props = NULL;
    *n = 0;
    *expires_at_ms = 0;
    *found = 0;
    if (!id) return NULL;
    floe_status st = NULL;
    pthread_mutex_lock(&store_mu);
    cred_entry *e = find_locked(id);
    if (e) {
        *found = 1;
        *expires_at_ms = e->expires_at_ms;
        st = floe_properties_copy(e->props, e->n, props);
        if (!st) *n = e->n;
    }
    pthread_mutex_unlock(&store_mu);
    return st;
}

uint64_t floe_credentials_refresh_count(const char *id) {
    uint64_t n = 0;
    pthread_mutex_lock(&store_mu);
    cred_entry *e = id ? find_locked(id) : NULL;
    if (e) n = e->refresh_calls;
    pthread_mutex_unlock(&store_mu);
    return n;
}

/* ---- export / import -----------------------------------------------------------
 *
 * "FLOECRD1", u32 entry count, then per entry: id, i64 expires_at_ms,
 * i64 issued_at_ms, u32 property count, key/value pairs.  Strings are a
 * u32 length and bytes (no NUL).  Integers little-endian. */

#define CRED_MAGIC "FLOECRD1"

static floe_status put_u32(floe_buf *b, uint32_t v) {
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    return floe_buf_append(b, x, 4);
}

static floe_status put_i64(floe_buf *b, int64_t v) {
    uint8_t x[8];
    for (int i = 0; i < 8; i++) x[i] = (uint8_t)((uint64_t)v >> (8 * i));
    return floe_buf_append(b, x, 8);
}

static floe_status put_str(floe_buf *b, const char *s) {
    size_t n = strlen(s);
    if (n > UINT32_MAX) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "credential text too long");
    FLOE_TRY(put_u32(b, (uint32_t)n));
    return floe_buf_append(b, s, n);
}

floe_status floe_credentials_export(floe_buf *out) {
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = floe_buf_append(&b, CRED_MAGIC, 8);
    pthread_mutex_lock(&store_mu);
    uint32_t count = 0;
    for (cred_entry *e = entries; e; e = e->next)
        if (e->n) count++;
    if (!st) st = put_u32(&b, count);
    for (cred_entry *e = entries; e && !st; e = e->next) {
        if (!e->n) continue; /* only a refresher here: nothing to ship */
        st = put_str(&b, e->id);
        if (!st) st = put_i64(&b, e->expires_at_ms);
        if (!st) st = put_i64(&b, e->issued_at_ms);
        if (!st) st = e->n > UINT32_MAX ? floe_error(FLOE_ERR_INVALID_ARGUMENT, "too many properties")
                                        : put_u32(&b, (uint32_t)e->n);
        for (size_t i = 0; i < e->n && !st; i++) {
            st = put_str(&b, e->props[i].key);
            if (!st) st = put_str(&b, e->props[i].value);
        }
    }
    pthread_mutex_unlock(&store_mu);
    if (!st) st = floe_buf_append(out, b.data, b.len);
    if (b.data) memset(b.data, 0, b.len); /* the copy held secrets */
    floe_buf_free(&b);
    return st ? floe_status_wrap(st, "exporting credentials") : NULL;
}

typedef struct cred_reader {
    const uint8_t *p;
    size_t n, pos;
} cred_reader;

static floe_status get_u32(cred_reader *r, uint32_t *v) {
    if (r->n - r->pos < 4)
        return floe_error(FLOE_ERR_CORRUPT, "credentials: truncated at byte %zu of %zu", r->pos, r->n);
    const uint8_t *x = r->p + r->pos;
    *v = (uint32_t)x[0] | (uint32_t)x[1] << 8 | (uint32_t)x[2] << 16 | (uint32_t)x[3] << 24;
    r->pos += 4;
    return NULL;
}

static floe_status get_i64(cred_reader *r, int64_t *v) {
    if (r->n - r->pos < 8)
        return floe_error(FLOE_ERR_CORRUPT, "credentials: truncated at byte %zu of %zu", r->pos, r->n);
    uint64_t x = 0;
    for (int i = 0; i < 8; i++) x |= (uint64_t)r->p[r->pos + (size_t)i] << (8 * i);
    r->pos += 8;
    *v = (int64_t)x;
    return NULL;
}

static floe_status get_str(cred_reader *r, char **s) {
    uint32_t len;
    *s = NULL;
    size_t at = r->pos;
    FLOE_TRY(get_u32(r, &len));
    if (len > r->n - r->pos)
        return floe_error(FLOE_ERR_CORRUPT, "credentials: string of %u bytes at byte %zu runs past the end (%zu)",
                          len, at, r->n);
    if (memchr(r->p + r->pos, 0, len))
        return floe_error(FLOE_ERR_CORRUPT, "credentials: string at byte %zu holds a NUL", at);
    *s = floe_strndup((const char *)r->p + r->pos, len);
    if (!*s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "importing credentials");
    r->pos += len;
    return NULL;
}

typedef struct imported {
    char *id;
    int64_t expires_at_ms, issued_at_ms;
    floe_property *props;
    size_t n;
} imported;

static void imported_free(imported *v, size_t n) {
    for (size_t i = 0; v && i < n; i++) {
        floe_free(v[i].id);
        floe_properties_free(v[i].props, v[i].n);
    }
    floe_free(v);
}

/* Parse one entry (everything validated before anything is applied). */
static floe_status get_entry(cred_reader *r, imported *e) {
    uint32_t np;
    FLOE_TRY(get_str(r, &e->id));
    if (!*e->id) return floe_error(FLOE_ERR_CORRUPT, "credentials: an entry without an id at byte %zu", r->pos);
    FLOE_TRY(get_i64(r, &e->expires_at_ms));
    FLOE_TRY(get_i64(r, &e->issued_at_ms));
    FLOE_TRY(get_u32(r, &np));
    if (np == 0 || np > (r->n - r->pos) / 8)
        return floe_error(FLOE_ERR_CORRUPT, "credentials '%s': %u properties cannot fit in the %zu bytes left", e->id,
                          np, r->n - r->pos);
    if (!(e->props = floe_calloc(np, sizeof *e->props)))
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "importing credentials");
    e->n = np;
    for (uint32_t i = 0; i < np; i++) {
        FLOE_TRY(get_str(r, (char **)&e->props[i].key));
        FLOE_TRY(get_str(r, (char **)&e->props[i].value));
    }
    return NULL;
}

/* Lock held: does the entry already hold exactly what was shipped? */
static int same_props(const cred_entry *e, const imported *v) {
    if (e->n != v->n || e->expires_at_ms != (v->expires_at_ms > 0 ? v->expires_at_ms : 0)) return 0;
    for (size_t i = 0; i < e->n; i++)
        if (strcmp(e->props[i].key, v->props[i].key) != 0 || strcmp(e->props[i].value, v->props[i].value) != 0)
            return 0;
    return 1;
}

floe_status floe_credentials_import(const uint8_t *p, size_t n) {
    cred_reader r = {p, n, 0};
    if (!p || n < 12 || memcmp(p, CRED_MAGIC, 8) != 0)
        return floe_error(FLOE_ERR_CORRUPT, "credentials: not exported credential bytes (bad magic, %zu bytes)", n);
    r.pos = 8;
    uint32_t count;
    FLOE_TRY(get_u32(&r, &count));
    if (count > (n - r.pos) / 24)
        return floe_error(FLOE_ERR_CORRUPT, "credentials: %u entries cannot fit in %zu bytes", count, n);
    imported *v = floe_calloc(count ? count : 1, sizeof *v);
    if (!v) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "importing credentials");
    floe_status st = NULL;
    for (uint32_t i = 0; i < count && !st; i++) st = get_entry(&r, &v[i]);
    if (!st && r.pos != n) st = floe_error(FLOE_ERR_CORRUPT, "credentials: %zu trailing bytes at byte %zu", n - r.pos, r.pos);
    if (st) {
        imported_free(v, count);
        return st;
    }
    pthread_mutex_lock(&store_mu);
    for (uint32_t i = 0; i < count; i++) {
        cred_entry *e = find_or_create_locked(v[i].id);
        if (!e) {
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "importing credentials '%s'", v[i].id);
            break;
        }
        /* Keep ours when they outlive the shipped ones (a local refresh
         * already replaced what the coordinator had). */
        if (e->n && e->expires_at_ms > 0 && v[i].expires_at_ms > 0 && e->expires_at_ms > v[i].expires_at_ms) continue;
        /* The same keys again (every task carries them): no new version,
         * so a request rejected meanwhile is not retried for nothing. */
        if (same_props(e, &v[i])) continue;
        replace_locked(e, v[i].props, v[i].n, v[i].expires_at_ms, v[i].issued_at_ms);
        v[i].props = NULL;
        v[i].n = 0;
    }
    pthread_cond_broadcast(&store_cv);
    pthread_mutex_unlock(&store_mu);
    imported_free(v, count);
    return st;
}
