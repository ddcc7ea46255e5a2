//! The whole control plane converging: `N` nodes, one Deployment of `P` replicas, virtual time
//! advanced one second at a time until the Deployment reports every replica ready, with every
//! controller, kubelet and informer running. Prints one line per shape (the README's whole-cluster table comes from it).
//!
//! Shapes come from the command line as `NODESxPODS` (default: a small ladder), so
//! `cargo bench -p watchlab-engine --bench cluster -- 100x3000` measures one.

use std::time::Instant;

use watchlab_engine::api::Kind;
use watchlab_engine::cluster::{Action, Cluster, ClusterConfig, ProfileName};

fn converge(nodes: usize, pods: u32, profile: ProfileName) -> (f64, u64) {
    let names: Vec<String> = (0..nodes).map(|i| format!("node-{i}")).collect();
    let start = Instant::now();
    let mut cluster = Cluster::new(ClusterConfig {
        nodes: names,
        seed_objects: false,
        profile,
        ..ClusterConfig::default()
    });
    cluster
        .apply(Action::CreateDeployment {
            namespace: "default".into(),
            name: "web".into(),
            image: "nginx:1.27".into(),
            replicas: pods,
            labels: vec![("app".into(), "web".into())],
        })
        .expect("create deployment");
    let mut t = cluster.now();
    loop {
        t = t.plus_millis(1000);
        cluster.advance_to(t);
        let ready = cluster
            .api()
            .get(Kind::Deployment, Some("default"), "web")
            .ok()
            .and_then(|o| o.as_deployment().map(|d| d.status.ready_replicas))
            .unwrap_or(0);
        if ready >= pods as i32 {
            break;
        }
        assert!(
            t.0 < 3_600_000,
            "did not converge within an hour of virtual time"
        );
    }
    (start.elapsed().as_secs_f64(), t.0)
}

fn main() {
    let shapes: Vec<(usize, u32)> = std::env::args()
        .skip(1)
        .filter_map(|a| {
            let (n, p) = a.split_once('x')?;
            Some((n.parse().ok()?, p.parse().ok()?))
        })
        .collect();
    let shapes = if shapes.is_empty() {
        vec![(3, 3), (10, 300), (50, 1500), (100, 3000)]
    } else {
        shapes
    };
    for (n, p) in shapes {
        let (secs, virt) = converge(n, p, ProfileName::Training);
        println!(
            "cluster {n} nodes x {p} pods: {secs:.2} s ({:.1} us/pod), {} virtual s",
            secs * 1e6 / f64::from(p),
            virt / 1000
        );
    }
}
