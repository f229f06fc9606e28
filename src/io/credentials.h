/*
 * credentials.h — what the io layer itself needs from the process-wide
 * credential store (the public half is in floe/fileio.h).
 *
 * The S3 client asks the store for the keys of its floe.credentials-id
 * before every request (floe_credentials_acquire), so a refresh — by this
 * process's refresher, or by credentials imported from a coordinator —
 * reaches every FileIO using that id at its next request.
 */
#ifndef FLOE_IO_CREDENTIALS_H
#define FLOE_IO_CREDENTIALS_H

#include <stdint.h>

#include "floe/fileio.h"

/* A private copy of an entry's S3 keys, taken under the store's lock.
 * `found` is 0 when the store has no entry for the id or the entry has no
 * access key (the caller then uses its own properties). */
typedef struct floe_cred_snapshot {
    int found;
    uint64_t version; /* changes with every put/import of the entry */
    char *access_key_id, *secret_access_key, *session_token;
} floe_cred_snapshot;

/* The current keys of `id`, refreshed first when needed:
 *  - stale_version == 0 (before a request): refresh when the entry has a
 *    refresher and no keys yet, or its expiry is near (within max(5 s,
 *    1/5 of the lifetime), but at most half the lifetime);
 *  - stale_version != 0 (after the server rejected the keys of that
 *    version as expired or unknown): refresh unless the entry already
 *    changed since; *changed tells whether the keys now differ from
 *    stale_version's, i.e. whether a retry can help.
 * Refreshes are single flight: one thread calls the refresher, the others
 * wait for it and use what it put.  A failed refresh is an error only when
 * the keys it should have replaced are unusable (expired, absent, or
 * rejected); otherwise the old keys are used and the refresh is tried
 * again a second later.  Clear the snapshot with floe_cred_snapshot_clear. */
floe_status floe_credentials_acquire(const char *id, uint64_t stale_version, floe_cred_snapshot *out,
                                     int *changed) FLOE_WARN_UNUSED;
/* Free the copies, zeroing the secrets first. */
void floe_cred_snapshot_clear(floe_cred_snapshot *s);

/* A copy of every property stored for `id` and its expiry (Unix ms, 0 =
 * none); *found 0 when there is no entry.  Free with floe_properties_free.
 * For tests and diagnostics. */
floe_status floe_credentials_lookup(const char *id, floe_property **props, size_t *n, int64_t *expires_at_ms,
                                    int *found) FLOE_WARN_UNUSED;
/* How many times the refresher of `id` has been called (tests). */
uint64_t floe_credentials_refresh_count(const char *id);

/* Copy / free an array of properties (values zeroed before freeing:
 * property lists carry secrets). */
floe_status floe_properties_copy(const floe_property *src, size_t n, floe_property **out) FLOE_WARN_UNUSED;
void floe_properties_free(floe_property *props, size_t n);

#endif
