/*
 * ddl_refs.c — branches and tags: Iceberg's Spark SQL extensions
 *
 *   ALTER TABLE t CREATE [OR REPLACE] BRANCH [IF NOT EXISTS] b
 *       [AS OF VERSION id] [RETAIN n DAYS|HOURS|MINUTES]
 *       [WITH SNAPSHOT RETENTION [n SNAPSHOTS] [n DAYS|HOURS|MINUTES]]
 *   ALTER TABLE t REPLACE BRANCH b [AS OF VERSION id] ...
 *   ALTER TABLE t CREATE [OR REPLACE] TAG [IF NOT EXISTS] x [AS OF VERSION id]
 *       [RETAIN n DAYS|HOURS|MINUTES]
 *   ALTER TABLE t REPLACE TAG x ...
 *   ALTER TABLE t DROP BRANCH|TAG [IF EXISTS] name
 *
 * The parser's pre-pass cuts the text from CREATE/REPLACE/DROP on into a
 * FLOE_SQL_REF_DDL clause (parse.h); this file reads it and commits one
 * metadata change, with the semantics of Iceberg's Spark execs
 * (CreateBranchExec, ReplaceBranch, CreateTagExec, DropBranchExec,
 * DropTagExec) over Java's ManageSnapshots and its messages:
 *   - no AS OF VERSION: the table's current snapshot;
 *   - CREATE BRANCH on a table without snapshots commits an empty snapshot
 *     (no files) to the new branch, as Java's createBranch(name) does;
 *     a tag, or REPLACE BRANCH, needs a snapshot ("main has no snapshot");
 *   - REPLACE keeps the ref's retention settings unless given again;
 *     CREATE OR REPLACE of an absent ref creates it; REPLACE TAG of an
 *     absent tag creates it too (CreateTagExec's replace path), REPLACE
 *     BRANCH of an absent branch is "Branch does not exist";
 *   - retention is written as the spec's max-ref-age-ms,
 *     max-snapshot-age-ms and min-snapshots-to-keep; an absent setting is
 *     left out, so the table properties' defaults apply (history.expire.*,
 *     SnapshotRef's "inherit the table's settings").
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "base/str.h"
#include "floe/catalog.h"
#include "floe/iceberg_table_update.h"
#include "floe/memory.h"
#include "iceberg/catalog/catalog_commit_internal.h"
#include "iceberg/snapshot/snapshot_branch.h"
#include "iceberg/update/table_update_internal.h"
#include "sql/ddl.h"
#include "sql/session_internal.h"

#define REF_NAME_MAX 255

typedef enum { REF_CREATE, REF_REPLACE, REF_CREATE_OR_REPLACE, REF_DROP } ref_op;

typedef struct ref_stmt {
    ref_op op;
    bool is_tag;
    bool if_exists;     /* IF NOT EXISTS (create) / IF EXISTS (drop) */
    char name[REF_NAME_MAX + 1];
    bool has_version;
    int64_t snapshot_id;
    int64_t max_ref_age_ms;      /* -1: not given */
    int64_t max_snapshot_age_ms; /* -1: not given */
    int64_t min_snapshots;       /* -1: not given */
    const char *table;           /* "ns.name", for messages */
} ref_stmt;

/* ------------------------------------------------------------ reading */

typedef struct rp {
    const char *text;
    int32_t pos;
    const char *tok; /* current word or number (lowercased copy in buf) */
    int32_t tok_len;
    bool quoted, number;
    char buf[REF_NAME_MAX + 1];
    floe_session *s;
    int32_t location; /* of text in the script */
} rp;

static floe_status rp_err(const rp *p, const char *fmt, const char *arg) {
    char msg[512];
    snprintf(msg, sizeof msg, fmt, arg);
    return floe_session_error_at(p->s, p->location + p->pos, FLOE_ERR_SYNTAX, "ALTER TABLE: %s", msg);
}

/* The next token: a word, a number, or a "quoted" / `quoted` name. */
static floe_status rp_next(rp *p) {
    const char *t = p->text;
    while (t[p->pos] == ' ' || t[p->pos] == '\t' || t[p->pos] == '\n' || t[p->pos] == '\r') p->pos++;
    p->tok = t + p->pos;
    p->tok_len = 0;
    p->quoted = p->number = false;
    p->buf[0] = 0;
    char c = t[p->pos];
    if (!c) return NULL;
    int32_t start = p->pos, n = 0;
    if (c == '"' || c == '`') {
        p->quoted = true;
        int32_t k = p->pos + 1;
        for (;; k++) {
            if (!t[k]) return rp_err(p, "unterminated quoted name%s", "");
            if (t[k] == c && t[k + 1] == c) { /* doubled quote */
                if (n < REF_NAME_MAX) p->buf[n++] = c;
                k++;
            } else if (t[k] == c) {
                break;
            } else if (n < REF_NAME_MAX) {
                p->buf[n++] = t[k];
            } else {
                return rp_err(p, "name longer than 255 bytes%s", "");
            }
        }
        p->buf[n] = 0;
        p->pos = k + 1;
    } else if ((c >= '0' && c <= '9') || c == '-') {
        p->number = true;
        int32_t k = p->pos + (c == '-');
        while (t[k] >= '0' && t[k] <= '9') k++;
        p->pos = k;
    } else {
        int32_t k = p->pos;
        while (t[k] && (t[k] == '_' || (t[k] >= 'a' && t[k] <= 'z') || (t[k] >= 'A' && t[k] <= 'Z') ||
                        (t[k] >= '0' && t[k] <= '9') || (unsigned char)t[k] >= 0x80))
            k++;
        if (k == p->pos) k++; /* punctuation: one character */
        p->pos = k;
    }
    p->tok_len = p->pos - start;
    if (!p->quoted) {
        if (p->tok_len > REF_NAME_MAX) return rp_err(p, "name longer than 255 bytes%s", "");
        for (int32_t i = 0; i < p->tok_len; i++) {
            char ch = t[start + i];
            p->buf[i] = ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
        }
        p->buf[p->tok_len] = 0;
    }
    return NULL;
}

static bool rp_is(const rp *p, const char *word) { return !p->quoted && !p->number && !strcmp(p->buf, word); }

static floe_status rp_expect(rp *p, const char *word) {
    if (!rp_is(p, word)) {
        char want[64];
        snprintf(want, sizeof want, "expected %s", word);
        for (char *c = want + 9; *c; c++)
            if (*c >= 'a' && *c <= 'z') *c = (char)(*c - 'a' + 'A');
        return rp_err(p, "%s", want);
    }
    return rp_next(p);
}

static floe_status rp_number(rp *p, const char *what, int64_t *out) {
    if (!p->number) return rp_err(p, "expected a number for %s", what);
    floe_status st = floe_parse_int64(floe_str_make(p->tok, (size_t)p->tok_len), what, out);
    if (st) {
        floe_status e = floe_session_error_at(p->s, p->location + (int32_t)(p->tok - p->text), FLOE_ERR_SYNTAX,
                                              "ALTER TABLE: %s", floe_status_message(st));
        floe_status_free(st);
        return e;
    }
    return rp_next(p);
}

/* n DAYS|HOURS|MINUTES as milliseconds (Spark's timeUnit). */
static floe_status rp_duration(rp *p, int64_t n, const char *what, int64_t *ms) {
    int64_t unit = rp_is(p, "days") || rp_is(p, "day")         ? 86400000
                   : rp_is(p, "hours") || rp_is(p, "hour")     ? 3600000
                   : rp_is(p, "minutes") || rp_is(p, "minute") ? 60000
                                                               : 0;
    if (!unit) return rp_err(p, "expected DAYS, HOURS or MINUTES after the %s", what);
    if (n <= 0 || n > INT64_MAX / unit) return rp_err(p, "%s must be a positive number of days, hours or minutes", what);
    *ms = n * unit;
    return rp_next(p);
}

static floe_status rp_name(rp *p, ref_stmt *r) {
    if (p->number || !p->tok_len || (!p->quoted && !((p->buf[0] >= 'a' && p->buf[0] <= 'z') || p->buf[0] == '_' ||
                                                     (unsigned char)p->buf[0] >= 0x80)))
        return rp_err(p, "expected the %s name", r->is_tag ? "tag" : "branch");
    snprintf(r->name, sizeof r->name, "%s", p->buf);
    if (!r->name[0]) return rp_err(p, "the %s name is empty", r->is_tag ? "tag" : "branch");
    return rp_next(p);
}

static floe_status parse_ref_stmt(rp *p, ref_stmt *r) {
    FLOE_TRY(rp_next(p));
    if (rp_is(p, "drop")) {
        r->op = REF_DROP;
    } else if (rp_is(p, "replace")) {
        r->op = REF_REPLACE;
    } else {
        FLOE_TRY(rp_expect(p, "create"));
        r->op = REF_CREATE;
        if (rp_is(p, "or")) {
            FLOE_TRY(rp_next(p));
            if (!rp_is(p, "replace")) return rp_err(p, "expected REPLACE after CREATE OR%s", "");
            r->op = REF_CREATE_OR_REPLACE;
        }
    }
    if (r->op != REF_CREATE) FLOE_TRY(rp_next(p));
    r->is_tag = rp_is(p, "tag");
    if (!r->is_tag && !rp_is(p, "branch")) return rp_err(p, "expected BRANCH or TAG%s", "");
    FLOE_TRY(rp_next(p));
    if (r->op == REF_DROP && rp_is(p, "if")) {
        FLOE_TRY(rp_next(p));
        FLOE_TRY(rp_expect(p, "exists"));
        r->if_exists = true;
    } else if (r->op == REF_CREATE && rp_is(p, "if")) {
        FLOE_TRY(rp_next(p));
        FLOE_TRY(rp_expect(p, "not"));
        FLOE_TRY(rp_expect(p, "exists"));
        r->if_exists = true;
    }
    FLOE_TRY(rp_name(p, r));
    if (r->op != REF_DROP) {
        if (rp_is(p, "as")) {
            FLOE_TRY(rp_next(p));
            FLOE_TRY(rp_expect(p, "of"));
            FLOE_TRY(rp_expect(p, "version"));
            FLOE_TRY(rp_number(p, "the snapshot id", &r->snapshot_id));
            r->has_version = true;
        }
        if (rp_is(p, "retain")) {
            int64_t n = 0;
            FLOE_TRY(rp_next(p));
            FLOE_TRY(rp_number(p, "RETAIN", &n));
            FLOE_TRY(rp_duration(p, n, "RETAIN", &r->max_ref_age_ms));
        }
        if (!r->is_tag && rp_is(p, "with")) {
            FLOE_TRY(rp_next(p));
            FLOE_TRY(rp_expect(p, "snapshot"));
            FLOE_TRY(rp_expect(p, "retention"));
            int64_t n = 0;
            FLOE_TRY(rp_number(p, "SNAPSHOT RETENTION", &n));
            bool age = true;
            if (rp_is(p, "snapshots")) {
                if (n <= 0) return rp_err(p, "Min snapshots to keep must be greater than 0%s", "");
                r->min_snapshots = n;
                FLOE_TRY(rp_next(p));
                age = p->number;
                if (age) FLOE_TRY(rp_number(p, "SNAPSHOT RETENTION", &n));
            }
            if (age) FLOE_TRY(rp_duration(p, n, "snapshot retention", &r->max_snapshot_age_ms));
        }
    }
    if (p->tok_len)
        return rp_err(p, "unexpected '%s'", p->buf);
    return NULL;
}

/* ------------------------------------------------------------ changing */

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "ALTER TABLE: out of memory"); }

static floe_status bad(const char *fmt, const char *a, const char *b) {
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, fmt, a, b);
}

/* Set the tree's ref `r->name` to `snapshot_id` (of type branch / tag,
 * keeping settings already there), with the statement's retention. */
static floe_status tree_put_ref(json_t *root, const ref_stmt *r, int64_t snapshot_id, bool fresh) {
    json_t *refs = json_object_get(root, "refs");
    if (!json_is_object(refs)) {
        /* Metadata of older writers has no "refs"; main was implied by
         * current-snapshot-id and must be written out now. */
        refs = json_object();
        if (!refs || json_object_set_new(root, "refs", refs)) return oom();
        json_t *cur = json_object_get(root, "current-snapshot-id");
        if (json_is_integer(cur) && json_integer_value(cur) >= 0 &&
            json_object_set_new(refs, "main", json_pack("{s:I, s:s}", "snapshot-id", json_integer_value(cur), "type", "branch")))
            return oom();
    }
    json_t *ref = json_object_get(refs, r->name);
    if (!json_is_object(ref) || fresh) {
        ref = json_object();
        if (!ref || json_object_set_new(refs, r->name, ref)) return oom();
    }
    int rc = json_object_set_new(ref, "snapshot-id", json_integer(snapshot_id));
    rc |= json_object_set_new(ref, "type", json_string(r->is_tag ? "tag" : "branch"));
    if (r->max_ref_age_ms > 0) rc |= json_object_set_new(ref, "max-ref-age-ms", json_integer(r->max_ref_age_ms));
    if (r->max_snapshot_age_ms > 0)
        rc |= json_object_set_new(ref, "max-snapshot-age-ms", json_integer(r->max_snapshot_age_ms));
    if (r->min_snapshots > 0) rc |= json_object_set_new(ref, "min-snapshots-to-keep", json_integer(r->min_snapshots));
    if (!r->is_tag && !strcmp(r->name, "main")) {
        /* main is the table's current snapshot (Java's setBranchSnapshot). */
        rc |= json_object_set_new(root, "current-snapshot-id", json_integer(snapshot_id));
        json_t *log = json_object_get(root, "snapshot-log");
        if (!json_is_array(log)) {
            log = json_array();
            rc |= !log || json_object_set_new(root, "snapshot-log", log);
        }
        json_t *e = json_pack("{s:I, s:I}", "timestamp-ms", (json_int_t)floe_ice_now_ms(), "snapshot-id",
                              (json_int_t)snapshot_id);
        rc |= !e || json_array_append_new(log, e);
    }
    return rc ? oom() : NULL;
}

static floe_status put_ref(const floe_ice_table_metadata *md, const ref_stmt *r, int64_t snapshot_id, bool fresh,
                           floe_ice_table_metadata **out) {
    if (!floe_ice_tm_snapshot(md, snapshot_id))
        return floe_error(FLOE_ERR_NOT_FOUND, "Cannot set %s to unknown snapshot: %lld", r->name, (long long)snapshot_id);
    json_t *root = NULL;
    FLOE_TRY(floe_ice_tm_edit_begin(md, &root));
    floe_status st = tree_put_ref(root, r, snapshot_id, fresh);
    if (st) {
        json_decref(root);
        return st;
    }
    return floe_ice_tm_edit_finish(md, root, out);
}

static floe_status drop_ref(const floe_ice_table_metadata *md, const ref_stmt *r, floe_ice_table_metadata **out) {
    json_t *root = NULL;
    FLOE_TRY(floe_ice_tm_edit_begin(md, &root));
    json_object_del(json_object_get(root, "refs"), r->name);
    return floe_ice_tm_edit_finish(md, root, out);
}

/* An empty snapshot (no files) on a new branch of a table with none:
 * Java's createBranch(name) without a current snapshot. */
static floe_status build_empty_main(const floe_ice_table *t, void *ctx, floe_ice_table_metadata **out,
                                    floe_ice_append_files *written) {
    (void)ctx;
    return floe_ice_tm_append_snapshot(t, NULL, NULL, 0, NULL, 0, out, written);
}

static floe_status create_empty_branch(const floe_ice_table *t, const ref_stmt *r, floe_ice_table_metadata **out,
                                       floe_ice_append_files *written) {
    floe_ice_table_metadata *made = NULL;
    if (floe_ice_branch_is_main(r->name)) FLOE_TRY(build_empty_main(t, NULL, &made, written));
    else FLOE_TRY(floe_ice_branch_build(t, r->name, build_empty_main, NULL, &made, written));
    /* The retention settings on top (the ref exists now). */
    const floe_ice_snapshot_ref *ref = floe_ice_tm_ref(made, r->name);
    floe_status st = ref ? NULL : floe_error(FLOE_ERR_INTERNAL, "ALTER TABLE: the new branch %s is missing", r->name);
    json_t *root = NULL;
    if (!st) st = floe_ice_tm_edit_begin(made, &root);
    if (!st) {
        /* Only retention: the snapshot-log entry of main was made already. */
        json_t *jref = json_object_get(json_object_get(root, "refs"), r->name);
        int rc = !jref;
        if (!rc && r->max_ref_age_ms > 0) rc |= json_object_set_new(jref, "max-ref-age-ms", json_integer(r->max_ref_age_ms));
        if (!rc && r->max_snapshot_age_ms > 0)
            rc |= json_object_set_new(jref, "max-snapshot-age-ms", json_integer(r->max_snapshot_age_ms));
        if (!rc && r->min_snapshots > 0)
            rc |= json_object_set_new(jref, "min-snapshots-to-keep", json_integer(r->min_snapshots));
        if (rc) {
            json_decref(root);
            root = NULL;
            st = oom();
        }
    }
    if (!st) st = floe_ice_tm_edit_finish(made, root, out);
    floe_ice_table_metadata_free(made);
    return st;
}

static floe_status build_branch(const floe_ice_table *t, const ref_stmt *r, floe_ice_table_metadata **out,
                                floe_ice_append_files *written) {
    const floe_ice_table_metadata *md = t->md;
    const floe_ice_snapshot_ref *ref = floe_ice_tm_ref(md, r->name);
    int64_t id = r->has_version ? r->snapshot_id : md->current_snapshot_id;
    bool create = r->op == REF_CREATE || (r->op == REF_CREATE_OR_REPLACE && !ref);
    if (create) {
        if (ref && r->if_exists) return NULL;
        if (ref) return bad("Ref %s already exists%s", r->name, "");
        if (id == FLOE_ICE_NO_SNAPSHOT) return create_empty_branch(t, r, out, written);
        return put_ref(md, r, id, true, out);
    }
    if (id == FLOE_ICE_NO_SNAPSHOT)
        return bad("Cannot complete replace branch operation on %s, main has no snapshot%s", r->table, "");
    if (!ref) return floe_error(FLOE_ERR_NOT_FOUND, "Branch does not exist: %s", r->name);
    if (ref->is_tag) return bad("Ref %s is a tag not a branch%s", r->name, "");
    return put_ref(md, r, id, false, out);
}

static floe_status build_tag(const floe_ice_table_metadata *md, const ref_stmt *r, floe_ice_table_metadata **out) {
    const floe_ice_snapshot_ref *ref = floe_ice_tm_ref(md, r->name);
    int64_t id = r->has_version ? r->snapshot_id : md->current_snapshot_id;
    if (id == FLOE_ICE_NO_SNAPSHOT)
        return bad("Cannot complete create or replace tag operation on %s, main has no snapshot%s", r->table, "");
    if (r->op == REF_CREATE) {
        if (ref && r->if_exists) return NULL;
        if (ref) return bad("Ref %s already exists%s", r->name, "");
        if (!strcmp(r->name, "main")) return bad("Cannot create tag %s: main must be a branch%s", r->name, "");
        return put_ref(md, r, id, true, out);
    }
    if (!ref) return put_ref(md, r, id, true, out);
    if (!ref->is_tag) return bad("Ref %s is a branch not a tag%s", r->name, "");
    return put_ref(md, r, id, false, out);
}

static floe_status build_drop(const floe_ice_table_metadata *md, const ref_stmt *r, floe_ice_table_metadata **out) {
    const floe_ice_snapshot_ref *ref = floe_ice_tm_ref(md, r->name);
    if (!ref && r->if_exists) return NULL;
    if (!r->is_tag) {
        if (!strcmp(r->name, "main")) return bad("Cannot remove main branch%s%s", "", "");
        if (!ref) return floe_error(FLOE_ERR_NOT_FOUND, "Branch does not exist: %s", r->name);
        if (ref->is_tag) return bad("Ref %s is a tag not a branch%s", r->name, "");
    } else {
        if (!ref) return floe_error(FLOE_ERR_NOT_FOUND, "Tag does not exist: %s", r->name);
        if (!ref->is_tag) return bad("Ref %s is a branch not a tag%s", r->name, "");
    }
    return drop_ref(md, r, out);
}

static floe_status build_ref_change(const floe_ice_table *t, void *ctx, floe_ice_table_metadata **out,
                                    floe_ice_append_files *written) {
    const ref_stmt *r = ctx;
    *out = NULL;
    if (r->op == REF_DROP) return build_drop(t->md, r, out);
    if (r->is_tag) return build_tag(t->md, r, out);
    return build_branch(t, r, out, written);
}

floe_status floe_sql_exec_ref_ddl(floe_session *s, const floe_sql_stmt *stmt, const char *ns, const char *name,
                                  bool if_table_exists, int32_t table_location) {
    const floe_sql_clause *c = floe_sql_stmt_clause(stmt, FLOE_SQL_REF_DDL, -1);
    if (!c) return floe_error(FLOE_ERR_INTERNAL, "ALTER TABLE: the branch/tag clause is missing");
    char label[2 * REF_NAME_MAX + 4];
    snprintf(label, sizeof label, "%s.%s", ns, name);
    ref_stmt r = {.op = REF_CREATE, .max_ref_age_ms = -1, .max_snapshot_age_ms = -1, .min_snapshots = -1, .table = label};
    rp p = {.text = c->text, .s = s, .location = c->location};
    FLOE_TRY(parse_ref_stmt(&p, &r));
    if (if_table_exists) {
        bool exists = false;
        FLOE_TRY(floe_catalog_table_exists(s->catalog, ns, name, &exists));
        if (!exists) return NULL;
    }
    int retries = floe_catalog_retry_settings(NULL).num_retries;
    floe_status st = floe_catalog_commit_retrying(s->catalog, ns, name, "ALTER TABLE", retries, build_ref_change, &r, NULL);
    if (st && table_location >= 0 && s->script) {
        int32_t line = 0, col = 0;
        floe_sql_line_col(s->script->sql, table_location, &line, &col);
        return floe_status_wrap(st, "line %d, column %d", (int)line, (int)col);
    }
    return st;
}
