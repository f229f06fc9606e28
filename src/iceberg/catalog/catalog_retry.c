/*
 * catalog_retry.c — how often and how patiently a commit that lost the
 * compare-and-swap is tried again: Iceberg's commit.retry.* table
 * properties with Java's defaults (num-retries 4, min-wait-ms 100,
 * max-wait-ms 60000, total-timeout-ms 1800000), and the jittered
 * exponential backoff between attempts.  Used by every commit loop: the
 * snapshot commits (catalog_append.c), SQL's writes and DDL.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "floe/catalog.h"

static int64_t prop_ms(const floe_ice_table_metadata *md, const char *key, int64_t dflt) {
    const char *v = md ? floe_ice_tm_property(md, key) : NULL;
    if (!v || !*v) return dflt;
    char *end = NULL;
    long long x = strtoll(v, &end, 10);
    return (end && *end == '\0' && x >= 0) ? (int64_t)x : dflt; /* a bad value keeps the default */
}

floe_commit_retry floe_catalog_retry_settings(const floe_ice_table_metadata *md) {
    floe_commit_retry r;
    int64_t n = prop_ms(md, "commit.retry.num-retries", 4);
    r.num_retries = n > 100 ? 100 : (int32_t)n;
    r.min_wait_ms = prop_ms(md, "commit.retry.min-wait-ms", 100);
    r.max_wait_ms = prop_ms(md, "commit.retry.max-wait-ms", 60000);
    r.total_timeout_ms = prop_ms(md, "commit.retry.total-timeout-ms", 1800000);
    if (r.max_wait_ms < r.min_wait_ms) r.max_wait_ms = r.min_wait_ms;
    return r;
}

int64_t floe_catalog_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A random time in [base/2, base] with base = min-wait * 2^(attempt-1),
 * capped at max-wait, so writers that collided spread out instead of
 * colliding again (Java's Tasks backoff, with more jitter: losers of one
 * race must not meet again at the same instant). */
void floe_catalog_retry_backoff(const floe_commit_retry *r, int attempt) {
    int64_t base_ms = r->min_wait_ms > 0 ? r->min_wait_ms : 1;
    for (int i = 1; i < attempt && base_ms < r->max_wait_ms; i++) base_ms *= 2;
    if (base_ms > r->max_wait_ms) base_ms = r->max_wait_ms;
    uint32_t x = 0;
    if (getrandom(&x, sizeof x, GRND_NONBLOCK) != (ssize_t)sizeof x) x = (uint32_t)time(NULL) * 2654435761u;
    int64_t ms = base_ms / 2 + (int64_t)(x % (uint32_t)(base_ms / 2 + 1));
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}
