#!/usr/bin/python3
"""Converter: npm name-suggestion-index 8.0.20260918 (dist/json/nsi.json) -> tag corpus (OpenStreetMap feature tags of brands/operators)."""
import collections, os, random, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # tagcorpus.py beside this file
from tagcorpus import dedupe, finalize, norm, source_tail, train_coverage, write_source_md  # noqa: E402


# ---- corpus-specific part ----
import hashlib, io, json, tarfile

NAME = "osm-name-suggestions"
PACKAGE = "name-suggestion-index"
VERSION = "8.0.20260918"
TARBALL = "name-suggestion-index-8.0.20260918.tgz"
TARBALL_SHA256 = "3ee22f0f0a99528ac9c65a57211575defd968e21fd6374e746bfd02e94422121"
MEMBER = "package/dist/json/nsi.json"
MIN_DF = 5
# keys whose values are names or identifiers of the particular brand/operator/network/flag
# (or translations of them), not a kind of map feature; dropped.
NAME_KEY = re.compile(
    r"^(name|brand|operator|network|official_name|short_name|alt_name|old_name|loc_name|"
    r"int_name|reg_name|nat_name|flag:name|subject|ref|website|email|phone|contact|"
    r"description|note|fixme|owner|country|wikipedia|wikidata|not:brand|not:operator|"
    r"not:network|not:name|species|genus|taxon|royal_cypher)(:.*)?$")
TYPE_KEYS = {"operator:type", "network:type", "flag:type"}  # kinds, not names: kept


def is_name_key(k):
    if k in TYPE_KEYS:
        return False
    return bool(NAME_KEY.match(k)) or k.endswith(":wikidata") or k.endswith(":wikipedia")




def main():
    path = sys.argv[1] if len(sys.argv) > 1 else TARBALL
    raw = open(path, "rb").read()
    sha = hashlib.sha256(raw).hexdigest()
    if sha != TARBALL_SHA256:
        sys.stderr.write("warning: sha256 %s differs from the expected %s\n" % (sha, TARBALL_SHA256))
    with tarfile.open(fileobj=io.BytesIO(raw), mode="r:gz") as tf:
        nsi = json.load(tf.extractfile(MEMBER))
    meta = nsi["_meta"]
    docs, n_items, n_name_tags, n_split = [], 0, 0, 0
    trees = collections.Counter()
    for cat_path, cat in nsi["nsi"].items():  # file order
        for it in cat["items"]:  # file order
            n_items += 1
            trees[cat_path.split("/")[0]] += 1
            ts = []
            for k, v in it["tags"].items():
                if is_name_key(k):
                    n_name_tags += 1
                    continue
                k = norm(k)
                vals = [norm(x) for x in str(v).split(";")]
                if len(vals) > 1:
                    n_split += 1
                ts.extend(k + "=" + x for x in vals if x)
            docs.append((it["id"], ts))
    n_nonempty = sum(1 for _, ts in docs if ts)
    n_single = sum(1 for _, ts in docs if len(dedupe(ts)) == 1)
    raw_df = collections.Counter(t for _, ts in docs for t in dedupe(ts))
    n_rare2 = sum(1 for c in raw_df.values() if c <= 2)
    n_rare5 = sum(1 for c in raw_df.values() if c < MIN_DF)
    out, s = finalize(NAME, docs, min_df=MIN_DF)
    n_train_tags, n_tags = train_coverage(out)
    keys = collections.Counter()
    for l in open(os.path.join(out, "docs.tsv"), encoding="utf-8"):
        for t in l.rstrip("\n").split("\t")[1:]:
            keys[t.split("=", 1)[0]] += 1
    write_source_md(out, f"""# osm-name-suggestions — brands, operators, transit networks and flags as sets of OpenStreetMap tags

Domain: maps / points of interest. Each document is one entry of the OpenStreetMap
*name-suggestion-index* (NSI), the curated list that the iD and JOSM map editors use to
suggest the canonical tagging for a chain store, restaurant brand, utility operator, transit
network or flag (e.g. a burger chain, a power-grid operator, a bus network). Its tags are the
OpenStreetMap `key=value` tags the index prescribes for that entry, with the name/identity
tags removed, so what is left says *what kind of feature* it is: `amenity=fast_food`,
`cuisine=burger`, `takeaway=yes`, `power=line`, `operator:type=public`, `shop=supermarket`, ...

* Package: npm `{PACKAGE}` version `{VERSION}` (`{meta.get('generated', '')}` build),
  tarball `{TARBALL}` ({len(raw)} bytes),
  sha256 `{TARBALL_SHA256}`
  (registry `https://registry.npmjs.org/{PACKAGE}/-/{TARBALL}`).
* File inside the tarball: `{MEMBER}` (`nsi` object: {len(nsi['nsi'])} category paths such as
  `brands/amenity/fast_food`, {n_items} items; each item has an `id` and a `tags` object).
* Upstream: https://github.com/osmlab/name-suggestion-index (data curated by OpenStreetMap
  contributors; brand/operator Wikidata links).
* Licence: BSD-3-Clause (`LICENSE.md` in the package: "Copyright 2026, name-suggestion-index
  contributors"). Permissive; keep the copyright notice with copies.
* Converter: `convert.py [{TARBALL}]` (standard library only; reads the .tgz directly; output
  goes to `$CORPORA_OUT/{NAME}/`, default `./{NAME}/`).

Processing:
* document id = NSI item `id` (unique; e.g. `mcdonalds-d35a75`: `amenity=fast_food`,
  `cuisine=burger`, `takeaway=yes`); documents in file order
  (category paths, then items, as in `nsi.json`); items per tree: {', '.join(f'{k} {v}' for k, v in sorted(trees.items()))};
* dropped as names/identifiers, not kinds of feature ({n_name_tags} key/value pairs): the keys
  `name`, `brand`, `operator`, `network`, `official_name`, `short_name`, `alt_name`,
  `old_name`, `loc_name`, `int_name`, `reg_name`, `nat_name`, `flag:name`, `subject`, `ref`,
  `website`, `email`, `phone`, `contact`, `description`, `note`, `fixme`, `owner`, `country`,
  `wikipedia`, `wikidata`, `not:brand`, `not:operator`, `not:network`, `not:name`, `species`,
  `genus`, `taxon`, `royal_cypher`, every subkey of these (`brand:en`, `operator:short`, ...)
  and every key ending in `:wikidata` or `:wikipedia`; the type keys `operator:type`,
  `network:type`, `flag:type` are kept;
* a tag is the string `key=value`, case kept (OpenStreetMap keys and values are
  case-sensitive), whitespace collapsed; OpenStreetMap multi-values separated by `;` are split
  into one tag each (`cuisine=burger;breakfast` -> `cuisine=burger`, `cuisine=breakfast`; {n_split}
  such values); duplicates within a document removed;
* {n_nonempty} of the {n_items} items keep at least one tag (their main feature tag), but
  {n_single} keep only that one (e.g. a bank brand is just `amenity=bank` once its names are
  removed);
* raw vocabulary is {s['raw_vocab']} tags, {n_rare2} of them used by only 1-2 items and {n_rare5}
  by fewer than {MIN_DF} (opening hours, frequencies, Wi-Fi names, rare cuisines, ...), so only
  tags occurring in at least {MIN_DF} documents are kept
  (applied iteratively with the < 2 tags drop, the same rule as github-topics); the threshold puts
  the vocabulary in the few-hundred range;
* items with < 2 tags (after the frequency filter) dropped ({s['documents_before_len_filter'] - s['documents']} of the
  {s['documents_before_len_filter']} items dropped, nearly all single-tag items).
* Noise / bias: documents are short and regular: the category path fixes the main tag
  (`amenity=*`, `shop=*`, `power=*`, ...), and the second tag is often `operator:type=*` or
  `cuisine=*`; many items of one category (e.g. all bank brands) have identical tag sets.
  Tag keys in the corpus by frequency: {', '.join(f'`{k}` ({c})' for k, c in keys.most_common(12))}.

{source_tail(s, n_train_tags, n_tags)}""")
    print(NAME, {k: v for k, v in s.items() if k != "top_tags"}, "train tags", n_train_tags)


if __name__ == "__main__":
    main()
