#!/usr/bin/python3
"""Converter: Debian edict 2021.02.03-1 (EDRDG EDICT Japanese-English dictionary) -> tag corpus (English glosses of Japanese words)."""
import collections, os, random, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # tagcorpus.py beside this file
from tagcorpus import dedupe, finalize, norm, source_tail, train_coverage, write_source_md  # noqa: E402


# ---- corpus-specific part ----
import hashlib, io, tarfile

NAME = "edict-glosses"
PACKAGE = "edict"
VERSION = "2021.02.03-1"
DEB = "edict_2021.02.03-1_all.deb"
DEB_SHA256 = "f1d50611cd5486d30a4bdd56447bcfa1ee5084da7909340f5da3e1abc0b97b3b"
MEMBER = "usr/share/edict/edict"
MIN_DF = 16

# EDICT/JMdict codes written in parentheses before a gloss: part of speech, usage/register
# ("misc"), subject field and dialect. A leading "(...)" group is removed only when every
# comma-separated item in it is one of these (or a sense number); otherwise it is English
# text belonging to the gloss, e.g. "(the) Japanese language", and is kept.
CODES = set("""
n n-adv n-suf n-pref n-t n-pr pn pref suf ctr num conj prt int exp aux aux-v aux-adj cop
cop-da unc adv adv-to
P uk uK arch abbr on-mim yoji obsc obs col sl id ok oK ik iK io ateji gikun rK eK ek proverb
hon hum pol sens derog vulg fam joc fem male dated hist litf net-sl m-sl poet quote rare chn
tradem X male-sl fem-sl child form euph
comp food math med ling sports sumo baseb astron physics chem biol law anat geol MA hanaf finc
bot mil archit shogi mahj Buddh Shinto Christn engr econ bus zool music physiol geom aviat
biochem genet phil vidg
""".split())
VERB_CODE = re.compile(r"^v(1(-s)?|2[a-z]-[ks]|4[a-z]|5[a-z]+(-[a-z])?|k|n|r|s(-[cis])?|t|i|z|unspec)$")
ADJ_CODE = re.compile(r"^adj-[a-z]+$")
DIALECT_CODE = re.compile(r"^[a-z]{2,4}:$")  # ksb: Kansai-ben, rkb: Ryuukyuu-ben, ...
LEAD = re.compile(r"^\s*(\(([^()]*)\)|\{([^{}]*)\})")


def is_code(item):
    item = item.strip()
    return (item in CODES or item.isdigit() or bool(VERB_CODE.match(item))
            or bool(ADJ_CODE.match(item)) or bool(DIALECT_CODE.match(item)))


def clean_gloss(field):
    """Strip leading code groups like "(n,vs) (1) (comp) " / "{comp}" from one gloss field."""
    while True:
        m = LEAD.match(field)
        if not m:
            break
        if m.group(3) is None and not all(is_code(x) for x in m.group(2).split(",")):
            break
        field = field[m.end():]
    return norm(field)


def read_ar_member(raw, wanted_prefix):
    """Return the bytes of the first ar member whose name starts with wanted_prefix."""
    if raw[:8] != b"!<arch>\n":
        raise SystemExit("not an ar archive")
    pos = 8
    while pos + 60 <= len(raw):
        hdr = raw[pos:pos + 60]
        name = hdr[:16].decode().strip().rstrip("/")
        size = int(hdr[48:58].decode().strip())
        data = raw[pos + 60:pos + 60 + size]
        pos += 60 + size + (size % 2)
        if name.startswith(wanted_prefix):
            return data
    raise SystemExit("no %s* member" % wanted_prefix)




def filtered_size(docs, k):
    """(documents, tags) left by the iterative min-df-k / >= 2 tags filter of finalize()."""
    d = docs
    while True:
        df = collections.Counter(t for _, ts in d for t in ts)
        d2 = [(i, [t for t in ts if df[t] >= k]) for i, ts in d]
        d2 = [(i, ts) for i, ts in d2 if len(ts) >= 2]
        if d2 == d:
            return len(d), len({t for _, ts in d for t in ts})
        d = d2


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else DEB
    raw = open(path, "rb").read()
    sha = hashlib.sha256(raw).hexdigest()
    if sha != DEB_SHA256:
        sys.stderr.write("warning: sha256 %s differs from the expected %s\n" % (sha, DEB_SHA256))
    with tarfile.open(fileobj=io.BytesIO(read_ar_member(raw, "data.tar")), mode="r:*") as tf:
        text = None
        for m in tf.getmembers():
            if m.isfile() and (m.name[2:] if m.name.startswith("./") else m.name) == MEMBER:
                text = tf.extractfile(m).read().decode("euc_jp")
        if text is None:
            raise SystemExit("no %s in %s" % (MEMBER, path))
    lines = text.split("\n")
    header = lines[0]
    docs, n_lines, n_merged, n_nogloss = [], 0, 0, 0
    prev = None
    for lineno, ln in enumerate(lines[1:], start=2):  # line 1 is the file header
        if not ln.strip():
            continue
        n_lines += 1
        head, sep, rest = ln.partition(" /")
        if not sep:
            raise SystemExit("line %d: no gloss part" % lineno)
        gl = [clean_gloss(f) for f in rest.rstrip("/").split("/")]
        gl = dedupe([g for g in gl if g])
        if not gl:
            n_nogloss += 1
            continue
        if prev is not None and gl == prev:
            # EDICT writes one line per headword/reading pair; consecutive lines with the
            # same glosses are one dictionary entry: kept once, under the first line's id
            n_merged += 1
            continue
        prev = gl
        docs.append(("edict-%06d" % lineno, gl))
    n_entries = len(docs)
    raw_df = collections.Counter(t for _, g in docs for t in g)
    n_once = sum(1 for v in raw_df.values() if v == 1)
    alt = [(k,) + filtered_size(docs, k) for k in (5, 10, 15, 20)]
    single = sum(1 for _, g in docs if len(g) == 1)
    out, s = finalize(NAME, docs, min_df=MIN_DF)
    n_train_tags, n_tags = train_coverage(out)
    n_verb = len({t for l in open(os.path.join(out, "docs.tsv"), encoding="utf-8")
                  for t in l.rstrip("\n").split("\t")[1:] if t.startswith("to ")})
    write_source_md(out, f"""# edict-glosses — Japanese dictionary entries as sets of English glosses

Domain: bilingual lexicon. Each document is one entry of EDICT, the Japanese-English
dictionary of the Electronic Dictionary Research and Development Group (EDRDG, J. W. Breen;
the JMdict project); its tags are the entry's English glosses (translations). A document is
thus a small set of English words or phrases that one Japanese word can mean: near-synonyms
(`edict-002557`: `fake`, `counterfeit`, `imitation`), or the several senses of a polysemous word
(`edict-002311`: `outline`, `summary`, `gist`, `roughly`, `about`, `nearly`, `almost`).

* Package: Debian 12 (bookworm) `main` package `{PACKAGE}` version `{VERSION}`, architecture
  `all`, file `{DEB}` ({len(raw)} bytes), SHA-256 `{DEB_SHA256}`
  (`apt-get download edict`).
* File inside the package: `{MEMBER}` (EDICT format, EUC-JP encoded, {n_lines} entry lines;
  header line: `{norm(header)[:90]}...`).
* Licence: Creative Commons Attribution-ShareAlike 3.0 (EDRDG General Dictionary Licence
  Statement, reproduced in the package's `usr/share/doc/edict/copyright`). Attribution to
  the EDRDG is required and copies or derived works must carry the same licence: keep this
  SOURCE.md beside any copy of `docs.tsv`.
* Converter: `convert.py [{DEB}]` (standard library only; reads the .deb directly: `ar`
  container, `data.tar.xz`; output goes to `$CORPORA_OUT/{NAME}/`, default `./{NAME}/`).

Processing:
* a line is `HEADWORD [READING] /gloss/gloss/.../`; the Japanese headword and reading are not
  used (they would be unique per document);
* codes written in parentheses before a gloss are removed: part of speech (`(n)`, `(v5r,vt)`,
  `(adj-na)`, ...), sense numbers (`(1)`, `(2)`), usage and field labels (`(uk)`, `(arch)`,
  `(comp)`, `(Buddh)`, ...), dialect labels (`(ksb:)`) and the common-word marker `(P)`; a
  leading parenthesis that is English text, e.g. `(the) Japanese language`, is kept as part of
  the gloss; parentheses inside or after a gloss are kept (`to eat (polite)` is its own tag);
* glosses keep their case (the source distinguishes `Japan` from common words, and
  abbreviations such as `DNS`); whitespace collapsed; duplicates within an entry removed;
  {n_nogloss} line(s) with no gloss left were skipped;
* EDICT repeats an entry on consecutive lines, one per spelling/reading (e.g. `〃 [おなじ]`
  and `〃 [おなじく]`); consecutive lines with the same gloss list are kept once
  ({n_merged} lines merged), giving {n_entries} documents;
* document id = `edict-` + the 1-based line number (6 digits) of the entry's first line in the
  file; documents in file order;
* {single} of the {n_entries} entries have a single gloss; the raw vocabulary is
  {s['raw_vocab']} distinct glosses, {n_once} of them used once (mostly multi-word phrases). Only
  glosses occurring in at least {MIN_DF} documents are kept (applied iteratively with the
  < 2 tags drop, the same rule as github-topics); {MIN_DF} is the smallest threshold that keeps
  the vocabulary under 1,000 tags (the same rule with other thresholds:
  {'; '.join(f'{k}: {a} documents, {b} tags' for k, a, b in alt)});
* entries with < 2 tags (after the frequency filter) dropped ({s['documents_before_len_filter'] - s['documents']} of
  {s['documents_before_len_filter']} dropped).
* Noise / bias: the glosses that survive the threshold are short, general English words:
  pronouns (`I`, `me`, `you`, many Japanese words for "I"), degree adverbs (`very`,
  `completely`, `extremely`), common adjectives and nouns, and {n_verb} verb phrases (`to get`,
  `to understand`, ...); specialised vocabulary (science, names, phrases) is filtered out. Tags
  of one document are translations of one Japanese word, so they mix near-synonyms with the
  unrelated senses of polysemous words. Dictionary snapshot of February 2021.

{source_tail(s, n_train_tags, n_tags)}""")
    print(NAME, {k: v for k, v in s.items() if k != "top_tags"}, "train tags", n_train_tags)


if __name__ == "__main__":
    main()
