// The closest rival on the whole-cluster shapes (issue #11, benchmark item 2). Webernetes (npm
// `@ngrok/webernetes`, pinned in package.json) is ngrok's TypeScript port of the kubelet, the
// scheduler and the controllers that runs in a browser or in Node: the closest other project,
// which simulates a whole Kubernetes control plane in JavaScript as watchlab does in wasm, so the
// fairest yardstick for watchlab's whole-cluster rows. This script builds a Webernetes cluster of
// N nodes, applies one Deployment of P replicas (`registry.k8s.io/pause:3.10`, an image Webernetes
// ships) and measures the wall time from the apply until every replica's pod is Running, and the
// JavaScript heap.
//
// How it is driven. Webernetes has no fast clock: its `Clock` follows the wall clock unless the
// cluster is paused, and a paused cluster moves only when `clock.step(ms)` is called, which runs
// every timer due in that span (and the clock's queued watch deliveries) synchronously. After
// `init()` the cluster is paused and stepped one virtual second per round, as watchlab's run
// advances its virtual clock a second at a time; after each step the script yields one event-loop
// turn (`setImmediate`), so every promise chain the step set off runs to completion before the
// next round. Virtual time is thus accelerated exactly as in watchlab: a round takes the wall time
// of its work and no more, whatever span of virtual time it covers. Measured: from the apply to
// the end of the first round after which every pod of the Deployment is Running (`seconds`, and
// the CPU time of the whole process over that span, V8's GC threads included, `cpu_seconds`), and
// to the first round after which the Deployment's status reports every replica ready (watchlab's
// own criterion, `ready_seconds`). Creating the nodes and starting Webernetes's control-plane pods
// (`init()`, then rounds until every kube-system pod is Running) comes before and is reported
// apart (`setup_seconds`). Webernetes has no per-node pod limit to raise: its scheduler has no
// resources or capacity filter and puts each pod on the node with the fewest.
//
// Memory: each shape runs in its own Node process started with `--trace-gc`; `memory_bytes` is the
// highest V8 heap use that process reached (the largest "used before GC" figure V8 prints, or the
// heap in use at the end if larger): live objects plus garbage not yet collected, like
// `process.memoryUsage().heapUsed` at its peak. `live_bytes` is the largest heap left after a full
// (mark-compact) GC, a lower bound of the live data; `rss_peak_bytes` is the process's peak
// resident set (the Node runtime included). The bundle (below) and the cluster's setup are in all
// three.
//
// Webernetes's `dist/` is TypeScript output with extensionless relative imports, which Node's ESM
// loader refuses, so it is bundled first with esbuild (pinned in package.json) into
// target/…/webernetes/webernetes.mjs; `events` and `buffer` resolve to Node's built-ins. A shape
// that does not converge within the cap (`--cap=SECONDS`, else WEBERNETES_CAP_SECONDS, else 600 s
// of wall time from the apply, 60 s in a smoke run) is killed and written as a row with
// `converged: false`: the work runs as one long promise chain that no timer in the same process
// can interrupt, hence the separate process. Writes JSON lines for scripts/bench_report.py
// (`"runtime": "webernetes"`).
//
//   node scripts/bench_webernetes.mjs OUT.jsonl [--smoke] [--cap=SECONDS] [--max-heap=MiB] [NODESxPODS ...]
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STEP_MS = 1000;
const MIB = 1024 * 1024;

const turn = () => new Promise((resolve) => setImmediate(resolve));

if (process.argv[2] === '--child') {
  await child(...process.argv.slice(3));
} else {
  await main(process.argv.slice(2));
}

async function main(args) {
  const [out, ...rest] = args;
  if (!out || out.startsWith('--')) {
    console.error('usage: node scripts/bench_webernetes.mjs OUT.jsonl [--smoke] [--cap=SECONDS] [--max-heap=MiB] [NODESxPODS ...]');
    process.exit(2);
  }
  const smoke = rest.includes('--smoke');
  const flag = (name, fallback) => Number(rest.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
  const cap = flag('cap', process.env.WEBERNETES_CAP_SECONDS ?? (smoke ? 60 : 600));
  const maxHeap = flag('max-heap', 4096);
  let shapes = rest.filter((a) => /^\d+x\d+$/.test(a)).map((a) => a.split('x').map(Number));
  if (shapes.length === 0) {
    // The native run's default shapes (benches/scale.rs).
    shapes = smoke ? [[3, 3], [10, 30]] : [[3, 3], [10, 300], [50, 1500], [100, 3000], [1000, 30000]];
  }

  const bundle = join(dirname(out), 'webernetes', 'webernetes.mjs');
  const version = await bundleWebernetes(bundle);
  const rows = [JSON.stringify({
    // No cargo profile: the rows carry Webernetes's and Node's versions instead.
    bench: 'meta', smoke, cores: availableParallelism(), profile: null,
  })];
  for (const [nodes, pods] of shapes) {
    const row = await measure(bundle, version, nodes, pods, cap, maxHeap);
    console.error(JSON.stringify(row));
    rows.push(JSON.stringify(row));
  }
  await writeFile(out, rows.join('\n') + '\n');
}

// esbuild bundles the installed package into one ES module Node can import; returns its version.
async function bundleWebernetes(outfile) {
  const { build } = await import('esbuild');
  await mkdir(dirname(outfile), { recursive: true });
  await build({
    stdin: { contents: "export * from '@ngrok/webernetes';", resolveDir: ROOT, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node.split('.')[0]}`,
    outfile,
    logLevel: 'warning',
  });
  const pkg = JSON.parse(await readFile(join(ROOT, 'node_modules/@ngrok/webernetes/package.json'), 'utf8'));
  return pkg.version;
}

// One shape in a fresh Node process: the row it reports, or one saying why it has none.
function measure(bundle, version, nodes, pods, cap, maxHeap) {
  return new Promise((resolve) => {
    const proc = fork(fileURLToPath(import.meta.url), ['--child', bundle, nodes, pods, cap], {
      execArgv: ['--trace-gc', `--max-old-space-size=${maxHeap}`],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const base = {
      bench: 'cluster', runtime: 'webernetes', nodes, pods, step_ms: STEP_MS, cap_seconds: cap,
      webernetes_version: version, node_version: process.version,
    };
    const heap = { used: 0, live: 0 };
    let report = null;
    let setup = null;
    let killed = null;
    let rssPeak = 0;
    let stderr = '';
    let pending = '';
    // `[pid:isolate]  123 ms: Scavenge 3.9 (4.0) -> 3.8 (5.0) MB, …`: used (committed) before ->
    // after, in V8's MB of 2^20 bytes.
    proc.stdout.on('data', (chunk) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop();
      for (const line of lines) {
        const m = /: (Scavenge|Mark-Compact|Minor Mark-Compact|Mark-Compact \(reduce\))[^\d]* ([\d.]+) \([\d.]+\) -> ([\d.]+) \(/.exec(line);
        if (!m) continue;
        heap.used = Math.max(heap.used, Number(m[2]) * MIB);
        if (m[1].startsWith('Mark-Compact')) heap.live = Math.max(heap.live, Number(m[3]) * MIB);
      }
    });
    proc.stderr.on('data', (chunk) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    // The setup gets the cap too; once the child reports it is about to apply, the cap (plus a
    // little for its own check between rounds) runs from there.
    let timer = setTimeout(() => kill('setup'), cap * 1000);
    const kill = (phase) => {
      rssPeak = Math.max(rssPeak, peakRss(proc.pid));
      killed = phase;
      proc.kill('SIGKILL');
    };
    proc.on('message', (msg) => {
      if (msg.ready) {
        setup = msg;
        clearTimeout(timer);
        timer = setTimeout(() => kill('run'), cap * 1000 + 15000);
      } else {
        report = msg;
      }
    });
    proc.on('exit', (code, signal) => {
      clearTimeout(timer);
      let row;
      if (report) {
        const memory = Math.max(heap.used, report.heap_used_end ?? 0);
        rssPeak = Math.max(rssPeak, report.rss_peak_bytes ?? 0);
        const { heap_used_end: _, ...fields } = report;
        row = {
          ...base, ...fields,
          us_per_pod: fields.converged ? Number(((fields.seconds * 1e6) / Math.max(pods, 1)).toFixed(2)) : undefined,
          memory_bytes: Math.round(memory),
          bytes_per_pod: Math.floor(memory / Math.max(pods, 1)),
          // No full GC in a short run: no figure.
          live_bytes: Math.round(heap.live) || undefined,
          rss_peak_bytes: rssPeak,
        };
      } else {
        const last = stderr.trim().split('\n').filter((l) => l.trim()).slice(-1)[0] ?? '';
        const why = killed === 'run'
          ? `not every replica Running after ${cap} s of wall time (killed)`
          : killed === 'setup'
            ? `cluster not set up within ${cap} s (killed)`
            : /heap limit|out of memory/i.test(stderr)
              ? `out of memory (V8 heap limit ${maxHeap} MiB)`
              : `exited (${signal ?? code}): ${last}`;
        row = {
          ...base, converged: false, error: why,
          setup_seconds: setup?.setup_seconds,
          // What the process reached before it was stopped (the last few GC lines may be lost).
          memory_bytes: Math.round(heap.used) || undefined,
          live_bytes: Math.round(heap.live) || undefined,
          rss_peak_bytes: rssPeak || undefined,
        };
      }
      resolve(JSON.parse(JSON.stringify(row)));
    });
  });
}

// The process's peak resident set from /proc (0 when it cannot be read).
function peakRss(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /VmHWM:\s+(\d+) kB/.exec(status);
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

// --- the child: one cluster, one Deployment, rounds of one virtual second ---

async function child(bundle, nodesArg, podsArg, capArg) {
  const nodes = Number(nodesArg);
  const pods = Number(podsArg);
  const cap = Number(capArg);
  const { Cluster } = await import(pathToFileURL(bundle).href);

  const setupStart = performance.now();
  const cluster = new Cluster({ nodes });
  await cluster.init();
  cluster.pause();
  let setupRounds = 0;
  for (;;) {
    cluster.clock.step(STEP_MS);
    await turn();
    setupRounds += 1;
    const system = (await cluster.api.corev1.listNamespacedPod({ namespace: 'kube-system' })).items;
    if (system.length > 0 && system.every((p) => p.status?.phase === 'Running')) break;
    if (setupRounds >= 600) throw new Error('control plane not Running after 600 virtual seconds');
  }
  const setupSeconds = (performance.now() - setupStart) / 1000;
  process.send({ ready: true, setup_seconds: round4(setupSeconds) });
  await turn();

  const start = performance.now();
  const cpuStart = process.cpuUsage();
  await cluster.apply([{
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
    spec: {
      replicas: pods,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'web', image: 'registry.k8s.io/pause:3.10' }] },
      },
    },
  }]);
  let rounds = 0;
  let runningAt = null;
  let readyAt = null;
  let running = 0;
  for (;;) {
    cluster.clock.step(STEP_MS);
    await turn();
    rounds += 1;
    const now = performance.now();
    if (runningAt === null) {
      const list = await cluster.api.corev1.listNamespacedPod({ namespace: 'default', labelSelector: 'app=web' });
      running = list.items.filter((p) => p.status?.phase === 'Running').length;
      if (running >= pods) runningAt = { seconds: (now - start) / 1000, rounds, cpu: process.cpuUsage(cpuStart) };
    }
    if (readyAt === null) {
      const d = await cluster.api.appsv1.readNamespacedDeployment({ namespace: 'default', name: 'web' });
      if ((d.status?.readyReplicas ?? 0) >= pods) readyAt = { seconds: (now - start) / 1000, rounds };
    }
    if (runningAt && readyAt) break;
    if ((performance.now() - start) / 1000 > cap || rounds >= 3600) break;
  }
  const converged = runningAt !== null;
  const seconds = converged ? runningAt.seconds : (performance.now() - start) / 1000;
  const result = {
    converged,
    seconds: round4(seconds),
    // User + system time of the whole process (V8's GC threads included) over `seconds`.
    cpu_seconds: round4(cpuSeconds(converged ? runningAt.cpu : process.cpuUsage(cpuStart))),
    virtual_seconds: converged ? runningAt.rounds * (STEP_MS / 1000) : rounds * (STEP_MS / 1000),
    ready_seconds: readyAt ? round4(readyAt.seconds) : undefined,
    ready_virtual_seconds: readyAt ? readyAt.rounds * (STEP_MS / 1000) : undefined,
    running: converged ? pods : running,
    setup_seconds: round4(setupSeconds),
    setup_virtual_seconds: setupRounds * (STEP_MS / 1000),
    error: converged ? undefined : `${running} of ${pods} replicas Running after ${cap} s of wall time`,
    heap_used_end: process.memoryUsage().heapUsed,
    rss_peak_bytes: process.resourceUsage().maxRSS * 1024,
  };
  // The cluster's work is done; exit once the message is out (its timers would keep Node alive).
  process.send(result, () => process.exit(0));
}

function cpuSeconds({ user, system }) {
  return (user + system) / 1e6;
}

function round4(x) {
  return Number(x.toFixed(4));
}
