#!/usr/bin/env python3
"""Writes the fuzz seed corpus (fuzz/corpus/) from the .mlir files of test/
and examples/: each `// -----` chunk becomes one seed, without full-line
comments (RUN and CHECK lines, prose), named by a hash of its text so that
running it again only adds what is new. Run it after adding tests."""
import hashlib
import pathlib
import re

root = pathlib.Path(__file__).resolve().parent.parent
out = root / "fuzz" / "corpus"
out.mkdir(exist_ok=True)
written = set()
for folder in ("test", "examples"):
    for path in sorted((root / folder).rglob("*.mlir")):
        for chunk in re.split(r"^// -----.*$", path.read_text(), flags=re.M):
            lines = [l for l in chunk.splitlines() if not l.lstrip().startswith("//")]
            text = "\n".join(l for l in lines).strip() + "\n"
            if len(text) < 8:
                continue
            name = hashlib.sha1(text.encode()).hexdigest()[:16] + ".mlir"
            written.add(name)
            (out / name).write_text(text)
stale = [p for p in out.iterdir() if p.name not in written]
print(f"fuzz corpus: {len(written)} seeds in {out.relative_to(root)}"
      + (f" ({len(stale)} not from the current tests: kept)" if stale else ""))
