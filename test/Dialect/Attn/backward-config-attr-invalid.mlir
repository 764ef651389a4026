// RUN: attn-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{unknown backward variant "sm100"; known backward variants: sm90ws, sm90, sm80}}
func.func private @f() attributes {c = #attn.backward_config<variant = "sm100", block_m = 64, block_n = 64, num_warps = 4, stages = 2>}

// -----

// The sm90 variant's tiles: one or two warpgroups per 64 keys.
// expected-error @+1 {{block_n must be 64 keys per warpgroup or per two warpgroups (128 or 64), got 32}}
func.func private @f() attributes {c = #attn.backward_config<variant = "sm90", block_m = 64, block_n = 32, num_warps = 8, stages = 2>}

// -----

// expected-error @+1 {{num_warps must be 4 or 8 (one or two warpgroups), got 2}}
func.func private @f() attributes {c = #attn.backward_config<variant = "sm90", block_m = 64, block_n = 32, num_warps = 2, stages = 2>}

// -----

// expected-error @+1 {{block_m must be at most 64 per warpgroup (64), got 128}}
func.func private @f() attributes {c = #attn.backward_config<variant = "sm90", block_m = 128, block_n = 64, num_warps = 4, stages = 2>}

// -----

// expected-error @+1 {{num_warps must be 1, 2, 4 or 8, got 3}}
func.func private @f() attributes {c = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 48, num_warps = 3, stages = 2>}

// -----

// expected-error @+1 {{block_n must be 16 times a divisor of num_warps = 4 (16 keys per warp), got 128}}
func.func private @f() attributes {c = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 128, num_warps = 4, stages = 2>}

// -----

// expected-error @+1 {{block_n must be 16 times a divisor of num_warps = 4 (16 keys per warp), got 40}}
func.func private @f() attributes {c = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 40, num_warps = 4, stages = 2>}

// -----

// expected-error @+1 {{block_m must be a multiple of 16 * 4 (the warps that share 16 keys) and at most 128, got 32}}
func.func private @f() attributes {c = #attn.backward_config<variant = "sm80", block_m = 32, block_n = 32, num_warps = 8, stages = 2>}

// -----

// expected-error @+1 {{block_m must be a multiple of 16 * 1 (the warps that share 16 keys) and at most 128, got 256}}
func.func private @f() attributes {c = #attn.backward_config<variant = "sm80", block_m = 256, block_n = 64, num_warps = 4, stages = 2>}

// -----

// expected-error @+1 {{stages must be 1 or 2, got 3}}
func.func private @f() attributes {c = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 3>}
