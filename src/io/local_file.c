/*
 * local_file.c — FileIO for local files and in-memory bytes.
 *
 * Reads use pread(2), so one floe_input can serve many threads at once.
 * Writes go to "<path>.tmp-<pid>-<n>" and rename(2) into place on close:
 * readers never see a partial file, and an aborted or crashed writer leaves
 * at most a temporary file that no metadata points to.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "floe/fileio.h"
#include "floe/memory.h"

typedef struct {
    floe_input base;
    int fd;
} local_input;

typedef struct {
    floe_input base;
    const uint8_t *data;
} memory_input;

static floe_status range_error(floe_input *in, uint64_t offset, size_t len) {
    return floe_error(FLOE_ERR_CORRUPT,
                      "'%s': read of %zu bytes at offset %llu is past the end of the "
                      "file (%llu bytes)",
                      in->path, len, (unsigned long long)offset,
                      (unsigned long long)in->size);
}

static void count_read(floe_input *in, size_t len) {
    atomic_fetch_add_explicit(&in->bytes_read, len, memory_order_relaxed);
    atomic_fetch_add_explicit(&in->read_calls, 1, memory_order_relaxed);
}

static floe_status local_read_at(floe_input *in, uint64_t offset, size_t len, uint8_t *dst) {
    local_input *li = (local_input *)in;
    if (offset > in->size || len > in->size - offset) return range_error(in, offset, len);
    count_read(in, len);
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(li->fd, dst + done, len - done, (off_t)(offset + done));
        if (n < 0) {
            if (errno == EINTR) continue;
            return floe_error(FLOE_ERR_IO, "'%s': read at offset %llu failed: %s", in->path,
                              (unsigned long long)(offset + done), strerror(errno));
        }
        if (n == 0)
            return floe_error(FLOE_ERR_IO, "'%s': file shrank while reading at offset %llu",
                              in->path, (unsigned long long)(offset + done));
        done += (size_t)n;
    }
    return NULL;
}

static void local_close(floe_input *in) {
    local_input *li = (local_input *)in;
    close(li->fd);
    floe_free(in->path);
    floe_free(li);
}

static const floe_input_ops local_input_ops = {local_read_at, local_close, NULL};

floe_status floe_input_open_local(const char *path, floe_input **out) {
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return floe_error(errno == ENOENT ? FLOE_ERR_NOT_FOUND : FLOE_ERR_IO,
                          "cannot open '%s': %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        int e = errno;
        close(fd);
        if (!S_ISREG(sb.st_mode)) return floe_error(FLOE_ERR_IO, "'%s' is not a regular file", path);
        return floe_error(FLOE_ERR_IO, "cannot stat '%s': %s", path, strerror(e));
    }
    local_input *li = floe_calloc(1, sizeof *li);
    char *p = floe_strdup(path);
    if (!li || !p) {
        floe_free(li);
        floe_free(p);
        close(fd);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening '%s'", path);
    }
    li->base.ops = &local_input_ops;
    li->base.path = p;
    li->base.size = (uint64_t)sb.st_size;
    li->fd = fd;
    *out = &li->base;
    return NULL;
}

static floe_status memory_read_at(floe_input *in, uint64_t offset, size_t len, uint8_t *dst) {
    if (offset > in->size || len > in->size - offset) return range_error(in, offset, len);
    count_read(in, len);
    if (len) memcpy(dst, ((memory_input *)in)->data + offset, len);
    return NULL;
}

static void memory_close(floe_input *in) {
    floe_free(in->path);
    floe_free(in);
}

static const floe_input_ops memory_input_ops = {memory_read_at, memory_close, NULL};

floe_status floe_input_from_memory(const uint8_t *data, size_t len, const char *name,
                                   floe_input **out) {
    *out = NULL;
    memory_input *mi = floe_calloc(1, sizeof *mi);
    char *p = floe_strdup(name ? name : "<memory>");
    if (!mi || !p) {
        floe_free(mi);
        floe_free(p);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "wrapping %zu bytes", len);
    }
    mi->base.ops = &memory_input_ops;
    mi->base.path = p;
    mi->base.size = len;
    mi->data = data;
    *out = &mi->base;
    return NULL;
}

void floe_input_close(floe_input *in) {
    if (in) in->ops->close(in);
}

floe_status floe_input_read_all(floe_input *in, uint8_t **data, size_t *len) {
    *data = NULL;
    *len = 0;
    if (in->ops->read_all) return in->ops->read_all(in, data, len);
    if (in->size > SIZE_MAX - 1)
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "'%s' is too large to read whole", in->path);
    uint8_t *buf = floe_malloc((size_t)in->size + 1);
    if (!buf)
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading '%s' (%llu bytes)", in->path,
                          (unsigned long long)in->size);
    floe_status st = floe_input_read(in, 0, (size_t)in->size, buf);
    if (st) {
        floe_free(buf);
        return st;
    }
    buf[in->size] = 0; /* convenient for text (JSON) */
    *data = buf;
    *len = (size_t)in->size;
    return NULL;
}

/* ---- output ---------------------------------------------------------------- */

typedef struct {
    floe_output base;
    int fd;
    char *tmp_path;
    int overwrite;
} local_output;

static floe_status mkdirs_for(const char *path) {
    char tmp[4096];
    size_t n = strlen(path);
    if (n >= sizeof tmp) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "path too long: '%s'", path);
    memcpy(tmp, path, n + 1);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
            return floe_error(FLOE_ERR_IO, "cannot create directory '%s': %s", tmp, strerror(errno));
        *p = '/';
    }
    return NULL;
}

static floe_status local_write(floe_output *out, const void *data, size_t len) {
    local_output *lo = (local_output *)out;
    const uint8_t *p = data;
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(lo->fd, p + done, len - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            return floe_error(FLOE_ERR_IO, "'%s': write at offset %llu failed: %s", out->path,
                              (unsigned long long)out->bytes_written, strerror(errno));
        }
        done += (size_t)n;
        out->bytes_written += (uint64_t)n;
    }
    return NULL;
}

static void local_output_free(local_output *lo) {
    floe_free(lo->tmp_path);
    floe_free(lo->base.path);
    floe_free(lo);
}

static floe_status local_output_close(floe_output *out) {
    local_output *lo = (local_output *)out;
    floe_status st = NULL;
    if (close(lo->fd) != 0)
        st = floe_error(FLOE_ERR_IO, "'%s': close failed: %s", out->path, strerror(errno));
    if (!st && !lo->overwrite) {
        /* link(2) fails if the target exists: no silent replacement. */
        if (link(lo->tmp_path, out->path) != 0)
            st = floe_error(errno == EEXIST ? FLOE_ERR_ALREADY_EXISTS : FLOE_ERR_IO,
                            "cannot create '%s': %s", out->path, strerror(errno));
        unlink(lo->tmp_path);
    } else if (!st && rename(lo->tmp_path, out->path) != 0) {
        st = floe_error(FLOE_ERR_IO, "cannot move '%s' into place: %s", out->path, strerror(errno));
        unlink(lo->tmp_path);
    } else if (st) {
        unlink(lo->tmp_path);
    }
    local_output_free(lo);
    return st;
}

static void local_output_abort(floe_output *out) {
    local_output *lo = (local_output *)out;
    close(lo->fd);
    unlink(lo->tmp_path);
    local_output_free(lo);
}

static const floe_output_ops local_output_ops = {local_write, local_output_close,
                                                 local_output_abort};

floe_status floe_output_create_local(const char *path, int overwrite, floe_output **out) {
    static _Atomic unsigned long counter;
    *out = NULL;
    if (!overwrite && access(path, F_OK) == 0)
        return floe_error(FLOE_ERR_ALREADY_EXISTS, "'%s' already exists", path);
    FLOE_TRY(mkdirs_for(path));
    local_output *lo = floe_calloc(1, sizeof *lo);
    size_t tn = strlen(path) + 64;
    char *tmp = floe_malloc(tn);
    char *p = floe_strdup(path);
    if (!lo || !tmp || !p) {
        floe_free(lo);
        floe_free(tmp);
        floe_free(p);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "creating '%s'", path);
    }
    snprintf(tmp, tn, "%s.tmp-%ld-%lu", path, (long)getpid(), atomic_fetch_add(&counter, 1));
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        floe_status st = floe_error(FLOE_ERR_IO, "cannot create '%s': %s", path, strerror(errno));
        floe_free(lo);
        floe_free(tmp);
        floe_free(p);
        return st;
    }
    lo->base.ops = &local_output_ops;
    lo->base.path = p;
    lo->fd = fd;
    lo->tmp_path = tmp;
    lo->overwrite = overwrite;
    *out = &lo->base;
    return NULL;
}

floe_status floe_output_close(floe_output *out) { return out->ops->close(out); }

void floe_output_abort(floe_output *out) {
    if (out) out->ops->abort(out);
}
