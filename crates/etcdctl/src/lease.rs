//! `etcdctl lease grant|revoke|timetolive|keep-alive|list` (`ctlv3/command/lease_command.go`
//! and the simple printer). Kubernetes attaches each Event to a lease (`--event-ttl`, 1 h), so
//! `lease list` on a cluster shows them.

use crate::api::EtcdClient;
use crate::args::{first_member, unknown_flag};
use crate::{Invocation, Outcome, WriteOut, EXIT_BAD_ARGS, EXIT_ERROR};

/// cobrautl's `ExitBadConnection` (what etcdctl exits with when `timetolive`, `list` or
/// `keep-alive` fail).
const EXIT_BAD_CONNECTION: i32 = 2;
/// cobrautl's `ExitBadFeature`.
const EXIT_BAD_FEATURE: i32 = 4;

/// A lease ID as etcdctl reads it: hexadecimal.
fn lease_id(arg: &str) -> Result<i64, Outcome> {
    i64::from_str_radix(arg, 16).map_err(|_| {
        Outcome::error(
            EXIT_BAD_ARGS,
            &format!("bad lease ID arg (strconv.ParseInt: parsing {arg:?}: invalid syntax), expecting ID in Hex"),
        )
    })
}

pub fn lease(inv: &Invocation, args: &[&str], client: &mut dyn EtcdClient) -> Outcome {
    if inv.write_out != WriteOut::Simple {
        return Outcome::error(
            EXIT_BAD_FEATURE,
            "this console prints lease answers in the simple format only",
        );
    }
    let member = match first_member(inv, client) {
        Ok(m) => m,
        Err(out) => return out,
    };
    match subcommand(args, member, client) {
        Ok(text) => Outcome::ok(text),
        Err(out) => out,
    }
}

fn subcommand(
    args: &[&str],
    member: usize,
    client: &mut dyn EtcdClient,
) -> Result<String, Outcome> {
    match args {
        ["grant", rest @ ..] => grant(rest, member, client),
        ["revoke", rest @ ..] => {
            let [id] = no_flags(rest)?[..] else {
                return Err(Outcome::error(
                    EXIT_BAD_ARGS,
                    "lease revoke command needs 1 argument",
                ));
            };
            let id = lease_id(id)?;
            client.lease_revoke(member, id).map_err(|e| {
                Outcome::error(EXIT_ERROR, &format!("failed to revoke lease ({})", e.0))
            })?;
            Ok(format!("lease {id:016x} revoked\n"))
        }
        ["timetolive", rest @ ..] => time_to_live(rest, member, client),
        ["keep-alive", rest @ ..] => keep_alive(rest, member, client),
        ["list", rest @ ..] => {
            no_flags(rest)?;
            let ids = client
                .leases(member)
                .map_err(|e| Outcome::error(EXIT_BAD_CONNECTION, &e.0))?;
            Ok(format!("found {} leases\n", ids.len())
                + &ids
                    .iter()
                    .map(|id| format!("{id:016x}\n"))
                    .collect::<String>())
        }
        [] => Err(Outcome::error(
            EXIT_BAD_ARGS,
            "lease needs a subcommand: grant, revoke, timetolive, keep-alive or list",
        )),
        [other, ..] => Err(Outcome::error(
            EXIT_ERROR,
            &format!("unknown command {other:?} for \"etcdctl lease\""),
        )),
    }
}

/// The arguments, refusing any flag.
fn no_flags<'a>(args: &[&'a str]) -> Result<Vec<&'a str>, Outcome> {
    match args.iter().find(|a| a.starts_with('-')) {
        Some(flag) => Err(unknown_flag(flag)),
        None => Ok(args.to_vec()),
    }
}

/// A lease ID argument and whether the command's one switch (`--keys`, `--once`) was given.
fn id_and_switch(args: &[&str], switch: &str, needs_id: &str) -> Result<(i64, bool), Outcome> {
    let on = args
        .iter()
        .any(|&a| a == switch || a == format!("{switch}=true"));
    let rest: Vec<&str> = args
        .iter()
        .copied()
        .filter(|a| !a.starts_with(switch))
        .collect();
    let [id] = no_flags(&rest)?[..] else {
        return Err(Outcome::error(EXIT_BAD_ARGS, needs_id));
    };
    Ok((lease_id(id)?, on))
}

fn grant(args: &[&str], member: usize, client: &mut dyn EtcdClient) -> Result<String, Outcome> {
    let [ttl] = no_flags(args)?[..] else {
        return Err(Outcome::error(
            EXIT_BAD_ARGS,
            "lease grant command needs TTL argument",
        ));
    };
    let ttl: i64 = ttl.parse().map_err(|_| {
        Outcome::error(
            EXIT_BAD_ARGS,
            &format!("bad TTL (strconv.ParseInt: parsing {ttl:?}: invalid syntax)"),
        )
    })?;
    let (id, ttl) = client
        .lease_grant(member, ttl)
        .map_err(|e| Outcome::error(EXIT_ERROR, &format!("failed to grant lease ({})", e.0)))?;
    Ok(format!("lease {id:016x} granted with TTL({ttl}s)\n"))
}

fn time_to_live(
    args: &[&str],
    member: usize,
    client: &mut dyn EtcdClient,
) -> Result<String, Outcome> {
    let (id, keys) = id_and_switch(
        args,
        "--keys",
        "lease timetolive command needs lease ID as argument",
    )?;
    let r = client
        .lease_time_to_live(member, id)
        .map_err(|e| Outcome::error(EXIT_BAD_CONNECTION, &e.0))?;
    if r.granted_ttl == 0 && r.ttl == -1 {
        return Ok(format!("lease {id:016x} already expired\n"));
    }
    let mut text = format!(
        "lease {id:016x} granted with TTL({}s), remaining({}s)",
        r.granted_ttl, r.ttl
    );
    if keys {
        // Go's `%v` of a []string.
        text.push_str(&format!(", attached keys([{}])", r.keys.join(" ")));
    }
    Ok(text + "\n")
}

fn keep_alive(
    args: &[&str],
    member: usize,
    client: &mut dyn EtcdClient,
) -> Result<String, Outcome> {
    let (id, once) = id_and_switch(
        args,
        "--once",
        "lease keep-alive command needs lease ID as argument",
    )?;
    if !once {
        return Err(Outcome::error(
            EXIT_BAD_FEATURE,
            "this console's keep-alive runs with --once (one renewal, then it returns)",
        ));
    }
    let ttl = client
        .lease_keep_alive(member, id)
        .map_err(|e| Outcome::error(EXIT_BAD_CONNECTION, &e.0))?;
    Ok(format!("lease {id:016x} keepalived with TTL({ttl})\n"))
}
