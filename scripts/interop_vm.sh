#!/usr/bin/env bash
# Linux side of the RoCEv2 interop test: a QEMU VM running the kernel's soft-RoCE (rdma_rxe).
#   scripts/interop_vm.sh prepare [CACHE_DIR]     build CACHE_DIR/vmlinuz + initramfs.cpio.gz
#   scripts/interop_vm.sh boot [CACHE_DIR] --local-port P --remote-port Q [--mac M] [--oob-port H] [--oob-forward F]
#                                [--append "k=v ..."]
# CACHE_DIR defaults to target/tmp/interop-vm in the repository (the test's). Debian packages
# are fetched with `apt-get download` and unpacked with `dpkg -x` into CACHE_DIR; nothing but
# qemu-system-x86 is ever installed on the host. See sim/interop/README.md.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
SCRIPT="$REPO/scripts/interop_vm.sh"
INIT="$REPO/sim/interop/init"
VERBS_SRC="$REPO/sim/interop/verbs_check.c"
DEFAULT_CACHE="$REPO/target/tmp/interop-vm"
ARCH_LIBDIR=usr/lib/x86_64-linux-gnu

# Packages unpacked into the cache. linux-image-amd64 is resolved to its linux-image-6.* package.
# The library packages are those the shipped binaries link against (checked with ldd at build time);
# anything else comes from the host (libc, libm, the dynamic loader).
PACKAGES=(linux-image-amd64 busybox-static iproute2 libmnl0 libbsd0 libmd0 libcap2
  libibverbs1 libibverbs-dev libnl-3-200 libnl-route-3-200 ibverbs-providers ibverbs-utils
  perftest librdmacm1 libibumad3 libpci3 libudev1 zlib1g)
# Root modules; their dependencies are added from each module's modinfo `depends=`. rdma_rxe
# also needs the "crc32" crypto hash (ICRC) when a link is added, which the kernel would ask
# modprobe for; the image has no modules.dep, so crc32_generic is loaded up front.
MODULES=(virtio_pci virtio_net crc32_generic rdma_rxe)
# Dynamically linked programs copied into the image (paths inside the unpacked tree).
PROGRAMS=(usr/bin/rdma usr/bin/ibv_devinfo usr/bin/ibv_rc_pingpong usr/bin/ibv_uc_pingpong
  usr/bin/ib_write_bw usr/bin/ib_send_bw usr/bin/ib_read_bw usr/bin/ib_write_lat)
RXE_PROVIDER=$ARCH_LIBDIR/libibverbs/librxe-rdmav34.so

die() { echo "interop_vm: error: $*" >&2; exit 1; }
step() { echo "interop_vm: $*"; }
as_root() { if [[ $(id -u) == 0 ]]; then "$@"; else sudo "$@"; fi; }

ensure_qemu() {
  command -v qemu-system-x86_64 >/dev/null && return
  step "installing qemu-system-x86 on the host"
  export DEBIAN_FRONTEND=noninteractive
  if ! as_root apt-get install -y -q --no-install-recommends qemu-system-x86 >/dev/null; then
    as_root apt-get update -q >/dev/null || true
    as_root apt-get install -y -q --no-install-recommends qemu-system-x86 >/dev/null ||
      die "apt-get install qemu-system-x86 failed"
  fi
}

# Prints "name=version" for each package (the candidate apt would fetch).
resolve_packages() {
  local out name ver kpkg
  out=$(apt-cache policy "${PACKAGES[@]}" 2>/dev/null |
    awk '/^[^ ]/{sub(":$","",$1); p=$1} /Candidate:/{print p "=" $2}')
  for name in "${PACKAGES[@]}"; do
    ver=$(sed -n "s/^$name=//p" <<<"$out")
    [[ -n $ver && $ver != "(none)" ]] || return 1
    if [[ $name == linux-image-amd64 ]]; then
      kpkg=$(apt-cache show --no-all-versions "linux-image-amd64=$ver" |
        sed -n 's/^Depends:.*\(linux-image-6[^ ,]*-amd64\) (= \([^)]*\)).*/\1=\2/p' | head -1)
      [[ -n $kpkg ]] || return 1
      echo "$kpkg"
    else
      echo "$name=$ver"
    fi
  done
}

# Cheap fingerprint of apt's package lists and of PACKAGES: the resolved versions can only
# change when one of these does.
apt_lists_signature() {
  { echo "${PACKAGES[*]}"; stat -c '%n %s %Y' /var/lib/apt/lists/*Packages* /etc/apt/sources.list* 2>/dev/null; } |
    sha256sum
}

# Module file (.ko, .ko.xz, .ko.zst, .ko.gz) by module name, from the unpacked kernel.
declare -A MODPATH=()
index_modules() {
  local f base
  while IFS= read -r f; do
    base=${f##*/}; base=${base%%.ko*}; MODPATH[${base//-/_}]=$f
  done < <(find "$1" -name '*.ko*')
}
# Module content, uncompressed (busybox insmod in the image then needs nothing special).
module_bytes() {
  case $1 in
    *.ko) cat "$1" ;;
    *.ko.xz) xz -dc "$1" ;;
    *.ko.zst) zstd -dcq "$1" ;;
    *.ko.gz) gzip -dc "$1" ;;
    *) die "unknown module format: $1" ;;
  esac
}
# Appends NAME and its dependencies to ORDER, dependencies first.
declare -A SEEN=()
ORDER=()
add_module() {
  local m=${1//-/_} deps d
  [[ -n ${SEEN[$m]:-} ]] && return
  SEEN[$m]=1
  [[ -n ${MODPATH[$m]:-} ]] || die "kernel module $m not found"
  deps=$(module_bytes "${MODPATH[$m]}" | tr '\0' '\n' | sed -n 's/^depends=//p' | head -1)
  for d in ${deps//,/ }; do add_module "$d"; done
  ORDER+=("$m")
}

prepare() {
  local cache=${1:-$DEFAULT_CACHE}
  mkdir -p "$cache"
  cache=$(cd "$cache" && pwd)
  local debs=$cache/debs root=$cache/root stage=$cache/stage
  local pkglist=$cache/packages.txt aptsig=$cache/apt-lists.sig stamp=$cache/stamp
  local t0=$SECONDS

  # One prepare at a time per cache (the test command starts one early, the test runs another).
  exec 9>"$cache/.lock"
  flock 9
  ensure_qemu
  for t in apt-get apt-cache dpkg dpkg-deb gcc ldd gzip sha256sum; do
    command -v $t >/dev/null || die "$t is needed on the host"
  done

  # 1. Package versions: reuse the last resolution while apt's lists are unchanged (apt-cache
  #    takes about a second here, which would make the cached path slow).
  local sig; sig=$(apt_lists_signature)
  if [[ -s $pkglist && -f $aptsig && $(cat "$aptsig") == "$sig" ]]; then
    :
  else
    step "resolving package versions"
    if ! resolve_packages >"$pkglist.new"; then
      step "no candidate for some package: running apt-get update"
      as_root apt-get update -q >/dev/null || die "apt-get update failed"
      sig=$(apt_lists_signature)
      resolve_packages >"$pkglist.new" || die "cannot resolve packages: ${PACKAGES[*]}"
    fi
    mv "$pkglist.new" "$pkglist"
    echo "$sig" >"$aptsig"
  fi

  # 2. Up to date?
  local hash
  hash=$(cat "$pkglist" "$SCRIPT" "$INIT" "$VERBS_SRC" | sha256sum | cut -d' ' -f1)
  if [[ -f $stamp && $(cat "$stamp") == "$hash" && -f $cache/vmlinuz && -f $cache/initramfs.cpio.gz ]]; then
    step "up to date: $cache ($(wc -l <"$pkglist") packages)"
    return
  fi
  rm -f "$stamp"

  # 3. Download the .debs not in the cache yet (the file name holds the version, ':' as %3a).
  mkdir -p "$debs"
  local want=() missing=() spec name ver file
  while IFS= read -r spec; do
    name=${spec%%=*}; ver=${spec#*=}
    file=$(ls "$debs/${name}_${ver//:/%3a}_"*.deb 2>/dev/null | head -1 || true)
    [[ -n $file ]] || missing+=("$spec")
    want+=("$spec")
  done <"$pkglist"
  if ((${#missing[@]})); then
    step "downloading ${#missing[@]} packages into $debs"
    local sandbox=()
    [[ $(id -u) == 0 ]] && sandbox=(-o APT::Sandbox::User=root)
    if ! (cd "$debs" && apt-get download -q "${sandbox[@]}" "${missing[@]}" >"$cache/download.log" 2>&1); then
      cat "$cache/download.log" >&2
      die "apt-get download failed for: ${missing[*]} (is the Debian archive reachable? try apt-get update)"
    fi
  else
    step "all ${#want[@]} packages already downloaded"
  fi
  # Drop .debs of other versions.
  local d keepset=" "
  for spec in "${want[@]}"; do
    name=${spec%%=*}; ver=${spec#*=}
    keepset+="${name}_${ver//:/%3a}_ "
  done
  for d in "$debs"/*.deb; do
    file=${d##*/}
    [[ $keepset == *" ${file%_*.deb}_ "* ]] || rm -f "$d"
  done

  # 4. Unpack everything into a fresh tree.
  step "unpacking ${#want[@]} packages with dpkg -x"
  rm -rf "$root"; mkdir -p "$root"
  for d in "$debs"/*.deb; do dpkg -x "$d" "$root"; done

  local kver
  kver=$(ls "$root/lib/modules" | head -1)
  [[ -n $kver && -f $root/boot/vmlinuz-$kver ]] || die "no kernel in the unpacked linux-image package"

  # 5. verbs_check, against the unpacked libibverbs-dev headers and libibverbs.so.
  step "compiling verbs_check"
  mkdir -p "$cache/build"
  gcc -O2 -g0 -Wall -Wextra -Werror -o "$cache/build/verbs_check" "$VERBS_SRC" \
    -isystem "$root/usr/include" -L "$root/$ARCH_LIBDIR" \
    -Wl,-rpath-link,"$root/$ARCH_LIBDIR:$root/lib/x86_64-linux-gnu" -libverbs

  # 6. Image tree: merged /usr layout, busybox applets, programs, libraries, modules.
  step "assembling the initramfs tree (kernel $kver)"
  rm -rf "$stage"
  mkdir -p "$stage"/{usr/bin,usr/lib64,$ARCH_LIBDIR/libibverbs,etc/libibverbs.d,lib/modules,proc,sys,dev,tmp,root}
  rmdir "$stage/lib/modules" "$stage/lib"
  ln -s usr/bin "$stage/bin"; ln -s usr/bin "$stage/sbin"
  ln -s usr/lib "$stage/lib"; ln -s usr/lib64 "$stage/lib64"
  mkdir -p "$stage/usr/lib/modules"
  install -m 0755 "$INIT" "$stage/init"

  local bb=$root/bin/busybox applet
  [[ -x $bb ]] || die "busybox not found in busybox-static"
  cp "$bb" "$stage/usr/bin/busybox"
  for applet in $("$bb" --list); do
    [[ -e $stage/usr/bin/$applet ]] || ln -s busybox "$stage/usr/bin/$applet"
  done

  local p elfs=()
  for p in "${PROGRAMS[@]}"; do
    [[ -f $root/$p ]] || die "$p missing from the unpacked packages"
    cp "$root/$p" "$stage/usr/bin/"; elfs+=("$root/$p")
  done
  cp "$cache/build/verbs_check" "$stage/usr/bin/"; elfs+=("$cache/build/verbs_check")
  cp "$root/$RXE_PROVIDER" "$stage/$RXE_PROVIDER"; elfs+=("$root/$RXE_PROVIDER")
  cp "$root/etc/libibverbs.d/rxe.driver" "$stage/etc/libibverbs.d/"

  # Shared libraries: ldd resolves from the unpacked tree first, then the host.
  local lib libs
  libs=$(LD_LIBRARY_PATH="$root/lib/x86_64-linux-gnu:$root/$ARCH_LIBDIR" ldd "${elfs[@]}" |
    awk '/not found/{print "MISSING " $1} / => \//{print $3}' | sort -u)
  if grep -q '^MISSING' <<<"$libs"; then
    die "unresolved libraries: $(grep '^MISSING' <<<"$libs" | cut -d' ' -f2 | tr '\n' ' ')(add their packages to PACKAGES)"
  fi
  for lib in $libs; do cp -L "$lib" "$stage/$ARCH_LIBDIR/${lib##*/}"; done
  cp -L /lib64/ld-linux-x86-64.so.2 "$stage/usr/lib64/"

  # Modules in dependency order; /lib/modules/order lists them for /init's insmod loop.
  index_modules "$root/lib/modules/$kver"
  for p in "${MODULES[@]}"; do add_module "$p"; done
  for p in "${ORDER[@]}"; do
    module_bytes "${MODPATH[$p]}" >"$stage/usr/lib/modules/$p.ko"
  done
  printf '%s\n' "${ORDER[@]}" >"$stage/usr/lib/modules/order"
  echo "$kver" >"$stage/etc/ferroce-kernel"

  # 7. Archive (busybox cpio, so the host needs no cpio) and kernel.
  step "writing initramfs.cpio.gz (modules: ${ORDER[*]})"
  (cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
    "$bb" cpio -o -H newc -R 0:0 2>/dev/null) | gzip -6 >"$cache/initramfs.cpio.gz.new"
  mv "$cache/initramfs.cpio.gz.new" "$cache/initramfs.cpio.gz"
  cp "$root/boot/vmlinuz-$kver" "$cache/vmlinuz"
  echo "$hash" >"$stamp"
  step "done in $((SECONDS - t0)) s: $cache/vmlinuz, $cache/initramfs.cpio.gz ($(du -k "$cache/initramfs.cpio.gz" | cut -f1) KiB)"
}

boot() {
  local cache=$DEFAULT_CACHE
  if [[ $# -gt 0 && $1 != --* ]]; then cache=$1; shift; fi
  local lport="" rport="" mac=52:54:00:12:34:56 extra="" oob="" forward=""
  while [[ $# -gt 0 ]]; do
    case $1 in
      --local-port) lport=${2:?}; shift 2 ;;
      --oob-port) oob=${2:?}; shift 2 ;;
      --oob-forward) forward=${2:?}; shift 2 ;;
      --remote-port) rport=${2:?}; shift 2 ;;
      --mac) mac=${2:?}; shift 2 ;;
      --append) extra=${2?}; shift 2 ;;
      *) die "boot: unknown argument $1" ;;
    esac
  done
  [[ $lport =~ ^[0-9]+$ && $rport =~ ^[0-9]+$ ]] || die "boot needs --local-port P --remote-port Q"
  [[ -f $cache/vmlinuz && -f $cache/initramfs.cpio.gz ]] ||
    die "no image in $cache: run scripts/interop_vm.sh prepare $cache first"
  ensure_qemu
  # One virtio NIC whose Ethernet frames travel as UDP datagrams: sent from 127.0.0.1:P to
  # 127.0.0.1:Q, one frame (no FCS) per datagram; datagrams sent to 127.0.0.1:P enter the VM.
  # panic=-1 plus -no-reboot: a dead /init ends qemu instead of hanging.
  # With --oob-port H or --oob-forward F, a second NIC (eth1, 10.0.2.15) on QEMU's user
  # network for the out-of-band TCP exchange of ibv_rc_pingpong and perftest, and nothing else:
  # --oob-port H: each connection of the VM to 10.0.2.100:18515 goes to 127.0.0.1:H on the
  #   host (a bash with /dev/tcp per connection);
  # --oob-forward F: each connection to 127.0.0.1:F on the host goes to 10.0.2.15:18515 in the VM.
  local oob_nic=() user=""
  if [[ -n $oob ]]; then
    [[ $oob =~ ^[0-9]+$ ]] || die "--oob-port needs a port number"
    user+=",guestfwd=tcp:10.0.2.100:18515-cmd:bash -c 'exec 3<>/dev/tcp/127.0.0.1/$oob; cat <&3 & exec cat >&3'"
  fi
  if [[ -n $forward ]]; then
    [[ $forward =~ ^[0-9]+$ ]] || die "--oob-forward needs a port number"
    user+=",hostfwd=tcp:127.0.0.1:$forward-10.0.2.15:18515"
  fi
  if [[ -n $user ]]; then
    oob_nic=(-netdev "user,id=n1,restrict=on,net=10.0.2.0/24$user"
      -device "virtio-net-pci,netdev=n1,mac=52:54:00:12:34:57")
  fi
  # no_timer_check: under emulation on a loaded machine the kernel's check of the IO-APIC timer
  # can miss its ticks and panic ("IO-APIC + timer doesn't work!") before the test starts.
  exec qemu-system-x86_64 -accel tcg -m 512 -nographic -no-reboot \
    -kernel "$cache/vmlinuz" -initrd "$cache/initramfs.cpio.gz" \
    -append "console=ttyS0 quiet panic=-1 no_timer_check $extra" \
    -netdev "dgram,id=n0,local.type=inet,local.host=127.0.0.1,local.port=$lport,remote.type=inet,remote.host=127.0.0.1,remote.port=$rport" \
    -device "virtio-net-pci,netdev=n0,mac=$mac" "${oob_nic[@]}"
}

case ${1:-} in
  prepare) shift; prepare "$@" ;;
  boot) shift; boot "$@" ;;
  *) sed -n '2,8s/^# \{0,1\}//p' "$SCRIPT" >&2; exit 2 ;;
esac
