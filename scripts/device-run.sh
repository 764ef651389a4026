#!/usr/bin/env bash
# One call's worth of GPU work on the device machine (see README: the build
# is made here, with LLVM linked statically, and carried there):
#   scripts/device-run.sh [smoke] [suite] [sanitize] [examples] [backward] [python]
#                         [python-backward] [overhead] [multigpu] [bench] [decode]
#                         [decode-tiles] [serving] [bench-backward] [sass] [tiles]
#                         [splits] [count]
#                         [gpu-diff] [ncu] [ncu-peers] [time]
# backward: the backward's GPU cases (test/GPU/backward) and its launch and
# determinism tests (AttnGPUTests Backward*).
# python-backward: attn.sdpa under torch.autograd (python/tests/test_backward.py:
# gradients against float64, determinism, torch.compile, CUDA graphs, training).
# bench-backward: bench/bench.py --backward (attn's backward against torch's
# flash and cuDNN ones; BENCH_ARGS too).
# ncu: Nsight Compute on the prefill shapes of bench/shapes (NCU_CASES picks
# files, NCU_FLAGS adds attn-run flags); ncu-peers: the same sections on
# cuDNN's kernel (NCU_PEER_SHAPES); time: attn-run --bench on them.
# gpu-diff: SEED and COUNT random graphs (scripts/gen-graphs.py) checked
# against the float64 reference; failures land in $OUT/gpu-diff-failures.
# Logs go to $OUT (or /tmp/attn-device). Nothing here needs LLVM. The Python
# steps load build/lib/libattn_c.so.N (carry that file: libattn_c.so is a
# link to it).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ATTN_BUILD_DIR:-$root/build}
out=${OUT:-/tmp/attn-device}
mkdir -p "$out"
export ATTN_CACHE_DIR=${ATTN_CACHE_DIR:-/tmp/attn-cache} PYTHONUNBUFFERED=1
library=$(ls -v "$build"/lib/libattn_c.so.[0-9]* 2> /dev/null | tail -n 1)
export ATTN_LIBRARY=${library:-$build/lib/libattn_c.so} PYTHONPATH=$root/python
steps=("$@")
[[ ${#steps[@]} -gt 0 ]] || steps=(suite sanitize examples bench)

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
for step in "${steps[@]}"; do
  echo "=== $step"
  case $step in
  smoke)
    # A few cases of the persistent kernel, each with a short timeout: a
    # deadlock (a barrier never completed) ends the call here instead of
    # timing out every later step.
    hung=0
    for t in hd128-bf16 causal persistent-many-tiles; do
      timeout 60 "$build/bin/attn-run" --check --variant=sm90ws "$root/test/GPU/$t.mlir" > "$out/smoke-$t.log" 2>&1
      status=$?
      echo "smoke $t: exit $status $(grep -E '^check output' "$out/smoke-$t.log" | tr '\n' ' ')"
      [[ $status -eq 124 ]] && hung=1
    done
    if [[ $hung -eq 1 ]]; then
      echo "smoke: a kernel hung; skipping the remaining steps"
      break
    fi
    ;;
  suite)
    "$root/scripts/gpu-tests.sh" "$build" 2>&1 | tee "$out/gpu-tests.log"
    [[ -x $build/test/Unit/AttnGPUTests ]] &&
      "$build/test/Unit/AttnGPUTests" 2>&1 | tail -n 4 | tee -a "$out/gpu-tests.log"
    ;;
  sanitize)
    # Fused cases (the persistent warp-specialized kernel forced where the
    # model would not pick it), graph-op kernels of the unfused path, and
    # the backward's kernels (atomic and deterministic dQ).
    cases=("seq7" "hd72" "keep" "transposed-k" "causal-bottom-right-fully-masked"
           "decode-gqa" "split-kv" "unfused/masks" "unfused/transposes"
           "score-mod/captures" "score-mod/captures-flash-gqa"
           "persistent-many-tiles|--variant=sm90ws"
           "persistent-few-tiles|--variant=sm90ws"
           "persistent-causal-sq-ne-skv|--variant=sm90ws --block-n=96 --stages=3"
           "split-kv|--variant=sm90ws --splits=7"
           "decode-gqa|--variant=sm90ws --block-m=128 --block-n=64 --num-warps=12 --stages=2"
           "seq1|--variant=sm90ws" "everything|--variant=sm90ws"
           "serving/packed-decode-16|--variant=sm90ws --splits=3"
           "backward/seq7-mqa" "backward/hd72" "backward/bias-broadcast"
           "backward/causal-bottom-right-empty-rows" "backward/captures"
           "backward/key-padding|--deterministic"
           # sm90 with two warpgroups per 64 keys (P^T, dS^T in shared memory).
           "backward/hd256-causal-gqa" "backward/hd256x128-bias-window"
           # Serving: ragged batches, with offsets past the tensors and (no
           # reference for them: "nocheck") out of order; sinks.
           "serving/varlen-causal-gqa" "serving/varlen-decode|--splits=8"
           "serving/varlen-offsets-clamped|--splits=3 --set-input=3:-20,0,150,150,9999 --set-input=4:-1,200,200,450,2000"
           "serving/varlen-offsets-clamped|nocheck --splits=3 --set-input=3:0,250,40,300,120 --set-input=4:0,480,20,500,-3"
           "serving/varlen-offsets-clamped|nocheck --variant=sm80 --set-input=3:300,-7,200,100,2147483647 --set-input=4:-2147483648,500,0,0,499"
           "serving/sinks-decode-gqa|--splits=1" "serving/sinks-causal|--variant=sm90ws --splits=4"
           # Paged caches: page sizes below and above the tile, tables with
           # entries past the cache (clamped) and lengths past the table.
           "serving/paged-decode|--splits=8" "serving/paged-page1" "serving/paged-page256|--splits=3"
           "serving/paged-page24|--splits=3" "serving/paged-hd72x64"
           "serving/paged-hd128-page16|--variant=sm90 --block-m=64 --block-n=64 --num-warps=4 --stages=2 --splits=2"
           "serving/paged-hd128-page16|--variant=sm90 --block-m=64 --block-n=128 --num-warps=4 --stages=3"
           "serving/paged-page4-swizzle|--variant=sm90 --block-m=64 --block-n=64 --num-warps=4 --stages=2"
           "serving/paged-chunked-prefill|--variant=sm80"
           "serving/paged-table-clamped|--set-input=3:64,-3,0,900 --set-input=4:5,-1,7,2147483647,3,3,3,3,0,1,2,3,-2147483648,9,9,9"
           "serving/paged-table-clamped|--variant=sm80 --splits=2 --set-input=3:2147483647,64,33,17 --set-input=4:-7,10,11,-2147483648,2147483647,0,9,9,1,1,1,1,3,2,1,0")
    # SANITIZE_CASES="case|flags;case|flags" picks others.
    [[ -n ${SANITIZE_CASES:-} ]] && IFS=';' read -ra cases <<<"$SANITIZE_CASES"
    for c in "${cases[@]}"; do
      t=${c%%|*}
      extra=""
      [[ $c == *"|"* ]] && extra=${c#*|}
      flags="--check $extra"
      [[ $extra == nocheck* ]] && flags=${extra#nocheck}
      [[ $t == unfused/* ]] && flags="--unfused --check"
      [[ $t == backward/* ]] && flags="--backward --bias-grad --check $extra"
      log="$out/san-${t//\//-}${extra:+-$(cksum <<<"$extra" | cut -d' ' -f1)}"
      tools=(memcheck racecheck)
      [[ -n $extra ]] && tools+=(synccheck)
      for tool in "${tools[@]}"; do
        printf '%-34s %-9s %-28s ' "$t" "$tool" "$extra"
        timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 3 \
          "$build/bin/attn-run" $flags "$root/test/GPU/$t.mlir" > "$log-$tool.log" 2>&1
        echo "exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' "$log-$tool.log" | tail -n 1)"
      done
    done 2>&1 | tee "$out/sanitize.log"
    ;;
  examples)
    for e in "$root"/examples/*.mlir; do
      # Training steps: the forward and the derived backward.
      flags=()
      [[ $e == *backward* ]] && flags=(--backward --bias-grad)
      "$build/bin/attn-run" "${flags[@]}" --check --bench --profile "$e"
    done 2>&1 | tee "$out/examples.log"
    ;;
  backward)
    # The backward alone: its GPU cases, the determinism and launch tests.
    "$root/scripts/gpu-tests.sh" "$build" "$root"/test/GPU/backward/*.mlir 2>&1 |
      tee "$out/backward.log"
    [[ -x $build/test/Unit/AttnGPUTests ]] &&
      "$build/test/Unit/AttnGPUTests" --gtest_filter='Backward*' 2>&1 | tail -n 30 |
      tee -a "$out/backward.log"
    ;;
  bench)
    timeout ${BENCH_TIMEOUT:-500} python3 "$root/bench/bench.py" --out "$out" ${BENCH_ARGS:-} 2>&1 | tee "$out/bench.log"
    ;;
  decode)
    # The decode table of KV caches: q = 1..16, dense and paged, GB/s and %
    # of HBM beside the SDPA backends (bench/serving.py).
    timeout ${BENCH_TIMEOUT:-500} python3 "$root/bench/bench.py" --decode --paged --varlen --out "$out" \
      --budget-s ${BUDGET_S:-420} ${BENCH_ARGS:-} 2>&1 | tee "$out/bench-decode.log"
    ;;
  decode-tiles)
    # Decode with each forced tile configuration beside the cost model's, on
    # the decode table's rows below 85% (bench/serving.py run_tiles).
    timeout ${BENCH_TIMEOUT:-500} python3 "$root/bench/bench.py" --decode-tiles --out "$out" \
      --budget-s ${BUDGET_S:-420} ${BENCH_ARGS:-} 2>&1 | tee "$out/bench-decode-tiles.log"
    ;;
  serving)
    # The serving suite alone (ragged batches, sinks, paged caches) and its
    # Python tests.
    "$root/scripts/gpu-tests.sh" "$build" "$root"/test/GPU/serving/*.mlir 2>&1 | tee "$out/gpu-tests-serving.log"
    timeout 400 python3 -m pytest -q -rs "$root/python/tests/test_serving.py" 2>&1 | tee "$out/python-serving.log"
    ;;
  bench-backward)
    timeout ${BENCH_TIMEOUT:-500} python3 "$root/bench/bench.py" --backward --budget-s 420 --out "$out" \
      ${BENCH_ARGS:-} 2>&1 | tee "$out/bench-backward.log"
    ;;
  sass)
    # The SASS of the prefill kernel: TMA loads, wgmma, register
    # reallocation, and no local memory.
    mkdir -p /tmp/attn-sass
    ATTN_DUMP_DIR=/tmp/attn-sass "$build/bin/attn-run" --no-disk-cache "$root/examples/sdpa.mlir" > /dev/null 2>&1
    for cubin in /tmp/attn-sass/*.cubin; do
      cuobjdump --dump-sass "$cubin" > "$out/$(basename "$cubin" .cubin).sass"
      echo "$(basename "$cubin")"
      for op in UTMALDG UTMASTG HGMMA USETMAXREG SYNCS LDL STL LDGSTS MUFU.EX2 BAR; do
        printf '  %-10s %5d\n' "$op" "$(grep -c "$op" "$out/$(basename "$cubin" .cubin).sass")"
      done
    done 2>&1 | tee "$out/sass-mix.txt"
    ;;
  python)
    # test_sdpa, test_torch (devices, CUDA graphs, torch.compile and export),
    # test_transformers (a small Llama against transformers' sdpa); the
    # backward's tests are a step of their own (python-backward).
    timeout 580 python3 -m pytest -q -rs "$root/python/tests" --ignore="$root/python/tests/test_backward.py" 2>&1 |
      tee "$out/python.log"
    ;;
  python-backward)
    timeout 580 python3 -m pytest -q -rs "$root/python/tests/test_backward.py" 2>&1 | tee "$out/python-backward.log"
    ;;
  overhead)
    # Host time per call, attn.sdpa beside F.scaled_dot_product_attention.
    timeout 300 python3 "$root/bench/host_overhead.py" --out "$out" 2>&1 | tee "$out/overhead.log"
    ;;
  multigpu)
    # Tensors on cuda:1 (run on a machine with two GPUs).
    timeout 300 python3 -m pytest -q -rs "$root/python/tests/test_torch.py" -k second_gpu 2>&1 |
      tee "$out/multigpu.log"
    ;;
  tiles)
    timeout 300 python3 "$root/bench/tiles.py" 2>&1 | tee "$out/tiles.log"
    ;;
  splits)
    timeout 300 python3 "$root/bench/splits.py" 2>&1 | tee "$out/splits.log"
    ;;
  gpu-diff)
    # GPU_DIFF_BUDGET_S: graphs not started by then are skipped and counted.
    SEED=${SEED:-1} COUNT=${COUNT:-60} OUT=$out ATTN_GPU_TEST_BUDGET_S=${GPU_DIFF_BUDGET_S:-} "$root/scripts/gpu-diff.sh" "$build" 2>&1 |
      tee "$out/gpu-diff.log"
    ;;
  ncu)
    # One launch of each shape's kernel: throughput, warp stalls, issue
    # slots, pipes. The clocks stay as they are (METHOD.md).
    for f in ${NCU_CASES:-$root/bench/shapes/*.mlir}; do
      name=$(basename "$f" .mlir)
      timeout 300 ncu --clock-control none --target-processes all -k regex:attn_fwd -c 1 \
        --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
        --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats \
        "$build/bin/attn-run" --bench --warmup=1 --iters=1 ${NCU_FLAGS:-} "$f" > "$out/ncu-$name.txt" 2>&1
      echo "ncu $name: exit $?"
      grep -E "Duration|Compute \(SM\) Throughput|Issue Slots Busy|Stall|Warp Cycles Per Issued|No Eligible|Registers Per|Grid Size|Block Size" \
        "$out/ncu-$name.txt" | head -n 40
    done 2>&1 | tee "$out/ncu.log"
    ;;
  ncu-peers)
    # The same sections on cuDNN's (or flash's) kernel for each shape of
    # NCU_PEER_SHAPES ("BxHxSxD" or "BxHxSxD:causal", space-separated;
    # NCU_PEER=cudnn|flash), beside the ncu step's files of attn's kernels.
    for shape in ${NCU_PEER_SHAPES:-16x32x1024x64 32x8x512x256:causal}; do
      peer=${NCU_PEER:-cudnn}
      causal=()
      [[ $shape == *:causal ]] && causal=(--causal)
      dims=${shape%:causal}
      name="ncu-$peer-$dims${causal:+-causal}"
      timeout 300 ncu --clock-control none --target-processes all \
        -k 'regex:(?i)sdpa|fmha|flash|attn|cudnn' -s 3 -c 1 \
        --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
        --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats \
        python3 "$root/bench/ncu_peer.py" --peer "$peer" --shape "$dims" "${causal[@]}" > "$out/$name.txt" 2>&1
      echo "$name: exit $?"
      grep -E "Duration|Compute \(SM\) Throughput|Issue Slots Busy|Stall|Warp Cycles Per Issued|No Eligible|Registers Per|Grid Size|Block Size" \
        "$out/$name.txt" | head -n 40
    done 2>&1 | tee "$out/ncu-peers.log"
    ;;
  time)
    for f in ${TIME_CASES:-$root/bench/shapes/*.mlir}; do
      echo "--- $(basename "$f") ${TIME_FLAGS:-}"
      timeout 120 "$build/bin/attn-run" --bench --warmup=5 --iters=30 --profile ${TIME_FLAGS:-} "$f" 2>&1 | tail -n 6
    done 2>&1 | tee -a "$out/time.log"
    ;;
  count)
    timeout 400 python3 "$root/bench/kernel_count.py" --attn-run "$build/bin/attn-run" 2>&1 |
      tee "$out/kernel-count.log"
    ;;
  esac
done
