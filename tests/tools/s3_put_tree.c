/*
 * s3_put_tree.c — test tool: copy a local directory tree to S3 (or any
 * location floe's FileIO writes) with floe's own S3 client, so script
 * tests can stage Iceberg tables on the s3rver peer without the aws CLI.
 *
 * usage: s3_put_tree LOCAL_DIR DEST_PREFIX
 *   Every regular file below LOCAL_DIR is written to DEST_PREFIX/<relative
 *   path>, e.g. s3_put_tree /data/t s3://bucket/t puts /data/t/metadata/v1.json
 *   at s3://bucket/t/metadata/v1.json.  S3 settings come from the usual
 *   AWS_* environment variables (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, ...).
 * Prints "uploaded N files, B bytes" on success; exits 1 with the error on
 * stderr otherwise.  Not installed; built for the script tests only.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "floe/fileio.h"
#include "floe/memory.h"

typedef struct put_ctx {
    floe_fileio *io;
    const char *src;   /* LOCAL_DIR without trailing '/' */
    size_t src_len;
    const char *dest;  /* DEST_PREFIX without trailing '/' */
    size_t dest_len;
    uint64_t files, bytes;
} put_ctx;

/* Copy one listed file: read it whole (test tables are small), write it. */
static floe_status put_one(void *ctx_, const floe_file_info *info) {
    put_ctx *ctx = ctx_;
    const char *rel = info->location + ctx->src_len;
    while (*rel == '/') rel++;
    floe_buf dst = FLOE_BUF_INIT;
    floe_status st = floe_buf_printf(&dst, "%.*s/%s", (int)ctx->dest_len, ctx->dest, rel);
    floe_input *in = NULL;
    uint8_t *data = NULL;
    size_t len = 0;
    if (!st) st = floe_fileio_open_input(ctx->io, info->location, &in);
    if (!st) st = floe_input_read_all(in, &data, &len);
    floe_input_close(in);
    floe_output *out = NULL;
    if (!st) st = floe_fileio_create_output(ctx->io, floe_buf_cstr(&dst), 1, &out);
    if (!st && len) {
        st = floe_output_write(out, data, len);
        if (st) floe_output_abort(out);
    }
    if (!st) st = floe_output_close(out);
    if (!st) {
        ctx->files++;
        ctx->bytes += len;
    } else {
        st = floe_status_wrap(st, "copying '%s' to '%s'", info->location, floe_buf_cstr(&dst));
    }
    floe_free(data);
    floe_buf_free(&dst);
    return st;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: s3_put_tree LOCAL_DIR DEST_PREFIX\n");
        return 2;
    }
    put_ctx ctx = {0};
    ctx.src = argv[1];
    ctx.src_len = strlen(argv[1]);
    while (ctx.src_len > 1 && ctx.src[ctx.src_len - 1] == '/') ctx.src_len--;
    ctx.dest = argv[2];
    ctx.dest_len = strlen(argv[2]);
    while (ctx.dest_len > 1 && ctx.dest[ctx.dest_len - 1] == '/') ctx.dest_len--;
    floe_buf prefix = FLOE_BUF_INIT;
    floe_status st = floe_buf_printf(&prefix, "%.*s/", (int)ctx.src_len, ctx.src);
    if (!st) st = floe_fileio_new(NULL, 0, &ctx.io);
    if (!st) st = floe_fileio_list(ctx.io, floe_buf_cstr(&prefix), put_one, &ctx);
    if (!st && ctx.files == 0) st = floe_error(FLOE_ERR_NOT_FOUND, "no files under '%s'", ctx.src);
    floe_buf_free(&prefix);
    floe_fileio_free(ctx.io);
    if (st) {
        fprintf(stderr, "s3_put_tree: %s\n", floe_status_message(st));
        floe_status_free(st);
        return 1;
    }
    printf("uploaded %" PRIu64 " files, %" PRIu64 " bytes\n", ctx.files, ctx.bytes);
    return 0;
}
