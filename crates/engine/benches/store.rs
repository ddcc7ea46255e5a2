//! Store throughput at the scale the playground promises (150,000 pods in one tab): puts and
//! compare-and-swap updates into a full store, listing one namespace, and compacting a million
//! events. Run: `cargo bench -p watchlab-engine --bench store -- --quick`.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use watchlab_engine::store::{Compare, CompareOp, CompareTarget, Op, Store, Txn};

const PODS: usize = 150_000;
const NAMESPACES: usize = 100;

/// Values are shared like the API server's `Arc<Object>`.
type Value = Arc<str>;

fn pod_key(i: usize) -> String {
    format!("/registry/pods/ns-{}/pod-{i:06}", i % NAMESPACES)
}

fn full_store() -> (Store<Value>, Vec<String>) {
    let mut store = Store::new();
    let keys: Vec<String> = (0..PODS).map(pod_key).collect();
    let value: Value = Arc::from("{\"kind\":\"Pod\"}");
    for key in &keys {
        let _ = store.put(key, Arc::clone(&value), None);
    }
    (store, keys)
}

fn writes(c: &mut Criterion) {
    let (mut store, keys) = full_store();
    let value: Value = Arc::from("{\"kind\":\"Pod\",\"status\":{}}");
    let mut group = c.benchmark_group("store_150k_keys");
    group.throughput(Throughput::Elements(1));
    let mut i = 0usize;
    group.bench_function("put_update", |b| {
        b.iter(|| {
            i = (i + 7919) % PODS;
            black_box(store.put(&keys[i], Arc::clone(&value), None))
        })
    });
    group.bench_function("txn_cas_update", |b| {
        b.iter(|| {
            i = (i + 7919) % PODS;
            let key = &keys[i];
            let seen = store.get(key).map_or(0, |kv| kv.mod_revision);
            black_box(store.txn(Txn {
                compare: vec![Compare::new(
                    key.as_str(),
                    CompareTarget::ModRevision,
                    CompareOp::Equal,
                    seen,
                )],
                success: vec![Op::Put {
                    key: key.clone(),
                    value: Arc::clone(&value),
                    lease: None,
                }],
                failure: vec![Op::Get { key: key.clone() }],
            }))
        })
    });
    group.throughput(Throughput::Elements((PODS / NAMESPACES) as u64));
    group.bench_function("range_one_namespace_1500_keys", |b| {
        b.iter(|| black_box(store.range_prefix("/registry/pods/ns-42/", None, None, None)))
    });
    group.throughput(Throughput::Elements(500));
    group.bench_function("range_one_namespace_limit_500", |b| {
        b.iter(|| black_box(store.range_prefix("/registry/pods/ns-42/", None, None, Some(500))))
    });
    group.bench_function("range_all_pods_limit_500_counting_150k", |b| {
        b.iter(|| black_box(store.range_prefix("/registry/pods/", None, None, Some(500))))
    });
    group.throughput(Throughput::Elements(PODS as u64));
    group.bench_function("list_all_150k_pods_in_pages_of_500", |b| {
        b.iter(|| {
            let at = Some(store.revision());
            let mut start_after: Option<Arc<str>> = None;
            let mut listed = 0;
            loop {
                let page =
                    store.range_prefix("/registry/pods/", start_after.as_deref(), at, Some(500));
                let Ok(page) = page else { break };
                listed += page.kvs.len();
                match page.kvs.last() {
                    Some(last) if page.more => start_after = Some(Arc::clone(&last.key)),
                    _ => break,
                }
            }
            black_box(listed)
        })
    });
    group.throughput(Throughput::Elements(500));
    let past = store.revision() - 1_000;
    group.bench_function("range_one_namespace_limit_500_past_revision", |b| {
        b.iter(|| {
            black_box(store.range_prefix("/registry/pods/ns-42/", None, Some(past), Some(500)))
        })
    });
    group.finish();
}

fn compaction(c: &mut Criterion) {
    const KEYS: usize = 10_000;
    const EVENTS: usize = 1_000_000;
    let value: Value = Arc::from("v");
    let keys: Vec<String> = (0..KEYS).map(pod_key).collect();
    let mut group = c.benchmark_group("store_compaction");
    group.sample_size(10);
    group.throughput(Throughput::Elements(EVENTS as u64));
    group.bench_function("compact_1m_events", |b| {
        b.iter_batched(
            || {
                let mut store = Store::new();
                for n in 0..EVENTS {
                    let _ = store.put(&keys[n % KEYS], Arc::clone(&value), None);
                }
                store
            },
            |mut store| {
                let at = store.revision();
                black_box(store.compact(at)).ok();
                store
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, writes, compaction);
criterion_main!(benches);
