//! What the informer machinery needs to know about an object, and the cache key it files it
//! under. Kept to four accessors so any object type can be cached: the real `Arc<Object>` through
//! a thin impl, a tiny fake in tests.

use std::fmt;
use std::sync::Arc;

/// An object an informer can cache: its identity and the revision it was last written at.
pub trait Resource: Clone {
    /// `metadata.namespace`; `None` for cluster-scoped kinds (nodes, namespaces).
    fn namespace(&self) -> Option<&str>;
    /// `metadata.name`.
    fn name(&self) -> &str;
    /// `metadata.resourceVersion` as the store revision it was written at.
    fn resource_version(&self) -> u64;
    /// `metadata.uid`: tells a recreated object apart from the one that had the same name.
    fn uid(&self) -> &str;
}

/// A cache and work-queue key: `namespace/name`, or just `name` for cluster-scoped objects,
/// exactly what client-go's `cache.MetaNamespaceKeyFunc` produces. Shared, not copied: an
/// informer holds each key in its map, its key order and each index, and a work queue in its
/// queue and its dirty set.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectKey(Arc<str>);

impl ObjectKey {
    /// The key of `name` in `namespace` (an empty namespace counts as cluster-scoped).
    pub fn new(namespace: Option<&str>, name: &str) -> Self {
        Self::joined(namespace, name, |key| ObjectKey(Arc::from(key)))
    }

    /// Calls `f` with the text of the key of `name` in `namespace`, joined on the stack (a
    /// namespace is at most 63 bytes, a name at most 253): a lookup by it allocates nothing.
    pub fn joined<R>(namespace: Option<&str>, name: &str, f: impl FnOnce(&str) -> R) -> R {
        match namespace {
            Some(ns) if !ns.is_empty() => {
                let mut buf = [0u8; 320];
                let len = ns.len() + 1 + name.len();
                if let Some(joined) = buf.get_mut(..len) {
                    let (head, tail) = joined.split_at_mut(ns.len());
                    head.copy_from_slice(ns.as_bytes());
                    if let Some((slash, rest)) = tail.split_first_mut() {
                        *slash = b'/';
                        rest.copy_from_slice(name.as_bytes());
                    }
                    if let Ok(key) = std::str::from_utf8(joined) {
                        return f(key);
                    }
                }
                f(&format!("{ns}/{name}"))
            }
            _ => f(name),
        }
    }

    /// The key of an object (`MetaNamespaceKeyFunc`).
    pub fn of<K: Resource>(object: &K) -> Self {
        ObjectKey::new(object.namespace(), object.name())
    }

    /// Splits the key back into (namespace, name), like `cache.SplitMetaNamespaceKey`.
    pub fn split(&self) -> (Option<&str>, &str) {
        match self.0.split_once('/') {
            Some((ns, name)) => (Some(ns), name),
            None => (None, &self.0),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Looked up by its text (maps of keys are searched with [`ObjectKey::joined`]); its hash and
/// order are those of the text.
impl std::borrow::Borrow<str> for ObjectKey {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_meta_namespace_key_func() {
        let k = ObjectKey::new(Some("default"), "web-1");
        assert_eq!(k.as_str(), "default/web-1");
        assert_eq!(k.split(), (Some("default"), "web-1"));
        let node = ObjectKey::new(None, "node-a");
        assert_eq!(node.to_string(), "node-a");
        assert_eq!(node.split(), (None, "node-a"));
        assert_eq!(ObjectKey::new(Some(""), "x").as_str(), "x");
    }

    #[test]
    fn long_and_non_ascii_names_join_the_same_way() {
        let long = "n".repeat(400);
        assert_eq!(
            ObjectKey::new(Some("team-ü"), &long).as_str(),
            format!("team-ü/{long}")
        );
        assert_eq!(ObjectKey::new(Some("a"), "日本").as_str(), "a/日本");
    }
}
