// REQUIRES: gpu
// The warp-specialized kernel on head dims that are multiples of 16 but not
// of 64 (TMA zero-fills the last 64-column block; the products step through
// the valid 16-column slices only): 80 with a causal mask and odd lengths,
// 112 with GQA and LSE, 160 with key padding, 48/80 (dqk != dv) with a
// window, f16 and bf16.
// RUN: attn-run --check --variant=sm90ws %s | FileCheck %s
// RUN: attn-run --check %s 2>&1 | FileCheck %s --check-prefix=MODEL
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
// CHECK: check output 4 {{.*}} PASS
// The cost model takes the warp-specialized kernel for every one of them.
// MODEL-NOT: remark: kernel variant
// MODEL-COUNT-4: {{^attn_fwd_.*sm90ws}}
// MODEL: check output 0 {{.*}} PASS
// MODEL: check output 1 {{.*}} PASS
// MODEL: check output 2 {{.*}} PASS
// MODEL: check output 3 {{.*}} PASS
// MODEL: check output 4 {{.*}} PASS
func.func @dims(%q: tensor<2x3x301x80xbf16>, %k: tensor<2x3x301x80xbf16>, %v: tensor<2x3x301x80xbf16>,
                %q2: tensor<1x8x257x112xf16>, %k2: tensor<1x2x390x112xf16>, %v2: tensor<1x2x390x112xf16>,
                %q3: tensor<2x2x200x160xbf16>, %k3: tensor<2x2x333x160xbf16>, %v3: tensor<2x2x333x160xbf16>,
                %len: tensor<2xi32>,
                %q4: tensor<1x4x500x48xbf16>, %k4: tensor<1x4x500x48xbf16>, %v4: tensor<1x4x500x80xbf16>)
    -> (tensor<2x3x301x80xbf16>, tensor<1x8x257x112xf16>, tensor<1x8x257xf32>, tensor<2x2x200x160xbf16>,
        tensor<1x4x500x80xbf16>) {
  %o = attn.flash %q, %k, %v {scale = 0.111803398 : f32, mask = #attn.mask<causal>}
    : tensor<2x3x301x80xbf16>, tensor<2x3x301x80xbf16>, tensor<2x3x301x80xbf16> -> tensor<2x3x301x80xbf16>
  %o2, %lse = attn.flash %q2, %k2, %v2 {scale = 0.0944911183 : f32}
    : tensor<1x8x257x112xf16>, tensor<1x2x390x112xf16>, tensor<1x2x390x112xf16> -> tensor<1x8x257x112xf16>, tensor<1x8x257xf32>
  %o3 = attn.flash %q3, %k3, %v3 lengths(%len : tensor<2xi32>) {scale = 0.0790569415 : f32, mask = #attn.mask<key_padding>}
    : tensor<2x2x200x160xbf16>, tensor<2x2x333x160xbf16>, tensor<2x2x333x160xbf16> -> tensor<2x2x200x160xbf16>
  %o4 = attn.flash %q4, %k4, %v4 {scale = 0.144337567 : f32, mask = #attn.mask<causal, window = [100, 0]>}
    : tensor<1x4x500x48xbf16>, tensor<1x4x500x48xbf16>, tensor<1x4x500x80xbf16> -> tensor<1x4x500x80xbf16>
  return %o, %o2, %lse, %o3, %o4 : tensor<2x3x301x80xbf16>, tensor<1x8x257x112xf16>, tensor<1x8x257xf32>, tensor<2x2x200x160xbf16>, tensor<1x4x500x80xbf16>
}
