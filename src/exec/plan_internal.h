/*
 * plan_internal.h — what node types in other files of src/exec (and the
 * layers above that define nodes) need to build a node head.  Not public:
 * an embedding program builds nodes only through their constructors.
 */
#ifndef FLOE_EXEC_PLAN_INTERNAL_H
#define FLOE_EXEC_PLAN_INTERNAL_H

#include "floe/exec.h"

/* Fill the common head of a freshly floe_calloc'd node; retains `schema`
 * and every child.  On failure the caller frees the node with
 * floe_plan_release (the head is always in a releasable state). */
floe_status floe_exec_plan_init(floe_plan *p, const floe_plan_vtable *vt, floe_schema *schema,
                                int32_t n_partitions, floe_plan *const *children,
                                int32_t n_children) FLOE_WARN_UNUSED;

/* Declare the node's output ordering (copies the keys, retaining their
 * expressions; replaces any earlier ordering).  Call from constructors
 * only: a built node is immutable. */
floe_status floe_exec_plan_set_ordering(floe_plan *p, const floe_sort_key *keys,
                                        int32_t n) FLOE_WARN_UNUSED;

/* One EXPLAIN line of a node (no indentation): "Filter: predicate=(#0 > 1),
 * partitions=2\n". */
floe_status floe_exec_explain_line(const floe_plan *p, struct floe_buf *out) FLOE_WARN_UNUSED;

/* Every node type defined outside plan.c, NULL-terminated (node_types.c):
 * the codec finds them by name in any process, whether or not this process
 * has built such a node. */
extern const floe_plan_vtable *const floe_exec_node_types[];

#endif
