/*
 * json_text.h — JSON text as PostgreSQL's json and jsonb types hold it.
 *
 * floe keeps json and jsonb values in string columns (in Iceberg too):
 * json as the text it was given (validated when cast), jsonb as
 * PostgreSQL prints it (normalized when cast: `{"a": 1, "b": [1, 2]}`,
 * keys sorted by length then bytes, the last of duplicate keys kept,
 * numbers as numeric prints them, strings re-escaped).  The operators
 * work on the text: a sub-value of a normalized text is normalized, so ->
 * returns the same text PostgreSQL prints for both types.
 *
 * The scanner here validates and walks JSON text (RFC 8259 as PostgreSQL
 * accepts it); func_json.c builds the SQL functions on it.
 */
#ifndef FLOE_EXEC_JSON_TEXT_H
#define FLOE_EXEC_JSON_TEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buffer.h"
#include "floe/columnar.h"
#include "floe/memory.h"
#include "floe/status.h"

/* A value's kind, from its first byte. */
typedef enum { JT_OBJECT, JT_ARRAY, JT_STRING, JT_NUMBER, JT_TRUE, JT_FALSE, JT_NULL } jt_kind;

/* A value inside a text: bytes [start, end) (no surrounding blanks). */
typedef struct jt_span {
    int64_t start, end;
} jt_span;

/* Check that s[0..n) is one JSON value (blanks around allowed); on error
 * FLOE_ERR_INVALID_ARGUMENT "invalid input syntax for type json: ...".
 * *out gets the value's span. */
floe_status jt_validate(const char *s, int64_t n, jt_span *out) FLOE_WARN_UNUSED;

jt_kind jt_kind_of(const char *s, jt_span v);

/* Member `key` of object v (the last of duplicates); *found false when v
 * is not an object or has no such key. */
floe_status jt_field(const char *s, jt_span v, const char *key, int64_t klen, jt_span *out,
                     bool *found) FLOE_WARN_UNUSED;
/* Element `idx` of array v (negative: from the end). */
floe_status jt_index(const char *s, jt_span v, int64_t idx, jt_span *out, bool *found) FLOE_WARN_UNUSED;
/* Number of elements of array v (-1 when not an array). */
floe_status jt_array_length(const char *s, jt_span v, int64_t *out) FLOE_WARN_UNUSED;

/* Walk the members / elements of validated container v: cb gets each
 * key span (objects; {0, 0} for arrays) and value span, and stops the
 * walk by returning true. */
typedef bool (*jt_each_fn)(void *ctx, const char *s, jt_span key, jt_span val);
floe_status jt_each(const char *s, jt_span v, jt_each_fn cb, void *ctx) FLOE_WARN_UNUSED;

/* Append the text of a JSON string value (unescaped) to out. */
floe_status jt_unescape(const char *s, jt_span v, floe_buf *out) FLOE_WARN_UNUSED;
/* Append bytes as a JSON string literal, escaped as PostgreSQL does. */
floe_status jt_escape(const char *p, int64_t n, floe_buf *out) FLOE_WARN_UNUSED;
/* Append the jsonb (normalized) text of value v. */
floe_status jt_normalize(const char *s, jt_span v, floe_buf *out) FLOE_WARN_UNUSED;

/* Append the JSON text of slot i of any SQL value, by its SQL type
 * (to_json, json_build_*, json_agg): NULL is null, strings are quoted,
 * numbers and booleans as they are, dates and timestamps as ISO 8601
 * strings.  tmp is scratch.  (In func_json.c.) */
floe_status jt_value_json(const floe_array *a, int64_t i, floe_buf *out, floe_buf *tmp) FLOE_WARN_UNUSED;

/* A PostgreSQL text[] literal ('{a,"b c",0}') as a list of elements,
 * unescaped into `store`; (start, length) int64 pairs into `idx`.  (In
 * func_json.c.) */
floe_status jt_parse_text_array(floe_strview t, floe_buf *store, floe_buf *idx, int64_t *count) FLOE_WARN_UNUSED;
/* Slot i of a text[] argument — a text[] literal or a list of strings —
 * as jt_parse_text_array gives it (a NULL element: length -1).  (In
 * func_jsonb_ops.c.) */
floe_status jt_text_array_at(const floe_array *a, int64_t i, floe_buf *store, floe_buf *idx,
                             int64_t *count) FLOE_WARN_UNUSED;

#endif
