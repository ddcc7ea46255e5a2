//! Watch fan-out cost: writes/s and delivered events/s with 1, 100 and 10,000 watchers (all but
//! one selective `spec.nodeName=` kubelet watches, plus one all-pods informer), and the scale the
//! playground promises: 5,000 nodes + 150,000 pods (time and a memory estimate from a counting
//! allocator). Run: `cargo bench -p watchlab-engine --bench watch -- --quick`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;
use watchlab_apimachinery::fields::FieldSelector;
use watchlab_apimachinery::request::ListOptions;
use watchlab_engine::api::node::Node;
use watchlab_engine::api::pod::{Container, Pod, PodSpec};
use watchlab_engine::api::{Kind, Object, ObjectMeta};
use watchlab_engine::apiserver::{ApiServer, ServerConfig};

/// Counts live heap bytes (benchmark binary only).
struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size(), Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn pod(i: usize, node: &str) -> Object {
    let mut meta = ObjectMeta::named("default", &format!("pod-{i:06}"));
    meta.labels.insert("app".into(), format!("app-{}", i % 50));
    Object::Pod(Pod {
        metadata: meta,
        spec: PodSpec {
            containers: vec![Container {
                name: "c".into(),
                image: "nginx:1.25".into(),
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

fn server() -> ApiServer {
    let cfg = ServerConfig {
        compaction_interval_ms: 0,
        ledger_limit: 1000,
        ..Default::default()
    };
    let mut s = ApiServer::with_config(1, cfg);
    s.set_watch_buffer_limit(usize::MAX);
    // Compaction is off, so history keeps every write: no space quota for a throughput run.
    s.set_quota_bytes(u64::MAX);
    s
}

fn node_watch(node: usize) -> ListOptions {
    ListOptions {
        field_selector: FieldSelector::parse(&format!("spec.nodeName=node-{node}"))
            .unwrap_or_default(),
        timeout_seconds: Some(1 << 30),
        ..Default::default()
    }
}

fn fan_out(c: &mut Criterion) {
    let mut g = c.benchmark_group("watch_fan_out");
    g.sample_size(10);
    for watchers in [1usize, 100, 10_000] {
        let mut s = server();
        let all = s
            .watch(
                "informer",
                Kind::Pod,
                None,
                &ListOptions {
                    timeout_seconds: Some(1 << 30),
                    ..Default::default()
                },
            )
            .unwrap_or(0);
        let kubelets: Vec<u64> = (0..watchers.saturating_sub(1))
            .map(|n| {
                s.watch(
                    &format!("kubelet/node-{n}"),
                    Kind::Pod,
                    None,
                    &node_watch(n),
                )
                .unwrap_or(0)
            })
            .collect();
        let nodes = kubelets.len().max(1);
        let mut i = 0usize;
        g.throughput(Throughput::Elements(1));
        g.bench_function(format!("create_pod/{watchers}_watchers"), |b| {
            b.iter(|| {
                i += 1;
                let node = format!("node-{}", i % nodes);
                let _ = s.create("bench", pod(i, &node));
                // The informer and the one kubelet concerned drain their streams.
                let _ = s.poll(all);
                if let Some(k) = kubelets.get(i % nodes) {
                    let _ = s.poll(*k);
                }
            })
        });
        let delivered: u64 = s.streams().map(|st| st.delivered()).sum();
        println!(
            "{watchers} watchers: {} writes, {delivered} events delivered, {} offers (index candidates)",
            i,
            s.watch_offers()
        );
    }
    g.finish();
}

fn scale(_c: &mut Criterion) {
    let base = LIVE.load(Ordering::Relaxed);
    let start = Instant::now();
    let mut s = server();
    for n in 0..5_000 {
        let node = Object::Node(Node {
            metadata: ObjectMeta::named("", &format!("node-{n}")),
            ..Default::default()
        });
        let _ = s.create("kubelet", node);
    }
    let kubelets: Vec<u64> = (0..5_000)
        .map(|n| {
            s.watch(
                &format!("kubelet/node-{n}"),
                Kind::Pod,
                None,
                &node_watch(n),
            )
            .unwrap_or(0)
        })
        .collect();
    let all = s
        .watch(
            "informer",
            Kind::Pod,
            None,
            &ListOptions {
                timeout_seconds: Some(1 << 30),
                ..Default::default()
            },
        )
        .unwrap_or(0);
    for i in 0..150_000usize {
        let _ = s.create("bench", pod(i, &format!("node-{}", i % 5_000)));
        if i % 1000 == 999 {
            let _ = s.poll(all);
            for k in &kubelets {
                let _ = s.poll(*k);
            }
        }
    }
    let elapsed = start.elapsed();
    let bytes = LIVE.load(Ordering::Relaxed).saturating_sub(base);
    println!(
        "scale: 5,000 nodes + 150,000 pods + 5,001 watches in {:.2?} ({:.0} writes/s), live heap ≈ {} MiB (store history {} events, revision {})",
        elapsed,
        155_000.0 / elapsed.as_secs_f64(),
        bytes >> 20,
        s.store().history_len(),
        s.revision()
    );
}

criterion_group!(benches, fan_out, scale);
criterion_main!(benches);
