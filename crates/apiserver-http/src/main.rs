//! `watchlab-apiserver`: parses the flags, binds 127.0.0.1, says there is no authentication,
//! and serves until killed (exit code 1 on a bad flag or a taken port).

#[cfg(target_arch = "wasm32")]
fn main() {}

/// mimalloc, not the system's: see this crate's Cargo.toml.
#[cfg(not(target_arch = "wasm32"))]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(not(target_arch = "wasm32"))]
use std::process::ExitCode;
#[cfg(not(target_arch = "wasm32"))]
use watchlab_apiserver_http::{Args, ArgsError, Server};

#[cfg(not(target_arch = "wasm32"))]
fn main() -> ExitCode {
    let args = match Args::parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(ArgsError::Help) => {
            println!("{}", watchlab_apiserver_http::args::USAGE);
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("error: {e}\n{}", watchlab_apiserver_http::args::USAGE);
            return ExitCode::FAILURE;
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        let server = match Server::bind(&args).await {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        };
        let addr = server
            .local_addr()
            .map(|a| a.to_string())
            .unwrap_or_default();
        let started = server.started_at();
        println!(
            "Serving the watchlab API server on http://{addr} (seed {}, speed x{}, virtual clock from {started})",
            args.seed, args.speed
        );
        println!(
            "WARNING: no authentication and no authorization: anyone on this machine can use it."
        );
        println!("kubectl --server=http://{addr} get nodes");
        let etcd: Vec<String> = server.etcd_addrs().iter().map(|a| a.to_string()).collect();
        if !etcd.is_empty() {
            println!("etcdctl --endpoints={} member list -w table", etcd.join(","));
        }
        server.run().await;
        ExitCode::SUCCESS
    })
}
