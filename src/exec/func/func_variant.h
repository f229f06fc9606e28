/*
 * func_variant.h — what the variant functions (func_variant.c) share with
 * their conversions (func_variant_cast.c): the target types variant_get
 * understands and turning one variant value into one value of such a type.
 */
#ifndef FLOE_EXEC_FUNC_VARIANT_H
#define FLOE_EXEC_FUNC_VARIANT_H

#include "base/buffer.h"
#include "floe/columnar.h"
#include "floe/variant.h"

/* The type named by text `s[0..n)` (Spark's and PostgreSQL's spellings and
 * floe's own type names: 'int', 'bigint', 'double', 'decimal(10,2)',
 * 'string', 'text', 'timestamp', 'timestamptz', 'variant' ...).
 * FLOE_ERR_TYPE naming the text for anything else. */
floe_status fv_parse_type(const char *s, size_t n, floe_type **out) FLOE_WARN_UNUSED;

/* Append variant value v (with metadata m) converted to builder b's type
 * (never VARIANT).  *fits is false, and nothing is appended, when the value
 * has no such conversion or does not fit (out of range, unparseable
 * text); a variant null appends a NULL.  `tmp` is scratch text. */
floe_status fv_convert(const floe_variant_meta *m, const floe_variant *v, floe_builder *b, floe_buf *tmp,
                       bool *fits) FLOE_WARN_UNUSED;

/* The text ->> and variant_get(..., 'string') give: a string's contents;
 * for other values their JSON text, without the quotes of a JSON string
 * (dates, times, timestamps, uuids, base64 binary). */
floe_status fv_text(const floe_variant_meta *m, const floe_variant *v, floe_buf *out) FLOE_WARN_UNUSED;

#endif
