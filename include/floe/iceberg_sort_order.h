/*
 * iceberg_sort_order.h — sort orders: how data files are sorted.
 *
 * An order has an id (0 is reserved for "unsorted", which has no fields) and
 * a list of sort fields: a transform of source column(s), a direction and a
 * null order.  Table metadata keeps a list of orders; look one up by order_id.
 */
#ifndef FLOE_ICEBERG_SORT_ORDER_H
#define FLOE_ICEBERG_SORT_ORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/iceberg_schema.h"
#include "floe/iceberg_transform.h"
#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { FLOE_ICE_ASC = 0, FLOE_ICE_DESC } floe_ice_sort_direction;
typedef enum { FLOE_ICE_NULLS_FIRST = 0, FLOE_ICE_NULLS_LAST } floe_ice_null_order;

typedef struct floe_ice_sort_field {
    floe_ice_transform transform;
    int32_t source_id;      /* == source_ids[0] */
    int32_t n_source_ids;   /* 1, or more for v3 multi-argument transforms */
    int32_t *source_ids;    /* owned */
    floe_ice_sort_direction direction;
    floe_ice_null_order null_order;
} floe_ice_sort_field;

typedef struct floe_ice_sort_order {
    int32_t order_id;
    int32_t n_fields;
    floe_ice_sort_field *fields;
} floe_ice_sort_order;

floe_status floe_ice_sort_order_new(int32_t order_id, floe_ice_sort_order **out) FLOE_WARN_UNUSED;
floe_status floe_ice_sort_order_add(floe_ice_sort_order *o, int32_t source_id, floe_ice_transform transform,
                                    floe_ice_sort_direction dir, floe_ice_null_order nulls) FLOE_WARN_UNUSED;
void floe_ice_sort_order_free(floe_ice_sort_order *o);
floe_status floe_ice_sort_order_copy(const floe_ice_sort_order *o, floe_ice_sort_order **out) FLOE_WARN_UNUSED;

static inline bool floe_ice_sort_order_is_unsorted(const floe_ice_sort_order *o) { return o->n_fields == 0; }
/* Same fields (transforms, sources, directions, null orders); ids ignored. */
bool floe_ice_sort_order_same_fields(const floe_ice_sort_order *a, const floe_ice_sort_order *b);

/* Does data sorted by `a` also satisfy order `b`?  True when `b` is
 * unsorted, or each field of `b` matches the field of `a` at the same
 * position (same source, direction and null order, and a's transform
 * satisfies b's).  Used to decide whether a required sort already holds. */
bool floe_ice_sort_order_satisfies(const floe_ice_sort_order *a, const floe_ice_sort_order *b,
                                   const floe_ice_schema *schema);

/* Sources exist, are primitive, and the transforms apply (unknown
 * transforms pass); order 0 must have no fields and others must have some. */
floe_status floe_ice_sort_order_validate(const floe_ice_sort_order *o,
                                         const floe_ice_schema *schema) FLOE_WARN_UNUSED;

const char *floe_ice_sort_direction_name(floe_ice_sort_direction d);  /* "asc" / "desc" */
const char *floe_ice_null_order_name(floe_ice_null_order n);          /* "nulls-first" / "nulls-last" */

/* JSON (Appendix C): {"order-id": 1, "fields": [{"transform", "source-id",
 * "direction", "null-order"}...]}.  Text is floe_malloc'd. */
floe_status floe_ice_sort_order_from_json_text(const char *json, floe_ice_sort_order **out) FLOE_WARN_UNUSED;
floe_status floe_ice_sort_order_to_json_text(const floe_ice_sort_order *o, char **out) FLOE_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
