//! The kubectl console's model: a scrollback of what was typed and printed, the ↑/↓ history
//! cursor, and the `-w` stream being followed. Pure (no browser): it runs lines through
//! [`Kubectl`] over any [`ApiClient`], so it is tested natively against a real API server.
//!
//! Like two terminals side by side (the texts run `get -w` in one and `kubectl run` in the
//! other), a followed stream keeps printing while further commands run; starting another
//! follow or Ctrl-C ends the current one.

use std::collections::VecDeque;
use watchlab_apimachinery::client::ApiClient;
use watchlab_kubectl::{Follow, Kubectl, Outcome};

use crate::etcd_console::{self, EtcdTool};
use crate::seeds;
use watchlab_apimachinery::client::{ApiResponse, WatchId};
use watchlab_etcdctl::{EtcdClient, TxnPrompt, Watching};

/// The API server an etcdctl line is given: never asked (every word of such a line is
/// etcdctl's), it answers 503 if it were.
struct NoServer;

impl ApiClient for NoServer {
    fn request(
        &mut self,
        _method: &str,
        _path: &str,
        _content_type: Option<&str>,
        _body: Option<&str>,
    ) -> ApiResponse {
        ApiResponse {
            code: 503,
            body: String::new(),
        }
    }

    fn watch(&mut self, _path: &str) -> Result<WatchId, ApiResponse> {
        Err(self.request("GET", "", None, None))
    }

    fn poll_watch(&mut self, _id: WatchId) -> Option<Vec<String>> {
        None
    }

    fn stop_watch(&mut self, _id: WatchId) {}

    fn now_ms(&self) -> u64 {
        0
    }
}

/// Scrollback lines kept (older ones drop first).
pub const MAX_LINES: usize = 3000;
/// Scrollback text kept, in bytes (older lines drop first): 3000 lines of kubectl's largest
/// output would not fit in a tab.
pub const MAX_BYTES: usize = 4 * 1024 * 1024;
/// A longer scrollback line (a pasted blob, a one-line `-o jsonpath` over thousands of objects)
/// is cut here, with a note.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// What a scrollback line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// The prompt and the command typed.
    Input,
    Stdout,
    Stderr,
    /// `^C` and other console notes.
    Note,
}

/// Scrollback lines drawn (the newest).
pub const VISIBLE_LINES: usize = 400;

/// The newest [`VISIBLE_LINES`] of a scrollback.
pub fn visible(all: &VecDeque<Line>) -> Vec<Line> {
    let skip = all.len().saturating_sub(VISIBLE_LINES);
    all.iter().skip(skip).cloned().collect()
}

/// One scrollback line; `id` is unique and increasing (a stable key for rendering).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub id: u64,
    pub kind: LineKind,
    pub text: String,
}

/// The console.
#[derive(Debug)]
pub struct Console {
    kubectl: Kubectl,
    lines: VecDeque<Line>,
    /// Bytes of text in `lines`.
    bytes: usize,
    next_id: u64,
    follow: Option<Follow>,
    /// An `etcdctl watch` being followed (beside a kubectl stream, if any: Ctrl-C ends both).
    etcd_watch: Option<Box<Watching>>,
    /// An `etcdctl txn` reading the lines typed next (its standard input).
    etcd_txn: Option<Box<TxnPrompt>>,
    /// Index into the history while browsing with ↑/↓ (None = at the fresh line).
    cursor: Option<usize>,
}

impl Default for Console {
    fn default() -> Self {
        Console::new()
    }
}

impl Console {
    /// A console whose kubectl already holds the texts' `orders-deploy.yaml`, the
    /// custom-resource scenario's `website-crd.yaml` and `website.yaml`, and the Service
    /// scenario's `orders-canary.yaml`.
    pub fn new() -> Self {
        let mut kubectl = Kubectl::new();
        kubectl.set_file(seeds::ORDERS_DEPLOY_FILE, seeds::ORDERS_DEPLOY_YAML);
        kubectl.set_file(seeds::WEBSITE_CRD_FILE, seeds::WEBSITE_CRD_YAML);
        kubectl.set_file(seeds::WEBSITE_FILE, seeds::WEBSITE_YAML);
        kubectl.set_file(seeds::ORDERS_CANARY_FILE, seeds::ORDERS_CANARY_YAML);
        Console {
            kubectl,
            lines: VecDeque::new(),
            bytes: 0,
            next_id: 0,
            follow: None,
            etcd_watch: None,
            etcd_txn: None,
            cursor: None,
        }
    }

    /// The scrollback, oldest first.
    pub fn lines(&self) -> &VecDeque<Line> {
        &self.lines
    }

    /// Whether a stream (`kubectl … -w`, `etcdctl watch`) is being followed.
    pub fn following(&self) -> bool {
        self.follow.is_some() || self.etcd_watch.is_some()
    }

    /// The server's id of the followed stream.
    pub fn follow_id(&self) -> Option<u64> {
        self.follow.as_ref().and_then(Follow::watch_id)
    }

    /// Registers a file for `apply -f NAME`.
    pub fn set_file(&mut self, name: &str, content: &str) {
        self.kubectl.set_file(name, content);
    }

    pub fn file(&self, name: &str) -> Option<&str> {
        self.kubectl.file(name)
    }

    /// Runs one line as typed at the prompt.
    pub fn run(&mut self, line: &str, client: &mut dyn ApiClient) {
        self.cursor = None;
        self.push(LineKind::Input, format!("$ {line}"));
        let out = self.kubectl.exec(line, client);
        self.push_text(LineKind::Stdout, &out.stdout);
        self.push_text(LineKind::Stderr, &out.stderr);
        if let Some(follow) = out.follow {
            if let Some(old) = self.follow.replace(follow) {
                old.stop(client);
            }
        }
    }

    /// Whether `line` runs an etcd tool (`etcdctl …`, `ETCDCTL_API=3 etcdctl …`, `etcdutl …`).
    pub fn is_etcdctl(line: &str) -> bool {
        watchlab_kubectl::shell::parse_pipeline(line.trim())
            .is_ok_and(|p| etcd_console::etcd_tool(&p.words).is_some())
    }

    /// Runs an etcdctl line against the etcd members (same scrollback, history and pipes as
    /// kubectl's lines).
    pub fn run_etcdctl(&mut self, line: &str, etcd: &mut dyn EtcdClient) {
        self.cursor = None;
        self.push(LineKind::Input, format!("$ {line}"));
        let mut opened = None;
        let mut prompt = None;
        let mut beside = |words: &[String]| {
            let (tool, args) = etcd_console::etcd_tool(words)?;
            let mut out = match tool {
                EtcdTool::Etcdctl => watchlab_etcdctl::run(args, etcd),
                EtcdTool::Etcdutl => watchlab_etcdctl::etcdutl::run(args, etcd),
            };
            opened = out.watch.take().or(opened.take());
            prompt = out.txn.take().or(prompt.take());
            Some((out.stdout, out.stderr, out.exit_code))
        };
        let out = self.kubectl.exec_beside(line, &mut NoServer, &mut beside);
        self.push_text(LineKind::Stdout, &out.stdout);
        self.push_text(LineKind::Stderr, &out.stderr);
        if let Some(w) = opened {
            self.etcd_watch = Some(w);
        }
        self.etcd_txn = prompt;
    }

    /// Whether an `etcdctl txn` is reading the next lines.
    pub fn prompting_etcd(&self) -> bool {
        self.etcd_txn.is_some()
    }

    /// A line typed while an `etcdctl txn` reads its input: shown as typed, fed to it.
    pub fn feed_etcd(&mut self, line: &str, etcd: &mut dyn EtcdClient) {
        let Some(mut txn) = self.etcd_txn.take() else {
            return;
        };
        self.push(LineKind::Input, line.to_string());
        let mut out = txn.feed(line, etcd);
        self.push_text(LineKind::Stdout, &out.stdout);
        self.push_text(LineKind::Stderr, &out.stderr);
        self.etcd_txn = out.txn.take();
    }

    /// Whether an `etcdctl watch` is being followed.
    pub fn following_etcd(&self) -> bool {
        self.etcd_watch.is_some()
    }

    /// Appends what the followed `etcdctl watch` delivered since the last poll.
    pub fn poll_etcd(&mut self, etcd: &mut dyn EtcdClient) {
        let Some(w) = self.etcd_watch.as_mut() else {
            return;
        };
        let out = w.poll(etcd);
        self.push_text(LineKind::Stdout, &out.stdout);
        self.push_text(LineKind::Stderr, &out.stderr);
        if out.ended.is_some() {
            self.etcd_watch = None;
        }
    }

    /// Runs `line` as the learner's kubectl would (same namespace and files) without printing
    /// it, remembering it or keeping a stream it opens: what a lab's check sees.
    pub fn check(&self, line: &str, client: &mut dyn ApiClient) -> Outcome {
        let mut out = self.kubectl.without_history().exec(line, client);
        if let Some(follow) = out.follow.take() {
            follow.stop(client);
        }
        out
    }

    /// Appends what the followed stream delivered since the last poll (call on every tick).
    pub fn poll(&mut self, client: &mut dyn ApiClient) {
        let Some(follow) = self.follow.as_mut() else {
            return;
        };
        let out = follow.poll(client);
        self.push_text(LineKind::Stdout, &out.stdout);
        self.push_text(LineKind::Stderr, &out.stderr);
        if out.ended {
            self.follow = None;
        }
    }

    /// Ctrl-C: ends the followed streams and a txn still reading its lines.
    pub fn interrupt(&mut self, client: &mut dyn ApiClient) {
        if let Some(f) = self.follow.take() {
            f.stop(client);
        }
        self.etcd_watch = None;
        self.etcd_txn = None;
        self.push(LineKind::Note, "^C".to_string());
    }

    /// Empties the scrollback (the stream, if any, keeps being followed).
    pub fn clear(&mut self) {
        self.lines.clear();
        self.bytes = 0;
    }

    /// ↑: the previous history line, if any.
    pub fn history_prev(&mut self) -> Option<String> {
        let history = self.kubectl.history();
        let at = match self.cursor {
            None => history.len().checked_sub(1)?,
            Some(i) => i.saturating_sub(1),
        };
        self.cursor = Some(at);
        history.get(at).cloned()
    }

    /// ↓: the next history line, or the empty fresh line past the newest.
    pub fn history_next(&mut self) -> String {
        let history = self.kubectl.history();
        match self.cursor {
            Some(i) if i + 1 < history.len() => {
                self.cursor = Some(i + 1);
                history.get(i + 1).cloned().unwrap_or_default()
            }
            _ => {
                self.cursor = None;
                String::new()
            }
        }
    }

    fn push_text(&mut self, kind: LineKind, text: &str) {
        if text.is_empty() {
            return;
        }
        for line in text.strip_suffix('\n').unwrap_or(text).split('\n') {
            self.push(kind, line.to_string());
        }
    }

    fn push(&mut self, kind: LineKind, mut text: String) {
        if text.len() > MAX_LINE_BYTES {
            let mut cut = MAX_LINE_BYTES;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            text.push_str(&format!(" ... (line cut at {MAX_LINE_BYTES} bytes)"));
        }
        self.bytes += text.len();
        while self.lines.len() >= MAX_LINES || (self.bytes > MAX_BYTES && !self.lines.is_empty()) {
            let Some(old) = self.lines.pop_front() else {
                break;
            };
            self.bytes -= old.text.len();
        }
        self.lines.push_back(Line {
            id: self.next_id,
            kind,
            text,
        });
        self.next_id += 1;
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use watchlab_engine::apiserver::ApiServer;

    fn texts(c: &Console) -> Vec<String> {
        c.lines().iter().map(|l| l.text.clone()).collect()
    }

    #[test]
    fn a_command_prints_its_prompt_and_output() {
        let mut server = ApiServer::new(7);
        let mut c = Console::new();
        c.run("kubectl get pods", &mut server.as_user("kubectl"));
        let t = texts(&c);
        assert_eq!(t[0], "$ kubectl get pods");
        assert_eq!(t[1], "No resources found in default namespace.");
        assert_eq!(c.lines()[1].kind, LineKind::Stderr);
    }

    #[test]
    fn a_followed_watch_prints_as_the_cluster_changes_and_stops_on_ctrl_c() {
        let mut server = ApiServer::new(7);
        let mut c = Console::new();
        c.run("kubectl get pods -w", &mut server.as_user("kubectl"));
        assert!(c.following());
        c.run(
            "kubectl run web --image=nginx",
            &mut server.as_user("kubectl"),
        );
        assert!(
            texts(&c).contains(&"pod/web created".to_string()),
            "{:?}",
            texts(&c)
        );
        c.poll(&mut server.as_user("kubectl"));
        let last = texts(&c).last().cloned().unwrap_or_default();
        assert!(
            last.starts_with("web") && last.contains("Pending"),
            "{last}"
        );
        let id = c.follow_id();
        c.interrupt(&mut server.as_user("kubectl"));
        assert!(!c.following());
        assert_eq!(texts(&c).last().map(String::as_str), Some("^C"));
        assert!(id.is_some_and(|id| server.stream(id).is_none()));
    }

    #[test]
    fn history_moves_up_and_down() {
        let mut server = ApiServer::new(7);
        let mut c = Console::new();
        assert_eq!(c.history_prev(), None);
        for l in ["kubectl get pods", "kubectl get nodes"] {
            c.run(l, &mut server.as_user("kubectl"));
        }
        assert_eq!(c.history_prev().as_deref(), Some("kubectl get nodes"));
        assert_eq!(c.history_prev().as_deref(), Some("kubectl get pods"));
        assert_eq!(c.history_prev().as_deref(), Some("kubectl get pods"));
        assert_eq!(c.history_next(), "kubectl get nodes");
        assert_eq!(c.history_next(), "");
    }

    #[test]
    fn scrollback_is_bounded_with_unique_ids() {
        let mut server = ApiServer::new(7);
        let mut c = Console::new();
        for _ in 0..(MAX_LINES / 2 + 10) {
            c.run("kubectl get pods", &mut server.as_user("kubectl"));
        }
        assert_eq!(c.lines().len(), MAX_LINES);
        let ids: Vec<_> = c.lines().iter().map(|l| l.id).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn scrollback_is_bounded_in_bytes_and_long_lines_are_cut() {
        let mut server = ApiServer::new(7);
        let mut c = Console::new();
        let pasted = format!("kubectl get pods {}", "x".repeat(MAX_LINE_BYTES * 2));
        c.run(&pasted, &mut server.as_user("kubectl"));
        let first = &c.lines()[0].text;
        assert!(first.len() < MAX_LINE_BYTES + 64, "{}", first.len());
        assert!(first.ends_with(&format!("(line cut at {MAX_LINE_BYTES} bytes)")));
        assert!(
            texts(&c).iter().any(|t| t.contains("longer than")),
            "kubectl refused the line: {:?}",
            &texts(&c)[1..]
        );
        for _ in 0..(2 * MAX_BYTES / MAX_LINE_BYTES) {
            c.run(&pasted, &mut server.as_user("kubectl"));
        }
        let total: usize = c.lines().iter().map(|l| l.text.len()).sum();
        assert!(total <= MAX_BYTES, "{total} bytes of scrollback");
        assert!(c.lines().len() > 1);
        let ids: Vec<_> = c.lines().iter().map(|l| l.id).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        c.clear();
        c.run("kubectl get pods", &mut server.as_user("kubectl"));
        assert_eq!(c.lines().len(), 2);
    }

    #[test]
    fn the_seed_manifest_is_registered() {
        let c = Console::new();
        assert_eq!(
            c.file(seeds::ORDERS_DEPLOY_FILE),
            Some(seeds::ORDERS_DEPLOY_YAML)
        );
    }
}
