/*
 * iceberg_expr.h — Iceberg row filters: predicates over columns, binding
 * them to a schema, projecting them onto partition specs, and the
 * evaluators that decide which manifests and data files can be skipped.
 *
 * An expression is a tree of floe_ice_expr nodes.  Leaves are predicates on
 * one column with zero (is_null ...), one (lt, eq, starts_with ...) or many
 * (in, not_in) literals.  An *unbound* expression names columns ("a",
 * "s.x"); binding it to a schema resolves the names to field ids and
 * converts each literal to the column's type with the spec's rules (as
 * Iceberg Java does: a long beyond an int column's range turns `lt` into
 * always-true and `gt` into always-false, a string literal becomes a date,
 * timestamp, uuid or decimal, a decimal literal must have the column's
 * scale, ...).
 *
 * Semantics of a predicate on one row (two-valued, as in Iceberg Java):
 * a null or NaN value satisfies none of lt, lt_eq, gt, gt_eq, eq, in and
 * starts_with, and therefore satisfies their negations not_eq, not_in and
 * not_starts_with.  Floats compare as IEEE numbers (-0.0 == 0.0).  SQL's
 * three-valued logic (null != 5 is unknown) is the SQL layer's business:
 * it should add `not_null` where it needs it, notably before handing a
 * delete filter to the strict evaluator.  NOT is defined by pushing it to
 * the leaves, as Iceberg does before evaluating: not(x > 5) is x <= 5.
 *
 * Evaluators never report a false negative: the inclusive ones say "might
 * match" unless no row can match; the strict one says "all match" only when
 * every row must match.  They take plain inputs (metrics and partition
 * summaries per field id, partition tuples as value arrays) so they do not
 * depend on the manifest structs.  They expect NOT-free expressions: call
 * floe_ice_expr_rewrite_not() first (projection does it itself).
 *
 * Constructors take ownership of child expressions and copy literals.  They
 * return NULL only when memory runs out (also freeing the children they were
 * given), so a tree can be built in one nested call and checked once.
 * Expressions are immutable after construction and may be shared by threads.
 */
#ifndef FLOE_ICEBERG_EXPR_H
#define FLOE_ICEBERG_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/iceberg_partition_spec.h"
#include "floe/iceberg_schema.h"
#include "floe/iceberg_types.h"
#include "floe/iceberg_value.h"
#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum floe_ice_expr_op {
    FLOE_ICE_EXPR_TRUE = 0,
    FLOE_ICE_EXPR_FALSE,
    FLOE_ICE_EXPR_AND,
    FLOE_ICE_EXPR_OR,
    FLOE_ICE_EXPR_NOT,
    FLOE_ICE_EXPR_IS_NULL,
    FLOE_ICE_EXPR_NOT_NULL,
    FLOE_ICE_EXPR_IS_NAN,
    FLOE_ICE_EXPR_NOT_NAN,
    FLOE_ICE_EXPR_LT,
    FLOE_ICE_EXPR_LT_EQ,
    FLOE_ICE_EXPR_GT,
    FLOE_ICE_EXPR_GT_EQ,
    FLOE_ICE_EXPR_EQ,
    FLOE_ICE_EXPR_NOT_EQ,
    FLOE_ICE_EXPR_STARTS_WITH,
    FLOE_ICE_EXPR_NOT_STARTS_WITH,
    FLOE_ICE_EXPR_IN,
    FLOE_ICE_EXPR_NOT_IN
} floe_ice_expr_op;

typedef struct floe_ice_expr {
    floe_ice_expr_op op;
    struct floe_ice_expr *left;   /* and/or: left; not: the child */
    struct floe_ice_expr *right;  /* and/or: right */
    /* Predicates only: */
    char *name;                   /* the column as written (unbound) or its full
                                   * dotted name in the schema (bound) */
    bool bound;
    int32_t field_id;             /* bound: the field id; else -1 */
    floe_ice_type *field_type;    /* bound: the field's (primitive) type, owned */
    bool in_collection;           /* bound: the field is inside a list or map */
    int32_t n_values;             /* 0, 1, or the in/not_in set size */
    floe_ice_value *values;       /* owned copies; bound sets are sorted, unique */
} floe_ice_expr;

/* ---- construction -------------------------------------------------------- */

floe_ice_expr *floe_ice_expr_true(void);
floe_ice_expr *floe_ice_expr_false(void);
/* These simplify: and(true, x) = x, and(false, x) = false, or(true, x) =
 * true, or(false, x) = x, not(true) = false, not(not(x)) = x. */
floe_ice_expr *floe_ice_expr_and(floe_ice_expr *a, floe_ice_expr *b);
floe_ice_expr *floe_ice_expr_or(floe_ice_expr *a, floe_ice_expr *b);
floe_ice_expr *floe_ice_expr_not(floe_ice_expr *a);
/* is_null, not_null, is_nan, not_nan on a column name. */
floe_ice_expr *floe_ice_expr_unary(floe_ice_expr_op op, const char *column);
/* lt .. not_starts_with with one literal (copied). */
floe_ice_expr *floe_ice_expr_literal(floe_ice_expr_op op, const char *column, const floe_ice_value *value);
/* in / not_in with n literals (copied; duplicates allowed until bound). */
floe_ice_expr *floe_ice_expr_set(floe_ice_expr_op op, const char *column, const floe_ice_value *values,
                                 int32_t n);

void floe_ice_expr_free(floe_ice_expr *e);
floe_ice_expr *floe_ice_expr_copy(const floe_ice_expr *e);

/* ---- inspection ---------------------------------------------------------- */

/* "lt", "not_starts_with", "and", "true", ... */
const char *floe_ice_expr_op_name(floe_ice_expr_op op);
bool floe_ice_expr_op_is_predicate(floe_ice_expr_op op);
/* The op of not(op(x)) for a predicate: lt <-> gt_eq, in <-> not_in, ... */
floe_ice_expr_op floe_ice_expr_op_negate(floe_ice_expr_op op);
/* Structural equality (ops, names, ids, types and literals, in order). */
bool floe_ice_expr_equals(const floe_ice_expr *a, const floe_ice_expr *b);
/* Is every predicate in the tree bound (true for a tree without predicates)? */
bool floe_ice_expr_is_bound(const floe_ice_expr *e);

/* The distinct field ids a bound expression reads, ascending (the columns a
 * scan must fetch to evaluate its residual).  *ids is floe_malloc'd (NULL
 * when *n is 0). */
floe_status floe_ice_expr_field_ids(const floe_ice_expr *bound, int32_t **ids, int32_t *n) FLOE_WARN_UNUSED;

/* ---- binding and rewriting ----------------------------------------------- */

/* Bind `e` to `schema`.  Unknown columns are FLOE_ERR_NOT_FOUND ("unknown
 * column 'x' (did you mean 'y'?)"); predicates on nested (struct, list, map)
 * columns, is_nan on a non-float column, starts_with on a non-string
 * column, null or NaN literals, and literals that do not convert are
 * FLOE_ERR_TYPE naming the column.  is_null on a required column binds to
 * false (not_null to true); single-element sets bind to eq/not_eq; empty
 * sets to false/true.  The result is simplified. */
floe_status floe_ice_expr_bind(const floe_ice_expr *e, const floe_ice_schema *schema, bool case_sensitive,
                               floe_ice_expr **out) FLOE_WARN_UNUSED;

/* Push NOT down to the leaves (not(a and b) = not a or not b, not(lt) =
 * gt_eq, ...) and simplify.  Works on bound and unbound trees. */
floe_status floe_ice_expr_rewrite_not(const floe_ice_expr *e, floe_ice_expr **out) FLOE_WARN_UNUSED;

/* ---- text and JSON ------------------------------------------------------- */

/* Human-readable text: "(a < 5 and s.x starts_with \"ab\")", "not(b is_null)",
 * "c in (1, 2, 3)".  floe_malloc'd. */
floe_status floe_ice_expr_to_string(const floe_ice_expr *e, char **out) FLOE_WARN_UNUSED;

/* JSON in the REST catalog's expression form, extended so that round trips
 * are exact:
 *   true / false
 *   {"type":"and","left":E,"right":E}   {"type":"or",...}   {"type":"not","child":E}
 *   {"type":"is-null","term":"a"}
 *   {"type":"lt","term":"a","value":V,"value-type":"decimal(9,2)"}
 *   {"type":"in","term":"a","values":[V,...],"value-type":"int"}
 * with V the spec's JSON single-value form of the literal ("value-type" is
 * optional on input: without it integers become long (int if they fit),
 * fractions double, strings string).  A bound predicate adds
 * "field-id": N, "field-type": "int" and, if set, "in-collection": true.
 * floe_malloc'd.  Parsing errors are FLOE_ERR_CORRUPT naming the place. */
floe_status floe_ice_expr_to_json_text(const floe_ice_expr *e, char **out) FLOE_WARN_UNUSED;
floe_status floe_ice_expr_from_json_text(const char *json, floe_ice_expr **out) FLOE_WARN_UNUSED;

/* ---- projection onto partitions ------------------------------------------ */

/* Inclusive projection of a bound row filter onto `spec`: a filter on the
 * partition tuple that is true for the partition of every row the row filter
 * accepts.  The result is bound to the partition fields (field_id = the
 * partition field id, field_type = the transform's result type, name = the
 * partition field name).  Predicates that no partition field can express
 * become true; several fields on one source are and-ed.  Time transforms
 * (year/month/day/hour) widen negative values by one unit, as Iceberg Java
 * does, to keep finding files written by writers that rounded pre-epoch
 * values toward zero. */
floe_status floe_ice_expr_project_inclusive(const floe_ice_expr *bound, const floe_ice_partition_spec *spec,
                                            floe_ice_expr **out) FLOE_WARN_UNUSED;
/* Strict projection: a partition filter that, when true for a partition,
 * guarantees the row filter accepts every row in it.  Inexpressible
 * predicates become false; several fields on one source are or-ed. */
floe_status floe_ice_expr_project_strict(const floe_ice_expr *bound, const floe_ice_partition_spec *spec,
                                         floe_ice_expr **out) FLOE_WARN_UNUSED;

/* ---- evaluators ---------------------------------------------------------- */

/* One row, or a partition tuple: values by field id.  A field the row does
 * not have reads as null.  Values must have the bound field's type. */
typedef struct floe_ice_row {
    int32_t n;
    const int32_t *field_ids;
    const floe_ice_value *values;
} floe_ice_row;

/* Evaluate a bound expression on one row.  NOT is allowed and means what
 * it means after floe_ice_expr_rewrite_not (not(x > 5) is x <= 5: false
 * for a null x), so all evaluators agree on every row. */
bool floe_ice_expr_eval_row(const floe_ice_expr *bound, const floe_ice_row *row);

/* Evaluate an inclusive projection (floe_ice_expr_project_inclusive) on
 * one partition tuple, values in `spec` field order: false means no row of
 * that partition can match the row filter.  (With a strict projection,
 * true means every row of the partition matches.) */
bool floe_ice_partition_might_match(const floe_ice_expr *projected, const floe_ice_partition_spec *spec,
                                    const floe_ice_value *partition);

/* Column metrics of one data file, as written in its manifest entry.
 * Counts are -1 when unknown; bounds are Appendix D bytes or NULL when
 * absent.  Upper bounds of strings and binaries may be truncated (and then
 * incremented), lower bounds truncated. */
typedef struct floe_ice_field_metrics {
    int32_t field_id;
    int64_t value_count;
    int64_t null_count;
    int64_t nan_count;
    const uint8_t *lower;
    size_t lower_len;
    const uint8_t *upper;
    size_t upper_len;
} floe_ice_field_metrics;

typedef struct floe_ice_file_metrics {
    int64_t record_count;         /* -1 if unknown */
    int32_t n_fields;
    const floe_ice_field_metrics *fields;  /* any order; missing = unknown */
} floe_ice_file_metrics;

/* May any row of the file match?  (Missing metrics: yes.)  Bound bytes that
 * do not decode are FLOE_ERR_CORRUPT naming the field id. */
floe_status floe_ice_metrics_might_match(const floe_ice_expr *bound, const floe_ice_file_metrics *m,
                                         bool *might_match) FLOE_WARN_UNUSED;
/* Must every row of the file match? */
floe_status floe_ice_metrics_all_match(const floe_ice_expr *bound, const floe_ice_file_metrics *m,
                                       bool *all_match) FLOE_WARN_UNUSED;

/* A manifest list entry's summary of one partition field. */
typedef struct floe_ice_partition_summary {
    int32_t field_id;             /* the partition field id */
    bool contains_null;
    int8_t contains_nan;          /* 1, 0, or -1 when not written (v1) */
    const uint8_t *lower;         /* NULL: no non-null, non-NaN values */
    size_t lower_len;
    const uint8_t *upper;
    size_t upper_len;
} floe_ice_partition_summary;

/* May any partition in the manifest satisfy `projected` (an inclusive
 * projection, bound to partition fields)?  A partition field without a
 * summary might match. */
floe_status floe_ice_manifest_might_match(const floe_ice_expr *projected, const floe_ice_partition_summary *summaries,
                                          int32_t n_summaries, bool *might_match) FLOE_WARN_UNUSED;

/* The part of bound row filter `bound` still to be checked on the rows of
 * a file whose partition tuple under `spec` is `partition` (values in spec
 * field order, `n_partition` == spec->n_fields).  Predicates decided by the
 * partition (through strict and inclusive projection, as Iceberg Java's
 * ResidualEvaluator) become true or false; the result is simplified. */
floe_status floe_ice_expr_residual(const floe_ice_expr *bound, const floe_ice_partition_spec *spec,
                                   const floe_ice_value *partition, int32_t n_partition,
                                   floe_ice_expr **out) FLOE_WARN_UNUSED;

/* ---- adapters for the manifest structs (iceberg_manifest.h) ------------- */

struct floe_ice_data_file;
struct floe_ice_manifest_file;

/* floe_ice_metrics_might_match / _all_match on a data_file's metric maps. */
floe_status floe_ice_data_file_might_match(const floe_ice_expr *bound, const struct floe_ice_data_file *f,
                                           bool *might_match) FLOE_WARN_UNUSED;
floe_status floe_ice_data_file_all_match(const floe_ice_expr *bound, const struct floe_ice_data_file *f,
                                         bool *all_match) FLOE_WARN_UNUSED;
/* An inclusive projection on the data_file's partition tuple. */
bool floe_ice_data_file_partition_might_match(const floe_ice_expr *projected, const struct floe_ice_data_file *f);
/* floe_ice_manifest_might_match on a manifest list entry whose partition
 * summaries follow `spec`'s fields (the entry's partition_spec_id).  No
 * summaries: might match; a count differing from the spec: FLOE_ERR_CORRUPT. */
floe_status floe_ice_manifest_file_might_match(const floe_ice_expr *projected, const floe_ice_partition_spec *spec,
                                               const struct floe_ice_manifest_file *mf,
                                               bool *might_match) FLOE_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
