//! `kubectl top nodes|pods`: reads `metrics.k8s.io/v1beta1` (the figures watchlab's API server
//! computes as metrics-server would) and prints them in kubectl v1.32's columns
//! (k8s.io/kubectl `pkg/cmd/top/top_node.go`, `top_pod.go`, `pkg/metricsutil/metrics_printer.go`):
//! CPU in millicores rounded up (`MilliValue`), memory in whole MiB rounded down, a node's
//! percentages its usage over its `status.allocatable` (`--show-capacity`: `capacity`)
//! truncated, nodes without metrics as `<unknown>`. Every row ends with a tab, as
//! `printValue` writes it, so the last column is padded too.

use super::{parse_flags, Ctx, Done};
use crate::errors::{json_body, CmdError};
use crate::flags::{boolean, value, FlagSpec};
use crate::query::with_query;
use crate::tabwriter::TabWriter;
use serde_json::Value;
use watchlab_apimachinery::quantity::Quantity;
use watchlab_apimachinery::sort;

const METRICS: &str = "/apis/metrics.k8s.io/v1beta1";

const NODE_FLAGS: &[FlagSpec] = &[
    value("selector", Some('l')),
    boolean("no-headers", None),
    boolean("show-capacity", None),
    value("sort-by", None),
];

const POD_FLAGS: &[FlagSpec] = &[
    value("selector", Some('l')),
    value("field-selector", None),
    boolean("all-namespaces", Some('A')),
    boolean("containers", None),
    boolean("no-headers", None),
    value("sort-by", None),
];

pub(crate) fn run(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let Some((sub, rest)) = args.split_first() else {
        return Err(CmdError::usage(
            "top",
            "USAGE: top (node | pod) [flags] (the subcommands are node and pod)",
        ));
    };
    match sub.as_str() {
        "node" | "nodes" | "no" => nodes(ctx, rest),
        "pod" | "pods" | "po" => pods(ctx, rest),
        other => Err(CmdError::msg(format!(
            "unknown command \"{other}\" for \"kubectl top\""
        ))),
    }
}

/// `SupportedMetricsAPIVersionAvailable`: the group must be in discovery.
fn check_api(ctx: &mut Ctx) -> Result<(), CmdError> {
    let groups = json_body(&ctx.client.request("GET", "/apis", None, None))?;
    let served = groups["groups"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|g| g["name"] == "metrics.k8s.io");
    if served {
        Ok(())
    } else {
        Err(CmdError::msg("Metrics API not available"))
    }
}

fn get(ctx: &mut Ctx, path: &str) -> Result<Value, CmdError> {
    json_body(&ctx.client.request("GET", path, None, None))
}

/// One object or a list's items, `name` given or not.
fn fetch(
    ctx: &mut Ctx,
    collection: &str,
    name: Option<&String>,
    params: &[(&str, String)],
) -> Result<Vec<Value>, CmdError> {
    match name {
        Some(n) => Ok(vec![get(ctx, &format!("{collection}/{n}"))?]),
        None => {
            let list = get(ctx, &with_query(collection, params))?;
            Ok(list["items"].as_array().cloned().unwrap_or_default())
        }
    }
}

fn quantity(v: &Value) -> Quantity {
    Quantity::parse(v.as_str().unwrap_or("0")).unwrap_or_default()
}

/// `printSingleResourceUsage`: `%vm` of `MilliValue()`, `%vMi` of `Value()/(1024*1024)`.
fn cpu_text(q: &Quantity) -> String {
    format!("{}m", q.milli_value())
}

fn memory_text(q: &Quantity) -> String {
    format!("{}Mi", q.value() / (1024 * 1024))
}

/// `int64(float64(usage.MilliValue()) / float64(available.MilliValue()) * 100)`.
fn percent(used: &Quantity, available: &Quantity) -> String {
    let fraction = used.milli_value() as f64 / available.milli_value() as f64 * 100.0;
    format!("{}%", fraction as i64)
}

fn selector_params(p: &crate::flags::Parsed, field: bool) -> Vec<(&'static str, String)> {
    let mut params = Vec::new();
    if let Some(l) = p.last("selector").filter(|l| !l.is_empty()) {
        params.push(("labelSelector", l.to_string()));
    }
    if field {
        if let Some(f) = p.last("field-selector").filter(|f| !f.is_empty()) {
            params.push(("fieldSelector", f.to_string()));
        }
    }
    params
}

fn render(mut rows: Vec<Vec<String>>) -> String {
    // Each row ends with a tab (`printValue`): an empty last cell pads the real last one.
    for r in &mut rows {
        r.push(String::new());
    }
    TabWriter::new()
        .render(&rows)
        .lines()
        .map(|l| format!("{l}\n"))
        .collect()
}

fn nodes(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let p = parse_flags("top node", args, NODE_FLAGS)?;
    let name = p.args.first();
    let params = selector_params(&p, false);
    check_api(ctx)?;
    let mut metrics = fetch(ctx, &format!("{METRICS}/nodes"), name, &params)?;
    if metrics.is_empty() {
        return Err(CmdError::msg("metrics not available yet"));
    }
    let nodes = fetch(ctx, "/api/v1/nodes", name, &params)?;
    let field = if p.flag("show-capacity") {
        "capacity"
    } else {
        "allocatable"
    };
    sort::sort_by(&mut metrics, |a, b| {
        a["metadata"]["name"]
            .as_str()
            .cmp(&b["metadata"]["name"].as_str())
    });
    let mut rows = Vec::new();
    if !p.flag("no-headers") {
        rows.push(
            ["NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)"]
                .map(String::from)
                .to_vec(),
        );
    }
    let node_named = |n: &str| nodes.iter().find(|o| o["metadata"]["name"] == n);
    for m in &metrics {
        let n = m["metadata"]["name"].as_str().unwrap_or_default();
        let mut row = vec![n.to_string()];
        for res in ["cpu", "memory"] {
            let used = quantity(&m["usage"][res]);
            row.push(if res == "cpu" {
                cpu_text(&used)
            } else {
                memory_text(&used)
            });
            if let Some(a) = node_named(n).and_then(|o| o["status"][field].get(res)) {
                row.push(percent(&used, &quantity(a)));
            }
        }
        rows.push(row);
    }
    // `printMissingMetricsNodeLine`: the nodes metrics-server has nothing for.
    for node in &nodes {
        let n = node["metadata"]["name"].as_str().unwrap_or_default();
        if !metrics.iter().any(|m| m["metadata"]["name"] == n) {
            let mut row = vec![n.to_string()];
            row.extend(std::iter::repeat_n("<unknown>".to_string(), 4));
            rows.push(row);
        }
    }
    Ok(Done::out(render(rows)))
}

fn pods(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let p = parse_flags("top pod", args, POD_FLAGS)?;
    let all_ns = p.flag("all-namespaces");
    let ns = ctx.namespace(&p);
    let name = p.args.first();
    let params = selector_params(&p, true);
    check_api(ctx)?;
    let collection = if all_ns {
        format!("{METRICS}/pods")
    } else {
        format!("{METRICS}/namespaces/{ns}/pods")
    };
    let mut metrics = fetch(ctx, &collection, name, &params)?;
    let mut done = Done::default();
    if metrics.is_empty() {
        done.stderr = if all_ns {
            "No resources found\n".to_string()
        } else {
            format!("No resources found in {ns} namespace.\n")
        };
        return Ok(done);
    }
    let key = |m: &Value| {
        (
            m["metadata"]["namespace"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            m["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        )
    };
    sort::sort_by_key(&mut metrics, |m| {
        if all_ns {
            key(m)
        } else {
            (String::new(), key(m).1)
        }
    });
    let containers = p.flag("containers");
    let mut rows = Vec::new();
    if !p.flag("no-headers") {
        let mut h = Vec::new();
        if all_ns {
            h.push("NAMESPACE");
        }
        if containers {
            h.push("POD");
        }
        h.extend(["NAME", "CPU(cores)", "MEMORY(bytes)"]);
        rows.push(h.into_iter().map(String::from).collect());
    }
    for m in &metrics {
        let (pod_ns, pod) = key(m);
        let mut ctrs = m["containers"].as_array().cloned().unwrap_or_default();
        sort::sort_by(&mut ctrs, |a, b| {
            a["name"].as_str().cmp(&b["name"].as_str())
        });
        let mut prefix = Vec::new();
        if all_ns {
            prefix.push(pod_ns.clone());
        }
        if containers {
            for c in &ctrs {
                let mut row = prefix.clone();
                row.push(pod.clone());
                row.push(c["name"].as_str().unwrap_or_default().to_string());
                row.push(cpu_text(&quantity(&c["usage"]["cpu"])));
                row.push(memory_text(&quantity(&c["usage"]["memory"])));
                rows.push(row);
            }
        } else {
            // `getPodMetrics`: the containers' sum.
            let sum = |res: &str| {
                ctrs.iter().fold(Quantity::default(), |s, c| {
                    s.add(&quantity(&c["usage"][res]))
                })
            };
            let mut row = prefix;
            row.push(pod.clone());
            row.push(cpu_text(&sum("cpu")));
            row.push(memory_text(&sum("memory")));
            rows.push(row);
        }
    }
    done.stdout = render(rows);
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_round_as_kubectl_does() {
        let cpu = Quantity::parse("2445937n").unwrap_or_default();
        assert_eq!(cpu_text(&cpu), "3m");
        let mem = Quantity::parse("14236Ki").unwrap_or_default();
        assert_eq!(memory_text(&mem), "13Mi");
        let alloc = Quantity::parse("4").unwrap_or_default();
        assert_eq!(
            percent(&Quantity::parse("87m").unwrap_or_default(), &alloc),
            "2%"
        );
    }

    #[test]
    fn rows_end_padded_as_a_trailing_tab_pads_them() {
        let out = render(vec![
            vec!["NAME".into(), "CPU(cores)".into()],
            vec!["a".into(), "3m".into()],
        ]);
        assert_eq!(out, "NAME   CPU(cores)   \na      3m           \n");
    }
}
