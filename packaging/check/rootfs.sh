# Shared by scripts/test-package: a bare Debian 12 root file system, fetched once and cached.
# Source this file; it defines functions only.
#
#   GATEHOUSE_ROOTFS_CACHE   where the pristine root and the extra .debs are kept (default /var/cache/gatehouse-rootfs,
#                            outside the repository so no clone or `git clean` throws it away)

rootfs_cache=${GATEHOUSE_ROOTFS_CACHE:-/var/cache/gatehouse-rootfs}
rootfs_suite=bookworm
rootfs_mirror=${GATEHOUSE_DEBIAN_MIRROR:-http://deb.debian.org/debian}

# rootfs_ensure_cache: `debootstrap --variant=minbase` once into $rootfs_cache/$suite-minbase.tar, and the .debs of
# libcurl4 (the one shared library the binary needs beyond libc, see docs/INSTALL.md) with whatever minbase lacks
# of its dependencies into $rootfs_cache/debs. Reruns find both and fetch nothing.
rootfs_ensure_cache() {
  local tarball="$rootfs_cache/$rootfs_suite-minbase.tar"
  mkdir -p "$rootfs_cache"
  if [[ ! -s $tarball ]]; then
    command -v debootstrap >/dev/null || apt_install debootstrap
    local work; work=$(mktemp -d "$rootfs_cache/build.XXXXXX")
    debootstrap --variant=minbase "$rootfs_suite" "$work/root" "$rootfs_mirror" >"$rootfs_cache/debootstrap.log" 2>&1 \
      || { tail -20 "$rootfs_cache/debootstrap.log"; return 1; }
    rm -rf "$work/root/var/cache/apt/archives/"*.deb "$work/root/var/lib/apt/lists/"* 2>/dev/null || true
    tar -C "$work/root" --numeric-owner -cf "$tarball.partial" . && mv "$tarball.partial" "$tarball"
    rm -rf "$work"
  fi
  if [[ ! -s $rootfs_cache/debs/.complete ]]; then
    local root; root=$(rootfs_fresh)
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    chroot "$root" apt-get update -qq >/dev/null
    chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --download-only --no-install-recommends libcurl4 >/dev/null
    rm -rf "$rootfs_cache/debs"; mkdir -p "$rootfs_cache/debs"
    cp "$root"/var/cache/apt/archives/*.deb "$rootfs_cache/debs/"
    ls "$rootfs_cache/debs" > "$rootfs_cache/debs/.complete"
    rootfs_remove "$root"
  fi
}

# rootfs_fresh: a new copy of the pristine root in a temporary folder; prints its path.
rootfs_fresh() {
  local root; root=$(mktemp -d "${TMPDIR:-/tmp}/gatehouse-root.XXXXXX")
  tar -C "$root" --numeric-owner -xf "$rootfs_cache/$rootfs_suite-minbase.tar"
  echo "$root"
}

# rootfs_add_libcurl ROOT: installs the cached libcurl4 .debs with dpkg inside ROOT (no network).
rootfs_add_libcurl() {
  local root=$1
  mkdir -p "$root/tmp/debs" && cp "$rootfs_cache"/debs/*.deb "$root/tmp/debs/"
  chroot "$root" sh -c 'dpkg -i /tmp/debs/*.deb >/tmp/debs.log 2>&1 || { cat /tmp/debs.log; exit 1; }; rm -rf /tmp/debs'
}

# rootfs_remove ROOT: unmounts anything left under ROOT and deletes it.
rootfs_remove() {
  local root=$1
  [[ -n $root && -d $root && $root != / ]] || return 0
  { grep -o " $root/[^ ]*" /proc/mounts || true; } | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
  rm -rf --one-file-system "$root"
}

# apt_install PACKAGE…: installs Debian packages the checks need on the host when missing.
apt_install() {
  local sudo_cmd=(); [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
