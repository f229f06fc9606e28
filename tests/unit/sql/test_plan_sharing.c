/*
 * test_plan_sharing.c — one plan object, many executions.  A plan is
 * immutable (include/floe/exec.h, "executions"): what a run creates lives
 * in its floe_execution.  So the same physical plan — planned once from
 * SQL, with hash repartitions, two-phase aggregates, shared join build
 * sides (inner, LEFT with its unmatched rows, null-aware NOT IN), sorts and
 * merges — must give the same rows when run back to back, when run by
 * several threads at once, and after runs that failed or stopped early.
 * Run under ASan and TSan in CI: a node that kept per-run state would show
 * up here as wrong rows, a use-after-free or a race.
 */
#include <pthread.h>
#include <string.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "floe/exec.h"
#include "floe/memory.h"
#include "floe/session.h"
#include "floe_test.h"
#include "sql/parse.h"
#include "sql/session_internal.h"

#define THREADS 4
#define ROUNDS 3

static const char *const QUERIES[] = {
    /* inner join on a shared build, then a two-phase aggregate, sorted */
    "SELECT a.k, count(*) AS n, sum(b.v) AS s FROM "
    "(SELECT g % 97 AS k, g AS v FROM generate_series(1, 60000) t(g)) a JOIN "
    "(SELECT g AS k, g * 2 AS v FROM generate_series(0, 90) s(g)) b ON a.k = b.k "
    "GROUP BY a.k ORDER BY a.k",
    /* LEFT join: the last probe partition emits the build rows nobody matched */
    "SELECT b.k, count(a.v) AS n FROM "
    "(SELECT g AS k FROM generate_series(0, 120) s(g)) b LEFT JOIN "
    "(SELECT g % 97 AS k, g AS v FROM generate_series(1, 30000) t(g)) a ON a.k = b.k "
    "GROUP BY b.k ORDER BY b.k",
    /* null-aware anti join and a top-N */
    "SELECT g FROM generate_series(1, 20000) t(g) WHERE g % 1000 NOT IN "
    "(SELECT h FROM generate_series(1, 990) s(h)) ORDER BY g DESC LIMIT 25",
};
#define N_QUERIES ((int)(sizeof QUERIES / sizeof *QUERIES))

typedef struct fx {
    char dir[1024];
    floe_session *s;
    floe_plan *plans[N_QUERIES];
    char *want[N_QUERIES]; /* the rows of the first run, as text */
} fx;

static fx F;

static floe_status plan_of(const char *sql, floe_plan **out) {
    floe_sql_script *script = NULL;
    FLOE_TRY(floe_sql_parse(sql, &script));
    floe_status st = floe_session_plan_query(F.s, script->stmts[0].node, out);
    floe_sql_script_free(script);
    return st;
}

/* Every row of the batches, one line each. */
static char *as_text(floe_batch **bs, int64_t n) {
    floe_buf b = FLOE_BUF_INIT;
    for (int64_t i = 0; i < n; i++)
        for (int64_t r = 0; r < bs[i]->num_rows; r++) {
            for (int32_t c = 0; c < bs[i]->num_columns; c++) {
                if (c) assert_ok(floe_buf_append_byte(&b, '|'));
                assert_ok(floe_format_value(bs[i]->columns[c], r, &b));
            }
            assert_ok(floe_buf_append_byte(&b, '\n'));
        }
    assert_ok(floe_buf_append_byte(&b, 0));
    size_t len;
    return (char *)floe_buf_detach(&b, &len);
}

static floe_status run_text(const floe_plan *p, const floe_cancel *cancel, char **text) {
    floe_exec_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.batch_size = 997; /* odd sizes make partitions finish at different times */
    ctx.cancel = cancel;
    floe_batch **bs = NULL;
    int64_t n = 0;
    FLOE_TRY(floe_exec_collect(p, &ctx, &bs, &n));
    *text = as_text(bs, n);
    floe_exec_batches_free(bs, n);
    return NULL;
}

static int setup(void **state) {
    (void)state;
    memset(&F, 0, sizeof F);
    floe_test_tmpdir(F.dir, sizeof F.dir, "plan_sharing");
    assert_ok(floe_session_open(F.dir, &F.s));
    assert_ok(floe_session_set(F.s, "target_partitions", "4"));
    for (int q = 0; q < N_QUERIES; q++) {
        assert_ok(plan_of(QUERIES[q], &F.plans[q]));
        assert_ok(run_text(F.plans[q], NULL, &F.want[q]));
        assert_true(strlen(F.want[q]) > 0);
    }
    return 0;
}

static int teardown(void **state) {
    (void)state;
    for (int q = 0; q < N_QUERIES; q++) {
        floe_plan_release(F.plans[q]);
        floe_free(F.want[q]);
    }
    floe_session_close(F.s);
    return 0;
}

/* The plans really have the nodes whose state used to live on the node. */
static void plans_have_exchanges_and_shared_builds(void **state) {
    (void)state;
    for (int q = 0; q < N_QUERIES; q++) {
        floe_buf text = FLOE_BUF_INIT;
        assert_ok(floe_plan_explain(F.plans[q], &text));
        assert_ok(floe_buf_append_byte(&text, 0));
        const char *t = (const char *)text.data;
        assert_non_null(strstr(t, "HashJoin"));
        assert_non_null(strstr(t, "CollectLeft"));
        assert_true(strstr(t, "Repartition") || strstr(t, "CoalescePartitions") || strstr(t, "SortPreservingMerge"));
        floe_buf_free(&text);
    }
    /* the first plan's expected rows, computed independently: key k in
     * 0..90 appears floor((60000 - k) / 97) + (k > 0) times */
    floe_buf want = FLOE_BUF_INIT;
    for (int k = 0; k <= 90; k++) {
        int64_t n = 0;
        for (int g = 1; g <= 60000; g++) n += g % 97 == k;
        assert_ok(floe_buf_printf(&want, "%d|%lld|%lld\n", k, (long long)n, (long long)(n * 2 * k)));
    }
    assert_ok(floe_buf_append_byte(&want, 0));
    assert_string_equal(F.want[0], (const char *)want.data);
    floe_buf_free(&want);
}

static void back_to_back_executions_give_the_same_rows(void **state) {
    (void)state;
    for (int round = 0; round < ROUNDS; round++)
        for (int q = 0; q < N_QUERIES; q++) {
            char *got = NULL;
            assert_ok(run_text(F.plans[q], NULL, &got));
            assert_string_equal(got, F.want[q]);
            floe_free(got);
        }
}

typedef struct worker {
    int id;
    int mismatches;
    char error[256];
} worker;

static void *run_many(void *arg) {
    worker *w = arg;
    for (int round = 0; round < ROUNDS; round++)
        for (int k = 0; k < N_QUERIES; k++) {
            int q = (k + w->id) % N_QUERIES; /* threads run different plans at the same moment too */
            char *got = NULL;
            floe_status st = run_text(F.plans[q], NULL, &got);
            if (st) {
                snprintf(w->error, sizeof w->error, "%s", floe_status_message(st));
                floe_status_free(st);
                return NULL;
            }
            if (strcmp(got, F.want[q]) != 0) w->mismatches++;
            floe_free(got);
        }
    return NULL;
}

static void concurrent_executions_of_one_plan_give_the_same_rows(void **state) {
    (void)state;
    pthread_t t[THREADS];
    worker w[THREADS];
    memset(w, 0, sizeof w);
    for (int i = 0; i < THREADS; i++) {
        w[i].id = i;
        assert_int_equal(pthread_create(&t[i], NULL, run_many, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++) {
        if (w[i].error[0]) fail_msg("thread %d: %s", i, w[i].error);
        assert_int_equal(w[i].mismatches, 0);
    }
}

/* Runs that stop early — the consumer closes after one batch of one
 * partition, the query is cancelled — leave nothing behind that the next
 * run of the same plan would trip over. */
static void stopped_runs_do_not_disturb_the_next(void **state) {
    (void)state;
    for (int q = 0; q < N_QUERIES; q++) {
        const floe_plan *p = F.plans[q];
        floe_exec_ctx ctx;
        memset(&ctx, 0, sizeof ctx);
        ctx.batch_size = 64;
        floe_execution *x = NULL;
        assert_ok(floe_execution_begin(&ctx, &x));
        floe_stream *s = NULL;
        assert_ok(floe_plan_execute(p, 0, &ctx, &s));
        floe_batch *b = NULL;
        assert_ok(floe_stream_next(s, &b));
        floe_batch_release(b);
        floe_stream_close(s); /* producers below may still be running */
        floe_execution_end(x);

        floe_cancel cancel;
        floe_cancel_init(&cancel, NULL);
        floe_cancel_set(&cancel);
        char *got = NULL;
        floe_status st = run_text(p, &cancel, &got);
        assert_non_null(st);
        assert_int_equal(floe_status_code(st), FLOE_ERR_CANCELLED);
        floe_status_free(st);

        assert_ok(run_text(p, NULL, &got));
        assert_string_equal(got, F.want[q]);
        floe_free(got);
    }
}

/* An inner exchange whose consumer fails: the outer exchange (a
 * CoalescePartitions, whose token is the inner one's parent) shuts down
 * first while some inner outputs were never opened; the inner producers
 * must stop without reading anything the outer one freed.  This is where
 * ASan once saw a use-after-free, when the inner exchange lived on its
 * node. */
static void an_inner_exchange_outlives_its_failed_consumer_safely(void **state) {
    (void)state;
    floe_plan *p = NULL;
    assert_ok(plan_of("SELECT k, 100 / (k - 13) AS x FROM "
                      "(SELECT g % 50 AS k, count(*) AS n FROM generate_series(1, 50000) t(g) GROUP BY g % 50) a",
                      &p));
    floe_buf text = FLOE_BUF_INIT;
    assert_ok(floe_plan_explain(p, &text));
    assert_ok(floe_buf_append_byte(&text, 0));
    assert_non_null(strstr((const char *)text.data, "Repartition"));
    assert_non_null(strstr((const char *)text.data, "CoalescePartitions"));
    floe_buf_free(&text);
    for (int i = 0; i < 40; i++) {
        char *got = NULL;
        floe_status st = run_text(p, NULL, &got);
        assert_non_null(st);
        assert_int_equal(floe_status_code(st), FLOE_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(floe_status_message(st), "division by zero"));
        floe_status_free(st);
    }
    floe_plan_release(p);
}

FLOE_TEST_MAIN(cmocka_unit_test_setup_teardown(plans_have_exchanges_and_shared_builds, setup, teardown),
               cmocka_unit_test_setup_teardown(back_to_back_executions_give_the_same_rows, setup, teardown),
               cmocka_unit_test_setup_teardown(concurrent_executions_of_one_plan_give_the_same_rows, setup, teardown),
               cmocka_unit_test_setup_teardown(stopped_runs_do_not_disturb_the_next, setup, teardown),
               cmocka_unit_test_setup_teardown(an_inner_exchange_outlives_its_failed_consumer_safely, setup,
                                               teardown))
