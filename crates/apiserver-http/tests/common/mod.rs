//! Test harness: a server on a free port (the OS picks it) in a background thread, a temporary
//! kubeconfig pointing at it without credentials, and the real `kubectl` run against it.

#![allow(dead_code)]

use std::io::Read;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use watchlab_apiserver_http::{Args, Server};
use watchlab_engine::cluster::Cluster;

/// Work to run on the server's thread, where the (`!Send`) cluster lives.
type Job = Box<dyn FnOnce(&mut Cluster) + Send>;

/// Returns from the calling test when the real kubectl is not installed (after
/// [`kubectl_available`] printed why). A test file takes it with `#[macro_use] mod common;`.
#[allow(unused_macros)]
macro_rules! need_kubectl {
    ($name:expr) => {
        if !$crate::common::kubectl_available($name) {
            return;
        }
    };
}

/// Whether the real kubectl is installed; prints why a test is skipped when it is not.
pub fn kubectl_available(test: &str) -> bool {
    let ok = Command::new("kubectl")
        .args(["version", "--client"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("note: `kubectl` not found on PATH; skipping {test}");
    }
    ok
}

/// Polls `f` until it gives a value, every 100 ms, failing the test after `max` ("timed out
/// waiting for {what}"): the one wait loop of these tests (kubectl is asked again each time).
pub fn wait_until<T>(what: &str, max: Duration, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + max;
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

pub struct TestServer {
    pub addr: SocketAddr,
    /// The etcd members' gRPC addresses (with `etcd_port: Some(0)`).
    pub etcd: Vec<SocketAddr>,
    jobs: tokio::sync::mpsc::UnboundedSender<Job>,
    dir: tempfile::TempDir,
}

/// What one kubectl run printed.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(o: Output) -> Self {
        Run {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

impl TestServer {
    pub fn start() -> TestServer {
        TestServer::start_with(Args {
            port: 0,
            ..Args::default()
        })
    }

    /// Starts a server with `args` (use port 0) on its own single-threaded runtime.
    pub fn start_with(args: Args) -> TestServer {
        let (tx, rx) = std::sync::mpsc::channel();
        let (jobs, mut queue) = tokio::sync::mpsc::unbounded_channel::<Job>();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            let local = tokio::task::LocalSet::new();
            local.block_on(&rt, async move {
                let server = Server::bind(&args).await.expect("bind");
                let shared = server.shared();
                tx.send((server.local_addr().expect("addr"), server.etcd_addrs()))
                    .expect("send");
                tokio::task::spawn_local(async move {
                    while let Some(job) = queue.recv().await {
                        job(&mut shared.catch_up());
                        shared.notify();
                    }
                });
                server.run().await;
            });
        });
        let (addr, etcd) = rx.recv().expect("server started");
        let dir = tempfile::tempdir().expect("tempdir");
        let config = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: http://{addr}\n  name: watchlab\ncontexts:\n- context:\n    cluster: watchlab\n    user: learner\n  name: watchlab\ncurrent-context: watchlab\nusers:\n- name: learner\n  user: {{}}\n"
        );
        std::fs::write(dir.path().join("config"), config).expect("kubeconfig");
        TestServer {
            addr,
            etcd,
            jobs,
            dir,
        }
    }

    /// A server whose virtual clock runs `speed` times the wall clock (10: a pod starts in
    /// well under a real second).
    pub fn at_speed(speed: f64) -> TestServer {
        TestServer::start_with(Args {
            port: 0,
            speed,
            ..Args::default()
        })
    }

    /// `kubectl create deployment NAME --image=IMAGE --replicas=N` with `extra` flags after.
    pub fn create_deployment(&self, name: &str, image: &str, replicas: u32, extra: &[&str]) {
        let image = format!("--image={image}");
        let replicas = format!("--replicas={replicas}");
        let mut args = vec!["create", "deployment", name, &image, &replicas];
        args.extend_from_slice(extra);
        self.ok(&args);
    }

    /// Runs `f` on the cluster (on the server's thread) and returns its result.
    pub fn with_cluster<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Cluster) -> R + Send + 'static,
    ) -> R {
        let (tx, rx) = std::sync::mpsc::channel();
        self.jobs
            .send(Box::new(move |c| {
                let _ = tx.send(f(c));
            }))
            .expect("server thread alive");
        rx.recv().expect("job ran")
    }

    /// What the console's kubectl (watchlab-kubectl, in the page) prints for `line` against
    /// the same cluster: stdout, stderr.
    pub fn console_run(&self, line: &str) -> (String, String) {
        let line = line.to_string();
        self.with_cluster(move |c| {
            let mut session = c.session("kubectl");
            let out = watchlab_kubectl::Kubectl::new().exec(&line, &mut session);
            (out.stdout, out.stderr)
        })
    }

    /// The console kubectl's stdout for `line`.
    pub fn console(&self, line: &str) -> String {
        self.console_run(line).0
    }

    pub fn kubeconfig(&self) -> PathBuf {
        self.dir.path().join("config")
    }

    /// A file in the test's temporary directory.
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.dir.path().join(name);
        std::fs::write(&p, text).expect("write");
        p
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new("kubectl");
        c.args(args)
            .env("KUBECONFIG", self.kubeconfig())
            .env("HOME", self.dir.path())
            .env_remove("KUBECTL_KUBERC");
        c
    }

    /// Runs kubectl to completion (killed after 30 s so a hang fails instead of blocking).
    pub fn kubectl(&self, args: &[&str]) -> Run {
        self.kubectl_with_env(args, &[])
    }

    /// [`TestServer::kubectl`] with more environment variables (`KUBE_EDITOR` for `edit`).
    /// Its output is read while it runs, so an answer larger than a pipe's buffer (the
    /// OpenAPI v2 document) cannot block it.
    pub fn kubectl_with_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut command = self.command(args);
        command.envs(env.iter().copied());
        Self::run_to_end(command, args)
    }

    /// [`TestServer::kubectl`] as the client `agent`: kubectl started with `agent` as its
    /// `argv[0]`, which client-go's default User-Agent begins with (`agent/v1.32.4 (linux/amd64)
    /// kubernetes/…`, `rest.DefaultKubernetesUserAgent`), so the server takes it for another
    /// client process than `kubectl` (a load balancer's connection of its own, with
    /// `--apiservers`).
    pub fn kubectl_as(&self, agent: &str, args: &[&str]) -> Run {
        use std::os::unix::process::CommandExt;
        let mut command = self.command(args);
        command.arg0(agent);
        Self::run_to_end(command, args)
    }

    /// [`TestServer::kubectl_as`] that must succeed; its stdout.
    pub fn ok_as(&self, agent: &str, args: &[&str]) -> String {
        let r = self.kubectl_as(agent, args);
        assert_eq!(
            r.code, 0,
            "{agent} {args:?} failed:\n{}{}",
            r.stdout, r.stderr
        );
        r.stdout
    }

    fn run_to_end(mut command: Command, args: &[&str]) -> Run {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn kubectl");
        let drain = |pipe: Option<Box<dyn Read + Send>>| {
            std::thread::spawn(move || {
                let mut text = String::new();
                if let Some(mut p) = pipe {
                    let _ = p.read_to_string(&mut text);
                }
                text
            })
        };
        let stdout = drain(
            child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        );
        let stderr = drain(
            child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        );
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait") {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                let out = stdout.join().unwrap_or_default();
                panic!("kubectl {args:?} hung; stdout so far:\n{out}");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        Run {
            code: status.code().unwrap_or(-1),
            stdout: stdout.join().unwrap_or_default(),
            stderr: stderr.join().unwrap_or_default(),
        }
    }

    /// kubectl that must succeed; its stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let r = self.kubectl(args);
        assert_eq!(
            r.code, 0,
            "kubectl {args:?} failed:\n{}{}",
            r.stdout, r.stderr
        );
        r.stdout
    }

    /// A long-running kubectl (`get -w`) whose stdout is collected until [`Streaming::stop`].
    pub fn spawn(&self, args: &[&str]) -> Streaming {
        let mut child = self
            .command(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn kubectl");
        let mut stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Streaming {
            child,
            rx,
            text: String::new(),
        }
    }
}

pub struct Streaming {
    child: Child,
    rx: std::sync::mpsc::Receiver<Vec<u8>>,
    text: String,
}

impl Streaming {
    /// Waits until stdout satisfies `done` or `max` passes; returns what was printed so far.
    pub fn wait_for(&mut self, max: Duration, done: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + max;
        while !done(&self.text) && Instant::now() < deadline {
            if let Ok(chunk) = self.rx.recv_timeout(Duration::from_millis(50)) {
                self.text.push_str(&String::from_utf8_lossy(&chunk));
            }
        }
        self.text.clone()
    }

    pub fn stop(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        while let Ok(chunk) = self.rx.try_recv() {
            self.text.push_str(&String::from_utf8_lossy(&chunk));
        }
        self.text
    }
}

/// Moves the watch cache of `plural` past every revision up to now, as a busy cluster does:
/// 80 s of virtual time (a full window grows instead of dropping its oldest event while that
/// event is younger than 75 s), then `write(cluster, i)` until the window has dropped every
/// event up to now (about a hundred: it starts at 100 events). etcd compacts nothing. Returns
/// the oldest resourceVersion a watch may now start from. The server's clock, 80 s ahead of
/// the wall clock's target then, stands still until the wall clock catches up.
pub fn move_window_on(
    c: &mut Cluster,
    plural: &str,
    mut write: impl FnMut(&mut Cluster, usize),
) -> u64 {
    let seen = c.api().revision();
    let later = c.now().plus_millis(80_000);
    c.advance_to(later);
    let oldest = |c: &Cluster| {
        c.api()
            .cachers()
            .find(|w| w.kind().resource().plural == plural)
            .unwrap_or_else(|| panic!("no watch cache of {plural}"))
            .window()
            .oldest_servable()
    };
    let mut writes = 0;
    while oldest(c) <= seen {
        assert!(
            writes < 1000,
            "the {plural} watch cache never moved past {seen}"
        );
        write(c, writes);
        writes += 1;
    }
    oldest(c)
}

/// [`move_window_on`] for pods, by label patches of a pod of `production` (which the tests'
/// watchers do not look at), or of the first pod there is when `production` has none.
pub fn move_pods_window_on(c: &mut Cluster) -> u64 {
    let list = c
        .session("test")
        .server()
        .handle("test", "GET", "/api/v1/pods", None, None);
    let list: serde_json::Value = serde_json::from_str(&list.body).expect("list");
    let items = list["items"].as_array().cloned().unwrap_or_default();
    let pod = items
        .iter()
        .find(|p| p["metadata"]["namespace"] == "production")
        .or(items.first())
        .expect("a pod to patch");
    let path = format!(
        "/api/v1/namespaces/{}/pods/{}",
        pod["metadata"]["namespace"].as_str().unwrap_or_default(),
        pod["metadata"]["name"].as_str().unwrap_or_default()
    );
    move_window_on(c, "pods", |c, i| label(c, &path, i))
}

/// A merge patch of the label `round=i` on the object at `path`.
pub fn label(c: &mut Cluster, path: &str, i: usize) {
    let patch = format!(r#"{{"metadata":{{"labels":{{"round":"{i}"}}}}}}"#);
    let r = c.session("test").server().handle(
        "test",
        "PATCH",
        path,
        Some("application/merge-patch+json"),
        Some(&patch),
    );
    assert_eq!(r.code, 200, "{}", r.body);
}
