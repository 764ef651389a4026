#!/usr/bin/env python3
"""Random attention graphs for differential testing of attn (standard
library, and attn's own package for the text of attn.flash: python/attn's
write_flash_op, which loads libattn_c from $ATTN_LIBRARY or build/lib).

    scripts/gen-graphs.py --seed 7 --count 40 --out DIR
    scripts/gen-graphs.py --seed 7 --case 16 --out DIR   (one case of them)

writes DIR/graph-<seed>-<n>.mlir, each case drawn from its own seed and
number, so that a case is the same whatever --count, --serving or --case
ask for.

Cases 0 to COUNT-1 are dense: one attention per function, in a form that
--attn-fuse must fuse (scales on q or on the scores, as attn.scale or
arith.mulf/divf by a splat, a score_mod, masks split over several attn.mask
ops in any order, keep as select(-inf), bias as addf, casts around the
softmax) or as attn.flash directly, with random shapes (odd lengths, decode,
head dims that are multiples of 8 up to 256, different q/k and v head
dims), f16/bf16, GQA/MQA ratios, transposed K, causal and sliding-window
masks, key padding, keep and bias operands and tensors captured by the
score_mod. (Their draws are those of the generator before it drew serving
cases and backward RUN lines: a seed and case named in an issue stay the
same graph.)

Cases from 10000 (--serving of them, default COUNT / 4) are serving cases
over the same shapes, masks and score_mods: ragged batches (attn.flash with
cu_seqlens; decode with one query per sequence), paged K/V caches (pages of
1 to 256 keys, cache_seqlens lengths, a block table over a cache with pages
no entry names), and attention sinks, as gpt-oss's graph writes them (a
column of per-head logits concatenated to the scores and sliced off the
probabilities, which --attn-fuse must fuse) or as attn.flash's operand, the
latter also on ragged batches and paged caches.

Each file has RUN lines for attn-run --check (on the GPU, against the
float64 reference; scripts/gpu-diff.sh runs them), some with
--variant=sm80, --splits, --layout=bshd or --unfused; a serving case's
second line gives its own offsets, lengths and shuffled block table
(--set-input, some past the tensors' ends, which the kernels and the
reference clamp) with --poison-padding. Every dense attention whose
backward has kernels also gets attn-run --backward --check (dq, dk, dv,
sometimes dbias, and dsinks with sinks, against the reference's evaluation
of the training step; FileCheck prefix BWD).

Without a GPU, attn-run --check-ir checks what fusion does; a ragged batch
or paged cache is written as attn.flash, which the pipeline only
configures, so that its kernels, and every gradient, are checked on the
GPU only.

score_mods are random programs over the ops of the score_mod table
(lib/Dialect/Attn/IR/ScoreModOps.cpp, read at run time), written so that
f32 on the device and f64 in the reference agree: integer parts are exact
and reduced to small values before they become floats; float parts use
bounded arguments and end in a bounded function. --check-table fails if
the table has an op this generator cannot draw.
"""

import argparse
import functools
import os
import random
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(ROOT, "lib", "Dialect", "Attn", "IR", "ScoreModOps.cpp")

INT_TYPES = ["i1", "i32", "i64", "index"]
WIDTH = {"i1": 1, "i32": 32, "i64": 64, "index": 64}
EDGE_INTS = {
    "i32": [0, 1, -1, 2, 3, 7, 8, 31, 32, 33, -8, 100, 255, 2147483647, -2147483648],
    "i64": [0, 1, -1, 2, 3, 7, 63, 64, 65, -8, 4294967296,
            9223372036854775807, -9223372036854775808],
}
EDGE_INTS["index"] = EDGE_INTS["i64"]
# Constants whose conversion to an integer saturates or is NaN.
EDGE_FLOATS = ["0.0", "-0.0", "0.5", "-0.75", "2.5", "-2.5", "3.0e9", "-3.0e9",
               "1.0e20", "-1.0e20", "0x7FC00000", "0x7F800000", "0xFF800000"]

# What the generator can draw, by op: the table's rows must all be here.
INT_BINARY = ["addi", "subi", "muli", "divsi", "divui", "ceildivsi", "ceildivui",
              "floordivsi", "remsi", "remui", "andi", "ori", "xori", "shli",
              "shrsi", "shrui", "maxsi", "minsi", "maxui", "minui"]
INT_UNARY_MATH = ["absi", "ctlz", "cttz", "ctpop"]
EXTENDED = ["addui_extended", "mulsi_extended", "mului_extended"]
CMPI = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
CMPF = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt",
        "uge", "ult", "ule", "une", "uno", "true"]
CASTS = ["extsi", "extui", "trunci", "index_cast", "index_castui", "sitofp",
         "uitofp", "fptosi", "fptoui", "bitcast", "extf"]
FLOAT_BINARY = ["addf", "subf", "mulf", "divf", "remf", "maximumf", "minimumf",
                "maxnumf", "minnumf"]
# math ops on f32 and how to keep their argument in range: the argument is
# first mapped by the guard (v is the value).
MATH_UNARY = {
    "absf": "{v}", "atan": "{v}", "tanh": "{v}", "sin": "{v}", "cos": "{v}",
    "erf": "{v}", "erfc": "{v}", "cbrt": "{v}", "asinh": "{v}", "floor": "{v}",
    "ceil": "{v}", "round": "{v}", "roundeven": "{v}", "trunc": "{v}",
    "exp": "-abs", "exp2": "-abs", "expm1": "-abs", "sqrt": "abs",
    "log": "1+abs", "log2": "1+abs", "log10": "1+abs", "log1p": "abs",
    "rsqrt": "1+abs", "acosh": "1+abs", "acos": "tanh", "asin": "tanh",
    "atanh": "halftanh", "tan": "halftanh", "sinh": "tanh", "cosh": "tanh",
}
MATH_BINARY = ["atan2", "copysign", "powf"]
# Ops whose derivative is unbounded somewhere in their guarded range, where
# the score still moves their operand: at 0, at the origin, at a zero
# divisor or base. (acos and asin, guarded by tanh, which f32 rounds to
# exactly 1 past |s| = 9, have a zero tangent there: their rules give 0,
# TangentBuilder::zeroWhereStill, not the chain rule's 0 / 0; seed 1206202
# case 45.)
SINGULAR_DERIVATIVE = ["math.cbrt", "math.sqrt", "math.acosh", "math.atan2",
                       "math.powf", "arith.divf", "arith.remf"]
CLASSIFY = ["isnan", "isinf", "isfinite", "isnormal"]
KNOWN = set(["arith." + o for o in INT_BINARY + EXTENDED + CASTS + FLOAT_BINARY +
             ["negf", "select", "cmpi", "cmpf"]] +
            ["math." + o for o in INT_UNARY_MATH + list(MATH_UNARY) + MATH_BINARY +
             CLASSIFY + ["fma"]])


def table_ops():
    """(name, predicate) of every row of the score_mod table."""
    rows = []
    with open(TABLE) as f:
        for line in f:
            m = re.match(r'\s*\{"((?:arith|math)\.[a-z0-9_]+)", "([a-z]*)"', line)
            if m:
                rows.append((m.group(1), m.group(2)))
    return rows


class ScoreMod:
    """Builds one score_mod body: SSA lines over the block arguments
    %score, %b, %h, %q_idx, %kv_idx and the captures."""

    def __init__(self, rng, ops, predicates, captures):
        self.rng = rng
        self.ops = ops              # table ops ("arith.addi") allowed
        self.cmpi = predicates["arith.cmpi"]
        self.cmpf = predicates["arith.cmpf"]
        self.captures = captures    # [(name, kind, type, shape)]
        self.lines = []
        self.n = 0

    def has(self, op):
        return op in self.ops

    def emit(self, text, result=True):
        if not result:
            self.lines.append(text)
            return None
        self.n += 1
        name = f"%v{self.n}"
        self.lines.append(f"{name} = {text}")
        return name

    # -- integers: exact on both sides ------------------------------------
    def const_int(self, t):
        if t == "i1":
            return self.emit(f"arith.constant {self.rng.choice(['true', 'false'])}")
        v = self.rng.choice(EDGE_INTS[t] + [self.rng.randint(-300, 300)] * 4)
        return self.emit(f"arith.constant {v} : {t}")

    def cast_int(self, v, src, dst):
        if src == dst:
            return v
        if src == "index" or dst == "index":
            op = "index_cast" if self.rng.random() < 0.6 or not self.has("arith.index_castui") \
                else "index_castui"
            return self.emit(f"arith.{op} {v} : {src} to {dst}")
        if WIDTH[dst] > WIDTH[src]:
            op = self.rng.choice([o for o in ("extsi", "extui") if self.has("arith." + o)])
            return self.emit(f"arith.{op} {v} : {src} to {dst}")
        return self.emit(f"arith.trunci {v} : {src} to {dst}")

    def int_leaf(self, t):
        r = self.rng.random()
        ints = [c for c in self.captures if c[1] == "int"]
        if r < 0.45:
            arg = self.rng.choice(["%b", "%h", "%q_idx", "%kv_idx"])
            return self.cast_int(arg, "index", t)
        if r < 0.6 and ints:
            name, _, ctype, shape = self.rng.choice(ints)
            return self.cast_int(self.extract(name, ctype, shape), ctype.split("x")[-1][:-1], t)
        if r < 0.7 and t != "index" and self.has("arith.fptosi"):
            # A float to integer conversion of a constant (saturation, NaN).
            f = self.emit(f"arith.constant {self.rng.choice(EDGE_FLOATS)} : f32")
            op = "fptosi" if self.rng.random() < 0.5 or not self.has("arith.fptoui") else "fptoui"
            return self.emit(f"arith.{op} {f} : f32 to {t}")
        if r < 0.75 and t == "i32" and self.has("arith.bitcast"):
            f = self.exact_float(1)
            return self.emit(f"arith.bitcast {f} : f32 to i32")
        return self.const_int(t)

    def gen_int(self, t, depth):
        if depth <= 0 or self.rng.random() < 0.2:
            return self.int_leaf(t)
        r = self.rng.random()
        if r < 0.45:
            op = self.rng.choice([o for o in INT_BINARY if self.has("arith." + o)])
            a, b = self.gen_int(t, depth - 1), self.gen_int(t, depth - 1)
            return self.emit(f"arith.{op} {a}, {b} : {t}")
        if r < 0.55:
            op = self.rng.choice([o for o in INT_UNARY_MATH if self.has("math." + o)])
            return self.emit(f"math.{op} {self.gen_int(t, depth - 1)} : {t}")
        if r < 0.65:
            op = self.rng.choice([o for o in EXTENDED if self.has("arith." + o)])
            a, b = self.gen_int(t, depth - 1), self.gen_int(t, depth - 1)
            self.n += 1
            first, second = f"%v{self.n}a", f"%v{self.n}b"
            if op == "addui_extended":
                self.emit(f"{first}, {second} = arith.addui_extended {a}, {b} : {t}, i1", False)
                return first if t != "i1" or self.rng.random() < 0.5 else second
            self.emit(f"{first}, {second} = arith.{op} {a}, {b} : {t}", False)
            return self.rng.choice([first, second])
        if r < 0.8:
            c = self.condition(depth - 1)
            a, b = self.gen_int(t, depth - 1), self.gen_int(t, depth - 1)
            return self.emit(f"arith.select {c}, {a}, {b} : {t}")
        src = self.rng.choice(INT_TYPES)
        return self.cast_int(self.gen_int(src, depth - 1), src, t)

    def condition(self, depth):
        """An i1: an integer comparison, a float comparison or
        classification, or an i1 expression."""
        r = self.rng.random()
        if r < 0.5:
            t = self.rng.choice(INT_TYPES)
            a, b = self.gen_int(t, depth), self.gen_int(t, depth)
            return self.emit(f"arith.cmpi {self.rng.choice(self.cmpi)}, {a}, {b} : {t}")
        if r < 0.75:
            a, b = self.gen_float(depth), self.gen_float(depth)
            return self.emit(f"arith.cmpf {self.rng.choice(self.cmpf)}, {a}, {b} : f32")
        if r < 0.85:
            ops = [o for o in CLASSIFY if self.has("math." + o)]
            return self.emit(f"math.{self.rng.choice(ops)} {self.gen_float(depth)} : f32")
        return self.gen_int("i1", depth)

    def small_float(self, depth):
        """An integer expression reduced to [0, 16] (or an i1), as f32:
        exact on both sides."""
        t = self.rng.choice(INT_TYPES)
        v = self.gen_int(t, depth)
        if t != "i1":
            sixteen = self.emit(f"arith.constant 17 : {t}")
            v = self.emit(f"arith.remui {v}, {sixteen} : {t}")
            if t == "index":
                v = self.emit(f"arith.index_castui {v} : index to i64")
                t = "i64"
        op = self.rng.choice([o for o in ("sitofp", "uitofp") if self.has("arith." + o)])
        return self.emit(f"arith.{op} {v} : {t} to f32")

    def exact_float(self, depth):
        """A small float both sides hold exactly: k / 4 for an integer k."""
        f = self.small_float(depth)
        quarter = self.emit("arith.constant 0.25 : f32")
        return self.emit(f"arith.mulf {f}, {quarter} : f32")

    # -- floats: bounded arguments ----------------------------------------
    def float_leaf(self):
        r = self.rng.random()
        floats = [c for c in self.captures if c[1] == "float"]
        if r < 0.35:
            return "%score"
        if r < 0.55 and floats:
            name, _, ctype, shape = self.rng.choice(floats)
            v = self.extract(name, ctype, shape)
            element = ctype.split("x")[-1][:-1]
            if element != "f32":
                v = self.emit(f"arith.extf {v} : {element} to f32")
            return v
        if r < 0.75:
            return self.exact_float(1)
        c = self.rng.choice(["0.5", "-1.25", "2.0", "0.1", "-0.3", "1.5", "3.0"])
        return self.emit(f"arith.constant {c} : f32")

    def guard(self, v, how):
        if how == "{v}":
            return v
        if how == "tanh":
            return self.emit(f"math.tanh {v} : f32")
        if how == "halftanh":
            t = self.emit(f"math.tanh {v} : f32")
            half = self.emit("arith.constant 0.5 : f32")
            return self.emit(f"arith.mulf {t}, {half} : f32")
        a = self.emit(f"math.absf {v} : f32")
        if how == "abs":
            return a
        if how == "-abs":
            return self.emit(f"arith.negf {a} : f32")
        one = self.emit("arith.constant 1.0 : f32")
        return self.emit(f"arith.addf {a}, {one} : f32")

    def gen_float(self, depth):
        if depth <= 0 or self.rng.random() < 0.25:
            return self.float_leaf()
        r = self.rng.random()
        if r < 0.3:
            op = self.rng.choice([o for o in FLOAT_BINARY if self.has("arith." + o)])
            a = self.gen_float(depth - 1)
            if op == "mulf":
                b = self.emit(f"arith.constant {self.rng.choice(['0.5', '-1.5', '2.0', '0.75'])} : f32")
            elif op == "divf":
                b = self.guard(self.gen_float(depth - 1), "1+abs")
            elif op == "remf":
                b = self.emit("arith.constant 1.5 : f32")
            else:
                b = self.gen_float(depth - 1)
            return self.emit(f"arith.{op} {a}, {b} : f32")
        if r < 0.6:
            op = self.rng.choice([o for o in MATH_UNARY if self.has("math." + o)])
            v = self.guard(self.gen_float(depth - 1), MATH_UNARY[op])
            return self.emit(f"math.{op} {v} : f32")
        if r < 0.7:
            op = self.rng.choice([o for o in MATH_BINARY if self.has("math." + o)])
            a, b = self.gen_float(depth - 1), self.gen_float(depth - 1)
            if op == "powf":
                a, b = self.guard(a, "1+abs"), self.guard(b, "tanh")
            return self.emit(f"math.{op} {a}, {b} : f32")
        if r < 0.78 and self.has("math.fma"):
            a, c = self.gen_float(depth - 1), self.gen_float(depth - 1)
            b = self.emit(f"arith.constant {self.rng.choice(['0.5', '-0.25', '1.25'])} : f32")
            return self.emit(f"math.fma {a}, {b}, {c} : f32")
        if r < 0.85 and self.has("arith.negf"):
            return self.emit(f"arith.negf {self.gen_float(depth - 1)} : f32")
        if r < 0.93:
            c = self.condition(depth - 1)
            a, b = self.gen_float(depth - 1), self.gen_float(depth - 1)
            return self.emit(f"arith.select {c}, {a}, {b} : f32")
        return self.small_float(depth - 1)

    # -- captures ---------------------------------------------------------
    def extract(self, name, ctype, shape):
        """An element of a capture: natural indices, or any index
        expression (clamped on both sides)."""
        idx = []
        natural = {"h": "%h", "q": "%q_idx", "kv": "%kv_idx", "b": "%b"}
        for role, extent in shape:
            if role == "rel":
                d = self.emit("arith.subi %q_idx, %kv_idx : index")
                off = self.emit(f"arith.constant {extent // 2} : index")
                idx.append(self.emit(f"arith.addi {d}, {off} : index"))
            elif self.rng.random() < 0.8:
                idx.append(natural[role])
            else:
                idx.append(self.gen_int("index", 1))
        return self.emit(f"tensor.extract {name}[{', '.join(idx)}] : {ctype}")

    def build(self, depth):
        """y = a * score + c1 * tanh(float program) + c2 * small integer."""
        terms = []
        a = self.rng.choice(["1.0", "0.5", "1.25"])
        ca = self.emit(f"arith.constant {a} : f32")
        terms.append(self.emit(f"arith.mulf %score, {ca} : f32"))
        if self.rng.random() < 0.85:
            f = self.emit(f"math.tanh {self.gen_float(depth)} : f32")
            c1 = self.emit(f"arith.constant {self.rng.choice(['0.5', '1.0', '-0.75'])} : f32")
            terms.append(self.emit(f"arith.mulf {f}, {c1} : f32"))
        if self.rng.random() < 0.85:
            i = self.small_float(depth)
            c2 = self.emit(f"arith.constant {self.rng.choice(['0.0625', '-0.125', '0.25'])} : f32")
            terms.append(self.emit(f"arith.mulf {i}, {c2} : f32"))
        y = terms[0]
        for t in terms[1:]:
            y = self.emit(f"arith.addf {y}, {t} : f32")
        self.emit(f"attn.yield {y} : f32", False)
        return self.lines


@functools.lru_cache(maxsize=None)
def write_flash_op():
    """attn.write_flash_op of the package in this tree, its library loaded
    (on first use: --check-table needs none)."""
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import attn
    try:
        attn.library()
    except attn.AttnError as e:
        sys.exit(f"gen-graphs: {e}")
    return attn.write_flash_op


# The first serving case's number: dense cases are numbered from 0, so that
# a dense case keeps its number whatever --count and --serving ask for.
SERVING = 10000


def tensor(shape, element):
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


class Case:
    """One random attention and the MLIR of it."""

    def __init__(self, rng, ops, predicates, index):
        self.rng = rng
        self.ops = ops
        self.predicates = predicates
        self.index = index
        # "dense", or a serving case's kind: "varlen", "paged", "sinks".
        self.kind = "dense"
        self.sinks = None  # the sinks argument's type, or None

    def shapes(self):
        r = self.rng
        self.dtype = r.choice(["bf16", "f16"])
        self.batch = r.choice([1, 1, 2, 3])
        self.hkv = r.choice([1, 2, 4])
        self.group = r.choice([1, 1, 2, 3, 4, 8])
        self.hq = self.hkv * self.group
        lengths = [1, 2, 5, 7, 16, 33, 64, 100, 127, 128, 129, 200, 255, 257, 384]
        self.sq = r.choice(lengths)
        self.skv = r.choice(lengths[1:])
        dims = [8, 16, 24, 32, 40, 48, 64, 72, 80, 96, 104, 128, 136, 160, 192, 256]
        self.dqk = r.choice(dims)
        self.dv = self.dqk if r.random() < 0.75 else r.choice([d for d in dims if d <= 256])
        self.transpose_k = r.random() < 0.15
        if self.transpose_k:
            # A transposed K is read along its keys: the key stride (Skv)
            # must be a multiple of 8 elements for 16-byte copies.
            self.skv = (self.skv + 7) // 8 * 8

    def masks(self):
        r = self.rng
        self.items = []  # (item text, operand or None)
        positional = []
        self.window = None  # (left, right)
        if r.random() < 0.35:
            positional.append("causal")
        if r.random() < 0.25:
            left = r.choice([-1, 0, 1, 3, 17, 64, 200])
            right = r.choice([-1, 0, 2, 31]) if left >= 0 else r.choice([0, 2, 31])
            self.window = (left, right)
            positional.append(f"window = [{left}, {right}]")
        self.bottom_right = bool(positional) and r.random() < 0.35
        self.positional = positional
        self.key_padding = r.random() < 0.25
        self.keep = None
        self.bias = None
        score = [self.batch, self.hq, self.sq, self.skv]
        if r.random() < 0.2:
            self.keep = [d if r.random() < 0.6 else 1 for d in score]
        if r.random() < 0.25:
            self.bias = ([d if r.random() < 0.6 else 1 for d in score],
                         r.choice(["f32", "f16", "bf16"]))

    def captures(self):
        """Tensors the score_mod reads: (argument, kind, type, index roles,
        function argument, shape, element)."""
        r = self.rng
        caps = []
        if r.random() < 0.35:
            caps.append(("f32", [("h", self.hq)]))
        if r.random() < 0.3:
            caps.append((r.choice(["bf16", "f16", "f32"]), [("rel", 2 * max(self.sq, self.skv) - 1)]))
        if r.random() < 0.25:
            caps.append(("i32", [("kv", self.skv)]))
        if r.random() < 0.15:
            caps.append(("i64", [("b", self.batch), ("h", self.hq)]))
        if r.random() < 0.15:
            caps.append(("i1", [("q", self.sq)]))
        self.capture_list = []
        for i, (element, roles) in enumerate(caps[:4]):
            shape = [extent for _, extent in roles]
            kind = "float" if element in ("f32", "f16", "bf16") else "int"
            self.capture_list.append((f"%capture{i}", kind, tensor(shape, element), roles,
                                      f"%captured{i}", shape, element))

    def score_mod(self):
        r = self.rng
        if r.random() < 0.35:
            self.score_mod_lines = None
            return
        sm = ScoreMod(r, self.ops, self.predicates,
                      [(c[0], c[1], c[2], c[3]) for c in self.capture_list])
        self.score_mod_lines = sm.build(r.choice([1, 2, 3]))

    def generate(self):
        self.shapes()
        self.masks()
        self.captures()
        self.score_mod()
        if not self.score_mod_lines:
            self.capture_list = []
        self.direct = self.rng.random() < 0.15
        return self.direct_flash() if self.direct else self.graph()

    def generate_serving(self):
        """A serving case over the dense cases' heads, head dims, masks and
        score_mods: a ragged batch (cu_seqlens), a paged cache read through
        a block table, or attention sinks (gpt-oss's concatenated column in
        a graph, or attn.flash's operand), sinks also with the first two."""
        r = self.rng
        self.kind = r.choice(["varlen", "varlen", "paged", "paged", "sinks", "sinks"])
        self.shapes()
        if self.kind == "sinks":
            self.masks()
            self.captures()
            self.score_mod()
            if not self.score_mod_lines:
                self.capture_list = []
            self.direct = r.random() < 0.35
            flat = self.direct and r.random() < 0.5
            self.sinks_shape = [self.hq] if flat else [1, self.hq, 1, 1]
            self.sinks = tensor(self.sinks_shape, "f32")
            return self.direct_flash() if self.direct else self.graph()
        # Packed or paged k rows: never transposed.
        self.transpose_k = False
        self.direct = True
        self.unfused_ok = False
        if self.kind == "varlen":
            # Sequences, and their queries and keys packed: attn-run cuts
            # them at random offsets (one query each where there are as
            # many as sequences: decode), RUN lines at given ones.
            self.batch = r.choice([1, 2, 3, 5, 8])
            self.sq = self.batch if r.random() < 0.2 else \
                r.choice([7, 33, 100, 200, 384, 600])
            self.skv = r.choice([5, 33, 128, 257, 500, 700])
        else:
            # A cache of pages of `page` keys, `per_sequence` table entries
            # per sequence (at most 1024 keys), a few pages no entry names.
            self.batch = r.choice([1, 2, 3, 4])
            self.page = r.choice([1, 4, 8, 16, 16, 24, 32, 64, 128, 256])
            keys = r.choice([1, 7, 33, 100, 255, 384, 600, 1000])
            self.per_sequence = max(1, min(-(-keys // self.page), 1024 // self.page))
            self.skv = self.per_sequence * self.page
            self.pages = self.batch * self.per_sequence + r.choice([0, 1, 3, 8])
            self.sq = r.choice([1, 1, 2, 4, 7, 16, 33, 100])
        self.masks()
        if self.kind == "varlen":
            # Mask operands are laid out for a dense batch.
            self.key_padding, self.keep, self.bias = False, None, None
        else:
            # Each sequence's keys in the cache (flash_attn's cache_seqlens),
            # causal and windows mostly aligned to them.
            self.key_padding = True
            if self.positional and r.random() < 0.5:
                self.bottom_right = True
        if r.random() < 0.3:
            self.sinks_shape = [self.hq]
            self.sinks = tensor(self.sinks_shape, "f32")
        self.captures()
        self.score_mod()
        if not self.score_mod_lines:
            self.capture_list = []
        return self.serving_flash()

    # -- text -------------------------------------------------------------
    def serving_shapes(self):
        """q, k, v, output and logsumexp shapes of a ragged batch or a
        paged cache."""
        if self.kind == "varlen":
            return ([self.sq, self.hq, self.dqk], [self.skv, self.hkv, self.dqk],
                    [self.skv, self.hkv, self.dv], [self.sq, self.hq, self.dv], [self.hq, self.sq])
        return ([self.batch, self.hq, self.sq, self.dqk], [self.pages, self.hkv, self.page, self.dqk],
                [self.pages, self.hkv, self.page, self.dv], [self.batch, self.hq, self.sq, self.dv],
                [self.batch, self.hq, self.sq])

    def serving_types(self):
        """q, k, v, output and logsumexp types of a ragged batch or a
        paged cache."""
        shapes = self.serving_shapes()
        return tuple(tensor(shape, self.dtype) for shape in shapes[:4]) + (tensor(shapes[4], "f32"),)

    def serving_arguments(self):
        q, k, v, _, _ = self.serving_types()
        args = [f"%q: {q}", f"%k: {k}", f"%v: {v}"]
        offsets = tensor([self.batch + 1], "i32")
        if self.kind == "varlen":
            args += [f"%cq: {offsets}", f"%ck: {offsets}"]
        else:
            args.append(f"%len: {tensor([self.batch], 'i32')}")
            if self.keep:
                args.append(f"%keep: {tensor(self.keep, 'i1')}")
            if self.bias:
                args.append(f"%bias: {tensor(*self.bias)}")
        if self.sinks:
            args.append(f"%sinks: {self.sinks}")
        if self.kind == "paged":
            args.append(f"%table: {tensor([self.batch, self.per_sequence], 'i32')}")
        for c in self.capture_list:
            args.append(f"{c[4]}: {c[2]}")
        return args

    def argument_index(self, name):
        """The position of argument %name (attn-run --set-input)."""
        return [a.split(":")[0] for a in self.arguments()].index("%" + name)

    def arguments(self):
        if self.kind in ("varlen", "paged"):
            return self.serving_arguments()
        dt = self.dtype
        args = [f"%q: {tensor([self.batch, self.hq, self.sq, self.dqk], dt)}"]
        kshape = ([self.batch, self.hkv, self.dqk, self.skv] if self.transpose_k
                  else [self.batch, self.hkv, self.skv, self.dqk])
        args.append(f"%k: {tensor(kshape, dt)}")
        args.append(f"%v: {tensor([self.batch, self.hkv, self.skv, self.dv], dt)}")
        if self.key_padding:
            args.append(f"%len: {tensor([self.batch], 'i32')}")
        if self.keep:
            args.append(f"%keep: {tensor(self.keep, 'i1')}")
        if self.bias:
            args.append(f"%bias: {tensor(*self.bias)}")
        if self.sinks:
            args.append(f"%sinks: {self.sinks}")
        for c in self.capture_list:
            args.append(f"{c[4]}: {c[2]}")
        return args

    def mask_kind(self, items):
        if self.bottom_right and any(i in self.positional for i in items):
            items = items + ["bottom_right"]
        return "#attn.mask<" + ", ".join(items) + ">"

    def region_header(self):
        extra = "".join(f", {c[0]}: {c[2]}" for c in self.capture_list)
        return ("^bb0(%score: f32, %b: index, %h: index, %q_idx: index, "
                f"%kv_idx: index{extra}):")

    def captures_clause(self):
        if not self.capture_list:
            return ""
        return (" captures(" + ", ".join(c[4] for c in self.capture_list) + " : " +
                ", ".join(c[2] for c in self.capture_list) + ")")

    def graph(self):
        r = self.rng
        dt = self.dtype
        lines = []
        n = [0]

        def fresh():
            n[0] += 1
            return f"%t{n[0]}"
        scores = tensor([self.batch, self.hq, self.sq, self.skv], "f32")
        qtype = tensor([self.batch, self.hq, self.sq, self.dqk], dt)
        scale = (self.dqk ** -0.5) * r.choice([1.0, 0.5, 2.0, 0.75])
        self.forms = []
        # Scaling: on q, on the scores, or split between them.
        q = "%q"
        where = r.choice(["scores", "scores", "q", "split", "div", "mul"])
        score_factor = scale
        if where in ("q", "split"):
            qf = scale if where == "q" else 0.5
            score_factor = 1.0 if where == "q" else scale / 0.5
            t = fresh()
            if r.random() < 0.5:
                lines.append(f"{t} = attn.scale %q {{factor = {qf!r} : f32}} : {qtype}")
            else:
                c = fresh()
                lines.append(f"{c} = arith.constant dense<{qf!r}> : {qtype}")
                lines.append(f"{t} = arith.mulf %q, {c} : {qtype}")
            q = t
            self.forms.append(f"scale on q ({where})")
        s = fresh()
        ktype = tensor([self.batch, self.hkv, self.dqk, self.skv] if self.transpose_k
                       else [self.batch, self.hkv, self.skv, self.dqk], dt)
        attr = "" if self.transpose_k else " {transpose_rhs}"
        lines.append(f"{s} = attn.matmul {q}, %k{attr} : {qtype}, {ktype} -> {scores}")
        if score_factor != 1.0:
            t = fresh()
            if where == "div":
                c = fresh()
                lines.append(f"{c} = arith.constant dense<{1.0 / score_factor!r}> : {scores}")
                lines.append(f"{t} = arith.divf {s}, {c} : {scores}")
            elif where == "mul":
                c = fresh()
                lines.append(f"{c} = arith.constant dense<{score_factor!r}> : {scores}")
                lines.append(f"{t} = arith.mulf {c}, {s} : {scores}")
            else:
                lines.append(f"{t} = attn.scale {s} {{factor = {score_factor!r} : f32}} : {scores}")
            s = t
            self.forms.append(f"scale on scores ({where})")
        if self.score_mod_lines:
            t = fresh()
            body = "\n    ".join(self.score_mod_lines)
            lines.append(f"{t} = attn.score_mod {s}{self.captures_clause()} {{\n"
                         f"  {self.region_header()}\n    {body}\n  }} : {scores}")
            s = t
        # Masks: the items over one or several ops, in a random order; keep
        # of the full score shape as select(-inf), a full f32 bias as addf.
        pieces = []
        for p in self.positional:
            pieces.append(("mask", [p], None))
        if self.key_padding:
            pieces.append(("mask", ["key_padding"], ("lengths", "%len", tensor([self.batch], "i32"))))
        full = [self.batch, self.hq, self.sq, self.skv]
        if self.keep:
            if self.keep == full and r.random() < 0.5:
                pieces.append(("select", None, None))
            else:
                pieces.append(("mask", ["keep"], ("keep", "%keep", tensor(self.keep, "i1"))))
        if self.bias:
            if self.bias[0] == full and self.bias[1] == "f32" and r.random() < 0.5:
                pieces.append(("addf", None, None))
            else:
                pieces.append(("mask", ["bias"], ("bias", "%bias", tensor(*self.bias))))
        r.shuffle(pieces)
        # Merge neighbouring attn.mask pieces sometimes.
        merged = []
        for piece in pieces:
            if merged and piece[0] == "mask" and merged[-1][0] == "mask" and r.random() < 0.5:
                items = merged[-1][1] + piece[1]
                operands = merged[-1][2] + ([piece[2]] if piece[2] else [])
                merged[-1] = ("mask", items, operands)
            else:
                merged.append((piece[0], piece[1], [piece[2]] if piece[2] else []))
        # Bottom-right items in an attn.mask with key_padding align to lengths,
        # in one without it to the tensor's keys: a graph with both has two
        # diagonals, which no fused mask says. Key padding joins either every
        # positional item or none.
        if self.bottom_right and self.key_padding:
            for i, (kind, items, operands) in enumerate(merged):
                if (items and "key_padding" in items and
                        0 < len(set(items) & set(self.positional)) < len(self.positional)):
                    lengths = [o for o in operands if o[0] == "lengths"]
                    merged[i] = (kind, [x for x in items if x != "key_padding"],
                                 [o for o in operands if o[0] != "lengths"])
                    merged.insert(i + 1, ("mask", ["key_padding"], lengths))
                    break
        for kind, items, operands in merged:
            t = fresh()
            if kind == "select":
                c = fresh()
                lines.append(f"{c} = arith.constant dense<0xFF800000> : {scores}")
                lines.append(f"{t} = arith.select %keep, {s}, {c} : {tensor(full, 'i1')}, {scores}")
                self.forms.append("keep as select")
            elif kind == "addf":
                lines.append(f"{t} = arith.addf {s}, %bias : {scores}")
                self.forms.append("bias as addf")
            else:
                order = {"lengths": 0, "keep": 1, "bias": 2}
                ops = "".join(f" {o[0]}({o[1]} : {o[2]})"
                              for o in sorted(operands, key=lambda o: order[o[0]]))
                lines.append(f"{t} = attn.mask {s}{ops} {{kind = {self.mask_kind(items)}}} : {scores}")
            s = t
        # Sinks as gpt-oss's graph writes them: a column of per-head logits
        # concatenated to the scores, the softmax over both, the column
        # sliced off the probabilities (before or after a cast).
        softmaxed = scores
        if self.sinks:
            column = tensor([self.batch, self.hq, self.sq, 1], "f32")
            softmaxed = tensor([self.batch, self.hq, self.sq, self.skv + 1], "f32")
            z, c, cat = fresh(), fresh(), fresh()
            lines.append(f"{z} = arith.constant dense<0.0> : {column}")
            lines.append(f"{c} = attn.mask {z} bias(%sinks : {self.sinks}) "
                         f"{{kind = #attn.mask<bias>}} : {column}")
            lines.append(f"{cat} = tensor.concat dim(3) {s}, {c} : ({scores}, {column}) "
                         f"-> {softmaxed}")
            s = cat
            self.forms.append("sinks as a concatenated column")

        def drop_sink(value, element):
            if not self.sinks:
                return value
            t = fresh()
            lines.append(f"{t} = tensor.extract_slice {value}[0, 0, 0, 0] "
                         f"[{self.batch}, {self.hq}, {self.sq}, {self.skv}] [1, 1, 1, 1] : "
                         f"{tensor([self.batch, self.hq, self.sq, self.skv + 1], element)} to "
                         f"{tensor([self.batch, self.hq, self.sq, self.skv], element)}")
            return t
        # Softmax, in f32 then cast, or straight to the element type.
        probs = tensor([self.batch, self.hq, self.sq, self.skv], dt)
        softmax_probs = softmaxed.replace("xf32>", f"x{dt}>")
        dim = r.choice(["3", "-1"])
        p = fresh()
        if r.random() < 0.3:
            p32 = fresh()
            lines.append(f"{p32} = attn.softmax {s} {{dim = {dim}}} : {softmaxed} -> {softmaxed}")
            if not self.sinks:
                lines.append(f"{p} = arith.truncf {p32} : {scores} to {probs}")
            elif r.random() < 0.5:
                p32 = drop_sink(p32, "f32")
                lines.append(f"{p} = arith.truncf {p32} : {scores} to {probs}")
            else:
                lines.append(f"{p} = arith.truncf {p32} : {softmaxed} to {softmax_probs}")
                p = drop_sink(p, dt)
            self.forms.append("softmax in f32, truncf")
        else:
            lines.append(f"{p} = attn.softmax {s} {{dim = {dim}}} : {softmaxed} -> {softmax_probs}")
            p = drop_sink(p, dt)
        out = tensor([self.batch, self.hq, self.sq, self.dv], dt)
        o = fresh()
        lines.append(f"{o} = attn.matmul {p}, %v : {probs}, "
                     f"{tensor([self.batch, self.hkv, self.skv, self.dv], dt)} -> {out}")
        self.results = [out]
        self.unfused_ok = not any(f in self.forms for f in (
            "keep as select", "bias as addf", "scale on scores (div)",
            "scale on scores (mul)")) and "arith.mulf %q" not in "\n".join(lines) \
            and not self.sinks
        return self.function(lines, o, out)

    def flash_line(self, q, k, v, lse, **operands):
        """The attn.flash statement over q, k and v ((shape, element) each)
        with this case's masks, captures, sinks and score_mod, and the
        `operands` it names (write_flash_op's keywords), as attn writes it
        (write_flash_op: attn's one writer of attn.flash text)."""
        return write_flash_op()(
            q, k, v, self.dqk ** -0.5, causal="causal" in self.positional, window=self.window,
            bottom_right=self.bottom_right, transpose_k=self.transpose_k,
            captures=[(c[5], c[6]) for c in self.capture_list],
            sinks=(self.sinks_shape, "f32") if self.sinks else None,
            score_mod="\n".join(self.score_mod_lines) if self.score_mod_lines else None,
            return_lse=lse, **operands)

    def direct_flash(self):
        r = self.rng
        dt = self.dtype
        kshape = ([self.batch, self.hkv, self.dqk, self.skv] if self.transpose_k
                  else [self.batch, self.hkv, self.skv, self.dqk])
        operands = {}
        if self.key_padding:
            operands["lengths"] = ([self.batch], "i32")
        if self.keep:
            operands["keep"] = (self.keep, "i1")
        if self.bias:
            operands["bias"] = self.bias
        lse = r.random() < 0.4
        results = [tensor([self.batch, self.hq, self.sq, self.dv], dt)] + \
            ([tensor([self.batch, self.hq, self.sq], "f32")] if lse else [])
        names = "%o, %lse" if lse else "%o"
        self.forms = ["attn.flash" + (" with lse" if lse else "")]
        self.results = results
        self.unfused_ok = False
        if self.sinks:
            self.forms.append("sinks")
        line = self.flash_line(([self.batch, self.hq, self.sq, self.dqk], dt), (kshape, dt),
                               ([self.batch, self.hkv, self.skv, self.dv], dt), lse, **operands)
        return self.function([line], names, ", ".join(results))

    def serving_flash(self):
        """attn.flash on a ragged batch or a paged cache (no graph form)."""
        r = self.rng
        dt = self.dtype
        qshape, kshape, vshape, _, _ = self.serving_shapes()
        _, _, _, out, lse_type = self.serving_types()
        operands = {}
        if self.kind == "paged":
            operands["lengths"] = ([self.batch], "i32")
            if self.keep:
                operands["keep"] = (self.keep, "i1")
            if self.bias:
                operands["bias"] = self.bias
            operands["block_table"] = ([self.batch, self.per_sequence], "i32")
        if self.kind == "varlen":
            operands["cu_seqlens_q"] = operands["cu_seqlens_k"] = ([self.batch + 1], "i32")
        lse = r.random() < 0.5
        results = [out] + ([lse_type] if lse else [])
        names = "%o, %lse" if lse else "%o"
        self.forms = ["attn.flash" + (" with lse" if lse else "")] + \
            (["sinks"] if self.sinks else [])
        self.results = results
        line = self.flash_line((qshape, dt), (kshape, dt), (vshape, dt), lse, **operands)
        return self.function([line], names, ", ".join(results))

    def function(self, lines, result, result_types):
        body = "\n  ".join(l.replace("\n", "\n  ") for l in lines)
        types = result_types if "," not in result_types else f"({result_types})"
        return (f"func.func @graph{self.index}({', '.join(self.arguments())}) -> {types} {{\n"
                f"  {body}\n  return {result} : {result_types}\n}}\n")

    def run_lines(self):
        r = self.rng
        flags = []
        if r.random() < 0.3:
            flags.append("--variant=sm80")
        if r.random() < 0.15:
            flags.append(f"--splits={r.choice([1, 2, 3, 5])}")
        if r.random() < 0.15 and not self.transpose_k:
            flags.append("--layout=bshd")
        runs = [" ".join(["--check"] + flags)]
        if self.unfused_ok and len(self.capture_list) <= 3 and r.random() < 0.3 and \
                self.batch * self.hq * self.sq * self.skv <= 2 ** 21:
            runs.append("--check --unfused")
        return runs

    def serving_run_lines(self):
        """attn-run --check of a ragged batch or paged cache: the
        offsets, lengths and table attn-run draws, and (on a second line)
        the generator's own, with NaN where no sequence reads."""
        r = self.rng
        flags = []
        if r.random() < 0.3:
            flags.append("--variant=sm80")
        elif r.random() < 0.2 and self.dqk % 64 == 0 and self.dv % 64 == 0 and \
                not (self.kind == "paged" and max(self.dqk, self.dv) > 128):
            # (sm90 has no tiles for a paged cache at head dim 256: a clear
            # Unsupported error.)
            flags.append("--variant=sm90")
        if r.random() < 0.25:
            flags.append(f"--splits={r.choice([1, 2, 3, 5])}")
        runs = [" ".join(["--check"] + flags)]
        if r.random() < 0.5:
            return runs
        given = ["--check", "--poison-padding"]
        if self.kind == "varlen":
            # Sorted cut points, some sequences empty; now and then offsets
            # past either end (clamped to the packed tensors).
            for name, total in (("cq", self.sq), ("ck", self.skv)):
                cuts = sorted(r.randint(0, total) for _ in range(self.batch - 1))
                first, last = 0, total
                if r.random() < 0.15:
                    first, last = -r.randint(1, 20), total + r.randint(1, 100)
                values = [first] + cuts + [last]
                given.append(f"--set-input={self.argument_index(name)}:" +
                             ",".join(map(str, values)))
        else:
            # Lengths from none to every key of the table; the table a
            # shuffled set of the cache's pages, now and then with entries
            # past either end (clamped to the cache).
            lengths = [r.choice([0, 1, self.skv, r.randint(1, self.skv)])
                       for _ in range(self.batch)]
            table = r.sample(range(self.pages), self.batch * self.per_sequence)
            if r.random() < 0.15:
                table[r.randrange(len(table))] = r.choice([-1, self.pages, 2147483647])
            given.append(f"--set-input={self.argument_index('len')}:" +
                         ",".join(map(str, lengths)))
            given.append(f"--set-input={self.argument_index('table')}:" +
                         ",".join(map(str, table)))
        runs.append(" ".join(given + flags))
        return runs

    def backward_run(self, rng):
        """attn-run --backward --check of a dense attention where the
        backward has kernels, and how many outputs the training step has;
        or None. No backward kernel reads a transposed k; head dims that
        are not both multiples of 32 and sum to more than 320 leave the
        sm80 backward no tiles within its registers, and the sm90 ones
        need multiples of 64 (lib/Variants/KernelVariants.cpp)."""
        if self.kind not in ("dense", "sinks") or self.transpose_k:
            return None
        if self.dqk + self.dv > 320 and (self.dqk % 32 or self.dv % 32):
            return None
        # A score_mod op whose derivative is unbounded where scores fall
        # (cbrt and sqrt at 0, acosh at 1, atan2 at the origin, divf, remf
        # and powf near a zero divisor or base) turns the f32 rounding of a
        # score near there into any error in dq and dk (seed 1206104 case
        # 68: tanh(cbrt(s)), 5% off): no check of the kernels.
        if self.score_mod_lines and any(op in line for line in self.score_mod_lines
                                        for op in SINGULAR_DERIVATIVE):
            return None
        flags = ["--backward", "--check"]
        outputs = len(self.results) + 3
        score = [self.batch, self.hq, self.sq, self.skv]
        # A bias broadcast over the keys shifts a whole row, which the
        # softmax ignores: its gradient, a sum over the keys, is 0 (or, with
        # sinks, the sink's probability times D, a difference of larger
        # terms), which no relative error can judge.
        if self.bias and self.bias[0][3] == self.skv and rng.random() < 0.5:
            flags.append("--bias-grad")
            outputs += 1
        # The deterministic mode cannot sum a broadcast bias's gradient
        # (a clear Unsupported error, test/GPU/backward).
        broadcast = self.bias and any(b != d for b, d in zip(self.bias[0], score))
        if rng.random() < 0.3 and not ("--bias-grad" in flags and broadcast):
            flags.append("--deterministic")
        # The sinks' gradient comes last.
        if self.sinks:
            outputs += 1
        return " ".join(flags), outputs

    def describe(self):
        if self.kind == "varlen":
            return ", ".join([f"{self.dtype}", f"ragged batch of {self.batch} sequences",
                              f"Tq={self.sq}", f"Tk={self.skv}", f"Hq={self.hq}",
                              f"Hkv={self.hkv}", f"D={self.dqk}/{self.dv}"] +
                             self.mask_parts() + self.forms)
        if self.kind == "paged":
            return ", ".join([f"{self.dtype}", f"paged cache of {self.pages} pages of "
                              f"{self.page} keys, {self.per_sequence} per sequence",
                              f"B={self.batch}", f"Hq={self.hq}", f"Hkv={self.hkv}",
                              f"Sq={self.sq}", f"D={self.dqk}/{self.dv}"] +
                             self.mask_parts() + self.forms)
        parts = [f"{self.dtype}", f"B={self.batch}", f"Hq={self.hq}", f"Hkv={self.hkv}",
                 f"Sq={self.sq}", f"Skv={self.skv}", f"D={self.dqk}/{self.dv}"]
        if self.transpose_k:
            parts.append("K transposed")
        return ", ".join(parts + self.mask_parts() + self.forms)

    def mask_parts(self):
        """The masks, their operands and the score_mod, described."""
        parts = list(self.positional)
        if self.bottom_right:
            parts.append("bottom_right")
        if self.key_padding:
            parts.append("key_padding")
        if self.keep:
            parts.append("keep " + "x".join(map(str, self.keep)))
        if self.bias:
            parts.append(f"bias {'x'.join(map(str, self.bias[0]))} {self.bias[1]}")
        if self.score_mod_lines:
            parts.append(f"score_mod ({len(self.score_mod_lines)} ops, "
                         f"{len(self.capture_list)} captures)")
        return parts


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--case", type=int, action="append",
                        help="write only this case of the seed (repeatable): the "
                             "file --count would write for it, byte for byte")
    parser.add_argument("--serving", type=int,
                        help=f"serving cases (numbered from {SERVING}; default: "
                             "a quarter of --count)")
    parser.add_argument("--out", help="directory for the .mlir files")
    parser.add_argument("--check-table", action="store_true",
                        help="fail if the score_mod table has an op this generator cannot draw")
    args = parser.parse_args()

    rows = table_ops()
    if not rows:
        sys.exit(f"gen-graphs: no score_mod table rows found in {TABLE}")
    ops = set(name for name, _ in rows)
    unknown = sorted(ops - KNOWN)
    if args.check_table:
        if unknown:
            sys.exit("gen-graphs: the score_mod table has ops the generator cannot draw: " +
                     ", ".join(unknown))
        print(f"gen-graphs: all {len(ops)} ops of the score_mod table can be drawn")
        return
    if not args.out:
        parser.error("--out is required")
    predicates = {"arith.cmpi": [p for n, p in rows if n == "arith.cmpi"] or ["eq"],
                  "arith.cmpf": [p for n, p in rows if n == "arith.cmpf"] or ["oeq"]}
    os.makedirs(args.out, exist_ok=True)
    serving = args.count // 4 if args.serving is None else args.serving
    cases = args.case if args.case else \
        list(range(args.count)) + [SERVING + j for j in range(serving)]
    for i in cases:
        rng = random.Random(f"{args.seed}-{i}")
        case = Case(rng, ops, predicates, i)
        text = case.generate_serving() if i >= SERVING else case.generate()
        lines = [f"// REQUIRES: gpu",
                 f"// Generated by scripts/gen-graphs.py --seed {args.seed} (case {i}):",
                 f"// {case.describe()}"]
        runs = case.serving_run_lines() if case.kind in ("varlen", "paged") else case.run_lines()
        for run in runs:
            lines.append(f"// RUN: attn-run {run} %s | FileCheck %s")
        # Its own stream: the dense cases' other draws stay as they were.
        backward = case.backward_run(random.Random(f"{args.seed}-{i}-backward"))
        if backward:
            lines.append(f"// RUN: attn-run {backward[0]} %s | FileCheck %s --check-prefix=BWD")
        for k in range(len(case.results)):
            lines.append(f"// CHECK: check output {k} {{{{.*}}}} PASS")
        if backward:
            for k in range(backward[1]):
                lines.append(f"// BWD: check output {k} {{{{.*}}}} PASS")
        path = os.path.join(args.out, f"graph-{args.seed}-{i:04d}.mlir")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n" + text)
    print(f"gen-graphs: {len(cases)} graphs (seed {args.seed}) in {args.out}")


if __name__ == "__main__":
    main()
