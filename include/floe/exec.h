/*
 * exec.h — floe's physical execution layer: scalar expressions, plan nodes,
 * streams of record batches, the plan codec and a small local runtime.
 *
 * Plan nodes follow DataFusion's ExecutionPlan and PostgreSQL's node
 * functions (docs/ARCHITECTURE.md, exec).  A node is immutable and reference-counted.  It
 * is made by a constructor from its PARTS alone (children, expressions,
 * batches, limits ...), and those parts are readable through accessors; the
 * plan codec writes exactly those parts and decoding calls the same
 * constructor, so derived state (inferred types, output schema) is rebuilt,
 * never shipped.  Executing a node gives one stream per output partition.
 * A node is never written after its constructor returns: what one run of
 * a plan creates (a Repartition's exchange, a join's build side) lives in
 * that run's floe_execution, so one plan may run in several executions at
 * once, on any threads.
 *
 * Streams: next() gives one batch (caller owns a reference) or *out = NULL
 * at the end.  A stream never ends early as if it were empty: when a child
 * fails or the query is cancelled, next() returns the error
 * (FLOE_ERR_CANCELLED for cancellation).  close() frees the stream (any
 * time, also before the end).
 *
 * Expressions are untyped trees over column indices; their types are
 * inferred against an input schema (floe_expr_type) and checked when a node
 * is constructed.  Evaluation is per batch, producing a whole array.
 */
#ifndef FLOE_EXEC_H
#define FLOE_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/columnar.h"
#include "floe/memory.h"
#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct floe_threadpool; /* src/base/threadpool.h */
struct floe_cancel;

/* ------------------------------------------------------------ expressions */

typedef enum floe_expr_kind {
    FLOE_EXPR_COLUMN = 0,  /* input column by index                        */
    FLOE_EXPR_LITERAL,     /* a typed value: a one-slot array (may be null) */
    FLOE_EXPR_CMP,         /* op: floe_cmp_op, 2 args                       */
    FLOE_EXPR_AND,         /* 2 args, SQL three-valued                      */
    FLOE_EXPR_OR,          /* 2 args, SQL three-valued                      */
    FLOE_EXPR_NOT,         /* 1 arg                                         */
    FLOE_EXPR_IS_NULL,     /* 1 arg                                         */
    FLOE_EXPR_IS_NOT_NULL, /* 1 arg                                         */
    FLOE_EXPR_ARITH,       /* op: floe_arith_op, 2 args                     */
    FLOE_EXPR_CAST,        /* 1 arg, to cast_type                           */
    FLOE_EXPR_CASE,        /* args: when1, then1, ..., [else]; op: 1 = has
                              ELSE.  Lazy: a branch is evaluated only on the
                              rows that take it (CASE WHEN x <> 0 THEN 1/x) */
    FLOE_EXPR_IN,          /* args: value, item1, ...; SQL NULL rules       */
    FLOE_EXPR_COALESCE,    /* args: 1 or more; first non-NULL, lazily       */
    FLOE_EXPR_CALL,        /* func: a scalar function by lowercase name over
                              args (src/exec/functions.c lists them)       */
    FLOE_EXPR_KIND_COUNT_
} floe_expr_kind;

typedef enum floe_cmp_op {
    FLOE_CMP_EQ = 0, FLOE_CMP_NE, FLOE_CMP_LT, FLOE_CMP_LE, FLOE_CMP_GT, FLOE_CMP_GE
} floe_cmp_op;

typedef enum floe_arith_op {
    FLOE_ARITH_ADD = 0, FLOE_ARITH_SUB, FLOE_ARITH_MUL, FLOE_ARITH_DIV, FLOE_ARITH_MOD
} floe_arith_op;

/* An immutable, reference-counted expression tree.  Read-only parts. */
typedef struct floe_expr {
    _Atomic int32_t refcount_;
    floe_expr_kind kind;
    int32_t op;             /* floe_cmp_op / floe_arith_op, else 0 */
    int32_t column;         /* COLUMN */
    floe_array *literal;    /* LITERAL: one slot */
    floe_type *cast_type;   /* CAST */
    char *func;             /* CALL: the function's lowercase name */
    int32_t n_args;
    struct floe_expr **args;
} floe_expr;

/* Constructors return a new expression (one reference) and RETAIN their
 * arguments (the caller keeps its own references). */
floe_status floe_expr_column(int32_t index, floe_expr **out) FLOE_WARN_UNUSED;
/* `value` must have exactly one slot; it is retained. */
floe_status floe_expr_literal(floe_array *value, floe_expr **out) FLOE_WARN_UNUSED;
floe_status floe_expr_lit_int32(int32_t v, floe_expr **out) FLOE_WARN_UNUSED;
floe_status floe_expr_lit_int64(int64_t v, floe_expr **out) FLOE_WARN_UNUSED;
floe_status floe_expr_lit_double(double v, floe_expr **out) FLOE_WARN_UNUSED;
floe_status floe_expr_lit_bool(bool v, floe_expr **out) FLOE_WARN_UNUSED;
floe_status floe_expr_lit_string(const char *v, floe_expr **out) FLOE_WARN_UNUSED;
/* A typed NULL literal. */
floe_status floe_expr_lit_null(floe_type *type, floe_expr **out) FLOE_WARN_UNUSED;
floe_status floe_expr_cmp(floe_cmp_op op, floe_expr *l, floe_expr *r, floe_expr **out) FLOE_WARN_UNUSED;
floe_status floe_expr_arith(floe_arith_op op, floe_expr *l, floe_expr *r, floe_expr **out) FLOE_WARN_UNUSED;
floe_status floe_expr_and(floe_expr *l, floe_expr *r, floe_expr **out) FLOE_WARN_UNUSED;
floe_status floe_expr_or(floe_expr *l, floe_expr *r, floe_expr **out) FLOE_WARN_UNUSED;
floe_status floe_expr_not(floe_expr *a, floe_expr **out) FLOE_WARN_UNUSED;
floe_status floe_expr_is_null(floe_expr *a, bool negated, floe_expr **out) FLOE_WARN_UNUSED;
floe_status floe_expr_cast(floe_expr *a, floe_type *to, floe_expr **out) FLOE_WARN_UNUSED;
/* CASE WHEN whens[i] THEN thens[i] ... ELSE else_ END (else_ may be NULL). */
floe_status floe_expr_case(floe_expr *const *whens, floe_expr *const *thens, int32_t n, floe_expr *else_,
                           floe_expr **out) FLOE_WARN_UNUSED;
floe_status floe_expr_in(floe_expr *value, floe_expr *const *items, int32_t n, floe_expr **out) FLOE_WARN_UNUSED;
floe_status floe_expr_coalesce(floe_expr *const *args, int32_t n, floe_expr **out) FLOE_WARN_UNUSED;
/* A scalar function call: `name` (lowercase, e.g. "lower", "date_trunc")
 * over args[0..n).  An unknown name is FLOE_ERR_NOT_FOUND with a "did you
 * mean"; the argument count and types are checked by floe_expr_type
 * (FLOE_ERR_TYPE naming the function and the argument types). */
floe_status floe_expr_call(const char *name, floe_expr *const *args, int32_t n,
                           floe_expr **out) FLOE_WARN_UNUSED;
/* Is `e` a call of a function whose value changes from call to call
 * (random) or that changes what later calls return (setseed)?  Such a
 * call is never folded into a constant, never shared between two places
 * that wrote it, never moved or copied to run more often. */
bool floe_expr_is_volatile_call(const floe_expr *e);
/* The generic constructor from parts (used by the codec); checks arity.
 * `func` is the function name for CALL and must be NULL otherwise. */
floe_status floe_expr_make(floe_expr_kind kind, int32_t op, int32_t column, floe_array *literal,
                           floe_type *cast_type, const char *func, floe_expr *const *args,
                           int32_t n_args, floe_expr **out) FLOE_WARN_UNUSED;

floe_expr *floe_expr_retain(floe_expr *e); /* NULL-safe */
void floe_expr_release(floe_expr *e);      /* NULL-safe */

/* The result type of `e` over rows of `schema` (one reference), or
 * FLOE_ERR_TYPE naming the offending operator and operand types. */
floe_status floe_expr_type(const floe_expr *e, const floe_schema *schema,
                           floe_type **out) FLOE_WARN_UNUSED;
/* Evaluate over a batch: an array of batch->num_rows slots.  Arithmetic
 * overflow, division by zero and bad casts are errors naming the value. */
floe_status floe_expr_eval(const floe_expr *e, const floe_batch *batch,
                           floe_array **out) FLOE_WARN_UNUSED;
/* Evaluate a BOOL predicate and return the selection vector of rows where
 * it is TRUE (not false, not null): *sel (floe_malloc'd, caller frees) with
 * *n entries. */
floe_status floe_expr_select(const floe_expr *e, const floe_batch *batch, uint32_t **sel,
                             int64_t *n) FLOE_WARN_UNUSED;
/* Text form for EXPLAIN: "(#0 > 5)", "CAST(#1 AS int64)", "lower(#0)". */
floe_status floe_expr_to_string(const floe_expr *e, struct floe_buf *out) FLOE_WARN_UNUSED;

/* For the optimizer: true when a LIKE pattern is exactly a literal
 * followed by one trailing '%' (e.g. 'abc%', 'a\%b%' with escape '\'),
 * i.e. LIKE means "starts with".  Then *prefix is the unescaped literal
 * (floe_malloc'd, caller frees; "" for the pattern '%').  `escape` 0 means
 * no escape character.  False (and *prefix NULL) for anything else,
 * including a pattern with '_', another '%', or a dangling escape. */
bool floe_like_pure_prefix(const char *pattern, char escape, char **prefix);

/* ------------------------------------------------------- execution context */

typedef struct floe_exec_ctx {
    struct floe_threadpool *pool;     /* NULL: the process-wide default pool */
    int64_t batch_size;               /* target rows per batch (> 0)        */
    const struct floe_cancel *cancel; /* query cancellation; may be NULL    */
    floe_mem_tracker *mem;            /* query memory; may be NULL          */
    int32_t scan_concurrency;         /* files a scan partition reads at once (0: 2) */
    int32_t read_ahead;               /* batches a scan reads ahead (0: 2)  */
    struct floe_exec_metrics *metrics; /* EXPLAIN ANALYZE counters; NULL: off */
    struct floe_progress *progress;   /* work done, added by the scans; NULL: off */
    struct floe_execution *exec;      /* the execution the plan runs in (required) */
    const char *temp_dir;             /* where operators spill; NULL: $TMPDIR/floe */
} floe_exec_ctx;

/* ------------------------------------------------------------ executions */

/* An execution: one run of a plan (PostgreSQL's EState and PlanState tree,
 * DuckDB's global operator states).  A plan is immutable; everything one
 * run of it creates and shares between partitions — a Repartition's
 * exchange, a join's collected build side, the data bound to a
 * distributed stage's exchange sources — and every cancellation token
 * its exchanges make lives in the execution and is freed when it ends.
 * So one plan object may run in any number of executions, one after
 * another or at the same time, and nothing an execution made can outlive
 * the tokens it reads.
 *
 *   floe_exec_ctx ctx = {...};
 *   floe_execution *x;
 *   FLOE_TRY(floe_execution_begin(&ctx, &x));
 *   ... floe_plan_execute(plan, i, &ctx, &s) for each partition i,
 *       read, floe_stream_close(s) ...
 *   floe_execution_end(x);
 *
 * Within one execution each output partition of a node is opened at most
 * once (opening one twice is FLOE_ERR_INTERNAL): run the plan again in a
 * new execution instead.  A plan must outlive every execution of it (an
 * execution's states borrow the nodes' parts). */
typedef struct floe_execution floe_execution;

/* Begin an execution under *ctx: ctx->exec becomes the execution and
 * ctx->cancel its own token (a child of the old ctx->cancel, which must
 * outlive the execution). */
floe_status floe_execution_begin(floe_exec_ctx *ctx, floe_execution **out) FLOE_WARN_UNUSED;
/* Cancel everything running in the execution (thread-safe). */
void floe_execution_cancel(floe_execution *x);
/* End it: every node's shared state is shut down and freed (the newest
 * first), then the tokens.  Every stream opened in the execution must have
 * been closed.  NULL-safe. */
void floe_execution_end(floe_execution *x);
/* Node states the execution holds (for tests). */
int32_t floe_execution_num_states(const floe_execution *x);

/* Progress of a running plan: the scans add the work they finish to one
 * counter (thread-safe), in units floe_plan_progress_total() counts for
 * them ahead of time — an IcebergScan the bytes of its tasks' ranges, a
 * ParquetScan row groups.  A scan executed twice counts twice, so done may
 * pass total: clamp when showing it. */
typedef struct floe_progress floe_progress;
floe_status floe_progress_new(floe_progress **out) FLOE_WARN_UNUSED;
void floe_progress_free(floe_progress *p);                /* NULL-safe */
void floe_progress_add(floe_progress *p, int64_t n);      /* NULL-safe; n <= 0 ignored */
int64_t floe_progress_done(const floe_progress *p);
struct floe_plan;
/* The work of every scan in the plan tree (0 when there is none). */
int64_t floe_plan_progress_total(const struct floe_plan *p);

/* ---------------------------------------------------------------- streams */

typedef struct floe_stream floe_stream;
struct floe_stream {
    floe_status (*next)(floe_stream *s, floe_batch **out);
    void (*close)(floe_stream *s);
};
static inline floe_status floe_stream_next(floe_stream *s, floe_batch **out) {
    return s->next(s, out);
}
static inline void floe_stream_close(floe_stream *s) {
    if (s) s->close(s);
}

/* ------------------------------------------------------------- plan nodes */

typedef enum floe_dist_kind {
    FLOE_DIST_UNSPECIFIED = 0, /* any partitioning                          */
    FLOE_DIST_SINGLE,          /* exactly one partition                     */
    FLOE_DIST_HASH             /* hash-partitioned on `exprs`               */
} floe_dist_kind;

typedef struct floe_distribution {
    floe_dist_kind kind;
    int32_t n_exprs;
    floe_expr *const *exprs; /* HASH: borrowed from the node */
} floe_distribution;

typedef struct floe_sort_key {
    floe_expr *expr;
    bool descending;
    bool nulls_first;
} floe_sort_key;

typedef struct floe_plan floe_plan;
struct floe_reader; /* codec input, see floe_codec_* below */

/* How the partitions of a node read child i — what the distributed
 * runtime cuts a plan into stages by (src/dist/stages.c), and what tools
 * that follow a partition down the tree ask. */
typedef enum floe_child_read {
    FLOE_READ_UNKNOWN = 0, /* not declared: the node is never split from its
                              child (a distributed plan runs in one process) */
    FLOE_READ_LOCAL,       /* partition i reads partition i of the child, and
                              nothing else (Filter, Projection, Sort ...) */
    FLOE_READ_MAPPED,      /* partition i reads one partition of one child:
                              the one map_partition names (Union) */
    FLOE_READ_EXCHANGE,    /* the node's partitions together read every child
                              partition once and deal the rows out as
                              `route` says (Repartition, CoalescePartitions):
                              the node IS an exchange */
    FLOE_READ_EACH,        /* the node reads every child partition, each as a
                              separate input (SortPreservingMerge's runs) */
    FLOE_READ_BROADCAST,   /* every partition reads the whole child (a join's
                              collected build side), and partitions share
                              nothing else */
    FLOE_READ_SHARED       /* every partition reads the whole child and the
                              partitions share what they find (a build side
                              whose unmatched rows the last probe partition
                              emits): all partitions run in one process */
} floe_child_read;

/* Visitor for the files a node reads (floe_plan_vtable.local_paths). */
typedef floe_status (*floe_path_visit)(void *arg, const char *path);

/* Node flags (floe_plan_vtable.flags). */
enum {
    /* The node changes a table once for the whole plan (IcebergCommit):
     * it runs once, in the coordinator, as the plan's last step. */
    FLOE_NODE_COMMITS = 1u << 0,
    /* The node writes table files, one writer per input partition
     * (IcebergWrite): the planner spreads even a one-partition input over
     * target_partitions writers. */
    FLOE_NODE_WRITES_FILES = 1u << 1,
};

/* What a node type provides.  Every node type registers one of these by
 * name (floe_plan_register) so the codec can decode it.  Define vtables
 * with designated initializers: a slot left out is NULL, which every
 * optional slot's caller treats as the default given below. */
typedef struct floe_plan_vtable {
    const char *name; /* "Values", "Filter", ... */
    floe_status (*execute)(const floe_plan *p, int32_t partition, const floe_exec_ctx *ctx,
                           floe_stream **out);
    /* Write the node-specific parts (children are written by the codec). */
    floe_status (*encode_parts)(const floe_plan *p, struct floe_buf *out);
    /* Read the parts and call the constructor; `children` are borrowed. */
    floe_status (*decode_parts)(struct floe_reader *r, floe_plan *const *children,
                                int32_t n_children, floe_plan **out);
    /* Append the parts as text for EXPLAIN ("predicate=(#0 > 1)"). */
    floe_status (*explain_parts)(const floe_plan *p, struct floe_buf *out);
    /* Required input distribution of child i (default UNSPECIFIED). */
    floe_distribution (*required_input)(const floe_plan *p, int32_t child);
    void (*free_parts)(floe_plan *p);
    /* Ordering each partition of child i must arrive in (NULL or 0 keys:
     * none).  The planner provides it (a Sort per partition) and no
     * optimizer step may remove it.  Keys are borrowed from the node. */
    int32_t (*required_ordering)(const floe_plan *p, int32_t child, const floe_sort_key **keys);

    /* ---- per-execution state (see floe_execution) ---- */
    /* Make the state the node's partitions share in one execution, on the
     * first floe_exec_shared() call for the node in that execution (once;
     * concurrent callers wait).  NULL: the node shares nothing. */
    floe_status (*init_shared)(const floe_plan *p, const floe_exec_ctx *ctx, void **state);
    /* Shut the state down and free it, when the execution ends (every
     * stream of the execution is closed by then). */
    void (*free_shared)(void *state);

    /* ---- properties tools ask of any node ---- */
    /* How child i is read (default UNKNOWN; a leaf has no children and its
     * partitions are always independent).  For FLOE_READ_EXCHANGE,
     * *route (may be NULL) is how rows are dealt: SINGLE (gathered into one
     * partition), HASH on expressions borrowed from the node, or
     * UNSPECIFIED (whole batches round-robin). */
    floe_child_read (*child_read)(const floe_plan *p, int32_t child, floe_distribution *route);
    /* FLOE_READ_MAPPED: the child and its partition that output partition
     * `partition` reads. */
    void (*map_partition)(const floe_plan *p, int32_t partition, int32_t *child, int32_t *child_partition);
    /* Work units this node adds to floe_exec_ctx.progress when it runs in
     * full (see floe_progress).  NULL: the sum over its children. */
    int64_t (*progress_total)(const floe_plan *p);
    /* The rows the node outputs, estimated before it runs from what it
     * knows (file footers, table summaries, its literal rows); < 0 or NULL:
     * unknown.  The SQL layer's one estimator asks leaves this. */
    double (*estimate_rows)(const floe_plan *p);
    /* Visit the files (local paths or URIs) the node reads itself: the
     * distributed runtime checks node-local ones on every host. */
    floe_status (*local_paths)(const floe_plan *p, floe_path_visit visit, void *arg);
    uint32_t flags; /* FLOE_NODE_* */
} floe_plan_vtable;

/* The common head of every node.  Node types embed it first. */
struct floe_plan {
    const floe_plan_vtable *vt;
    _Atomic int32_t refcount_;
    floe_schema *schema;      /* output schema */
    int32_t n_partitions;     /* output partitions */
    int32_t n_children;
    floe_plan **children;     /* one reference each */
    int32_t n_ordering;       /* output ordering (0: none known) */
    floe_sort_key *ordering;
};

floe_plan *floe_plan_retain(floe_plan *p); /* NULL-safe */
void floe_plan_release(floe_plan *p);      /* NULL-safe */

static inline const char *floe_plan_type_name(const floe_plan *p) { return p->vt->name; }
static inline const floe_schema *floe_plan_schema(const floe_plan *p) { return p->schema; }
static inline int32_t floe_plan_partitions(const floe_plan *p) { return p->n_partitions; }
static inline int32_t floe_plan_num_children(const floe_plan *p) { return p->n_children; }
static inline floe_plan *floe_plan_child(const floe_plan *p, int32_t i) { return p->children[i]; }
floe_distribution floe_plan_required_input(const floe_plan *p, int32_t child);
/* Required ordering of child i's partitions: the number of keys (0: none),
 * *keys borrowed from the node. */
int32_t floe_plan_required_ordering(const floe_plan *p, int32_t child, const floe_sort_key **keys);

/* Node properties with their defaults applied (see floe_plan_vtable). */
floe_child_read floe_plan_child_read(const floe_plan *p, int32_t child, floe_distribution *route);
/* The child and child partition output partition `partition` of a
 * FLOE_READ_MAPPED node reads. */
void floe_plan_map_partition(const floe_plan *p, int32_t partition, int32_t *child, int32_t *child_partition);
/* The node's own row estimate (< 0: unknown). */
double floe_plan_estimate_rows(const floe_plan *p);
/* Visit the files every node of the tree reads itself. */
floe_status floe_plan_local_paths(const floe_plan *p, floe_path_visit visit, void *arg) FLOE_WARN_UNUSED;
static inline bool floe_plan_commits(const floe_plan *p) { return (p->vt->flags & FLOE_NODE_COMMITS) != 0; }
/* Is there a node with `flag` in the tree? */
bool floe_plan_tree_has_flag(const floe_plan *p, uint32_t flag);

/* Open a stream over output partition `partition` (0 .. partitions-1)
 * in ctx->exec's execution (FLOE_ERR_INVALID_ARGUMENT without one). */
floe_status floe_plan_execute(const floe_plan *p, int32_t partition, const floe_exec_ctx *ctx,
                              floe_stream **out) FLOE_WARN_UNUSED;

/* ---- node types: constructors from parts and accessors ----------------- */

/* Values: literal batches (all with `schema`-compatible schemas), dealt
 * round-robin over `n_partitions` partitions (batch i to partition
 * i % n_partitions); batches longer than ctx->batch_size are sliced. */
floe_status floe_plan_values(floe_schema *schema, floe_batch *const *batches, int32_t n_batches,
                             int32_t n_partitions, floe_plan **out) FLOE_WARN_UNUSED;
bool floe_plan_is_values(const floe_plan *p);
int32_t floe_values_num_batches(const floe_plan *p);
floe_batch *floe_values_batch(const floe_plan *p, int32_t i); /* borrowed */

/* Filter: rows of the child where `predicate` (BOOL) is TRUE. */
floe_status floe_plan_filter(floe_plan *child, floe_expr *predicate, floe_plan **out) FLOE_WARN_UNUSED;
const floe_expr *floe_filter_predicate(const floe_plan *p);

/* Projection: one output column per expression, named names[i]. */
floe_status floe_plan_projection(floe_plan *child, floe_expr *const *exprs, const char *const *names,
                                 int32_t n, floe_plan **out) FLOE_WARN_UNUSED;
int32_t floe_projection_num_exprs(const floe_plan *p);
const floe_expr *floe_projection_expr(const floe_plan *p, int32_t i);
const char *floe_projection_name(const floe_plan *p, int32_t i);

/* Limit: skip `offset` rows then pass at most `fetch` rows (-1: no limit),
 * in each partition independently.  For a global limit put it over a
 * CoalescePartitions (or any single-partition child). */
floe_status floe_plan_limit(floe_plan *child, int64_t offset, int64_t fetch, floe_plan **out) FLOE_WARN_UNUSED;
int64_t floe_limit_offset(const floe_plan *p);
int64_t floe_limit_fetch(const floe_plan *p);

/* CoalescePartitions: the child's partitions merged into one (in no
 * particular order), read by pool tasks into a bounded queue.  The first
 * error cancels the other partitions and is returned.  No pool worker
 * ever blocks on a full queue and a consumer with nothing queued reads
 * the child itself, so it may run inside a pool task, nested under other
 * CoalescePartitions / Repartition nodes, on a pool of any size. */
floe_status floe_plan_coalesce(floe_plan *child, floe_plan **out) FLOE_WARN_UNUSED;

/* ------------------------------------------------------------- registry */

/* Register a node type for the codec (thread-safe; the built-in types are
 * always known).  `vt` must live for the whole process (a static const).
 * Registering the same vtable twice is a no-op; another vtable under a
 * known name is FLOE_ERR_ALREADY_EXISTS. */
floe_status floe_plan_register(const floe_plan_vtable *vt) FLOE_WARN_UNUSED;
const floe_plan_vtable *floe_plan_lookup(const char *name);

/* ---------------------------------------------------------------- codec */

/* Binary plan encoding: "FLOEPLAN" + u32 version, then the node tree
 * pre-order: type name, child count, children, the node's parts. */
#define FLOE_PLAN_CODEC_VERSION 2

floe_status floe_plan_encode(const floe_plan *p, struct floe_buf *out) FLOE_WARN_UNUSED;
floe_status floe_plan_decode(const uint8_t *data, size_t len, floe_plan **out) FLOE_WARN_UNUSED;
/* Encode, decode and re-encode; FLOE_ERR_INTERNAL if the two encodings
 * differ (a node forgot a part).  *copy is the decoded plan. */
floe_status floe_plan_roundtrip(const floe_plan *p, floe_plan **copy) FLOE_WARN_UNUSED;

/* Helpers for node types' encode_parts/decode_parts.  All integers are
 * little-endian fixed width. */
typedef struct floe_reader {
    const uint8_t *data;
    size_t len;
    size_t pos;
} floe_reader;
floe_status floe_codec_put_i64(struct floe_buf *b, int64_t v) FLOE_WARN_UNUSED;
floe_status floe_codec_put_str(struct floe_buf *b, const char *s) FLOE_WARN_UNUSED;
floe_status floe_codec_put_type(struct floe_buf *b, const floe_type *t) FLOE_WARN_UNUSED;
floe_status floe_codec_put_array(struct floe_buf *b, const floe_array *a) FLOE_WARN_UNUSED;
floe_status floe_codec_put_batch(struct floe_buf *b, const floe_batch *batch) FLOE_WARN_UNUSED;
floe_status floe_codec_put_expr(struct floe_buf *b, const floe_expr *e) FLOE_WARN_UNUSED;
floe_status floe_codec_get_i64(floe_reader *r, int64_t *v) FLOE_WARN_UNUSED;
/* *s is floe_malloc'd (caller frees). */
floe_status floe_codec_get_str(floe_reader *r, char **s) FLOE_WARN_UNUSED;
floe_status floe_codec_get_type(floe_reader *r, floe_type **t) FLOE_WARN_UNUSED;
floe_status floe_codec_get_array(floe_reader *r, floe_array **a) FLOE_WARN_UNUSED;
floe_status floe_codec_get_batch(floe_reader *r, floe_batch **b) FLOE_WARN_UNUSED;
floe_status floe_codec_get_expr(floe_reader *r, floe_expr **e) FLOE_WARN_UNUSED;

/* -------------------------------------------------------------- runtime */

/* Run every output partition (on the pool when there are several) and
 * collect the batches in partition order.  *batches is floe_malloc'd;
 * release each batch and free the array (floe_exec_batches_free).  With
 * FLOE_PLAN_ROUNDTRIP=1 in the environment the plan is first encoded,
 * decoded and the copy executed instead (docs/ARCHITECTURE.md, exec). */
floe_status floe_exec_collect(const floe_plan *p, const floe_exec_ctx *ctx, floe_batch ***batches,
                              int64_t *n_batches) FLOE_WARN_UNUSED;
void floe_exec_batches_free(floe_batch **batches, int64_t n);

/* EXPLAIN text: one line per node, indented by depth:
 *   "Filter: predicate=(#0 > 1), partitions=2" */
floe_status floe_plan_explain(const floe_plan *p, struct floe_buf *out) FLOE_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
