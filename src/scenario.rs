//! The built-in labs: the seed texts' stories (and the operator and Service stories) as lab
//! files in `static/labs/`, compiled into the page and also served beside it, so a trainer can
//! read them as examples of the format. The page lists them first in the Scenarios tab; any lab
//! a learner loads (`?lab=URL`, *Open lab…*) joins the list after them.

use std::cell::OnceCell;
use std::rc::Rc;

use crate::lab::{Lab, LabError, Text};

/// A built-in lab: its id (the DOM's `scenario-<id>`) and its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltIn {
    pub id: &'static str,
    pub source: &'static str,
}

/// The stories, in the order the texts tell them.
pub const BUILT_IN: [BuiltIn; 17] = [
    BuiltIn {
        id: "watch",
        source: include_str!("../static/labs/watch.yaml"),
    },
    BuiltIn {
        id: "node-failure",
        source: include_str!("../static/labs/node-failure.yaml"),
    },
    BuiltIn {
        id: "conflict",
        source: include_str!("../static/labs/conflict.yaml"),
    },
    BuiltIn {
        id: "etcd-quorum",
        source: include_str!("../static/labs/etcd-quorum.yaml"),
    },
    BuiltIn {
        id: "raft",
        source: include_str!("../static/labs/raft.yaml"),
    },
    BuiltIn {
        id: "etcd-backup",
        source: include_str!("../static/labs/etcd-backup.yaml"),
    },
    BuiltIn {
        id: "lost-events",
        source: include_str!("../static/labs/lost-events.yaml"),
    },
    BuiltIn {
        id: "watch-cache",
        source: include_str!("../static/labs/watch-cache.yaml"),
    },
    BuiltIn {
        id: "operator",
        source: include_str!("../static/labs/operator.yaml"),
    },
    BuiltIn {
        id: "service",
        source: include_str!("../static/labs/service.yaml"),
    },
    BuiltIn {
        id: "survive-node-loss",
        source: include_str!("../static/labs/survive-node-loss.yaml"),
    },
    BuiltIn {
        id: "drain-and-budgets",
        source: include_str!("../static/labs/drain-and-budgets.yaml"),
    },
    BuiltIn {
        id: "jobs",
        source: include_str!("../static/labs/jobs.yaml"),
    },
    BuiltIn {
        id: "daemonsets",
        source: include_str!("../static/labs/daemonsets.yaml"),
    },
    BuiltIn {
        id: "statefulsets",
        source: include_str!("../static/labs/statefulsets.yaml"),
    },
    BuiltIn {
        id: "leader-election",
        source: include_str!("../static/labs/leader-election.yaml"),
    },
    BuiltIn {
        id: "time-travel",
        source: include_str!("../static/labs/time-travel.yaml"),
    },
];

/// A lab the page can start: a built-in one or one the learner loaded.
#[derive(Debug, Clone)]
pub struct LabEntry {
    /// A built-in lab's id, or where a loaded one came from (its URL or file name).
    pub id: String,
    /// A built-in lab's file, read on first use: parsing all seventeen when the page starts took
    /// about 70 ms of a first load on a slow laptop (4x CPU), before the console could answer.
    source: Option<&'static str>,
    lab: OnceCell<Lab>,
}

impl LabEntry {
    /// The lab, parsed on first use for a built-in one (a test holds that they all parse; one
    /// that did not would show as a lab of no steps titled with the reason, not break the page).
    pub fn lab(&self) -> &Lab {
        self.lab.get_or_init(|| {
            Lab::parse(self.source.unwrap_or_default()).unwrap_or_else(|e| Lab {
                title: Text {
                    en: Some(format!("{}: {e}", self.id)),
                    zh: None,
                },
                summary: None,
                cluster: None,
                steps: Vec::new(),
            })
        })
    }
}

impl PartialEq for LabEntry {
    /// A built-in lab is its id and file, parsed or not yet.
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
            && self.source == other.source
            && (self.source.is_some() || self.lab() == other.lab())
    }
}

/// The labs the page starts with: the built-in ones, each read when first opened.
pub fn built_in_labs() -> Vec<Rc<LabEntry>> {
    BUILT_IN
        .iter()
        .map(|b| {
            Rc::new(LabEntry {
                id: b.id.to_string(),
                source: Some(b.source),
                lab: OnceCell::new(),
            })
        })
        .collect()
}

/// Reads a loaded lab (refused with its line, column and reason).
pub fn load(id: &str, source: &str) -> Result<LabEntry, LabError> {
    Lab::parse(source).map(|lab| LabEntry {
        id: id.to_string(),
        source: None,
        lab: OnceCell::from(lab),
    })
}

/// The lab the page's address asks for (`?lab=labs/my-lab.yaml`): a path relative to the page
/// or to its origin — same origin only, as the page's Content-Security-Policy allows — or the
/// refused value.
pub fn requested(search: &str) -> Option<Result<String, String>> {
    let query = search.strip_prefix('?').unwrap_or(search);
    let value = crate::live::form_value(query, "lab")?;
    let foreign = value.contains("://")
        || value.starts_with("//")
        || value.contains('\\')
        || value.to_ascii_lowercase().starts_with("javascript:")
        || value.to_ascii_lowercase().starts_with("data:");
    Some(if value.is_empty() || foreign {
        Err(value)
    } else {
        Ok(value)
    })
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::lab::run_lab;
    use crate::seeds::SEED_COMMANDS;
    use std::collections::HashSet;

    #[test]
    fn every_built_in_lab_parses_is_bilingual_and_has_a_unique_id() {
        let ids: HashSet<_> = BUILT_IN.iter().map(|b| b.id).collect();
        assert_eq!(ids.len(), BUILT_IN.len());
        for b in BUILT_IN {
            let lab = Lab::parse(b.source).unwrap_or_else(|e| panic!("{}: {e}", b.id));
            assert!(lab.title.en.is_some() && lab.title.zh.is_some(), "{}", b.id);
            for step in &lab.steps {
                for text in [&step.say, &step.task, &step.hint].into_iter().flatten() {
                    assert!(text.en.is_some() && text.zh.is_some(), "{}: {text:?}", b.id);
                    assert_ne!(text.en, text.zh);
                }
            }
        }
        let labs = built_in_labs();
        assert_eq!(labs.len(), BUILT_IN.len());
        // Read on first use, not when the page starts.
        assert!(labs.iter().all(|e| e.lab.get().is_none()));
        assert!(labs.iter().all(|e| !e.lab().steps.is_empty()));
    }

    #[test]
    fn every_seed_command_appears_in_a_built_in_lab() {
        let all: String = BUILT_IN.iter().map(|b| b.source).collect();
        for c in [0, 1, 2, 3, 4, 7].map(|i| SEED_COMMANDS[i]) {
            let quoted = serde_json::to_string(c).unwrap_or_default();
            assert!(
                all.contains(c) || all.contains(&quoted),
                "{c} is in no built-in lab"
            );
        }
    }

    #[test]
    fn a_lab_is_asked_for_by_a_same_origin_path() {
        assert_eq!(
            requested("?lab=labs/etcd.yaml"),
            Some(Ok("labs/etcd.yaml".into()))
        );
        assert_eq!(
            requested("?seed=3&lab=%2Fclass%2Fday1.yaml"),
            Some(Ok("/class/day1.yaml".into()))
        );
        for bad in [
            "https://evil.example/x.yaml",
            "//evil.example/x.yaml",
            "",
            "data:,x",
        ] {
            let search = format!("?lab={}", bad.replace(':', "%3A"));
            assert_eq!(requested(&search), Some(Err(bad.to_string())), "{bad}");
        }
        assert_eq!(requested("?live"), None);
    }

    /// Runs a lab as `./x lab` does (each step, each task's solution) and hands `look` the
    /// engine and what the console printed while each step ran, as each step ends.
    fn walk(source: &str, mut look: impl FnMut(usize, &crate::state::Engine, &str)) {
        let lab = Lab::parse(source).unwrap_or_else(|e| panic!("{e}"));
        let mut engine = crate::lab::lab_engine(&lab).unwrap_or_else(|e| panic!("{e}"));
        for (i, step) in lab.steps.iter().enumerate() {
            let before = engine.console.lines().back().map(|l| l.id);
            crate::lab::enter(&mut engine, step);
            for line in &step.solution.0 {
                engine.run_command(line);
            }
            let printed: String = engine
                .console
                .lines()
                .iter()
                .filter(|l| before.is_none_or(|b| l.id > b))
                .map(|l| format!("{}\n", l.text))
                .collect();
            look(i, &engine, &printed);
        }
    }

    /// The informers' relists and 410s, summed over every component.
    fn relists(engine: &crate::state::Engine) -> (u64, u64, usize) {
        let informers = engine.cluster.informers();
        let all_relisted = informers.iter().filter(|i| i.relists > 0).count();
        let relists = informers.iter().map(|i| i.relists).sum();
        let expired = informers.iter().map(|i| i.expired).sum();
        assert!(!informers.is_empty());
        (relists, expired, informers.len() - all_relisted)
    }

    /// What the etcd-quorum lab prints beside its checks: the etcd watch cancelled for want of
    /// a leader, the console's `get -w` kept through the short outage (nobody relists) and
    /// ended by the long one (429), then every informer relisting after a 410.
    #[test]
    fn the_etcd_quorum_scenario_keeps_watches_through_a_short_outage_and_not_a_long_one() {
        let source = BUILT_IN
            .iter()
            .find(|b| b.id == "etcd-quorum")
            .map(|b| b.source)
            .unwrap_or_default();
        walk(source, |i, engine, printed| match i {
            1 => {
                assert!(printed.contains("Error from server: etcdserver: request timed out"));
                assert!(printed.contains("watch was canceled (etcdserver: no leader)"));
                assert!(printed.contains(r#"{"kind":"PodList""#), "{printed}");
            }
            2 => {
                assert!(engine.console.following(), "the get -w is still open");
                assert!(
                    printed
                        .lines()
                        .any(|l| l.starts_with("after-outage ") && l.contains("Running")),
                    "{printed}"
                );
                assert_eq!(relists(engine).0, 0, "nobody relisted");
            }
            3 => assert!(printed.contains(r#"{"kind":"PodList""#), "{printed}"),
            4 => {
                assert!(printed
                    .contains("Error from server (TooManyRequests): storage is (re)initializing"));
                assert!(!engine.console.following(), "the get -w ended");
                assert_eq!(relists(engine).0, 0);
            }
            5 => {
                let (_, expired, _) = relists(engine);
                assert!(expired > 0);
                // Every node agent listed again after its 410; kube-scheduler and
                // kube-controller-manager could not renew their Leases for 10 s, stopped
                // leading and restarted: their new processes list from scratch.
                let informers = engine.cluster.informers();
                let agents: Vec<_> = informers
                    .iter()
                    .filter(|i| {
                        i.component.starts_with("kubelet/")
                            || i.component.starts_with("kube-proxy/")
                    })
                    .collect();
                assert!(!agents.is_empty());
                assert!(agents.iter().all(|i| i.relists > 0), "{agents:?}");
                let replicas = engine.cluster.replicas();
                assert!(replicas.iter().all(|r| r.restarts >= 1), "{replicas:?}");
            }
            _ => {}
        });
    }

    /// What the watch-cache lab prints that its checks cannot see (a watch's events): 504 for
    /// a list ahead of the cache, the waiting watch's first event past 400, 410 for the watch
    /// from 50 while etcd still answers revision 50, and no relist after a 5 s outage.
    #[test]
    fn the_watch_cache_scenario_shows_504_the_waiting_watch_and_410_with_etcd_still_at_51() {
        let source = BUILT_IN
            .iter()
            .find(|b| b.id == "watch-cache")
            .map(|b| b.source)
            .unwrap_or_default();
        walk(source, |i, engine, printed| match i {
            0 => assert!(printed.contains("\"ModRevision\" : 57"), "{printed}"),
            1 => {
                assert!(printed.contains(
                    "Error from server (Timeout): Timeout: Too large resource version: 400, current: "
                ));
                assert!(engine.console.following(), "the watch from 400 waits");
            }
            2 => {
                let first = printed
                    .lines()
                    .find(|l| l.starts_with(r#"{"type":"#))
                    .unwrap_or_else(|| panic!("no event: {printed}"));
                let event: serde_json::Value = serde_json::from_str(first).unwrap_or_default();
                let rv = event["object"]["metadata"]["resourceVersion"]
                    .as_str()
                    .and_then(|v| v.parse::<u64>().ok())
                    .unwrap_or_default();
                assert!(rv > 400, "{first}");
                assert!(!engine.console.following(), "head -1 closed it");
            }
            3 => {
                assert!(
                    printed.contains(r#""message":"too old resource version: 57 ("#),
                    "{printed}"
                );
                assert!(printed.contains(r#""reason":"Expired","code":410"#));
                assert!(printed.contains("\"ModRevision\" : 57"), "{printed}");
            }
            5 => {
                assert!(printed.contains("Error from server: etcdserver: request timed out"));
                assert_eq!(relists(engine).0, 0, "nobody relisted");
            }
            _ => {}
        });
    }

    /// What `./x lab static/labs/*.yaml` does, in the test suite too.
    #[test]
    fn every_built_in_lab_passes_the_runner() {
        for b in BUILT_IN {
            let lab = Lab::parse(b.source).unwrap_or_else(|e| panic!("{}: {e}", b.id));
            let reports = run_lab(&lab).unwrap_or_else(|e| panic!("{}: {e}", b.id));
            for r in reports {
                assert!(r.failure.is_none(), "{}: {r}", b.id);
            }
        }
    }
}
