#!/bin/sh
# Installs the Debian packages lockstep needs to build, when run as root; otherwise names
# them in one line. Checks headers rather than package names, so other distributions pass
# when the libraries are there.
missing=""
have_header() { printf '#include <%s>\n' "$1" | ${CC:-cc} -E -x c - >/dev/null 2>&1; }
have_header lzma.h || missing="$missing liblzma-dev"
have_header zlib.h || missing="$missing zlib1g-dev"
have_header omp.h || missing="$missing libomp-dev"
have_header zstd.h || missing="$missing libzstd-dev"
have_header libdeflate.h || missing="$missing libdeflate-dev"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null && apt-get install -y -qq $missing >/dev/null && exit 0
    echo "deps: apt-get install$missing failed" >&2
    exit 1
fi
echo "deps: missing build dependencies; install them with: sudo apt-get install$missing" >&2
exit 1
