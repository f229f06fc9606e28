/*
 * schema.c — Iceberg schemas (see floe/iceberg_schema.h): validation, the
 * field index by id and by dotted name, and the JSON form.
 *
 * The index is three sorted arrays searched with bsearch: fields by id, names
 * (canonical and short aliases) by exact bytes, and ASCII-lowercased names.
 * Building it costs O(n log n) once per schema; lookups are O(log n).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/memory.h"
#include "iceberg/spec/ice_internal.h"

typedef struct {
    int32_t id;
    int32_t parent;          /* -1 at top level */
    bool in_collection;      /* under a list element or map key/value */
    bool optional_ancestor;  /* some enclosing field is optional */
    const floe_ice_field *field;
    char *name;              /* canonical full name (owned) */
} id_entry;

typedef struct {
    char *name;      /* owned */
    int32_t id;
    bool ambiguous;  /* two different fields share this name */
    bool canonical;  /* a full name rather than a short alias */
} name_entry;

struct floe_ice_schema_index {
    id_entry *by_id;
    int32_t n_ids;
    name_entry *by_name;
    size_t n_names, cap_names;
    name_entry *by_lower;
    size_t n_lower;
    int32_t highest;
};

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory indexing a schema"); }

static void index_free(floe_ice_schema_index *ix) {
    if (!ix) return;
    for (int32_t i = 0; i < ix->n_ids; i++) floe_free(ix->by_id[i].name);
    for (size_t i = 0; i < ix->n_names; i++) floe_free(ix->by_name[i].name);
    for (size_t i = 0; i < ix->n_lower; i++) floe_free(ix->by_lower[i].name);
    floe_free(ix->by_id);
    floe_free(ix->by_name);
    floe_free(ix->by_lower);
    floe_free(ix);
}

void floe_ice_schema_free(floe_ice_schema *s) {
    if (!s) return;
    index_free(s->index);
    floe_ice_type_free(s->root);
    floe_free(s->identifier_field_ids);
    floe_free(s);
}

/* ---- building the index ------------------------------------------------- */

typedef struct {
    floe_ice_schema_index *ix;
    int32_t cap_ids;
    int32_t schema_id;
} builder;

static char *join(const char *prefix, const char *name) {
    if (!prefix || !*prefix) return floe_strdup(name);
    size_t a = strlen(prefix), n = strlen(name);
    char *s = floe_malloc(a + n + 2);
    if (!s) return NULL;
    memcpy(s, prefix, a);
    s[a] = '.';
    memcpy(s + a + 1, name, n + 1);
    return s;
}

static floe_status add_name(builder *b, char *name, int32_t id, bool canonical) {
    floe_ice_schema_index *ix = b->ix;
    if (ix->n_names == ix->cap_names) {
        size_t cap = ix->cap_names ? ix->cap_names * 2 : 32;
        name_entry *p = floe_realloc(ix->by_name, cap * sizeof *p);
        if (!p) {
            floe_free(name);
            return oom();
        }
        ix->by_name = p;
        ix->cap_names = cap;
    }
    ix->by_name[ix->n_names++] = (name_entry){name, id, false, canonical};
    return NULL;
}

static floe_status visit(builder *b, const floe_ice_type *t, int32_t parent, const char *full, const char *shrt,
                         bool in_coll, bool opt_anc) {
    for (int32_t i = 0; i < t->n_fields; i++) {
        const floe_ice_field *f = &t->fields[i];
        if (!f->type || !f->name)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "schema %d: field %d has no name or type", b->schema_id, f->id);
        if (f->id < 0)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "schema %d: field '%s' has negative id %d", b->schema_id,
                              f->name, f->id);
        floe_ice_schema_index *ix = b->ix;
        if (ix->n_ids == b->cap_ids) {
            int32_t cap = b->cap_ids ? b->cap_ids * 2 : 32;
            id_entry *p = floe_realloc(ix->by_id, (size_t)cap * sizeof *p);
            if (!p) return oom();
            ix->by_id = p;
            b->cap_ids = cap;
        }
        char *fname = join(full, f->name);
        if (!fname) return oom();
        bool coll = in_coll || t->id == FLOE_ICE_LIST || t->id == FLOE_ICE_MAP;
        ix->by_id[ix->n_ids++] = (id_entry){f->id, parent, coll, opt_anc, f, fname};
        if (f->id > ix->highest) ix->highest = f->id;

        /* Canonical name, and the short alias when it differs. */
        char *cname = floe_strdup(fname);
        if (!cname) return oom();
        FLOE_TRY(add_name(b, cname, f->id, true));
        char *sname = join(shrt, f->name);
        if (!sname) return oom();
        bool alias = strcmp(sname, fname) != 0;
        if (alias) FLOE_TRY(add_name(b, sname, f->id, false)); /* the table owns it now */

        floe_status st = NULL;
        if (floe_ice_type_is_nested(f->type)) {
            /* Below a list element or map value that is a struct, the short
             * name skips "element"/"value" (Java's IndexByName). */
            bool skip = (t->id == FLOE_ICE_LIST || (t->id == FLOE_ICE_MAP && i == 1)) &&
                        f->type->id == FLOE_ICE_STRUCT;
            st = visit(b, f->type, f->id, fname, skip ? shrt : sname, coll, opt_anc || !f->required);
        }
        if (!alias) floe_free(sname);
        if (st) return st;
    }
    return NULL;
}

static int cmp_id(const void *a, const void *b) {
    int32_t x = ((const id_entry *)a)->id, y = ((const id_entry *)b)->id;
    return x < y ? -1 : x > y;
}

/* Names sort by bytes, canonical before alias for equal names. */
static int cmp_name(const void *a, const void *b) {
    const name_entry *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    if (x->canonical != y->canonical) return x->canonical ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Collapse runs of equal names (the caller has ruled out two canonical
 * names for different fields): a canonical name wins over aliases, and
 * aliases of different fields make the name ambiguous. */
static void dedupe_names(name_entry *arr, size_t *n) {
    size_t w = 0;
    for (size_t r = 0; r < *n;) {
        size_t e = r + 1;
        while (e < *n && strcmp(arr[e].name, arr[r].name) == 0) e++;
        name_entry keep = arr[r];
        for (size_t k = r + 1; k < e; k++) {
            if (arr[k].id != keep.id && (!keep.canonical || arr[k].canonical)) keep.ambiguous = true;
            floe_free(arr[k].name);
        }
        arr[w++] = keep;
        r = e;
    }
    *n = w;
}

static floe_status build_index(floe_ice_schema *s) {
    builder b = {0};
    b.schema_id = s->schema_id;
    b.ix = floe_calloc(1, sizeof *b.ix);
    if (!b.ix) return oom();
    s->index = b.ix;
    floe_ice_schema_index *ix = b.ix;
    FLOE_TRY(visit(&b, s->root, -1, "", "", false, false));

    if (ix->n_ids) qsort(ix->by_id, (size_t)ix->n_ids, sizeof *ix->by_id, cmp_id);
    for (int32_t i = 1; i < ix->n_ids; i++)
        if (ix->by_id[i].id == ix->by_id[i - 1].id)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "schema %d: field id %d is used by both '%s' and '%s'",
                              s->schema_id, ix->by_id[i].id, ix->by_id[i - 1].name, ix->by_id[i].name);

    if (ix->n_names) qsort(ix->by_name, ix->n_names, sizeof *ix->by_name, cmp_name);
    /* Two fields with one full name make the schema invalid (Java rejects
     * it too); check before de-duplicating frees anything. */
    for (size_t i = 1; i < ix->n_names; i++) {
        name_entry *p = &ix->by_name[i - 1], *q = &ix->by_name[i];
        if (p->canonical && q->canonical && p->id != q->id && strcmp(p->name, q->name) == 0)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "schema %d: multiple fields for name '%s': %d and %d",
                              s->schema_id, p->name, p->id, q->id);
    }
    dedupe_names(ix->by_name, &ix->n_names);

    ix->by_lower = ix->n_names ? floe_calloc(ix->n_names, sizeof *ix->by_lower) : NULL;
    if (ix->n_names && !ix->by_lower) return oom();
    for (size_t i = 0; i < ix->n_names; i++) {
        char *l = floe_strdup(ix->by_name[i].name);
        if (!l) return oom();
        for (char *c = l; *c; c++) *c = (char)tolower((unsigned char)*c);
        ix->by_lower[i] = ix->by_name[i];
        ix->by_lower[i].name = l;
        ix->by_lower[i].canonical = false; /* case folding: any clash is ambiguous */
        ix->n_lower = i + 1;
    }
    if (ix->n_lower) qsort(ix->by_lower, ix->n_lower, sizeof *ix->by_lower, cmp_name);
    dedupe_names(ix->by_lower, &ix->n_lower);
    return NULL;
}

static const id_entry *find_id(const floe_ice_schema *s, int32_t id);

static floe_status check_identifiers(const floe_ice_schema *s) {
    for (int32_t i = 0; i < s->n_identifier_field_ids; i++) {
        int32_t id = s->identifier_field_ids[i];
        const floe_ice_field *f = floe_ice_schema_find_field(s, id);
        const char *why = NULL;
        if (!f) why = "does not exist";
        else if (!floe_ice_type_is_primitive(f->type)) why = "is not a primitive type";
        else if (!f->required) why = "is optional";
        else if (f->type->id == FLOE_ICE_FLOAT || f->type->id == FLOE_ICE_DOUBLE) why = "is a float or double";
        else if (floe_ice_schema_in_list_or_map(s, id)) why = "is nested in a list or map";
        else if (find_id(s, id)->optional_ancestor) why = "is nested in an optional struct";
        if (why)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "schema %d: identifier field %d%s%s%s %s", s->schema_id, id,
                              f ? " ('" : "", f ? floe_ice_schema_field_name(s, id) : "", f ? "')" : "", why);
    }
    return NULL;
}

floe_status floe_ice_schema_new(int32_t schema_id, floe_ice_type *root, const int32_t *ids, int32_t n_ids,
                                floe_ice_schema **out) {
    *out = NULL;
    if (!root || root->id != FLOE_ICE_STRUCT) {
        floe_ice_type_free(root);
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "schema %d: the root type must be a struct", schema_id);
    }
    floe_ice_schema *s = floe_calloc(1, sizeof *s);
    if (!s) {
        floe_ice_type_free(root);
        return oom();
    }
    s->schema_id = schema_id;
    s->root = root;
    floe_status st = NULL;
    if (n_ids > 0) {
        s->identifier_field_ids = floe_malloc_array((size_t)n_ids, sizeof(int32_t));
        if (!s->identifier_field_ids) st = oom();
        else memcpy(s->identifier_field_ids, ids, (size_t)n_ids * sizeof(int32_t));
        s->n_identifier_field_ids = st ? 0 : n_ids;
    }
    if (!st) st = build_index(s);
    if (!st) st = check_identifiers(s);
    if (st) {
        floe_ice_schema_free(s);
        return st;
    }
    *out = s;
    return NULL;
}

floe_status floe_ice_schema_copy(const floe_ice_schema *s, floe_ice_schema **out) {
    *out = NULL;
    floe_ice_type *root = NULL;
    FLOE_TRY(floe_ice_type_copy(s->root, &root));
    return floe_ice_schema_new(s->schema_id, root, s->identifier_field_ids, s->n_identifier_field_ids, out);
}

bool floe_ice_schema_same_structure(const floe_ice_schema *a, const floe_ice_schema *b) {
    if (a->n_identifier_field_ids != b->n_identifier_field_ids) return false;
    for (int32_t i = 0; i < a->n_identifier_field_ids; i++)
        if (a->identifier_field_ids[i] != b->identifier_field_ids[i]) return false;
    return floe_ice_type_equals(a->root, b->root);
}

/* ---- lookups ------------------------------------------------------------ */

static const id_entry *find_id(const floe_ice_schema *s, int32_t id) {
    if (!s->index || s->index->n_ids == 0) return NULL;
    id_entry key = {.id = id};
    return bsearch(&key, s->index->by_id, (size_t)s->index->n_ids, sizeof key, cmp_id);
}

int32_t floe_ice_schema_field_count(const floe_ice_schema *s) { return s->index ? s->index->n_ids : 0; }
int32_t floe_ice_schema_highest_field_id(const floe_ice_schema *s) { return s->index ? s->index->highest : 0; }

const floe_ice_field *floe_ice_schema_find_field(const floe_ice_schema *s, int32_t id) {
    const id_entry *e = find_id(s, id);
    return e ? e->field : NULL;
}

const char *floe_ice_schema_field_name(const floe_ice_schema *s, int32_t id) {
    const id_entry *e = find_id(s, id);
    return e ? e->name : NULL;
}

int32_t floe_ice_schema_parent_id(const floe_ice_schema *s, int32_t id) {
    const id_entry *e = find_id(s, id);
    return e ? e->parent : -1;
}

bool floe_ice_schema_in_list_or_map(const floe_ice_schema *s, int32_t id) {
    const id_entry *e = find_id(s, id);
    return e && e->in_collection;
}

static int cmp_name_key(const void *key, const void *elem) {
    return strcmp((const char *)key, ((const name_entry *)elem)->name);
}

const floe_ice_field *floe_ice_schema_find_by_name(const floe_ice_schema *s, const char *name, bool case_sensitive) {
    if (!s->index || !name || s->index->n_names == 0) return NULL;
    const name_entry *e;
    if (case_sensitive) {
        e = bsearch(name, s->index->by_name, s->index->n_names, sizeof *e, cmp_name_key);
    } else {
        char buf[256];
        char *l = strlen(name) < sizeof buf ? buf : floe_malloc(strlen(name) + 1);
        if (!l) return NULL;
        size_t i = 0;
        for (; name[i]; i++) l[i] = (char)tolower((unsigned char)name[i]);
        l[i] = 0;
        e = bsearch(l, s->index->by_lower, s->index->n_lower, sizeof *e, cmp_name_key);
        if (l != buf) floe_free(l);
    }
    if (!e || e->ambiguous) return NULL;
    return floe_ice_schema_find_field(s, e->id);
}

/* ---- table-level rules -------------------------------------------------- */

/* Defaults are a v3 feature (defaults of unknown/variant/geo types are
 * already refused when read).  Whether a required field added later has an
 * initial default is the schema-evolution code's concern. */
floe_status floe_ice_schema_validate_for_table(const floe_ice_schema *s, int format_version) {
    for (int32_t i = 0; s->index && i < s->index->n_ids; i++) {
        const id_entry *e = &s->index->by_id[i];
        if (e->id > FLOE_ICE_MAX_USER_FIELD_ID)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                              "schema %d: field '%s' has id %d; ids above %d are reserved for metadata columns",
                              s->schema_id, e->name, e->id, FLOE_ICE_MAX_USER_FIELD_ID);
        const floe_ice_type *t = e->field->type;
        if (floe_ice_type_is_primitive(t) && floe_ice_type_min_format_version(t) > format_version)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "schema %d: field '%s' has type '%s', which needs format version %d",
                              s->schema_id, e->name, floe_ice_type_id_name(t->id), floe_ice_type_min_format_version(t));
        if (format_version < 3 && (e->field->initial_default || e->field->initial_default_json ||
                                   e->field->write_default || e->field->write_default_json))
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "schema %d: field '%s' has a default value, which format version %d cannot store",
                              s->schema_id, e->name, format_version);
    }
    return NULL;
}

/* ---- JSON --------------------------------------------------------------- */

floe_status floe_ice_schema_from_json(json_t *j, floe_ice_schema **out) {
    *out = NULL;
    if (!json_is_object(j)) return floe_error(FLOE_ERR_CORRUPT, "schema: not a JSON object");
    char ctx[48] = "schema";
    int32_t id = 0;
    json_t *jid = json_object_get(j, "schema-id");
    if (jid) {
        FLOE_TRY(floe_ice_json_int32(j, "schema-id", true, "schema", &id));
        snprintf(ctx, sizeof ctx, "schema %d", id);
    }
    json_t *jt = json_object_get(j, "type");
    if (jt && (!json_is_string(jt) || strcmp(json_string_value(jt), "struct") != 0))
        return floe_error(FLOE_ERR_CORRUPT, "%s: 'type' must be \"struct\"", ctx);

    int32_t *ids = NULL;
    size_t n_ids = 0;
    json_t *jids = json_object_get(j, "identifier-field-ids");
    if (jids && !json_is_null(jids)) {
        if (!json_is_array(jids)) return floe_error(FLOE_ERR_CORRUPT, "%s: 'identifier-field-ids' must be an array", ctx);
        n_ids = json_array_size(jids);
        if (n_ids) {
            ids = floe_malloc_array(n_ids, sizeof *ids);
            if (!ids) return oom();
        }
        for (size_t i = 0; i < n_ids; i++) {
            json_t *x = json_array_get(jids, i);
            if (!json_is_integer(x) || json_integer_value(x) < 0 || json_integer_value(x) > INT32_MAX) {
                floe_free(ids);
                return floe_error(FLOE_ERR_CORRUPT, "%s: 'identifier-field-ids' must hold field ids", ctx);
            }
            ids[i] = (int32_t)json_integer_value(x);
        }
    }
    /* Parse the struct itself through the type parser (which wants the
     * "type" key): a schema object missing it is still a struct. */
    floe_ice_type *root = NULL;
    floe_status st;
    if (!json_object_get(j, "fields")) {
        st = floe_error(FLOE_ERR_CORRUPT, "%s: missing 'fields'", ctx);
    } else if (jt) {
        st = floe_ice_type_from_json(j, ctx, "", &root);
    } else {
        json_t *tmp = json_pack("{s:s, s:O}", "type", "struct", "fields", json_object_get(j, "fields"));
        st = tmp ? floe_ice_type_from_json(tmp, ctx, "", &root) : oom();
        json_decref(tmp);
    }
    if (!st) st = floe_ice_schema_new(id, root, ids, (int32_t)n_ids, out);
    floe_free(ids);
    if (st && floe_status_code(st) == FLOE_ERR_INVALID_ARGUMENT) {
        /* A schema that fails validation while being read is corrupt input. */
        floe_status c = floe_error(FLOE_ERR_CORRUPT, "%s", floe_status_message(st));
        floe_status_free(st);
        return c;
    }
    return st;
}

floe_status floe_ice_schema_to_json(const floe_ice_schema *s, json_t **out) {
    *out = NULL;
    json_t *o = NULL;
    FLOE_TRY(floe_ice_type_to_json(s->root, &o));
    /* Put schema-id and identifier ids before "fields", as Java does. */
    json_t *fields = json_incref(json_object_get(o, "fields"));
    json_object_del(o, "fields");
    bool ok = json_object_set_new(o, "schema-id", json_integer(s->schema_id)) == 0;
    if (ok && s->n_identifier_field_ids > 0) {
        json_t *arr = json_array();
        ok = arr && json_object_set_new(o, "identifier-field-ids", arr) == 0;
        for (int32_t i = 0; ok && i < s->n_identifier_field_ids; i++)
            ok = json_array_append_new(arr, json_integer(s->identifier_field_ids[i])) == 0;
    }
    ok = ok && json_object_set_new(o, "fields", fields) == 0;
    if (!ok) {
        json_decref(o);
        return oom();
    }
    *out = o;
    return NULL;
}

floe_status floe_ice_schema_from_json_text(const char *text, floe_ice_schema **out) {
    *out = NULL;
    json_t *j = NULL;
    FLOE_TRY(floe_ice_json_parse_text(text, "schema", &j));
    floe_status st = floe_ice_schema_from_json(j, out);
    json_decref(j);
    return st;
}

floe_status floe_ice_schema_to_json_text(const floe_ice_schema *s, char **out) {
    *out = NULL;
    json_t *j = NULL;
    FLOE_TRY(floe_ice_schema_to_json(s, &j));
    floe_status st = floe_ice_json_dump(j, out);
    json_decref(j);
    return st;
}
