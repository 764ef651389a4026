"""attn as a Hugging Face transformers attention implementation: a small,
randomly initialised Llama-style model (GQA; no download) gives the logits
and greedy tokens of attn_implementation="sdpa" on padded batches, in
prefill and in generate() with a KV cache; a small gpt-oss (attention sinks,
sliding and full layers) those of "eager". Skipped without CUDA or
transformers.
"""

import copy

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)

import attn  # noqa: E402
import attn.transformers  # noqa: E402

attn.transformers.register()


def same_weights(config, reference):
    """The model of `config` under `reference` and under "attn", with the
    same random weights, bf16, eval mode: {implementation: model}."""
    torch.manual_seed(0)
    built = {}
    for impl in (reference, "attn"):
        # A config of its own per model: layers read config._attn_implementation
        # at every call, so a shared one would run the reference on attn too.
        model = transformers.AutoModelForCausalLM.from_config(copy.deepcopy(config), attn_implementation=impl)
        if built:
            model.load_state_dict(built[reference].state_dict())
        built[impl] = model.to("cuda", torch.bfloat16).eval()
    return built


def models():
    """The same weights under "sdpa" and "attn", bf16, eval mode."""
    config = transformers.LlamaConfig(
        vocab_size=512, hidden_size=512, intermediate_size=1024, num_hidden_layers=3,
        num_attention_heads=8, num_key_value_heads=2, max_position_embeddings=512,
        # Wider weights than the default 0.02: peaked logits, so that greedy
        # choices are not near-ties that bf16 rounding could flip.
        initializer_range=0.2, pad_token_id=0, bos_token_id=1, eos_token_id=2)
    built = same_weights(config, "sdpa")
    assert built["attn"].config._attn_implementation == "attn"
    assert built["sdpa"].config._attn_implementation == "sdpa"
    return built["sdpa"], built["attn"]


def padded_batch():
    """Three prompts of 24, 17 and 9 tokens, left-padded as generate() wants."""
    torch.manual_seed(1)
    lengths = [24, 17, 9]
    ids = torch.zeros(3, 24, dtype=torch.long)
    mask = torch.zeros(3, 24, dtype=torch.long)
    for row, n in enumerate(lengths):
        ids[row, 24 - n:] = torch.randint(3, 512, (n,))
        mask[row, 24 - n:] = 1
    return ids.cuda(), mask.cuda()


@pytest.fixture
def attn_calls(monkeypatch):
    """The query lengths of the attn.sdpa calls the model makes."""
    calls = []
    sdpa = attn.sdpa

    def counting(query, *args, **kwargs):
        calls.append(query.shape[2])
        return sdpa(query, *args, **kwargs)

    monkeypatch.setattr(attn, "sdpa", counting)
    return calls


def test_prefill_logits_match_sdpa(attn_calls):
    reference, model = models()
    ids, mask = padded_batch()
    with torch.no_grad():
        expected = reference(input_ids=ids, attention_mask=mask).logits.float()
        got = model(input_ids=ids, attention_mask=mask).logits.float()
    assert attn_calls == [24] * 3  # every layer ran on attn
    valid = mask.bool()  # padded positions attend to nothing: not compared
    error = (got[valid] - expected[valid]).norm() / expected[valid].norm()
    assert error < 2e-2, error
    assert torch.equal(got[valid].argmax(-1), expected[valid].argmax(-1))


def test_generate_with_kv_cache_matches_sdpa(attn_calls):
    reference, model = models()
    ids, mask = padded_batch()
    settings = dict(attention_mask=mask, max_new_tokens=12, do_sample=False, pad_token_id=0,
                    return_dict_in_generate=True, output_scores=True)
    expected = reference.generate(ids, **settings)
    got = model.generate(ids, **settings)
    # Prefill once, then one query token per layer and step, on a KV cache.
    assert attn_calls[:3] == [24] * 3 and attn_calls[3:] and set(attn_calls[3:]) == {1}
    new_expected, new_got = expected.sequences[:, 24:], got.sequences[:, 24:]
    if not torch.equal(new_got, new_expected):
        # Only a near-tie in the reference's own scores may flip a token.
        step = int((new_got != new_expected).any(0).nonzero()[0])
        top2 = expected.scores[step].float().topk(2, dim=-1).values
        margin = (top2[:, 0] - top2[:, 1]).min().item()
        assert margin < 0.05, f"tokens differ at step {step} with a margin of {margin}"
        new_expected, new_got = new_expected[:, :step], new_got[:, :step]
    assert torch.equal(new_got, new_expected)
    assert new_got.shape[1] >= 6, "fewer than 6 tokens to compare"


def gpt_oss_models():
    """A random-weight gpt-oss (sinks, alternating sliding and full layers,
    GQA, a few experts) under "eager" and "attn", bf16, eval mode; None where
    this transformers has no gpt-oss."""
    if not hasattr(transformers, "GptOssConfig"):
        return None
    config = transformers.GptOssConfig(
        vocab_size=512, hidden_size=256, intermediate_size=256, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, head_dim=64, num_local_experts=4,
        num_experts_per_tok=2, sliding_window=8, max_position_embeddings=512,
        layer_types=["sliding_attention", "full_attention"], initializer_range=0.2,
        pad_token_id=0, bos_token_id=1, eos_token_id=2)
    built = same_weights(config, "eager")
    # Sinks far from 0, so that a kernel that ignored them would differ.
    with torch.no_grad():
        for impl in built:
            for layer in built[impl].model.layers:
                layer.self_attn.sinks.copy_(torch.linspace(-2.0, 3.0, 4))
    return built["eager"], built["attn"]


def test_gpt_oss_sinks_match_eager(attn_calls):
    models_ = gpt_oss_models()
    if models_ is None:
        pytest.skip("this transformers has no GptOss")
    reference, model = models_
    ids, mask = padded_batch()
    with torch.no_grad():
        exact = copy.deepcopy(reference).float()(input_ids=ids, attention_mask=mask).logits
        expected = reference(input_ids=ids, attention_mask=mask).logits.float()
        got = model(input_ids=ids, attention_mask=mask).logits.float()
    assert attn_calls == [24] * 2  # both layers ran on attn
    # Against eager in float32: attn (bf16) no further than twice eager in
    # bf16 is (bf16 eager alone differed from attn by 3%).
    valid = mask.bool()
    ours = (got[valid] - exact[valid]).norm() / exact[valid].norm()
    theirs = (expected[valid] - exact[valid]).norm() / exact[valid].norm()
    assert ours <= max(2 * theirs, 1e-2), (ours.item(), theirs.item())
    settings = dict(attention_mask=mask, max_new_tokens=8, do_sample=False, pad_token_id=0)
    new_expected = reference.generate(ids, **settings)[:, 24:]
    new_got = model.generate(ids, **settings)[:, 24:]
    agree = (new_got == new_expected).float().mean().item()
    assert agree >= 0.75, (new_got, new_expected)


def test_gpt_oss_train_step_gradients_match_eager():
    # A training step's gradients, the learned sinks' among them, against
    # eager in float32; attn (bf16) may be no further from them than twice
    # eager in bf16 is.
    models_ = gpt_oss_models()
    if models_ is None:
        pytest.skip("this transformers has no GptOss")
    reference, model = models_
    exact = copy.deepcopy(reference).float()
    ids, mask = padded_batch()
    labels = ids.masked_fill(mask == 0, -100)

    def gradients(m):
        m.zero_grad()
        m(input_ids=ids, attention_mask=mask, labels=labels).loss.backward()
        return {name: p.grad.float() for name, p in m.named_parameters()
                if name.endswith(("self_attn.sinks", "self_attn.q_proj.weight", "self_attn.k_proj.weight"))}

    want, eager, got = gradients(exact), gradients(reference), gradients(model)
    assert len(want) == 6  # two layers: sinks, q_proj, k_proj
    for name, g in want.items():
        assert got[name].abs().sum() > 0, name
        ours = (got[name] - g).norm() / g.norm()
        theirs = (eager[name] - g).norm() / g.norm()
        assert ours <= max(2 * theirs, 2e-2), (name, ours.item(), theirs.item())
