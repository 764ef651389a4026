"""attn as an attention implementation of Hugging Face transformers models.

    import attn.transformers
    attn.transformers.register()
    model = AutoModelForCausalLM.from_pretrained(name, attn_implementation="attn")

register() adds "attn" to transformers' AttentionInterface (the function
each attention layer calls) and to its AttentionMaskInterface (the mask the
model builds for it: transformers' SDPA mask, a bool (batch, 1, query, key)
tensor that is True where a query attends, with padding and sliding windows
in it, or None where plain causal attention needs none). Padded batches,
generate() with a KV cache, GQA, sliding-window models, Gemma-style logit
softcapping (a score_mod) and gpt-oss's attention sinks (s_aux, attn.sdpa's
sinks=) run through attn.sdpa.

Training works too: attn.sdpa is differentiable (query, key, value, and
gpt-oss's learned sinks). Not supported (AttnError): attention dropout in
training, output_attentions.
"""

import attn as _attn

NAME = "attn"


def attention_forward(module, query, key, value, attention_mask, dropout=0.0, scaling=None, is_causal=None,
                      softcap=None, **kwargs):
    """transformers' attention-function signature (that of
    integrations/sdpa_attention.py): query (batch, heads, q_len, head_dim),
    key and value (batch, kv_heads, kv_len, head_dim); returns the output as
    (batch, q_len, heads, head_dim) and no attention weights."""
    if dropout:
        raise _attn.AttnError(f"attn.transformers: attention dropout ({dropout}) is not supported; "
                              "run the model in eval() mode")
    # gpt-oss passes its per-head sink logits as s_aux.
    sinks = kwargs.get("s_aux")
    if sinks is None:
        sinks = kwargs.get("sinks")
    if kwargs.get("output_attentions"):
        raise _attn.AttnError("attn.transformers: output_attentions needs the attention weights, which attn "
                              "never forms; use attn_implementation='eager' for them")
    if is_causal is None:
        is_causal = getattr(module, "is_causal", True)
    # As transformers' SDPA path: the mask, when there is one, already holds
    # the causal pattern; one query (decode) attends to every key.
    is_causal = bool(is_causal and attention_mask is None and query.shape[2] > 1)
    if attention_mask is not None and attention_mask.shape[-1] != key.shape[-2]:
        attention_mask = attention_mask[..., : key.shape[-2]]
    out = _attn.sdpa(query, key, value, attn_mask=attention_mask, is_causal=is_causal, scale=scaling,
                     enable_gqa=query.shape[1] != key.shape[1],
                     score_mod=_attn.softcap(softcap) if softcap else None, sinks=sinks)
    return out.transpose(1, 2).contiguous(), None


def register(name=NAME):
    """Registers attn with transformers as attn_implementation=name; returns
    the name."""
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

    AttentionInterface.register(name, attention_forward)
    AttentionMaskInterface.register(name, sdpa_mask)
    return name
