//! The real etcdctl (Debian's `etcd-client`, v3.4) against `--etcd-port`: the etcd v3 API over
//! gRPC, answered by the cluster's members. What etcdctl prints is checked, and that the API
//! server sees what etcdctl writes. Skipped (with a note) without etcdctl.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::io::Read;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use common::{wait_until, TestServer};
use watchlab_apiserver_http::Args;

fn etcdctl_available() -> bool {
    let ok = Command::new("etcdctl")
        .arg("version")
        .env("ETCDCTL_API", "3")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!(
            "note: `etcdctl` not found on PATH (scripts/setup.sh installs etcd-client); skipping"
        );
    }
    ok
}

fn server() -> TestServer {
    TestServer::start_with(Args {
        port: 0,
        etcd_port: Some(0),
        ..Args::default()
    })
}

/// `etcdctl --endpoints=<member 0> ARGS`; (stdout, stderr without clientv3's JSON log lines).
fn etcdctl(s: &TestServer, args: &[&str]) -> (String, String, i32) {
    let endpoints = format!("--endpoints={}", s.etcd[0]);
    let out: Output = Command::new("etcdctl")
        .env("ETCDCTL_API", "3")
        .arg(endpoints)
        .args(args)
        .output()
        .expect("run etcdctl");
    let stderr = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| !l.starts_with('{'))
        .map(|l| format!("{l}\n"))
        .collect();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr,
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn member_list_and_endpoint_status_show_the_members_and_their_leader() {
    if !etcdctl_available() {
        return;
    }
    let s = server();
    let (out, err, code) = etcdctl(&s, &["member", "list", "-w", "table"]);
    assert_eq!((err.as_str(), code), ("", 0));
    for (i, name) in ["etcd-0", "etcd-1", "etcd-2"].iter().enumerate() {
        let row = out
            .lines()
            .find(|l| l.contains(&format!(" {name} ")))
            .unwrap_or_else(|| panic!("{name} in\n{out}"));
        assert!(row.contains(&format!("| {} |", s.etcd[i])), "{row}");
        assert!(row.contains("| started |"), "{row}");
    }
    let (out, _, code) = etcdctl(&s, &["endpoint", "status", "--cluster", "-w", "table"]);
    assert_eq!(code, 0);
    let leaders: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("|      true |"))
        .collect();
    assert_eq!(leaders.len(), 1, "{out}");
    assert!(
        leaders[0].contains(&s.etcd[0].to_string()),
        "etcd-0 leads term 1: {out}"
    );
}

#[test]
fn keys_revisions_and_writes_are_the_api_servers() {
    if !etcdctl_available() {
        return;
    }
    let s = server();
    let out = wait_until("the seed's three pods", Duration::from_secs(20), || {
        let (out, _, _) = etcdctl(&s, &["get", "/registry/pods", "--prefix", "--keys-only"]);
        (out.lines().filter(|l| !l.is_empty()).count() == 3).then_some(out)
    });
    let keys: Vec<&str> = out.lines().filter(|l| !l.is_empty()).collect();
    // A pod's mod_revision is its resourceVersion (read again if its kubelet wrote between the
    // two reads).
    let key = keys[0].to_string();
    let name = key.rsplit('/').next().unwrap_or_default().to_string();
    wait_until(
        "mod_revision = resourceVersion",
        Duration::from_secs(20),
        || {
            let (json, _, _) = etcdctl(&s, &["get", &key, "-w", "json"]);
            let v: serde_json::Value = serde_json::from_str(&json).ok()?;
            let mod_revision = v["kvs"][0]["mod_revision"].as_i64()?;
            let rv = s.console(&format!(
                "kubectl get pod {name} -n production -o jsonpath={{.metadata.resourceVersion}}"
            ));
            (rv.trim() == mod_revision.to_string()).then_some(())
        },
    );

    // A ConfigMap put straight into etcd is served by the API server.
    let value = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"from-etcd"},"data":{"via":"grpc"}}"#;
    let (out, err, code) = etcdctl(
        &s,
        &["put", "/registry/configmaps/default/from-etcd", value],
    );
    assert_eq!((out.as_str(), err.as_str(), code), ("OK\n", "", 0));
    assert_eq!(
        s.console("kubectl get configmap from-etcd -o jsonpath={.data.via}"),
        "grpc"
    );
    let (out, _, _) = etcdctl(&s, &["del", "/registry/configmaps/default/from-etcd"]);
    assert_eq!(out, "1\n");
    assert_eq!(
        s.console_run("kubectl get configmap from-etcd").1,
        "Error from server (NotFound): configmaps \"from-etcd\" not found\n"
    );

    // etcd's own error texts, through clientv3.
    let now = s.with_cluster(|c| c.api().revision());
    let (out, _, _) = etcdctl(&s, &["compaction", &now.to_string()]);
    assert_eq!(out, format!("compacted revision {now}\n"));
    let (_, err, code) = etcdctl(&s, &["get", &key, "--rev=2"]);
    assert_eq!(
        (err.as_str(), code),
        (
            "Error: etcdserver: mvcc: required revision has been compacted\n",
            1
        )
    );
    // A txn read from etcdctl's standard input: the compare chooses the branch.
    let txn = |stdin: &str| {
        let mut child = Command::new("etcdctl")
            .env("ETCDCTL_API", "3")
            .arg(format!("--endpoints={}", s.etcd[0]))
            .arg("txn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn etcdctl txn");
        use std::io::Write;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(stdin.as_bytes())
            .expect("write");
        String::from_utf8_lossy(&child.wait_with_output().expect("txn").stdout).into_owned()
    };
    let lines = format!(
        "mod(\"/registry/configmaps/default/t\") = \"0\"\n\nput /registry/configmaps/default/t {}\n\nget /registry/configmaps/default/t\n\n",
        r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"t"}}"#
    );
    assert_eq!(txn(&lines), "SUCCESS\n\nOK\n");
    assert!(txn(&lines).starts_with("FAILURE\n\n/registry/configmaps/default/t\n{"));

    let (out, _, _) = etcdctl(&s, &["lease", "grant", "30"]);
    assert!(out.ends_with(" granted with TTL(30s)\n"), "{out}");
}

#[test]
fn a_watch_sees_a_kubectl_label_as_the_member_applies_it() {
    if !etcdctl_available() {
        return;
    }
    let s = server();
    let key = "/registry/deployments/production/orders-api";
    // From the next revision on: the label is seen however long etcdctl takes to connect.
    let from = format!("--rev={}", s.with_cluster(|c| c.api().revision()) + 1);
    let mut watch = Command::new("etcdctl")
        .env("ETCDCTL_API", "3")
        .arg(format!("--endpoints={}", s.etcd[1]))
        .args(["watch", key, "--prev-kv", &from])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn etcdctl watch");
    s.console("kubectl label deployment orders-api -n production team=etcd --overwrite");
    let mut stdout = watch.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 65536];
        let mut seen = String::new();
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 {
                break;
            }
            seen.push_str(&String::from_utf8_lossy(&buf[..n]));
            let lines: Vec<&str> = seen.lines().collect();
            // A whole event with the label: PUT, key, value before, key, value after.
            if let Some(i) = lines.iter().position(|l| l.contains(r#""team":"etcd""#)) {
                if i >= 4 && seen.ends_with('\n') {
                    let _ = tx.send(lines[i - 4..=i].join("\n"));
                    break;
                }
            }
        }
    });
    let event = rx.recv_timeout(Duration::from_secs(10)).unwrap_or_default();
    let _ = watch.kill();
    let _ = watch.wait();
    let lines: Vec<&str> = event.lines().collect();
    assert_eq!(lines.len(), 5, "no labelled event seen");
    assert_eq!(lines[..2], ["PUT", key]);
    assert_eq!(lines[3], key);
    assert!(
        !lines[2].contains("\"team\""),
        "the value before: {}",
        lines[2]
    );
}
