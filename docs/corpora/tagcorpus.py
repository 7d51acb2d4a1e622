"""Helpers shared by the converters of docs/corpora (standard library only):
whitespace normalization, de-duplication, the document-frequency filter and the
seeded split that write docs.tsv and split.tsv, and the statistics table of
SOURCE.md. A converter imports them from beside itself (build.sh copies this
file next to each converted corpus's convert.py)."""
import os, random, re, statistics, sys, collections

OUT_ROOT = os.environ.get("CORPORA_OUT", ".")
_WS = re.compile(r"\s+")


def norm(tag, lower=False):
    """Collapse whitespace (incl. tabs/newlines), strip, optionally lower-case."""
    t = _WS.sub(" ", str(tag)).strip()
    return t.lower() if lower else t


def dedupe(tags):
    seen, out = set(), []
    for t in tags:
        if t and t not in seen:
            seen.add(t)
            out.append(t)
    return out


def finalize(name, docs, min_df=1, max_tags=None):
    """docs: list of (id, [tags]) already normalised.  Applies optional document-frequency
    filter, drops docs with < 2 tags, writes docs.tsv + split.tsv, returns stats dict."""
    docs = [(str(i), dedupe(ts)) for i, ts in docs]
    seen_ids = set()
    for i, _ in docs:
        if i in seen_ids:
            raise SystemExit("duplicate id %r" % i)
        seen_ids.add(i)
    raw_vocab = len({t for _, ts in docs for t in ts})
    if min_df > 1:
        df = collections.Counter(t for _, ts in docs for t in ts)
        docs = [(i, [t for t in ts if df[t] >= min_df]) for i, ts in docs]
    n_before = len(docs)
    docs = [(i, ts) for i, ts in docs if len(ts) >= 2]
    # after dropping docs the df of some tags may fall below min_df; iterate to a fixed point
    while min_df > 1:
        df = collections.Counter(t for _, ts in docs for t in ts)
        bad = {t for t, c in df.items() if c < min_df}
        if not bad:
            break
        docs = [(i, [t for t in ts if t not in bad]) for i, ts in docs]
        docs = [(i, ts) for i, ts in docs if len(ts) >= 2]
    out = os.path.join(OUT_ROOT, name)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "docs.tsv"), "w", encoding="utf-8", newline="\n") as f:
        for i, ts in docs:
            assert "\t" not in i and all("\t" not in t and "\n" not in t for t in ts)
            f.write(i + "\t" + "\t".join(ts) + "\n")
    # seeded split: 2/3 train, rest -> 300 valid + remaining test
    ids = [i for i, _ in docs]
    rng = random.Random(42)
    perm = ids[:]
    rng.shuffle(perm)
    n_train = round(len(perm) * 2 / 3)
    assign = {}
    for k, i in enumerate(perm):
        if k < n_train:
            assign[i] = "train"
        elif k < n_train + 300:
            assign[i] = "valid"
        else:
            assign[i] = "test"
    with open(os.path.join(out, "split.tsv"), "w", encoding="utf-8", newline="\n") as f:
        for i in ids:
            f.write(i + "\t" + assign[i] + "\n")
    lens = [len(ts) for _, ts in docs]
    vocab = collections.Counter(t for _, ts in docs for t in ts)
    stats = {
        "documents": len(docs),
        "documents_before_len_filter": n_before,
        "raw_vocab": raw_vocab,
        "distinct_tags": len(vocab),
        "mean_tags": statistics.mean(lens),
        "median_tags": statistics.median(lens),
        "min_tags": min(lens),
        "max_tags": max(lens),
        "split": collections.Counter(assign.values()),
        "singleton_tags": sum(1 for c in vocab.values() if c == 1),
        "top_tags": vocab.most_common(15),
        "docs_tsv_bytes": os.path.getsize(os.path.join(out, "docs.tsv")),
    }
    assert 2000 <= stats["documents"] <= 200000, stats["documents"]
    assert 50 <= stats["distinct_tags"] <= 30000, stats["distinct_tags"]
    assert stats["docs_tsv_bytes"] < 25 * 1024 * 1024
    return out, stats


def stats_md(s):
    return (
        "| measure | value |\n|---|---|\n"
        f"| documents | {s['documents']} |\n"
        f"| distinct tags | {s['distinct_tags']} |\n"
        f"| mean tags / doc | {s['mean_tags']:.2f} |\n"
        f"| median tags / doc | {s['median_tags']} |\n"
        f"| min / max tags / doc | {s['min_tags']} / {s['max_tags']} |\n"
        f"| tags occurring in only 1 doc | {s['singleton_tags']} |\n"
        f"| split train / valid / test | {s['split']['train']} / {s['split']['valid']} / {s['split']['test']} |\n"
        f"| docs.tsv size (bytes) | {s['docs_tsv_bytes']} |\n\n"
        "Most frequent tags: " + ", ".join(f"`{t}` ({c})" for t, c in s["top_tags"]) + "\n"
    )


def write_source_md(out, text):
    with open(os.path.join(out, "SOURCE.md"), "w", encoding="utf-8") as f:
        f.write(text)


def train_coverage(out):
    """The distinct tags of the training documents and of all documents."""
    split = dict(l.rstrip("\n").split("\t") for l in open(os.path.join(out, "split.tsv"), encoding="utf-8"))
    tr, allt = set(), set()
    for l in open(os.path.join(out, "docs.tsv"), encoding="utf-8"):
        f = l.rstrip("\n").split("\t")
        allt.update(f[1:])
        if split[f[0]] == "train":
            tr.update(f[1:])
    return len(tr), len(allt)


def source_tail(s, n_train_tags, n_tags):
    """The end of SOURCE.md every converter writes: the counts and how split.tsv is drawn."""
    return f"""Counts:

{stats_md(s)}
Tags occurring in train: {n_train_tags} of {n_tags}.

## split.tsv
Python 3 `random.Random(42)` shuffle of the doc ids in docs.tsv order; the first
round(2/3·N) are `train`, the next 300 `valid`, the rest `test` (as in github-topics and
movielens-small).
"""
