//! Defaulting (`SetObjectDefaults_*` of the real API types): the values the server fills in when
//! a client leaves a field out, so `kubectl get -o yaml` shows what a real cluster would.

use super::apps::{DeploymentSpec, DeploymentStrategy, IntOrString, RollingUpdateDeployment};
use super::pod::{Container, PodSpec, Probe};
use super::Object;

/// `terminationGracePeriodSeconds` default (v1.DefaultTerminationGracePeriodSeconds = 30).
pub const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS: i64 = 30;
/// `schedulerName` default (v1.DefaultSchedulerName).
pub const DEFAULT_SCHEDULER_NAME: &str = "default-scheduler";
/// apps/v1 Deployment `revisionHistoryLimit` default.
pub const DEFAULT_REVISION_HISTORY_LIMIT: i32 = 10;
/// apps/v1 Deployment `progressDeadlineSeconds` default.
pub const DEFAULT_PROGRESS_DEADLINE_SECONDS: i32 = 600;
/// apps/v1 rolling update `maxSurge` / `maxUnavailable` default.
pub const DEFAULT_MAX_SURGE: &str = "25%";
pub const DEFAULT_MAX_UNAVAILABLE: &str = "25%";

/// Fills every defaulted field of `obj` (its kind's [`super::resource::Rules::default`]).
pub fn apply(obj: &mut Object) {
    obj.kind().resource().rules.default(obj);
}

/// [`apply`] to the new version of an updated object, `old` being the stored one.
pub fn apply_update(new: &mut Object, old: &Object) {
    new.kind().resource().rules.default_update(new, old);
}

/// apps/v1 Deployment spec defaults.
pub fn deployment_spec(s: &mut DeploymentSpec) {
    s.replicas.get_or_insert(1);
    s.revision_history_limit
        .get_or_insert(DEFAULT_REVISION_HISTORY_LIMIT);
    s.progress_deadline_seconds
        .get_or_insert(DEFAULT_PROGRESS_DEADLINE_SECONDS);
    let strategy = s.strategy.get_or_insert_with(DeploymentStrategy::default);
    if strategy.type_.is_empty() {
        strategy.type_ = "RollingUpdate".into();
    }
    if strategy.type_ == "RollingUpdate" {
        let ru = strategy
            .rolling_update
            .get_or_insert_with(RollingUpdateDeployment::default);
        ru.max_surge
            .get_or_insert_with(|| IntOrString::String(DEFAULT_MAX_SURGE.into()));
        ru.max_unavailable
            .get_or_insert_with(|| IntOrString::String(DEFAULT_MAX_UNAVAILABLE.into()));
    }
    pod_spec(&mut s.template.spec);
}

/// Pod spec defaults, also applied to workload templates.
pub fn pod_spec(spec: &mut PodSpec) {
    spec.restart_policy.get_or_insert_with(|| "Always".into());
    spec.termination_grace_period_seconds
        .get_or_insert(DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS);
    spec.scheduler_name
        .get_or_insert_with(|| DEFAULT_SCHEDULER_NAME.into());
    // Defaulted on a copy, kept only if something changed: the containers of a ReplicaSet's pods
    // are its template's, already defaulted, and stay shared.
    let mut containers = spec.containers.to_vec();
    containers.iter_mut().for_each(container_defaults);
    if containers != *spec.containers {
        spec.containers = containers.into();
    }
    // Ephemeral containers get a container's defaults too (`SetObjectDefaults_Pod`).
    if !spec.ephemeral_containers.is_empty() {
        let mut ephemeral = spec.ephemeral_containers.to_vec();
        ephemeral
            .iter_mut()
            .for_each(|e| container_defaults(&mut e.container));
        if ephemeral != *spec.ephemeral_containers {
            spec.ephemeral_containers = ephemeral.into();
        }
    }
}

/// A container's defaults (`SetDefaults_Container`, its ports and probes).
fn container_defaults(c: &mut Container) {
    if c.image_pull_policy.is_none() {
        // `:latest` or no tag pulls Always, anything else IfNotPresent.
        let tag = c
            .image
            .rsplit('/')
            .next()
            .and_then(|last| last.split_once(':'))
            .map(|(_, t)| t);
        let policy = if matches!(tag, None | Some("latest")) {
            "Always"
        } else {
            "IfNotPresent"
        };
        c.image_pull_policy = Some(policy.into());
    }
    for port in &mut c.ports {
        port.protocol.get_or_insert_with(|| "TCP".into());
    }
    super::container_env::default_env(&mut c.env);
    for probe in [
        &mut c.liveness_probe,
        &mut c.readiness_probe,
        &mut c.startup_probe,
    ]
    .into_iter()
    .flatten()
    {
        probe_defaults(probe);
    }
    // Limits without requests: requests default to the limits.
    let limits = c.resources.limits.clone();
    for (name, q) in limits {
        c.resources.requests.entry(name).or_insert(q);
    }
}

/// `SetDefaults_Probe` and `SetDefaults_HTTPGetAction` (k8s.io/kubernetes
/// pkg/apis/core/v1/defaults.go): timeoutSeconds 1, periodSeconds 10, successThreshold 1,
/// failureThreshold 3; an HTTP GET's path `/` and scheme `HTTP`.
fn probe_defaults(p: &mut Probe) {
    // Go's zero value is "unset": an explicit 0 is defaulted too.
    for (field, default) in [
        (&mut p.timeout_seconds, 1),
        (&mut p.period_seconds, 10),
        (&mut p.success_threshold, 1),
        (&mut p.failure_threshold, 3),
    ] {
        if field.unwrap_or(0) == 0 {
            *field = Some(default);
        }
    }
    if let Some(h) = &mut p.http_get {
        if h.path.is_empty() {
            h.path = "/".into();
        }
        if h.scheme.is_empty() {
            h.scheme = "HTTP".into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pod::{Container, Pod};

    #[test]
    fn pod_and_deployment_defaults_match_kubernetes() {
        let mut p = Object::Pod(Pod {
            spec: PodSpec {
                containers: vec![
                    Container {
                        name: "a".into(),
                        image: "nginx".into(),
                        ..Default::default()
                    },
                    Container {
                        name: "b".into(),
                        image: "nginx:1.25".into(),
                        ..Default::default()
                    },
                ]
                .into(),
                ..Default::default()
            }
            .into(),
            ..Default::default()
        });
        apply(&mut p);
        let Object::Pod(p) = p else { unreachable!() };
        assert_eq!(p.spec.restart_policy.as_deref(), Some("Always"));
        assert_eq!(p.spec.termination_grace_period_seconds, Some(30));
        assert_eq!(p.spec.scheduler_name.as_deref(), Some("default-scheduler"));
        assert_eq!(
            p.spec.containers[0].image_pull_policy.as_deref(),
            Some("Always")
        );
        assert_eq!(
            p.spec.containers[1].image_pull_policy.as_deref(),
            Some("IfNotPresent")
        );

        let mut d = Object::Deployment(Box::default());
        apply(&mut d);
        let Object::Deployment(d) = d else {
            unreachable!()
        };
        assert_eq!(d.spec.replicas, Some(1));
        assert_eq!(d.spec.revision_history_limit, Some(10));
        assert_eq!(d.spec.progress_deadline_seconds, Some(600));
        let s = d.spec.strategy.unwrap_or_default();
        assert_eq!(s.type_, "RollingUpdate");
        let ru = s.rolling_update.unwrap_or_default();
        assert_eq!(ru.max_surge, Some(IntOrString::String("25%".into())));
    }
}
