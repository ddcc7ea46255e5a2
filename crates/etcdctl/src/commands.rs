//! The commands: their flags, the requests they make, and etcdctl's printers for the answers
//! (`etcdctl/ctlv3/command/printer_simple.go`, `printer_json.go`, `printer_table.go`).

use serde_json::Value;

use crate::api::{EtcdClient, RangeRequest, RangeResponse, ResponseHeader};
use crate::args::{first_member, int_flag, member_at, range_end, shown, unknown_flag};
use crate::json::{self, Object};
use crate::table::{render, si_bytes};
use crate::{Invocation, Outcome, WriteOut, EXIT_BAD_ARGS, EXIT_ERROR, VERSION};

pub fn run(inv: &Invocation, client: &mut dyn EtcdClient) -> Outcome {
    let words: Vec<&str> = inv.words.iter().map(String::as_str).collect();
    // cobrautl's ExitBadFeature: etcdctl's table printer has member and endpoint answers only.
    if inv.write_out == WriteOut::Table && !matches!(words.first(), Some(&("member" | "endpoint")))
    {
        return Outcome::error(4, "unsupported output format");
    }
    if inv.write_out == WriteOut::Fields && !matches!(words.first(), Some(&("get" | "put" | "del")))
    {
        return Outcome::error(4, "this console prints -w fields for get, put and del");
    }
    match words.as_slice() {
        [] | ["help", ..] | ["--help", ..] | ["-h", ..] => Outcome::ok(usage()),
        ["version"] | ["--version"] => Outcome::ok(format!(
            "etcdctl version: {VERSION}\nAPI version: 3.5\n"
        )),
        ["get", args @ ..] => get(inv, args, client),
        ["member", "list", args @ ..] => no_flags(args).unwrap_or_else(|| member_list(inv, client)),
        ["endpoint", "status", args @ ..] => endpoint(inv, args, client, false),
        ["endpoint", "health", args @ ..] => endpoint(inv, args, client, true),
        ["move-leader", args @ ..] => move_leader(inv, args, client),
        ["watch", args @ ..] => crate::watch::watch(inv, args, client),
        ["compaction", args @ ..] => compaction(inv, args, client),
        ["put", args @ ..] => crate::writes::put(inv, args, client),
        ["del", args @ ..] => crate::writes::del(inv, args, client),
        ["txn", args @ ..] => crate::txn::txn(inv, args, client),
        ["lease", args @ ..] => crate::lease::lease(inv, args, client),
        ["snapshot", "save", args @ ..] => snapshot_save(inv, args, client),
        ["alarm", "list", args @ ..] => alarm(inv, args, client, false),
        ["alarm", "disarm", args @ ..] => alarm(inv, args, client, true),
        ["defrag", args @ ..] => defrag(inv, args, client),
        [cmd, ..] if NOT_YET.contains(cmd) => Outcome::error(
            EXIT_ERROR,
            &format!("{cmd}: not in this console's etcdctl yet (it runs get, put, del, txn, watch, compaction, lease, snapshot save, alarm, defrag, member list, endpoint status|health, move-leader and version)"),
        ),
        [cmd, ..] => Outcome {
            stderr: format!(
                "Error: unknown command {cmd:?} for \"etcdctl\"\nRun 'etcdctl --help' for usage.\n"
            ),
            exit_code: EXIT_ERROR,
            ..Outcome::default()
        },
    }
}

/// Commands etcdctl has that this console does not run yet.
const NOT_YET: [&str; 1] = ["member"];

fn usage() -> String {
    "NAME:\n\tetcdctl - A simple command line client for etcd3.\n\nUSAGE:\n\tetcdctl [flags]\n\n\
     COMMANDS (this console):\n\
     \tget\t\t\tGets the key or a range of keys\n\
     \tput\t\t\tPuts the given key into the store\n\
     \tdel\t\t\tRemoves the specified key or range of keys [key, range_end)\n\
     \ttxn\t\t\tTxn processes all the requests in one transaction\n\
     \twatch\t\t\tWatches events stream on keys or prefixes\n\
     \tcompaction\t\tCompacts the event history in etcd\n\
     \tlease grant|revoke|timetolive|keep-alive --once|list\n\
     \tsnapshot save\t\tStores an etcd node backend snapshot to a given file\n\
     \talarm list|disarm\tLists or disarms all alarms\n\
     \tdefrag\t\t\tDefragments the storage of the etcd members with given endpoints\n\
     \tmember list\t\tLists all members in the cluster\n\
     \tendpoint status\t\tPrints out the status of endpoints specified in `--endpoints` flag\n\
     \tendpoint health\t\tChecks the healthiness of endpoints specified in `--endpoints` flag\n\
     \tmove-leader\t\tTransfers leadership to another etcd cluster member.\n\
     \tversion\t\t\tPrints the version of etcdctl\n"
        .to_string()
}

fn no_flags(args: &[&str]) -> Option<Outcome> {
    args.first().map(|a| unknown_flag(a))
}

struct GetFlags {
    prefix: bool,
    from_key: bool,
    keys_only: bool,
    print_value_only: bool,
    count_only: bool,
    limit: i64,
    rev: i64,
    serializable: bool,
    keys: Vec<String>,
}

fn get_flags(args: &[&str]) -> Result<GetFlags, Outcome> {
    let mut f = GetFlags {
        prefix: false,
        from_key: false,
        keys_only: false,
        print_value_only: false,
        count_only: false,
        limit: 0,
        rev: 0,
        serializable: false,
        keys: Vec::new(),
    };
    let mut it = args.iter();
    while let Some(&a) = it.next() {
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (a, None),
        };
        let mut value = |flag: &str| -> Result<String, Outcome> {
            inline
                .clone()
                .or_else(|| it.next().map(|v| v.to_string()))
                .ok_or_else(|| {
                    Outcome::error(EXIT_ERROR, &format!("flag needs an argument: {flag}"))
                })
        };
        match name {
            "--prefix" => f.prefix = true,
            "--from-key" => f.from_key = true,
            "--keys-only" => f.keys_only = true,
            "--print-value-only" => f.print_value_only = true,
            "--count-only" => f.count_only = true,
            "--limit" => f.limit = int_flag("--limit", &value("--limit")?)?,
            "--rev" => f.rev = int_flag("--rev", &value("--rev")?)?,
            "--consistency" => match value("--consistency")?.as_str() {
                "l" => f.serializable = false,
                "s" => f.serializable = true,
                other => {
                    return Err(Outcome::error(
                        EXIT_BAD_ARGS,
                        &format!("unknown consistency flag {other:?}"),
                    ))
                }
            },
            "--order" | "--sort-by" => {
                value(name)?;
            }
            flag if flag.starts_with('-') => return Err(unknown_flag(flag)),
            key => f.keys.push(key.to_string()),
        }
    }
    Ok(f)
}

fn get(inv: &Invocation, args: &[&str], client: &mut dyn EtcdClient) -> Outcome {
    let f = match get_flags(args) {
        Ok(f) => f,
        Err(out) => return out,
    };
    if f.keys.is_empty() || f.keys.len() > 2 {
        return Outcome::error(
            EXIT_BAD_ARGS,
            "get command needs one argument as key and an optional argument as range_end",
        );
    }
    if f.prefix && f.from_key {
        return Outcome::error(
            EXIT_BAD_ARGS,
            "`--prefix` and `--from-key` cannot be set at the same time, choose one",
        );
    }
    if f.keys.len() == 2 && (f.prefix || f.from_key) {
        return Outcome::error(
            EXIT_BAD_ARGS,
            "too many arguments, only accept one argument when `--prefix` or `--from-key` is set",
        );
    }
    let key = f.keys[0].clone();
    let range_end = range_end(&f.keys, f.prefix, f.from_key);
    let req = RangeRequest {
        key,
        range_end,
        limit: f.limit,
        revision: f.rev,
        serializable: f.serializable,
        keys_only: f.keys_only,
        count_only: f.count_only,
    };
    let member = match first_member(inv, client) {
        Ok(m) => m,
        Err(out) => return out,
    };
    match client.range(member, &req) {
        Ok(resp) => Outcome::ok(print_get(inv, &f, &resp)),
        Err(e) => Outcome::error(EXIT_ERROR, &e.0),
    }
}

fn print_get(inv: &Invocation, f: &GetFlags, resp: &RangeResponse) -> String {
    match inv.write_out {
        WriteOut::Json => return format!("{}\n", range_json(resp)),
        WriteOut::Fields => return crate::fields::get(inv.hex, resp),
        _ => {}
    }
    if f.count_only {
        return format!("{}\n", resp.count);
    }
    let mut out = String::new();
    for kv in &resp.kvs {
        if !f.print_value_only {
            out.push_str(&shown(inv.hex, &kv.key));
            out.push('\n');
        }
        out.push_str(&shown(inv.hex, &kv.value));
        out.push('\n');
    }
    out
}

/// `etcdserverpb.RangeResponse` as `-w json` prints it.
fn range_json(resp: &RangeResponse) -> String {
    let kvs: Vec<String> = resp.kvs.iter().map(json::key_value).collect();
    Object::new()
        .raw("header", &json::header(&resp.header))
        .list("kvs", &kvs)
        .value_if("more", resp.more)
        .number("count", resp.count)
        .finish()
}

fn member_list(inv: &Invocation, client: &mut dyn EtcdClient) -> Outcome {
    let members = client.members();
    let row = |m: &crate::Member| {
        vec![
            format!("{:x}", m.id),
            if m.name.is_empty() {
                "unstarted"
            } else {
                "started"
            }
            .to_string(),
            m.name.clone(),
            m.peer_urls.join(","),
            m.client_urls.join(","),
            m.is_learner.to_string(),
        ]
    };
    let text = match inv.write_out {
        WriteOut::Simple | WriteOut::Fields => members
            .iter()
            .map(|m| format!("{}\n", row(m).join(", ")))
            .collect(),
        WriteOut::Table => render(
            &[
                "ID",
                "STATUS",
                "NAME",
                "PEER ADDRS",
                "CLIENT ADDRS",
                "IS LEARNER",
            ],
            &members.iter().map(row).collect::<Vec<_>>(),
        ),
        WriteOut::Json => {
            let header = ResponseHeader {
                cluster_id: client.cluster_id(),
                member_id: members.first().map_or(0, |m| m.id),
                ..ResponseHeader::default()
            };
            let ms: Vec<String> = members
                .iter()
                .map(|m| {
                    Object::new()
                        .number("ID", m.id)
                        .text("name", &m.name)
                        .raw("peerURLs", &Value::from(m.peer_urls.clone()).to_string())
                        .raw(
                            "clientURLs",
                            &Value::from(m.client_urls.clone()).to_string(),
                        )
                        .value_if("isLearner", m.is_learner)
                        .finish()
                })
                .collect();
            let all = Object::new()
                .raw("header", &json::header(&header))
                .list("members", &ms)
                .finish();
            format!("{all}\n")
        }
    };
    Outcome::ok(text)
}

/// The endpoints a maintenance command goes through, each with the member it names:
/// `--endpoints`, or with `--cluster` every member's client URL.
fn targets(
    inv: &Invocation,
    args: &[&str],
    client: &dyn EtcdClient,
) -> Result<Vec<(String, Option<usize>)>, Outcome> {
    let mut cluster = false;
    for a in args {
        match *a {
            "--cluster" => cluster = true,
            other => return Err(unknown_flag(other)),
        }
    }
    Ok(if cluster {
        client
            .members()
            .iter()
            .enumerate()
            .flat_map(|(i, m)| m.client_urls.iter().map(move |u| (u.clone(), Some(i))))
            .collect()
    } else {
        inv.endpoints
            .iter()
            .map(|e| (e.clone(), member_at(client, e)))
            .collect()
    })
}

fn endpoint(inv: &Invocation, args: &[&str], client: &mut dyn EtcdClient, health: bool) -> Outcome {
    let targets = match targets(inv, args, client) {
        Ok(t) => t,
        Err(out) => return out,
    };
    if health {
        endpoint_health(&targets, client)
    } else {
        endpoint_status(inv, &targets, client)
    }
}

fn endpoint_status(
    inv: &Invocation,
    targets: &[(String, Option<usize>)],
    client: &mut dyn EtcdClient,
) -> Outcome {
    let mut rows = Vec::new();
    let mut stderr = String::new();
    for (ep, member) in targets {
        match member.map(|m| client.status(m)) {
            Some(Ok(s)) => rows.push((ep.clone(), s)),
            _ => stderr.push_str(&format!(
                "Failed to get the status of endpoint {ep} (context deadline exceeded)\n"
            )),
        }
    }
    let cells = |ep: &str, s: &crate::StatusResponse| {
        vec![
            ep.to_string(),
            format!("{:x}", s.header.member_id),
            s.version.clone(),
            si_bytes(s.db_size.max(0) as u64),
            (s.leader == s.header.member_id).to_string(),
            s.is_learner.to_string(),
            s.raft_term.to_string(),
            s.raft_index.to_string(),
            s.raft_applied_index.to_string(),
            s.errors.join(", "),
        ]
    };
    let stdout = match inv.write_out {
        WriteOut::Simple | WriteOut::Fields => rows
            .iter()
            .map(|(ep, s)| format!("{}\n", cells(ep, s).join(", ")))
            .collect(),
        WriteOut::Table => render(
            &[
                "ENDPOINT",
                "ID",
                "VERSION",
                "DB SIZE",
                "IS LEADER",
                "IS LEARNER",
                "RAFT TERM",
                "RAFT INDEX",
                "RAFT APPLIED INDEX",
                "ERRORS",
            ],
            &rows.iter().map(|(ep, s)| cells(ep, s)).collect::<Vec<_>>(),
        ),
        WriteOut::Json => {
            let all: Vec<String> = rows
                .iter()
                .map(|(ep, s)| {
                    let errors: Vec<String> = s
                        .errors
                        .iter()
                        .map(|e| Value::from(e.as_str()).to_string())
                        .collect();
                    let status = Object::new()
                        .raw("header", &json::header(&s.header))
                        .text("version", &s.version)
                        .number("dbSize", s.db_size)
                        .number("leader", s.leader)
                        .number("raftIndex", s.raft_index)
                        .number("raftTerm", s.raft_term)
                        .number("raftAppliedIndex", s.raft_applied_index)
                        .list("errors", &errors)
                        .number("dbSizeInUse", s.db_size_in_use)
                        .value_if("isLearner", s.is_learner)
                        .finish();
                    Object::new()
                        .value("Endpoint", ep.as_str())
                        .raw("Status", &status)
                        .finish()
                })
                .collect();
            format!("[{}]\n", all.join(","))
        }
    };
    let failed = !stderr.is_empty();
    Outcome {
        stdout,
        stderr,
        exit_code: if failed { EXIT_ERROR } else { 0 },
        watch: None,
        txn: None,
    }
}

/// `endpoint health`: a linearizable read of the key `health` through each endpoint.
fn endpoint_health(targets: &[(String, Option<usize>)], client: &mut dyn EtcdClient) -> Outcome {
    let mut out = Outcome::default();
    for (ep, member) in targets {
        let req = RangeRequest {
            key: "health".to_string(),
            ..RangeRequest::default()
        };
        match member.map(|m| client.range(m, &req)) {
            // The members' round trip on the page's links: two 2 ms hops.
            Some(Ok(_)) => out.stdout.push_str(&format!(
                "{ep} is healthy: successfully committed proposal: took = 4ms\n"
            )),
            Some(Err(e)) => out.stderr.push_str(&format!(
                "{ep} is unhealthy: failed to commit proposal: {}\n",
                e.0
            )),
            None => out.stderr.push_str(&format!(
                "{ep} is unhealthy: failed to commit proposal: {}\n",
                crate::DEADLINE_EXCEEDED
            )),
        }
    }
    if !out.stderr.is_empty() {
        out.stderr.push_str("Error: unhealthy cluster\n");
        out.exit_code = EXIT_ERROR;
    }
    out
}

fn move_leader(inv: &Invocation, args: &[&str], client: &mut dyn EtcdClient) -> Outcome {
    let [target] = args else {
        return Outcome::error(EXIT_BAD_ARGS, "move-leader command needs 1 argument");
    };
    let Ok(target_id) = u64::from_str_radix(target, 16) else {
        return Outcome::error(
            EXIT_BAD_ARGS,
            &format!("strconv.ParseUint: parsing {target:?}: invalid syntax"),
        );
    };
    // etcdctl asks every endpoint for its status and sends the request to the leader's.
    let mut leader = None;
    for e in &inv.endpoints {
        if let Some(m) = member_at(client, e) {
            if let Ok(s) = client.status(m) {
                if s.leader == s.header.member_id {
                    leader = Some((m, s.header.member_id));
                }
            }
        }
    }
    let Some((member, from)) = leader else {
        return Outcome::error(
            EXIT_ERROR,
            &format!("no leader endpoint given at {:?}", inv.endpoints),
        );
    };
    match client.move_leader(member, target_id) {
        Ok(_) => Outcome::ok(format!(
            "Leadership transferred from {from:x} to {target_id:x}\n"
        )),
        Err(e) => Outcome::error(EXIT_ERROR, &e.0),
    }
}

/// `etcdctl compaction REV [--physical]`.
fn compaction(inv: &Invocation, args: &[&str], client: &mut dyn EtcdClient) -> Outcome {
    let mut revs = Vec::new();
    for a in args {
        match *a {
            // The page's store drops compacted history at once: the wait for it is moot.
            "--physical" | "--physical=true" | "--physical=false" => {}
            flag if flag.starts_with('-') => return unknown_flag(flag),
            rev => revs.push(rev),
        }
    }
    let [rev] = revs.as_slice() else {
        return Outcome::error(EXIT_BAD_ARGS, "compaction command needs 1 argument");
    };
    let Ok(revision) = rev.parse::<i64>() else {
        return Outcome::error(
            EXIT_ERROR,
            &format!("strconv.ParseInt: parsing {rev:?}: invalid syntax"),
        );
    };
    let member = match first_member(inv, client) {
        Ok(m) => m,
        Err(out) => return out,
    };
    match client.compact(member, revision) {
        Ok(()) => Outcome::ok(format!("compacted revision {revision}\n")),
        Err(e) => Outcome::error(EXIT_ERROR, &e.0),
    }
}

/// `etcdctl snapshot save PATH`: the member's keys at the revision it applied, to a file
/// `etcdutl snapshot status` and `restore` read.
fn snapshot_save(inv: &Invocation, args: &[&str], client: &mut dyn EtcdClient) -> Outcome {
    if let Some(flag) = args.iter().find(|a| a.starts_with('-')) {
        return unknown_flag(flag);
    }
    let [path] = args else {
        return Outcome::error(
            EXIT_BAD_ARGS,
            "snapshot save expects one argument <filename>",
        );
    };
    // etcdctl asks exactly one endpoint for a snapshot (cobrautl's ExitInterrupted).
    if inv.endpoints.len() != 1 {
        return Outcome::error(
            5,
            &format!(
                "snapshot must be requested to one selected node, not multiple [{}]",
                inv.endpoints.join(" ")
            ),
        );
    }
    let member = match first_member(inv, client) {
        Ok(m) => m,
        Err(out) => return out,
    };
    match client.snapshot_save(member, path) {
        Ok(_) => Outcome::ok(format!("Snapshot saved at {path}\n")),
        Err(e) => Outcome::error(EXIT_ERROR, &e.0),
    }
}

/// `etcdctl alarm list` and `alarm disarm`: each alarm as etcd prints an `AlarmMember`.
fn alarm(inv: &Invocation, args: &[&str], client: &mut dyn EtcdClient, disarm: bool) -> Outcome {
    let verb = if disarm { "disarm" } else { "list" };
    if let Some(a) = args.first() {
        return if a.starts_with('-') {
            unknown_flag(a)
        } else {
            Outcome::error(
                EXIT_BAD_ARGS,
                &format!("alarm {verb} command accepts no arguments"),
            )
        };
    }
    let member = match first_member(inv, client) {
        Ok(m) => m,
        Err(out) => return out,
    };
    let alarms = if disarm {
        client.alarm_disarm(member)
    } else {
        client.alarms(member)
    };
    match alarms {
        Ok(list) => Outcome::ok(
            list.iter()
                .map(|(id, alarm)| format!("memberID:{id} alarm:{alarm} \n"))
                .collect(),
        ),
        Err(e) => Outcome::error(EXIT_ERROR, &e.0),
    }
}

/// `etcdctl defrag [--cluster]`: each endpoint's member in turn.
fn defrag(inv: &Invocation, args: &[&str], client: &mut dyn EtcdClient) -> Outcome {
    let targets = match targets(inv, args, client) {
        Ok(t) => t,
        Err(out) => return out,
    };
    let mut out = Outcome::default();
    for (ep, member) in targets {
        match member.map(|m| client.defragment(m)) {
            Some(Ok(())) => out
                .stdout
                .push_str(&format!("Finished defragmenting etcd member[{ep}]\n")),
            Some(Err(e)) => out.stderr.push_str(&format!(
                "Failed to defragment etcd member[{ep}] ({})\n",
                e.0
            )),
            None => out.stderr.push_str(&format!(
                "Failed to defragment etcd member[{ep}] ({})\n",
                crate::DEADLINE_EXCEEDED
            )),
        }
    }
    if !out.stderr.is_empty() {
        out.exit_code = EXIT_ERROR;
    }
    out
}
