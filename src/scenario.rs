//! The built-in labs: the seed texts' stories (and the operator and Service stories) as lab
//! files in `static/labs/`, compiled into the page and also served beside it, so a trainer can
//! read them as examples of the format. The page lists them first in the Scenarios tab; any lab
//! a learner loads (`?lab=URL`, *Open lab…*) joins the list after them.

use std::rc::Rc;

use crate::lab::{Lab, LabError};

/// A built-in lab: its id (the DOM's `scenario-<id>`) and its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltIn {
    pub id: &'static str,
    pub source: &'static str,
}

/// The stories, in the order the texts tell them.
pub const BUILT_IN: [BuiltIn; 10] = [
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
];

/// A lab the page can start: a built-in one or one the learner loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct LabEntry {
    /// A built-in lab's id, or where a loaded one came from (its URL or file name).
    pub id: String,
    pub lab: Lab,
}

/// The labs the page starts with: the built-in ones, parsed (a test holds that they all parse;
/// one that did not would be left out rather than break the page).
pub fn built_in_labs() -> Vec<Rc<LabEntry>> {
    BUILT_IN
        .iter()
        .filter_map(|b| {
            Lab::parse(b.source).ok().map(|lab| {
                Rc::new(LabEntry {
                    id: b.id.to_string(),
                    lab,
                })
            })
        })
        .collect()
}

/// Reads a loaded lab (refused with its line, column and reason).
pub fn load(id: &str, source: &str) -> Result<LabEntry, LabError> {
    Lab::parse(source).map(|lab| LabEntry {
        id: id.to_string(),
        lab,
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
        assert_eq!(built_in_labs().len(), BUILT_IN.len());
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
