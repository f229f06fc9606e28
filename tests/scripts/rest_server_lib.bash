# rest_server_lib.bash — sourced by the script tests that run `floe
# rest-server`: start one on a free port (--port 0; the port is read from
# its "listening on http://HOST:PORT" line) and stop it.
#
#   rest_server_start WAREHOUSE [more rest-server options...]
#       sets rest_pid, rest_url (http://127.0.0.1:PORT), rest_log (its
#       stdout and stderr); fails when it is not listening within 30 s
#   rest_server_stop
#       SIGTERM, then waits up to 15 s for a clean exit (status 0)
#   rest_server_cleanup
#       kills whatever is still running (for the caller's EXIT trap)
#
# Needs $FLOE_BIN, $tmp (a scratch directory) and fail(); optional
# rest_server_wrap, a command the server runs under (a simulated host's
# launcher, tests/scripts/netns_rig.bash).
rest_server_pids=()
rest_server_n=0

rest_server_start() {
  local wh=$1
  shift
  rest_server_n=$((rest_server_n + 1))
  rest_log="$tmp/rest-server.$rest_server_n.log"
  ${rest_server_wrap[@]+"${rest_server_wrap[@]}"} "$FLOE_BIN" rest-server --warehouse "$wh" --port 0 "$@" \
    >"$rest_log" 2>&1 </dev/null &
  rest_pid=$!
  rest_server_pids+=("$rest_pid")
  local line='' i
  for ((i = 0; i < 300; i++)); do
    line=$(grep -m1 '^listening on http://' "$rest_log" || true)
    [ -n "$line" ] && break
    kill -0 "$rest_pid" 2>/dev/null || fail "rest-server exited at start: $(cat "$rest_log")"
    sleep 0.1
  done
  [ -n "$line" ] || fail "rest-server not listening after 30 s: $(cat "$rest_log")"
  rest_url=${line#listening on }
}

rest_server_stop() {
  kill -TERM "$rest_pid" 2>/dev/null || fail "rest-server $rest_pid was not running"
  local i
  for ((i = 0; i < 150; i++)); do
    kill -0 "$rest_pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$rest_pid" 2>/dev/null; then
    kill -KILL "$rest_pid" 2>/dev/null || true
    fail "rest-server did not stop within 15 s of SIGTERM"
  fi
  local rc=0
  wait "$rest_pid" || rc=$?
  [ "$rc" = 0 ] || fail "rest-server exited with status $rc after SIGTERM: $(tail -5 "$rest_log")"
}

rest_server_cleanup() {
  local p
  for p in "${rest_server_pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
}
