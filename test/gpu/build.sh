#!/usr/bin/env bash
# Builds the GPU test programs without make and without PostgreSQL (a bare
# GPU machine has neither pg_config nor, perhaps, make):
#
#   bash test/gpu/build.sh            # nvcc: sm_90 device code only -> build/gpu/bin
#   bash test/gpu/build.sh --emulate  # g++ only, CPU emulation      -> build/gpu/emu
#
# Programs: gpu_test (CPU-vs-CUDA equality), gpu_bench, gpu_mathbits.  The
# CUDA runtime is linked statically (libcudart_static.a), so the programs
# need only the driver.  Flags as the Makefile's (no fused multiply-add on
# either side).  Incremental: an object is rebuilt when its source or a
# header is newer; with --emulate, the Makefile's up-to-date engine objects
# (extension/core/<folder>/*.o) are reused.  Environment: JOBS (default nproc),
# NVCC, CUDA_HOME, CUDA_ARCHS (default sm_90).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 2
EMU=0
[ "${1:-}" = "--emulate" ] && EMU=1
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
CXX=${CXX:-g++}
CXXFLAGS="-std=c++17 -O2 -fPIC -ffp-contract=off -Wall -Wno-unused-parameter -Iextension/core -Iextension/core/include -pthread"
if [ "$EMU" = 1 ]; then
  OUTD=build/gpu/emu
else
  NVCC=${NVCC:-$(command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null || true)}
  [ -n "$NVCC" ] || { echo "build.sh: no nvcc (PATH, /usr/local/cuda/bin)"; exit 1; }
  CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$NVCC")")}
  CUDA_ARCHS=${CUDA_ARCHS:-"-gencode arch=compute_90,code=sm_90"}
  CUDART=""
  for d in "$CUDA_HOME/lib64" "$CUDA_HOME/targets/x86_64-linux/lib"; do
    [ -f "$d/libcudart_static.a" ] && { CUDART="$d/libcudart_static.a"; break; }
  done
  [ -n "$CUDART" ] || { echo "build.sh: no libcudart_static.a under $CUDA_HOME"; exit 1; }
  LIBS="$CUDART -lrt -ldl -lpthread"
  OUTD=build/gpu/bin
fi
OBJ=$OUTD/obj
mkdir -p "$OBJ"
echo "build.sh: $([ "$EMU" = 1 ] && echo "CPU emulation" || echo "nvcc $NVCC, ${CUDA_ARCHS}"), $JOBS jobs -> $OUTD"

# Newest mtime of the headers every object may include.
newest() { local m=0 f t; for f in "$@"; do [ -e "$f" ] || continue; t=$(stat -c %Y "$f"); [ "$t" -gt "$m" ] && m=$t; done; echo "$m"; }
mapfile -t CORE_HEADERS < <(find extension/core -name "*.h" | sort)
mapfile -t CORE_SOURCES < <(find extension/core -name "*.cpp" | sort)
CORE_HDR=$(newest "${CORE_HEADERS[@]}")
ALL_HDR=$(newest "${CORE_HEADERS[@]}" cuda/*.cuh test/gpu/emu/*.h test/gpu/emu/cub/*.cuh)
HDR=$CORE_HDR
stale() {  # object, source: older than the source or than a header ($HDR)
  [ -f "$1" ] || return 0
  local o; o=$(stat -c %Y "$1")
  [ "$o" -lt "$(stat -c %Y "$2")" ] || [ "$o" -lt "$HDR" ]
}

FAIL=$OBJ/.failed
rm -f "$FAIL"
run_job() {  # log name, command...
  local name=$1; shift
  if ! "$@" >"$OBJ/$name.log" 2>&1; then
    echo "$name" >>"$FAIL"
    cat "$OBJ/$name.log"
  fi
}
throttle() { while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n 2>/dev/null || sleep 0.2; done; }

CORE_OBJS=()
for src in "${CORE_SOURCES[@]}"; do
  rel=${src#extension/core/}
  b=${rel%.cpp}; b=${b//\//__}  # tree/hist/updater -> tree__hist__updater
  o=$OBJ/$b.o
  CORE_OBJS+=("$o")
  stale "$o" "$src" || continue
  mk=${src%.cpp}.o
  if [ "$EMU" = 1 ] && [ -f "$mk" ] && ! stale "$mk" "$src"; then
    cp -p "$mk" "$o"
    continue
  fi
  throttle
  run_job "$b" $CXX $CXXFLAGS -c -o "$o" "$src" &
done
BACKEND=$OBJ/cuda_backend.o
HDR=$ALL_HDR
if stale "$BACKEND" cuda/cuda_backend.cu; then
  throttle
  if [ "$EMU" = 1 ]; then
    run_job cuda_backend $CXX $CXXFLAGS -DGBDT_CUDA_EMULATION -Itest/gpu/emu -Icuda -x c++ -c \
        -o "$BACKEND" cuda/cuda_backend.cu &
  else
    run_job cuda_backend "$NVCC" -std=c++17 -O2 $CUDA_ARCHS -fmad=false -Xcompiler -fPIC,-ffp-contract=off \
        -Iextension/core -Iextension/core/include -Icuda -c -o "$BACKEND" cuda/cuda_backend.cu &
  fi
fi
wait
[ -f "$FAIL" ] && { echo "build.sh: FAILED: $(tr '\n' ' ' <"$FAIL")"; exit 1; }

# Programs: relinked when older than their source, an object or a header.
NEWEST_OBJ=$(newest "$BACKEND" "${CORE_OBJS[@]}")
prog_stale() {  # program, source
  [ -f "$1" ] || return 0
  local p; p=$(stat -c %Y "$1")
  [ "$p" -lt "$(stat -c %Y "$2")" ] || [ "$p" -lt "$ALL_HDR" ] || [ "$p" -lt "$NEWEST_OBJ" ]
}
if ! prog_stale $OUTD/gpu_test test/gpu/gpu_equality.cpp && ! prog_stale $OUTD/gpu_bench test/gpu/gpu_bench.cpp &&
   ! prog_stale $OUTD/gpu_mathbits test/gpu/gpu_mathbits.cu; then
  echo "build.sh: up to date"
  echo "build.sh: ok"
  exit 0
fi
if [ "$EMU" = 1 ]; then
  EF="$CXXFLAGS -DGBDT_CUDA_EMULATION -Itest/gpu/emu -Icuda"
  run_job gpu_test $CXX $EF -o $OUTD/gpu_test test/gpu/gpu_equality.cpp "$BACKEND" "${CORE_OBJS[@]}" &
  run_job gpu_bench $CXX $EF -o $OUTD/gpu_bench test/gpu/gpu_bench.cpp "$BACKEND" "${CORE_OBJS[@]}" &
  run_job gpu_mathbits $CXX $EF -x c++ -o $OUTD/gpu_mathbits test/gpu/gpu_mathbits.cu -x none "$BACKEND" "${CORE_OBJS[@]}" &
else
  run_job gpu_test $CXX $CXXFLAGS -o $OUTD/gpu_test test/gpu/gpu_equality.cpp "$BACKEND" "${CORE_OBJS[@]}" $LIBS &
  run_job gpu_bench $CXX $CXXFLAGS -o $OUTD/gpu_bench test/gpu/gpu_bench.cpp "$BACKEND" "${CORE_OBJS[@]}" $LIBS &
  run_job gpu_mathbits "$NVCC" -std=c++17 -O2 $CUDA_ARCHS -fmad=false -Xcompiler -ffp-contract=off \
      -Iextension/core -Iextension/core/include -Icuda -o $OUTD/gpu_mathbits test/gpu/gpu_mathbits.cu "$BACKEND" "${CORE_OBJS[@]}" \
      -cudart static &
fi
wait
[ -f "$FAIL" ] && { echo "build.sh: FAILED: $(tr '\n' ' ' <"$FAIL")"; exit 1; }
ls -l $OUTD/gpu_test $OUTD/gpu_bench $OUTD/gpu_mathbits
echo "build.sh: ok"
