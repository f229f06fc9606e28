/* The FileIO object on local files: scheme dispatch (plain paths, file:/,
 * file:///), delete/exists/list, and configuration errors. */
#include <unistd.h>

#include "floe/fileio.h"
#include "floe/memory.h"
#include "floe_test.h"

static floe_fileio *new_io(void) {
    floe_fileio *io = NULL;
    assert_ok(floe_fileio_new(NULL, 0, &io));
    return io;
}

static void put(floe_fileio *io, const char *loc, const char *text) {
    floe_output *out = NULL;
    assert_ok(floe_fileio_create_output(io, loc, 1, &out));
    assert_ok(floe_output_write(out, text, strlen(text)));
    assert_ok(floe_output_close(out));
}

static void file_uris_and_plain_paths_reach_the_same_file(void **state) {
    (void)state;
    char dir[1024], loc[1200], uri[1300];
    floe_test_tmpdir(dir, sizeof dir, "fileio_uris");
    floe_fileio *io = new_io();
    snprintf(loc, sizeof loc, "%s/a/b.txt", dir);
    snprintf(uri, sizeof uri, "file://%s/a/b.txt", dir);
    put(io, uri, "hello");
    floe_input *in = NULL;
    assert_ok(floe_fileio_open_input(io, loc, &in));
    assert_int_equal(in->size, 5);
    floe_input_close(in);
    snprintf(uri, sizeof uri, "file:%s/a/b.txt", dir);
    assert_ok(floe_fileio_open_input(io, uri, &in));
    uint8_t b[5];
    assert_ok(floe_input_read(in, 0, 5, b));
    assert_memory_equal(b, "hello", 5);
    floe_input_close(in);
    floe_fileio_free(io);
}

static void exists_and_delete_on_local_files(void **state) {
    (void)state;
    char dir[1024], loc[1200];
    floe_test_tmpdir(dir, sizeof dir, "fileio_delete");
    floe_fileio *io = new_io();
    snprintf(loc, sizeof loc, "%s/x.bin", dir);
    int exists = 1;
    assert_ok(floe_fileio_exists(io, loc, &exists));
    assert_int_equal(exists, 0);
    put(io, loc, "x");
    assert_ok(floe_fileio_exists(io, loc, &exists));
    assert_int_equal(exists, 1);
    assert_ok(floe_fileio_delete(io, loc));
    assert_ok(floe_fileio_exists(io, loc, &exists));
    assert_int_equal(exists, 0);
    assert_ok(floe_fileio_delete(io, loc)); /* missing is fine, as on S3 */
    floe_input *in = NULL;
    assert_error(floe_fileio_open_input(io, loc, &in), FLOE_ERR_NOT_FOUND, "x.bin");
    floe_fileio_free(io);
}

typedef struct seen {
    int count;
    uint64_t bytes;
    char last[4300];
    const char *must_start;
    int bad;
} seen;

static floe_status remember(void *ctx, const floe_file_info *info) {
    seen *s = ctx;
    s->count++;
    s->bytes += info->size;
    snprintf(s->last, sizeof s->last, "%s", info->location);
    if (strncmp(info->location, s->must_start, strlen(s->must_start)) != 0 || info->last_modified_ms <= 0)
        s->bad++;
    return NULL;
}

static void list_walks_below_the_prefix_in_the_given_scheme(void **state) {
    (void)state;
    char dir[1024], loc[1300];
    floe_test_tmpdir(dir, sizeof dir, "fileio_list");
    floe_fileio *io = new_io();
    const char *files[] = {"t/data/p=1/00.parquet", "t/data/p=2/01.parquet", "t/data/00x.parquet",
                           "t/metadata/v1.json", "t/data2/zz"};
    for (size_t i = 0; i < 5; i++) {
        snprintf(loc, sizeof loc, "%s/%s", dir, files[i]);
        put(io, loc, "12345");
    }
    char prefix[1300];
    snprintf(prefix, sizeof prefix, "%s/t/data/", dir);
    seen s = {0, 0, "", prefix, 0};
    assert_ok(floe_fileio_list(io, prefix, remember, &s));
    assert_int_equal(s.count, 3);
    assert_int_equal(s.bytes, 15);
    assert_int_equal(s.bad, 0);

    /* a non-directory prefix matches by string, like S3: data and data2 */
    snprintf(prefix, sizeof prefix, "file://%s/t/data", dir);
    seen u = {0, 0, "", prefix, 0};
    assert_ok(floe_fileio_list(io, prefix, remember, &u));
    assert_int_equal(u.count, 4);
    assert_int_equal(u.bad, 0);

    snprintf(prefix, sizeof prefix, "%s/t/metadata/v", dir);
    seen m = {0, 0, "", prefix, 0};
    assert_ok(floe_fileio_list(io, prefix, remember, &m));
    assert_int_equal(m.count, 1);
    assert_non_null(strstr(m.last, "/t/metadata/v1.json"));

    /* symlinks: to a file is listed, to a directory is not followed */
    char target[1300], link1[1300], link2[1300];
    snprintf(target, sizeof target, "%s/t/metadata/v1.json", dir);
    snprintf(link1, sizeof link1, "%s/t/data/linked.json", dir);
    snprintf(link2, sizeof link2, "%s/t/data/loop", dir);
    assert_int_equal(symlink(target, link1), 0);
    snprintf(target, sizeof target, "%s/t", dir);
    assert_int_equal(symlink(target, link2), 0);
    snprintf(prefix, sizeof prefix, "%s/t/data/", dir);
    seen l = {0, 0, "", prefix, 0};
    assert_ok(floe_fileio_list(io, prefix, remember, &l));
    assert_int_equal(l.count, 4);

    snprintf(prefix, sizeof prefix, "%s/nothing/here/", dir);
    seen none = {0, 0, "", prefix, 0};
    assert_ok(floe_fileio_list(io, prefix, remember, &none));
    assert_int_equal(none.count, 0);
    floe_fileio_free(io);
}

static void other_schemes_are_unsupported(void **state) {
    (void)state;
    floe_fileio *io = new_io();
    floe_input *in = NULL;
    floe_output *out = NULL;
    assert_error(floe_fileio_open_input(io, "hdfs://nn/x", &in), FLOE_ERR_UNSUPPORTED, "hdfs://nn/x");
    assert_error(floe_fileio_create_output(io, "gs://b/x", 1, &out), FLOE_ERR_UNSUPPORTED, "gs://b/x");
    assert_error(floe_fileio_open_input(io, "file://otherhost/x", &in), FLOE_ERR_UNSUPPORTED,
                 "file://otherhost/x");
    floe_fileio_free(io);
}

static void bad_properties_are_rejected_by_name(void **state) {
    (void)state;
    floe_fileio *io = NULL;
    floe_property retries[] = {{"s3.retry.num-retries", "many"}};
    assert_error(floe_fileio_new(retries, 1, &io), FLOE_ERR_INVALID_ARGUMENT, "s3.retry.num-retries");
    floe_property half[] = {{"s3.access-key-id", "AKIAEXAMPLE"}};
    assert_error(floe_fileio_new(half, 1, &io), FLOE_ERR_INVALID_ARGUMENT, "secret access key");
    floe_property ep[] = {{"s3.endpoint", "ftp://host"}};
    assert_error(floe_fileio_new(ep, 1, &io), FLOE_ERR_INVALID_ARGUMENT, "s3.endpoint");
    floe_property creds[] = {{"s3.endpoint", "http://u:p@host"}};
    assert_error(floe_fileio_new(creds, 1, &io), FLOE_ERR_INVALID_ARGUMENT, "s3.endpoint");
}

FLOE_TEST_MAIN(cmocka_unit_test(file_uris_and_plain_paths_reach_the_same_file),
               cmocka_unit_test(exists_and_delete_on_local_files),
               cmocka_unit_test(list_walks_below_the_prefix_in_the_given_scheme),
               cmocka_unit_test(other_schemes_are_unsupported),
               cmocka_unit_test(bad_properties_are_rejected_by_name))
