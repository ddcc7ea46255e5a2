//! `kubectl taint nodes NAME KEY=VALUE:EFFECT… [KEY:EFFECT-…]` as kubectl v1.32's
//! pkg/cmd/taint: parses each taint to add or remove, refuses an added taint whose key and
//! effect the node already has unless `--overwrite`, and writes the node's new taint list
//! (`reorganizeTaints`) with one PATCH, printing `node/NAME tainted`, `untainted` or
//! `modified`.

use super::{parse_flags, Ctx, Done};
use crate::errors::{json_body, CmdError};
use crate::flags::{boolean, value, FlagSpec};
use crate::targets::get;
use serde_json::{json, Value};

const FLAGS: &[FlagSpec] = &[
    boolean("overwrite", None),
    boolean("all", None),
    value("selector", Some('l')),
    value("dry-run", None),
];

/// The taint effects (`v1.TaintEffect`).
const EFFECTS: [&str; 3] = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

/// One taint as the command line names it: `key=value:effect` (value and, when removing,
/// effect optional).
#[derive(Debug, Clone, PartialEq, Eq)]
struct TaintSpec {
    key: String,
    value: String,
    effect: String,
}

impl TaintSpec {
    /// `Taint.ToString`: `key=value:effect`, `key:effect`, `key=value` or `key`.
    fn text(&self) -> String {
        let mut s = self.key.clone();
        if !self.value.is_empty() {
            s = format!("{s}={}", self.value);
        }
        if !self.effect.is_empty() {
            s = format!("{s}:{}", self.effect);
        }
        s
    }

    fn json(&self) -> Value {
        let mut t = json!({"key": self.key, "effect": self.effect});
        if !self.value.is_empty() {
            t["value"] = json!(self.value);
        }
        t
    }
}

pub(crate) fn run(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let p = parse_flags("taint", args, FLAGS)?;
    let usage = || {
        CmdError::usage("taint", "USAGE: taint NODE NAME KEY_1=VAL_1:TAINT_EFFECT_1 ... KEY_N=VAL_N:TAINT_EFFECT_N [options]")
    };
    let (node, specs) = match p.args.as_slice() {
        [ty, rest @ ..] if ty.contains('/') => (ty.as_str(), rest),
        [ty, name, rest @ ..] => {
            if !matches!(ty.as_str(), "node" | "nodes" | "no") {
                return Err(CmdError::msg(format!(
                    "invalid resource type {ty}, only node types are supported"
                )));
            }
            (name.as_str(), rest)
        }
        _ => return Err(usage()),
    };
    let node = node.rsplit('/').next().unwrap_or(node);
    if specs.is_empty() {
        return Err(CmdError::msg("at least one taint update is required"));
    }
    let (add, remove) = parse_taints(specs)?;
    let Some(rt) = ctx.resource_type("nodes") else {
        return Err(CmdError::msg(
            "the server doesn't have a resource type \"nodes\"",
        ));
    };
    let obj = get(ctx.client, &rt, "", node)?;
    let old = current(&obj);
    if !p.has("overwrite") {
        let exists: Vec<&str> = add
            .iter()
            .filter(|t| old.iter().any(|o| o.key == t.key && o.effect == t.effect))
            .map(|t| t.key.as_str())
            .collect();
        if !exists.is_empty() {
            return Err(CmdError::msg(format!(
                "node {node} already has {} taint(s) with same effect(s) and --overwrite is false",
                exists.join(",")
            )));
        }
    }
    let (operation, taints) = reorganize(&old, p.has("overwrite"), &add, &remove)?;
    let list: Vec<Value> = taints.iter().map(TaintSpec::json).collect();
    let body = json!({"spec": {"taints": if list.is_empty() { Value::Null } else { json!(list) }}});
    let resp = ctx.client.request(
        "PATCH",
        &rt.object_path("", node),
        Some("application/merge-patch+json"),
        Some(&body.to_string()),
    );
    json_body(&resp)?;
    Ok(Done::out(format!("node/{node} {operation}\n")))
}

/// `parseTaints`: the taints to add (`key=value:effect`, `key:effect`) and to remove (ending
/// in `-`: `key:effect-`, `key-`).
fn parse_taints(specs: &[String]) -> Result<(Vec<TaintSpec>, Vec<TaintSpec>), CmdError> {
    let (mut add, mut remove) = (Vec::new(), Vec::new());
    for spec in specs {
        if let Some(rest) = spec.strip_suffix('-') {
            let (key, effect) = rest.split_once(':').unwrap_or((rest, ""));
            if !effect.is_empty() {
                check_effect(effect)?;
            }
            remove.push(TaintSpec {
                key: key.into(),
                value: String::new(),
                effect: effect.into(),
            });
            continue;
        }
        let Some((key_value, effect)) = spec.split_once(':') else {
            return Err(CmdError::msg(format!(
                "invalid taint spec: {spec}, unknown taint spec: {spec}"
            )));
        };
        check_effect(effect)?;
        let (key, value) = key_value.split_once('=').unwrap_or((key_value, ""));
        if key.is_empty() {
            return Err(CmdError::msg(format!("invalid taint spec: {spec}")));
        }
        add.push(TaintSpec {
            key: key.into(),
            value: value.into(),
            effect: effect.into(),
        });
    }
    Ok((add, remove))
}

fn check_effect(effect: &str) -> Result<(), CmdError> {
    if EFFECTS.contains(&effect) {
        Ok(())
    } else {
        Err(CmdError::msg(format!(
            "invalid taint effect: {effect}, unsupported taint effect"
        )))
    }
}

/// The node's taints now.
fn current(node: &Value) -> Vec<TaintSpec> {
    let field = |t: &Value, k: &str| t.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    node.pointer("/spec/taints")
        .and_then(Value::as_array)
        .map(|ts| {
            ts.iter()
                .map(|t| TaintSpec {
                    key: field(t, "key"),
                    value: field(t, "value"),
                    effect: field(t, "effect"),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `reorganizeTaints`: the added taints, then the old ones they do not replace, minus the
/// removed ones (a removal that matches nothing is an error); the operation word kubectl
/// prints.
fn reorganize(
    old: &[TaintSpec],
    overwrite: bool,
    add: &[TaintSpec],
    remove: &[TaintSpec],
) -> Result<(&'static str, Vec<TaintSpec>), CmdError> {
    let mut taints = add.to_vec();
    let mut added = !add.is_empty();
    for o in old {
        if !taints
            .iter()
            .any(|t| t.key == o.key && t.effect == o.effect)
        {
            taints.push(o.clone());
        } else {
            added = true;
        }
    }
    let mut deleted = false;
    for r in remove {
        let before = taints.len();
        taints.retain(|t| !(t.key == r.key && (r.effect.is_empty() || t.effect == r.effect)));
        if taints.len() == before {
            return Err(CmdError::msg(format!("taint {:?} not found", r.text())));
        }
        deleted = true;
    }
    let operation = if (added && deleted) || overwrite {
        "modified"
    } else if added {
        "tainted"
    } else {
        "untainted"
    };
    Ok((operation, taints))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn specs_parse_as_kubectl_reads_them() {
        let (add, remove) = parse_taints(&specs(&[
            "dedicated=db:NoExecute",
            "gpu:NoSchedule",
            "old-",
        ]))
        .expect("valid");
        assert_eq!(add[0].text(), "dedicated=db:NoExecute");
        assert_eq!(add[1].text(), "gpu:NoSchedule");
        assert_eq!(remove[0].text(), "old");
        let bad = parse_taints(&specs(&["a=b:Sometimes"])).expect_err("bad effect");
        assert_eq!(
            bad.stderr,
            "error: invalid taint effect: Sometimes, unsupported taint effect\n"
        );
    }

    #[test]
    fn removing_a_missing_taint_is_an_error() {
        let old = vec![TaintSpec {
            key: "a".into(),
            value: String::new(),
            effect: "NoSchedule".into(),
        }];
        let gone = TaintSpec {
            key: "b".into(),
            value: String::new(),
            effect: String::new(),
        };
        assert!(reorganize(&old, false, &[], &[gone]).is_err());
        let a = TaintSpec {
            effect: String::new(),
            ..old[0].clone()
        };
        let (op, left) = reorganize(&old, false, &[], &[a]).expect("removed");
        assert_eq!((op, left.len()), ("untainted", 0));
    }
}
