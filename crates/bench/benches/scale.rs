//! The benchmark report behind `./x bench`: every figure of `BENCHMARKS.md` comes from one run of
//! this binary, written as JSON lines that `scripts/bench_report.py` turns into the page and its
//! plot. Three measurements:
//!
//! - **cluster**: the whole control plane converging — `N` nodes with their kubelets, leases and
//!   kube-proxies, the scheduler, node lifecycle, ReplicaSet/Deployment/EndpointSlice/Endpoints
//!   controllers, garbage collector, events and every informer — after one Deployment of `P`
//!   replicas is created, virtual time advanced a second at a time until the Deployment reports
//!   every replica ready (`watchlab_bench::whole_cluster`, also run in wasm by
//!   `scripts/bench_wasm.mjs`). Wall time, time per pod, and the peak live heap per pod (a
//!   counting allocator: objects, history, events, caches). With the `Training` timings each
//!   shape runs a second time with a highly available control plane (`"bench":"cluster_ha"`:
//!   3 API server instances with their own watch caches, 2 leader-elected replicas of
//!   kube-scheduler and kube-controller-manager, `ControlPlane::HA`), right after the
//!   one-instance row so the two compare on the same machine state.
//! - **ledger**: the etcd-like store alone, `N` puts over `K` keys while `W` prefix watchers read
//!   each revision's events (as etcd's watchable store syncs its watchers).
//! - **fanout**: the API server's watch fan-out, the cost per created pod with `W` watchers that
//!   are selective (`spec.nodeName=` kubelet watches: one matches) or all-matching.
//!
//! `cargo bench -p watchlab-bench --bench scale -- [--smoke] [--out FILE] [--timings
//! training|kubernetes] [NODESxPODS ...]`. Run under `cargo test` (no `--bench` argument) it
//! takes the smoke sizes, so CI keeps the harness working in seconds. A shape given twice runs
//! twice (alternating one-instance and HA rows: paired runs); `--timings training` skips the
//! `Kubernetes` rows.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;

use mimalloc::MiMalloc;
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use watchlab_apimachinery::fields::FieldSelector;
use watchlab_apimachinery::request::ListOptions;
use watchlab_bench::{converge_with, profile_name, steady_state, ControlPlane, STEADY_SECONDS};
use watchlab_engine::api::pod::{Container, Pod, PodSpec};
use watchlab_engine::api::{Kind, Object, ObjectMeta};
use watchlab_engine::apiserver::{ApiServer, ServerConfig};
use watchlab_engine::clock::Timestamp;
use watchlab_engine::cluster::ProfileName;
use watchlab_engine::etcd::EtcdCluster;
use watchlab_engine::store::Store;

/// Counts live heap bytes and their peak (benchmark binary only), over mimalloc: the allocator
/// the native server ships with (`crates/apiserver-http`), so the native rows are what a native
/// build gets. The wasm rows run on Rust's own wasm32 allocator, as the page does.
struct Counting;

thread_local! {
    /// This thread's live bytes and their peak since [`reset_peak`]. Per thread, so counting is
    /// two plain additions per allocation, not locked updates of shared counters (those slowed
    /// the 150,000-pod run by 7%); a run is on one thread.
    static COUNTS: Cell<(isize, isize)> = const { Cell::new((0, 0)) };
}

/// Adds `delta` bytes to this thread's live count, raising its peak.
fn count(delta: isize) {
    let _ = COUNTS.try_with(|c| {
        let (live, peak) = c.get();
        let live = live.wrapping_add(delta);
        c.set((live, peak.max(live)));
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count(l.size() as isize);
        unsafe { MiMalloc.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        count(-(l.size() as isize));
        unsafe { MiMalloc.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
        count((new_size as isize).wrapping_sub(l.size() as isize));
        unsafe { MiMalloc.realloc(p, l, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Starts a peak measurement on this thread; returns the live bytes it is relative to.
fn reset_peak() -> isize {
    COUNTS.with(|c| {
        let (live, _) = c.get();
        c.set((live, live));
        live
    })
}

/// This thread's peak live bytes since [`reset_peak`] returned `base`.
fn peak_since(base: isize) -> usize {
    COUNTS.with(|c| usize::try_from(c.get().1.saturating_sub(base)).unwrap_or(0))
}

/// CPU time this thread has run, in seconds (Linux `/proc/thread-self/schedstat`, nanoseconds);
/// on a shared machine it varies far less than wall time. `None` elsewhere.
fn cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(nanos as f64 / 1e9)
}

/// A start for [`cpu_or_wall_since`].
fn clock_start() -> (Instant, Option<f64>) {
    (Instant::now(), cpu_seconds())
}

/// Below this much wall time a run is timed by the wall clock: schedstat's counter moves at the
/// scheduler's ticks (a few ms), so a run of a few milliseconds can read as no CPU at all.
const SHORTEST_CPU_TIMED_SECONDS: f64 = 0.05;

/// Seconds since `start`: this thread's CPU time where the platform reports it (and the run is
/// long enough for it to be read), else wall time.
fn cpu_or_wall_since(start: (Instant, Option<f64>)) -> f64 {
    let wall = start.0.elapsed().as_secs_f64();
    match (start.1, cpu_seconds()) {
        (Some(a), Some(b)) if wall >= SHORTEST_CPU_TIMED_SECONDS => b - a,
        _ => wall,
    }
    .max(1e-9)
}

/// The whole control plane from one create to every replica ready ([`converge_with`]; with the
/// `Training` profile and one instance, the run the wasm row repeats in the browser), with its
/// CPU and wall time and its peak live heap; then [`STEADY_SECONDS`] of the steady state, timed
/// apart (CPU per virtual second: below 1,000 ms the cluster keeps up with a clock at 1×). A
/// control plane other than one of each is a `cluster_ha` row naming its instances and replicas
/// and carrying the CPU time and peak of `paired`, the one-instance run of the same shape just
/// before it (so the ratio is of two runs of one process, whatever rows a report keeps).
fn cluster(
    nodes: usize,
    pods: u32,
    profile: ProfileName,
    plane: ControlPlane,
    paired: Option<Measured>,
) -> (String, Measured) {
    let base = reset_peak();
    let start = clock_start();
    let (mut cluster, run) = converge_with(nodes, pods, profile, plane);
    let secs = start.0.elapsed().as_secs_f64();
    // Time per pod on the CPU time when the platform reports it, else on wall time.
    let timed = cpu_or_wall_since(start);
    let per_pod = timed * 1e6 / f64::from(pods.max(1));
    let cpu = format!("{timed:.4}");
    let peak = peak_since(base);
    let steady_start = clock_start();
    let steady_writes = if run.converged {
        steady_state(&mut cluster, STEADY_SECONDS)
    } else {
        0
    };
    let steady_ms = cpu_or_wall_since(steady_start) * 1e3 / STEADY_SECONDS as f64;
    drop(cluster);
    let bench = if plane.is_single() {
        "\"bench\":\"cluster\"".to_string()
    } else {
        let one = paired.map_or(String::new(), |m| {
            format!(
                ",\"one_instance_cpu_seconds\":{:.4},\"one_instance_peak_bytes\":{}",
                m.cpu_seconds, m.peak_bytes
            )
        });
        format!(
            "\"bench\":\"cluster_ha\",\"apiservers\":{},\"controller_replicas\":{}{one}",
            plane.apiservers, plane.controller_replicas
        )
    };
    let line = format!(
        "{{{bench},\"timings\":\"{}\",\"nodes\":{nodes},\"pods\":{pods},{},\
         \"seconds\":{secs:.4},\"cpu_seconds\":{cpu},\"us_per_pod\":{per_pod:.2},\
         \"peak_bytes\":{peak},\"bytes_per_pod\":{},\"steady_virtual_seconds\":{STEADY_SECONDS},\
         \"steady_writes\":{steady_writes},\"steady_ms_per_virtual_second\":{steady_ms:.3}}}",
        profile_name(profile),
        run.json_fields(),
        peak / pods.max(1) as usize,
    );
    let measured = Measured {
        cpu_seconds: timed,
        peak_bytes: peak,
    };
    (line, measured)
}

/// What a whole-cluster run cost: its CPU (or wall) time and peak live heap.
#[derive(Debug, Clone, Copy)]
struct Measured {
    cpu_seconds: f64,
    peak_bytes: usize,
}

/// A DaemonSet on `nodes` nodes from its create to a ready pod on each ([`daemon_set`]), with
/// its CPU time and peak live heap (the `Training` profile).
fn daemon_set_row(nodes: usize) -> String {
    let base = reset_peak();
    let start = clock_start();
    let run = watchlab_bench::daemon_set(nodes, ProfileName::Training);
    let secs = start.0.elapsed().as_secs_f64();
    let timed = cpu_or_wall_since(start);
    let peak = peak_since(base);
    format!(
        "{{\"bench\":\"daemonset\",\"timings\":\"training\",\"nodes\":{nodes},{},\
         \"seconds\":{secs:.4},\"cpu_seconds\":{timed:.4},\"us_per_node\":{:.2},\
         \"peak_bytes\":{peak}}}",
        run.json_fields(),
        timed * 1e6 / nodes.max(1) as f64,
    )
}

/// The store alone: `puts` puts over `keys` keys, `watchers` watchers on `/registry/pods/`
/// (every one matches every put) reading each new revision.
/// The ledger row: `puts` puts cycling over `keys` keys with `watchers` prefix watchers reading
/// each revision's events. With `replicated`, every put is first proposed to three etcd members
/// (`EtcdCluster`: the leader's log, AppendEntries to the followers and their answers, the
/// commit) as the API server's writes are, and the clock moves 100 ms (one heartbeat) every
/// thousand puts; the row is then `"runtime":"raft"`.
fn ledger(puts: usize, keys: usize, watchers: usize, replicated: bool) -> String {
    let mut store: Store<Arc<str>> = Store::new();
    let mut etcd = replicated.then(|| EtcdCluster::new_or_three(3, 1));
    let names: Vec<String> = (0..keys)
        .map(|i| format!("/registry/pods/ns-{}/pod-{i:06}", i % 10))
        .collect();
    let value: Arc<str> = Arc::from("{\"kind\":\"Pod\",\"apiVersion\":\"v1\"}");
    let prefixes: Vec<&str> = (0..watchers).map(|_| "/registry/pods/").collect();
    let mut delivered = 0u64;
    let start = clock_start();
    for i in 0..puts {
        let Some(key) = names.get(i % keys.max(1)) else {
            break;
        };
        if let Some(etcd) = etcd.as_mut() {
            let Ok(committed) = etcd.propose(store.revision(), || key.clone()) else {
                break;
            };
            let _ = store.put(key, Arc::clone(&value), None);
            etcd.applied(committed, store.revision());
            if i % 1_000 == 999 {
                let now = Timestamp::from_millis((i as u64 + 1) / 10);
                etcd.advance_to(now, store.revision());
            }
        } else {
            let _ = store.put(key, Arc::clone(&value), None);
        }
        let events = store.events_at(store.revision());
        for prefix in &prefixes {
            delivered += events
                .iter()
                .filter(|e| e.kv.key.starts_with(prefix))
                .count() as u64;
        }
    }
    let secs = cpu_or_wall_since(start);
    let runtime = if replicated {
        ",\"runtime\":\"raft\""
    } else {
        ""
    };
    format!(
        "{{\"bench\":\"ledger\",\"puts\":{puts},\"keys\":{keys},\"watchers\":{watchers}{runtime},\
         \"seconds\":{secs:.4},\"puts_per_s\":{:.0},\"events_per_s\":{:.0}}}",
        puts as f64 / secs,
        delivered as f64 / secs,
    )
}

fn pod(i: usize, node: &str) -> Object {
    let mut meta = ObjectMeta::named("default", &format!("pod-{i:06}"));
    meta.labels.insert("app".into(), "web".into());
    Object::Pod(Pod {
        metadata: meta,
        spec: PodSpec {
            containers: vec![Container {
                name: "c".into(),
                image: "nginx:1.27".into(),
                ..Default::default()
            }]
            .into(),
            node_name: node.to_string(),
            ..Default::default()
        }
        .into(),
        ..Default::default()
    })
}

/// The API server's fan-out: `writes` pod creates with `watchers` pod watches open, each
/// `spec.nodeName=node-<n>` (selective: one matches a pod) or unfiltered (all match). Every
/// stream is drained after each create.
fn fanout(watchers: usize, selective: bool, writes: usize) -> String {
    let cfg = ServerConfig {
        compaction_interval_ms: 0,
        ledger_limit: 1000,
        ..Default::default()
    };
    let mut s = ApiServer::with_config(1, cfg);
    s.set_watch_buffer_limit(usize::MAX);
    s.set_quota_bytes(u64::MAX);
    let streams: Vec<u64> = (0..watchers)
        .filter_map(|n| {
            let field_selector = if selective {
                FieldSelector::parse(&format!("spec.nodeName=node-{n}")).ok()?
            } else {
                FieldSelector::everything()
            };
            let opts = ListOptions {
                field_selector,
                timeout_seconds: Some(1 << 30),
                ..Default::default()
            };
            s.watch(&format!("watcher-{n}"), Kind::Pod, None, &opts)
                .ok()
        })
        .collect();
    let mut delivered = 0u64;
    let start = clock_start();
    for i in 0..writes {
        let node = format!("node-{}", i % watchers.max(1));
        let _ = s.create("bench", pod(i, &node));
        if selective {
            // Only the stream of the pod's node has something to read.
            if let Some(id) = streams.get(i % watchers.max(1)) {
                delivered += s.poll(*id).map_or(0, |e| e.len()) as u64;
            }
        } else {
            for id in &streams {
                delivered += s.poll(*id).map_or(0, |e| e.len()) as u64;
            }
        }
    }
    let secs = cpu_or_wall_since(start);
    format!(
        "{{\"bench\":\"fanout\",\"watchers\":{watchers},\"selective\":{selective},\
         \"writes\":{writes},\"delivered\":{delivered},\"seconds\":{secs:.4},\
         \"us_per_write\":{:.3},\"us_per_delivered\":{:.4}}}",
        secs * 1e6 / writes.max(1) as f64,
        secs * 1e6 / delivered.max(1) as f64,
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `cargo bench` passes `--bench`; `cargo test` does not: then only the smoke sizes run.
    let smoke = args.iter().any(|a| a == "--smoke") || !args.iter().any(|a| a == "--bench");
    let out = args
        .iter()
        .position(|a| a == "--out")
        .and_then(|i| args.get(i + 1))
        .cloned();
    let shapes: Vec<(usize, u32)> = args
        .iter()
        .filter_map(|a| {
            let (n, p) = a.split_once('x')?;
            Some((n.parse().ok()?, p.parse().ok()?))
        })
        .collect();
    let only_cluster = !shapes.is_empty();
    // `--timings training` (or `kubernetes`): that profile's cluster rows only.
    let timings = args
        .iter()
        .position(|a| a == "--timings")
        .and_then(|i| args.get(i + 1))
        .cloned();
    // `--no-ha`: the one-instance rows only, as older binaries run them (a paired comparison).
    let ha = !args.iter().any(|a| a == "--no-ha");
    let shapes = match (shapes.is_empty(), smoke) {
        (false, _) => shapes,
        (true, true) => vec![(3, 3), (10, 30)],
        (true, false) => vec![
            (3, 3),
            (10, 300),
            (50, 1_500),
            (100, 3_000),
            (1_000, 30_000),
        ],
    };
    let mut sink: Box<dyn Write> = match &out {
        Some(path) => match std::fs::File::create(path) {
            Ok(f) => Box::new(f),
            Err(e) => {
                eprintln!("scale: cannot write {path}: {e}");
                std::process::exit(2);
            }
        },
        None => Box::new(std::io::stdout()),
    };
    let mut emit = |line: String| {
        eprintln!("{line}");
        if out.is_some() {
            let _ = writeln!(sink, "{line}");
        }
    };
    emit(format!(
        "{{\"bench\":\"meta\",\"smoke\":{smoke},\"cores\":{},\"profile\":\"{}\"}}",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "bench"
        },
    ));
    // The bare ledger and fan-out first (seconds), then the clusters from small to large, so a
    // run cut short still reports everything but its largest shapes.
    if !only_cluster {
        let (puts, keys) = if smoke {
            (2_000, 500)
        } else {
            (100_000, 10_000)
        };
        for watchers in [1, 10, 100] {
            emit(ledger(puts, keys, watchers, false));
            emit(ledger(puts, keys, watchers, true));
        }
        let watcher_counts: &[usize] = if smoke {
            &[10, 100]
        } else {
            &[10, 100, 1_000, 10_000]
        };
        for &w in watcher_counts {
            let writes = if smoke { 200 } else { 10_000 };
            emit(fanout(w, true, writes));
            // All-matching: every write is delivered `w` times; fewer writes keep it short.
            let writes = if smoke {
                50
            } else {
                (1_000_000 / w).clamp(100, 10_000)
            };
            emit(fanout(w, false, writes));
        }
    }
    // A DaemonSet on the largest shape's nodes (5,000 in a full run).
    if !only_cluster {
        emit(daemon_set_row(if smoke { 3 } else { 5_000 }));
    }
    // Each shape with the playground's `Training` profile (the rows the wasm and rival runs
    // compare with), each followed by the same shape with the HA control plane (issue #34's
    // row: 3 API servers × 2 replicas each), then with the real defaults (`Kubernetes`).
    for profile in [ProfileName::Training, ProfileName::Kubernetes] {
        if timings
            .as_deref()
            .is_some_and(|t| t != profile_name(profile))
        {
            continue;
        }
        for &(n, p) in &shapes {
            let (line, one) = cluster(n, p, profile, ControlPlane::SINGLE, None);
            emit(line);
            if profile == ProfileName::Training && ha {
                emit(cluster(n, p, profile, ControlPlane::HA, Some(one)).0);
            }
        }
    }
}
