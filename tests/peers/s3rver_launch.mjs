// s3rver_launch.mjs — an S3 peer for floe's tests, on 127.0.0.1 (or one given address).
//
// Starts s3rver (a fake S3 in node) on a free port with a fresh temporary
// directory and one bucket, and in front of it a small proxy, also on a free
// 127.0.0.1 port, that makes the peer stricter and less reliable than s3rver:
//
//   - it verifies AWS Signature V4 on every signed request (s3rver only checks
//     the access key id): canonical URI and query rebuilt the way S3 does,
//     every signed header, the session token, and that x-amz-content-sha256
//     is the SHA-256 of the body.  Failures answer 403 SignatureDoesNotMatch /
//     InvalidToken or 400 XAmzContentSHA256Mismatch, as S3 does;
//   - it injects faults by key name: "flaky500-" (first 2 requests per method
//     and path answer 500 InternalError), "slowdown-" (first answers 503
//     SlowDown), "throttle429-" (first answers 429), "hang-" (first request
//     stalls 3 s before being served), "always500-", "fail404-" (always 404
//     NoSuchKey), "deny403-" (always 403 AccessDenied), "partfail-" (part 2
//     of a multipart upload always answers 400 InvalidPart);
//   - it answers AbortMultipartUpload itself (s3rver lacks it) and counts it,
//     answers 404 NoSuchUpload to a second completion of an upload (as S3
//     does), and "completelost-" keys lose the first completion's response;
//   - canned answers: listings of prefixes "listbad-notoken" (truncated
//     without a continuation token), "listbad-entity" (unknown XML entity),
//     "listbad-size" (bad Size); "wrongregion-" keys answer 301
//     PermanentRedirect with x-amz-bucket-region, as S3 does;
//   - virtual-hosted requests ("<bucket>.s3.test:port") are rewritten to
//     path style before s3rver sees them;
//   - GET /__floe/count?key=K[&method=M] tells how many requests it saw
//     whose path contains K; /__floe/aborts how many aborts.
//
// Usage: node s3rver_launch.mjs [bucket]      (default bucket: floe-test)
// Environment: FLOE_TEST_S3_SECRET / FLOE_TEST_S3_TOKEN — the secret key and
// session token the proxy expects for access key S3RVER (default S3RVER and
// no token); FLOE_TEST_S3_LISTEN — the address the proxy listens on
// (default 127.0.0.1; s3rver itself stays on 127.0.0.1 behind it), e.g. a
// simulated host's on the netns rig's bridge (tests/scripts/netns_rig.bash).
// Prints "READY <s3rver-port> <proxy-port>" once both listen, then runs until
// SIGTERM/SIGINT or until its stdin closes (so it dies with its parent), and
// removes its directory on the way out.
import { createRequire } from 'node:module';
import crypto, { createHash, createHmac } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);

// s3rver encrypts ListObjectsV2 continuation tokens with single DES, which
// OpenSSL 3 only has in its legacy provider (absent from node 17+ by
// default).  Three-key DES with K1=K2=K3 is the same cipher and is still in
// the default provider, so route 'des' there when plain DES is missing.
function desMissing() {
  try {
    crypto.createCipheriv('des', Buffer.alloc(8), Buffer.alloc(8));
    return false;
  } catch {
    return true;
  }
}
if (desMissing()) {
  const wrap = orig => (alg, key, iv, opts) =>
    String(alg).toLowerCase() === 'des'
      ? orig('des-ede3-cbc', Buffer.concat([key, key, key]), iv, opts)
      : orig(alg, key, iv, opts);
  crypto.createCipheriv = wrap(crypto.createCipheriv.bind(crypto));
  crypto.createDecipheriv = wrap(crypto.createDecipheriv.bind(crypto));
}
const S3rver = require('s3rver');

const bucket = process.argv[2] || 'floe-test';
const secrets = { S3RVER: process.env.FLOE_TEST_S3_SECRET || 'S3RVER' };
const token = process.env.FLOE_TEST_S3_TOKEN || '';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-s3rver-'));

function s3error(res, status, code, message) {
  const body =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${code}</Code><Message>${message}</Message><RequestId>floe</RequestId></Error>`;
  res.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

// S3's encoding for canonical requests: unreserved characters stay.
function awsEncode(s, keepSlash) {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c) || (keepSlash && c === '/')) out += c;
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

function canonicalQuery(raw) {
  if (!raw) return '';
  const pairs = raw.split('&').filter(p => p.length).map(p => {
    const i = p.indexOf('=');
    const k = decodeURIComponent(i < 0 ? p : p.slice(0, i));
    const v = decodeURIComponent(i < 0 ? '' : p.slice(i + 1));
    return [awsEncode(k, false), awsEncode(v, false)];
  });
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

const hmac = (key, data) => createHmac('sha256', key).update(data).digest();
const sha256hex = data => createHash('sha256').update(data).digest('hex');

// Returns null when the request is acceptable, else [status, code, message].
function verify(req, body) {
  const auth = req.headers['authorization'];
  if (!auth) return null; // anonymous: s3rver decides
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) return [400, 'AuthorizationHeaderMalformed', 'unexpected Authorization header'];
  const [, ak, date, region, signedList, signature] = m;
  const secret = secrets[ak];
  if (secret === undefined) return null; // unknown key: s3rver answers InvalidAccessKeyId
  const signed = signedList.split(';');
  for (const need of ['host', 'x-amz-date', 'x-amz-content-sha256'])
    if (!signed.includes(need)) return [403, 'AccessDenied', `${need} is not signed`];
  if ('x-amz-security-token' in req.headers && !signed.includes('x-amz-security-token'))
    return [403, 'AccessDenied', 'x-amz-security-token is not signed'];
  if ((req.headers['x-amz-security-token'] || '') !== token)
    return [403, 'InvalidToken', 'The provided token is malformed or otherwise invalid.'];
  const payload = req.headers['x-amz-content-sha256'];
  if (payload !== 'UNSIGNED-PAYLOAD' && payload !== sha256hex(body))
    return [400, 'XAmzContentSHA256Mismatch', 'The provided x-amz-content-sha256 header does not match what was computed.'];
  const q = req.url.indexOf('?');
  const rawPath = q < 0 ? req.url : req.url.slice(0, q);
  const uri = rawPath.split('/').map(seg => awsEncode(decodeURIComponent(seg), false)).join('/');
  const headers = signed.map(h => `${h}:${String(req.headers[h] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  const creq = [req.method, uri, canonicalQuery(q < 0 ? '' : req.url.slice(q + 1)), headers, signedList, payload].join('\n');
  const amzDate = req.headers['x-amz-date'] || '';
  if (!amzDate.startsWith(date)) return [403, 'AccessDenied', 'x-amz-date does not match the credential scope'];
  const scope = `${date}/${region}/s3/aws4_request`;
  const sts = ['AWS4-HMAC-SHA256', amzDate, scope, sha256hex(creq)].join('\n');
  let k = hmac('AWS4' + secret, date);
  k = hmac(k, region);
  k = hmac(k, 's3');
  k = hmac(k, 'aws4_request');
  if (hmac(k, sts).toString('hex') !== signature)
    return [403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.'];
  return null;
}

const seen = new Map(); // "METHOD path" -> count
let aborts = 0;
const completed = new Set(); // upload ids whose completion s3rver accepted
const lost = new Set(); // paths whose completion response was already lost

function countFor(key, method) {
  let n = 0;
  for (const [k, v] of seen) {
    const [m, p] = k.split(' ');
    if (p.includes(key) && (!method || m === method)) n += v;
  }
  return n;
}

// `lose(status)` may return true to drop s3rver's answer (after s3rver acted
// on the request) and tell the client 500 instead: a lost response.
function forward(req, res, body, s3port, lose) {
  const up = http.request(
    { host: '127.0.0.1', port: s3port, method: req.method, path: req.url, headers: req.headers },
    upres => {
      if (lose && lose(upres.statusCode)) {
        upres.resume();
        return s3error(res, 500, 'InternalError', 'We encountered an internal error. Please try again.');
      }
      res.writeHead(upres.statusCode, upres.headers);
      upres.pipe(res);
    },
  );
  up.on('error', () => s3error(res, 502, 'BadGateway', 'proxy could not reach s3rver'));
  up.end(body);
}

function startProxy(s3port) {
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', c => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url, 'http://x');
      if (url.pathname === '/__floe/count') {
        res.end(String(countFor(url.searchParams.get('key') || '', url.searchParams.get('method'))));
        return;
      }
      if (url.pathname === '/__floe/aborts') {
        res.end(String(aborts));
        return;
      }
      const bad = verify(req, body);
      if (bad) return s3error(res, ...bad);
      // Virtual-hosted style -> path style for s3rver (after verification,
      // which must see the request as the client signed it).
      const vh = /^([a-z0-9.-]+)\.s3\.test(:\d+)?$/.exec(req.headers.host || '');
      if (vh) {
        req.url = '/' + vh[1] + req.url;
        req.headers.host = '127.0.0.1';
      }
      const p = url.pathname;
      const id = `${req.method} ${p}`;
      const n = (seen.get(id) || 0) + 1;
      seen.set(id, n);
      if (p.includes('always500-') || (p.includes('flaky500-') && n <= 2))
        return s3error(res, 500, 'InternalError', 'We encountered an internal error. Please try again.');
      if (p.includes('slowdown-') && n <= 1) return s3error(res, 503, 'SlowDown', 'Please reduce your request rate.');
      if (p.includes('throttle429-') && n <= 1) return s3error(res, 429, 'TooManyRequests', 'Too many requests.');
      if (p.includes('deny403-')) return s3error(res, 403, 'AccessDenied', 'Access Denied');
      // Canned responses for what s3rver cannot be made to do.
      const listPrefix = url.searchParams.get('prefix') || '';
      if (req.method === 'GET' && listPrefix.startsWith('listbad-notoken')) {
        const xml = '<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>b</Name>' +
          '<Contents><Key>listbad-notoken/a</Key><Size>1</Size></Contents><IsTruncated>true</IsTruncated></ListBucketResult>';
        res.writeHead(200, { 'Content-Type': 'application/xml' });
        return res.end(xml);
      }
      if (req.method === 'GET' && listPrefix.startsWith('listbad-entity')) {
        const xml = '<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>b</Name>' +
          '<Contents><Key>listbad-entity/a&bogus;</Key><Size>1</Size></Contents><IsTruncated>false</IsTruncated></ListBucketResult>';
        res.writeHead(200, { 'Content-Type': 'application/xml' });
        return res.end(xml);
      }
      if (req.method === 'GET' && listPrefix.startsWith('listbad-size')) {
        const xml = '<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>b</Name>' +
          '<Contents><Key>listbad-size/a</Key><Size>12x</Size></Contents><IsTruncated>false</IsTruncated></ListBucketResult>';
        res.writeHead(200, { 'Content-Type': 'application/xml' });
        return res.end(xml);
      }
      if (p.includes('wrongregion-')) {
        res.setHeader('x-amz-bucket-region', 'ap-northeast-1');
        return s3error(res, 301, 'PermanentRedirect', 'The bucket you are attempting to access must be addressed using the specified endpoint.');
      }
      if (p.includes('partfail-') && req.method === 'PUT' && url.searchParams.get('partNumber') === '2')
        return s3error(res, 400, 'InvalidPart', 'One or more of the specified parts could not be found.');
      if (p.includes('fail404-')) return s3error(res, 404, 'NoSuchKey', 'The specified key does not exist.');
      if (req.method === 'DELETE' && url.searchParams.has('uploadId')) {
        aborts++;
        res.writeHead(204);
        return res.end();
      }
      // CompleteMultipartUpload: like S3, a completed upload is gone (404
      // NoSuchUpload), which s3rver does not model; "completelost-" loses
      // the first completion's response after it took effect.
      if (req.method === 'POST' && url.searchParams.has('uploadId')) {
        const upload = url.searchParams.get('uploadId');
        if (completed.has(upload)) return s3error(res, 404, 'NoSuchUpload', 'The specified upload does not exist.');
        return forward(req, res, body, s3port, status => {
          if (status === 200) completed.add(upload);
          if (!p.includes('completelost-') || lost.has(p)) return false;
          lost.add(p);
          return true;
        });
      }
      if (p.includes('hang-') && n <= 1) {
        setTimeout(() => forward(req, res, body, s3port), 3000);
        return;
      }
      forward(req, res, body, s3port);
    });
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, process.env.FLOE_TEST_S3_LISTEN || '127.0.0.1', () => resolve(server));
  });
}

const s3 = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory: dir,
  configureBuckets: [{ name: bucket, configs: [] }],
});

let proxy = null;
let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  try {
    if (proxy) {
      proxy.closeAllConnections?.();
      proxy.close();
    }
    s3.httpServer?.closeAllConnections?.();
    await s3.close();
  } catch {
    // already closed
  }
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();

try {
  const addr = await s3.run();
  proxy = await startProxy(addr.port);
  process.stdout.write(`READY ${addr.port} ${proxy.address().port}\n`);
} catch (err) {
  process.stderr.write(`s3rver_launch: ${err.message}\n`);
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(1);
}
