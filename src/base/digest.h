/*
 * digest.h — MD5 (RFC 1321) and SHA-256 (FIPS 180-4) of a byte string,
 * one call each, for the SQL functions md5() and sha256().  Not for
 * security decisions inside floe: only to compute what PostgreSQL's
 * functions of the same name return.
 */
#ifndef FLOE_BASE_DIGEST_H
#define FLOE_BASE_DIGEST_H

#include <stddef.h>
#include <stdint.h>

void floe_md5(const void *data, size_t n, uint8_t out[16]);
void floe_sha256(const void *data, size_t n, uint8_t out[32]);

#endif
