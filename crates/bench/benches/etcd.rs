//! The rival row of the ledger benchmark (issue #11, benchmark item 3): the measurement of
//! `ledger()` in `benches/scale.rs` — `N` puts cycling over `K` keys
//! `/registry/pods/ns-<i%10>/pod-<i>` with `W` watchers on the `/registry/pods/` prefix — run
//! against a real etcd instead of watchlab's store, so BENCHMARKS.md can set the engine's figures
//! beside the real thing's. It exists as its own bench target because it needs an outside program
//! (Debian's `etcd-server`, installed by `scripts/setup.sh`'s `setup_etcd`) and real sockets,
//! which the engine's benchmark never touches.
//!
//! For each row it starts `etcd` on 127.0.0.1 with two free ports (client and peer), a fresh data
//! directory under /dev/shm when there is one (the engine is in memory too; the system's temp dir
//! when etcd cannot start there) and `--unsafe-no-fsync` (a hidden flag in 3.4, backported from
//! 3.5), waits for `/health`, then:
//! `W` streaming watches (`POST /v3/watch` on the gRPC-gateway's JSON over HTTP/1.1, one
//! connection and one reading thread each, counting the events it receives) and [`CLIENTS`]
//! keep-alive connections, one thread each, sharing the `N` puts (`POST /v3/kv/put`). *puts/s* is
//! `N` over the wall time from the first put to the last acknowledged one; *delivered events/s*
//! is every event the watchers received over the wall time from the first put until every
//! watcher had all `N`. A watcher that stops receiving for [`STALL`] ends the row with an
//! `error` instead of a hang. etcd is killed and its directory removed after each row, also on
//! error. The client is this file: std's sockets, serde_json for the bodies, base64 for the keys
//! (no gRPC crate: those need protoc).
//!
//! `cargo bench -p watchlab-bench --bench etcd -- [--smoke] [--out FILE]` (`./x bench etcd`).
//! Without `--bench` (under `cargo test`) it takes the smoke sizes. Rows are JSON lines in the
//! shape of `scale`'s ledger rows with `"runtime":"etcd"` and the etcd version.

use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use serde::de::IgnoredAny;
use serde::Deserialize;

/// Client connections issuing the puts, one thread each (etcd's own `benchmark put --clients`).
const CLIENTS: usize = 8;
/// The watched prefix, as in `scale`'s ledger.
const PREFIX: &str = "/registry/pods/";
/// The value of every put, as in `scale`'s ledger.
const VALUE: &str = "{\"kind\":\"Pod\",\"apiVersion\":\"v1\"}";
/// A row fails when no watcher received anything for this long.
const STALL: Duration = Duration::from_secs(30);
/// How long etcd may take to answer `/health`, and the watches to be created.
const START: Duration = Duration::from_secs(30);
/// Any single HTTP exchange of a put (a stuck server fails the row instead of hanging it).
const PUT_TIMEOUT: Duration = Duration::from_secs(30);

type Result<T> = std::result::Result<T, String>;

/// A directory removed (with its contents) when dropped.
struct TempDir(PathBuf);

/// Removes the directories `TempDir::new` made under `parent` for processes that are gone (a run
/// killed before it could clean up; on /dev/shm they hold memory).
fn sweep_stale(parent: &Path) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("watchlab-etcd-"))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new("/proc").join(pid.to_string()).exists() {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

impl TempDir {
    /// A fresh directory under /dev/shm when `shm` and it is usable, else under the system's
    /// temp dir.
    fn new(shm: bool) -> Result<TempDir> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = format!("watchlab-etcd-{}-{nanos}", std::process::id());
        let dev_shm = Path::new("/dev/shm");
        if shm && dev_shm.is_dir() {
            sweep_stale(dev_shm);
            if fs::create_dir(dev_shm.join(&name)).is_ok() {
                return Ok(TempDir(dev_shm.join(name)));
            }
        }
        sweep_stale(&std::env::temp_dir());
        let path = std::env::temp_dir().join(name);
        fs::create_dir(&path)
            .map_err(|e| format!("cannot create a data directory {}: {e}", path.display()))?;
        Ok(TempDir(path))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// A running etcd; killed, and its directory removed, when dropped.
struct Etcd {
    child: Child,
    /// `127.0.0.1:<client port>`.
    host: String,
    version: String,
    // Dropped after `drop` below has killed the process.
    dir: TempDir,
}

impl Drop for Etcd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Two distinct free loopback ports (both held while the second is picked).
fn free_ports() -> Result<(u16, u16)> {
    let bind = || {
        TcpListener::bind("127.0.0.1:0")
            .and_then(|l| Ok((l.local_addr()?.port(), l)))
            .map_err(|e| format!("cannot find a free port on 127.0.0.1: {e}"))
    };
    let (a, _la) = bind()?;
    let (b, _lb) = bind()?;
    Ok((a, b))
}

impl Etcd {
    /// Starts etcd and waits until it is healthy; retries twice when a port was taken meanwhile,
    /// and once under the system's temp dir when it failed on /dev/shm (etcd preallocates 64 MB
    /// WAL segments, more than a container's small /dev/shm may hold).
    fn start() -> Result<Etcd> {
        let (mut tries, mut shm) = (0, true);
        loop {
            tries += 1;
            match Etcd::start_once(shm) {
                Err((e, true)) if tries < 3 => eprintln!("etcd bench: {e}; retrying"),
                Err((e, false)) if shm && e.starts_with("etcd exited") => {
                    eprintln!("etcd bench: {e}; retrying outside /dev/shm");
                    shm = false;
                }
                other => return other.map_err(|(e, _)| e),
            }
        }
    }

    /// One attempt; the error's flag says whether a retry on other ports may help.
    fn start_once(shm: bool) -> std::result::Result<Etcd, (String, bool)> {
        let dir = TempDir::new(shm).map_err(|e| (e, false))?;
        let (client, peer) = free_ports().map_err(|e| (e, false))?;
        let log_path = dir.0.join("etcd.log");
        let log = File::create(&log_path)
            .and_then(|f| Ok((f.try_clone()?, f)))
            .map_err(|e| (format!("cannot create {}: {e}", log_path.display()), false))?;
        let client_url = format!("http://127.0.0.1:{client}");
        let peer_url = format!("http://127.0.0.1:{peer}");
        let child = Command::new("etcd")
            .args(["--name", "watchlab-bench", "--data-dir"])
            .arg(dir.0.join("data"))
            .args(["--listen-client-urls", &client_url])
            .args(["--advertise-client-urls", &client_url])
            .args(["--listen-peer-urls", &peer_url])
            .args(["--initial-advertise-peer-urls", &peer_url])
            .args([
                "--initial-cluster",
                &format!("watchlab-bench={peer_url}"),
                "--initial-cluster-state",
                "new",
                "--unsafe-no-fsync",
                "--logger",
                "zap",
                "--log-level",
                "warn",
            ])
            .stdin(Stdio::null())
            .stdout(log.0)
            .stderr(log.1)
            .spawn()
            .map_err(|e| {
                let hint = if e.kind() == io::ErrorKind::NotFound {
                    " (not on PATH: `./x bench etcd` installs Debian's etcd-server)"
                } else {
                    ""
                };
                (format!("cannot start etcd: {e}{hint}"), false)
            })?;
        let mut etcd = Etcd {
            child,
            host: format!("127.0.0.1:{client}"),
            version: String::new(),
            dir,
        };
        let deadline = Instant::now() + START;
        loop {
            if let Ok(Some(status)) = etcd.child.try_wait() {
                let text = fs::read_to_string(&log_path).unwrap_or_default();
                let taken = text.contains("address already in use");
                let tail: Vec<&str> = text.lines().rev().take(15).collect();
                let tail: Vec<&str> = tail.into_iter().rev().collect();
                let msg = format!(
                    "etcd exited ({status}) before it was healthy:\n{}",
                    tail.join("\n")
                );
                return Err((msg, taken));
            }
            if let Ok((200, body)) = get(&etcd.host, "/health") {
                if String::from_utf8_lossy(&body).contains("\"true\"") {
                    break;
                }
            }
            if Instant::now() > deadline {
                return Err((
                    format!("etcd not healthy within {} s", START.as_secs()),
                    false,
                ));
            }
            thread::sleep(Duration::from_millis(50));
        }
        let (_, body) = get(&etcd.host, "/version").map_err(|e| (e, false))?;
        let version: serde_json::Value = serde_json::from_slice(&body)
            .map_err(|e| (format!("etcd's /version is not JSON: {e}"), false))?;
        etcd.version = version
            .get("etcdserver")
            .and_then(|v| v.as_str())
            .unwrap_or("unknown")
            .to_string();
        Ok(etcd)
    }
}

/// An HTTP/1.1 response's head: what is needed to read its body.
struct Head {
    status: u16,
    length: Option<u64>,
    chunked: bool,
    close: bool,
}

fn bad(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

fn read_head(r: &mut impl BufRead) -> io::Result<Head> {
    let mut line = String::new();
    if r.read_line(&mut line)? == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "connection closed before a response",
        ));
    }
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| bad(format!("not an HTTP status line: {:?}", line.trim_end())))?;
    let mut head = Head {
        status,
        length: None,
        chunked: false,
        close: false,
    };
    for _ in 0..200 {
        line.clear();
        if r.read_line(&mut line)? == 0 || line.trim_end().is_empty() {
            return Ok(head);
        }
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
        match name.as_str() {
            "content-length" => head.length = value.parse().ok(),
            "transfer-encoding" => head.chunked = value.to_ascii_lowercase().contains("chunked"),
            "connection" => head.close = value.eq_ignore_ascii_case("close"),
            _ => {}
        }
    }
    Err(bad("more than 200 header lines".into()))
}

/// A chunked body as a plain byte stream (RFC 9112 §7.1); ends at the last chunk.
struct Chunked<R> {
    inner: R,
    left: u64,
    done: bool,
}

impl<R: BufRead> Chunked<R> {
    fn new(inner: R) -> Self {
        Chunked {
            inner,
            left: 0,
            done: false,
        }
    }
}

impl<R: BufRead> Read for Chunked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.done || buf.is_empty() {
            return Ok(0);
        }
        if self.left == 0 {
            let mut line = String::new();
            if self.inner.read_line(&mut line)? == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            let size = line.trim_end().split(';').next().unwrap_or_default().trim();
            let size = u64::from_str_radix(size, 16)
                .map_err(|_| bad(format!("bad chunk size line {line:?}")))?;
            if size == 0 {
                // The trailer section, up to its empty line.
                loop {
                    line.clear();
                    if self.inner.read_line(&mut line)? == 0 || line.trim_end().is_empty() {
                        break;
                    }
                }
                self.done = true;
                return Ok(0);
            }
            self.left = size;
        }
        let want = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        self.left -= n as u64;
        if self.left == 0 {
            let mut crlf = [0u8; 2];
            self.inner.read_exact(&mut crlf)?;
            if &crlf != b"\r\n" {
                return Err(bad("chunk not followed by CRLF".into()));
            }
        }
        Ok(n)
    }
}

fn read_body(r: &mut impl BufRead, head: &Head) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    if head.chunked {
        Chunked::new(r).read_to_end(&mut body)?;
    } else if let Some(length) = head.length {
        r.take(length).read_to_end(&mut body)?;
        if (body.len() as u64) < length {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
    } else if head.close {
        r.read_to_end(&mut body)?;
    }
    Ok(body)
}

fn write_request(
    stream: &mut TcpStream,
    host: &str,
    method: &str,
    path: &str,
    body: &[u8],
) -> io::Result<()> {
    let mut req = Vec::with_capacity(160 + body.len());
    write!(
        req,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    )?;
    req.extend_from_slice(body);
    stream.write_all(&req)
}

/// A keep-alive HTTP/1.1 connection to etcd, reopened when the server closes it.
struct Conn {
    host: String,
    reader: Option<BufReader<TcpStream>>,
}

impl Conn {
    fn new(host: &str) -> Conn {
        Conn {
            host: host.to_string(),
            reader: None,
        }
    }

    fn call(&mut self, method: &str, path: &str, body: &[u8]) -> Result<(u16, Vec<u8>)> {
        let ctx = |e: io::Error| format!("{method} http://{}{path}: {e}", self.host);
        let mut reader = match self.reader.take() {
            Some(r) => r,
            None => {
                let s = TcpStream::connect(&self.host).map_err(ctx)?;
                s.set_nodelay(true).map_err(ctx)?;
                s.set_read_timeout(Some(PUT_TIMEOUT)).map_err(ctx)?;
                BufReader::new(s)
            }
        };
        write_request(reader.get_mut(), &self.host, method, path, body).map_err(ctx)?;
        let head = read_head(&mut reader).map_err(ctx)?;
        let body = read_body(&mut reader, &head).map_err(ctx)?;
        if !head.close {
            self.reader = Some(reader);
        }
        Ok((head.status, body))
    }
}

/// One `GET` on a connection of its own.
fn get(host: &str, path: &str) -> Result<(u16, Vec<u8>)> {
    Conn::new(host).call("GET", path, b"")
}

/// The messages of a `/v3/watch` stream (the gateway wraps each WatchResponse in `result`).
#[derive(Deserialize)]
struct WatchMessage {
    result: Option<WatchResult>,
    error: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct WatchResult {
    #[serde(default)]
    created: bool,
    #[serde(default)]
    canceled: bool,
    #[serde(default)]
    cancel_reason: String,
    #[serde(default)]
    events: Vec<IgnoredAny>,
}

/// The end of etcd's range for a prefix: the prefix with its last byte below 0xff incremented
/// and what follows it dropped (`\0`, every key, when there is none).
fn prefix_end(prefix: &str) -> Vec<u8> {
    let mut end = prefix.as_bytes().to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return end;
        }
    }
    vec![0]
}

/// One watcher: opens its watch on `stream`, says so on `created`, then adds the events it
/// receives to `count` until the stream ends (the main thread shuts the socket down).
fn watcher(
    mut stream: TcpStream,
    host: String,
    created: mpsc::Sender<Result<()>>,
    count: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
) -> Result<()> {
    let request = serde_json::json!({
        "create_request": {
            "key": BASE64.encode(PREFIX),
            "range_end": BASE64.encode(prefix_end(PREFIX)),
        }
    });
    let mut run = || -> Result<()> {
        let ctx = |e: io::Error| format!("watch: {e}");
        write_request(
            &mut stream,
            &host,
            "POST",
            "/v3/watch",
            request.to_string().as_bytes(),
        )
        .map_err(ctx)?;
        let mut reader = BufReader::new(stream.try_clone().map_err(ctx)?);
        let head = read_head(&mut reader).map_err(ctx)?;
        if head.status != 200 || !head.chunked {
            let body = read_body(&mut reader, &head).unwrap_or_default();
            let _ = created.send(Err(format!(
                "watch: HTTP {}: {}",
                head.status,
                String::from_utf8_lossy(&body)
            )));
            return Ok(());
        }
        let body = BufReader::with_capacity(64 * 1024, Chunked::new(reader));
        let mut said = false;
        for message in serde_json::Deserializer::from_reader(body).into_iter::<WatchMessage>() {
            let message = match message {
                Ok(m) => m,
                Err(_) if stop.load(Ordering::Relaxed) => return Ok(()),
                Err(e) => return Err(format!("watch stream: {e}")),
            };
            if let Some(error) = message.error {
                return Err(format!("watch stream error: {error}"));
            }
            let Some(result) = message.result else {
                continue;
            };
            if result.canceled {
                return Err(format!("watch canceled: {}", result.cancel_reason));
            }
            if result.created && !said {
                said = true;
                let _ = created.send(Ok(()));
            }
            count.fetch_add(result.events.len() as u64, Ordering::Relaxed);
        }
        if stop.load(Ordering::Relaxed) {
            Ok(())
        } else {
            Err("watch stream ended".into())
        }
    };
    let outcome = run();
    if let Err(e) = &outcome {
        // Unblocks the main thread if it still waits for this watch to be created.
        let _ = created.send(Err(e.clone()));
    }
    outcome
}

/// A watcher as the main thread holds it.
struct Watch {
    count: Arc<AtomicU64>,
    socket: TcpStream,
    thread: JoinHandle<Result<()>>,
}

fn joined(thread: JoinHandle<Result<()>>) -> Result<()> {
    thread
        .join()
        .map_err(|_| "a client thread panicked".to_string())?
}

/// One row: `puts` puts over `keys` keys with `watchers` prefix watchers, on a fresh etcd.
fn ledger(puts: usize, keys: usize, watchers: usize) -> Result<String> {
    let etcd = Etcd::start()?;
    let host = etcd.host.clone();
    let stop = Arc::new(AtomicBool::new(false));
    let (created_tx, created_rx) = mpsc::channel();
    let mut watches = Vec::with_capacity(watchers);
    for _ in 0..watchers {
        let stream = TcpStream::connect(&host).map_err(|e| format!("watch connect: {e}"))?;
        let socket = stream
            .try_clone()
            .map_err(|e| format!("watch socket: {e}"))?;
        let count = Arc::new(AtomicU64::new(0));
        let (host, created, c, stop) = (
            host.clone(),
            created_tx.clone(),
            Arc::clone(&count),
            Arc::clone(&stop),
        );
        let thread = thread::spawn(move || watcher(stream, host, created, c, stop));
        watches.push(Watch {
            count,
            socket,
            thread,
        });
    }
    drop(created_tx);
    for _ in 0..watchers {
        match created_rx.recv_timeout(START) {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(e),
            Err(_) => return Err(format!("watches not created within {} s", START.as_secs())),
        }
    }

    let bodies: Arc<Vec<Vec<u8>>> = Arc::new(
        (0..keys.max(1))
            .map(|i| {
                let key = format!("/registry/pods/ns-{}/pod-{i:06}", i % 10);
                serde_json::json!({ "key": BASE64.encode(key), "value": BASE64.encode(VALUE) })
                    .to_string()
                    .into_bytes()
            })
            .collect(),
    );
    let clients = CLIENTS.min(puts).max(1);
    let start = Instant::now();
    let putters: Vec<JoinHandle<Result<()>>> = (0..clients)
        .map(|first| {
            let (bodies, host) = (Arc::clone(&bodies), host.clone());
            thread::spawn(move || {
                let mut conn = Conn::new(&host);
                for i in (first..puts).step_by(clients) {
                    let body = bodies.get(i % bodies.len()).map_or(&[][..], |b| &b[..]);
                    let (status, reply) = conn.call("POST", "/v3/kv/put", body)?;
                    if status != 200 {
                        let reply = String::from_utf8_lossy(&reply);
                        return Err(format!("put {i}: HTTP {status}: {reply}"));
                    }
                }
                Ok(())
            })
        })
        .collect();
    let mut put_error = None;
    for p in putters {
        if let Err(e) = joined(p) {
            put_error.get_or_insert(e);
        }
    }
    let put_seconds = start.elapsed().as_secs_f64().max(1e-9);
    if let Some(e) = put_error {
        return Err(e);
    }

    // Every watcher gets every put once: wait for `puts` events at each, or a stall.
    let want = puts as u64;
    let (mut last_total, mut last_progress) = (u64::MAX, Instant::now());
    let mut error = None;
    loop {
        let counts: Vec<u64> = watches
            .iter()
            .map(|w| w.count.load(Ordering::Relaxed))
            .collect();
        if counts.iter().all(|&c| c >= want) {
            break;
        }
        if let Some(i) = watches.iter().position(|w| w.thread.is_finished()) {
            let w = watches.swap_remove(i);
            let why = joined(w.thread).err().unwrap_or_else(|| "ended".into());
            return Err(format!("watcher {i}: {why}"));
        }
        let total: u64 = counts.iter().sum();
        if total != last_total {
            (last_total, last_progress) = (total, Instant::now());
        } else if last_progress.elapsed() > STALL {
            let (slowest, least) = counts
                .iter()
                .enumerate()
                .min_by_key(|(_, c)| **c)
                .map_or((0, 0), |(i, c)| (i, *c));
            error = Some(format!(
                "timed out: no watcher received an event for {} s; watcher {slowest} had \
                 {least} of {want} events",
                STALL.as_secs()
            ));
            break;
        }
        thread::sleep(Duration::from_millis(1));
    }
    let seconds = start.elapsed().as_secs_f64().max(1e-9);
    let delivered: u64 = watches
        .iter()
        .map(|w| w.count.load(Ordering::Relaxed))
        .sum();
    stop.store(true, Ordering::Relaxed);
    for w in &watches {
        let _ = w.socket.shutdown(Shutdown::Both);
    }
    for w in watches {
        let _ = w.thread.join();
    }
    let version = etcd.version.clone();
    let under = etcd
        .dir
        .0
        .parent()
        .map_or(String::new(), |p| p.display().to_string());
    drop(etcd);
    let error = error.map_or(String::new(), |e| {
        format!(",\"error\":{}", serde_json::Value::String(e))
    });
    Ok(format!(
        "{{\"bench\":\"ledger\",\"runtime\":\"etcd\",\"etcd_version\":{},\
         \"puts\":{puts},\"keys\":{keys},\"watchers\":{watchers},\"clients\":{clients},\
         \"data_dir\":{},\"fsync\":false,\"seconds\":{seconds:.4},\
         \"put_seconds\":{put_seconds:.4},\"delivered\":{delivered},\"puts_per_s\":{:.0},\
         \"events_per_s\":{:.0}{error}}}",
        serde_json::Value::String(version),
        serde_json::Value::String(under),
        puts as f64 / put_seconds,
        delivered as f64 / seconds,
    ))
}

fn run(args: &[String]) -> Result<()> {
    let mut smoke = !args.iter().any(|a| a == "--bench");
    let mut out = None;
    let mut rest = args.iter();
    while let Some(a) = rest.next() {
        match a.as_str() {
            "--bench" => {}
            "--smoke" => smoke = true,
            "--out" => out = Some(rest.next().ok_or("--out needs a file")?.clone()),
            other => return Err(format!("unknown argument {other} (--smoke, --out FILE)")),
        }
    }
    let mut sink: Option<File> = match &out {
        Some(path) => Some(File::create(path).map_err(|e| format!("cannot write {path}: {e}"))?),
        None => None,
    };
    let mut emit = |line: String| -> Result<()> {
        eprintln!("{line}");
        match sink.as_mut() {
            Some(f) => writeln!(f, "{line}").map_err(|e| format!("cannot write the results: {e}")),
            None => Ok(()),
        }
    };
    emit(format!(
        "{{\"bench\":\"meta\",\"smoke\":{smoke},\"cores\":{},\"profile\":\"{}\"}}",
        thread::available_parallelism().map_or(1, |n| n.get()),
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "bench"
        },
    ))?;
    let (puts, keys) = if smoke {
        (2_000, 500)
    } else {
        (100_000, 10_000)
    };
    for watchers in [1, 10, 100] {
        emit(ledger(puts, keys, watchers)?)?;
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(e) = run(&args) {
        eprintln!("etcd bench: {e}");
        std::process::exit(1);
    }
}
