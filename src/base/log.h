/*
 * log.h — leveled, thread-safe logging to stderr, secrets redacted.
 *
 * Levels: error < warn < info < debug < trace.  The threshold comes from
 * the FLOE_LOG environment variable (error, warn, info, debug, trace, off;
 * or 0..5), read on first use; default warn.  floe_log_set_level()
 * overrides it.
 *
 * A line looks like
 *   2026-11-29T17:23:37.123Z WARN  [catalog] commit retry 2 of 4: conflict
 *
 * Use the macros: they test the level before evaluating the arguments, so
 * a disabled debug line costs one load and a compare.
 *
 *   FLOE_LOG_DEBUG("parquet", "row group %d of '%s'", rg, path);
 *
 * Every message passes through floe_redact_text() before it is written, as
 * a last line of defence; structured data (configs, requests, JSON) must
 * still be printed with the helpers below, which know where secrets are.
 * Whole lines are written at once under a lock, so lines from different
 * threads never interleave.
 */
#ifndef FLOE_BASE_LOG_H
#define FLOE_BASE_LOG_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/hashmap.h"
#include "floe/status.h"

typedef enum floe_log_level {
    FLOE_LOG_OFF = 0,
    FLOE_LOG_ERROR = 1,
    FLOE_LOG_WARN = 2,
    FLOE_LOG_INFO = 3,
    FLOE_LOG_DEBUG = 4,
    FLOE_LOG_TRACE = 5
} floe_log_level;

/* Internal: the threshold, -1 until read from FLOE_LOG. */
extern atomic_int floe_log_threshold_;
/* Internal: read FLOE_LOG, store and return the threshold. */
int floe_log_init_from_env(void);

static inline bool floe_log_enabled(floe_log_level level) {
    int t = atomic_load_explicit(&floe_log_threshold_, memory_order_relaxed);
    if (t < 0) t = floe_log_init_from_env();
    return level != FLOE_LOG_OFF && (int)level <= t;
}

void floe_log_set_level(floe_log_level level);
floe_log_level floe_log_get_level(void);
/* "warn" -> FLOE_LOG_WARN (ASCII case-insensitive; also "warning",
 * "none", and digits 0..5). */
floe_status floe_log_parse_level(const char *text, floe_log_level *out) FLOE_WARN_UNUSED;
const char *floe_log_level_name(floe_log_level level); /* "WARN" */

/* Where finished lines go.  The default writes to stderr.  `line` ends in
 * '\n' and is already redacted.  Calls are serialised by the log lock.
 * Passing NULL restores the default.  Meant for tests and embedding. */
typedef void (*floe_log_sink_fn)(void *ctx, floe_log_level level, const char *line, size_t len);
void floe_log_set_sink(floe_log_sink_fn fn, void *ctx);

/* Format, redact and write one line if `level` is enabled.  `component`
 * is a short tag such as "io" or "catalog" (NULL: "floe"). */
void floe_log_write(floe_log_level level, const char *component, const char *fmt, ...) FLOE_PRINTF(3, 4);
void floe_log_vwrite(floe_log_level level, const char *component, const char *fmt, va_list ap);

#define FLOE_LOG(level, component, ...)                                            \
    do {                                                                           \
        if (floe_log_enabled(level)) floe_log_write((level), (component), __VA_ARGS__); \
    } while (0)
#define FLOE_LOG_ERROR(component, ...) FLOE_LOG(FLOE_LOG_ERROR, component, __VA_ARGS__)
#define FLOE_LOG_WARN(component, ...) FLOE_LOG(FLOE_LOG_WARN, component, __VA_ARGS__)
#define FLOE_LOG_INFO(component, ...) FLOE_LOG(FLOE_LOG_INFO, component, __VA_ARGS__)
#define FLOE_LOG_DEBUG(component, ...) FLOE_LOG(FLOE_LOG_DEBUG, component, __VA_ARGS__)
#define FLOE_LOG_TRACE(component, ...) FLOE_LOG(FLOE_LOG_TRACE, component, __VA_ARGS__)

/* Structured, redacted logging (each does nothing when `level` is off),
 * with R standing for "***":
 *   "<title>: k1=v1, secret=R"                         (config arrays/map)
 *   "<title>: GET https://R@h/p?sig=R [Authorization: R; Host: h]"
 *   "<title>: {...json with secret members R...}"                        */
void floe_log_config(floe_log_level level, const char *component, const char *title,
                     const char *const *keys, const char *const *values, size_t n);
void floe_log_config_map(floe_log_level level, const char *component, const char *title,
                         const floe_strmap *string_values);
void floe_log_http_request(floe_log_level level, const char *component, const char *title,
                           const char *method, const char *url, const char *const *headers,
                           size_t nheaders);
void floe_log_json(floe_log_level level, const char *component, const char *title, const char *json);

#endif
