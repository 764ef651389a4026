#!/usr/bin/env bash
# Installs attn into a temporary prefix and uses it as a project would, with
# no GPU: a fresh CMake project (examples/consumer: find_package(attn CONFIG),
# attn::attn_c from C, attn::attn from C++) and a C program built with
# pkg-config each create a context and compile a kernel; the installed Python
# package loads the installed library and reports its version.
#   test/Install/consumer.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
export ATTN_FORCE_NO_GPU=1

cmake --install "$build" --prefix "$prefix" > "$work/install.log"
for f in include/attn/attn.h include/attn/Version.h include/attn-c/attn.h \
         lib/libattn_c.so lib/libAttnAPI.a lib/libAttnRuntime.a \
         lib/cmake/attn/attnConfig.cmake lib/pkgconfig/attn.pc \
         bin/attn-opt bin/attn-run bin/attn-translate \
         lib/python3/site-packages/attn/__init__.py; do
  [[ -e $prefix/$f ]] || { echo "not installed: $f" >&2; exit 1; }
done
version=$(sed -n 's/^#define ATTN_VERSION "\(.*\)"$/\1/p' "$prefix/include/attn/Version.h")
abi=$(sed -n 's/^#define ATTN_C_ABI_VERSION \([0-9]*\)$/\1/p' "$prefix/include/attn-c/attn.h")
[[ $(readlink "$prefix/lib/libattn_c.so") == "libattn_c.so.$abi" ]] ||
  { echo "libattn_c.so does not link to libattn_c.so.$abi" >&2; exit 1; }
# Not grep -q: it exits at the match, and under pipefail objdump's SIGPIPE
# (when it is still writing) would fail the check.
objdump -p "$prefix/lib/libattn_c.so.$abi" | grep "SONAME *libattn_c.so.$abi" > /dev/null ||
  { echo "libattn_c.so.$abi has no SONAME libattn_c.so.$abi" >&2; exit 1; }

echo "== CMake consumer (find_package(attn CONFIG))"
cmake -G Ninja -S "$src/examples/consumer" -B "$work/consumer" \
  -DCMAKE_PREFIX_PATH="$prefix" > "$work/configure.log" ||
  { cat "$work/configure.log"; exit 1; }
cmake --build "$work/consumer" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
"$work/consumer/attn-consumer-c" | tee "$work/c.out"
grep -q "^attn $version, C ABI $abi (header $abi)" "$work/c.out"
grep -q "^C: compiled attn_fwd_bf16_hd64_causal_sm80_" "$work/c.out"
"$work/consumer/attn-consumer-cpp" | tee "$work/cpp.out"
grep -q "^C++: attn $version compiled attn_fwd_bf16_hd64_causal_sm80_" "$work/cpp.out"

echo "== pkg-config consumer"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[[ $(pkg-config --modversion attn) == "$version" ]]
cc -o "$work/pc-consumer" "$src/examples/consumer/consumer.c" $(pkg-config --cflags --libs attn) \
  -Wl,-rpath,"$(pkg-config --variable=libdir attn)"
"$work/pc-consumer" | grep "^C: compiled"

echo "== Python package"
PYTHONPATH=$prefix/lib/python3/site-packages python3 -c '
import sys, attn
assert attn.__version__ == sys.argv[1], (attn.__version__, sys.argv[1])
assert attn.library()._name.endswith("/lib/libattn_c.so." + sys.argv[2]), attn.library()._name
print("python: attn", attn.__version__, "from", attn.library()._name)
' "$version" "$abi"
echo "install consumer: ok"
