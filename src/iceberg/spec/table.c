/*
 * table.c — an Iceberg table on storage: finding its current metadata file
 * (version-hint.text and any newer v<N>.metadata.json the hint lags
 * behind, else the highest-numbered metadata file) and mapping
 * the paths recorded inside it to where the table is now.
 *
 * Tables get copied and moved (and test tables are committed with paths
 * relative to some other directory), so with allow_moved_paths every path
 * read from metadata, manifest lists and manifests goes through
 * floe_ice_table_resolve_path(), the one place that knows how.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "floe/iceberg_manifest.h"
#include "floe/iceberg_table_metadata.h"
#include "iceberg/spec/ice_internal.h"
#include "floe/memory.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory locating a table"); }

static bool ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

static const char *base_name(const char *p) {
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static char *join(const char *dir, const char *name) {
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = floe_buf_printf(&b, "%s/%s", dir, name);
    if (st) {
        floe_status_free(st);
        floe_buf_free(&b);
        return NULL;
    }
    return (char *)floe_buf_detach(&b, NULL);
}

/* The version number of a metadata file name, or -1: "v12.metadata.json",
 * "v3.gz.metadata.json", "00012-<uuid>.metadata.json" (also .gz). */
static int64_t metadata_version(const char *name) {
    if (!ends_with(name, ".metadata.json")) return -1;
    const char *p = name;
    bool v = false;
    if (*p == 'v') v = true, p++;
    if (!isdigit((unsigned char)*p)) return -1;
    int64_t n = 0;
    while (isdigit((unsigned char)*p)) {
        if (n > INT64_MAX / 10 - 10) return -1;
        n = n * 10 + (*p++ - '0');
    }
    if (v) return (strcmp(p, ".metadata.json") == 0 || strcmp(p, ".gz.metadata.json") == 0) ? n : -1;
    return *p == '-' ? n : -1;
}

typedef struct scan_state {
    const char *dir;        /* files directly in this directory count */
    int64_t want;           /* -1: highest; else this version only */
    int64_t best;
    char *best_path;
    char *odd_path;         /* best unnumbered metadata file */
    int64_t odd_mtime;
} scan_state;

static floe_status scan_one(void *ctx, const floe_file_info *info) {
    scan_state *s = ctx;
    const char *name = base_name(info->location);
    size_t dl = strlen(s->dir);
    /* Only files directly inside the metadata directory. */
    if (strncmp(info->location, s->dir, dl) != 0 || info->location + dl + 1 != name) return NULL;
    int64_t v = metadata_version(name);
    if (v < 0 && s->want < 0 && ends_with(name, ".metadata.json")) {
        /* An unnumbered name ("vfinal.metadata.json"): used only when no
         * numbered file exists, the most recently modified one first. */
        if (s->best < 0 && (!s->odd_path || info->last_modified_ms > s->odd_mtime ||
                            (info->last_modified_ms == s->odd_mtime && strcmp(info->location, s->odd_path) > 0))) {
            char *c = floe_strdup(info->location);
            if (!c) return oom();
            floe_free(s->odd_path);
            s->odd_path = c;
            s->odd_mtime = info->last_modified_ms;
        }
        return NULL;
    }
    if (v < 0 || (s->want >= 0 && v != s->want)) return NULL;
    /* Equal versions (v1 and 00001-...): prefer the lexically larger name
     * so the choice does not depend on listing order. */
    if (v > s->best || (v == s->best && s->best_path && strcmp(info->location, s->best_path) > 0)) {
        char *c = floe_strdup(info->location);
        if (!c) return oom();
        floe_free(s->best_path);
        s->best_path = c;
        s->best = v;
    }
    return NULL;
}

static floe_status scan_dir(floe_fileio *io, const char *dir, int64_t want, char **out) {
    *out = NULL;
    scan_state s = {dir, want, -1, NULL, NULL, -1};
    char *prefix = join(dir, "");
    if (!prefix) return oom();
    floe_status st = floe_fileio_list(io, prefix, scan_one, &s);
    floe_free(prefix);
    if (st || s.best_path) {
        floe_free(s.odd_path);
        if (st) floe_free(s.best_path);
        else *out = s.best_path;
        return st;
    }
    *out = s.odd_path;
    return NULL;
}

static floe_status exists(floe_fileio *io, const char *p, int *ex) {
    *ex = 0;
    floe_status st = floe_fileio_exists(io, p, ex);
    if (st && floe_status_code(st) == FLOE_ERR_NOT_FOUND) {
        floe_status_free(st);
        *ex = 0;
        return NULL;
    }
    return st;
}

/* First of the candidate names (relative to dir) that exists, or NULL. */
static floe_status first_existing(floe_fileio *io, const char *dir, const char *const *names, int n, char **out) {
    *out = NULL;
    for (int i = 0; i < n; i++) {
        char *p = join(dir, names[i]);
        if (!p) return oom();
        int ex = 0;
        floe_status st = exists(io, p, &ex);
        if (st || ex) {
            if (st) floe_free(p);
            else *out = p;
            return st;
        }
        floe_free(p);
    }
    return NULL;
}

/* v<version>.metadata.json (or its .gz form) in mdir when it exists. */
static floe_status hadoop_version(floe_fileio *io, const char *mdir, int64_t version, char **out) {
    char c1[64], c2[64];
    snprintf(c1, sizeof c1, "v%lld.metadata.json", (long long)version);
    snprintf(c2, sizeof c2, "v%lld.gz.metadata.json", (long long)version);
    const char *names[] = {c1, c2};
    return first_existing(io, mdir, names, 2, out);
}

static floe_status from_hint(floe_fileio *io, const char *mdir, char **out) {
    *out = NULL;
    char *hint_path = join(mdir, "version-hint.text");
    if (!hint_path) return oom();
    int ex = 0;
    floe_status st = exists(io, hint_path, &ex);
    if (st || !ex) {
        floe_free(hint_path);
        return st;
    }
    floe_input *in = NULL;
    uint8_t *data = NULL;
    size_t len = 0;
    st = floe_fileio_open_input(io, hint_path, &in);
    if (!st) {
        st = floe_input_read_all(in, &data, &len);
        floe_input_close(in);
    }
    floe_free(hint_path);
    if (st) return st;
    /* Trim blanks and newlines. */
    size_t b = 0, e = len;
    while (b < e && isspace(data[b])) b++;
    while (e > b && isspace(data[e - 1])) e--;
    char text[512];
    if (e - b == 0 || e - b >= sizeof text || memchr(data + b, '/', e - b)) {
        floe_free(data);
        return NULL; /* unusable hint: fall back to listing */
    }
    memcpy(text, data + b, e - b);
    text[e - b] = 0;
    floe_free(data);

    bool numeric = true;
    for (const char *p = text; *p; p++)
        if (!isdigit((unsigned char)*p)) numeric = false;
    char c1[600], c2[600], c3[600];
    if (numeric) {
        int64_t v = strtoll(text, NULL, 10);
        FLOE_TRY(hadoop_version(io, mdir, v, out));
        if (!*out) return scan_dir(io, mdir, v, out);
        /* A writer commits v<N+1> and then rewrites the hint, so the hint
         * may lag behind: newer versions win, as in Iceberg Java's
         * HadoopTableOperations. */
        for (;;) {
            char *next = NULL;
            FLOE_TRY(hadoop_version(io, mdir, ++v, &next));
            if (!next) return NULL;
            floe_free(*out);
            *out = next;
        }
    }
    snprintf(c1, sizeof c1, "%s", text);
    snprintf(c2, sizeof c2, "%s.metadata.json", text);
    snprintf(c3, sizeof c3, "%s.gz.metadata.json", text);
    const char *names[] = {c2, c3, c1};
    return first_existing(io, mdir, names, 3, out);
}

static floe_status find_metadata(floe_fileio *io, const char *path, char **out) {
    *out = NULL;
    if (ends_with(path, ".json")) {
        *out = floe_strdup(path);
        return *out ? NULL : oom();
    }
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    char *dir = floe_strndup(path, n);
    if (!dir) return oom();
    char *mdir = strcmp(base_name(dir), "metadata") == 0 ? floe_strdup(dir) : join(dir, "metadata");
    floe_free(dir);
    if (!mdir) return oom();
    floe_status st = from_hint(io, mdir, out);
    if (!st && !*out) st = scan_dir(io, mdir, -1, out);
    if (!st && !*out) st = floe_error(FLOE_ERR_NOT_FOUND, "no Iceberg metadata file found in '%s'", mdir);
    floe_free(mdir);
    return st;
}

floe_status floe_ice_table_find_metadata(floe_fileio *io, const char *dir_or_file, char **out) {
    *out = NULL;
    floe_fileio *own = NULL;
    if (!io) {
        FLOE_TRY(floe_fileio_new(NULL, 0, &own));
        io = own;
    }
    floe_status st = find_metadata(io, dir_or_file, out);
    floe_fileio_free(own);
    return st;
}

floe_status floe_ice_table_open(floe_fileio *io, const char *dir_or_file, bool allow_moved_paths,
                                floe_ice_table **out) {
    *out = NULL;
    floe_ice_table *t = floe_calloc(1, sizeof *t);
    if (!t) return oom();
    t->io = io;
    t->allow_moved_paths = allow_moved_paths;
    floe_status st = floe_ice_table_find_metadata(io, dir_or_file, &t->metadata_location);
    if (!st) st = floe_ice_table_metadata_read(io, t->metadata_location, &t->md);
    if (!st) {
        /* root: the directory holding metadata/ (or the metadata file's own
         * directory when that is not called "metadata"). */
        const char *loc = t->metadata_location;
        const char *slash = strrchr(loc, '/');
        size_t dl = slash ? (size_t)(slash - loc) : 0;
        char *dir = slash ? floe_strndup(loc, dl) : floe_strdup(".");
        if (!dir) st = oom();
        else if (strcmp(base_name(dir), "metadata") == 0) {
            char *s2 = strrchr(dir, '/');
            if (s2) *s2 = 0;
            else strcpy(dir, ".");
        }
        t->root = dir;
    }
    if (st) {
        floe_ice_table_free(t);
        return st;
    }
    *out = t;
    return NULL;
}

void floe_ice_table_free(floe_ice_table *t) {
    if (!t) return;
    floe_ice_table_metadata_free(t->md);
    floe_free(t->metadata_location);
    floe_free(t->root);
    floe_free(t);
}

/* ---- path remapping ------------------------------------------------------ */

/* Drop "file:"-style schemes and leading "./" so recorded paths compare. */
static const char *normalize(const char *p) {
    if (strncmp(p, "file://", 7) == 0) p += 7;
    else if (strncmp(p, "file:", 5) == 0) p += 5;
    while (p[0] == '.' && p[1] == '/') p += 2;
    return p;
}

static size_t trimmed_len(const char *p) {
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/') n--;
    return n;
}

static floe_status try_candidate(const floe_ice_table *t, floe_buf *b, char **out) {
    int ex = 0;
    floe_fileio *own = NULL, *io = t->io;
    if (!io) {
        FLOE_TRY(floe_fileio_new(NULL, 0, &own));
        io = own;
    }
    floe_status st = exists(io, floe_buf_cstr(b), &ex);
    floe_fileio_free(own);
    /* A candidate that cannot even be checked (an odd scheme) is no match. */
    if (st) {
        floe_status_free(st);
        return NULL;
    }
    if (ex) *out = (char *)floe_buf_detach(b, NULL);
    return NULL;
}

/* Re-root through the deepest directory the location and the path share:
 * location a/b/c/t, path a/b/x/f -> root/../../x/f (with root's last two
 * components dropped when it has them). */
static floe_status via_common_ancestor(const floe_ice_table *t, const char *loc, size_t ll, const char *p,
                                       char **out) {
    size_t common = 0; /* bytes of the shared directory prefix, ending at a '/' */
    for (size_t i = 0; i < ll && p[i] && p[i] == loc[i]; i++)
        if (loc[i] == '/') common = i + 1;
    if (common == 0 || (common == 1 && loc[0] == '/')) return NULL; /* nothing meaningful shared */
    int up = 1; /* components of loc after the common prefix */
    for (size_t i = common; i < ll; i++)
        if (loc[i] == '/') up++;
    floe_buf b = FLOE_BUF_INIT;
    size_t rl = strlen(t->root);
    int k = up;
    while (k > 0 && rl > 0) {
        const char *s = memrchr(t->root, '/', rl);
        if (!s || s == t->root) break;
        rl = (size_t)(s - t->root);
        k--;
    }
    floe_status st = floe_buf_append(&b, t->root, rl);
    for (int i = 0; !st && i < k; i++) st = floe_buf_append_str(&b, "/..");
    if (!st) st = floe_buf_printf(&b, "/%s", p + common);
    if (!st) st = try_candidate(t, &b, out);
    floe_buf_free(&b);
    return st;
}

/* The first suffix of `p` (at a '/' boundary) that exists under the root. */
static floe_status via_suffix(const floe_ice_table *t, const char *p, char **out) {
    for (const char *s = p; s && *s; s = strchr(s, '/')) {
        while (*s == '/') s++;
        if (!*s) break;
        floe_buf b = FLOE_BUF_INIT;
        floe_status st = floe_buf_printf(&b, "%s/%s", t->root, s);
        if (!st) st = try_candidate(t, &b, out);
        floe_buf_free(&b);
        if (st || *out) return st;
    }
    return NULL;
}

floe_status floe_ice_table_resolve_path(const floe_ice_table *t, const char *recorded, char **out) {
    *out = NULL;
    if (!recorded) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "resolving a path: no path given");
    if (t->allow_moved_paths && t->md && t->md->location) {
        const char *loc = normalize(t->md->location);
        size_t ll = trimmed_len(loc);
        const char *p = normalize(recorded);
        if (ll > 0 && strncmp(p, loc, ll) == 0 && (p[ll] == '/' || p[ll] == 0)) {
            floe_buf b = FLOE_BUF_INIT;
            floe_status st = floe_buf_printf(&b, "%s%s", t->root, p + ll);
            if (st) {
                floe_buf_free(&b);
                return st;
            }
            *out = (char *)floe_buf_detach(&b, NULL);
            return NULL;
        }
        FLOE_TRY(via_common_ancestor(t, loc, ll, p, out));
        if (*out) return NULL;
        FLOE_TRY(via_suffix(t, p, out));
        if (*out) return NULL;
    }
    *out = floe_strdup(recorded);
    return *out ? NULL : oom();
}

floe_status floe_ice_table_open_input(const floe_ice_table *t, const char *recorded, int64_t size,
                                      floe_input **in) {
    char *p = NULL;
    FLOE_TRY(floe_ice_table_resolve_path(t, recorded, &p));
    floe_status st;
    if (t->io)
        st = size > 0 ? floe_fileio_open_input_sized(t->io, p, (uint64_t)size, in)
                      : floe_fileio_open_input(t->io, p, in);
    else
        st = floe_input_open_local(p, in);
    floe_free(p);
    return st;
}

floe_status floe_ice_table_read_recorded(const floe_ice_table *t, const char *recorded, int64_t size,
                                         floe_status (*read)(floe_input *in, void *arg), void *arg) {
    floe_input *in = NULL;
    FLOE_TRY(floe_ice_table_open_input(t, recorded, size, &in));
    floe_status st = read(in, arg);
    floe_input_close(in);
    if (!st || !t->io || size <= 0) return st;
    /* Local files are opened at their real size whatever was recorded. */
    char *resolved = NULL;
    floe_status rs = floe_ice_table_resolve_path(t, recorded, &resolved);
    bool remote = !rs && strstr(resolved, "://") && strncmp(resolved, "file:", 5) != 0;
    floe_status_free(rs);
    floe_free(resolved);
    if (!remote || floe_status_code(st) == FLOE_ERR_OUT_OF_MEMORY || floe_status_code(st) == FLOE_ERR_CANCELLED)
        return st;
    floe_status again = floe_ice_table_open_input(t, recorded, 0, &in);
    if (again) {
        floe_status_free(again);
        return st;
    }
    floe_status_free(st);
    st = read(in, arg);
    floe_input_close(in);
    return st;
}

typedef struct manifest_read_arg {
    const floe_ice_manifest_file *inherit;
    floe_ice_manifest **out;
} manifest_read_arg;

static floe_status read_manifest_from(floe_input *in, void *varg) {
    manifest_read_arg *a = varg;
    return floe_ice_manifest_read(in, a->inherit, a->out);
}

floe_status floe_ice_table_read_manifest(const floe_ice_table *t, const floe_ice_manifest_file *mf,
                                         const floe_ice_manifest_file *inherit, floe_ice_manifest **out) {
    manifest_read_arg a = {inherit, out};
    return floe_ice_table_read_recorded(t, mf->manifest_path, mf->manifest_length > 0 ? mf->manifest_length : 0,
                                        read_manifest_from, &a);
}
