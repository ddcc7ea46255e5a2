//! Metadata fields shared between the objects and versions that carry the same value.
//!
//! A ReplicaSet stamps its template's labels on every pod it creates, and every later version
//! of a pod (bound, started, ready) carries its labels and owner reference unchanged. Held as
//! plain maps and vectors, each of those copies is a fresh tree of strings: at 150,000 pods
//! with ten versions each, a million copies of `{app: web, pod-template-hash: …}`. A
//! [`Shared`] value sits behind an `Arc`: cloning an object shares it, and the first write
//! through `&mut` copies it for that writer alone (`Arc::make_mut`), so code reads and edits
//! the field as the ordinary map or vector it holds, and only a writer pays for a copy. The
//! JSON is the inner value's.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// A value shared copy-on-write: reads deref to it, writes copy it first if another holder
/// shares it.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Shared<T: Clone>(Arc<T>);

/// Labels or annotations: a Go `map[string]string`.
pub type StringMap = Shared<BTreeMap<String, String>>;

impl<T: Clone> Shared<T> {
    pub fn new(value: T) -> Self {
        Shared(Arc::new(value))
    }

    /// Whether both hold the very same value (a clone, not an equal copy).
    pub fn shares_with(&self, other: &Shared<T>) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl<K: Clone, V: Clone> Shared<BTreeMap<K, V>> {
    /// For `skip_serializing_if` (a path does not see through `Deref`).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<T: Clone> Shared<Vec<T>> {
    /// For `skip_serializing_if` (a path does not see through `Deref`).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<T: Clone> Deref for Shared<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Clone> DerefMut for Shared<T> {
    fn deref_mut(&mut self) -> &mut T {
        Arc::make_mut(&mut self.0)
    }
}

impl<T: Clone + fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<K: Clone, V: Clone> From<BTreeMap<K, V>> for Shared<BTreeMap<K, V>> {
    fn from(map: BTreeMap<K, V>) -> Self {
        Shared::new(map)
    }
}

impl<T: Clone> From<Vec<T>> for Shared<Vec<T>> {
    fn from(items: Vec<T>) -> Self {
        Shared::new(items)
    }
}

impl<const N: usize> From<[(String, String); N]> for StringMap {
    fn from(pairs: [(String, String); N]) -> Self {
        Shared::new(BTreeMap::from(pairs))
    }
}

impl<K: Clone + Ord, V: Clone> FromIterator<(K, V)> for Shared<BTreeMap<K, V>> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        Shared::new(iter.into_iter().collect())
    }
}

impl<T: Clone> FromIterator<T> for Shared<Vec<T>> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Shared::new(iter.into_iter().collect())
    }
}

impl<'a, K: Clone, V: Clone> IntoIterator for &'a Shared<BTreeMap<K, V>> {
    type Item = (&'a K, &'a V);
    type IntoIter = std::collections::btree_map::Iter<'a, K, V>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<'a, T: Clone> IntoIterator for &'a Shared<Vec<T>> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clone_shares_the_value_until_one_side_writes() {
        let mut original = StringMap::from([("app".to_string(), "web".to_string())]);
        let copy = original.clone();
        assert!(copy.shares_with(&original));

        original.insert("tier".into(), "front".into());
        assert!(!copy.shares_with(&original));
        assert_eq!(copy.len(), 1, "the other holder still sees the old set");
        assert_eq!(original.get("tier").map(String::as_str), Some("front"));
    }

    #[test]
    fn json_is_the_inner_value() {
        let labels: StringMap = [("app".to_string(), "web".to_string())]
            .into_iter()
            .collect();
        let json = serde_json::to_string(&labels).unwrap();
        assert_eq!(json, r#"{"app":"web"}"#);
        let back: StringMap = serde_json::from_str(&json).unwrap();
        assert_eq!(back, labels);

        let owners: Shared<Vec<u32>> = serde_json::from_str("[1,2]").unwrap();
        assert_eq!(serde_json::to_string(&owners).unwrap(), "[1,2]");
    }
}
