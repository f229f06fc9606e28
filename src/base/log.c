/*
 * log.c — leveled logging with redaction (see log.h).
 *
 * A line is assembled in a heap buffer (prefix, then the message run
 * through floe_redact_text) and handed to the sink in one call under a
 * mutex.  If memory for the line cannot be had, a fixed notice is written
 * instead: the unredacted message is never written.
 */
#include "base/log.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buffer.h"
#include "base/redact.h"
#include "base/str.h"

atomic_int floe_log_threshold_ = -1;

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static floe_log_sink_fn sink_fn;  /* guarded by log_lock; NULL = stderr */
static void *sink_ctx;

static const char *const level_names[] = {"OFF", "ERROR", "WARN", "INFO", "DEBUG", "TRACE"};

const char *floe_log_level_name(floe_log_level level) {
    return (level >= FLOE_LOG_OFF && level <= FLOE_LOG_TRACE) ? level_names[level] : "?";
}

floe_status floe_log_parse_level(const char *text, floe_log_level *out) {
    floe_str s = floe_str_trim(floe_str_c(text));
    static const struct {
        const char *name;
        floe_log_level level;
    } names[] = {{"off", FLOE_LOG_OFF},   {"none", FLOE_LOG_OFF},   {"error", FLOE_LOG_ERROR},
                 {"warn", FLOE_LOG_WARN}, {"warning", FLOE_LOG_WARN}, {"info", FLOE_LOG_INFO},
                 {"debug", FLOE_LOG_DEBUG}, {"trace", FLOE_LOG_TRACE}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (floe_str_ieq_c(s, names[i].name)) {
            *out = names[i].level;
            return NULL;
        }
    }
    if (s.len == 1 && s.ptr[0] >= '0' && s.ptr[0] <= '5') {
        *out = (floe_log_level)(s.ptr[0] - '0');
        return NULL;
    }
    return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                      "unknown log level '%.*s' (expected error, warn, info, debug, trace or off)",
                      (int)(s.len > 32 ? 32 : s.len), s.ptr);
}

int floe_log_init_from_env(void) {
    floe_log_level level = FLOE_LOG_WARN;
    const char *env = getenv("FLOE_LOG");
    bool bad = false;
    if (env && *env) {
        floe_status st = floe_log_parse_level(env, &level);
        if (st) {
            bad = true;
            level = FLOE_LOG_WARN;
            floe_status_free(st);
        }
    }
    int expected = -1;
    /* Only the first reader decides, so a concurrent floe_log_set_level wins. */
    if (!atomic_compare_exchange_strong(&floe_log_threshold_, &expected, (int)level))
        return atomic_load(&floe_log_threshold_);
    if (bad) floe_log_write(FLOE_LOG_WARN, "log", "ignoring FLOE_LOG: not a log level; using warn");
    return (int)level;
}

void floe_log_set_level(floe_log_level level) { atomic_store(&floe_log_threshold_, (int)level); }

floe_log_level floe_log_get_level(void) {
    int t = atomic_load(&floe_log_threshold_);
    if (t < 0) t = floe_log_init_from_env();
    return (floe_log_level)t;
}

void floe_log_set_sink(floe_log_sink_fn fn, void *ctx) {
    pthread_mutex_lock(&log_lock);
    sink_fn = fn;
    sink_ctx = ctx;
    pthread_mutex_unlock(&log_lock);
}

static void emit(floe_log_level level, const char *line, size_t len) {
    pthread_mutex_lock(&log_lock);
    if (sink_fn) {
        sink_fn(sink_ctx, level, line, len);
    } else {
        fwrite(line, 1, len, stderr);
        fflush(stderr);
    }
    pthread_mutex_unlock(&log_lock);
}

/* Prefix + message + newline, then emit.  `msg` is run through the free
 * text redactor unless `redacted` says a structure-aware redactor already
 * produced it (a second, structure-blind pass would hide too much). */
static void log_text(floe_log_level level, const char *component, const char *msg, size_t len, bool redacted) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char stamp[40];
    size_t n = strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(stamp + n, sizeof stamp - n, ".%03ldZ", ts.tv_nsec / 1000000);

    floe_buf line = FLOE_BUF_INIT;
    floe_status st = floe_buf_printf(&line, "%s %-5s [%s] ", stamp, floe_log_level_name(level),
                                     component ? component : "floe");
    if (!st) st = redacted ? floe_buf_append(&line, msg, len) : floe_redact_text_n(&line, msg, len);
    if (!st && (line.len == 0 || line.data[line.len - 1] != '\n')) st = floe_buf_append_byte(&line, '\n');
    if (st) {
        floe_status_free(st);
        static const char dropped[] = "floe: log line dropped: out of memory\n";
        emit(level, dropped, sizeof dropped - 1);
    } else {
        emit(level, (const char *)line.data, line.len);
    }
    floe_buf_free(&line);
}

void floe_log_vwrite(floe_log_level level, const char *component, const char *fmt, va_list ap) {
    if (!floe_log_enabled(level)) return;
    floe_buf msg = FLOE_BUF_INIT;
    floe_status st = floe_buf_vprintf(&msg, fmt, ap);
    if (st) {
        floe_status_free(st);
        log_text(level, component, "<log message dropped: out of memory>", 36, true);
    } else {
        log_text(level, component, floe_buf_cstr(&msg), msg.len, false);
    }
    floe_buf_free(&msg);
}

void floe_log_write(floe_log_level level, const char *component, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    floe_log_vwrite(level, component, fmt, ap);
    va_end(ap);
}

/* ---- structured, redacted ---------------------------------------------- */

static void log_built(floe_log_level level, const char *component, floe_buf *b, floe_status st) {
    if (st) {
        floe_status_free(st);
        log_text(level, component, "<log message dropped: out of memory>", 36, true);
    } else {
        log_text(level, component, floe_buf_cstr(b), b->len, true);
    }
    floe_buf_free(b);
}

/* "<title>: " — the title is caller text, so it is redacted as such. */
static floe_status title(floe_buf *b, const char *t) {
    if (!t || !*t) return NULL;
    FLOE_TRY(floe_redact_text(b, t));
    return floe_buf_append_str(b, ": ");
}

void floe_log_config(floe_log_level level, const char *component, const char *t, const char *const *keys,
                     const char *const *values, size_t n) {
    if (!floe_log_enabled(level)) return;
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = title(&b, t);
    if (!st) st = floe_redact_kv_list(&b, keys, values, n);
    log_built(level, component, &b, st);
}

void floe_log_config_map(floe_log_level level, const char *component, const char *t, const floe_strmap *m) {
    if (!floe_log_enabled(level)) return;
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = title(&b, t);
    if (!st) st = floe_redact_strmap(&b, m);
    log_built(level, component, &b, st);
}

void floe_log_http_request(floe_log_level level, const char *component, const char *t, const char *method,
                           const char *url, const char *const *headers, size_t nheaders) {
    if (!floe_log_enabled(level)) return;
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = title(&b, t);
    if (!st) st = floe_buf_printf(&b, "%s ", method ? method : "?");
    if (!st) st = floe_redact_url(&b, url ? url : "");
    if (!st && nheaders) st = floe_buf_append_str(&b, " [");
    for (size_t i = 0; i < nheaders && !st; i++) {
        if (i) st = floe_buf_append_str(&b, "; ");
        if (!st) st = floe_redact_header(&b, headers[i]);
    }
    if (!st && nheaders) st = floe_buf_append_byte(&b, ']');
    log_built(level, component, &b, st);
}

void floe_log_json(floe_log_level level, const char *component, const char *t, const char *json) {
    if (!floe_log_enabled(level)) return;
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = title(&b, t);
    if (!st) st = floe_redact_json(&b, json);
    log_built(level, component, &b, st);
}
