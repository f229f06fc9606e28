# s3_peer.bash — sourced by the script tests that need an S3 server: starts
# the s3rver peer (tests/peers/s3rver_launch.mjs: s3rver behind a
# SigV4-checking proxy on 127.0.0.1) with a fresh, distinctive secret and
# points the AWS_* variables at it.
#
#   s3_peer_start BUCKET TAG
#
# Needs $src (the source tree), $tmp (a scratch directory) and fail().
# Optional: s3_peer_wrap (a command the peer runs under, e.g. a simulated
# host's launcher) and FLOE_TEST_S3_LISTEN (the proxy's address, in
# AWS_ENDPOINT_URL too; default 127.0.0.1).
# Sets rand (the secret's random part, to grep outputs for leaks), secret,
# port (the proxy's) and peer_pid (to kill in the caller's cleanup); the
# peer also stops when this shell exits, as its stdin then closes.
s3_peer_start() {
  local bucket=$1 tag=$2
  rand=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
  secret="wJalr/Xut+nFEMI${rand}K7MDENG${tag}"
  coproc PEER { FLOE_TEST_S3_SECRET="$secret" exec ${s3_peer_wrap[@]+"${s3_peer_wrap[@]}"} node "$src/tests/peers/s3rver_launch.mjs" "$bucket" 2>"$tmp/peer.err"; }
  peer_pid=$PEER_PID
  local ready='' s3port=''
  port=''
  read -r -t 60 ready s3port port <&"${PEER[0]}" || true
  [ "$ready" = READY ] || fail "s3rver launcher did not start: $(cat "$tmp/peer.err")"
  unset AWS_SESSION_TOKEN AWS_ENDPOINT_URL_S3 AWS_PROFILE
  export AWS_ENDPOINT_URL="http://${FLOE_TEST_S3_LISTEN:-127.0.0.1}:$port"
  export AWS_ACCESS_KEY_ID=S3RVER
  export AWS_SECRET_ACCESS_KEY="$secret"
  export AWS_REGION=us-east-1
}
