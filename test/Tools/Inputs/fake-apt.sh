#!/usr/bin/env bash
# Makes DIR a PATH with stubs for what scripts/install-deps.sh runs: every
# package missing (dpkg-query), `id -u` printing UID, apt-get logging its
# arguments to DIR/log, and, with SUDO=yes, a sudo that runs its command
# "as root" (AS=root in the log).
#   fake-apt.sh DIR UID SUDO
set -euo pipefail
dir=$1 uid=$2 sudo=$3
mkdir -p "$dir"
for tool in bash env grep; do ln -sf "$(command -v $tool)" "$dir/$tool"; done
printf '#!/bin/sh\nexit 1\n' > "$dir/dpkg-query"
printf '#!/bin/sh\necho %s\n' "$uid" > "$dir/id"
printf '#!/bin/sh\necho "apt-get $* [DEBIAN_FRONTEND=$DEBIAN_FRONTEND] [as ${AS:-self}]" >> %s/log\n' "$dir" > "$dir/apt-get"
if [[ $sudo == yes ]]; then
  printf '#!/bin/sh\necho "sudo $1" >> %s/log\nAS=root exec "$@"\n' "$dir" > "$dir/sudo"
fi
chmod +x "$dir"/*
