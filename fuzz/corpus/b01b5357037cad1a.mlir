func.func @outside(%x: f32) {
  attn.yield %x : f32
}
