#!/usr/bin/env python3
"""Turns runs of the `scale` benchmark (JSON lines, crates/bench/benches/scale.rs) and of its
rivals (scripts/bench_wasm.mjs: the same run in headless Chromium), with the page's size
(scripts/bench_page.mjs), into BENCHMARKS.md and an SVG plot. Standard library only; every
figure comes from a run.

    bench_report.py NEW.jsonl ALL.jsonl BENCHMARKS.md docs/bench.svg

A run may measure only some shapes (`./x bench 1000x30000`), so the rows of NEW replace the
rows of ALL with the same shape (a cluster's nodes × pods, the ledger's puts, keys and watchers,
the fan-out's watchers and kind) and the other rows of ALL stay; each row carries the commit and
date of the run that measured it. ALL is rewritten, then the page and the plot from it; docs/bench-comparisons.md (paired
comparisons of a change against the commit before it, written by hand from paired
whole-process runs) is appended to the page.
"""

import json
import math
import os
import platform
import subprocess
import sys
from datetime import datetime, timezone


def load(path):
    rows = []
    if not os.path.exists(path):
        return rows
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    return rows


def runtime(row):
    """Where a row ran: `native` (benches/scale.rs; rows without the field), `wasm` (the same
    run in headless Chromium, scripts/bench_wasm.mjs) or a rival (`etcd`, `webernetes`)."""
    return row.get("runtime", "native")


def timings(row):
    """The engine profile a cluster row ran with: `training` (the playground's timings; every
    wasm and rival comparison) or `kubernetes` (the real defaults); rows without the field are
    `training`. (A row's `profile` is the cargo profile it was built with.)"""
    return row.get("timings", "training")


def native_cluster(row):
    """A native whole-cluster row with the `training` profile: the one the other runs compare with."""
    return row["bench"] == "cluster" and runtime(row) == "native" and timings(row) == "training"


def shape(row):
    """What a row measures, apart from its figures: a new row replaces the old one of its shape."""
    b = row["bench"]
    if b == "cluster":
        return (b, row["nodes"], row["pods"], runtime(row), timings(row))
    if b == "cluster_ha":
        return (b, row["nodes"], row["pods"], timings(row), row["apiservers"],
                row["controller_replicas"])
    if b == "ledger":
        return (b, row["puts"], row["keys"], row["watchers"], runtime(row))
    if b == "fanout":
        return (b, row["watchers"], row["selective"])
    if b == "daemonset":
        return (b, row["nodes"])
    return (b,)  # one row of its kind (the page: each run's build replaces the last)


def order(row):
    """Cluster rows by size, then the ledger's and the fan-out's by their parameters, then the
    page's size."""
    b = row["bench"]
    rank = {"cluster": 0, "cluster_ha": 0.5, "daemonset": 1, "ledger": 2, "fanout": 3,
            "page": 5}.get(b, 4)
    if b == "cluster":
        return (rank, row["pods"], row["nodes"], runtime(row), timings(row))
    if b == "cluster_ha":
        return (rank, row["pods"], row["nodes"], timings(row), row["apiservers"],
                row["controller_replicas"])
    if b == "ledger":
        return (rank, row["puts"], row["keys"], row["watchers"], runtime(row))
    if b == "fanout":
        return (rank, row["watchers"], not row["selective"])
    if b == "daemonset":
        return (rank, row["nodes"])
    return (rank,)


def merge(old, new):
    """The rows of `new` (stamped with the run's commit, date, cores and profile) replacing
    those of `old` with the same shape; `meta` lines are folded into the rows."""
    meta = next((r for r in new if r["bench"] == "meta"), {})
    stamp = {
        "commit": git_commit(),
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cores": meta.get("cores"),
        "profile": meta.get("profile"),
        "smoke": meta.get("smoke", False),
    }
    rows = {shape(r): r for r in old if r["bench"] != "meta"}
    for r in new:
        if r["bench"] != "meta":
            rows[shape(r)] = {**r, **stamp}
    return sorted(rows.values(), key=order)


def save(rows, path):
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")


def fmt_int(n):
    return f"{n:,}"


def fmt_size(row):
    """A cluster row's shape: `1,000 × 30,000` (nodes × pods)."""
    return f"{fmt_int(row['nodes'])} × {fmt_int(row['pods'])}"


def fmt_secs(s):
    return f"{s:.2f} s" if s >= 0.1 else f"{s * 1000:.1f} ms"


def fmt_bytes(b):
    if b >= 1 << 30:
        return f"{b / (1 << 30):.2f} GiB"
    if b >= 1 << 20:
        return f"{b / (1 << 20):.0f} MiB"
    return f"{b / 1024:.0f} KiB"


def git_commit():
    """HEAD's short id, with `+` when tracked files other than the report differ from it."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
             ":!BENCHMARKS.md", ":!docs"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
        return head + ("+" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def svg_panel(x0, y0, w, h, title, xlabel, ylabel, series):
    """One log-log panel; series = [(name, colour, [(x, y), ...])]."""
    points = [p for _, _, pts in series for p in pts if p[0] > 0 and p[1] > 0]
    out = [f'<g transform="translate({x0},{y0})">']
    out.append(f'<text x="{w / 2}" y="-12" text-anchor="middle" font-weight="bold">{title}</text>')
    out.append(f'<rect x="0" y="0" width="{w}" height="{h}" fill="none" stroke="#888"/>')
    if not points:
        out.append("</g>")
        return out
    lx = [math.log10(p[0]) for p in points]
    ly = [math.log10(p[1]) for p in points]
    xmin, xmax = math.floor(min(lx)), math.ceil(max(lx))
    ymin, ymax = math.floor(min(ly)), math.ceil(max(ly))
    if xmax == xmin:
        xmax += 1
    if ymax == ymin:
        ymax += 1

    def px(x):
        return (math.log10(x) - xmin) / (xmax - xmin) * w

    def py(y):
        return h - (math.log10(y) - ymin) / (ymax - ymin) * h

    for d in range(xmin, xmax + 1):
        x = (d - xmin) / (xmax - xmin) * w
        out.append(f'<line x1="{x:.1f}" y1="0" x2="{x:.1f}" y2="{h}" stroke="#eee"/>')
        out.append(f'<text x="{x:.1f}" y="{h + 16}" text-anchor="middle">{fmt_int(10 ** d)}</text>')
    for d in range(ymin, ymax + 1):
        y = h - (d - ymin) / (ymax - ymin) * h
        label = f"{10.0 ** d:g}"
        out.append(f'<line x1="0" y1="{y:.1f}" x2="{w}" y2="{y:.1f}" stroke="#eee"/>')
        out.append(f'<text x="-6" y="{y + 4:.1f}" text-anchor="end">{label}</text>')
    out.append(f'<text x="{w / 2}" y="{h + 36}" text-anchor="middle">{xlabel}</text>')
    out.append(
        f'<text transform="translate(-48,{h / 2}) rotate(-90)" text-anchor="middle">{ylabel}</text>'
    )
    for i, (name, colour, pts) in enumerate(series):
        pts = [p for p in pts if p[0] > 0 and p[1] > 0]
        if not pts:
            continue
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for x, y in pts:
            out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{colour}"/>')
        out.append(f'<rect x="10" y="{10 + i * 18}" width="12" height="3" fill="{colour}"/>')
        out.append(f'<text x="28" y="{16 + i * 18}">{name}</text>')
    out.append("</g>")
    return out


def write_svg(rows, path):
    clusters = [r for r in rows if native_cluster(r) and r.get("converged")]
    wasm = [r for r in rows if r["bench"] == "cluster" and r.get("converged")
            and runtime(r) == "wasm"]
    fanout = [r for r in rows if r["bench"] == "fanout"]
    width, height = 980, 380
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
    ]
    out += svg_panel(
        80, 40, 360, 280, "Whole cluster: cost per pod", "pods (one Deployment)", "per pod",
        [
            ("µs of CPU time", "#1f77b4", [(r["pods"], r["us_per_pod"]) for r in clusters]),
            ("KiB of peak heap", "#d62728",
             [(r["pods"], r["bytes_per_pod"] / 1024) for r in clusters]),
            ("wasm: µs of wall time", "#9467bd", [(r["pods"], r["us_per_pod"]) for r in wasm]),
            ("wasm: KiB of linear memory", "#8c564b",
             [(r["pods"], r["bytes_per_pod"] / 1024) for r in wasm]),
        ],
    )
    out += svg_panel(
        580, 40, 360, 280, "Watch fan-out: cost per write", "watchers", "µs per pod write",
        [
            ("selective (spec.nodeName=)", "#2ca02c",
             [(r["watchers"], r["us_per_write"]) for r in fanout if r["selective"]]),
            ("all-matching", "#ff7f0e",
             [(r["watchers"], r["us_per_write"]) for r in fanout if not r["selective"]]),
        ],
    )
    out.append("</svg>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


def runs(rows):
    """The runs the rows come from, oldest first: "`abc1234` (date, 2 cores, bench profile)"."""
    seen = {}
    for r in rows:
        key = (r.get("date", "?"), r.get("commit", "?"))
        seen[key] = (
            f"`{r.get('commit', '?')}` ({r.get('date', '?')}, {r.get('cores') or '?'} cores, "
            + (f"`{r['profile']}` profile" if r.get("profile")
             # A run of a rival alone (Webernetes in Node) builds nothing with cargo.
             else f"Node {r.get('node_version', '?')}")
            + (", **smoke run**: tiny sizes, for CI" if r.get("smoke") else "")
            + ")"
        )
    return [seen[k] for k in sorted(seen)]


def row(*cells):
    """One Markdown table row (an empty cell as `| |`)."""
    return "|" + "|".join(f" {c} " if c else " " for c in cells) + "|"


def table(*columns):
    """A Markdown table's header and separator rows."""
    return [row(*columns), row(*["---"] * len(columns))]


def note_row(text, cells, last=""):
    """A row of `cells` cells saying `text` in the first (which may span several: "a | b")
    and `last` in the last, the others empty."""
    return row(text, *[""] * (cells - 2), last)


def ratio(a, b):
    """`a / b` as "1.8×", or "–" when either side is missing."""
    if not a or not b:
        return "–"
    return f"{a / b:.1f}×" if a / b >= 1 else f"{a / b:.2f}×"


def fmt_steady(row):
    """CPU per virtual second of a row's steady state, or – for rows measured before it was."""
    ms = row.get("steady_ms_per_virtual_second")
    return "–" if ms is None else f"{ms:.1f} ms"


def kubernetes_section(rows):
    """The native whole cluster with the real Kubernetes defaults beside the `Training` rows."""
    training = {shape(r)[:3]: r for r in rows if native_cluster(r)}
    real = [r for r in rows if r["bench"] == "cluster" and runtime(r) == "native"
            and timings(r) == "kubernetes"]
    lines = [
        "",
        "## Whole cluster with Kubernetes' own timings",
        "",
        "The same run with the engine's `Kubernetes` profile: the real v1.32 defaults (node leases",
        "of 40 s renewed every 10 s, node status every 10 s and reported every 5 minutes, grace",
        "period 50 s, tolerations 300 s; the `Training` profile renews every 2.5 s). The work to",
        "converge is the same but for the lease renewals, so the steady state is where they differ.",
        "",
        *table("nodes × pods", "CPU", "per pod", "virtual time", "peak heap", "revisions",
               "steady state", "Training: CPU", "Training: steady state", "commit"),
    ]
    if not real:
        lines.append(note_row("not measured yet (`./x bench native`)", 10))
    for r in real:
        t = training.get(shape(r)[:3], {})
        size = fmt_size(r)
        if not r.get("converged"):
            lines.append(note_row(f"{size} | did not converge in an hour of virtual time", 9,
                                  f"`{r.get('commit', '?')}`"))
            continue
        lines.append(
            f"| {size} | {fmt_secs(r['cpu_seconds'])} | {r['us_per_pod']:.0f} µs "
            f"| {r['virtual_seconds']} s | {fmt_bytes(r['peak_bytes'])} | {fmt_int(r['revision'])} "
            f"| {fmt_steady(r)} "
            f"| {fmt_secs(t['cpu_seconds']) if t.get('cpu_seconds') is not None else '–'} "
            f"| {fmt_steady(t) if t else '–'} | `{r.get('commit', '?')}` |"
        )
    return lines


def ha_section(rows):
    """The whole cluster with a highly available control plane (issue #34) beside the
    one-instance run of the same shape that preceded it in the same process (the row's
    `one_instance_*` fields), with the ratios."""
    ha = [r for r in rows if r["bench"] == "cluster_ha"]
    lines = [
        "",
        "## Whole cluster with a highly available control plane",
        "",
        "The same run (`Training` timings) on a control plane of 3 kube-apiserver instances",
        "behind the load balancer, each with its own watch caches fed by its own etcd watches,",
        "and 2 leader-elected replicas each of kube-scheduler and kube-controller-manager (the",
        "standby of each runs no controller and reads its Lease every 2–4.4 s;",
        "`watchlab_bench::ControlPlane::HA`). The kubelets, kube-proxies and replicas are spread",
        "over the instances, so every committed event is taken into three watch caches instead",
        "of one, and each instance serves the watches of its own clients.",
        "*one instance* is the one-instance run of the same shape measured just before it by the",
        "same process (a row of the *Whole cluster* table may come from another run); *HA/one*",
        "divides this row's CPU time and peak heap by that run's.",
        "",
        *table("nodes × pods", "control plane", "CPU", "per pod", "virtual time", "peak heap",
               "revisions", "steady state", "one instance: CPU / peak", "HA/one CPU",
               "HA/one peak heap", "commit"),
    ]
    if not ha:
        lines.append(note_row("not measured yet (`./x bench native`)", 12))
    for r in ha:
        size = fmt_size(r)
        plane = f"{r['apiservers']} API servers × {r['controller_replicas']} replicas"
        if not r.get("converged"):
            lines.append(note_row(f"{size} | {plane} | did not converge in an hour of virtual "
                                  "time", 10, f"`{r.get('commit', '?')}`"))
            continue

        def times(field):
            one = r.get(f"one_instance_{field}")
            return f"{r[field] / one:.2f}×" if one and r.get(field) else "–"

        one_cpu = r.get("one_instance_cpu_seconds")
        one_peak = r.get("one_instance_peak_bytes")
        lines.append(
            f"| {size} | {plane} | {fmt_secs(r['cpu_seconds'])} | {r['us_per_pod']:.0f} µs "
            f"| {r['virtual_seconds']} s | {fmt_bytes(r['peak_bytes'])} "
            f"| {fmt_int(r['revision'])} | {fmt_steady(r)} "
            f"| {fmt_secs(one_cpu) if one_cpu else '–'} / "
            f"{fmt_bytes(one_peak) if one_peak else '–'} "
            f"| {times('cpu_seconds')} | {times('peak_bytes')} | `{r.get('commit', '?')}` |"
        )
    return lines


def daemonset_section(rows):
    """A DaemonSet's rollout onto every node: the DaemonSet controller, the scheduler and the
    kubelets, with no Deployment in the cluster."""
    ds = [r for r in rows if r["bench"] == "daemonset"]
    lines = [
        "",
        "## A DaemonSet on every node",
        "",
        "One DaemonSet created on an idle cluster of N nodes (`Training` profile), until every",
        "node runs a ready pod of it: the DaemonSet controller's per-node work (a pod with a",
        "node-name affinity per node, the status), the scheduler's binding through that",
        "affinity, and each kubelet starting its pod. CPU and peak live heap of the whole run.",
        "",
        *table("nodes", "CPU", "per node", "virtual time", "peak heap", "revisions", "commit"),
    ]
    if not ds:
        lines.append(note_row("not measured yet (`./x bench native`)", 7))
    for r in ds:
        if not r.get("converged"):
            lines.append(note_row(f"{fmt_int(r['nodes'])} | did not converge in an hour of "
                                  "virtual time", 6, f"`{r.get('commit', '?')}`"))
            continue
        lines.append(
            f"| {fmt_int(r['nodes'])} | {fmt_secs(r['cpu_seconds'])} | {r['us_per_node']:.0f} µs "
            f"| {r['virtual_seconds']} s | {fmt_bytes(r['peak_bytes'])} | {fmt_int(r['revision'])} "
            f"| `{r.get('commit', '?')}` |"
        )
    return lines


def rival_section(rows):
    """Webernetes (scripts/bench_webernetes.mjs) beside watchlab's native and wasm rows of the
    same whole-cluster shape, with the ratios Webernetes/watchlab."""
    def by_shape(rt):
        return {shape(r)[:3]: r for r in rows
                if r["bench"] == "cluster" and runtime(r) == rt and timings(r) == "training"}

    native, wasm, rival = by_shape("native"), by_shape("wasm"), by_shape("webernetes")
    some = next(iter(rival.values()), {})
    lines = [
        "",
        "## Whole cluster: the closest rival",
        "",
        f"Webernetes (npm `@ngrok/webernetes` {some.get('webernetes_version', '0.3.5')}), ngrok's "
        "TypeScript port of the kubelet,",
        "the scheduler and the controllers, which runs in a browser, on the same shapes: a",
        "cluster of *nodes* nodes, one Deployment of *pods* replicas applied",
        "(`registry.k8s.io/pause:3.10`, one of the images it ships), the time until every",
        "replica's pod is Running (`scripts/bench_webernetes.mjs`: "
        f"Node {some.get('node_version', '?')}, one process",
        "per shape, its `dist/` bundled by esbuild).",
        "",
        "- **How Webernetes is driven.** It has no fast clock: its clock follows the wall clock",
        "  unless the cluster is paused, and a paused cluster moves only when stepped. After its",
        "  setup the cluster is paused and stepped (`clock.step(1000)`: every timer due in that",
        "  virtual second runs) one virtual second per round, and each round is followed by one",
        "  turn of the event loop, in which every promise chain the step set off runs to its end.",
        "  Its virtual time is thus accelerated as watchlab's is (watchlab advances its virtual",
        "  clock a second at a time too): neither side ever waits for real time, so both wall",
        "  times are work. *virtual time* gives the virtual seconds each took.",
        "- **What each side's time covers.** Webernetes: from the apply to the end of the first",
        "  round after which every pod is Running (its Deployment reported every replica ready",
        "  in the same round at every shape measured so far, `ready_seconds` in the rows);",
        "  creating its nodes and starting its control-plane pods come before and are not",
        "  counted. watchlab: the whole run of the rows above, creating the cluster of *nodes*",
        "  nodes included, until the Deployment reports every replica **ready** (its pods Running,",
        "  Ready, and counted by the ReplicaSet and Deployment controllers). *CPU*: Webernetes's",
        "  whole process (V8's GC threads included); watchlab's one thread (native rows).",
        "- **What runs.** Webernetes: a kubelet per node (no node status heartbeats, no leases),",
        "  the scheduler, the Deployment, ReplicaSet, EndpointSlice and namespace controllers, the",
        "  garbage collector and events, with one kube-proxy and CoreDNS as pods on the first",
        "  node; no node lifecycle or Endpoints controller. Its scheduler has no per-node pod",
        "  limit (no resources, no capacity filter) and lists every node and every pod for each",
        "  pod it places. watchlab: every component listed above, a kube-proxy per node.",
        "- **Memory.** Webernetes: *peak heap* is the highest V8 heap use of its process (from",
        "  `--trace-gc`: live objects and garbage not yet collected, the bundle and the setup",
        "  included, as `process.memoryUsage().heapUsed` at its peak); *after full GC* is the",
        "  largest heap left by a mark-compact, a lower bound of its live data (– when none ran).",
        "  watchlab: the native run's peak live heap (a counting allocator: live bytes only).",
        "",
        "Ratios are Webernetes / watchlab; a shape that did not converge within its cap of wall",
        "time gives a lower bound (`>`). Rows may come from different commits and moments of a",
        "shared machine (see their commits); the CPU ratio is the one a busy machine disturbs least.",
        "",
        *table("nodes × pods", "Webernetes wall", "watchlab native wall", "ratio",
               "watchlab wasm wall", "ratio", "Webernetes CPU", "native CPU", "ratio",
               "virtual time (Webernetes / watchlab)", "Webernetes peak heap", "per pod",
               "after full GC", "native peak heap", "ratio", "commits"),
    ]
    if not rival:
        lines.append(note_row("not measured yet (`./x bench webernetes`)", 16))

    def secs(r, field):
        return fmt_secs(r[field]) if r.get(field) is not None else "–"

    def mem(r, field):
        return fmt_bytes(r[field]) if r.get(field) else "–"

    for key in sorted(rival, key=lambda k: (k[2], k[1])):
        w, n, a = rival[key], native.get(key, {}), wasm.get(key, {})
        commits = " / ".join(dict.fromkeys(f"`{r['commit']}`" for r in (w, n, a) if r.get("commit")))
        size = fmt_size(w)
        watchlab_vt = f"{n['virtual_seconds']} s" if n.get("virtual_seconds") is not None else "–"
        if not w.get("converged"):
            cap = w.get("cap_seconds")

            def bound(b):
                return f"> {cap / b:.0f}×" if cap and b else "–"

            lines.append(
                f"| {size} | {w.get('error') or 'did not converge'} | {secs(n, 'seconds')} "
                f"| {bound(n.get('seconds'))} | {secs(a, 'seconds')} | {bound(a.get('seconds'))} "
                f"| – | {secs(n, 'cpu_seconds')} | – | – / {watchlab_vt} "
                f"| ≥ {mem(w, 'memory_bytes')} when stopped | – | {mem(w, 'live_bytes')} "
                f"| {mem(n, 'peak_bytes')} | – | {commits} |"
            )
            continue
        lines.append(
            f"| {size} | {secs(w, 'seconds')} | {secs(n, 'seconds')} "
            f"| {ratio(w['seconds'], n.get('seconds'))} | {secs(a, 'seconds')} "
            f"| {ratio(w['seconds'], a.get('seconds'))} | {secs(w, 'cpu_seconds')} "
            f"| {secs(n, 'cpu_seconds')} | {ratio(w.get('cpu_seconds'), n.get('cpu_seconds'))} "
            f"| {w['virtual_seconds']} s / {watchlab_vt} | {mem(w, 'memory_bytes')} "
            f"| {mem(w, 'bytes_per_pod')} | {mem(w, 'live_bytes')} | {mem(n, 'peak_bytes')} "
            f"| {ratio(w.get('memory_bytes'), n.get('peak_bytes'))} | {commits} |"
        )
    return lines


def wasm_section(rows):
    """The whole cluster in headless Chromium beside the native run of the same shape."""
    native = {shape(r)[:3]: r for r in rows if native_cluster(r)}
    wasm = [r for r in rows if r["bench"] == "cluster" and runtime(r) == "wasm"]
    lines = [
        "",
        "## Whole cluster: native and wasm side by side",
        "",
        "The same run (`crates/bench`'s `whole_cluster`, the code of the native rows above)",
        "compiled to wasm32 in the `release` profile the page ships (the engine at opt-level 3, the",
        "rest for size) and called from a fresh page in Debian's",
        "headless Chromium (`scripts/bench_wasm.mjs`). *wasm wall* is `performance.now()` around",
        "the call; *wasm memory* is the linear memory's size at the end, which is the run's peak",
        "(wasm memory never grows back) and includes the allocator's free space; the native *peak",
        "heap* counts live bytes only, but with 8-byte pointers against wasm32's 4, so large",
        "clusters take less memory in wasm. *wasm/native* divides the wall times (the native rows",
        "may come from another commit and another moment of a shared machine: see their commits).",
        "*steady state*: the minute of virtual time after convergence, wall time per virtual",
        "second in the tab (the native figure is CPU time): below 1,000 ms the page keeps up at 1×.",
        "",
        *table("nodes × pods", "wasm wall", "native wall", "wasm/native", "wasm memory",
               "per pod", "native peak heap", "wasm/native memory", "virtual time",
               "steady state (wasm / native)", "commit"),
    ]
    if not wasm:
        lines.append(note_row("not measured yet (`./x bench wasm`)", 11))
    for r in wasm:
        n = native.get(shape(r)[:3], {})
        size = fmt_size(r)
        if not r.get("converged"):
            why = r.get("error") or "did not converge in an hour of virtual time"
            lines.append(note_row(f"{size} | {why}", 10, f"`{r.get('commit', '?')}`"))
            continue
        lines.append(
            f"| {size} | {fmt_secs(r['seconds'])} "
            f"| {fmt_secs(n['seconds']) if n.get('seconds') else '–'} "
            f"| {ratio(r['seconds'], n.get('seconds'))} "
            f"| {fmt_bytes(r['memory_bytes'])} | {fmt_bytes(r['bytes_per_pod'])} "
            f"| {fmt_bytes(n['peak_bytes']) if n.get('peak_bytes') else '–'} "
            f"| {ratio(r['memory_bytes'], n.get('peak_bytes'))} "
            f"| {r['virtual_seconds']} s | {fmt_steady(r)} / {fmt_steady(n) if n else '–'} "
            f"| `{r.get('commit', '?')}` |"
        )
    return lines


def page_section(rows):
    """What a browser downloads to show the page (scripts/bench_page.mjs on the `./x dist` build
    of the wasm run), against issue #37's budget. Exact bytes: the budget is a decimal 1 MB."""
    page = next((r for r in rows if r["bench"] == "page"), None)
    lines = [
        "",
        "## The page's size",
        "",
        "What a browser downloads to show the page: every file of the `./x dist` build but the",
        "labs (`scripts/bench_page.mjs`, measured by `./x bench wasm` after the rows above).",
        "*gzip* is what a static host serving the precompressed `FILE.gz` copies sends, and the",
        "page must stay within 1 MB (1,000,000 bytes) of it (issue #37, without losing more than",
        "10% of the wasm speed above); *brotli* is what hosts that serve the `.br` copies send.",
        "",
        *table("file", "bytes", "gzip", "brotli"),
    ]
    if not page:
        lines.append(note_row("not measured yet (`./x bench wasm`)", 4))
        return lines
    for f in sorted(page["files"], key=lambda f: (-f["gzip"], f["name"])):
        lines.append(row(f"`{f['name']}`", fmt_int(f["bytes"]), fmt_int(f["gzip"]),
                         fmt_int(f["brotli"])))
    budget, gzip = page["budget_gzip"], page["gzip"]
    verdict = (f"met ({gzip / budget:.0%} of it)" if gzip <= budget
               else f"**over** by {fmt_int(gzip - budget)} ({ratio(gzip, budget)})")
    lines += [
        row(f"**the page** ({len(page['files'])} files)", f"**{fmt_int(page['bytes'])}**",
            f"**{fmt_int(gzip)}**", f"**{fmt_int(page['brotli'])}**"),
        row("budget (issue #37)", "", f"≤ {fmt_int(budget)}: {verdict}", ""),
        "",
        f"Measured at `{page.get('commit', '?')}` ({page.get('date', '?')}). The "
        f"{page.get('labs', '?')} labs,",
        "fetched when one is opened (`?lab=`) and by the service worker once the page runs, add",
        f"{fmt_int(page['labs_gzip'])} bytes gzipped ({fmt_int(page['labs_brotli'])} as brotli).",
    ]
    return lines


def ledger_section(rows):
    """The store alone (native rows of benches/scale.rs) beside a real etcd doing the same puts
    and watches (benches/etcd.rs), with the ratio engine/etcd of each rate."""
    engine = {shape(r)[:4]: r for r in rows if r["bench"] == "ledger" and runtime(r) == "native"}
    etcd = {shape(r)[:4]: r for r in rows if r["bench"] == "ledger" and runtime(r) == "etcd"}
    raft = {shape(r)[:4]: r for r in rows if r["bench"] == "ledger" and runtime(r) == "raft"}
    some = next(iter(etcd.values()), {})
    version = some.get("etcd_version", "3.4")
    lines = [
        "",
        "## The ledger alone",
        "",
        "*puts* puts cycling over *keys* keys `/registry/pods/ns-<i%10>/pod-<i>` (a small JSON",
        "value), with *watchers* watchers on the `/registry/pods/` prefix that must each receive",
        "every put. The two sides do not measure the same thing:",
        "",
        "- **engine**: the etcd-like store (`crates/engine/src/store`, `benches/scale.rs`) in the",
        "  benchmark's own thread: no API server, no network, no encoding, no fsync; after each",
        "  put every watcher reads that revision's events (as etcd syncs its watchers). Rates per",
        "  second of that one thread's **CPU time**.",
        "- **engine + Raft**: the same, each put first proposed to three etcd members",
        "  (`crates/engine/src/etcd`: the leader's log entry, AppendEntries to both followers and",
        "  their answers, the commit, within the instant as the API server's writes are), the",
        "  clock moving one 100 ms heartbeat every thousand puts. Same thread, same CPU time.",
        f"- **etcd**: a real etcd {version} server (Debian's `etcd-server`; `benches/etcd.rs`),",
        "  started for each row on 127.0.0.1 with its data directory on "
        + (f"tmpfs (`{some['data_dir']}`)" if some.get("data_dir") == "/dev/shm"
           else "a temporary directory")
        + " and `--unsafe-no-fsync`, driven over",
        "  loopback through its gRPC gateway (HTTP/1.1, JSON bodies, base64 keys): the puts from",
        f"  {some.get('clients', 8)} keep-alive client connections (one thread each, as etcd's own",
        "  `benchmark put --clients`), each watcher a streaming `/v3/watch` on its own connection",
        "  and thread. **Wall time**: *puts/s* from the first put to the last acknowledgement,",
        "  *delivered events/s* until every watcher has received every put. Its figures include",
        "  raft, the bbolt backend, gRPC and the JSON gateway, and the client threads share the",
        "  machine's cores with the server.",
        "",
        "*engine/etcd* divides the engine's rate by etcd's: how far the model's store is from the",
        "real server's throughput, not a like-for-like race between two stores.",
        "",
        *table("puts", "keys", "watchers", "engine puts/s", "engine + Raft puts/s", "etcd puts/s",
               "engine + Raft/etcd", "engine delivered events/s", "engine + Raft delivered events/s",
               "etcd delivered events/s", "engine + Raft/etcd", "commit"),
    ]

    def rate(r, field):
        return fmt_int(int(r[field])) if r.get(field) is not None else "–"

    def times(a, b):
        # The shared ratio(), without a decimal once it is in the hundreds.
        return f"{fmt_int(round(a / b))}×" if a and b and a / b >= 100 else ratio(a, b)

    for key in sorted(set(engine) | set(etcd) | set(raft), key=lambda k: k[1:]):
        e, r, d = engine.get(key, {}), raft.get(key, {}), etcd.get(key, {})
        # The engine's commit first, etcd's after it when it differs.
        commits = list(dict.fromkeys(f"`{x['commit']}`" for x in (e, r, d) if x.get("commit")))
        size = f"{fmt_int(key[1])} | {fmt_int(key[2])} | {fmt_int(key[3])}"
        if d.get("error"):
            lines.append(
                f"| {size} | {rate(e, 'puts_per_s')} | {rate(r, 'puts_per_s')} "
                f"| etcd: {d['error']} | – | {rate(e, 'events_per_s')} "
                f"| {rate(r, 'events_per_s')} | – | – | {' / '.join(commits)} |"
            )
            continue
        lines.append(
            f"| {size} | {rate(e, 'puts_per_s')} | {rate(r, 'puts_per_s')} | {rate(d, 'puts_per_s')} "
            f"| {times(r.get('puts_per_s'), d.get('puts_per_s'))} "
            f"| {rate(e, 'events_per_s')} | {rate(r, 'events_per_s')} | {rate(d, 'events_per_s')} "
            f"| {times(r.get('events_per_s'), d.get('events_per_s'))} | {' / '.join(commits)} |"
        )
    if not etcd:
        lines.append("")
        lines.append("etcd not measured yet (`./x bench etcd`).")
    return lines


def write_markdown(rows, path, svg_rel):
    clusters = [r for r in rows if native_cluster(r)]
    fanout = [r for r in rows if r["bench"] == "fanout"]
    lines = [
        "# Benchmarks",
        "",
        "Written by `./x bench` (crates/bench/benches/scale.rs → scripts/bench_report.py, from",
        "the rows kept in docs/bench-results.jsonl); do not edit by hand. `./x bench NODESxPODS`",
        "re-measures those shapes only and keeps the other rows, so each row names the commit",
        f"that measured it ({platform.machine()}; `+`: with uncommitted changes). Runs: "
        + "; ".join(runs(rows))
        + ". Wall-clock figures on a shared machine: read the ratios, not the last digit.",
        "",
        f"![cost per pod and per watch event]({svg_rel})",
        "",
        "## Whole cluster",
        "",
        "Everything on: one kubelet (with its node lease) and one kube-proxy per node, the",
        "scheduler, node lifecycle, ReplicaSet, Deployment, EndpointSlice and Endpoints",
        "controllers, garbage collector, events, every informer.",
        "One Deployment of *pods* replicas is created, then virtual time advances a second at a",
        "time until the Deployment reports every replica ready. *CPU* and *wall* are the time of",
        "that whole run (native, one thread; *per pod* divides the CPU time, which a busy shared",
        "machine disturbs far less than wall time; a run under 50 ms is timed by the wall clock,",
        "the thread's CPU counter moving only at scheduler ticks); *peak heap* is the highest live",
        "heap (a counting allocator: objects, ledger history, events, informer caches, watch",
        "buffers), divided by the pods for *per pod*; *etcd* is what the kept revisions cost",
        "against etcd's space quota (key + JSON + 256 bytes each; nothing is compacted during a",
        "run), under the page's 3 GiB quota. This is a whole cluster, not a bare API server.",
        "*Steady state*: the converged cluster then runs another minute of virtual time with",
        "nothing to converge (kubelets renewing their leases and reporting node status, the node",
        "monitor, every informer): CPU time per virtual second; under 1,000 ms the engine keeps",
        "up with a clock at 1×. These rows use the playground's `Training` timings (leases",
        "renewed every 2.5 s); the real defaults are in the next section.",
        "",
        *table("nodes × pods", "CPU", "wall", "per pod", "virtual time", "peak heap", "per pod",
               "etcd", "revisions", "events", "steady state", "commit"),
    ]
    for r in clusters:
        if not r.get("converged"):
            lines.append(note_row(f"{fmt_size(r)} | did not converge in an hour of virtual time",
                                  11, f"`{r.get('commit', '?')}`"))
            continue
        lines.append(
            f"| {fmt_size(r)} "
            f"| {fmt_secs(r['cpu_seconds']) if r.get('cpu_seconds') is not None else '–'} "
            f"| {fmt_secs(r['seconds'])} "
            f"| {r['us_per_pod']:.0f} µs | {r['virtual_seconds']} s "
            f"| {fmt_bytes(r['peak_bytes'])} | {fmt_bytes(r['bytes_per_pod'])} "
            f"| {fmt_bytes(r['etcd_bytes']) if r.get('etcd_bytes') is not None else '–'} "
            f"| {fmt_int(r['revision'])} | {fmt_int(r['events'])} | {fmt_steady(r)} "
            f"| `{r.get('commit', '?')}` |"
        )
    lines += kubernetes_section(rows)
    lines += ha_section(rows)
    lines += daemonset_section(rows)
    lines += wasm_section(rows)
    lines += page_section(rows)
    lines += rival_section(rows)
    lines += ledger_section(rows)
    lines += [
        "",
        "## Watch fan-out",
        "",
        "The API server with *watchers* pod watches open; each pod create (admission, the",
        "ledger write, the watch event) is offered to the streams and the streams that got",
        "something are drained. *Selective*: every watcher is a kubelet's",
        "`spec.nodeName=node-<n>` watch, so one stream matches a pod (the fan-out index finds it",
        "without looking at the others). *All-matching*: unfiltered watches, every stream gets",
        "every event. Costs in the benchmark thread's CPU time.",
        "",
        *table("watchers", "kind", "writes", "µs per write", "µs per delivered event", "commit"),
    ]
    for r in fanout:
        kind = "selective" if r["selective"] else "all-matching"
        lines.append(
            f"| {fmt_int(r['watchers'])} | {kind} | {fmt_int(r['writes'])} "
            f"| {r['us_per_write']:.2f} | {r['us_per_delivered']:.3f} | `{r.get('commit', '?')}` |"
        )
    lines.append("")
    comparisons = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "bench-comparisons.md")
    if os.path.exists(comparisons):
        with open(comparisons, encoding="utf-8") as f:
            lines += [f.read().rstrip("\n"), ""]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def main():
    if len(sys.argv) != 5:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    new, everything, markdown, svg = sys.argv[1:]
    fresh = load(new)
    if not any(r.get("bench") in ("cluster", "cluster_ha", "ledger", "fanout", "daemonset", "page")
               for r in fresh):
        print(f"bench_report: no results in {new}", file=sys.stderr)
        return 1
    rows = merge(load(everything), fresh)
    save(rows, everything)
    write_svg(rows, svg)
    svg_rel = os.path.relpath(svg, os.path.dirname(os.path.abspath(markdown)))
    write_markdown(rows, markdown, svg_rel)
    print(f"bench_report: wrote {everything}, {markdown} and {svg}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
