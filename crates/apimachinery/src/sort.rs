//! Stable sorting for the paths that sort rarely (printing, describing, a controller's ordering of
//! a few objects) with one compiled sort for the whole program. The standard `slice::sort_by` is
//! compiled once per comparator closure: the page held 78 copies of the standard stable sort, a
//! quarter of a megabyte of its wasm (issue #37). These sort a list of indices through a `dyn`
//! comparator, so the standard sort is compiled once, then move the items into that order. The
//! result is the standard stable sort's, item for item. Hot paths keep the standard sorts, whose
//! comparison is inlined: the watch cache, the watch hub, the informers' stores, the store's key
//! index, the census the page redraws from.

use std::cmp::Ordering;

/// `items.sort_by(compare)`, compiled once.
pub fn sort_by<T>(items: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    let order = stable_order(items.len(), &mut |a, b| compare(&items[a], &items[b]));
    permute(items, order);
}

/// Sorts `items` by a comparison of their positions (`compare(a, b)` orders the items now at `a`
/// and `b`), for keys computed once beforehand, as kubectl's `--sort-by` does; compiled once.
pub fn sort_by_position<T>(items: &mut [T], mut compare: impl FnMut(usize, usize) -> Ordering) {
    let order = stable_order(items.len(), &mut compare);
    permute(items, order);
}

/// `items.sort_by_key(key)`, compiled once.
pub fn sort_by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// `items.sort()`, compiled once.
pub fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, T::cmp);
}

/// The indices `0..len` in the order `compare` gives them, ties in index order: the one place
/// the standard sort is instantiated.
fn stable_order(len: usize, compare: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

/// Moves `items` so that `items[i]` is what was at `order[i]`, along the permutation's cycles (each
/// item moves once).
fn permute<T>(items: &mut [T], mut order: Vec<usize>) {
    const DONE: usize = usize::MAX;
    for start in 0..items.len() {
        let mut at = start;
        while order[at] != DONE {
            let from = order[at];
            order[at] = DONE;
            if from == start {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The same items in the same order as the standard stable sort, ties included (the
        /// second field tells equal keys apart).
        #[test]
        fn sorts_as_the_standard_stable_sort(v in proptest::collection::vec((0u8..8, any::<u16>()), 0..200)) {
            let mut ours = v.clone();
            sort_by_key(&mut ours, |p| p.0);
            let mut std = v.clone();
            std.sort_by_key(|p| p.0);
            prop_assert_eq!(ours, std);
        }

        /// Keys computed beforehand and compared by position give the standard stable sort.
        #[test]
        fn sorting_by_position_is_the_standard_stable_sort(v in proptest::collection::vec((0u8..8, any::<u16>()), 0..200)) {
            let keys: Vec<u8> = v.iter().map(|p| p.0).collect();
            let mut ours = v.clone();
            sort_by_position(&mut ours, |a, b| keys[a].cmp(&keys[b]));
            let mut std = v.clone();
            std.sort_by_key(|p| p.0);
            prop_assert_eq!(ours, std);
        }

        #[test]
        fn sort_and_sort_by_agree_with_the_standard_ones(v in proptest::collection::vec(any::<i16>(), 0..200)) {
            let mut ours = v.clone();
            sort(&mut ours);
            let mut std = v.clone();
            std.sort();
            prop_assert_eq!(&ours, &std);
            sort_by(&mut ours, |a, b| b.cmp(a));
            std.sort_by(|a, b| b.cmp(a));
            prop_assert_eq!(ours, std);
        }
    }
}
