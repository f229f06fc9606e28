/*
 * functions.h — the registry of SQL scalar functions behind FLOE_EXPR_CALL,
 * and the small toolkit their kernels share.
 *
 * A function is a row in a table (one table per family: func_string.c,
 * func_numeric.c, func_datetime.c, func_iceberg.c, func_struct.c,
 * func_variant.c, func_text.c) giving its name,
 * argument count range,
 * a type rule and a kernel.  The type rule sees the argument expressions
 * as well as their types, so a function whose result type depends on a
 * constant argument (date_part('epoch', x) is float64, other fields int64)
 * can read it.
 *
 * Kernels run once per batch.  Each argument array has either `rows` slots
 * or exactly one slot: a literal argument is passed unbroadcast and the
 * kernel reads slot 0 for every row (fn_at below), so constant patterns,
 * formats and field names are parsed once per batch, not per row.  A
 * kernel allocates its output buffers up front (or grows one string
 * buffer amortised) and never allocates per row.
 */
#ifndef FLOE_EXEC_FUNCTIONS_H
#define FLOE_EXEC_FUNCTIONS_H

#include "base/buffer.h"
#include "floe/exec.h"

typedef struct floe_func_def floe_func_def;

/* Result type of a call, given its argument expressions and their types
 * (n of each).  Errors are FLOE_ERR_TYPE naming the function. */
typedef floe_status (*floe_func_type_fn)(const floe_func_def *def, const floe_expr *const *args,
                                         floe_type *const *types, int32_t n, floe_type **out);
/* Evaluate over `rows` rows; args[i] has rows slots or one (a constant).
 * `rtype` is what the type rule returned for these argument types. */
typedef floe_status (*floe_func_eval_fn)(const floe_func_def *def, floe_array *const *args, int32_t n,
                                         int64_t rows, floe_type *rtype, floe_array **out);

struct floe_func_def {
    const char *name;
    int16_t min_args;
    int16_t max_args;        /* -1: any number */
    const char *signature;   /* for messages: "substring(string, int[, int])" */
    floe_func_type_fn type;
    floe_func_eval_fn eval;
    int32_t tag;             /* kernel-specific selector */
    /* For fn_type_simple: one letter per argument (the last repeats for
     * variadic functions) — S string, B string or binary, I int32/int64,
     * N numeric, A any non-nested type, V interval, H time — and the result
     * type. */
    const char *kinds;
    floe_type_id result;
};

/* The families' tables (each ends with a zeroed entry). */
extern const floe_func_def floe_string_funcs[];
extern const floe_func_def floe_numeric_funcs[];
extern const floe_func_def floe_random_funcs[];
extern const floe_func_def floe_datetime_funcs[];
extern const floe_func_def floe_iceberg_funcs[]; /* func_iceberg.c */
extern const floe_func_def floe_struct_funcs[];  /* func_struct.c */
extern const floe_func_def floe_variant_funcs[]; /* func_variant.c */
extern const floe_func_def floe_text_funcs[];    /* func_text.c */
extern const floe_func_def floe_subquery_funcs[]; /* func_subquery.c */
extern const floe_func_def floe_regexp_funcs[];   /* func_regexp.c */
extern const floe_func_def floe_json_funcs[];     /* func_json.c */
extern const floe_func_def floe_jsonb_op_funcs[]; /* func_jsonb_ops.c */
extern const floe_func_def floe_interval_funcs[]; /* func_interval.c */
extern const floe_func_def floe_array_funcs[];    /* func_array.c */
extern const floe_func_def floe_nested_funcs[];   /* func_nested.c */
extern const floe_func_def floe_array_op_funcs[]; /* func_array_ops.c */
extern const floe_func_def floe_timezone_funcs[]; /* func_timezone.c */
extern const floe_func_def floe_zorder_funcs[];   /* func_zorder.c */
extern const floe_func_def floe_pgcatalog_funcs[]; /* func_pgcatalog.c */

/* PostgreSQL's types as pg_catalog shows them (func_pgcatalog.c). */
typedef struct floe_pg_type_row {
    int64_t oid;
    const char *name;  /* pg_type.typname */
    const char *sql;   /* format_type's and information_schema's spelling */
    int32_t len;       /* typlen */
    int64_t collation; /* typcollation */
} floe_pg_type_row;
/* All of them, ending with a row whose name is NULL; one by OID or NULL. */
const floe_pg_type_row *floe_pg_types(void);
const floe_pg_type_row *floe_pg_type_by_oid(int64_t oid);

/* The definition named `name` (exact, lowercase), or NULL. */
const floe_func_def *floe_func_lookup(const char *name);
/* FLOE_ERR_NOT_FOUND "unknown function 'x' (did you mean 'y'?)". */
floe_status floe_func_unknown(const char *name) FLOE_WARN_UNUSED;
/* Type of a CALL expression whose arguments have types `types`. */
floe_status floe_func_call_type(const floe_expr *call, floe_type *const *types,
                                floe_type **out) FLOE_WARN_UNUSED;
/* Evaluate a CALL expression over a batch (rows = batch->num_rows). */
floe_status floe_func_call_eval(const floe_expr *call, const floe_batch *batch,
                                floe_array **out) FLOE_WARN_UNUSED;

/* ----------------------------------------------------- kernel toolkit */

/* Slot of argument `a` used for row i: 0 for a one-slot constant. */
static inline int64_t fn_at(const floe_array *a, int64_t i) { return a->length == 1 ? 0 : i; }
static inline bool fn_null(const floe_array *a, int64_t i) { return floe_array_is_null(a, fn_at(a, i)); }
/* True when the argument is one slot (a constant, or a one-row batch). */
static inline bool fn_const(const floe_array *a) { return a->length == 1; }

/* Type classes; the NULL type (an untyped NULL) belongs to every class. */
bool fn_is_string(const floe_type *t);
bool fn_is_int(const floe_type *t);     /* int32, int64 */
bool fn_is_float(const floe_type *t);   /* float32, float64 */
bool fn_is_numeric(const floe_type *t); /* int, float, decimal */
bool fn_is_datetime(const floe_type *t); /* date, timestamps (any) */

/* FLOE_ERR_TYPE "function f(int32, string) does not exist (expected
 * f(string, int[, int]))". */
floe_status fn_type_error(const floe_func_def *def, floe_type *const *types, int32_t n) FLOE_WARN_UNUSED;
/* The type rule for functions described by def->kinds / def->result. */
floe_status fn_type_simple(const floe_func_def *def, const floe_expr *const *args, floe_type *const *types,
                           int32_t n, floe_type **out) FLOE_WARN_UNUSED;
/* Whether type t fits argument kind letter k (see kinds above). */
bool fn_kind_ok(char k, const floe_type *t);
/* FLOE_ERR_TYPE for an argument that must be a constant. */
floe_status fn_need_const(const floe_func_def *def, int32_t arg, const char *what) FLOE_WARN_UNUSED;

/* Validity of the result of a NULL-propagating function: valid where all
 * args are valid (broadcasting constants).  *out NULL when all valid. */
floe_status fn_validity(floe_array *const *args, int32_t n, int64_t rows, floe_buffer **out) FLOE_WARN_UNUSED;
/* Wrap a values buffer and validity into a fixed-width or bool array;
 * consumes both (also on error). */
floe_status fn_make_fixed(floe_type *type, int64_t rows, floe_buffer *validity, floe_buffer *values,
                          floe_array **out) FLOE_WARN_UNUSED;
/* Integer value of slot i of an int32/int64/date/time/timestamp array. */
static inline int64_t fn_get_i64(const floe_array *a, int64_t i) {
    i = fn_at(a, i);
    switch (a->type->id) {
    case FLOE_TYPE_INT32: case FLOE_TYPE_DATE32: return floe_array_get_int32(a, i);
    case FLOE_TYPE_NULL: return 0;
    default: return floe_array_get_int64(a, i);
    }
}
/* Value of slot i of a numeric array as a double (decimals scaled). */
double fn_get_f64(const floe_array *a, int64_t i);
/* String view of slot i (broadcast-aware). */
static inline floe_strview fn_get_str(const floe_array *a, int64_t i) {
    return floe_array_get_str(a, fn_at(a, i));
}

/* A string column under construction: offsets plus one growing data
 * buffer; the validity is decided up front (fn_validity) and rows may be
 * made NULL later with fn_sw_set_null. */
typedef struct fn_strwriter {
    floe_buffer *offsets; /* rows + 1 int32 */
    floe_buf data;
    floe_buffer *validity; /* NULL: all valid */
    int64_t rows, row;
} fn_strwriter;

floe_status fn_sw_init(fn_strwriter *w, int64_t rows, floe_buffer *validity /* consumed */) FLOE_WARN_UNUSED;
/* Append row `w->row`'s bytes and move to the next row. */
floe_status fn_sw_append(fn_strwriter *w, const void *p, size_t n) FLOE_WARN_UNUSED;
/* Append bytes to the current row without closing it; fn_sw_end_row
 * closes it. */
floe_status fn_sw_add(fn_strwriter *w, const void *p, size_t n) FLOE_WARN_UNUSED;
floe_status fn_sw_end_row(fn_strwriter *w) FLOE_WARN_UNUSED;
/* Make row i null (allocating the validity bitmap if needed). */
floe_status fn_sw_set_null(fn_strwriter *w, int64_t i) FLOE_WARN_UNUSED;
floe_status fn_sw_finish(fn_strwriter *w, floe_type *type, floe_array **out) FLOE_WARN_UNUSED;
/* Reserve as many data bytes as the string array `a` holds (a size hint
 * for results about as long as their input). */
floe_status fn_sw_reserve_like(fn_strwriter *w, const floe_array *a) FLOE_WARN_UNUSED;
void fn_sw_free(fn_strwriter *w);
static inline bool fn_sw_valid(const fn_strwriter *w, int64_t i) {
    return !w->validity || floe_bit_get(w->validity->data, i);
}

/* UTF-8: byte length of the character starting with lead byte c (1 for a
 * stray continuation or invalid byte, so scans always advance). */
static inline int fn_utf8_len(unsigned char c) {
    if (c < 0xC0) return 1; /* ASCII, or a stray continuation byte */
    if (c < 0xE0) return 2;
    if (c < 0xF0) return 3;
    if (c < 0xF8) return 4;
    return 1; /* not a UTF-8 lead byte */
}
/* Number of characters in n bytes. */
int64_t fn_utf8_count(const char *s, int64_t n);
/* Byte offset of the k-th character (0-based; clamped to n). */
int64_t fn_utf8_advance(const char *s, int64_t n, int64_t k);

/* Simple (length-preserving) case mapping of UTF-8 text into `out`
 * (appends).  ASCII, Latin-1, Latin Extended-A, Greek and Cyrillic. */
floe_status fn_utf8_case(const char *s, int64_t n, bool upper, floe_buf *out) FLOE_WARN_UNUSED;

#endif
