#!/usr/bin/python3
"""Side-by-side comparison of `taglens tsne` with scikit-learn's Barnes-Hut TSNE.

Both get identical input: Gaussian blobs (scikit-learn make_blobs: 12 centres,
cluster_std 2.5, 50 features, random_state 1) written to a TSV file that the Go
binary reads. Prints wall and CPU time, speed-up, and trustworthiness at k = 10 of both
embeddings (sklearn.manifold.trustworthiness for n <= 5000; a chunked
implementation of the same formula above that, checked against sklearn's at
n = 2000 on every run), plus the load average before and after each run.

Usage (Debian python3-sklearn, i.e. /usr/bin/python3):
  go build -o /tmp/taglens ./cmd/taglens
  /usr/bin/python3 tsne/testdata/compare.py --taglens /tmp/taglens --n 5000 20000
  /usr/bin/python3 tsne/testdata/compare.py --taglens /tmp/taglens --n 70000 --skip-sklearn
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
import sklearn
from sklearn.datasets import make_blobs
from sklearn.manifold import TSNE, trustworthiness
from sklearn.neighbors import NearestNeighbors


def trust_chunked(X, Y, k=10, chunk=500):
    """Trustworthiness (Venna & Kaski 2001) as in sklearn, without n x n arrays:
    T = 1 - 2/(n k (2n - 3k - 1)) * sum_i sum_{j in NN_k^Y(i)} max(0, r(i, j) - k),
    r(i, j) the rank of j among the input-space neighbours of i (self excluded)."""
    n = X.shape[0]
    nbr = NearestNeighbors(n_neighbors=k).fit(Y).kneighbors(return_distance=False)
    sq = (X * X).sum(1)
    total = 0.0
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        d = sq[lo:hi, None] + sq[None, :] - 2.0 * X[lo:hi] @ X.T
        d[np.arange(hi - lo), np.arange(lo, hi)] = np.inf
        dj = np.take_along_axis(d, nbr[lo:hi], axis=1)  # (c, k)
        # rank = 1 + number of points strictly closer than j
        ranks = 1 + (d[:, :, None] < dj[:, None, :]).sum(1)
        total += np.maximum(ranks - k, 0).sum()
    return 1.0 - total * 2.0 / (n * k * (2.0 * n - 3.0 * k - 1.0))


def trust(X, Y):
    if X.shape[0] <= 5000:
        return trustworthiness(X, Y, n_neighbors=10)
    return trust_chunked(X, Y)


def load():
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--taglens", required=True)
    ap.add_argument("--n", type=int, nargs="+", default=[5000, 20000])
    ap.add_argument("--method", default="auto")
    ap.add_argument("--skip-sklearn", action="store_true")
    a = ap.parse_args()
    print(f"sklearn {sklearn.__version__}, numpy {np.__version__}, cpus {os.cpu_count()}")

    # The chunked trustworthiness agrees with sklearn's.
    Xc, _ = make_blobs(n_samples=2000, n_features=50, centers=12, cluster_std=2.5, random_state=2)
    Yc = Xc[:, :2] + 0.5 * np.random.default_rng(0).standard_normal((2000, 2))
    t1, t2 = trustworthiness(Xc, Yc, n_neighbors=10), trust_chunked(Xc, Yc)
    assert abs(t1 - t2) < 1e-9, (t1, t2)

    tmp = tempfile.mkdtemp(prefix="tsne-compare-")
    for n in a.n:
        X, _ = make_blobs(n_samples=n, n_features=50, centers=12, cluster_std=2.5, random_state=1)
        xin = os.path.join(tmp, f"x{n}.tsv")
        np.savetxt(xin, X, delimiter="\t", fmt="%.17g")
        X = np.loadtxt(xin, delimiter="\t")  # exactly what the Go side reads
        row = {"n": n}
        if not a.skip_sklearn:
            l0 = load()
            r0 = resource.getrusage(resource.RUSAGE_SELF)
            t = time.time()
            Ysk = TSNE(n_components=2, perplexity=30, n_iter=1000, init="pca", learning_rate="auto",
                       method="barnes_hut", angle=0.5, n_jobs=2, random_state=1).fit_transform(X)
            row["sklearn_s"] = time.time() - t
            r1 = resource.getrusage(resource.RUSAGE_SELF)
            row["sklearn_cpu_s"] = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
            row["sklearn_load"] = f"{l0} -> {load()}"
        yout = os.path.join(tmp, f"y{n}.tsv")
        l0 = load()
        t = time.time()
        cmd = ["/usr/bin/time", "-f", "%U %S %M", a.taglens, "tsne", "--in", xin, "--out", yout,
               "--perplexity", "30", "--iters", "1000", "--seed", "1", "--method", a.method, "--json"]
        p = subprocess.run(cmd, capture_output=True, text=True)
        row["go_s"] = time.time() - t
        if p.returncode != 0:
            sys.exit(p.stderr)
        row["go_load"] = f"{l0} -> {load()}"
        rep = json.loads(p.stdout)
        row["go_method"], row["go_kl"], row["go_inner_s"] = rep["method"], rep["kl"], rep["seconds"]
        u, s_, rss = p.stderr.strip().splitlines()[-1].split()
        row["go_cpu_s"] = float(u) + float(s_)
        row["go_peak_rss_mb"] = int(rss) / 1024
        Ygo = np.loadtxt(yout, delimiter="\t")
        row["go_trust"] = trust(X, Ygo)
        if not a.skip_sklearn:
            row["sklearn_trust"] = trust(X, Ysk)
            row["speedup"] = row["sklearn_s"] / row["go_s"]
            row["cpu_ratio"] = row["sklearn_cpu_s"] / row["go_cpu_s"]
            row["trust_diff"] = row["go_trust"] - row["sklearn_trust"]
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
