//! `kubectl taint` and `kubectl set image` from the console, as kubectl v1.32 answers them:
//! the taint added, refused without `--overwrite`, modified with it, removed by key and
//! effect; a Deployment's image changed through a strategic merge patch, an unknown
//! container refused, an unchanged image printing nothing.

use watchlab_engine::controllers::{Harness, Profile};
use watchlab_kubectl::Kubectl;

fn run(k: &mut Kubectl, h: &mut Harness, line: &str) -> (String, String) {
    let out = k.exec(line, &mut h.api);
    (out.stdout, out.stderr)
}

#[test]
fn taints_are_added_refused_overwritten_and_removed() {
    let mut h = Harness::new(3, &Profile::training(), &["node-a", "node-b"]);
    h.run_for(5_000);
    let mut k = Kubectl::new();
    let ok = |s: &str| (s.to_string(), String::new());
    assert_eq!(
        run(
            &mut k,
            &mut h,
            "kubectl taint nodes node-b dedicated=db:NoSchedule"
        ),
        ok("node/node-b tainted\n")
    );
    assert_eq!(
        run(
            &mut k,
            &mut h,
            "kubectl get node node-b -o jsonpath={.spec.taints}"
        )
        .0,
        r#"[{"effect":"NoSchedule","key":"dedicated","value":"db"}]"#
    );
    assert_eq!(
        run(&mut k, &mut h, "kubectl taint nodes node-b dedicated=web:NoSchedule"),
        (
            String::new(),
            "error: node node-b already has dedicated taint(s) with same effect(s) and --overwrite is false\n"
                .to_string()
        )
    );
    assert_eq!(
        run(
            &mut k,
            &mut h,
            "kubectl taint node/node-b dedicated=web:NoSchedule --overwrite"
        ),
        ok("node/node-b modified\n")
    );
    assert_eq!(
        run(
            &mut k,
            &mut h,
            "kubectl taint nodes node-b dedicated:NoSchedule-"
        ),
        ok("node/node-b untainted\n")
    );
    assert_eq!(
        run(
            &mut k,
            &mut h,
            "kubectl get node node-b -o jsonpath={.spec.taints}"
        )
        .0,
        ""
    );
    assert_eq!(
        run(&mut k, &mut h, "kubectl taint nodes node-b dedicated-"),
        (
            String::new(),
            "error: taint \"dedicated\" not found\n".to_string()
        )
    );
    assert_eq!(
        run(&mut k, &mut h, "kubectl taint nodes node-b a=b:Sometimes").1,
        "error: invalid taint effect: Sometimes, unsupported taint effect\n"
    );
}

#[test]
fn set_image_patches_the_template_and_names_unknown_containers() {
    let mut h = Harness::new(4, &Profile::training(), &["node-a"]);
    h.run_for(5_000);
    let mut k = Kubectl::new();
    run(
        &mut k,
        &mut h,
        "kubectl create deployment web --image=nginx:1.27",
    );
    assert_eq!(
        run(
            &mut k,
            &mut h,
            "kubectl set image deployment/web nginx=nginx:1.28"
        ),
        (
            "deployment.apps/web image updated\n".to_string(),
            String::new()
        )
    );
    assert_eq!(
        run(
            &mut k,
            &mut h,
            "kubectl get deploy web -o jsonpath={.spec.template.spec.containers[0].image}"
        )
        .0,
        "nginx:1.28"
    );
    assert_eq!(
        run(
            &mut k,
            &mut h,
            "kubectl set image deploy web nginx=nginx:1.28"
        ),
        (String::new(), String::new()),
        "nothing changed, nothing printed"
    );
    assert_eq!(
        run(
            &mut k,
            &mut h,
            "kubectl set image deploy/web web=nginx:1.29"
        )
        .1,
        "error: unable to find container named \"web\"\n"
    );
    assert_eq!(
        run(
            &mut k,
            &mut h,
            "kubectl set image deploy/web '*=nginx:1.30'"
        )
        .0,
        "deployment.apps/web image updated\n"
    );
}
