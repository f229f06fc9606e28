/*
 * status.c — error values (see include/floe/status.h).
 *
 * An error is one heap block: the code followed by the NUL-terminated
 * message.  Wrapping builds a new block and frees the old one, which keeps
 * the type trivially copyable and the message contiguous for printing.
 */
#include "floe/status.h"

#include "base/log.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct floe_status_s {
    floe_code code;
    bool op_named; /* an out-of-memory error already names its operator */
    char message[];
};

/* Returned when even the error cannot be allocated. */
static struct {
    floe_code code;
    bool op_named;
    char message[32];
} oom_status = {FLOE_ERR_OUT_OF_MEMORY, true, "out of memory"};

#define OOM ((floe_status)(void *)&oom_status)

floe_status floe_errorv(floe_code code, const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) n = 0;
    floe_status st = malloc(sizeof(*st) + (size_t)n + 1);
    if (!st) return OOM;
    st->code = code == FLOE_OK ? FLOE_ERR_INTERNAL : code;
    st->op_named = false;
    vsnprintf(st->message, (size_t)n + 1, fmt, ap);
    return st;
}

floe_status floe_error(floe_code code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    floe_status st = floe_errorv(code, fmt, ap);
    va_end(ap);
    return st;
}

static floe_status wrapv(floe_status st, const char *fmt, va_list ap) {
    if (!st || st == OOM) return st;
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) return st;
    size_t old = strlen(st->message);
    floe_status out = malloc(sizeof(*out) + (size_t)n + 2 + old + 1);
    if (!out) return st; /* keep the original message rather than lose it */
    out->code = st->code;
    out->op_named = st->op_named;
    vsnprintf(out->message, (size_t)n + 1, fmt, ap);
    memcpy(out->message + n, ": ", 2);
    memcpy(out->message + n + 2, st->message, old + 1);
    free(st);
    return out;
}

floe_status floe_status_wrap(floe_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    floe_status out = wrapv(st, fmt, ap);
    va_end(ap);
    return out;
}

floe_status floe_status_wrap_op(floe_status st, const char *fmt, ...) {
    if (!st) return st;
    /* Out of memory names the operator that ran out (the innermost one),
     * so a user knows what to give memory or rewrite. */
    bool name_oom = st->code == FLOE_ERR_OUT_OF_MEMORY && !st->op_named;
    if (!name_oom && !floe_log_enabled(FLOE_LOG_DEBUG)) return st;
    va_list ap;
    va_start(ap, fmt);
    floe_status out = wrapv(st, fmt, ap);
    va_end(ap);
    if (out != OOM) out->op_named = true;
    return out;
}

floe_code floe_status_code(floe_status st) { return st ? st->code : FLOE_OK; }

const char *floe_status_message(floe_status st) { return st ? st->message : ""; }

const char *floe_code_name(floe_code code) {
    switch (code) {
    case FLOE_OK: return "ok";
    case FLOE_ERR_INVALID_ARGUMENT: return "invalid argument";
    case FLOE_ERR_IO: return "I/O error";
    case FLOE_ERR_CORRUPT: return "corrupt data";
    case FLOE_ERR_NOT_FOUND: return "not found";
    case FLOE_ERR_ALREADY_EXISTS: return "already exists";
    case FLOE_ERR_UNSUPPORTED: return "not supported";
    case FLOE_ERR_OUT_OF_MEMORY: return "out of memory";
    case FLOE_ERR_TYPE: return "type error";
    case FLOE_ERR_CONFLICT: return "conflict";
    case FLOE_ERR_CANCELLED: return "cancelled";
    case FLOE_ERR_CONSTRAINT: return "constraint violation";
    case FLOE_ERR_SYNTAX: return "syntax error";
    case FLOE_ERR_AUTH: return "authentication error";
    case FLOE_ERR_TIMEOUT: return "timeout";
    case FLOE_ERR_INTERNAL: return "internal error";
    case FLOE_ERR_COMMIT_UNKNOWN: return "commit state unknown";
    }
    return "unknown error";
}

void floe_status_free(floe_status st) {
    if (st && st != OOM) free(st);
}
