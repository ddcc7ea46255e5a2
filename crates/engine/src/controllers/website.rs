//! An example operator (user agent `website-operator`), built as a custom controller is built
//! outside Kubernetes — the shape of kubernetes/sample-controller — on nothing but the engine's
//! informers and work queue: a `Website` custom resource (`examples.watchlab.dev/v1`, the
//! definition in [`CRD_YAML`]) is reconciled into a Deployment of the same name that it owns
//! (ownerReference `controller: true`, `blockOwnerDeletion: true`), kept at the Website's
//! `spec.image` and `spec.replicas`; the Deployment's `availableReplicas` is written back
//! through the Website's status subresource.
//!
//! It does nothing until the API server serves the resource: while no established definition
//! names `Website` it opens no watch and sends no request; once one does it starts its two
//! informers (Websites, Deployments) and, when the definition is deleted, stops them. A write
//! that comes back `409 Conflict` (its cached copy was stale) is retried the client-go way: the
//! key goes back on the queue with the rate limiter's back-off and the next sync reads the cache
//! again. A Deployment of that name that another owner controls is left alone, with an
//! `ErrResourceExists` event. Deleting a Website leaves the rest to the garbage collector.

use std::sync::Arc;

use serde_json::{json, Value};

use super::adapter::ApiInformer;
use super::events::{EventRecorder, EventType};
use super::profile::Profile;
use super::runtime::{Action, Reconciled, Reconciler};
use super::shared_informer::InformerRef;
use super::{earliest, Requeue};
use crate::api::custom::CustomObject;
use crate::api::meta::OwnerReference;
use crate::api::{Kind, Object};
use crate::apiserver::ApiServer;
use crate::client::{InformerConfig, Notification, ObjectKey, WorkQueue};
use crate::clock::Timestamp;
use crate::rng::SimRng;
use watchlab_apimachinery::status::{Status, StatusReason};

pub const USER_AGENT: &str = "website-operator";
/// The custom resource's group, version and kind.
pub const GROUP: &str = "examples.watchlab.dev";
pub const API_VERSION: &str = "examples.watchlab.dev/v1";
pub const KIND: &str = "Website";
/// The label the operator puts on its Deployment, its selector and its pods.
pub const WEBSITE_LABEL: &str = "website";
/// `spec.replicas` when the Website leaves it out.
pub const DEFAULT_REPLICAS: i32 = 1;

/// sample-controller's event reasons and messages, with `Foo` read as `Website`.
pub const SUCCESS_SYNCED: &str = "Synced";
pub const MESSAGE_RESOURCE_SYNCED: &str = "Website synced successfully";
pub const ERR_RESOURCE_EXISTS: &str = "ErrResourceExists";

/// The CustomResourceDefinition the operator serves (`kubectl apply -f website-crd.yaml`).
pub const CRD_YAML: &str = "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: websites.examples.watchlab.dev
spec:
  group: examples.watchlab.dev
  scope: Namespaced
  names:
    plural: websites
    singular: website
    kind: Website
    shortNames:
    - ws
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
    additionalPrinterColumns:
    - name: Image
      type: string
      jsonPath: .spec.image
    - name: Desired
      type: integer
      jsonPath: .spec.replicas
    - name: Available
      type: integer
      jsonPath: .status.availableReplicas
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required:
            - image
            properties:
              image:
                type: string
                minLength: 1
              replicas:
                type: integer
                minimum: 0
                maximum: 100
          status:
            type: object
            properties:
              availableReplicas:
                type: integer
";

/// A Website to apply (`kubectl apply -f website.yaml`).
pub const WEBSITE_YAML: &str = "\
apiVersion: examples.watchlab.dev/v1
kind: Website
metadata:
  name: blog
spec:
  image: nginx:1.27
  replicas: 2
";

/// `Resource %q already exists and is not managed by Foo`.
fn message_resource_exists(name: &str) -> String {
    format!("Resource {name:?} already exists and is not managed by Website")
}

/// The two informers, once the resource is served.
struct Watching {
    websites: ApiInformer,
    deployments: ApiInformer,
}

/// The Website operator.
pub struct WebsiteOperator {
    seed: u64,
    config: InformerConfig,
    watching: Option<Watching>,
    recorder: EventRecorder,
    /// Writes refused with 409 Conflict and requeued (for the UI and tests).
    conflicts: u64,
}

/// The Website's desired image and replicas (`None` without an image).
fn desired(site: &CustomObject) -> Option<(&str, i32)> {
    let spec = site.field("spec")?;
    let image = spec.get("image")?.as_str()?;
    let replicas = spec
        .get("replicas")
        .and_then(Value::as_i64)
        .and_then(|r| i32::try_from(r).ok())
        .unwrap_or(DEFAULT_REPLICAS);
    Some((image, replicas))
}

/// Whether `owner` is a Website's controller reference.
fn is_website(owner: &OwnerReference) -> bool {
    owner.kind == KIND && owner.api_version == API_VERSION
}

/// `metav1.NewControllerRef` for a Website.
fn controller_ref(site: &CustomObject) -> OwnerReference {
    OwnerReference {
        api_version: API_VERSION.into(),
        kind: KIND.into(),
        name: site.metadata.name.clone(),
        uid: site.metadata.uid.clone(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}

/// The Deployment a Website asks for (`newDeployment`): its name, one container `web` running
/// the image, pods labelled `website=<name>`.
fn new_deployment(site: &CustomObject, image: &str, replicas: i32) -> Result<Object, Status> {
    let name = &site.metadata.name;
    let labels = json!({ WEBSITE_LABEL: name });
    let manifest = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {
            "name": name,
            "namespace": site.metadata.namespace,
            "labels": labels,
            "ownerReferences": [controller_ref(site)],
        },
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "web", "image": image}]},
            },
        },
    });
    Object::from_value(Kind::Deployment, manifest)
}

impl WebsiteOperator {
    pub fn new(seed: u64, profile: &Profile) -> Self {
        WebsiteOperator {
            seed,
            config: profile.informer_config(),
            watching: None,
            recorder: EventRecorder::new(USER_AGENT, USER_AGENT, ""),
            conflicts: 0,
        }
    }

    /// Writes refused with 409 Conflict so far (each one requeued with back-off).
    pub fn conflicts(&self) -> u64 {
        self.conflicts
    }

    /// Whether it watches (the resource is served).
    pub fn is_watching(&self) -> bool {
        self.watching.is_some()
    }

    /// Follows the definition: informers once `Website` is served, none once it is not (and
    /// then no work left queued).
    fn follow_definition(&mut self, api: &mut ApiServer, queue: &mut WorkQueue<ObjectKey>) {
        let served = api.registry().by_kind(API_VERSION, KIND).map(|r| r.kind());
        let current = self.watching.as_ref().map(|w| w.websites.kind());
        if served == current {
            return;
        }
        if let Some(mut w) = self.watching.take() {
            w.websites.stop(api, USER_AGENT);
            w.deployments.stop(api, USER_AGENT);
            *queue = WorkQueue::default();
        }
        if let Some(kind) = served {
            let informer = |kind: Kind, name: &str| {
                ApiInformer::new(
                    kind,
                    None,
                    self.config.clone(),
                    Vec::new(),
                    SimRng::child(self.seed, name),
                )
            };
            self.watching = Some(Watching {
                websites: informer(kind, "website-operator/websites"),
                deployments: informer(Kind::Deployment, "website-operator/deployments"),
            });
        }
    }

    /// `handleObject`: a Deployment a Website controls queues that Website.
    fn on_deployment(note: &Notification<Arc<Object>>, queue: &mut WorkQueue<ObjectKey>) {
        let obj = match note {
            Notification::Add(o) | Notification::Update { new: o, .. } => o,
            Notification::Delete(d) => d.object(),
        };
        let meta = obj.meta();
        if let Some(owner) = meta.controller_ref().filter(|r| is_website(r)) {
            queue.add(ObjectKey::new(Some(&meta.namespace), &owner.name));
        }
    }

    /// `syncHandler`: brings the Website's Deployment and status in line; `Err` requeues the
    /// key with back-off.
    fn sync(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ObjectKey,
    ) -> Result<(), Requeue> {
        let Some(w) = &self.watching else {
            return Ok(());
        };
        // Gone: the garbage collector deletes what it owned.
        let Some(obj) = w.websites.store().get(key) else {
            return Ok(());
        };
        let Object::Custom(site) = &*obj else {
            return Ok(());
        };
        if site.metadata.deletion_timestamp.is_some() {
            return Ok(());
        }
        let Some((image, replicas)) = desired(site) else {
            return Ok(());
        };
        let deployment = w.deployments.store().get(key);
        let mut wrote = false;
        let deployment = match deployment {
            None => {
                let created =
                    new_deployment(site, image, replicas).and_then(|d| api.create(USER_AGENT, d));
                self.written(created)?;
                wrote = true;
                None
            }
            Some(d) => Some(d),
        };
        if let Some(d) = &deployment {
            let Some(dep) = d.as_deployment() else {
                return Ok(());
            };
            let ours = dep
                .metadata
                .controller_ref()
                .is_some_and(|r| r.uid == site.metadata.uid);
            if !ours {
                let msg = message_resource_exists(&dep.metadata.name);
                self.recorder.record(
                    api,
                    now,
                    &obj,
                    EventType::Warning,
                    ERR_RESOURCE_EXISTS,
                    &msg,
                );
                return Ok(());
            }
            let container = dep.spec.template.spec.containers.first();
            if dep.spec.replicas != Some(replicas) || container.is_none_or(|c| c.image != image) {
                // A copy of the cached object, changed where the Website says.
                let mut updated = dep.clone();
                updated.spec.replicas = Some(replicas);
                if let Some(c) = updated.spec.template.spec.containers.first_mut() {
                    c.image = image.to_string();
                }
                let result = api.update(USER_AGENT, Object::Deployment(Box::new(updated)));
                self.written(result)?;
                wrote = true;
            }
        }
        if wrote {
            self.recorder.record(
                api,
                now,
                &obj,
                EventType::Normal,
                SUCCESS_SYNCED,
                MESSAGE_RESOURCE_SYNCED,
            );
        }
        let available = deployment
            .as_ref()
            .and_then(|d| d.as_deployment())
            .map_or(0, |d| d.status.available_replicas);
        let status = json!({"availableReplicas": available});
        if site.field("status") != Some(&status) {
            let mut updated = (**site).clone();
            updated.rest.insert("status".into(), status);
            let result = api.update_status(USER_AGENT, Object::Custom(Box::new(updated)));
            self.written(result)?;
        }
        Ok(())
    }

    /// A write's answer: `Err` (requeue) on any refusal, counting conflicts.
    fn written(&mut self, result: Result<Arc<Object>, Status>) -> Result<(), Requeue> {
        match result {
            Ok(_) => Ok(()),
            Err(s) => {
                if s.reason() == StatusReason::Conflict {
                    self.conflicts += 1;
                }
                Err(Requeue)
            }
        }
    }
}

impl Reconciler for WebsiteOperator {
    type Key = ObjectKey;

    fn name(&self) -> &str {
        USER_AGENT
    }

    fn informers(&self) -> Vec<InformerRef<'_>> {
        self.watching
            .as_ref()
            .map(|w| vec![(&w.websites).into(), (&w.deployments).into()])
            .unwrap_or_default()
    }

    fn watch(&mut self, now: Timestamp, api: &mut ApiServer, queue: &mut WorkQueue<ObjectKey>) {
        self.follow_definition(api, queue);
        let Some(w) = &mut self.watching else {
            return;
        };
        self.recorder.flush(api, now);
        let sites = w.websites.step(now, api, USER_AGENT);
        let deployments = w.deployments.step(now, api, USER_AGENT);
        for note in sites {
            queue.add(note.key());
        }
        for note in &deployments {
            Self::on_deployment(note, queue);
        }
    }

    fn has_synced(&self) -> bool {
        self.watching
            .as_ref()
            .is_some_and(|w| w.websites.has_synced() && w.deployments.has_synced())
    }

    fn reconcile(&mut self, now: Timestamp, api: &mut ApiServer, key: &ObjectKey) -> Reconciled {
        self.sync(now, api, key).map(|()| Action::Done)
    }

    /// Nothing while the resource is not served.
    fn next_wakeup(&self) -> Option<Timestamp> {
        let w = self.watching.as_ref()?;
        earliest([
            w.websites.next_wakeup(),
            w.deployments.next_wakeup(),
            self.recorder.next_retry(),
        ])
    }
}
