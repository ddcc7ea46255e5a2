//! Generates the etcd v3 gRPC services' server stubs (tonic's `manual` builder: the services
//! are listed here and their messages written in `src/etcd_grpc/pb.rs`, so no `.proto` file and
//! no `protoc`). Method and route names are etcd's (`api/etcdserverpb/rpc.proto`).

use tonic_build::manual::{Builder, Method, Service};

/// (rust name, route name, request, response, client streams, server streams).
type MethodSpec = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    bool,
    bool,
);

fn service(name: &str, methods: &[MethodSpec]) -> Service {
    let mut b = Service::builder().name(name).package("etcdserverpb");
    for &(rust, route, input, output, client_streaming, server_streaming) in methods {
        let mut m = Method::builder()
            .name(rust)
            .route_name(route)
            .input_type(format!("crate::etcd_grpc::pb::{input}"))
            .output_type(format!("crate::etcd_grpc::pb::{output}"))
            .codec_path("tonic_prost::ProstCodec");
        if client_streaming {
            m = m.client_streaming();
        }
        if server_streaming {
            m = m.server_streaming();
        }
        b = b.method(m.build());
    }
    b.build()
}

fn main() {
    // The crate is empty on wasm32 (its server is native only).
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        return;
    }
    let services = [
        service(
            "KV",
            &[
                (
                    "range",
                    "Range",
                    "RangeRequest",
                    "RangeResponse",
                    false,
                    false,
                ),
                ("put", "Put", "PutRequest", "PutResponse", false, false),
                (
                    "delete_range",
                    "DeleteRange",
                    "DeleteRangeRequest",
                    "DeleteRangeResponse",
                    false,
                    false,
                ),
                (
                    "compact",
                    "Compact",
                    "CompactionRequest",
                    "CompactionResponse",
                    false,
                    false,
                ),
            ],
        ),
        service(
            "Watch",
            &[(
                "watch",
                "Watch",
                "WatchRequest",
                "WatchResponse",
                true,
                true,
            )],
        ),
        service(
            "Lease",
            &[
                (
                    "lease_grant",
                    "LeaseGrant",
                    "LeaseGrantRequest",
                    "LeaseGrantResponse",
                    false,
                    false,
                ),
                (
                    "lease_revoke",
                    "LeaseRevoke",
                    "LeaseRevokeRequest",
                    "LeaseRevokeResponse",
                    false,
                    false,
                ),
                (
                    "lease_keep_alive",
                    "LeaseKeepAlive",
                    "LeaseKeepAliveRequest",
                    "LeaseKeepAliveResponse",
                    true,
                    true,
                ),
                (
                    "lease_time_to_live",
                    "LeaseTimeToLive",
                    "LeaseTimeToLiveRequest",
                    "LeaseTimeToLiveResponse",
                    false,
                    false,
                ),
                (
                    "lease_leases",
                    "LeaseLeases",
                    "LeaseLeasesRequest",
                    "LeaseLeasesResponse",
                    false,
                    false,
                ),
            ],
        ),
        service(
            "Cluster",
            &[(
                "member_list",
                "MemberList",
                "MemberListRequest",
                "MemberListResponse",
                false,
                false,
            )],
        ),
        service(
            "Maintenance",
            &[
                (
                    "status",
                    "Status",
                    "StatusRequest",
                    "StatusResponse",
                    false,
                    false,
                ),
                (
                    "move_leader",
                    "MoveLeader",
                    "MoveLeaderRequest",
                    "MoveLeaderResponse",
                    false,
                    false,
                ),
            ],
        ),
    ];
    Builder::new().build_client(false).compile(&services);
}
