/*
 * stages.c — splitting a physical plan into stages at its exchanges, and
 * the MpiExchangeSource leaf that stands for an exchange inside a stage.
 *
 * A stage is a subtree whose partitions can run independently: partition
 * i of every node in it reads only partition i (or a fixed mapping, as
 * Union) of its children.  The nodes that read ALL partitions of a child
 * are the cut points:
 *
 *   Repartition(child)           child becomes a stage routed HASH (or
 *                                ROUND_ROBIN) into the Repartition's
 *                                partitions; the node becomes a source;
 *   CoalescePartitions(child)    child becomes a stage GATHERed into one
 *                                partition; the node becomes a source;
 *   SortPreservingMerge(child)   child becomes a stage whose task i feeds
 *                                source partition i (IDENTITY), so the
 *                                merge still sees sorted runs;
 *   HashJoin COLLECT_LEFT,       the build (left) child becomes a stage
 *   NestedLoopJoin               GATHERed into one partition that every
 *                                probe task reads whole (a broadcast).
 *
 * A node is rebuilt over its new children through its own codec functions
 * (encode_parts, then decode_parts with the new children): the constructor
 * from parts is the one way nodes are made, so the split needs no code per
 * node type.  A node type not known to be partition-local makes the split
 * fail with FLOE_ERR_UNSUPPORTED, and the caller runs the plan locally —
 * never a silently wrong distributed plan.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist_internal.h"
#include "exec/plan_internal.h"
#include "floe/exec_ops.h"
#include "floe/memory.h"

/* ------------------------------------------------------ exchange source */

typedef struct xsrc_plan {
    floe_plan head;
    int32_t exchange;
} xsrc_plan;

/* Per execution: the data bound to each partition before the task runs
 * (a task runs one partition, so a binding is only ever read by the
 * stream that thread opens later), and the bytes its streams decoded. */
typedef struct xsrc_state {
    int32_t n;
    dist_part_data **bound; /* per partition, NULL until bound */
    dist_inbox **inbox;     /* or streamed: per partition, NULL unless bound */
    _Atomic int64_t bytes_in;
} xsrc_state;

static const floe_plan_vtable xsrc_vt;

static void xsrc_free_shared(void *state) {
    xsrc_state *x = state;
    for (int32_t i = 0; x->bound && i < x->n; i++) dist_part_data_release(x->bound[i]);
    for (int32_t i = 0; x->inbox && i < x->n; i++) dist_inbox_release(x->inbox[i]);
    floe_free(x->bound);
    floe_free(x->inbox);
    floe_free(x);
}

static floe_status xsrc_init_shared(const floe_plan *p, const floe_exec_ctx *ctx, void **state) {
    (void)ctx;
    xsrc_state *x = floe_calloc(1, sizeof *x);
    if (x) {
        x->n = p->n_partitions;
        x->bound = floe_calloc((size_t)x->n, sizeof *x->bound);
        x->inbox = floe_calloc((size_t)x->n, sizeof *x->inbox);
        atomic_init(&x->bytes_in, 0);
    }
    if (!x || !x->bound || !x->inbox) {
        if (x) xsrc_free_shared(x);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "MpiExchangeSource: out of memory");
    }
    *state = x;
    return NULL;
}

static floe_status xsrc_execute(const floe_plan *p_, int32_t partition, const floe_exec_ctx *ctx,
                                floe_stream **out) {
    const xsrc_plan *p = (const xsrc_plan *)p_;
    *out = NULL;
    if (partition < 0 || partition >= p->head.n_partitions)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "MpiExchangeSource %d: no partition %d", p->exchange, partition);
    void *state;
    FLOE_TRY(floe_exec_shared(p_, ctx, &state));
    xsrc_state *x = state;
    if (x->inbox[partition]) return dist_inbox_stream(x->inbox[partition], ctx->cancel, &x->bytes_in, out);
    if (!x->bound[partition])
        return floe_error(FLOE_ERR_INTERNAL,
                          "MpiExchangeSource %d: partition %d has no data bound (only the distributed runtime "
                          "runs this node)", p->exchange, partition);
    return dist_part_stream(x->bound[partition], ctx->cancel, &x->bytes_in, out);
}

static floe_status xsrc_encode(const floe_plan *p_, floe_buf *out) {
    const xsrc_plan *p = (const xsrc_plan *)p_;
    FLOE_TRY(floe_codec_put_i64(out, p->exchange));
    FLOE_TRY(floe_codec_put_i64(out, p->head.n_partitions));
    return floe_codec_put_type(out, p->head.schema);
}

static floe_status xsrc_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    (void)children;
    if (n_children != 0) return floe_error(FLOE_ERR_CORRUPT, "MpiExchangeSource: %d children", n_children);
    int64_t id = 0, np = 0;
    floe_type *schema = NULL;
    FLOE_TRY(floe_codec_get_i64(r, &id));
    FLOE_TRY(floe_codec_get_i64(r, &np));
    if (id < 0 || id > INT32_MAX || np < 1 || np > INT32_MAX)
        return floe_error(FLOE_ERR_CORRUPT, "MpiExchangeSource: exchange %lld with %lld partitions is impossible",
                          (long long)id, (long long)np);
    FLOE_TRY(floe_codec_get_type(r, &schema));
    floe_status st = dist_exchange_source(schema, (int32_t)id, (int32_t)np, out);
    floe_type_release(schema);
    return st;
}

static floe_status xsrc_explain(const floe_plan *p_, floe_buf *out) {
    const xsrc_plan *p = (const xsrc_plan *)p_;
    return floe_buf_printf(out, "exchange=%d", p->exchange);
}

static const floe_plan_vtable xsrc_vt = {
    .name = "MpiExchangeSource",
    .execute = xsrc_execute,
    .encode_parts = xsrc_encode,
    .decode_parts = xsrc_decode,
    .explain_parts = xsrc_explain,
    .init_shared = xsrc_init_shared,
    .free_shared = xsrc_free_shared,
};

floe_status floe_dist_register_nodes(void) {
    return floe_plan_register(&xsrc_vt);
}

floe_status dist_exchange_source(floe_schema *schema, int32_t exchange, int32_t n_partitions, floe_plan **out) {
    *out = NULL;
    FLOE_TRY(floe_dist_register_nodes());
    if (!schema || schema->id != FLOE_TYPE_STRUCT || n_partitions < 1 || exchange < 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "MpiExchangeSource: bad parts");
    xsrc_plan *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "MpiExchangeSource: out of memory");
    p->exchange = exchange;
    floe_status st = floe_exec_plan_init(&p->head, &xsrc_vt, schema, n_partitions, NULL, 0);
    if (st) {
        floe_plan_release(&p->head);
        return st;
    }
    *out = &p->head;
    return NULL;
}

int64_t dist_exchange_source_bytes_in(const floe_exec_ctx *ctx, const floe_plan *p) {
    void *state;
    floe_status st = floe_exec_shared(p, ctx, &state);
    if (st) {
        floe_status_free(st);
        return 0;
    }
    return atomic_load(&((xsrc_state *)state)->bytes_in);
}

bool dist_is_exchange_source(const floe_plan *p) {
    return p && p->vt == &xsrc_vt;
}

int32_t dist_exchange_source_id(const floe_plan *p) {
    return ((const xsrc_plan *)p)->exchange;
}

static floe_status bind_state(const floe_exec_ctx *ctx, const floe_plan *p, int32_t partition, xsrc_state **out) {
    if (!dist_is_exchange_source(p) || partition < 0 || partition >= p->n_partitions)
        return floe_error(FLOE_ERR_INTERNAL, "binding exchange data to partition %d of %s", partition, p->vt->name);
    void *state;
    FLOE_TRY(floe_exec_shared(p, ctx, &state));
    *out = state;
    return NULL;
}

floe_status dist_exchange_source_bind(const floe_exec_ctx *ctx, const floe_plan *p, int32_t partition,
                                      dist_part_data *d) {
    xsrc_state *x;
    FLOE_TRY(bind_state(ctx, p, partition, &x));
    dist_part_data_release(x->bound[partition]);
    x->bound[partition] = dist_part_data_retain(d);
    return NULL;
}

floe_status dist_exchange_source_bind_inbox(const floe_exec_ctx *ctx, const floe_plan *p, int32_t partition,
                                            dist_inbox *in) {
    xsrc_state *x;
    FLOE_TRY(bind_state(ctx, p, partition, &x));
    dist_inbox_release(x->inbox[partition]);
    x->inbox[partition] = dist_inbox_retain(in);
    return NULL;
}

/* ------------------------------------------------------------- reads */

static floe_status reads_all(const floe_plan *child, dist_read_visit visit, void *arg);

/* What partition `partition` of `p` reads follows each node's child_read
 * (floe_plan_vtable): a local child the same partition, a mapped one the
 * partition map_partition names, anything else every partition. */
floe_status dist_plan_reads(const floe_plan *p, int32_t partition, dist_read_visit visit, void *arg) {
    if (dist_is_exchange_source(p)) return visit(arg, p, partition);
    for (int32_t c = 0; c < p->n_children; c++) {
        switch (floe_plan_child_read(p, c, NULL)) {
        case FLOE_READ_LOCAL: FLOE_TRY(dist_plan_reads(p->children[c], partition, visit, arg)); break;
        case FLOE_READ_MAPPED: {
            int32_t mc, mp;
            floe_plan_map_partition(p, partition, &mc, &mp);
            if (mc == c) FLOE_TRY(dist_plan_reads(p->children[c], mp, visit, arg));
            break;
        }
        default: FLOE_TRY(reads_all(p->children[c], visit, arg)); break;
        }
    }
    return NULL;
}

static floe_status reads_all(const floe_plan *child, dist_read_visit visit, void *arg) {
    for (int32_t k = 0; k < child->n_partitions; k++) FLOE_TRY(dist_plan_reads(child, k, visit, arg));
    return NULL;
}

/* ------------------------------------------------------------- split */

typedef struct splitter {
    dist_stages *s;
} splitter;

static void stage_clear(dist_stage *st) {
    floe_plan_release(st->plan);
    dist_route_clear(&st->route);
    floe_free(st->deps);
}

void dist_stages_free(dist_stages *s) {
    if (!s) return;
    for (int32_t i = 0; i < s->n; i++) stage_clear(&s->stages[i]);
    floe_free(s->stages);
    floe_free(s);
}

static floe_status collect_deps(void *arg, const floe_plan *source, int32_t part) {
    (void)part;
    dist_stage *st = arg;
    int32_t id = dist_exchange_source_id(source);
    for (int32_t i = 0; i < st->n_deps; i++)
        if (st->deps[i] == id) return NULL;
    int32_t *nd = floe_realloc(st->deps, (size_t)(st->n_deps + 1) * sizeof *nd);
    if (!nd) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "splitting stages");
    st->deps = nd;
    st->deps[st->n_deps++] = id;
    return NULL;
}

/* Add a stage over `plan` (reference taken over) fed to its consumers by
 * `route` (moved). */
static floe_status add_stage(splitter *sp, floe_plan *plan, dist_route *route, bool broadcast, int32_t *id) {
    dist_stages *s = sp->s;
    dist_stage *ns = floe_realloc(s->stages, (size_t)(s->n + 1) * sizeof *ns);
    if (!ns) {
        floe_plan_release(plan);
        dist_route_clear(route);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "splitting stages");
    }
    s->stages = ns;
    dist_stage *st = &s->stages[s->n];
    memset(st, 0, sizeof *st);
    st->id = s->n++;
    st->plan = plan;
    st->route = *route;
    memset(route, 0, sizeof *route);
    st->broadcast = broadcast;
    *id = st->id;
    for (int32_t k = 0; k < plan->n_partitions; k++) FLOE_TRY(dist_plan_reads(plan, k, collect_deps, st));
    return NULL;
}

/* `p` rebuilt over `children` (borrowed) through its codec functions. */
static floe_status rebuild(const floe_plan *p, floe_plan *const *children, floe_plan **out) {
    *out = NULL;
    floe_buf parts = FLOE_BUF_INIT;
    floe_status st = p->vt->encode_parts ? p->vt->encode_parts(p, &parts)
                                         : floe_error(FLOE_ERR_UNSUPPORTED, "%s has no codec", p->vt->name);
    if (!st) {
        floe_reader r = {parts.data, parts.len, 0};
        st = p->vt->decode_parts(&r, children, p->n_children, out);
    }
    floe_buf_free(&parts);
    return st ? floe_status_wrap(st, "rebuilding %s for a stage", p->vt->name) : NULL;
}

static floe_status cut(splitter *sp, const floe_plan *p, floe_plan **out);

/* Child `c` becomes a stage routed by `route`; *out = a source over it. */
static floe_status cut_to_stage(splitter *sp, const floe_plan *child, dist_route *route, bool broadcast,
                                int32_t n_out, floe_plan **out) {
    floe_plan *sub = NULL;
    floe_status st = cut(sp, child, &sub);
    if (st) {
        dist_route_clear(route);
        return st;
    }
    int32_t id;
    FLOE_TRY(add_stage(sp, sub, route, broadcast, &id));
    return dist_exchange_source(child->schema, id, n_out, out);
}

/* The route of an exchange node's stage, from the node's child_read. */
static floe_status exchange_route(const floe_plan *p, const floe_distribution *d, dist_route *route) {
    switch (d->kind) {
    case FLOE_DIST_SINGLE:
        route->kind = DIST_ROUTE_GATHER;
        route->n_out = 1;
        return NULL;
    case FLOE_DIST_UNSPECIFIED:
        route->kind = DIST_ROUTE_ROUND_ROBIN;
        route->n_out = p->n_partitions;
        return NULL;
    case FLOE_DIST_HASH: break;
    }
    route->kind = DIST_ROUTE_HASH;
    route->n_out = p->n_partitions;
    if (d->n_exprs > 0) {
        route->keys = floe_calloc((size_t)d->n_exprs, sizeof *route->keys);
        if (!route->keys) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "splitting stages");
        for (int32_t k = 0; k < d->n_exprs; k++) route->keys[k] = floe_expr_retain(d->exprs[k]);
        route->n_keys = d->n_exprs;
    }
    return NULL;
}

/* A node that reads all of its only child as an exchange (Repartition,
 * CoalescePartitions) becomes a source over a stage routed like it; a
 * child read as separate runs (SortPreservingMerge) becomes a stage whose
 * task i feeds source partition i; one read whole by every partition (a
 * collected build side) becomes a gathered stage every task reads (a
 * broadcast); a local or mapped child is cut further.  Anything else — a
 * node that does not say how it reads a child, or whose partitions share
 * what they read — is not split. */
static floe_status cut(splitter *sp, const floe_plan *p, floe_plan **out) {
    *out = NULL;
    if (p->n_children == 0) {
        *out = floe_plan_retain((floe_plan *)p);
        return NULL;
    }
    dist_route route;
    memset(&route, 0, sizeof route);
    floe_distribution d;
    if (p->n_children == 1 && floe_plan_child_read(p, 0, &d) == FLOE_READ_EXCHANGE) {
        floe_status st = exchange_route(p, &d, &route);
        if (st) {
            dist_route_clear(&route);
            return st;
        }
        return cut_to_stage(sp, p->children[0], &route, false, route.n_out, out);
    }
    floe_plan **kids = floe_calloc((size_t)p->n_children, sizeof *kids);
    if (!kids) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "splitting stages");
    floe_status st = NULL;
    for (int32_t c = 0; c < p->n_children && !st; c++) {
        const floe_plan *child = p->children[c];
        memset(&route, 0, sizeof route);
        switch (floe_plan_child_read(p, c, NULL)) {
        case FLOE_READ_LOCAL:
        case FLOE_READ_MAPPED: st = cut(sp, child, &kids[c]); break;
        case FLOE_READ_EACH:
            route.kind = DIST_ROUTE_IDENTITY;
            route.n_out = child->n_partitions;
            st = cut_to_stage(sp, child, &route, false, route.n_out, &kids[c]);
            break;
        case FLOE_READ_BROADCAST:
            route.kind = DIST_ROUTE_GATHER;
            route.n_out = 1;
            st = cut_to_stage(sp, child, &route, true, 1, &kids[c]);
            break;
        case FLOE_READ_SHARED:
            st = floe_error(FLOE_ERR_UNSUPPORTED,
                            "%s: its partitions share what they read of input %d (unmatched build rows), so it "
                            "is not distributed yet", p->vt->name, c);
            break;
        default: st = floe_error(FLOE_ERR_UNSUPPORTED, "node %s is not distributed yet", p->vt->name); break;
        }
    }
    if (!st) st = rebuild(p, kids, out);
    for (int32_t c = 0; c < p->n_children; c++) floe_plan_release(kids[c]);
    floe_free(kids);
    return st;
}

/* Does the subtree have a leaf other than an exchange source? */
static bool reads_storage(const floe_plan *p) {
    if (p->n_children == 0) return !dist_is_exchange_source(p);
    for (int32_t c = 0; c < p->n_children; c++)
        if (reads_storage(p->children[c])) return true;
    return false;
}

floe_status dist_split_stages(const floe_plan *plan, dist_stages **out) {
    *out = NULL;
    if (floe_plan_partitions(plan) != 1)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "a distributed plan must have one output partition, not %d",
                          floe_plan_partitions(plan));
    splitter sp = {floe_calloc(1, sizeof(dist_stages))};
    if (!sp.s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "splitting stages");
    floe_plan *root = NULL;
    floe_status st = cut(&sp, plan, &root);
    if (!st && reads_storage(root)) {
        /* Rank 0 coordinates: a last stage that would scan runs on a
         * worker instead, gathered to rank 0. */
        dist_route gather;
        memset(&gather, 0, sizeof gather);
        gather.kind = DIST_ROUTE_GATHER;
        gather.n_out = 1;
        int32_t id;
        floe_schema *schema = floe_type_retain(root->schema);
        st = add_stage(&sp, root, &gather, false, &id);
        root = NULL;
        if (!st) st = dist_exchange_source(schema, id, 1, &root);
        floe_type_release(schema);
    }
    if (!st) {
        dist_route none;
        memset(&none, 0, sizeof none);
        none.kind = DIST_ROUTE_GATHER;
        none.n_out = 1;
        int32_t id;
        st = add_stage(&sp, root, &none, false, &id);
    }
    /* The commit of a write runs once, on rank 0: it must be in the last
     * stage (IcebergWrite tasks run anywhere, IcebergCommit reads them all). */
    for (int32_t i = 0; !st && i + 1 < sp.s->n; i++)
        if (floe_plan_tree_has_flag(sp.s->stages[i].plan, FLOE_NODE_COMMITS))
            st = floe_error(FLOE_ERR_UNSUPPORTED, "a commit below an exchange is not distributed");
    if (st) {
        dist_stages_free(sp.s);
        return st;
    }
    *out = sp.s;
    return NULL;
}

void dist_route_clear(dist_route *r) {
    for (int32_t k = 0; k < r->n_keys; k++) floe_expr_release(r->keys[k]);
    floe_free(r->keys);
    memset(r, 0, sizeof *r);
}

const char *dist_route_name(dist_route_kind k) {
    switch (k) {
    case DIST_ROUTE_GATHER: return "gather";
    case DIST_ROUTE_HASH: return "hash";
    case DIST_ROUTE_ROUND_ROBIN: return "round-robin";
    default: return "identity";
    }
}

floe_status floe_dist_explain_stages(const floe_plan *plan, floe_buf *out) {
    dist_stages *s = NULL;
    FLOE_TRY(dist_split_stages(plan, &s));
    floe_status st = NULL;
    for (int32_t i = 0; i < s->n && !st; i++) {
        const dist_stage *g = &s->stages[i];
        bool root = i == s->n - 1;
        st = floe_buf_printf(out, "Stage %d: %d task%s", g->id, g->plan->n_partitions,
                             g->plan->n_partitions == 1 ? "" : "s");
        if (!st && root) st = floe_buf_append_str(out, " on rank 0 (result)\n");
        if (!st && !root)
            st = floe_buf_printf(out, " on workers, %s%s into %d partition%s of exchange %d\n",
                                 g->broadcast ? "broadcast " : "", dist_route_name(g->route.kind), g->route.n_out,
                                 g->route.n_out == 1 ? "" : "s", g->id);
        floe_buf sub = FLOE_BUF_INIT;
        if (!st) st = floe_plan_explain(g->plan, &sub);
        /* indent the stage's plan by two spaces */
        for (const char *l = floe_buf_cstr(&sub); !st && l && *l;) {
            const char *nl = strchr(l, '\n');
            size_t n = nl ? (size_t)(nl - l) : strlen(l);
            st = floe_buf_append_str(out, "  ");
            if (!st) st = floe_buf_append(out, l, n);
            if (!st) st = floe_buf_append_byte(out, '\n');
            l = nl ? nl + 1 : NULL;
        }
        floe_buf_free(&sub);
    }
    dist_stages_free(s);
    return st;
}
