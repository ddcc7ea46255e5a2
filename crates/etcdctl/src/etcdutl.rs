//! `etcdutl`, etcd's offline tool, for what a backup needs: `snapshot status` of a file
//! `etcdctl snapshot save` wrote, and `snapshot restore` (`etcdutl/etcdutl/snapshot_command.go`).
//! A real restore writes a new data directory, and the administrator points etcd at it and
//! restarts the control plane; here the restore does all of that in one step.

use crate::api::{EtcdClient, SnapshotStatus};
use crate::args::{int_flag, unknown_flag};
use crate::table::{render, si_bytes};
use crate::{Outcome, WriteOut, EXIT_BAD_ARGS, EXIT_ERROR};

/// Runs one etcdutl command line, given as words after `etcdutl`.
pub fn run(words: &[String], client: &mut dyn EtcdClient) -> Outcome {
    let mut write_out = WriteOut::Simple;
    let mut rest: Vec<&str> = Vec::new();
    let mut it = words.iter().map(String::as_str);
    while let Some(w) = it.next() {
        let format = match w {
            "-w" | "--write-out" => it.next(),
            _ => w.strip_prefix("--write-out=").or(w.strip_prefix("-w=")),
        };
        match format {
            Some("simple") => write_out = WriteOut::Simple,
            Some("table") => write_out = WriteOut::Table,
            Some("json") => write_out = WriteOut::Json,
            Some(other) => {
                return Outcome::error(EXIT_BAD_ARGS, &format!("unknown output format {other:?}"))
            }
            None => rest.push(w),
        }
    }
    match rest.as_slice() {
        ["snapshot", "status", args @ ..] => status(args, write_out, client),
        ["snapshot", "restore", args @ ..] => restore(args, client),
        [] | ["help", ..] | ["--help", ..] | ["-h", ..] => Outcome::ok(
            "NAME:\n\tetcdutl - An administrative command line tool for etcd3.\n\n\
             COMMANDS (this console):\n\
             \tsnapshot status\t\tGets backend snapshot status of a given file\n\
             \tsnapshot restore\tRestores an etcd member snapshot to an etcd directory\n"
                .to_string(),
        ),
        [cmd, ..] => Outcome {
            stderr: format!(
                "Error: unknown command {cmd:?} for \"etcdutl\"\nRun 'etcdutl --help' for usage.\n"
            ),
            exit_code: EXIT_ERROR,
            ..Outcome::default()
        },
    }
}

fn no_such_file(path: &str) -> Outcome {
    Outcome::error(
        EXIT_ERROR,
        &format!("stat {path}: no such file or directory"),
    )
}

fn status(args: &[&str], write_out: WriteOut, client: &mut dyn EtcdClient) -> Outcome {
    if let Some(flag) = args.iter().find(|a| a.starts_with('-')) {
        return unknown_flag(flag);
    }
    let [path] = args else {
        return Outcome::error(
            EXIT_BAD_ARGS,
            "snapshot status requires exactly one argument",
        );
    };
    let Some(s) = client.snapshot_status(path) else {
        return no_such_file(path);
    };
    let row = |s: &SnapshotStatus| {
        vec![
            format!("{:x}", s.hash),
            s.revision.to_string(),
            s.total_keys.to_string(),
            si_bytes(s.total_size.max(0) as u64),
        ]
    };
    Outcome::ok(match write_out {
        WriteOut::Table => render(
            &["HASH", "REVISION", "TOTAL KEYS", "TOTAL SIZE"],
            &[row(&s)],
        ),
        WriteOut::Json => format!(
            "{{\"hash\":{},\"revision\":{},\"totalKey\":{},\"totalSize\":{}}}\n",
            s.hash, s.revision, s.total_keys, s.total_size
        ),
        WriteOut::Simple | WriteOut::Fields => format!("{}\n", row(&s).join(", ")),
    })
}

fn restore(args: &[&str], client: &mut dyn EtcdClient) -> Outcome {
    let mut files = Vec::new();
    let mut bump: i64 = 0;
    let mut mark_compacted = false;
    let mut data_dir = None;
    let mut it = args.iter().copied();
    while let Some(a) = it.next() {
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v)),
            _ => (a, None),
        };
        let mut value = || -> Result<&str, Outcome> {
            inline.or_else(|| it.next()).ok_or_else(|| {
                Outcome::error(EXIT_ERROR, &format!("flag needs an argument: {name}"))
            })
        };
        let read = match name {
            "--mark-compacted" => {
                mark_compacted = inline != Some("false");
                Ok(())
            }
            "--skip-hash-check" => Ok(()),
            "--bump-revision" => value().and_then(|v| int_flag(name, v)).map(|n| bump = n),
            "--data-dir" => value().map(|v| data_dir = Some(v.to_string())),
            "--wal-dir"
            | "--name"
            | "--initial-cluster"
            | "--initial-cluster-token"
            | "--initial-advertise-peer-urls"
            | "--initial-memory-map-size" => value().map(|_| ()),
            flag if flag.starts_with('-') => Err(unknown_flag(flag)),
            file => {
                files.push(file);
                Ok(())
            }
        };
        if let Err(out) = read {
            return out;
        }
    }
    let [path] = files.as_slice() else {
        return Outcome::error(
            EXIT_BAD_ARGS,
            "snapshot restore requires exactly one argument",
        );
    };
    if (bump == 0) == mark_compacted || bump < 0 {
        return Outcome::error(
            EXIT_BAD_ARGS,
            "--mark-compacted required if --revision-bump > 0",
        );
    }
    if bump == 0 {
        return Outcome::error(
            EXIT_ERROR,
            "this page restores with --bump-revision N --mark-compacted only (what Kubernetes needs): without them the store's revision would go back, and every client would keep watching from resourceVersions that are about to be written again",
        );
    }
    if client.snapshot_status(path).is_none() {
        return no_such_file(path);
    }
    let dir = data_dir.unwrap_or_else(|| "default.etcd".to_string());
    match client.snapshot_restore(path, bump as u64, mark_compacted) {
        Ok(s) => Outcome::ok(format!(
            "restored snapshot {path} (revision {}, {} keys) into {dir}; etcd restarted on it at revision {}, every revision before it compacted, and the API server restarted\n",
            s.revision,
            s.total_keys,
            s.revision + bump
        )),
        Err(e) => Outcome::error(EXIT_ERROR, &e.0),
    }
}
