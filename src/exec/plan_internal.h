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

/* child_read for nodes whose partition i reads partition i of each child. */
floe_child_read floe_exec_child_read_local(const floe_plan *p, int32_t child, floe_distribution *route);

/* The state node `p` shares in ctx's execution (vt->init_shared makes it
 * on first use, once; concurrent callers wait for it).  Fails when the
 * node's type has no init_shared, or with init_shared's error (which
 * every later caller in that execution gets too). */
floe_status floe_exec_shared(const floe_plan *p, const floe_exec_ctx *ctx, void **state) FLOE_WARN_UNUSED;

/* A cancellation token owned by ctx's execution, whose parent is
 * `parent` (NULL: ctx->cancel).  It lives until the execution ends, so
 * work that reads it — a producer still queued on the pool, an inner
 * exchange's token whose parent it is — can never see it freed. */
floe_status floe_exec_token(const floe_exec_ctx *ctx, const struct floe_cancel *parent,
                            struct floe_cancel **out) FLOE_WARN_UNUSED;

/* Read `child` to its end into one batch (*out; NULL when it gave no
 * rows), checking `cancel` between batches: what a blocking node that needs
 * its whole partition at once (Sort, Window) starts with.  `node` names the
 * node in errors; a partition over UINT32_MAX rows is an error (row
 * indexes are 32-bit).  The child is not closed. */
floe_status floe_exec_drain_concat(floe_stream *child, const struct floe_cancel *cancel, const char *node,
                                   floe_batch **out) FLOE_WARN_UNUSED;

/* Rows an execution holds for nodes that read them by key: the working
 * table of a RecursiveUnion's iteration, a materialized CTE's result
 * (src/exec/basic/recursive.c, cte.c).  Batches are borrowed from whoever
 * put them, who keeps them until the execution ends. */
typedef struct floe_exec_rows {
    floe_batch **batches;
    int32_t n;
} floe_exec_rows;
floe_status floe_execution_put_rows(floe_execution *x, int64_t key, const floe_exec_rows *rows) FLOE_WARN_UNUSED;
/* The rows under `key` in ctx's execution or, failing that, its parents'
 * (NULL: none). */
const floe_exec_rows *floe_exec_rows_get(const floe_exec_ctx *ctx, int64_t key);
/* Lookups in x that find nothing continue in `parent` (which outlives x). */
void floe_execution_set_parent(floe_execution *x, const floe_execution *parent);

/* Every node type of the engine, NULL-terminated (node_types.c):
 * the codec finds them by name in any process, whether or not this process
 * has built such a node. */
extern const floe_plan_vtable *const floe_exec_node_types[];

#endif
