// RUN: attn-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{unknown variant "sm70"; known variants: sm90ws, sm90, sm80}}
func.func private @f() attributes {c = #attn.config<variant = "sm70", block_m = 64, block_n = 64, num_warps = 4, stages = 2>}

// -----

// expected-error @+1 {{num_warps must be 1, 2, 4 or 8, got 3}}
func.func private @f() attributes {c = #attn.config<variant = "sm80", block_m = 96, block_n = 64, num_warps = 3, stages = 2>}

// -----

// expected-error @+1 {{block_m must be a positive multiple of 16 * num_warps = 128, got 64}}
func.func private @f() attributes {c = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 8, stages = 2>}

// -----

// expected-error @+1 {{block_n must be a positive multiple of 16, got 40}}
func.func private @f() attributes {c = #attn.config<variant = "sm80", block_m = 64, block_n = 40, num_warps = 4, stages = 2>}

// -----

// expected-error @+1 {{stages must be between 1 and 4, got 0}}
func.func private @f() attributes {c = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 0>}

// -----

// expected-error @+1 {{expected ','}}
func.func private @f() attributes {c = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4>}

// -----

// expected-error @+1 {{sm90 needs whole warpgroups (num_warps 4 or 8) and block_m = 16 * num_warps, got block_m = 128, num_warps = 4}}
func.func private @f() attributes {c = #attn.config<variant = "sm90", block_m = 128, block_n = 128, num_warps = 4, stages = 2>}

// -----

// expected-error @+1 {{sm90 needs block_n 64, 128, 192 or 256 (one wgmma N), got 96}}
func.func private @f() attributes {c = #attn.config<variant = "sm90", block_m = 128, block_n = 96, num_warps = 8, stages = 2>}

// -----

// expected-error @+1 {{sm90ws needs a producer and 1 to 3 consumer warpgroups (num_warps 8, 12 or 16), got num_warps = 4}}
func.func private @f() attributes {c = #attn.config<variant = "sm90ws", block_m = 64, block_n = 128, num_warps = 4, stages = 2>}

// -----

// expected-error @+1 {{sm90ws needs block_m = 64 rows per consumer warpgroup = 192, got 128}}
func.func private @f() attributes {c = #attn.config<variant = "sm90ws", block_m = 128, block_n = 128, num_warps = 16, stages = 2>}

// -----

// expected-error @+1 {{sm90ws needs block_n of at most 256 (one TMA box, one wgmma N), got 272}}
func.func private @f() attributes {c = #attn.config<variant = "sm90ws", block_m = 128, block_n = 272, num_warps = 12, stages = 2>}

// -----

// expected-error @+1 {{sm90ws needs at least 2 stages, got 1}}
func.func private @f() attributes {c = #attn.config<variant = "sm90ws", block_m = 128, block_n = 128, num_warps = 12, stages = 1>}

// -----

// expected-error @+1 {{block_m and block_n must be at most 1024, got 4294967360 and 64}}
func.func private @f() attributes {c = #attn.config<variant = "sm80", block_m = 4294967360, block_n = 64, num_warps = 4, stages = 2>}
