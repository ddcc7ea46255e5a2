//! The console's kubectl against the real kubectl v1.32 for the workloads of issue #36, over
//! HTTP on the same cluster: `create job` / `create cronjob` (dry runs, a Job from a CronJob,
//! every refusal), `describe job|cronjob|daemonset`, and a DaemonSet's `rollout
//! status|history|undo|restart` must print the same bytes, on stdout and on stderr. Lines
//! that change the cluster are run once by each kubectl on objects of their own (or one after
//! the other, when the second must find what the first did).

mod common;

use common::TestServer;

/// A console line for `args`, quoted the way a learner would type it.
fn console_line(args: &[&str]) -> String {
    let words: Vec<String> = args
        .iter()
        .map(|a| {
            if a.contains([' ', '*', '{', '\'']) {
                format!("\"{a}\"")
            } else {
                a.to_string()
            }
        })
        .collect();
    format!("kubectl {}", words.join(" "))
}

/// Runs `args` with the real kubectl, then the same line in the console; both outputs.
fn both(s: &TestServer, args: &[&str]) -> ((String, String), (String, String)) {
    let real = s.kubectl(args);
    let console = s.console_run(&console_line(args));
    ((real.stdout, real.stderr), console)
}

/// The same line prints the same stdout and stderr in both.
fn same(s: &TestServer, args: &[&str]) {
    let (real, console) = both(s, args);
    assert_eq!(console, real, "{}", console_line(args));
}

/// Every uid (`8-4-4-4-12` hex digits) as `<uid>` and every RFC 3339 time as `<time>`, for
/// objects each kubectl created.
fn mask_volatile(text: &str) -> String {
    let uid = |c: &str| {
        let groups: Vec<&str> = c.split('-').collect();
        groups.len() == 5
            && groups
                .iter()
                .zip([8, 4, 4, 4, 12])
                .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
    };
    let time = |c: &str| {
        c.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            10 => b == b'T',
            13 | 16 => b == b':',
            19 => b == b'Z',
            _ => b.is_ascii_digit(),
        })
    };
    let mut out = String::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if rest.get(..36).is_some_and(uid) {
            out.push_str("<uid>");
            rest = &rest[36..];
        } else if rest.get(..20).is_some_and(time) {
            out.push_str("<time>");
            rest = &rest[20..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

#[test]
fn create_job_and_cronjob_print_and_refuse_as_kubectl() {
    if !common::kubectl_available("create_job_and_cronjob_print_and_refuse_as_kubectl") {
        return;
    }
    let s = TestServer::at_speed(10.0);
    s.ok(&["create", "configmap", "settings", "--from-literal=a=1"]);
    s.create_deployment("web", "nginx:1.27", 1, &[]);
    s.ok(&[
        "create",
        "cronjob",
        "yearly",
        "--image=busybox",
        "--schedule=0 0 1 1 *",
    ]);
    for args in [
        &[
            "create",
            "job",
            "pi",
            "--image=perl:5.34",
            "--dry-run=client",
            "-o",
            "yaml",
            "--",
            "perl",
            "-e",
            "print 1",
        ][..],
        &[
            "create",
            "job",
            "pi",
            "--image=perl:5.34",
            "-n",
            "kube-system",
            "--dry-run=client",
            "-o",
            "yaml",
        ],
        &[
            "create",
            "cronjob",
            "hello",
            "--image=busybox",
            "--schedule=*/1 * * * *",
            "--dry-run=client",
            "-o",
            "yaml",
            "--",
            "date",
        ],
        &[
            "create",
            "cj",
            "hello",
            "--image=busybox",
            "--schedule=@hourly",
            "--restart=Never",
            "--dry-run=client",
            "-o",
            "yaml",
        ],
        &[
            "create",
            "job",
            "manual",
            "--from=cronjob/yearly",
            "--dry-run=client",
            "-o",
            "yaml",
        ],
        &["create", "job"],
        &["create", "job", "x"],
        &["create", "job", "x", "y", "--image=busybox"],
        &["create", "job", "x", "--image=a", "--from=cronjob/yearly"],
        &["create", "job", "x", "--from=cronjob/yearly", "--", "date"],
        &["create", "job", "x", "--from=cronjob/missing"],
        &["create", "job", "x", "--from=cronjob"],
        &["create", "job", "x", "--from=foo/bar"],
        &["create", "job", "x", "--from=deployment/web"],
        &["create", "job", "x", "--from=cm/settings"],
        &[
            "create",
            "cronjob",
            "x",
            "--image=busybox",
            "--schedule=bad",
        ],
        &[
            "create",
            "cronjob",
            "x",
            "--image=busybox",
            "--schedule=* * * * *",
            "--restart=Always",
        ],
        &[
            "create",
            "job",
            "yearly",
            "--from=cronjob/yearly",
            "--dry-run=server",
            "-o",
            "name",
        ],
    ] {
        same(&s, args);
    }
    // Objects each kubectl creates for itself: the same lines, the names aside.
    for (real, console) in [
        (
            &["create", "job", "pi-real", "--image=busybox", "--", "date"][..],
            &[
                "create",
                "job",
                "pi-console",
                "--image=busybox",
                "--",
                "date",
            ][..],
        ),
        (
            &[
                "create",
                "cronjob",
                "tick-real",
                "--image=busybox",
                "--schedule=0 0 1 1 *",
            ],
            &[
                "create",
                "cronjob",
                "tick-console",
                "--image=busybox",
                "--schedule=0 0 1 1 *",
            ],
        ),
        (
            &[
                "create",
                "job",
                "manual-real",
                "--from=cronjob/yearly",
                "-o",
                "yaml",
                "--dry-run=server",
            ],
            &[
                "create",
                "job",
                "manual-real",
                "--from=cronjob/yearly",
                "-o",
                "yaml",
                "--dry-run=server",
            ],
        ),
    ] {
        let r = s.kubectl(real);
        let (out, err) = s.console_run(&console_line(console));
        let rename = |t: &str| mask_volatile(&t.replace("-console", "-real"));
        assert_eq!(
            (rename(&out), err),
            (mask_volatile(&r.stdout), r.stderr),
            "{}",
            console_line(console)
        );
    }
    // Both find what the real kubectl made.
    same(&s, &["create", "job", "pi-real", "--image=busybox"]);
    same(
        &s,
        &[
            "create",
            "cronjob",
            "tick-real",
            "--image=busybox",
            "--schedule=* * * * *",
        ],
    );
}

#[test]
fn describe_job_cronjob_and_daemonset_as_kubectl() {
    if !common::kubectl_available("describe_job_cronjob_and_daemonset_as_kubectl") {
        return;
    }
    let s = TestServer::at_speed(10.0);
    let job = s.write(
        "job.yaml",
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: done\nspec:\n  completionMode: Indexed\n  completions: 2\n  ttlSecondsAfterFinished: 3600\n  template:\n    metadata:\n      annotations:\n        watchlab.dev/behaviour: complete-after=5s\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: pi\n        image: perl:5.34\n        command: [perl, -Mbignum=bpi, -wle, print bpi(20)]\n",
    );
    s.ok(&["apply", "-f", job.to_str().unwrap_or_default()]);
    s.ok(&[
        "create",
        "cronjob",
        "yearly",
        "--image=busybox",
        "--schedule=0 0 1 1 *",
    ]);
    s.ok(&["create", "job", "manual", "--from=cronjob/yearly"]);
    s.ok(&[
        "wait",
        "--for=condition=complete",
        "job/done",
        "--timeout=60s",
    ]);
    s.ok(&[
        "wait",
        "--for=condition=complete",
        "job/manual",
        "--timeout=60s",
    ]);
    let ds = s.write("ds.yaml", AGENT);
    s.ok(&["apply", "-f", ds.to_str().unwrap_or_default()]);
    s.ok(&["rollout", "status", "ds/agent", "--timeout=60s"]);
    for args in [
        &["describe", "job", "done", "--show-events=false"][..],
        &["describe", "job", "manual", "--show-events=false"],
        &["describe", "cronjob", "yearly", "--show-events=false"],
        &["describe", "daemonset", "agent", "--show-events=false"],
    ] {
        same(&s, args);
    }
}

const AGENT: &str = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\nspec:\n  selector:\n    matchLabels:\n      app: agent\n  template:\n    metadata:\n      labels:\n        app: agent\n    spec:\n      containers:\n      - name: agent\n        image: agent:1\n";

#[test]
fn daemon_set_rollout_as_kubectl() {
    if !common::kubectl_available("daemon_set_rollout_as_kubectl") {
        return;
    }
    let s = TestServer::at_speed(10.0);
    s.ok(&["create", "configmap", "settings", "--from-literal=a=1"]);
    s.ok(&["create", "job", "pi", "--image=busybox"]);
    let ds = s.write("ds.yaml", AGENT);
    s.ok(&["apply", "-f", ds.to_str().unwrap_or_default()]);
    s.ok(&["rollout", "status", "ds/agent", "--timeout=60s"]);
    let image =
        r#"{"spec":{"template":{"spec":{"containers":[{"name":"agent","image":"agent:2"}]}}}}"#;
    s.ok(&["patch", "ds", "agent", "-p", image]);
    s.ok(&["rollout", "status", "ds/agent", "--timeout=60s"]);
    for args in [
        &["rollout", "status", "ds/agent"][..],
        &["rollout", "history", "daemonset/agent"],
        &["rollout", "history", "ds/agent", "--revision=1"],
        &["rollout", "history", "ds/agent", "--revision=7"],
        &["rollout", "undo", "ds/agent", "--dry-run=client"],
        &["rollout", "undo", "ds/agent", "--dry-run=server"],
        &["rollout", "undo", "ds/agent", "--to-revision=2"],
        &["rollout", "undo", "ds/agent", "--to-revision=9"],
        &["rollout", "status", "job/pi"],
        &["rollout", "history", "job/pi"],
        &["rollout", "undo", "job/pi"],
        &["rollout", "status", "cm/settings"],
        &["rollout", "history", "cm/settings"],
        &["rollout", "undo", "cm/settings"],
        &["rollout", "restart", "cm/settings"],
    ] {
        same(&s, args);
    }
    // One undo each, the second after the first has rolled out.
    assert_eq!(
        s.ok(&["rollout", "undo", "ds/agent"]),
        "daemonset.apps/agent rolled back\n"
    );
    s.ok(&["rollout", "status", "ds/agent", "--timeout=60s"]);
    assert_eq!(
        s.console_run("kubectl rollout undo ds/agent"),
        (
            "daemonset.apps/agent rolled back\n".to_string(),
            String::new()
        )
    );
    s.ok(&["rollout", "status", "ds/agent", "--timeout=60s"]);
    same(&s, &["rollout", "history", "ds/agent"]);
    let (real, console) = both(&s, &["rollout", "restart", "ds/agent", "cm/settings"]);
    assert_eq!(console, real);
    assert_eq!(real.0, "daemonset.apps/agent restarted\n", "{}", real.1);
}
