#!/usr/bin/python3
"""Can Eq. 9 over a contextual Euclidean space rank like EASE^R? (quality notes, D67 and D68)

A measurement beside taglens, not part of it: a contextual embedding
CE(j|ctx) = MLP([e_j, mean over t in ctx of c_t]) trained end to end in the completion
protocol's situation (a held-out term h of a training document, ctx = the document without h,
every term outside ctx a candidate, scored by Eq. 9's minimum distance to ctx's terms, softmax
cross-entropy of h), evaluated on a corpus's validation documents under completion (MRR, hit
rate at 1) and under Eq. 9 (ctx = the whole document, a term never matched with itself, the
AP of Eq. 11 truncated at |doc| as taglens computes it). EASE^R's own score (Steck 2019) on
the same documents for reference, lambda on a grid.

Needs Debian's python3-torch and python3-numpy. Usage:
  python3 completion-upper-bound.py CORPUS [--data DIR] [--fixed 30] [--epochs 6] ...
(--sqdist, --temp, --hidden2, --opt sgd switch on taglens's own constraints one at a time, D68.)
DIR holds CORPUS/docs.tsv and CORPUS/split.tsv (default: $TAGLENS_DATA, else ../shared/data
beside the repository).
"""
import argparse, os, time
import numpy as np
import torch

p = argparse.ArgumentParser()
p.add_argument("corpus")
p.add_argument("--data", default=os.environ.get("TAGLENS_DATA", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "data")))
p.add_argument("--dim", type=int, default=50)
p.add_argument("--hid", type=int, default=200)
p.add_argument("--emb", type=int, default=100)
p.add_argument("--epochs", type=int, default=30)
p.add_argument("--batch", type=int, default=128)
p.add_argument("--lr", type=float, default=3e-3)
p.add_argument("--width", default="learned", choices=["none", "learned", "context"])
p.add_argument("--ctxmode", default="loo", choices=["loo", "full"])
p.add_argument("--seed", type=int, default=1)
p.add_argument("--maxval", type=int, default=300)
p.add_argument("--noease", action="store_true")
p.add_argument("--fixed", type=int, default=0)
p.add_argument("--wd", type=float, default=0)
p.add_argument("--neg", type=int, default=0)
p.add_argument("--ppe", type=int, default=20000)
p.add_argument("--tanhce", action="store_true")
p.add_argument("--opt", default="adam", choices=["adam", "sgd"], help="sgd: momentum 0.9, as taglens's stage 2")
p.add_argument("--sqdist", action="store_true", help="squared distances, as taglens's completion form")
p.add_argument("--temp", type=float, default=0, help="a fixed temperature T (logits -d/T), else a learned scale")
p.add_argument("--hidden2", type=int, default=0, help="a second hidden layer of this width")
a = p.parse_args()
torch.manual_seed(a.seed)
np.random.seed(a.seed)
torch.set_num_threads(1)

D = os.path.join(a.data, a.corpus)
docs = {}
for line in open(D + "/docs.tsv", encoding="utf-8"):
    f = line.rstrip("\n").split("\t")
    if f[0].startswith("#") or len(f) < 2:
        continue
    docs[f[0]] = list(dict.fromkeys(x for x in f[1:] if x))
sub = {}
for line in open(D + "/split.tsv", encoding="utf-8"):
    f = line.rstrip("\n").split("\t")
    if len(f) >= 2:
        sub[f[0]] = f[1]
train = [docs[k] for k in docs if sub.get(k) == "train"]
val = [docs[k] for k in docs if sub.get(k) in ("validation", "val", "valid")]
vocab = sorted({t for d in train for t in d})
ix = {t: i for i, t in enumerate(vocab)}
V = len(vocab)
tr = [[ix[t] for t in d] for d in train]
tr = [d for d in tr if len(d) >= 2]
va = [[ix[t] for t in d if t in ix] for d in val]
va = [d for d in va if len(d) >= 2]
rng = np.random.default_rng(a.seed)
if len(va) > a.maxval:
    va = [va[i] for i in sorted(rng.choice(len(va), a.maxval, replace=False))]
df = np.zeros(V)
for d in tr:
    df[d] += 1
print(f"{a.corpus}: V={V} train={len(tr)} val={len(va)} mean len {np.mean([len(d) for d in tr]):.1f}", flush=True)


def ap_trunc(ranks):
    ranks = sorted(ranks)
    n = len(ranks)
    hits = 0
    ap = 0.0
    for k in range(1, n + 1):
        while hits < n and ranks[hits] <= k:
            hits += 1
        ap += hits / k
    return ap / n


def rank_of(scores, idx, excl):
    # 1-based rank of idx by decreasing score among candidates not in excl; ties by index.
    s = scores[idx]
    better = scores > s
    tie = (scores == s) & (np.arange(len(scores)) < idx)
    m = better | tie
    m[list(excl)] = False
    return int(m.sum()) + 1


def evaluate(score_completion, score_extended):
    mrr = []
    hit = []
    for d in va:
        for h in d:
            ctx = [t for t in d if t != h]
            s = score_completion(ctx)
            r = rank_of(s, h, ctx)
            mrr.append(1 / r)
            hit.append(r == 1)
    aps = []
    for d in va:
        s = score_extended(d)  # V x ... : per-term score with members scored without themselves
        ranks = [rank_of(s, m, []) for m in d]
        aps.append(ap_trunc(ranks))
    return np.mean(aps), np.mean(mrr), np.mean(hit)


X = np.zeros((len(tr), V))
for i, d in enumerate(tr):
    X[i, d] = 1
G = X.T @ X
if not a.noease:
    best = None
    for lam in [0.5, 1, 5, 20, 100, 500, 2000]:
        P = np.linalg.inv(G + lam * np.eye(V))
        B = -P / np.diag(P)[None, :]
        np.fill_diagonal(B, 0)

        def sc(ctx):
            return B[ctx].sum(0)

        def se(d):
            s = B[d].sum(0)  # outsiders: every row; members: own row is 0 on the diagonal
            return s

        r = evaluate(sc, se)
        print(f"  ease-score lam={lam}: extended MAP {r[0]:.3f}  completion MRR {r[1]:.3f} hit1 {r[2]:.3f}", flush=True)
        if best is None or r[0] > best[0]:
            best = r
    print(f"EASE best by extended: {best[0]:.3f} / {best[1]:.3f} / {best[2]:.3f}", flush=True)


FIX = None
if a.fixed:
    # fixed term features: the leading components of the term rows of X (the term-document matrix),
    # rows scaled to unit length first, as the product's term features are built from term rows
    R = X.T / np.maximum(np.linalg.norm(X.T, axis=1, keepdims=True), 1e-12)
    U, S, Vt = np.linalg.svd(R - R.mean(0), full_matrices=False)
    F = U[:, : a.fixed] * S[: a.fixed]
    F = F / F.std(0)
    FIX = torch.tensor(F, dtype=torch.float32)


class Net(torch.nn.Module):
    def __init__(s):
        super().__init__()
        s.E = torch.nn.Embedding(V, a.emb)
        s.C = torch.nn.Embedding(V + 1, a.emb, padding_idx=V)
        if FIX is not None:
            a.emb = FIX.shape[1]
            s.E = torch.nn.Embedding.from_pretrained(FIX, freeze=True)
            s.C = torch.nn.Embedding.from_pretrained(torch.cat([FIX, torch.zeros(1, a.emb)]), freeze=True, padding_idx=V)
        s.l1 = torch.nn.Linear(2 * a.emb, a.hid)
        s.l2 = torch.nn.Linear(a.hid, a.dim)
        if a.hidden2:
            s.l2 = torch.nn.Sequential(torch.nn.Linear(a.hid, a.hidden2), torch.nn.Tanh(), torch.nn.Linear(a.hidden2, a.dim))
        s.w = torch.nn.Parameter(torch.zeros(V))
        s.cw = torch.nn.Linear(2 * a.emb, 1) if a.width == "context" else None
        s.temp = torch.nn.Parameter(torch.tensor(1.0))

    def ce(s, ctx, mask):
        # ctx: B x L (padded with V), mask B x L; returns CE of every term: B x V x dim, and log widths B x V
        c = s.C(ctx).sum(1) / mask.sum(1, keepdim=True)
        Bn = ctx.shape[0]
        x = torch.cat([s.E.weight.unsqueeze(0).expand(Bn, V, a.emb), c.unsqueeze(1).expand(Bn, V, a.emb)], 2)
        h = torch.tanh(s.l1(x))
        z = s.l2(h)
        if a.tanhce:
            z = torch.tanh(z)
        lw = torch.zeros(Bn, V)
        if a.width == "learned":
            lw = s.w.unsqueeze(0).expand(Bn, V)
        elif a.width == "context":
            lw = s.w.unsqueeze(0) + s.cw(x).squeeze(2)
        return z, lw

    def dist(s, ctx, mask):
        z, lw = s.ce(ctx, mask)
        safe = ctx.clamp(max=V - 1)
        zc = torch.gather(z, 1, safe.unsqueeze(2).expand(-1, -1, a.dim))  # B x L x dim
        d = torch.cdist(z, zc)  # B x V x L
        if a.sqdist:
            d = d * d
        return d, lw


def minscore(net, ctx, mask, self_excl=False):
    d, lw = net.dist(ctx, mask)
    big = torch.full_like(d, 1e9)
    d = torch.where(mask.unsqueeze(1) > 0, d, big)
    if self_excl:
        # a term of the context is never matched with itself
        eye = torch.zeros_like(d, dtype=torch.bool)
        safe = ctx.clamp(max=V - 1)
        eye.scatter_(1, safe.unsqueeze(1), mask.unsqueeze(1) > 0)
        d = torch.where(eye, big, d)
    m = d.min(2).values
    return m * torch.exp(-lw)


def pad(ctxs):
    L = max(len(c) for c in ctxs)
    t = torch.full((len(ctxs), L), V, dtype=torch.long)
    m = torch.zeros(len(ctxs), L)
    for i, c in enumerate(ctxs):
        t[i, : len(c)] = torch.tensor(c)
        m[i, : len(c)] = 1
    return t, m


net = Net()
params = [q for n, q in net.named_parameters() if q.requires_grad and not (a.temp and n == "temp")]
if a.opt == "sgd":
    opt = torch.optim.SGD(params, lr=a.lr, momentum=0.9, weight_decay=a.wd)
else:
    opt = torch.optim.AdamW(params, lr=a.lr, weight_decay=a.wd)
pairs = [(i, h) for i, d in enumerate(tr) for h in d]


def model_eval():
    net.eval()
    with torch.no_grad():
        def sc(ctx):
            t, m = pad([ctx])
            return -minscore(net, t, m)[0].numpy().astype(np.float64)

        def se(d):
            t, m = pad([d])
            return -minscore(net, t, m, self_excl=True)[0].numpy().astype(np.float64)

        r = evaluate(sc, se)
    net.train()
    return r


for ep in range(a.epochs):
    t0 = time.time()
    perm = rng.permutation(len(pairs))[: a.ppe]
    tot = 0.0
    for b in range(0, len(perm), a.batch):
        sel = [pairs[k] for k in perm[b : b + a.batch]]
        ctxs = [[t for t in tr[i] if t != h] for i, h in sel]
        tgt = torch.tensor([h for _, h in sel])
        t, m = pad(ctxs)
        s = minscore(net, t, m)
        logits = -s / a.temp if a.temp else -s * torch.exp(net.temp)
        # candidates: terms outside the context
        safe = t.clamp(max=V - 1)
        inctx = torch.zeros(len(sel), V, dtype=torch.bool)
        inctx.scatter_(1, safe, m > 0)
        logits = logits.masked_fill(inctx, -1e9)
        if a.neg:
            keep = torch.rand(len(sel), V) < a.neg / V
            keep[torch.arange(len(sel)), tgt] = True
            logits = logits.masked_fill(~keep, -1e9)
        loss = torch.nn.functional.cross_entropy(logits, tgt)
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item() * len(sel)
    r = model_eval()
    print(f"epoch {ep+1}: loss {tot/len(perm):.3f}  val extended MAP {r[0]:.3f}  completion MRR {r[1]:.3f} hit1 {r[2]:.3f}  ({time.time()-t0:.0f}s)", flush=True)
