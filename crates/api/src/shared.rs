//! Fields shared between the objects and versions that carry the same value.
//!
//! A ReplicaSet stamps its template's labels on every pod it creates, and every later version
//! of a pod (bound, started, ready) carries its labels and owner reference unchanged. Held as
//! plain maps and vectors, each of those copies is a fresh tree of strings: at 150,000 pods
//! with ten versions each, a million copies of `{app: web, pod-template-hash: …}`. A
//! [`Shared`] value sits behind an `Arc`: cloning an object shares it, and the first write
//! through `&mut` copies it for that writer alone (`Arc::make_mut`), so code reads and edits
//! the field as the ordinary map or vector it holds, and only a writer pays for a copy. The
//! JSON is the inner value's. Equal values written apart (the kubelets' pod conditions) are
//! made one by an [`Interner`].

use crate::hash::{FixedHashMap, FixedState};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;
use std::fmt;
use std::hash::{BuildHasher, Hash, Hasher};
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// A value shared copy-on-write: reads deref to it, writes copy it first if another holder
/// shares it. An empty value holds nothing at all (most objects have no owners, an Event no
/// labels), so it costs no allocation.
#[derive(Clone, Default)]
pub struct Shared<T: Sharable>(Option<Arc<T>>);

/// What a [`Shared`] can hold: a value with an empty form that lives in a `static`.
pub trait Sharable: Clone + 'static {
    fn empty() -> &'static Self;
    fn is_empty(&self) -> bool;
}

/// Makes `Vec<$item>` [`Sharable`] (its empty form a `static`, which a generic impl cannot
/// declare): `sharable_vec!(OwnerReference);` beside the item's type.
macro_rules! sharable_vec {
    ($item:ty) => {
        impl $crate::shared::Sharable for Vec<$item> {
            fn empty() -> &'static Self {
                static EMPTY: Vec<$item> = Vec::new();
                &EMPTY
            }

            fn is_empty(&self) -> bool {
                Vec::is_empty(self)
            }
        }
    };
}
pub(crate) use sharable_vec;

/// Labels or annotations: a Go `map[string]string`.
pub type StringMap = Shared<BTreeMap<String, String>>;

impl Sharable for BTreeMap<String, String> {
    fn empty() -> &'static Self {
        static EMPTY: BTreeMap<String, String> = BTreeMap::new();
        &EMPTY
    }

    fn is_empty(&self) -> bool {
        BTreeMap::is_empty(self)
    }
}

impl<T: Sharable> Shared<T> {
    pub fn new(value: T) -> Self {
        if value.is_empty() {
            Shared(None)
        } else {
            Shared(Some(Arc::new(value)))
        }
    }

    /// For `skip_serializing_if` (a path does not see through `Deref`).
    pub fn is_empty(&self) -> bool {
        self.deref().is_empty()
    }

    /// Whether both hold the very same value (a clone, not an equal copy), or are both empty.
    pub fn shares_with(&self, other: &Shared<T>) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}

impl<T: Sharable> Deref for Shared<T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.0.as_deref().unwrap_or_else(|| T::empty())
    }
}

impl<T: Sharable> DerefMut for Shared<T> {
    fn deref_mut(&mut self) -> &mut T {
        Arc::make_mut(self.0.get_or_insert_with(|| Arc::new(T::empty().clone())))
    }
}

impl<T: Sharable + PartialEq> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        self.shares_with(other) || **self == **other
    }
}

impl<T: Sharable + Eq> Eq for Shared<T> {}

impl<T: Sharable + fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.deref().fmt(f)
    }
}

impl<T: Sharable + Serialize> Serialize for Shared<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.deref().serialize(serializer)
    }
}

impl<'de, T: Sharable + Deserialize<'de>> Deserialize<'de> for Shared<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        T::deserialize(deserializer).map(Shared::new)
    }
}

impl<T: Sharable> From<T> for Shared<T> {
    fn from(value: T) -> Self {
        Shared::new(value)
    }
}

impl<const N: usize> From<[(String, String); N]> for StringMap {
    fn from(pairs: [(String, String); N]) -> Self {
        Shared::new(BTreeMap::from(pairs))
    }
}

impl FromIterator<(String, String)> for StringMap {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(iter: I) -> Self {
        Shared::new(iter.into_iter().collect())
    }
}

impl<'a> IntoIterator for &'a StringMap {
    type Item = (&'a String, &'a String);
    type IntoIter = std::collections::btree_map::Iter<'a, String, String>;

    fn into_iter(self) -> Self::IntoIter {
        self.deref().iter()
    }
}

impl<T: Clone + 'static> FromIterator<T> for Shared<Vec<T>>
where
    Vec<T>: Sharable,
{
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Shared::new(iter.into_iter().collect())
    }
}

impl<'a, T: Clone + 'static> IntoIterator for &'a Shared<Vec<T>>
where
    Vec<T>: Sharable,
{
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.deref().iter()
    }
}

impl<'a, T: Clone + 'static> IntoIterator for &'a mut Shared<Vec<T>>
where
    Vec<T>: Sharable,
{
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;

    /// Copies the vector first if another holder shares it.
    fn into_iter(self) -> Self::IntoIter {
        self.deref_mut().iter_mut()
    }
}

/// Keeps one of equal shared values written apart: a value handed to [`Interner::share`]
/// that equals one seen before is replaced by that one, so both hold one allocation. The
/// kubelets of a large cluster write the same pod conditions (the same five types, statuses,
/// reasons and times) for the pods they start at the same instant (at 30,000 pods, 9,414
/// distinct lists among the Running ones), and a recorder's events about a template's pods
/// the same messages. Bounded: it forgets everything after [`Interner::LIMIT`] distinct
/// values (what it shared stays shared).
#[derive(Debug, Clone)]
pub struct Interner<V: Internable> {
    by_hash: FixedHashMap<u64, V>,
}

/// A value an [`Interner`] can make share: equal by content, cloned by sharing.
pub trait Internable: Clone + Hash + Eq {
    /// Nothing to share (an empty value holds no allocation).
    fn is_blank(&self) -> bool;
    /// Whether both hold the very same allocation.
    fn shares_allocation(&self, other: &Self) -> bool;
}

impl<T: Sharable + Hash + Eq> Internable for Shared<T> {
    fn is_blank(&self) -> bool {
        self.is_empty()
    }

    fn shares_allocation(&self, other: &Self) -> bool {
        self.shares_with(other)
    }
}

impl Internable for Arc<str> {
    fn is_blank(&self) -> bool {
        self.is_empty()
    }

    fn shares_allocation(&self, other: &Self) -> bool {
        Arc::ptr_eq(self, other)
    }
}

impl<T: Sharable + Hash> Hash for Shared<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.deref().hash(state);
    }
}

impl<V: Internable> Default for Interner<V> {
    fn default() -> Self {
        Interner {
            by_hash: FixedHashMap::default(),
        }
    }
}

impl<V: Internable> Interner<V> {
    /// Distinct values remembered before starting over. Equal values are written close
    /// together (one instant's status writes), so a short memory finds them: at 5,000 ×
    /// 150,000 a limit of 1,024 shared as much as one of 65,536, and it keeps alive at most
    /// that many values which no object holds any more.
    pub const LIMIT: usize = 1 << 10;

    /// Makes `value` share an equal value seen before, or remembers it.
    pub fn share(&mut self, value: &mut V) {
        if value.is_blank() {
            return;
        }
        let hash = FixedState::default().hash_one(&*value);
        match self.by_hash.get(&hash) {
            Some(seen) if seen == value => {
                if !seen.shares_allocation(value) {
                    *value = seen.clone();
                }
            }
            _ => self.remember(hash, value),
        }
    }

    fn remember(&mut self, hash: u64, value: &V) {
        if self.by_hash.len() >= Self::LIMIT {
            self.by_hash.clear();
        }
        self.by_hash.insert(hash, value.clone());
    }
}

impl Interner<Arc<str>> {
    /// `text` as a shared string: the one seen before when equal (nothing allocated), else a
    /// new one, remembered.
    pub fn text(&mut self, text: &str) -> Arc<str> {
        // An `Arc<str>` hashes as its text, so the text finds it.
        let hash = FixedState::default().hash_one(text);
        match self.by_hash.get(&hash) {
            Some(seen) if **seen == *text => seen.clone(),
            _ => {
                let value: Arc<str> = Arc::from(text);
                self.remember(hash, &value);
                value
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    sharable_vec!(String);

    fn list(items: &[&str]) -> Shared<Vec<String>> {
        Shared::new(items.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn an_interner_keeps_one_of_equal_values_and_leaves_others_alone() {
        let mut interner = Interner::default();
        let (mut a, mut b, mut c) = (list(&["x", "y"]), list(&["x", "y"]), list(&["z"]));
        interner.share(&mut a);
        interner.share(&mut b);
        interner.share(&mut c);
        assert!(
            b.shares_with(&a),
            "an equal value takes the first one's allocation"
        );
        assert!(!c.shares_with(&a));
        assert_eq!(
            (&*a, &*c),
            (&vec!["x".to_string(), "y".into()], &vec!["z".to_string()])
        );

        // A writer still copies before changing it.
        b.push("w".into());
        assert_eq!((a.len(), b.len()), (2, 3));
    }

    #[test]
    fn a_text_is_the_string_shared_before_when_equal() {
        let mut interner = Interner::default();
        let mut shared: Arc<str> = Arc::from("kubelet");
        interner.share(&mut shared);
        let again = interner.text("kubelet");
        assert!(Arc::ptr_eq(&again, &shared));
        let other = interner.text("kube-scheduler");
        assert_eq!(&*other, "kube-scheduler");
        assert!(Arc::ptr_eq(&interner.text("kube-scheduler"), &other));
    }

    #[test]
    fn an_interner_starts_over_after_its_limit() {
        let mut interner = Interner::default();
        let mut first = list(&["0"]);
        interner.share(&mut first);
        for i in 1..Interner::<Shared<Vec<String>>>::LIMIT {
            interner.share(&mut list(&[&i.to_string()]));
        }
        let mut again = list(&["0"]);
        interner.share(&mut again);
        assert!(again.shares_with(&first), "still remembered at the limit");
        interner.share(&mut list(&["one more"]));
        let mut after = list(&["0"]);
        interner.share(&mut after);
        assert!(!after.shares_with(&first), "forgotten once past it");
    }

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
    fn an_empty_value_allocates_nothing_and_equals_an_emptied_one() {
        let mut emptied = StringMap::from([("app".to_string(), "web".to_string())]);
        emptied.clear();
        let never_set = StringMap::default();
        assert!(never_set.0.is_none());
        assert_eq!(emptied, never_set);
        assert!(never_set.is_empty() && never_set.get("app").is_none());
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

        let none: StringMap = serde_json::from_str("{}").unwrap();
        assert_eq!(none, StringMap::default());
        assert_eq!(serde_json::to_string(&none).unwrap(), "{}");
    }
}
