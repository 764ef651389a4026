// REQUIRES: gpu
// Three consumer warpgroups (192-row tiles, 16 warps, the consumers at 160
// registers), which the cost model takes for head dims up to 64 with long
// keys and enough heads to fill the GPU (test/Transforms/select-config.mlir;
// here forced, the shapes being small): full attention with GQA 4/2,
// causal top-left with more queries than keys, bottom-right with key
// padding and the logsumexp, a window; f16 and bf16, head dims 32 and 64,
// odd lengths (partial query and key tiles).
// RUN: attn-run --check --variant=sm90ws --block-m=192 --block-n=128 --num-warps=16 --stages=2 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90ws --block-m=192 --block-n=96 --num-warps=16 --stages=2 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90ws --block-m=192 --block-n=128 --num-warps=16 --stages=3 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
// CHECK: check output 4 {{.*}} PASS
func.func @three(%q: tensor<1x4x2500x64xbf16>, %k: tensor<1x2x2500x64xbf16>, %v: tensor<1x2x2500x64xbf16>,
                 %q2: tensor<2x2x900x64xf16>, %k2: tensor<2x2x700x64xf16>, %v2: tensor<2x2x700x64xf16>,
                 %q3: tensor<2x2x300x32xbf16>, %k3: tensor<2x2x1500x32xbf16>, %v3: tensor<2x2x1500x32xbf16>,
                 %len: tensor<2xi32>,
                 %q4: tensor<1x2x1000x64xbf16>, %k4: tensor<1x2x1000x64xbf16>, %v4: tensor<1x2x1000x64xbf16>)
    -> (tensor<1x4x2500x64xbf16>, tensor<2x2x900x64xf16>, tensor<2x2x300x32xbf16>, tensor<2x2x300xf32>,
        tensor<1x2x1000x64xbf16>) {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32}
    : tensor<1x4x2500x64xbf16>, tensor<1x2x2500x64xbf16>, tensor<1x2x2500x64xbf16> -> tensor<1x4x2500x64xbf16>
  %o2 = attn.flash %q2, %k2, %v2 {scale = 0.125 : f32, mask = #attn.mask<causal>}
    : tensor<2x2x900x64xf16>, tensor<2x2x700x64xf16>, tensor<2x2x700x64xf16> -> tensor<2x2x900x64xf16>
  %o3, %lse = attn.flash %q3, %k3, %v3 lengths(%len : tensor<2xi32>) {scale = 0.17677669 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<2x2x300x32xbf16>, tensor<2x2x1500x32xbf16>, tensor<2x2x1500x32xbf16> -> tensor<2x2x300x32xbf16>, tensor<2x2x300xf32>
  %o4 = attn.flash %q4, %k4, %v4 {scale = 0.125 : f32, mask = #attn.mask<window = [200, 50]>}
    : tensor<1x2x1000x64xbf16>, tensor<1x2x1000x64xbf16>, tensor<1x2x1000x64xbf16> -> tensor<1x2x1000x64xbf16>
  return %o, %o2, %o3, %lse, %o4 : tensor<1x4x2500x64xbf16>, tensor<2x2x900x64xf16>, tensor<2x2x300x32xbf16>, tensor<2x2x300xf32>, tensor<1x2x1000x64xbf16>
}
