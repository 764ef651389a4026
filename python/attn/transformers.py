"""attn as an attention implementation of Hugging Face transformers models.

    import attn.transformers
    attn.transformers.register()
    model = AutoModelForCausalLM.from_pretrained(name, attn_implementation="attn")

register() adds "attn" to transformers' AttentionInterface (attention_forward,
the function each attention layer calls) and to its AttentionMaskInterface
(build_mask, the mask the model builds for it). What attn computes from
positions alone never becomes a dense mask:

- No padding: no mask (None), on full and sliding-window layers alike.
  attention_forward runs attn.sdpa with is_causal=True and, on a layer with
  a sliding window (the sliding_window= transformers passes to attention
  functions, as flash_attention_2 reads it), window=(sliding_window - 1, 0):
  a query sees the sliding_window keys that end at itself, as eager's mask
  has it (the offset is read from transformers' own sliding-window mask
  function once). With fewer queries than keys (decode, chunked prefill on
  a KV cache) both align to the last key (bottom_right=True).
- Right padding without a cache (training batches): the key lengths
  (attn.sdpa's lengths=) with the causal pattern and window, in place of
  the mask transformers builds (which is still built, for anything else
  that reads it).
- Anything else (left padding as generate() pads, static caches, custom
  mask functions, bidirectional masks): transformers' SDPA mask, a bool
  (batch, 1, query, key) tensor that is True where a query attends.
- Padding-free packed rows (batch 1, no cache): position_ids that restart
  at 0 at each sequence's first token (DataCollatorWithFlattening), or its
  cu_seq_lens_q/cu_seq_lens_k (and max_length_q/max_length_k) keyword
  arguments (return_flash_attn_kwargs=True), run attn.varlen: each sequence
  attends to itself only, causal and windowed per sequence. Where the
  model built a dense mask for the row (transformers that read packing
  from position_ids), it is checked to be exactly that pattern first, and
  used as it is otherwise.

GQA, Gemma-style logit softcapping (softcap=, a score_mod) and gpt-oss's
attention sinks (s_aux, sinks=) work on every path. Training works too:
attn.sdpa and attn.varlen are differentiable (query, key, value and
gpt-oss's learned sinks); float32 query/key/value under CUDA autocast are
cast to the autocast dtype first, as flash_attention_2 casts them. Not supported (AttnError): attention dropout in training,
output_attentions, position_ids that restart at 0 inside a row that does
not start at 0, cu_seq_lens that do not cover the row (or come with a
batch of several rows or a cache), packed rows with a bidirectional
sliding window, a layer that config.layer_types marks as sliding but that
gives no window, and a layer that passes no sliding_window= while its
config (without layer_types) has one.
"""

import operator
import weakref

import attn as _attn

NAME = "attn"


def _error(message):
    return _attn.AttnError("attn.transformers: " + message)


def _tracing():
    """True under torch.compile or torch.jit tracing: no host reads then."""
    torch = _attn.torch
    compiling = getattr(getattr(torch, "compiler", None), "is_compiling", None)
    return bool((compiling is not None and compiling()) or torch.jit.is_tracing())


class _Memo:
    """What was derived from a tensor (a mask, position_ids, offsets), kept
    while the tensor lives unchanged: the model hands one mask and one
    position_ids tensor to every layer, so the work is done once a forward."""

    def __init__(self):
        self._entries = {}

    @staticmethod
    def _version(t):
        try:
            return t._version
        except RuntimeError:  # an inference tensor: no version counter, so nothing is kept
            return None

    def recall(self, t):
        """(found, value)."""
        entry = self._entries.get(id(t))
        if entry is None or entry[0]() is not t or entry[1] != self._version(t):
            return False, None
        return True, entry[2]

    def remember(self, t, value):
        """Keeps value for t (not for inference tensors, whose changes cannot
        be seen); returns value."""
        version = self._version(t)
        if version is None:
            return value
        key = id(t)
        entries = self._entries

        def forget(ref, key=key):
            entry = entries.get(key)
            if entry is not None and entry[0] is ref:
                del entries[key]

        entries[key] = (weakref.ref(t, forget), version, value)
        return value


_plans = _Memo()      # a mask build_mask built -> (window left or None, key lengths)
_packings = _Memo()   # a packed row's dense mask -> {(offsets, left, causal): matches}
_offsets = _Memo()    # position_ids or cu_seq_lens -> what they say about the packing

# ----------------------------------------------------------------------------
# Sliding windows.

_convention = []


def _window_left(sliding_window):
    """attn's left window bound for a causal layer with transformers'
    sliding_window=W: how many keys before itself a query sees in eager's
    mask (masking_utils.sliding_window_causal_mask_function: W - 1 today,
    W where a query saw W + 1 keys)."""
    if not _convention:
        _convention.append(_probe_convention())
    return int(sliding_window) - 1 + _convention[0]


def _probe_convention():
    torch = _attn.torch
    from transformers.masking_utils import sliding_window_causal_mask_function

    zero = torch.zeros((), dtype=torch.long)
    seen = sliding_window_causal_mask_function(4)(zero, zero, torch.tensor(10), torch.arange(11))
    extra = int(torch.as_tensor(seen).sum()) - 4
    if extra not in (0, 1):
        raise _error(f"transformers' sliding-window mask lets a query see {extra + 4} keys with a window of 4; "
                     "attn knows windows of 4 or 5 keys, and cannot match this one")
    return extra


def _layer_window(module, kwargs):
    """The left window bound of this causal layer (None: no window): its
    sliding_window= keyword, checked against config.layer_types where the
    config has them (the masks transformers builds follow those)."""
    sliding = kwargs.get("sliding_window")
    config = getattr(module, "config", None)
    types = getattr(config, "layer_types", None)
    idx = getattr(module, "layer_idx", None)
    kind = None
    if isinstance(types, (list, tuple)) and isinstance(idx, int) and 0 <= idx < len(types):
        kind = types[idx]
    if kind in ("full_attention", "chunked_attention"):
        return None  # its mask is full causal (a chunk that binds never reaches here without a mask)
    if not sliding and kind == "sliding_attention":
        sliding = getattr(module, "sliding_window", None) or getattr(config, "sliding_window", None)
        if not sliding:
            raise _error(f"layer {idx} ({type(module).__name__}) is a sliding_attention layer but neither it "
                         "nor its config gives a sliding_window")
    if ("sliding_window" not in kwargs and kind is None and getattr(config, "sliding_window", None)
            and getattr(config, "use_sliding_window", True)):
        raise _error(f"{type(module).__name__} passes no sliding_window= to its attention function, but its "
                     f"config has sliding_window={config.sliding_window} and no layer_types: attn cannot tell "
                     "whether this layer slides. Use attn_implementation='sdpa' or 'eager' for this model")
    if not sliding:
        return None
    return _window_left(sliding)


# ----------------------------------------------------------------------------
# The mask interface.

_NO_MASK = object()
_DENSE = object()


def _causal_window(mask_function, kv_offset, kv_length, device, local_size):
    """The left window bound of a causal mask function over keys kv_offset
    .. kv_offset + kv_length - 1 with its queries the last keys: None where
    no window binds, _DENSE where the function is no causal window (judged
    on its last two rows, which tell transformers' causal, sliding-window
    and chunked functions apart) or not the window of local_size."""
    torch = _attn.torch
    last = kv_offset + kv_length - 1
    rows = [last - 1, last] if kv_length > 1 else [last]
    try:
        zero = torch.zeros((1, 1, 1, 1), dtype=torch.long, device=device)
        q = torch.tensor(rows, dtype=torch.long, device=device).view(1, 1, -1, 1)
        kv = torch.arange(kv_offset, kv_offset + kv_length, device=device).view(1, 1, 1, -1)
        seen = torch.as_tensor(mask_function(zero, zero, q, kv)).to(torch.bool)
        seen = seen.expand(1, 1, len(rows), kv_length)[0, 0].cpu()
    except (RuntimeError, IndexError, TypeError, ValueError):
        return _DENSE  # a function that takes no synthetic indices: transformers' mask decides
    starts = []
    for i, p in enumerate(rows):
        j = p - kv_offset  # the diagonal's column
        row = seen[i]
        n = int(row.sum())
        if n == 0 or not bool(row[j]) or bool(row[j + 1:].any()) or not bool(row[j - n + 1: j + 1].all()):
            return _DENSE
        starts.append(j - n + 1)
    if starts[-1] == 0:
        return None if all(s == 0 for s in starts) else _DENSE
    left = kv_length - 1 - starts[-1]
    if len(starts) == 2 and starts[0] != starts[-1] - 1:
        return _DENSE  # not a window that slides with the query (chunked attention)
    if local_size is None or left != _window_left(local_size):
        return _DENSE
    return left


def _plan(kw):
    """What attn computes natively in place of the dense mask sdpa_mask
    would build from the mask interface's keyword arguments kw: _NO_MASK
    (causal or sliding-window causal without padding), (left, lengths) for
    right padding on a batch without cache (the window's left bound or
    None; int32 key lengths), or None: the dense mask."""
    torch = _attn.torch
    # transformers allows the causal skip only for its plain causal,
    # sliding-window and chunked functions (not for packed rows, custom
    # overlays, bidirectional masks or static caches).
    if _tracing() or kw.get("use_vmap") or not kw.get("allow_is_causal_skip", True):
        return None
    try:
        batch = operator.index(kw["batch_size"])
        kv_length = operator.index(kw["kv_length"])
        kv_offset = operator.index(kw.get("kv_offset", 0))
    except (KeyError, TypeError):
        return None
    q_length, q_offset = kw.get("q_length"), kw.get("q_offset")
    cache_position = kw.get("cache_position")
    if q_length is None:  # transformers before q_length/q_offset: the query positions
        if cache_position is None:
            return None
        q_length = int(cache_position.shape[0])
        # As its SDPA skip assumes: decode on the cache, or prefill from 0.
        if not (q_length == 1 or (q_length == kv_length and kv_offset == 0)):
            return None
        q_offset = kv_offset + kv_length - q_length
    try:
        q_length, q_offset = operator.index(q_length), operator.index(q_offset if q_offset is not None else 0)
    except TypeError:
        return None  # an offset that is a tensor (static caches)
    # The queries must be the last keys, where bottom_right aligns them.
    if kv_length < 1 or q_length < 1 or q_offset + q_length != kv_offset + kv_length:
        return None
    padding = kw.get("attention_mask")
    device = kw.get("device")
    if device is None:
        device = padding.device if padding is not None else (
            cache_position.device if cache_position is not None else "cpu")
    lengths = None
    if padding is not None:
        if not isinstance(padding, torch.Tensor) or padding.dim() != 2 or padding.shape[0] != batch:
            return None
        valid = padding.to(torch.bool)
        end = kv_offset + kv_length
        if valid.shape[-1] < end:  # keys past the 2-d mask are padding, as transformers pads it
            valid = torch.nn.functional.pad(valid, (0, end - valid.shape[-1]))
        valid = valid[:, kv_offset:end]
        count = valid.sum(-1)
        prefix = valid == (torch.arange(kv_length, device=valid.device)[None, :] < count[:, None])
        unpadded, right = torch.stack([(count == kv_length).all(), prefix.all()]).tolist()
        if not unpadded:
            if not right or q_length != kv_length:
                return None  # left padding, holes, or padding with a cache: the dense mask
            lengths = count.to(torch.int32)
    from transformers.masking_utils import causal_mask_function

    left = _causal_window(kw.get("mask_function", causal_mask_function), kv_offset, kv_length, device,
                          kw.get("local_size"))
    if left is _DENSE:
        return None
    return _NO_MASK if lengths is None else (left, lengths)


def build_mask(*args, **kwargs):
    """transformers' mask-interface function (masking_utils.sdpa_mask's
    arguments): None where attn needs no mask (see the module docstring),
    else sdpa_mask's dense bool mask; a right-padded one also remembers its
    key lengths for attention_forward."""
    from transformers.masking_utils import sdpa_mask

    plan = None if args else _plan(kwargs)
    if plan is _NO_MASK:
        return None
    mask = sdpa_mask(*args, **kwargs)
    if plan is not None and mask is not None:
        _plans.remember(mask, plan)
    return mask


# ----------------------------------------------------------------------------
# Packed rows.

def _host_offsets(cu, tokens):
    """cu_seq_lens as a host list, checked to cover a row of `tokens`."""
    found, offsets = _offsets.recall(cu)
    if not found:
        offsets = cu.tolist() if cu.dim() == 1 else None
        if offsets is not None and (len(offsets) < 2 or offsets[0] != 0
                                    or any(b < a for a, b in zip(offsets, offsets[1:]))):
            offsets = None
        _offsets.remember(cu, offsets)
    if offsets is None or offsets[-1] != tokens:
        raise _error(f"cu_seq_lens must be int offsets (sequences + 1,) from 0, non-decreasing, ending at the "
                     f"row's {tokens} tokens; got {cu.tolist()}")
    return offsets


def _given_sequences(kwargs, tokens, device):
    """The packing the caller gave as cu_seq_lens_q/k (flash attention's
    keyword arguments): (cu_q, cu_k, max_q, max_k, host offsets of q)."""
    torch = _attn.torch
    cu_q, cu_k = kwargs.get("cu_seq_lens_q"), kwargs.get("cu_seq_lens_k")
    if cu_q is None or cu_k is None:
        raise _error("packed rows need both cu_seq_lens_q and cu_seq_lens_k; got only one")
    max_q, max_k = kwargs.get("max_length_q"), kwargs.get("max_length_k")
    if _tracing():  # no host reads while tracing: the lengths must come as ints
        if max_q is None or max_k is None:
            raise _error("a traced packed row needs max_length_q and max_length_k with cu_seq_lens")
        offsets = None
    else:
        offsets = _host_offsets(cu_q, tokens)
        offsets_k = offsets if cu_k is cu_q else _host_offsets(cu_k, tokens)
        if max_q is None:
            max_q = max(b - a for a, b in zip(offsets, offsets[1:]))
        if max_k is None:
            max_k = max(b - a for a, b in zip(offsets_k, offsets_k[1:]))
    max_q = int(max_q) if isinstance(max_q, torch.Tensor) else max_q
    max_k = int(max_k) if isinstance(max_k, torch.Tensor) else max_k
    return (cu_q.to(device=device, dtype=torch.int32), cu_k.to(device=device, dtype=torch.int32),
            max_q, max_k, offsets)


def _restarts(pos):
    """What a row's positions say: None (one sequence), the host offsets of
    the sequences that start where positions are 0, or an error message."""
    starts = (pos == 0).nonzero().flatten().tolist()
    if not starts or starts == [0]:
        return None
    if starts[0] != 0:
        return (f"position_ids restart at 0 at token {starts[0]} but the row does not start at 0 "
                f"(it starts at {int(pos[0])}): the tokens before belong to no sequence")
    return starts + [int(pos.shape[0])]


def _position_sequences(kwargs, tokens, device):
    """The packing position_ids tell (each sequence starts where they are
    0, as flash_attention_2 and DataCollatorWithFlattening have it): None,
    an error message, or (cu, cu, max, max, host offsets)."""
    torch = _attn.torch
    position_ids = kwargs.get("position_ids")
    if not isinstance(position_ids, torch.Tensor):
        return None
    if position_ids.dim() == 2 and position_ids.shape[0] == 1:
        pos = position_ids[0]
    elif position_ids.dim() == 1:
        pos = position_ids
    else:
        return None  # several rows, or M-RoPE's (3, batch, tokens): no packing read from them
    if pos.shape[0] != tokens:
        return None
    found, known = (False, None) if _tracing() else _offsets.recall(position_ids)
    if not found:
        known = _restarts(pos)
        if isinstance(known, list):  # the offsets on the device once, for every layer
            known = (known, torch.tensor(known, dtype=torch.int32, device=device))
        if not _tracing():
            _offsets.remember(position_ids, known)
    if known is None or isinstance(known, str):
        return known
    offsets, cu = known
    if cu.device != device:
        cu = cu.to(device)
    longest = max(b - a for a, b in zip(offsets, offsets[1:]))
    return cu, cu, longest, longest, offsets


def _matches_packing(mask, offsets, left, causal):
    """True if the dense mask is exactly the packed row's pattern: each
    sequence attends to itself (causal, windowed by left)."""
    torch = _attn.torch
    tokens = offsets[-1]
    if (mask.dtype != torch.bool or mask.dim() != 4 or mask.shape[0] != 1 or mask.shape[1] != 1
            or tuple(mask.shape[-2:]) != (tokens, tokens)):
        return False
    key = (tuple(offsets), left, causal)
    found, known = _packings.recall(mask)
    if found and key in known:
        return known[key]
    seg = torch.zeros(tokens, dtype=torch.int32, device=mask.device)
    seg[torch.tensor(offsets[1:-1], dtype=torch.long, device=mask.device)] = 1
    seg = seg.cumsum(0)
    i = torch.arange(tokens, device=mask.device)
    allowed = seg[:, None] == seg[None, :]
    if causal:
        allowed &= i[None, :] <= i[:, None]
    if left is not None:
        allowed &= i[None, :] >= i[:, None] - left
    matches = bool(torch.equal(mask[0, 0], allowed))
    if not found:
        known = {}
    known[key] = matches
    _packings.remember(mask, known)
    return matches


def _packed(module, query, key, attention_mask, is_causal, kwargs):
    """(cu_q, cu_k, max_q, max_k, left) where this call is a padding-free
    packed row that attn.varlen runs, else None."""
    b, _, tokens, _ = query.shape
    given = kwargs.get("cu_seq_lens_q") is not None or kwargs.get("cu_seq_lens_k") is not None
    if given and (b != 1 or key.shape[2] != tokens):
        raise _error(f"cu_seq_lens_q/k describe one packed row without a cache (batch 1, as many keys as "
                     f"queries); got a batch of {b} with {tokens} queries and {key.shape[2]} keys")
    if b != 1 or tokens < 2 or key.shape[2] != tokens:
        return None
    if attention_mask is not None and _tracing():
        return None  # the dense mask is transformers' own: no host reads to check it
    if given:
        found = _given_sequences(kwargs, tokens, query.device)
    else:
        found = _position_sequences(kwargs, tokens, query.device)
        if isinstance(found, str):
            if attention_mask is None:
                raise _error(found)
            return None  # e.g. the positions of a left-padded row: its dense mask has it
    if found is None:
        return None
    cu_q, cu_k, max_q, max_k, offsets = found
    left = _layer_window(module, kwargs) if is_causal else kwargs.get("sliding_window")
    if left is not None and not is_causal:
        raise _error("packed rows with a bidirectional sliding window are not supported; use "
                     "attn_implementation='eager' or unpacked batches")
    if attention_mask is not None and (offsets is None or not _matches_packing(attention_mask, offsets, left,
                                                                                 is_causal)):
        return None  # the mask says something else (padding, other overlays): it decides
    return cu_q, cu_k, max_q, max_k, left


# ----------------------------------------------------------------------------
# The attention function.

def _autocast(query, key, value):
    """float32 query/key/value under CUDA autocast (RoPE in float32 on
    autocast's bf16 projections) in autocast's dtype, as flash_attention_2
    casts them; anything else as it is (attn.sdpa names a bad dtype)."""
    torch = _attn.torch
    if torch.float32 not in (query.dtype, key.dtype, value.dtype):
        return query, key, value
    try:
        enabled, dtype = torch.is_autocast_enabled("cuda"), torch.get_autocast_dtype("cuda")
    except (TypeError, AttributeError):  # torch before device-type autocast queries
        enabled, dtype = torch.is_autocast_enabled(), torch.get_autocast_gpu_dtype()
    if not enabled or dtype not in (torch.float16, torch.bfloat16):
        return query, key, value
    return query.to(dtype), key.to(dtype), value.to(dtype)


def attention_forward(module, query, key, value, attention_mask, dropout=0.0, scaling=None, is_causal=None,
                      softcap=None, **kwargs):
    """transformers' attention-function signature (that of
    integrations/sdpa_attention.py): query (batch, heads, q_len, head_dim),
    key and value (batch, kv_heads, kv_len, head_dim); returns the output as
    (batch, q_len, heads, head_dim) and no attention weights. Reads
    sliding_window, s_aux (or sinks), position_ids and cu_seq_lens_q/k,
    max_length_q/k from kwargs."""
    if dropout:
        raise _error(f"attention dropout ({dropout}) is not supported; run the model in eval() mode or set "
                     "the config's attention_dropout to 0")
    if kwargs.get("output_attentions"):
        raise _error("output_attentions needs the attention weights, which attn never forms; use "
                     "attn_implementation='eager' for them")
    # gpt-oss passes its per-head sink logits as s_aux.
    sinks = kwargs.get("s_aux")
    if sinks is None:
        sinks = kwargs.get("sinks")
    if is_causal is None:
        is_causal = getattr(module, "is_causal", True)
    is_causal = bool(is_causal)
    query, key, value = _autocast(query, key, value)
    q_len, k_len = query.shape[2], key.shape[2]
    score_mod = _attn.softcap(softcap) if softcap else None
    gqa = query.shape[1] != key.shape[1]

    packed = _packed(module, query, key, attention_mask, is_causal, kwargs)
    if packed is not None:
        cu_q, cu_k, max_q, max_k, left = packed
        # (1, heads, tokens, dim) as attn.varlen's (tokens, heads, dim) views.
        out = _attn.varlen(query[0].transpose(0, 1), key[0].transpose(0, 1), value[0].transpose(0, 1),
                           cu_q, cu_k, max_q, max_k, scale=scaling, causal=is_causal,
                           window=(-1, -1) if left is None else (left, 0),
                           softcap=float(softcap) if softcap else 0.0, sinks=sinks)
        return out.unsqueeze(0), None

    if attention_mask is None:
        # Causal (or, for bidirectional modules, full) attention, windowed on
        # sliding layers, aligned to the last key where queries are fewer.
        left = _layer_window(module, kwargs) if is_causal else None
        window = None if left is None else (left, 0)
        causal = is_causal and q_len > 1
        out = _attn.sdpa(query, key, value, is_causal=causal, scale=scaling, enable_gqa=gqa, window=window,
                         bottom_right=q_len != k_len and (causal or window is not None), score_mod=score_mod,
                         sinks=sinks)
        return out.transpose(1, 2).contiguous(), None

    found, plan = (False, None) if _tracing() else _plans.recall(attention_mask)
    if (found and attention_mask.dim() == 4 and tuple(attention_mask.shape[-2:]) == (q_len, k_len)
            and q_len == k_len and plan[1].shape[0] == query.shape[0]):
        # A right-padded batch without cache: key lengths, the causal
        # pattern and window of the mask build_mask read them from.
        left, lengths = plan
        out = _attn.sdpa(query, key, value, is_causal=q_len > 1, scale=scaling, enable_gqa=gqa,
                         window=None if left is None else (left, 0), lengths=lengths, score_mod=score_mod,
                         sinks=sinks)
        return out.transpose(1, 2).contiguous(), None

    # The dense mask holds the causal pattern, window and padding, as in
    # transformers' SDPA path.
    if attention_mask.shape[-1] != k_len:
        attention_mask = attention_mask[..., :k_len]
    out = _attn.sdpa(query, key, value, attn_mask=attention_mask, is_causal=False, scale=scaling, enable_gqa=gqa,
                     score_mod=score_mod, sinks=sinks)
    return out.transpose(1, 2).contiguous(), None


def register(name=NAME):
    """Registers attn with transformers as attn_implementation=name; returns
    the name."""
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface

    AttentionInterface.register(name, attention_forward)
    AttentionMaskInterface.register(name, build_mask)
    return name
