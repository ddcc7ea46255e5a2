//! The official Kubernetes clients, unchanged, against watchlab-apiserver: the Python `kubernetes`
//! package and `@kubernetes/client-node` 2.x, and two third-party Python clients, kr8s and
//! lightkube, installed by `scripts/setup.sh` (which `./x test` runs) into `target/clients/`. Each script in `tests/clients/` prints `ok NAME` / `FAIL NAME`
//! per check; a missing client fails the test with the command that installs it (no silent skip).
//! A script asks the test for what no client can do by printing a line: `@compact` (etcd
//! compacts at its revision: continue tokens and Exact lists before it expire) and `@busy` (the
//! pods watch cache's window of events moves past every revision so far: watches from them
//! expire, while etcd still has them). The Python controller of `examples/python-controller/`
//! runs here too.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{label, move_pods_window_on, move_window_on, TestServer};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use watchlab_apimachinery::client::ApiClient;

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

/// The virtual environment's Python, or `$WATCHLAB_CLIENTS_PYTHON` (another client version:
/// a Python with another `kubernetes` installed).
fn python() -> PathBuf {
    match std::env::var_os("WATCHLAB_CLIENTS_PYTHON") {
        Some(other) => PathBuf::from(other),
        None => installed("target/clients/python/bin/python"),
    }
}

fn node() -> PathBuf {
    installed("target/clients/node/node_modules/.bin/node")
}

/// Runs `program args` against `s`, answering its `@compact` requests by compacting the store
/// and its `@busy` requests by moving the pods watch cache on; returns its whole output after
/// asserting it exited 0.
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
        if line == "@busy" {
            s.with_cluster(move_pods_window_on);
            writeln!(stdin, "moved on").expect("answer");
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
    assert_eq!(passed(&out), 8, "{out}");
}

/// kr8s: a PodDisruptionBudget's count, an eviction it allows and the 429 it answers next (kr8s
/// has no eviction method: the script posts through kr8s's own API client), `Pod.logs()`, and
/// `kr8s.get("events")` in both Event versions. At ten times the wall clock, so the pods start
/// in well under a second.
#[test]
fn kr8s_evicts_past_a_budget_reads_logs_and_lists_events() {
    let s = TestServer::at_speed(10.0);
    let out = run(&s, python(), &[script("kr8s_client.py")]);
    assert_eq!(passed(&out), 3, "{out}");
}

/// lightkube: `Pod.Eviction` creates (allowed, then the budget's 429 as `ApiError`), `log()`,
/// core Events of a pod and an `events.k8s.io/v1` Event created, listed and read back as a core
/// Event.
#[test]
fn lightkube_evicts_past_a_budget_reads_logs_and_lists_events() {
    let s = TestServer::at_speed(10.0);
    let out = run(&s, python(), &[script("lightkube_client.py")]);
    assert_eq!(passed(&out), 4, "{out}");
}

#[test]
fn the_javascript_client_works_unchanged() {
    let s = TestServer::start();
    let out = run(&s, node(), &[script("client_node.mjs")]);
    assert_eq!(passed(&out), 9, "{out}");
}

/// The example controller as a child process, its output read line by line.
struct Controller {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
    log: String,
}

impl Controller {
    fn start(s: &TestServer) -> Controller {
        let kubeconfig = s.kubeconfig();
        let mut child = Command::new(python())
            .arg(root().join("examples/python-controller/controller.py"))
            .arg("--pause-before-write")
            .env("KUBECONFIG", kubeconfig)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the controller");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Controller {
            child,
            stdin,
            lines,
            log: String::new(),
        }
    }

    /// Reads lines until one starts with `prefix` (answering every status-write pause on the
    /// way); a controller that stops talking for a minute or exits fails the test with its log.
    fn until(&mut self, prefix: &str) -> String {
        loop {
            let line = match self.lines.recv_timeout(std::time::Duration::from_secs(60)) {
                Ok(line) => line,
                Err(e) => panic!(
                    "no {prefix:?} from the controller ({e}); it said:\n{}",
                    self.log
                ),
            };
            println!("controller: {line}");
            self.log.push_str(&line);
            self.log.push('\n');
            if line.starts_with(prefix) {
                return line;
            }
            if line.starts_with("paused before") {
                self.resume();
            }
        }
    }

    fn resume(&mut self) {
        writeln!(self.stdin, "go").expect("resume the controller");
    }
}

impl Drop for Controller {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `examples/python-controller`: the Greeter custom resource's controller lists, watches from the
/// list's resourceVersion, retries its status write after a 409 and a re-read, relists after the
/// 410 of a watch from a resourceVersion the greeters watch cache no longer holds, and the Pods
/// it reconciles follow the Greeter's `spec.replicas`.
#[test]
fn the_example_python_controller_reconciles_through_409_and_410() {
    const GREETERS: &str = "/apis/example.watchlab.dev/v1/namespaces/default/greeters";
    let s = TestServer::start();
    let request = |method: &'static str, path: String, ct: Option<&'static str>, body: String| {
        s.with_cluster(move |c| {
            let r = c.session("learner").request(method, &path, ct, Some(&body));
            assert!(r.is_success(), "{method} {path}: {}", r.body);
            serde_json::from_str::<serde_json::Value>(&r.body).expect("json")
        })
    };
    let get = |path: String| request("GET", path, None, String::new());
    let greeter_pods = || -> Vec<String> {
        let list = get("/api/v1/namespaces/default/pods?labelSelector=greeter%3Dhello".into());
        let mut names: Vec<String> = list["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| p["metadata"]["deletionTimestamp"].is_null())
            .filter_map(|p| p["metadata"]["name"].as_str().map(str::to_string))
            .collect();
        names.sort();
        names
    };
    let crd = std::fs::read_to_string(root().join("examples/python-controller/greeter-crd.json"))
        .expect("greeter-crd.json");
    request(
        "POST",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions".into(),
        None,
        crd,
    );
    let mut ctl = Controller::start(&s);
    ctl.until("synced");
    request(
        "POST",
        GREETERS.into(),
        None,
        serde_json::json!({"apiVersion": "example.watchlab.dev/v1", "kind": "Greeter",
            "metadata": {"name": "hello"}, "spec": {"replicas": 3}})
        .to_string(),
    );
    ctl.until("paused before writing the status of default/hello");
    // Someone else writes the Greeter while the controller holds its older copy: its write is
    // refused with 409, it re-reads and retries.
    request(
        "PATCH",
        format!("{GREETERS}/hello"),
        Some("application/merge-patch+json"),
        r#"{"metadata":{"labels":{"team":"learners"}}}"#.into(),
    );
    ctl.resume();
    let conflict = ctl.until("conflict (409)");
    assert!(
        conflict.contains("the object has been modified"),
        "{conflict}"
    );
    ctl.until("reconciled default/hello: want=3 have=3");
    assert_eq!(greeter_pods(), ["hello-0", "hello-1", "hello-2"]);
    let greeter = get(format!("{GREETERS}/hello"));
    assert_eq!(greeter["status"]["observedReplicas"], 3, "{greeter}");

    // Its stream ended (as an API server restart would), then 80 busy seconds: the
    // greeters watch cache's window moves past the controller's position. It resumes from its
    // last resourceVersion, gets 410 Gone (etcd compacted nothing) and relists.
    s.with_cluster(|c| {
        {
            let mut session = c.session("test");
            let server = session.server();
            let greeter_watches: Vec<_> = server
                .streams()
                .filter(|st| st.filter().kind.resource().plural == "greeters")
                .map(|st| st.id())
                .collect();
            assert!(
                !greeter_watches.is_empty(),
                "the controller watches greeters"
            );
            for id in greeter_watches {
                server.stop_watch(id);
            }
        }
        let path = format!("{GREETERS}/hello");
        move_window_on(c, "greeters", |c, i| label(c, &path, i));
        assert_eq!(c.api().store().compact_revision(), 0, "nothing compacted");
    });
    ctl.until("watch ended; resuming");
    let expired = ctl.until("watch from");
    assert!(expired.contains("expired (410 Expired)"), "{expired}");
    ctl.until("synced");
    request(
        "PATCH",
        format!("{GREETERS}/hello"),
        Some("application/merge-patch+json"),
        r#"{"spec":{"replicas":1}}"#.into(),
    );
    ctl.until("reconciled default/hello: want=1 have=1");
    assert_eq!(greeter_pods(), ["hello-0"]);
}
