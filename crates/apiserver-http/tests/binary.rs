//! The `watchlab-apiserver` binary's own behaviour: a taken port is a clear error and exit 1,
//! a bad flag too.

#![cfg(not(target_arch = "wasm32"))]

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_watchlab-apiserver");

#[test]
fn a_taken_port_exits_with_1_and_says_so() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = taken.local_addr().expect("addr").port().to_string();
    let out = Command::new(BIN)
        .args(["--port", &port])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "failed to listen on 127.0.0.1:{port}: address already in use"
        )),
        "{err}"
    );
}

#[test]
fn a_bad_flag_exits_with_1_and_prints_usage() {
    let out = Command::new(BIN)
        .args(["--speed", "fast"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("invalid argument \"fast\" for \"speed\" flag"),
        "{err}"
    );
    assert!(err.contains("Usage: watchlab-apiserver"), "{err}");
}
