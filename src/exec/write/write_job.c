/*
 * write_job.c — the process-wide registry of write jobs (exec_write.h):
 * for every running INSERT / CREATE TABLE AS statement, the locations of
 * the data files its writers in this process created.  A statement that
 * fails deletes them all (floe_write_job_abort), including files whose
 * data_file records never reached the commit; one that commits forgets
 * them (floe_write_job_forget).
 *
 * A job also remembers the FileIO properties its writers were given
 * (floe_write_job_set_io), so the files are deleted through a FileIO made
 * the same way (the same endpoint, the same credentials).
 *
 * Jobs are few and short-lived, so the registry is a plain list under one
 * mutex; file deletion happens outside the lock.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "exec/io_props.h"
#include "floe/exec_write.h"
#include "floe/fileio.h"
#include "floe/memory.h"

typedef struct write_job {
    struct write_job *next;
    char *id;
    int64_t n, cap;
    char **locations;
    floe_property *io_props; /* set once by the first writer */
    size_t n_io_props;
    bool io_set;
} write_job;

static pthread_mutex_t jobs_lock = PTHREAD_MUTEX_INITIALIZER;
static write_job *jobs; /* guarded by jobs_lock */

char *floe_write_job_new_id(void) {
    uint8_t b[16];
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t r = getrandom(b + got, sizeof b - got, 0);
        if (r <= 0) break;
        got += (size_t)r;
    }
    if (got < sizeof b) {
        /* No entropy source: time and address bits still make ids unique
         * enough within one host for file names. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)b;
        for (size_t i = got; i < sizeof b; i++, x = x * 6364136223846793005ull + 1442695040888963407ull)
            b[i] = (uint8_t)(x >> 56);
    }
    b[6] = (uint8_t)((b[6] & 0x0F) | 0x40); /* version 4 */
    b[8] = (uint8_t)((b[8] & 0x3F) | 0x80); /* RFC 4122 variant */
    char *s = floe_malloc(37);
    if (!s) return NULL;
    snprintf(s, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3],
             b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    return s;
}

/* The job `id` (lock held), created when `create`; NULL when absent or out
 * of memory. */
static write_job *find_job(const char *id, bool create) {
    for (write_job *j = jobs; j; j = j->next)
        if (strcmp(j->id, id) == 0) return j;
    if (!create) return NULL;
    write_job *j = floe_calloc(1, sizeof *j);
    if (!j) return NULL;
    j->id = floe_strdup(id);
    if (!j->id) {
        floe_free(j);
        return NULL;
    }
    j->next = jobs;
    jobs = j;
    return j;
}

/* Unlink job `id` from the list (lock held); NULL when absent. */
static write_job *unlink_job(const char *id) {
    for (write_job **p = &jobs; *p; p = &(*p)->next) {
        if (strcmp((*p)->id, id) == 0) {
            write_job *j = *p;
            *p = j->next;
            return j;
        }
    }
    return NULL;
}

static void free_job(write_job *j) {
    if (!j) return;
    for (int64_t i = 0; i < j->n; i++) floe_free(j->locations[i]);
    floe_free(j->locations);
    floe_exec_io_props_free(j->io_props, j->n_io_props);
    floe_free(j->id);
    floe_free(j);
}

void floe_write_job_created(const char *job_id, const char *location) {
    if (!job_id || !location) return;
    char *loc = floe_strdup(location);
    if (!loc) return; /* out of memory: the file may outlive a failed statement */
    pthread_mutex_lock(&jobs_lock);
    write_job *j = find_job(job_id, true);
    if (j && j->n == j->cap) {
        int64_t cap = j->cap ? j->cap * 2 : 16;
        char **grown = floe_realloc(j->locations, (size_t)cap * sizeof *grown);
        if (grown) {
            j->locations = grown;
            j->cap = cap;
        }
    }
    if (j && j->n < j->cap) {
        j->locations[j->n++] = loc;
        loc = NULL;
    }
    pthread_mutex_unlock(&jobs_lock);
    floe_free(loc);
}

floe_status floe_write_job_set_io(const char *job_id, const floe_property *props, size_t n) {
    if (!job_id) return NULL;
    floe_property *copy = NULL;
    FLOE_TRY_CTX(floe_exec_io_props_copy(props, n, &copy), "write job %s", job_id);
    floe_status st = NULL;
    pthread_mutex_lock(&jobs_lock);
    write_job *j = find_job(job_id, true);
    if (!j) {
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "write job %s", job_id);
    } else if (!j->io_set) {
        j->io_props = copy;
        j->n_io_props = n;
        j->io_set = true;
        copy = NULL;
    }
    pthread_mutex_unlock(&jobs_lock);
    floe_exec_io_props_free(copy, n);
    return st;
}

int64_t floe_write_job_abort(const char *job_id) {
    if (!job_id) return 0;
    pthread_mutex_lock(&jobs_lock);
    write_job *j = unlink_job(job_id);
    pthread_mutex_unlock(&jobs_lock);
    if (!j) return 0;
    int64_t deleted = 0;
    floe_fileio *io = NULL;
    floe_status st = floe_fileio_new(j->io_props, j->n_io_props, &io);
    if (st) {
        floe_status_free(st);
        free_job(j);
        return 0;
    }
    for (int64_t i = 0; i < j->n; i++) {
        st = floe_fileio_delete(io, j->locations[i]);
        if (st) floe_status_free(st); /* best effort: the statement already failed */
        else deleted++;
    }
    floe_fileio_free(io);
    free_job(j);
    return deleted;
}

void floe_write_job_forget(const char *job_id) {
    if (!job_id) return;
    pthread_mutex_lock(&jobs_lock);
    write_job *j = unlink_job(job_id);
    pthread_mutex_unlock(&jobs_lock);
    free_job(j);
}
