//! `kubectl logs -f` in the page's console: kubectl keeps the log stream open and prints each
//! line the container writes until the container stops (the kubelet closes the stream). The
//! console's client has streams for watches only, so the command is followed as a
//! [`Ongoing`] task instead: at each poll — whenever the cluster's virtual clock moves — it
//! reads the container's log again and prints what was written since the last poll, and it
//! ends once the container is no longer running or the pod is gone, as the stream would.

use crate::follow::Ongoing;
use serde_json::Value;
use watchlab_apimachinery::client::ApiClient;

/// A followed container log.
#[derive(Debug, Clone)]
pub(crate) struct LogFollow {
    /// `/api/v1/namespaces/NS/pods/NAME`.
    pod_path: String,
    container: String,
    /// `timestamps=true` when asked for.
    timestamps: bool,
    /// How much of the run's log has been printed (the length of the log text then).
    seen: usize,
    stdout: String,
    stderr: String,
}

impl LogFollow {
    /// Follows `container` of the pod at `pod_path`, its log printed up to now. `None` when
    /// the log cannot be read again (the first read answered, so this is rare).
    pub(crate) fn start(
        client: &mut dyn ApiClient,
        pod_path: &str,
        container: &str,
        timestamps: bool,
    ) -> Option<LogFollow> {
        let mut follow = LogFollow {
            pod_path: pod_path.to_string(),
            container: container.to_string(),
            timestamps,
            seen: 0,
            stdout: String::new(),
            stderr: String::new(),
        };
        follow.seen = follow.read_log(client)?.len();
        Some(follow)
    }

    /// The whole log of the container's current run.
    fn read_log(&self, client: &mut dyn ApiClient) -> Option<String> {
        let mut path = format!("{}/log?container={}", self.pod_path, self.container);
        if self.timestamps {
            path.push_str("&timestamps=true");
        }
        let r = client.request("GET", &path, None, None);
        r.is_success().then_some(r.body)
    }

    /// Whether the container still runs (false once the pod is gone).
    fn running(&self, client: &mut dyn ApiClient) -> bool {
        let r = client.request("GET", &self.pod_path, None, None);
        let Ok(pod) = serde_json::from_str::<Value>(&r.body) else {
            return false;
        };
        if !r.is_success() {
            return false;
        }
        let statuses = ["containerStatuses", "ephemeralContainerStatuses"];
        statuses
            .iter()
            .flat_map(|list| pod["status"][list].as_array().into_iter().flatten())
            .find(|s| s["name"].as_str() == Some(self.container.as_str()))
            .is_some_and(|s| s["state"]["running"].is_object())
    }
}

impl Ongoing for LogFollow {
    fn advance(&mut self, client: &mut dyn ApiClient) -> bool {
        let running = self.running(client);
        if let Some(log) = self.read_log(client) {
            // A new run starts a new log: the stream of the old one has ended anyway.
            if let Some(new) = log.get(self.seen..) {
                self.stdout.push_str(new);
            }
            self.seen = log.len();
        }
        !running
    }

    fn take_output(&mut self, _finished: bool) -> (String, String) {
        (
            std::mem::take(&mut self.stdout),
            std::mem::take(&mut self.stderr),
        )
    }

    fn clone_box(&self) -> Box<dyn Ongoing> {
        Box::new(self.clone())
    }
}
