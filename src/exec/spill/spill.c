/*
 * spill.c — spill files (spill.h): batches in the plan codec's columnar
 * form, one LZ4 block per batch, in an anonymous temporary file.
 */
#include "exec/spill/spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buffer.h"
#include "formats/compress.h"

#define FRAME_MAGIC "FSPL"
#define FRAME_HEADER 16

struct floe_spill_file {
    int fd;
    char *what;       /* the operator, for errors */
    char dir[1024];
    int64_t wpos;     /* bytes written */
    int64_t rpos;     /* read position; -1: not reading yet */
    int64_t batches, rows;
    floe_buf raw, comp; /* scratch, reused per frame */
};

void floe_spill_dir(const char *dir, char *buf, size_t cap) {
    if (dir && *dir) {
        snprintf(buf, cap, "%s", dir);
        return;
    }
    const char *t = getenv("TMPDIR");
    snprintf(buf, cap, "%s/floe", t && *t ? t : "/tmp");
}

static floe_status io_error(const floe_spill_file *f, const char *doing, int err) {
    return floe_error(FLOE_ERR_IO, "%s: %s spill file in '%s': %s", f->what, doing, f->dir, strerror(err));
}

floe_status floe_spill_open(const char *dir, const char *what, floe_spill_file **out) {
    *out = NULL;
    floe_spill_file *f = floe_calloc(1, sizeof *f);
    if (!f) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: opening a spill file", what);
    f->fd = -1;
    f->rpos = -1;
    f->what = floe_strdup(what ? what : "spill");
    floe_spill_dir(dir, f->dir, sizeof f->dir);
    if (!f->what) {
        floe_spill_close(f);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: opening a spill file", what);
    }
    if (mkdir(f->dir, 0700) != 0 && errno != EEXIST) {
        floe_status st = io_error(f, "creating the directory for a", errno);
        floe_spill_close(f);
        return st;
    }
#ifdef O_TMPFILE
    f->fd = open(f->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
    if (f->fd < 0) {
        /* No O_TMPFILE (old kernel, some file systems): a named file that
         * is unlinked before anything is written to it. */
        char path[1100];
        snprintf(path, sizeof path, "%s/spill-XXXXXX", f->dir);
        f->fd = mkstemp(path);
        if (f->fd >= 0) unlink(path);
    }
    if (f->fd < 0) {
        floe_status st = io_error(f, "creating a", errno);
        floe_spill_close(f);
        return st;
    }
    *out = f;
    return NULL;
}

static void put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool is_slice(const floe_batch *b) {
    for (int32_t i = 0; i < b->num_columns; i++)
        if (b->columns[i]->offset != 0) return true;
    return false;
}

floe_status floe_spill_write(floe_spill_file *f, const floe_batch *b) {
    if (f->rpos >= 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: writing a spill file being read", f->what);
    floe_batch *compact = NULL;
    if (is_slice(b)) {
        uint32_t *idx = floe_malloc_array((size_t)(b->num_rows ? b->num_rows : 1), sizeof *idx);
        if (!idx) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: compacting a batch to spill", f->what);
        for (int64_t i = 0; i < b->num_rows; i++) idx[i] = (uint32_t)i;
        floe_status st = floe_batch_take(b, idx, b->num_rows, &compact);
        floe_free(idx);
        FLOE_TRY(st);
        b = compact;
    }
    f->raw.len = 0;
    f->comp.len = 0;
    floe_status st = floe_codec_put_batch(&f->raw, b);
    uint8_t hdr[FRAME_HEADER] = {0};
    if (!st) st = floe_buf_append(&f->comp, hdr, FRAME_HEADER);
    if (!st) st = floe_compress(FLOE_CODEC_LZ4_RAW, 0, f->raw.data, f->raw.len, &f->comp);
    if (!st && (f->raw.len > UINT32_MAX || f->comp.len - FRAME_HEADER > UINT32_MAX))
        st = floe_error(FLOE_ERR_UNSUPPORTED, "%s: a spilled batch of %zu bytes (at most 4 GiB)", f->what, f->raw.len);
    int64_t rows = b->num_rows;
    floe_batch_release(compact);
    if (st) return floe_status_wrap(st, "%s: spilling a batch", f->what);
    memcpy(f->comp.data, FRAME_MAGIC, 4);
    put_u32(f->comp.data + 4, (uint32_t)f->raw.len);
    put_u32(f->comp.data + 8, (uint32_t)(f->comp.len - FRAME_HEADER));
    put_u32(f->comp.data + 12, (uint32_t)rows);
    size_t done = 0;
    while (done < f->comp.len) {
        ssize_t w = pwrite(f->fd, f->comp.data + done, f->comp.len - done, (off_t)(f->wpos + (int64_t)done));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return io_error(f, "writing a", w < 0 ? errno : ENOSPC);
        done += (size_t)w;
    }
    f->wpos += (int64_t)f->comp.len;
    f->batches++;
    f->rows += rows;
    return NULL;
}

void floe_spill_drop_buffers(floe_spill_file *f) {
    floe_buf_free(&f->raw);
    floe_buf_free(&f->comp);
}

int64_t floe_spill_batches(const floe_spill_file *f) { return f->batches; }
int64_t floe_spill_bytes(const floe_spill_file *f) { return f->wpos; }
int64_t floe_spill_rows(const floe_spill_file *f) { return f->rows; }

static floe_status read_exact(floe_spill_file *f, uint8_t *dst, size_t n) {
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(f->fd, dst + done, n - done, (off_t)(f->rpos + (int64_t)done));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return io_error(f, "reading a", errno);
        if (r == 0)
            return floe_error(FLOE_ERR_CORRUPT, "%s: spill file in '%s' ends inside a frame at offset %lld",
                              f->what, f->dir, (long long)f->rpos);
        done += (size_t)r;
    }
    f->rpos += (int64_t)n;
    return NULL;
}

floe_status floe_spill_read(floe_spill_file *f, floe_batch **out) {
    *out = NULL;
    if (f->rpos < 0) f->rpos = 0;
    if (f->rpos >= f->wpos) return NULL;
    int64_t at = f->rpos;
    uint8_t hdr[FRAME_HEADER];
    FLOE_TRY(read_exact(f, hdr, FRAME_HEADER));
    if (memcmp(hdr, FRAME_MAGIC, 4) != 0)
        return floe_error(FLOE_ERR_CORRUPT, "%s: spill file in '%s': no frame at offset %lld", f->what, f->dir,
                          (long long)at);
    uint32_t raw_len = get_u32(hdr + 4), comp_len = get_u32(hdr + 8);
    f->raw.len = 0;
    f->comp.len = 0;
    FLOE_TRY(floe_buf_reserve(&f->comp, comp_len));
    FLOE_TRY(floe_buf_reserve(&f->raw, raw_len));
    FLOE_TRY(read_exact(f, f->comp.data, comp_len));
    FLOE_TRY_CTX(floe_decompress_exact(FLOE_CODEC_LZ4_RAW, f->comp.data, comp_len, f->raw.data, raw_len),
                 "%s: spill frame at offset %lld", f->what, (long long)at);
    floe_reader r = {f->raw.data, raw_len, 0};
    FLOE_TRY_CTX(floe_codec_get_batch(&r, out), "%s: spill frame at offset %lld", f->what, (long long)at);
    return NULL;
}

void floe_spill_close(floe_spill_file *f) {
    if (!f) return;
    if (f->fd >= 0) close(f->fd);
    floe_buf_free(&f->raw);
    floe_buf_free(&f->comp);
    floe_free(f->what);
    floe_free(f);
}

/* ----------------------------------------------------------- as a stream */

typedef struct spill_stream {
    floe_stream base;
    floe_spill_file *f;
} spill_stream;

static floe_status spill_next(floe_stream *s_, floe_batch **out) {
    return floe_spill_read(((spill_stream *)s_)->f, out);
}

static void spill_stream_close(floe_stream *s_) {
    spill_stream *s = (spill_stream *)s_;
    floe_spill_close(s->f);
    floe_free(s);
}

floe_status floe_spill_stream(floe_spill_file *f, floe_stream **out) {
    *out = NULL;
    spill_stream *s = floe_calloc(1, sizeof *s);
    if (!s) {
        floe_spill_close(f);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reading a spill file");
    }
    s->base.next = spill_next;
    s->base.close = spill_stream_close;
    s->f = f;
    f->rpos = 0;
    *out = &s->base;
    return NULL;
}

/* ------------------------------------------------------------ batch size */

static int64_t array_bytes(const floe_array *a) {
    int64_t n = a->validity ? a->validity->size : 0;
    for (int i = 0; i < 2; i++)
        if (a->buffers[i]) n += a->buffers[i]->size;
    for (int32_t i = 0; i < a->n_children; i++) n += array_bytes(a->children[i]);
    return n;
}

int64_t floe_batch_bytes(const floe_batch *b) {
    int64_t n = 0;
    for (int32_t i = 0; b && i < b->num_columns; i++) n += array_bytes(b->columns[i]);
    return n;
}
