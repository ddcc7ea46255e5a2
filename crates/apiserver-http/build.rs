//! Generates the etcd v3 gRPC services' server stubs (tonic's `manual` builder: the services
//! are listed here and their messages written in `src/etcd_grpc/pb.rs`, so no `.proto` file and
//! no `protoc`). Service, method and message names are etcd's (`api/etcdserverpb/rpc.proto`):
//! method `Foo` takes `FooRequest` and answers `FooResponse`, but for `Compact`.

use tonic_build::manual::{Builder, Method, Service};

/// Each served service and its methods.
const SERVICES: &[(&str, &[&str])] = &[
    ("KV", &["Range", "Put", "DeleteRange", "Txn", "Compact"]),
    ("Watch", &["Watch"]),
    (
        "Lease",
        &[
            "LeaseGrant",
            "LeaseRevoke",
            "LeaseKeepAlive",
            "LeaseTimeToLive",
            "LeaseLeases",
        ],
    ),
    ("Cluster", &["MemberList"]),
    (
        "Maintenance",
        &["Status", "MoveLeader", "Alarm", "Defragment"],
    ),
];

/// The methods whose requests and answers are both streams.
const BIDI: &[&str] = &["Watch", "LeaseKeepAlive"];

/// `DeleteRange` → `delete_range`.
fn snake(route: &str) -> String {
    let mut out = String::new();
    for (i, c) in route.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

fn main() {
    // The crate is empty on wasm32 (its server is native only).
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        return;
    }
    let services: Vec<Service> = SERVICES
        .iter()
        .map(|(name, methods)| {
            let mut b = Service::builder().name(*name).package("etcdserverpb");
            for route in *methods {
                let message = if *route == "Compact" {
                    "Compaction"
                } else {
                    route
                };
                let mut m = Method::builder()
                    .name(snake(route))
                    .route_name(*route)
                    .input_type(format!("crate::etcd_grpc::pb::{message}Request"))
                    .output_type(format!("crate::etcd_grpc::pb::{message}Response"))
                    .codec_path("tonic_prost::ProstCodec");
                if BIDI.contains(route) {
                    m = m.client_streaming().server_streaming();
                }
                b = b.method(m.build());
            }
            b.build()
        })
        .collect();
    Builder::new().build_client(false).compile(&services);
}
