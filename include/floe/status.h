/*
 * status.h — how every fallible floe function reports failure.
 *
 * A floe_status is a pointer: NULL means success, anything else is an
 * error object holding a code and a formatted, human-readable message that
 * names what failed and where (file, table, byte offset, HTTP status ...).
 * Library code never calls exit() or abort() on bad input; it returns one of
 * these.  Callers add context on the way up with floe_status_wrap(), so a
 * message reads outermost-first:
 *
 *   reading 'data/x.parquet': column 'a': page at offset 4242: bad RLE run
 *
 * The caller that finally handles an error frees it with floe_status_free().
 */
#ifndef FLOE_STATUS_H
#define FLOE_STATUS_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum floe_code {
    FLOE_OK = 0,
    FLOE_ERR_INVALID_ARGUMENT, /* the caller passed something unusable      */
    FLOE_ERR_IO,               /* a file or network operation failed        */
    FLOE_ERR_CORRUPT,          /* malformed bytes: Parquet, Avro, JSON, ... */
    FLOE_ERR_NOT_FOUND,        /* no such file, table, column, snapshot     */
    FLOE_ERR_ALREADY_EXISTS,
    FLOE_ERR_UNSUPPORTED,      /* valid input floe cannot handle (yet)      */
    FLOE_ERR_OUT_OF_MEMORY,
    FLOE_ERR_TYPE,             /* a value or column of the wrong type       */
    FLOE_ERR_CONFLICT,         /* a concurrent commit won; retryable        */
    FLOE_ERR_CANCELLED,        /* the work was cancelled before finishing   */
    FLOE_ERR_CONSTRAINT,       /* e.g. NULL in a required column            */
    FLOE_ERR_SYNTAX,           /* SQL or expression text did not parse      */
    FLOE_ERR_AUTH,             /* credentials rejected or expired           */
    FLOE_ERR_TIMEOUT,
    FLOE_ERR_INTERNAL,         /* a floe bug: an invariant did not hold     */
    FLOE_ERR_COMMIT_UNKNOWN    /* a commit's outcome could not be learned (a
                                  server error or a dropped connection after
                                  the request went out): it may have happened,
                                  so nothing it references may be deleted   */
} floe_code;

typedef struct floe_status_s *floe_status;

#if defined(__GNUC__)
#define FLOE_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define FLOE_WARN_UNUSED __attribute__((warn_unused_result))
#else
#define FLOE_PRINTF(a, b)
#define FLOE_WARN_UNUSED
#endif

/* Make an error.  Never returns NULL: if memory is exhausted a static
 * out-of-memory status is returned instead (freeing it is a no-op). */
floe_status floe_error(floe_code code, const char *fmt, ...) FLOE_PRINTF(2, 3);
floe_status floe_errorv(floe_code code, const char *fmt, va_list ap);

/* Prefix context to an error's message ("<context>: <message>") and return
 * it.  NULL passes through unchanged, so this can wrap any call. */
floe_status floe_status_wrap(floe_status st, const char *fmt, ...) FLOE_PRINTF(2, 3);

/* The same for the engine's own context — which operator, partition or
 * internal column an error passed through ("Repartition: input partition
 * 1", "column 'min_0'").  Users see the error without it (PostgreSQL's
 * messages name no operators); it is added only when debug logging is on
 * (FLOE_LOG=debug), for whoever is chasing where an error came from, and
 * to an out-of-memory error once (the operator that ran out is named). */
floe_status floe_status_wrap_op(floe_status st, const char *fmt, ...) FLOE_PRINTF(2, 3);

floe_code floe_status_code(floe_status st);       /* FLOE_OK for NULL */
const char *floe_status_message(floe_status st);  /* "" for NULL      */
const char *floe_code_name(floe_code code);       /* "corrupt", "io"  */
void floe_status_free(floe_status st);

/* Evaluate an expression returning floe_status; return it if it failed. */
#define FLOE_TRY(expr)                      \
    do {                                    \
        floe_status floe_try_st_ = (expr);  \
        if (floe_try_st_) return floe_try_st_; \
    } while (0)

/* Same, adding context to the message first. */
#define FLOE_TRY_CTX(expr, ...)                                    \
    do {                                                           \
        floe_status floe_try_st_ = (expr);                         \
        if (floe_try_st_) return floe_status_wrap(floe_try_st_, __VA_ARGS__); \
    } while (0)

#ifdef __cplusplus
}
#endif
#endif
