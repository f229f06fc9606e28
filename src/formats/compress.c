/*
 * compress.c — the block codecs behind compress.h.
 *
 * Each codec is a thin layer over its library (zlib, snappy, zstd, lz4,
 * brotli).  The work here is in the edges the libraries leave to callers:
 * gzip streams made of several members, zstd inputs made of several frames
 * or frames without a recorded content size, Parquet's legacy "LZ4" codec
 * that may be Hadoop-framed or a bare block, and exact-size checks so a page
 * that decodes to the wrong length is reported instead of silently used.
 *
 * Two output modes share the streaming decoders: a fixed destination whose
 * size must be met exactly, or a growing floe_buf.  `sink` hides which.
 */
#include "formats/compress.h"

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include "floe/memory.h"

/* Largest expansion one LZ4 block can have (each literal-run byte can cover
 * 255 output bytes); used to bound the size search in grow mode. */
#define LZ4_MAX_RATIO 255

const char *floe_codec_name(floe_codec c) {
    switch (c) {
    case FLOE_CODEC_NONE: return "uncompressed";
    case FLOE_CODEC_SNAPPY: return "snappy";
    case FLOE_CODEC_GZIP: return "gzip";
    case FLOE_CODEC_DEFLATE: return "deflate";
    case FLOE_CODEC_ZSTD: return "zstd";
    case FLOE_CODEC_LZ4_HADOOP: return "lz4 (hadoop)";
    case FLOE_CODEC_LZ4_RAW: return "lz4_raw";
    case FLOE_CODEC_BROTLI: return "brotli";
    }
    return "unknown codec";
}

/* Where decompressed bytes go: a fixed window (exact mode) or a buffer. */
typedef struct sink {
    uint8_t *dst;   /* fixed mode: start of the window, else NULL */
    size_t cap;     /* fixed mode: window size */
    size_t len;     /* bytes produced so far */
    floe_buf *buf;  /* grow mode: the buffer appended to */
    size_t base;    /* grow mode: buf->len at the start */
} sink;

/* Hand out the next free output space of at least `want` bytes (grow mode)
 * or whatever is left (fixed mode).  Returns NULL on out of memory. */
static uint8_t *sink_space(sink *s, size_t want, size_t *avail) {
    if (!s->buf) {
        *avail = s->cap - s->len;
        return s->dst + s->len;
    }
    floe_status st = floe_buf_reserve(s->buf, want);
    if (st) {
        floe_status_free(st);
        return NULL;
    }
    *avail = s->buf->cap - s->buf->len - 1; /* keep room for the trailing NUL */
    return s->buf->data + s->buf->len;
}

static void sink_commit(sink *s, size_t n) {
    s->len += n;
    if (s->buf) {
        s->buf->len += n;
        s->buf->data[s->buf->len] = 0;
    }
}

/* Undo a partial grow-mode decode so a failed call leaves `out` unchanged. */
static void sink_rollback(sink *s) {
    if (s->buf) {
        s->buf->len = s->base;
        if (s->buf->data) s->buf->data[s->base] = 0;
    }
}

static floe_status corrupt(floe_codec c, size_t src_len, const char *what) {
    return floe_error(FLOE_ERR_CORRUPT, "%s: %s (%zu compressed bytes)", floe_codec_name(c),
                      what, src_len);
}

static floe_status size_mismatch(floe_codec c, size_t src_len, size_t got, size_t want) {
    return floe_error(FLOE_ERR_CORRUPT,
                      "%s: %zu compressed bytes decompress to %zu bytes, expected %zu",
                      floe_codec_name(c), src_len, got, want);
}

static floe_status oom(floe_codec c) {
    return floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: out of memory decompressing", floe_codec_name(c));
}

/* ---- zlib: gzip (possibly several members) and raw deflate ------------ */

static floe_status inflate_into(floe_codec c, const uint8_t *src, size_t src_len, sink *s) {
    int gzip = c == FLOE_CODEC_GZIP;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, gzip ? 16 + MAX_WBITS : -MAX_WBITS) != Z_OK)
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: cannot initialise zlib", floe_codec_name(c));
    size_t in_off = 0;
    floe_status st = NULL;
    int ended = 0;
    for (;;) {
        if (z.avail_in == 0 && in_off < src_len) {
            size_t n = src_len - in_off;
            if (n > UINT_MAX) n = UINT_MAX;
            z.next_in = (Bytef *)(src + in_off);
            z.avail_in = (uInt)n;
            in_off += n;
        }
        size_t avail;
        uint8_t *out = sink_space(s, 64 * 1024 > src_len * 2 ? 64 * 1024 : src_len * 2, &avail);
        if (!out) {
            st = oom(c);
            break;
        }
        if (avail > UINT_MAX) avail = UINT_MAX;
        z.next_out = out;
        z.avail_out = (uInt)avail;
        int rc = inflate(&z, Z_NO_FLUSH);
        sink_commit(s, avail - z.avail_out);
        if (rc == Z_STREAM_END) {
            size_t left = z.avail_in + (src_len - in_off);
            if (!gzip || left == 0) {
                ended = 1;
                break;
            }
            /* Another gzip member may follow; zero padding after the last
             * member is tolerated (some writers pad to a block size). */
            const uint8_t *rest = z.next_in;
            size_t i = 0;
            while (i < z.avail_in && rest[i] == 0) i++;
            if (i == z.avail_in && in_off == src_len) {
                ended = 1;
                break;
            }
            inflateReset(&z);
            continue;
        }
        if (rc == Z_OK) continue;
        if (rc == Z_BUF_ERROR) {
            if (z.avail_out == 0 && !s->buf) {
                st = floe_error(FLOE_ERR_CORRUPT,
                                "%s: %zu compressed bytes decompress to more than the expected %zu",
                                floe_codec_name(c), src_len, s->cap);
                break;
            }
            if (z.avail_in == 0 && in_off == src_len) {
                st = corrupt(c, src_len, "truncated stream");
                break;
            }
            continue;
        }
        st = floe_error(FLOE_ERR_CORRUPT, "%s: %s (%zu compressed bytes, at output byte %zu)",
                        floe_codec_name(c), z.msg ? z.msg : "invalid stream", src_len, s->len);
        break;
    }
    inflateEnd(&z);
    if (!st && !ended) st = corrupt(c, src_len, "truncated stream");
    if (!st && !s->buf && s->len != s->cap) st = size_mismatch(c, src_len, s->len, s->cap);
    return st;
}

/* ---- zstd: frames, possibly several, possibly without content size ---- */

/* One decompression context per thread, made on first use and freed when
 * the thread exits: creating a context per page (and its window buffers)
 * cost more than decoding a small page. */
static pthread_key_t zstd_key;
static pthread_once_t zstd_key_once = PTHREAD_ONCE_INIT;

static void zstd_free_dctx(void *p) {
    ZSTD_freeDCtx(p);
}

static void zstd_make_key(void) {
    if (pthread_key_create(&zstd_key, zstd_free_dctx) != 0) zstd_key = (pthread_key_t)-1;
}

static ZSTD_DCtx *zstd_thread_dctx(void) {
    if (pthread_once(&zstd_key_once, zstd_make_key) != 0 || zstd_key == (pthread_key_t)-1)
        return NULL;
    ZSTD_DCtx *d = pthread_getspecific(zstd_key);
    if (d) return d;
    d = ZSTD_createDCtx();
    if (d && pthread_setspecific(zstd_key, d) != 0) {
        ZSTD_freeDCtx(d);
        return NULL;
    }
    return d;
}

/* Exact mode fast path: one-shot decode of every frame straight into the
 * destination (no window buffer, no copy).  Returns true when the output is
 * exactly the expected size; anything else (an error, a short or long
 * result) goes through the streaming decoder, which explains it. */
static bool zstd_exact_fast(const uint8_t *src, size_t src_len, sink *s) {
    if (s->buf || s->len != 0 || src_len == 0 || s->cap == 0) return false;
    ZSTD_DCtx *d = zstd_thread_dctx();
    if (!d) return false;
    size_t r = ZSTD_decompressDCtx(d, s->dst, s->cap, src, src_len);
    if (ZSTD_isError(r)) {
        ZSTD_DCtx_reset(d, ZSTD_reset_session_only);
        return false;
    }
    if (r != s->cap) return false;
    s->len = r;
    return true;
}

static floe_status zstd_into(const uint8_t *src, size_t src_len, sink *s) {
    floe_codec c = FLOE_CODEC_ZSTD;
    if (zstd_exact_fast(src, src_len, s)) return NULL;
    ZSTD_DStream *ds = ZSTD_createDStream();
    if (!ds) return oom(c);
    ZSTD_inBuffer in = {src, src_len, 0};
    floe_status st = NULL;
    for (;;) {
        size_t avail;
        uint8_t *out = sink_space(s, 128 * 1024, &avail);
        if (!out) {
            st = oom(c);
            break;
        }
        /* A full fixed window still gets a one-byte probe: remaining input
         * that yields nothing (a frame epilogue, a skippable frame) is fine,
         * anything more is too much output. */
        uint8_t probe;
        ZSTD_outBuffer ob = {avail ? out : &probe, avail ? avail : 1, 0};
        size_t in_before = in.pos;
        size_t r = ZSTD_decompressStream(ds, &ob, &in);
        if (ZSTD_isError(r)) {
            st = floe_error(FLOE_ERR_CORRUPT, "zstd: %s (%zu compressed bytes, at output byte %zu)",
                            ZSTD_getErrorName(r), src_len, s->len);
            break;
        }
        if (!avail && ob.pos) {
            st = floe_error(FLOE_ERR_CORRUPT,
                            "zstd: %zu compressed bytes decompress to more than the expected %zu",
                            src_len, s->cap);
            break;
        }
        if (avail) sink_commit(s, ob.pos);
        if (in.pos == in.size && r == 0) break; /* every frame complete */
        if (in.pos == in.size && ob.pos < ob.size) {
            st = corrupt(c, src_len, "truncated frame");
            break;
        }
        if (in.pos == in_before && ob.pos == 0) {
            st = corrupt(c, src_len, "decoder made no progress");
            break;
        }
    }
    ZSTD_freeDStream(ds);
    if (!st && !s->buf && s->len != s->cap) st = size_mismatch(c, src_len, s->len, s->cap);
    return st;
}

/* ---- brotli ----------------------------------------------------------- */

static floe_status brotli_into(const uint8_t *src, size_t src_len, sink *s) {
    floe_codec c = FLOE_CODEC_BROTLI;
    BrotliDecoderState *bs = BrotliDecoderCreateInstance(NULL, NULL, NULL);
    if (!bs) return oom(c);
    size_t avail_in = src_len;
    const uint8_t *next_in = src;
    floe_status st = NULL;
    for (;;) {
        size_t avail;
        uint8_t *out = sink_space(s, 128 * 1024, &avail);
        if (!out) {
            st = oom(c);
            break;
        }
        size_t avail_out = avail;
        uint8_t *next_out = out;
        BrotliDecoderResult r =
            BrotliDecoderDecompressStream(bs, &avail_in, &next_in, &avail_out, &next_out, NULL);
        sink_commit(s, avail - avail_out);
        if (r == BROTLI_DECODER_RESULT_SUCCESS) {
            if (avail_in) st = corrupt(c, src_len, "trailing bytes after the stream");
            break;
        }
        if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT) {
            if (!s->buf) {
                st = floe_error(FLOE_ERR_CORRUPT,
                                "brotli: %zu compressed bytes decompress to more than the expected %zu",
                                src_len, s->cap);
                break;
            }
            continue;
        }
        if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT) {
            st = corrupt(c, src_len, "truncated stream");
            break;
        }
        st = floe_error(FLOE_ERR_CORRUPT, "brotli: %s (%zu compressed bytes)",
                        BrotliDecoderErrorString(BrotliDecoderGetErrorCode(bs)), src_len);
        break;
    }
    BrotliDecoderDestroyInstance(bs);
    if (!st && !s->buf && s->len != s->cap) st = size_mismatch(c, src_len, s->len, s->cap);
    return st;
}

/* ---- snappy ------------------------------------------------------------ */

static floe_status snappy_into(const uint8_t *src, size_t src_len, sink *s) {
    floe_codec c = FLOE_CODEC_SNAPPY;
    size_t n;
    if (snappy_uncompressed_length((const char *)src, src_len, &n) != SNAPPY_OK)
        return corrupt(c, src_len, "bad length header");
    if (!s->buf && n != s->cap) return size_mismatch(c, src_len, n, s->cap);
    size_t avail;
    uint8_t *out = sink_space(s, n, &avail);
    if (!out) return oom(c);
    size_t got = n;
    if (snappy_uncompress((const char *)src, src_len, (char *)out, &got) != SNAPPY_OK || got != n)
        return corrupt(c, src_len, "invalid block");
    sink_commit(s, n);
    return NULL;
}

/* ---- lz4 -------------------------------------------------------------- */

/* One raw block into exactly `want` bytes at `dst`; -1 when it doesn't fit. */
static int lz4_block(const uint8_t *src, size_t src_len, uint8_t *dst, size_t want) {
    if (src_len > INT_MAX || want > INT_MAX) return -1;
    int r = LZ4_decompress_safe((const char *)src, (char *)dst, (int)src_len, (int)want);
    return r >= 0 && (size_t)r == want ? 0 : -1;
}

/* A raw block of unknown output size (grow mode): try doubling windows up
 * to the format's maximum expansion. */
static floe_status lz4_raw_grow(floe_codec c, const uint8_t *src, size_t src_len, sink *s) {
    if (src_len > INT_MAX) return corrupt(c, src_len, "block too large");
    size_t max = src_len * LZ4_MAX_RATIO + 64;
    if (max > INT_MAX) max = INT_MAX;
    size_t cap = src_len * 4 + 64;
    for (;;) {
        if (cap > max) cap = max;
        size_t avail;
        uint8_t *out = sink_space(s, cap, &avail);
        if (!out) return oom(c);
        int r = LZ4_decompress_safe((const char *)src, (char *)out, (int)src_len, (int)cap);
        if (r >= 0) {
            sink_commit(s, (size_t)r);
            return NULL;
        }
        if (cap >= max) return corrupt(c, src_len, "invalid block");
        cap *= 2;
    }
}

/* Hadoop framing, as parquet-mr writes it: blocks of [u32 BE uncompressed
 * length][u32 BE compressed length][raw LZ4].  Returns 0 when the whole
 * input parsed this way (and filled a fixed window exactly), -1 otherwise;
 * on -1 the sink is rolled back for the raw fallback. */
static int lz4_hadoop_try(const uint8_t *src, size_t src_len, sink *s) {
    size_t start_len = s->len;
    size_t off = 0;
    if (src_len < 8) return -1;
    while (src_len - off >= 8) {
        const uint8_t *h = src + off;
        size_t ulen = (size_t)h[0] << 24 | (size_t)h[1] << 16 | (size_t)h[2] << 8 | h[3];
        size_t clen = (size_t)h[4] << 24 | (size_t)h[5] << 16 | (size_t)h[6] << 8 | h[7];
        off += 8;
        if (clen > src_len - off) goto fail;
        size_t avail;
        uint8_t *out = sink_space(s, ulen, &avail);
        if (!out || avail < ulen) goto fail;
        if (lz4_block(src + off, clen, out, ulen) != 0) goto fail;
        sink_commit(s, ulen);
        off += clen;
    }
    if (off != src_len) goto fail;
    if (!s->buf && s->len != s->cap) goto fail;
    return 0;
fail:
    s->len = start_len;
    if (s->buf) {
        s->buf->len = s->base + start_len;
        if (s->buf->data) s->buf->data[s->buf->len] = 0;
    }
    return -1;
}

static floe_status lz4_into(floe_codec c, const uint8_t *src, size_t src_len, sink *s) {
    if (c == FLOE_CODEC_LZ4_HADOOP && lz4_hadoop_try(src, src_len, s) == 0) return NULL;
    if (s->buf) return lz4_raw_grow(c, src, src_len, s);
    if (src_len > INT_MAX || s->cap > INT_MAX) return corrupt(c, src_len, "block too large");
    int r = LZ4_decompress_safe((const char *)src, (char *)s->dst, (int)src_len, (int)s->cap);
    if (r < 0) {
        return floe_error(FLOE_ERR_CORRUPT,
                          "%s: invalid block or wrong size (%zu compressed bytes, expected %zu)",
                          floe_codec_name(c), src_len, s->cap);
    }
    s->len = (size_t)r;
    if ((size_t)r != s->cap) return size_mismatch(c, src_len, (size_t)r, s->cap);
    return NULL;
}

/* ---- dispatch ---------------------------------------------------------- */

static floe_status decompress_into(floe_codec c, const uint8_t *src, size_t src_len, sink *s) {
    switch (c) {
    case FLOE_CODEC_NONE: {
        size_t avail;
        if (!s->buf && src_len != s->cap) return size_mismatch(c, src_len, src_len, s->cap);
        uint8_t *out = sink_space(s, src_len, &avail);
        if (!out) return oom(c);
        if (src_len) memcpy(out, src, src_len);
        sink_commit(s, src_len);
        return NULL;
    }
    case FLOE_CODEC_SNAPPY: return snappy_into(src, src_len, s);
    case FLOE_CODEC_GZIP:
    case FLOE_CODEC_DEFLATE: return inflate_into(c, src, src_len, s);
    case FLOE_CODEC_ZSTD: return zstd_into(src, src_len, s);
    case FLOE_CODEC_LZ4_HADOOP:
    case FLOE_CODEC_LZ4_RAW: return lz4_into(c, src, src_len, s);
    case FLOE_CODEC_BROTLI: return brotli_into(src, src_len, s);
    }
    return floe_error(FLOE_ERR_UNSUPPORTED, "unknown compression codec %d", (int)c);
}

floe_status floe_decompress_exact(floe_codec c, const uint8_t *src, size_t src_len,
                                  uint8_t *dst, size_t dst_len) {
    if (!src && src_len) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "decompress: NULL input");
    uint8_t dummy;
    sink s = {dst ? dst : &dummy, dst ? dst_len : 0, 0, NULL, 0};
    static const uint8_t empty[1] = {0};
    return decompress_into(c, src ? src : empty, src_len, &s);
}

floe_status floe_decompress_grow(floe_codec c, const uint8_t *src, size_t src_len, floe_buf *out) {
    if (!src && src_len) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "decompress: NULL input");
    sink s = {NULL, 0, 0, out, out->len};
    static const uint8_t empty[1] = {0};
    floe_status st = decompress_into(c, src ? src : empty, src_len, &s);
    if (st) sink_rollback(&s);
    return st;
}

/* ---- compression ------------------------------------------------------- */

size_t floe_compress_bound(floe_codec c, size_t n) {
    switch (c) {
    case FLOE_CODEC_NONE: return n;
    case FLOE_CODEC_SNAPPY: return snappy_max_compressed_length(n);
    case FLOE_CODEC_GZIP:
    case FLOE_CODEC_DEFLATE:
        /* deflateBound's worst case plus the gzip header/trailer. */
        return n + n / 1000 + (n >> 12) + (n >> 14) + (n >> 25) + 64;
    case FLOE_CODEC_ZSTD: return ZSTD_compressBound(n);
    case FLOE_CODEC_LZ4_RAW:
        return n > LZ4_MAX_INPUT_SIZE ? 0 : (size_t)LZ4_compressBound((int)n);
    case FLOE_CODEC_LZ4_HADOOP:
        return n > LZ4_MAX_INPUT_SIZE ? 0 : (size_t)LZ4_compressBound((int)n) + 8;
    case FLOE_CODEC_BROTLI: return BrotliEncoderMaxCompressedSize(n) ? BrotliEncoderMaxCompressedSize(n) : n + 1024;
    }
    return 0;
}

static floe_status deflate_append(floe_codec c, int level, const uint8_t *src, size_t src_len,
                                  floe_buf *out) {
    z_stream z;
    memset(&z, 0, sizeof z);
    int wbits = c == FLOE_CODEC_GZIP ? 16 + MAX_WBITS : -MAX_WBITS;
    if (level == 0) level = Z_DEFAULT_COMPRESSION;
    if (level < -1 || level > 9)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: level %d out of range 1..9",
                          floe_codec_name(c), level);
    if (deflateInit2(&z, level, Z_DEFLATED, wbits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: cannot initialise zlib", floe_codec_name(c));
    size_t base = out->len;
    size_t in_off = 0;
    floe_status st = NULL;
    for (;;) {
        if (z.avail_in == 0 && in_off < src_len) {
            size_t n = src_len - in_off;
            if (n > UINT_MAX / 2) n = UINT_MAX / 2;
            z.next_in = (Bytef *)(src + in_off);
            z.avail_in = (uInt)n;
            in_off += n;
        }
        size_t want = (size_t)deflateBound(&z, z.avail_in) + 64;
        st = floe_buf_reserve(out, want);
        if (st) break;
        size_t avail = out->cap - out->len - 1;
        if (avail > UINT_MAX) avail = UINT_MAX;
        z.next_out = out->data + out->len;
        z.avail_out = (uInt)avail;
        int flush = in_off == src_len ? Z_FINISH : Z_NO_FLUSH;
        int rc = deflate(&z, flush);
        out->len += avail - z.avail_out;
        out->data[out->len] = 0;
        if (rc == Z_STREAM_END) break;
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            st = floe_error(FLOE_ERR_INTERNAL, "%s: compression failed (%d)", floe_codec_name(c), rc);
            break;
        }
    }
    deflateEnd(&z);
    if (st) {
        out->len = base;
        if (out->data) out->data[base] = 0;
    }
    return st;
}

floe_status floe_compress(floe_codec c, int level, const uint8_t *src, size_t src_len,
                          floe_buf *out) {
    static const uint8_t empty[1] = {0};
    if (!src) {
        if (src_len) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "compress: NULL input");
        src = empty;
    }
    if (c == FLOE_CODEC_GZIP || c == FLOE_CODEC_DEFLATE)
        return deflate_append(c, level, src, src_len, out);
    if (c == FLOE_CODEC_NONE) return floe_buf_append(out, src, src_len);

    size_t bound = floe_compress_bound(c, src_len);
    if (bound == 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: input of %zu bytes is too large",
                          floe_codec_name(c), src_len);
    FLOE_TRY(floe_buf_reserve(out, bound));
    uint8_t *dst = out->data + out->len;
    size_t n = 0;
    switch (c) {
    case FLOE_CODEC_SNAPPY: {
        size_t got = bound;
        if (snappy_compress((const char *)src, src_len, (char *)dst, &got) != SNAPPY_OK)
            return floe_error(FLOE_ERR_INTERNAL, "snappy: compression failed");
        n = got;
        break;
    }
    case FLOE_CODEC_ZSTD: {
        size_t r = ZSTD_compress(dst, bound, src, src_len, level ? level : 3);
        if (ZSTD_isError(r))
            return floe_error(FLOE_ERR_INTERNAL, "zstd: compression failed: %s", ZSTD_getErrorName(r));
        n = r;
        break;
    }
    case FLOE_CODEC_LZ4_RAW:
    case FLOE_CODEC_LZ4_HADOOP: {
        /* Hadoop framing: one block with its two big-endian lengths. */
        size_t hdr = c == FLOE_CODEC_LZ4_HADOOP ? 8 : 0;
        int r = LZ4_compress_default((const char *)src, (char *)dst + hdr, (int)src_len,
                                     (int)(bound - hdr));
        if (r <= 0 && src_len) return floe_error(FLOE_ERR_INTERNAL, "lz4: compression failed");
        if (hdr) {
            uint32_t u = (uint32_t)src_len, k = (uint32_t)r;
            uint8_t h[8] = {u >> 24, u >> 16, u >> 8, u, k >> 24, k >> 16, k >> 8, k};
            memcpy(dst, h, 8);
        }
        n = hdr + (size_t)r;
        break;
    }
    case FLOE_CODEC_BROTLI: {
        size_t got = bound;
        int q = level ? level : 8;
        if (q < BROTLI_MIN_QUALITY || q > BROTLI_MAX_QUALITY)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "brotli: level %d out of range", q);
        if (!BrotliEncoderCompress(q, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, src_len, src,
                                   &got, dst))
            return floe_error(FLOE_ERR_INTERNAL, "brotli: compression failed");
        n = got;
        break;
    }
    default:
        return floe_error(FLOE_ERR_UNSUPPORTED, "unknown compression codec %d", (int)c);
    }
    out->len += n;
    out->data[out->len] = 0;
    return NULL;
}
