//! `--validate` against the engine's API server: kubectl sends `fieldValidation=Strict` by
//! default (a typo is refused with the server's strict decoding error), `--validate=warn` prints
//! the server's `Warning: unknown field …` and creates, `--validate=false` drops silently.

use watchlab_engine::apiserver::ApiServer;
use watchlab_kubectl::Kubectl;

const TYPO: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: typo\nspec:\n  containers:\n  - name: app\n    image: nginx\n    imagePullPolicyy: Always\n";

#[test]
fn validate_strict_warn_and_ignore() {
    let mut api = ApiServer::new(1);
    let mut k = Kubectl::new();
    k.set_file("pod.yaml", TYPO);
    let out = k.exec("kubectl create -f pod.yaml", &mut api);
    assert_eq!(out.exit_code, 1);
    assert_eq!(
        out.stderr,
        "Error from server (BadRequest): error when creating \"pod.yaml\": Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown field \"spec.containers[0].imagePullPolicyy\"\n"
    );
    let out = k.exec("kubectl apply -f pod.yaml --validate=warn", &mut api);
    assert_eq!(
        (out.stdout.as_str(), out.stderr.as_str()),
        (
            "pod/typo created\n",
            "Warning: unknown field \"spec.containers[0].imagePullPolicyy\"\n"
        )
    );
    k.exec("kubectl delete pod typo --grace-period=0 --force", &mut api);
    let out = k.exec("kubectl create -f pod.yaml --validate=false", &mut api);
    assert_eq!(
        (out.stdout.as_str(), out.stderr.as_str()),
        ("pod/typo created\n", "")
    );
    let out = k.exec("kubectl apply -f pod.yaml --validate=loud", &mut api);
    assert_eq!(
        out.stderr,
        "error: invalid - validate option \"loud\"; must be one of: strict (or true), warn, ignore (or false)\n"
    );
}
