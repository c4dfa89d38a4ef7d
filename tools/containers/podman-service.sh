#!/usr/bin/env bash
# Makes Podman usable here and serves its Docker-compatible API for Testcontainers; safe to run again.
# Prints the DOCKER_HOST to export. Needs root (it writes /etc/containers and /run/podman).
set -euo pipefail

SOCKET=${PODMAN_SOCKET:-/run/podman/podman.sock}
CONF=/etc/containers/containers.conf
LOG=${PODMAN_SERVICE_LOG:-/var/log/stagecraft-podman-service.log}

# crun (Podman's default runtime) fails on this kernel with "setrlimit RLIMIT_NOFILE", and there is
# no systemd to manage cgroups: every container gets runc, cgroupfs and explicit ulimits instead.
# netavark with aardvark-dns gives a network's containers each other's names.
if ! grep -qs '^runtime = "runc"' "$CONF"; then
  mkdir -p "$(dirname "$CONF")"
  [ -f "$CONF" ] && cp "$CONF" "$CONF.before-stagecraft"
  cat >"$CONF" <<'CONF'
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"

[network]
network_backend = "netavark"
CONF
  echo "wrote $CONF"
fi

answers() { curl -fsS --max-time 2 --unix-socket "$SOCKET" http://podman/_ping >/dev/null 2>&1; }

if ! answers; then
  mkdir -p "$(dirname "$SOCKET")"
  rm -f "$SOCKET"
  # --time=0: the service never exits for idleness; CI and the suites come and go.
  # From /: the service outlives the directory it was started in (a CI clone may be deleted), and
  # conmon fails every container start ("Failed to get working directory") once that is gone.
  cd /
  setsid nohup podman system service --time=0 "unix://$SOCKET" >>"$LOG" 2>&1 </dev/null &
  echo "$!" >"$(dirname "$SOCKET")/stagecraft-service.pid"
  for _ in $(seq 1 50); do answers && break; sleep 0.2; done
  answers || { echo "podman system service did not answer on $SOCKET (log: $LOG)" >&2; exit 1; }
  echo "started podman system service (pid $(cat "$(dirname "$SOCKET")/stagecraft-service.pid"), log $LOG)"
fi
echo "DOCKER_HOST=unix://$SOCKET"
