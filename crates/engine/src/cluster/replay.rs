//! Save and restore: the cluster exports its journal with a fingerprint of its ledger, and a
//! restore builds a new cluster from the journal's config and replays every input at its
//! instant, refusing a file that does not replay to what it recorded.

use serde::Serialize;
use watchlab_apimachinery::client::ApiClient;

use crate::clock::Timestamp;
use crate::hash::{fnv1a64_extend, FNV64_OFFSET};

use super::journal::{check_config, check_scenario, Entry, Input, Journal, JournalError};
use super::Cluster;

impl Cluster {
    /// The journal as a JSON file, or why this session cannot be saved.
    pub fn export(&self) -> Result<String, JournalError> {
        let j = self.journal();
        if let Some(r) = j.refusal() {
            return Err(JournalError::SessionTooLong(r.clone()));
        }
        let saved = Saved {
            journal: j,
            ledger_fingerprint: ledger_fingerprint(self),
        };
        serde_json::to_string(&saved).map_err(|e| JournalError::Damaged(e.to_string()))
    }

    /// Restores a cluster from [`Cluster::export`]'s text: checks it, replays every input, and
    /// refuses a file that does not replay to what it recorded. Never panics on any text.
    pub fn import(text: &str) -> Result<Cluster, JournalError> {
        Cluster::replay(&Journal::parse(text)?)
    }

    /// Sets the UI's opaque scenario marker, saved with the journal.
    pub fn set_scenario(&mut self, scenario: Option<String>) -> Result<(), JournalError> {
        if let Some(s) = &scenario {
            check_scenario(s)?;
        }
        self.journal_mut().scenario = scenario;
        Ok(())
    }
}

/// The file: the live journal plus what only the save knows.
#[derive(Serialize)]
struct Saved<'a> {
    #[serde(flatten)]
    journal: &'a Journal,
    ledger_fingerprint: String,
}

/// A short hash (FNV-1a, 64 bits, hex) of every ledger line: who wrote what, when, at which
/// revision. Stable across builds and platforms, unlike `std`'s hasher.
pub fn ledger_fingerprint(c: &Cluster) -> String {
    let mut h = FNV64_OFFSET;
    for l in c.api().ledger().iter() {
        let line = format!(
            "{} {} {} {} {} {} {}\n",
            l.revision,
            l.verb,
            l.resource,
            l.namespace(),
            l.name(),
            l.user,
            l.time.as_millis()
        );
        h = fnv1a64_extend(h, line.as_bytes());
    }
    format!("fnv1a64:{h:016x}")
}

impl Cluster {
    /// A new cluster from the journal's config with every input replayed at its instant.
    pub fn replay(journal: &Journal) -> Result<Cluster, JournalError> {
        check_config(&journal.config)?;
        let mut c = Cluster::new(journal.config.clone());
        for (index, e) in journal.inputs.iter().enumerate() {
            let at = Timestamp::from_millis(e.at_ms);
            if at < c.now() {
                return Err(JournalError::OutOfOrder { index });
            }
            if at > c.now() || e.settled {
                c.advance_to(at);
            }
            let refused = replay_input(&mut c, &e.input);
            let replayed = c.journal().inputs.get(index);
            if replayed != Some(e) {
                return Err(JournalError::Diverged {
                    index,
                    detail: divergence(e, replayed, refused.as_deref()),
                });
            }
        }
        let end = Timestamp::from_millis(journal.now_ms);
        if end > c.now() || journal.settled {
            c.advance_to(end);
        }
        let fingerprint = ledger_fingerprint(&c);
        let want = journal.ledger_fingerprint.as_deref();
        if c.api().revision() != journal.revision
            || c.now() != end
            || want.is_some_and(|f| f != fingerprint)
        {
            return Err(JournalError::DivergedAtEnd(format!(
                "the ledger is {fingerprint} at revision {} at {} ms, the file says {} at revision {} at {} ms",
                c.api().revision(),
                c.now().as_millis(),
                want.unwrap_or("no fingerprint"),
                journal.revision,
                journal.now_ms
            )));
        }
        c.set_scenario(journal.scenario.clone())?;
        Ok(c)
    }
}

/// Runs one input through the cluster's public, recording, entry points; an action the
/// cluster refused says why (what a divergence then shows).
fn replay_input(c: &mut Cluster, input: &Input) -> Option<String> {
    match input {
        Input::Apply(a) => return c.apply(a.clone()).err().map(|s| s.message().to_string()),
        Input::Request {
            user,
            method,
            path,
            content_type,
            body,
            accept,
        } => {
            let mut session = c.session(user);
            let _ = match accept {
                Some(accept) => session.get_accepting(path, accept),
                None => session.request(method, path, content_type.as_deref(), body.as_deref()),
            };
        }
        Input::Watch { user, path, accept } => {
            let mut session = c.session(user);
            let _ = match accept {
                Some(accept) => session.watch_accepting(path, accept),
                None => session.watch(path),
            };
        }
        Input::Poll { id } => {
            let _ = c.session("").poll_watch(*id);
        }
        Input::Stop { id } => c.session("").stop_watch(*id),
    }
    None
}

fn divergence(want: &Entry, got: Option<&Entry>, refused: Option<&str>) -> String {
    let what = want.input.describe();
    let Some(got) = got else {
        return format!("({what}) changed nothing on replay, the file recorded it");
    };
    let answer = |e: &Entry| match e.watch_id {
        Some(id) => format!("{} (watch {id}) at revision {}", e.code, e.revision),
        None => format!("{} at revision {}", e.code, e.revision),
    };
    let why = refused.map(|m| format!(" ({m})")).unwrap_or_default();
    format!(
        "({what}) answered {}{why}, the file says {}",
        answer(got),
        answer(want)
    )
}

/// Every revision of the ledger and everything derived from inputs, one line each: two
/// clusters with equal digests have the same history (tests compare restores with it).
pub fn history_digest(c: &Cluster) -> Vec<String> {
    let store = c.api().store();
    let mut out = vec![format!(
        "now {} revision {} compacted {}",
        c.now().as_millis(),
        store.revision(),
        store.compact_revision()
    )];
    if let Ok(events) = store.events_after("", store.compact_revision()) {
        out.extend(events.into_iter().map(|e| {
            format!(
                "{} {:?} {} {}",
                e.kv.mod_revision,
                e.kind,
                e.kv.key,
                e.kv.value.to_json()
            )
        }));
    }
    if let Ok(current) = store.range_prefix("", None, None, None) {
        out.extend(current.kvs.iter().map(|kv| {
            format!(
                "key {} created {} modified {} version {} {}",
                kv.key,
                kv.create_revision,
                kv.mod_revision,
                kv.version,
                kv.value.to_json()
            )
        }));
    }
    out.extend(c.api().ledger().iter().map(|l| format!("ledger {l:?}")));
    out.extend(
        c.membership_log()
            .iter()
            .map(|(t, e)| format!("membership {} {e:?}", t.as_millis())),
    );
    out.extend(
        c.api()
            .streams()
            .map(|s| format!("stream {} {:?} {:?}", s.id(), s.state(), s.deadline())),
    );
    out
}
