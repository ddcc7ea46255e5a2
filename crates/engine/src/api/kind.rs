//! `Kind`: a cheap, copyable handle on one served resource's description ([`ResourceInfo`]).
//! It is not a closed enum, so a resource defined at run time (a CustomResourceDefinition's)
//! is a `Kind` like `Kind::Pod`: every generic part of the API server — keys, routing,
//! discovery, watch, strategy — works on the handle and asks its description, never a list of
//! variants. The built-in kinds are constants pointing at their registry modules' statics.

use super::kinds;
use super::resource::{ResourceInfo, CUSTOM_RANK};
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

/// A served kind. Two handles are equal when they name the same resource
/// (group, version, plural); built-in kinds compare by their rank alone.
#[derive(Clone, Copy)]
pub struct Kind(&'static ResourceInfo);

#[allow(non_upper_case_globals)]
impl Kind {
    pub const Namespace: Kind = Kind(&kinds::namespace::RESOURCE);
    pub const Node: Kind = Kind(&kinds::node::RESOURCE);
    pub const Pod: Kind = Kind(&kinds::pod::RESOURCE);
    pub const ReplicaSet: Kind = Kind(&kinds::replicaset::RESOURCE);
    pub const Deployment: Kind = Kind(&kinds::deployment::RESOURCE);
    pub const Event: Kind = Kind(&kinds::event::RESOURCE);
    pub const Lease: Kind = Kind(&kinds::lease::RESOURCE);
    pub const CustomResourceDefinition: Kind = Kind(&kinds::customresourcedefinition::RESOURCE);
    pub const Service: Kind = Kind(&kinds::service::RESOURCE);
    pub const Endpoints: Kind = Kind(&kinds::endpoints::RESOURCE);
    pub const EndpointSlice: Kind = Kind(&kinds::endpointslice::RESOURCE);
    pub const ConfigMap: Kind = Kind(&kinds::configmap::RESOURCE);
    pub const Secret: Kind = Kind(&kinds::secret::RESOURCE);

    /// The built-in kinds, in discovery order (the registry's [`kinds::BUILT_IN`]).
    pub const ALL: [Kind; kinds::BUILT_IN.len()] = kinds::BUILT_IN;

    /// The handle of a description (a built-in's static, or a custom resource's).
    pub const fn of(resource: &'static ResourceInfo) -> Kind {
        Kind(resource)
    }

    /// Everything the registry knows about this kind.
    pub fn resource(self) -> &'static ResourceInfo {
        self.0
    }

    /// Whether this kind is defined at run time (by a CustomResourceDefinition).
    pub fn is_custom(self) -> bool {
        self.0.rank == CUSTOM_RANK
    }

    fn identity(&self) -> (u16, &'static str, &'static str, &'static str) {
        let r = self.0;
        (r.rank, r.group, r.plural, r.version)
    }
}

impl PartialEq for Kind {
    fn eq(&self, other: &Kind) -> bool {
        std::ptr::eq(self.0, other.0)
            || (self.0.rank == other.0.rank
                && self.0.rank == CUSTOM_RANK
                && self.identity() == other.identity())
    }
}

impl Eq for Kind {}

impl Hash for Kind {
    fn hash<H: Hasher>(&self, state: &mut H) {
        if self.is_custom() {
            self.identity().hash(state)
        } else {
            self.0.rank.hash(state)
        }
    }
}

impl PartialOrd for Kind {
    fn partial_cmp(&self, other: &Kind) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Built-in kinds in registry order, then custom ones by group and plural.
impl Ord for Kind {
    fn cmp(&self, other: &Kind) -> Ordering {
        // Built-in kinds (the watch index's hot path) compare by rank alone.
        match self.0.rank.cmp(&other.0.rank) {
            Ordering::Equal if self.is_custom() => self.identity().cmp(&other.identity()),
            o => o,
        }
    }
}

/// The kind's name (`Pod`), as the former enum printed it.
impl fmt::Debug for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.kind_name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_compare_and_order_like_the_registry() {
        assert_eq!(Kind::Pod, Kind::of(Kind::Pod.resource()));
        assert_ne!(Kind::Pod, Kind::Node);
        assert!(Kind::Namespace < Kind::Node && Kind::Deployment < Kind::Lease);
        assert_eq!(format!("{:?}", Kind::ReplicaSet), "ReplicaSet");
        assert_eq!(std::mem::size_of::<Kind>(), std::mem::size_of::<usize>());
    }
}
