/*
 * fileio.c — the FileIO object: pick local or S3 by a location's scheme.
 *
 * Local paths may be plain ("/a/b", "a/b") or URIs ("file:/a/b",
 * "file:///a/b", as Java and Spark write them into Iceberg metadata).
 * s3://, s3a:// and s3n:// go to the S3 client, which is created once, from
 * the properties, when the FileIO is made.  Anything else (gs://, abfs://,
 * hdfs://) is FLOE_ERR_UNSUPPORTED with the location in the message.
 *
 * Listing reports locations in the form the prefix was given, so a caller
 * that asked for "file:///t/data/" gets "file:///t/data/x.parquet" back.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buffer.h"
#include "floe/fileio.h"
#include "floe/memory.h"
#include "io/credentials.h"
#include "io/s3.h"

struct floe_fileio {
    floe_s3_client *s3;
    floe_property *props; /* as given, for floe_fileio_properties */
    size_t nprops;
};

/* Keep a copy of the properties that mean something (a NULL key or value
 * is ignored by the configuration, so it is not kept either). */
static floe_status keep_properties(floe_fileio *io, const floe_property *props, size_t nprops) {
    size_t n = 0;
    for (size_t i = 0; props && i < nprops; i++)
        if (props[i].key && props[i].value) n++;
    if (!n) return NULL;
    floe_property *tmp = floe_calloc(n, sizeof *tmp);
    if (!tmp) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "creating FileIO");
    n = 0;
    for (size_t i = 0; i < nprops; i++)
        if (props[i].key && props[i].value) tmp[n++] = props[i];
    floe_status st = floe_properties_copy(tmp, n, &io->props);
    floe_free(tmp);
    if (!st) io->nprops = n;
    return st;
}

floe_status floe_fileio_new(const floe_property *props, size_t nprops, floe_fileio **out) {
    *out = NULL;
    floe_s3_config cfg;
    FLOE_TRY_CTX(floe_s3_config_from_props(props, nprops, &cfg), "configuring FileIO");
    floe_fileio *io = floe_calloc(1, sizeof *io);
    floe_status st = io ? floe_s3_client_new(&cfg, &io->s3)
                        : floe_error(FLOE_ERR_OUT_OF_MEMORY, "creating FileIO");
    floe_s3_config_clear(&cfg);
    if (!st) st = keep_properties(io, props, nprops);
    if (st) {
        floe_fileio_free(io);
        return st;
    }
    *out = io;
    return NULL;
}

void floe_fileio_free(floe_fileio *io) {
    if (!io) return;
    floe_s3_client_release(io->s3);
    floe_properties_free(io->props, io->nprops);
    floe_free(io);
}

void floe_fileio_properties(const floe_fileio *io, const floe_property **props, size_t *n) {
    *props = io ? io->props : NULL;
    *n = io ? io->nprops : 0;
}

/* The local path of a location, the length of the scheme text in front of
 * it ("file://" is 7), or -1 when the location is not local. */
static const char *local_path(const char *loc, size_t *scheme_len) {
    *scheme_len = 0;
    if (strncmp(loc, "file:", 5) == 0) {
        const char *p = loc + 5;
        if (strncmp(p, "//", 2) == 0) {
            /* file://host/path: only an empty host or "localhost" is local */
            const char *path = strchr(p + 2, '/');
            if (!path) return NULL;
            size_t hl = (size_t)(path - (p + 2));
            if (hl != 0 && !(hl == 9 && strncmp(p + 2, "localhost", 9) == 0)) return NULL;
            p = path;
        }
        *scheme_len = (size_t)(p - loc);
        return p;
    }
    const char *colon = strstr(loc, "://");
    if (colon) return NULL; /* some other scheme */
    return loc;
}

static floe_status unsupported(const char *loc) {
    return floe_error(FLOE_ERR_UNSUPPORTED,
                      "'%s': unsupported location scheme (floe reads local paths, file:// and "
                      "s3:// / s3a:// / s3n://)",
                      loc);
}

floe_status floe_fileio_open_input(floe_fileio *io, const char *location, floe_input **out) {
    *out = NULL;
    if (floe_s3_is_location(location)) return floe_s3_open_input(io->s3, location, out);
    size_t sl;
    const char *path = local_path(location, &sl);
    if (!path) return unsupported(location);
    return floe_input_open_local(path, out);
}

floe_status floe_fileio_open_input_sized(floe_fileio *io, const char *location, uint64_t size,
                                         floe_input **out) {
    *out = NULL;
    if (floe_s3_is_location(location)) return floe_s3_open_input_sized(io->s3, location, size, out);
    return floe_fileio_open_input(io, location, out);
}

floe_status floe_fileio_create_output(floe_fileio *io, const char *location, int overwrite,
                                      floe_output **out) {
    *out = NULL;
    if (floe_s3_is_location(location)) return floe_s3_create_output(io->s3, location, overwrite, out);
    size_t sl;
    const char *path = local_path(location, &sl);
    if (!path) return unsupported(location);
    return floe_output_create_local(path, overwrite, out);
}

floe_status floe_fileio_delete(floe_fileio *io, const char *location) {
    if (floe_s3_is_location(location)) return floe_s3_delete(io->s3, location);
    size_t sl;
    const char *path = local_path(location, &sl);
    if (!path) return unsupported(location);
    if (unlink(path) != 0 && errno != ENOENT)
        return floe_error(FLOE_ERR_IO, "cannot delete '%s': %s", location, strerror(errno));
    return NULL;
}

floe_status floe_fileio_exists(floe_fileio *io, const char *location, int *exists) {
    *exists = 0;
    if (floe_s3_is_location(location)) return floe_s3_exists(io->s3, location, exists);
    size_t sl;
    const char *path = local_path(location, &sl);
    if (!path) return unsupported(location);
    struct stat sb;
    if (stat(path, &sb) == 0) {
        *exists = 1;
        return NULL;
    }
    if (errno == ENOENT || errno == ENOTDIR) return NULL;
    return floe_error(FLOE_ERR_IO, "cannot check '%s': %s", location, strerror(errno));
}

/* ---- local listing ------------------------------------------------------------ */

typedef struct local_walk {
    const char *prefix;    /* the full prefix as given (with scheme) */
    size_t scheme_len;     /* scheme text in front of the path */
    const char *path_prefix;
    floe_fileio_list_fn fn;
    void *ctx;
    size_t strip;          /* leading "./" we added to a bare relative prefix */
    floe_buf loc;          /* scratch: the location being reported */
    int depth;
} local_walk;

/* Walk `dir` (a path buffer that may be extended) without following
 * symbolic links to directories, reporting regular files under the prefix. */
static floe_status walk_dir(local_walk *w, floe_buf *dir) {
    if (++w->depth > 256) {
        w->depth--;
        return floe_error(FLOE_ERR_IO, "'%s': directories nested too deeply", floe_buf_cstr(dir));
    }
    DIR *d = opendir(floe_buf_cstr(dir));
    if (!d) {
        w->depth--;
        if (errno == ENOENT || errno == ENOTDIR) return NULL;
        return floe_error(FLOE_ERR_IO, "cannot list '%s': %s", floe_buf_cstr(dir), strerror(errno));
    }
    size_t base_len = dir->len;
    floe_status st = NULL;
    struct dirent *de;
    while (!st && (errno = 0, de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
        dir->len = base_len;
        dir->data[dir->len] = 0;
        if (base_len && dir->data[base_len - 1] != '/') st = floe_buf_append_byte(dir, '/');
        if (!st) st = floe_buf_append_str(dir, de->d_name);
        if (st) break;
        const char *full = floe_buf_cstr(dir);
        struct stat sb;
        if (lstat(full, &sb) != 0) continue; /* vanished meanwhile */
        /* A symlink to a file counts as that file; one to a directory is
         * not followed (no loops, no escaping the tree). */
        if (S_ISLNK(sb.st_mode) && (stat(full, &sb) != 0 || !S_ISREG(sb.st_mode))) continue;
        size_t pl = strlen(w->path_prefix);
        size_t fl = strlen(full);
        if (S_ISDIR(sb.st_mode)) {
            /* descend only where something below could match the prefix */
            size_t n = fl < pl ? fl : pl;
            if (strncmp(full, w->path_prefix, n) == 0) st = walk_dir(w, dir);
        } else if (S_ISREG(sb.st_mode) && fl >= pl && strncmp(full, w->path_prefix, pl) == 0) {
            floe_buf_clear(&w->loc);
            st = floe_buf_append(&w->loc, w->prefix, w->scheme_len);
            if (!st) st = floe_buf_append_str(&w->loc, full + w->strip);
            if (!st) {
                floe_file_info info = {floe_buf_cstr(&w->loc), (uint64_t)sb.st_size,
                                       (int64_t)sb.st_mtim.tv_sec * 1000 + sb.st_mtim.tv_nsec / 1000000};
                st = w->fn(w->ctx, &info);
            }
        }
    }
    if (!st && errno != 0 && !de)
        st = floe_error(FLOE_ERR_IO, "cannot list '%s': %s", floe_buf_cstr(dir), strerror(errno));
    closedir(d);
    dir->len = base_len;
    if (dir->data) dir->data[base_len] = 0;
    w->depth--;
    return st;
}

static floe_status local_list(const char *prefix, size_t scheme_len, const char *path,
                              floe_fileio_list_fn fn, void *ctx) {
    local_walk w = {prefix, scheme_len, path, fn, ctx, 0, FLOE_BUF_INIT, 0};
    floe_buf dir = FLOE_BUF_INIT;
    /* Start at the directory part of the prefix: "/t/data/" -> "/t/data",
     * "/t/data/00" -> "/t/data", "x" -> "." (walked paths then start
     * "./": match against "./x" and drop the "./" when reporting). */
    const char *slash = strrchr(path, '/');
    floe_status st;
    char *rel = NULL;
    if (!slash) {
        size_t n = strlen(path) + 3;
        rel = floe_malloc(n);
        if (!rel) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "listing '%s'", prefix);
        snprintf(rel, n, "./%s", path);
        w.path_prefix = rel;
        w.strip = 2;
        st = floe_buf_append_str(&dir, ".");
    } else if (slash == path) {
        st = floe_buf_append_str(&dir, "/");
    } else {
        st = floe_buf_append(&dir, path, (size_t)(slash - path));
    }
    if (!st) st = walk_dir(&w, &dir);
    floe_buf_free(&dir);
    floe_buf_free(&w.loc);
    floe_free(rel);
    return st;
}

floe_status floe_fileio_list(floe_fileio *io, const char *prefix, floe_fileio_list_fn fn, void *ctx) {
    if (floe_s3_is_location(prefix)) return floe_s3_list(io->s3, prefix, fn, ctx);
    size_t sl;
    const char *path = local_path(prefix, &sl);
    if (!path) return unsupported(prefix);
    if (!*path) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "empty listing prefix");
    return local_list(prefix, sl, path, fn, ctx);
}
