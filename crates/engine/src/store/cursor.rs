//! Paginated lists without recounting. etcd answers every range with the total `count` of
//! matching keys, which costs a walk over the whole range; the API server lists in pages of
//! `limit` (kubectl and informers use 500), so listing 150,000 pods would walk 300 × 75,000 keys
//! on average. Reads at a fixed revision never change (MVCC), so the count after a page's last
//! key is known from the previous page: `count - kvs.len()`. The store remembers that one
//! cursor and, when the next page starts exactly there, stops after `limit` keys.

use std::cell::RefCell;
use std::sync::Arc;

use super::revision::Revision;

/// Where the last truncated range stopped, and how many matching keys lay beyond it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Cursor {
    prefix: Box<str>,
    at: Revision,
    last_key: Arc<str>,
    remaining: usize,
}

/// The remembered cursor (one: pages of one list arrive one after another).
#[derive(Debug, Clone, Default)]
pub struct PageCursor(RefCell<Option<Cursor>>);

impl PageCursor {
    /// The number of matching keys after `start_after`, if a previous page stopped exactly there.
    #[must_use]
    pub fn remaining(
        &self,
        prefix: &str,
        at: Revision,
        start_after: Option<&str>,
    ) -> Option<usize> {
        let cursor = self.0.borrow();
        let c = cursor.as_ref()?;
        let hit = c.at == at && &*c.prefix == prefix && start_after == Some(&*c.last_key);
        hit.then_some(c.remaining)
    }

    /// Remembers that `remaining` matching keys follow `last_key` in `prefix` at `at`.
    pub fn remember(&self, prefix: &str, at: Revision, last_key: &Arc<str>, remaining: usize) {
        *self.0.borrow_mut() = Some(Cursor {
            prefix: prefix.into(),
            at,
            last_key: Arc::clone(last_key),
            remaining,
        });
    }

    /// Forgets the cursor (its revision was compacted away).
    pub fn clear(&self) {
        *self.0.borrow_mut() = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_continuation_hits() {
        let cursor = PageCursor::default();
        assert_eq!(cursor.remaining("/p/", 5, None), None);
        let last: Arc<str> = Arc::from("/p/b");
        cursor.remember("/p/", 5, &last, 7);
        assert_eq!(cursor.remaining("/p/", 5, Some("/p/b")), Some(7));
        assert_eq!(
            cursor.remaining("/p/", 6, Some("/p/b")),
            None,
            "other revision"
        );
        assert_eq!(
            cursor.remaining("/q/", 5, Some("/p/b")),
            None,
            "other prefix"
        );
        assert_eq!(
            cursor.remaining("/p/", 5, Some("/p/a")),
            None,
            "other start"
        );
        assert_eq!(cursor.remaining("/p/", 5, None), None);
        cursor.clear();
        assert_eq!(cursor.remaining("/p/", 5, Some("/p/b")), None);
    }
}
