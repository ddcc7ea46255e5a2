//! The registry: the resources one API server serves — the built-in kinds of [`super::kinds`]
//! and, later, those its CustomResourceDefinitions establish. Routing (a URL's group, version
//! and plural), discovery, kubectl's names and manifests' `apiVersion`/`kind` all resolve here,
//! so nothing else keeps a list of kinds.

use super::kinds;
use super::resource::ResourceInfo;
use super::Kind;

/// The served resources, in discovery order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registry {
    kinds: Vec<Kind>,
}

impl Default for Registry {
    /// The built-in kinds.
    fn default() -> Self {
        Registry {
            kinds: kinds::BUILT_IN.to_vec(),
        }
    }
}

impl Registry {
    /// Every served kind, in discovery order.
    pub fn kinds(&self) -> &[Kind] {
        &self.kinds
    }

    /// Serves `kind` too (an established custom resource), replacing a description of the same
    /// resource.
    pub fn register(&mut self, kind: Kind) {
        match self.kinds.iter_mut().find(|k| **k == kind) {
            Some(k) => *k = kind,
            None => self.kinds.push(kind),
        }
    }

    /// Stops serving `kind` (its definition was deleted). Built-in kinds stay.
    pub fn unregister(&mut self, kind: Kind) {
        self.kinds.retain(|k| !k.is_custom() || *k != kind);
    }

    /// Every served resource's description, in discovery order: each kind, followed by the
    /// other versions served over its storage ([`kinds::OTHER_VERSIONS`]).
    pub fn resources(&self) -> impl Iterator<Item = &'static ResourceInfo> + '_ {
        self.kinds.iter().flat_map(|&k| {
            let others = kinds::OTHER_VERSIONS
                .iter()
                .filter(move |(_, stored)| *stored == k)
                .map(|(served, _)| *served);
            std::iter::once(k.resource()).chain(others)
        })
    }

    /// The resource a URL names (`group`, `version`, plural), as the server routes it.
    pub fn lookup(
        &self,
        group: &str,
        version: &str,
        plural: &str,
    ) -> Option<&'static ResourceInfo> {
        self.resources()
            .find(|r| r.group == group && r.version == version && r.plural == plural)
    }

    /// What a kubectl resource argument names ([`ResourceInfo::is_named`]).
    pub fn resolve(&self, name: &str) -> Option<&'static ResourceInfo> {
        self.resources().find(|r| r.is_named(name))
    }

    /// The resource of a manifest's `apiVersion` and `kind`.
    pub fn by_kind(&self, api_version: &str, kind_name: &str) -> Option<&'static ResourceInfo> {
        self.resources()
            .find(|r| r.kind_name == kind_name && r.api_version == api_version)
    }

    /// The served kind an etcd key names, with the key's namespace and name:
    /// `/registry/pods/default/web` is a Pod `web` in `default`, `/registry/minions/node-a` the
    /// Node `node-a` ([`ResourceInfo::key`] the other way).
    pub fn by_key<'k>(&self, key: &'k str) -> Option<(Kind, &'k str, &'k str)> {
        let rest = key.strip_prefix(super::resource::REGISTRY)?;
        self.kinds.iter().find_map(|&kind| {
            let r = kind.resource();
            let object = rest.strip_prefix(r.registry)?.strip_prefix('/')?;
            let (namespace, name) = if r.namespaced {
                object.split_once('/')?
            } else {
                ("", object)
            };
            (!name.is_empty() && !namespace.contains('/') && !name.contains('/'))
                .then_some((kind, namespace, name))
        })
    }

    /// The named groups and their one version each, in discovery order.
    pub fn groups(&self) -> Vec<(&'static str, &'static str)> {
        let mut seen = Vec::new();
        for r in self.resources().filter(|r| !r.group.is_empty()) {
            if !seen.contains(&(r.group, r.version)) {
                seen.push((r.group, r.version));
            }
        }
        seen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_kinds_resolve_by_url_name_and_manifest() {
        let reg = Registry::default();
        for (rank, k) in reg.kinds().iter().enumerate() {
            let r = k.resource();
            assert_eq!(usize::from(r.rank), rank, "{k:?}");
            assert_eq!(
                reg.lookup(r.group, r.version, r.plural).map(|r| r.kind()),
                Some(*k)
            );
            assert_eq!(reg.resolve(r.plural).map(|r| r.kind()), Some(*k));
            assert_eq!(
                reg.by_kind(r.api_version, r.kind_name).map(|r| r.kind()),
                Some(*k)
            );
        }
        assert_eq!(reg.resolve("po").map(|r| r.kind()), Some(Kind::Pod));
        // `events.k8s.io/v1` is served over the core Events' storage; the bare names (`ev`
        // included) name the core group's first, as kubectl's RESTMapper prefers it.
        let v1 = reg.lookup("events.k8s.io", "v1", "events");
        assert_eq!(
            v1.map(|r| (r.api_version, r.kind())),
            Some(("events.k8s.io/v1", Kind::Event))
        );
        assert!(v1.is_some_and(|r| r.is_converted()) && !Kind::Event.resource().is_converted());
        assert_eq!(reg.resolve("ev").map(|r| r.api_version), Some("v1"));
        assert_eq!(
            reg.resolve("events.v1.events.k8s.io")
                .map(|r| r.api_version),
            Some("events.k8s.io/v1")
        );
        assert_eq!(
            reg.by_kind("events.k8s.io/v1", "Event").map(|r| r.kind()),
            Some(Kind::Event)
        );
        assert_eq!(
            reg.by_key("/registry/events/default/x").map(|k| k.0),
            Some(Kind::Event)
        );
        assert_eq!(reg.resolve("widgets").map(|r| r.kind()), None);
        assert_eq!(
            reg.groups(),
            [
                ("apps", "v1"),
                ("events.k8s.io", "v1"),
                ("coordination.k8s.io", "v1"),
                ("apiextensions.k8s.io", "v1"),
                ("discovery.k8s.io", "v1"),
                ("policy", "v1"),
                ("batch", "v1"),
                ("storage.k8s.io", "v1")
            ]
        );
    }
}
