//! The official Kubernetes clients, unchanged, against watchlab-apiserver: the Python `kubernetes`
//! package and `@kubernetes/client-node` 2.x, installed by `scripts/setup.sh` (which `./x test`
//! runs) into `target/clients/`. Each script in `tests/clients/` prints `ok NAME` / `FAIL NAME`
//! per check; a missing client fails the test with the command that installs it (no silent skip).
//! The Python controller of `examples/python-controller/` runs here too.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::TestServer;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// An interpreter `scripts/setup.sh` installs, or a failure that says how to get it.
fn installed(relative: &str) -> PathBuf {
    let path = root().join(relative);
    assert!(
        path.exists(),
        "{} is missing: the official clients are installed by `bash -c 'source scripts/setup.sh \
         && setup_clients'` (./x test does it)",
        path.display()
    );
    path
}

fn python() -> PathBuf {
    installed("target/clients/python/bin/python")
}

fn node() -> PathBuf {
    installed("target/clients/node/node_modules/.bin/node")
}

/// Runs `program args` against `s`, answering its `@compact` requests by compacting the store;
/// returns its whole output after asserting it exited 0.
fn run(s: &TestServer, program: PathBuf, args: &[PathBuf]) -> String {
    // client-node refuses plain http unless the cluster says `insecure-skip-tls-verify: true`
    // (its own rule, `createDispatcherOptions`); the Python client and kubectl ignore the line.
    let kubeconfig = s.write(
        "clients-config",
        &format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: http://{}\n    \
             insecure-skip-tls-verify: true\n  name: watchlab\ncontexts:\n- context:\n    \
             cluster: watchlab\n    user: learner\n  name: watchlab\ncurrent-context: watchlab\n\
             users:\n- name: learner\n  user: {{}}\n",
            s.addr
        ),
    );
    let mut child = Command::new(&program)
        .args(args)
        .env("KUBECONFIG", kubeconfig)
        .env("NODE_PATH", root().join("target/clients/node/node_modules"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let mut out = String::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.expect("read");
        if line == "@compact" {
            s.with_cluster(|c| {
                c.session("test").server().compact_now().expect("compact");
            });
            writeln!(stdin, "compacted").expect("answer");
            continue;
        }
        println!("{line}");
        out.push_str(&line);
        out.push('\n');
    }
    let status = child.wait().expect("wait");
    assert!(
        status.success(),
        "{} {args:?} failed:\n{out}",
        program.display()
    );
    out
}

/// How many checks printed `ok`.
fn passed(out: &str) -> usize {
    out.lines().filter(|l| l.starts_with("ok ")).count()
}

fn script(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/clients")
        .join(name)
}

#[test]
fn the_python_client_works_unchanged() {
    let s = TestServer::start();
    let out = run(&s, python(), &[script("python_client.py")]);
    assert_eq!(passed(&out), 7, "{out}");
}

#[test]
fn the_javascript_client_works_unchanged() {
    let s = TestServer::start();
    let out = run(&s, node(), &[script("client_node.mjs")]);
    assert_eq!(passed(&out), 8, "{out}");
}
