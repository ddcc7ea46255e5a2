//! An Indexed Job's completion indexes (pkg/controller/job/indexed_job_utils.go): a pod's
//! index from its `batch.kubernetes.io/job-completion-index` annotation, sets of indexes kept
//! as ordered intervals (`orderedIntervals`) and printed as `status.completedIndexes` ("1,3-5":
//! a run of two is written "6,7"), the first indexes still to run, and the pods that repeat an
//! index. Apart from the controller because it is arithmetic on indexes, tested on its own.

use std::collections::BTreeSet;

use crate::api::batch::JOB_COMPLETION_INDEX;
use crate::api::pod::Pod;

/// One run of indexes, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interval {
    pub first: i32,
    pub last: i32,
}

/// `orderedIntervals`: disjoint runs in increasing order, no two adjacent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OrderedIntervals(pub Vec<Interval>);

impl OrderedIntervals {
    /// `withOrderedIndexes`: these intervals and `new` (increasing) merged.
    pub fn with_ordered_indexes(&self, new: &[i32]) -> OrderedIntervals {
        let mut out: Vec<Interval> = Vec::new();
        let mut push = |iv: Interval| match out.last_mut() {
            Some(last) if iv.first <= last.last.saturating_add(1) => {
                last.last = last.last.max(iv.last)
            }
            _ => out.push(iv),
        };
        let (mut i, mut j) = (0, 0);
        while i < self.0.len() || j < new.len() {
            let take_old = match (self.0.get(i), new.get(j)) {
                (Some(o), Some(n)) => o.first < *n,
                (Some(_), None) => true,
                _ => false,
            };
            if take_old {
                push(self.0[i]);
                i += 1;
            } else {
                push(Interval {
                    first: new[j],
                    last: new[j],
                });
                j += 1;
            }
        }
        OrderedIntervals(out)
    }

    /// `total`: how many indexes.
    pub fn total(&self) -> i32 {
        self.0.iter().map(|iv| iv.last - iv.first + 1).sum()
    }

    /// `has`.
    pub fn has(&self, ix: i32) -> bool {
        let at = self.0.partition_point(|iv| iv.last < ix);
        self.0.get(at).is_some_and(|iv| iv.first <= ix)
    }

    /// `parseIndexesFromString`: "1,3-5" read back, indexes at or past `completions` left out,
    /// a malformed part skipped.
    pub fn parse(text: &str, completions: i32) -> OrderedIntervals {
        let mut out: Vec<Interval> = Vec::new();
        for part in text.split(',').filter(|p| !p.is_empty()) {
            let mut ends = part.splitn(2, '-');
            let Some(Ok(first)) = ends.next().map(str::parse::<i32>) else {
                continue;
            };
            if first >= completions {
                break;
            }
            let last = match ends.next().map(str::parse::<i32>) {
                None => first,
                Some(Ok(last)) => last.min(completions - 1),
                Some(Err(_)) => continue,
            };
            match out.last_mut() {
                Some(prev) if prev.last == first - 1 => prev.last = last,
                _ => out.push(Interval { first, last }),
            }
        }
        OrderedIntervals(out)
    }
}

impl std::fmt::Display for OrderedIntervals {
    /// The `completedIndexes` text.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (n, iv) in self.0.iter().enumerate() {
            if n > 0 {
                f.write_str(",")?;
            }
            write!(f, "{}", iv.first)?;
            if iv.last == iv.first + 1 {
                write!(f, ",{}", iv.last)?;
            } else if iv.last > iv.first {
                write!(f, "-{}", iv.last)?;
            }
        }
        Ok(())
    }
}

/// `getCompletionIndex`: the pod's index, `None` when missing, malformed or negative.
pub fn completion_index(pod: &Pod) -> Option<i32> {
    pod.metadata
        .annotations
        .get(JOB_COMPLETION_INDEX)?
        .parse::<i32>()
        .ok()
        .filter(|i| *i >= 0)
}

/// A pod's index if it is one of the Job's (`ix < completions`).
pub fn valid_index(pod: &Pod, completions: i32) -> Option<i32> {
    completion_index(pod).filter(|ix| *ix < completions)
}

/// `calculateSucceededIndexes`: the indexes `status.completedIndexes` holds, and those with
/// the Succeeded pods still carrying the tracking finalizer added.
pub fn succeeded_indexes<'a>(
    completed: &str,
    completions: i32,
    pods: impl Iterator<Item = &'a Pod>,
    has_finalizer: impl Fn(&Pod) -> bool,
) -> (OrderedIntervals, OrderedIntervals) {
    let prev = OrderedIntervals::parse(completed, completions);
    let new: BTreeSet<i32> = pods
        .filter(|p| &*p.status.phase == "Succeeded" && has_finalizer(p))
        .filter_map(|p| valid_index(p, completions))
        .collect();
    let all = prev.with_ordered_indexes(&new.into_iter().collect::<Vec<_>>());
    (prev, all)
}

/// `firstPendingIndexes`: the `count` lowest indexes below `completions` that neither
/// succeeded nor have a pod in `busy` (the active pods, and the terminating ones when only
/// failed pods are replaced).
pub fn first_pending_indexes<'a>(
    succeeded: &OrderedIntervals,
    busy: impl Iterator<Item = &'a Pod>,
    count: usize,
    completions: i32,
) -> Vec<i32> {
    let busy: BTreeSet<i32> = busy.filter_map(completion_index).collect();
    let taken = succeeded.with_ordered_indexes(&busy.into_iter().collect::<Vec<_>>());
    let mut out = Vec::with_capacity(count.min(1024));
    let mut candidate = 0;
    for iv in &taken.0 {
        while candidate < completions && out.len() < count && candidate < iv.first {
            out.push(candidate);
            candidate += 1;
        }
        candidate = candidate.max(iv.last.saturating_add(1));
    }
    while candidate < completions && out.len() < count {
        out.push(candidate);
        candidate += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iv(runs: &[(i32, i32)]) -> OrderedIntervals {
        OrderedIntervals(
            runs.iter()
                .map(|&(first, last)| Interval { first, last })
                .collect(),
        )
    }

    #[test]
    fn intervals_merge_print_and_parse_as_completed_indexes() {
        let set = iv(&[(1, 1), (3, 5)]);
        assert_eq!(set.to_string(), "1,3-5");
        let more = set.with_ordered_indexes(&[0, 2, 7, 8]);
        assert_eq!(more.to_string(), "0-5,7,8");
        assert_eq!(more.total(), 8);
        assert!(more.has(4) && !more.has(6) && more.has(8) && !more.has(9));
        assert_eq!(OrderedIntervals::parse("0-5,7,8", 100), more);
        assert_eq!(OrderedIntervals::parse("1,3-9", 5).to_string(), "1,3,4");
        assert_eq!(OrderedIntervals::parse("x,2", 5).to_string(), "2");
    }

    #[test]
    fn pending_indexes_skip_the_succeeded_and_the_busy() {
        let succeeded = iv(&[(0, 1), (4, 4)]);
        let mut busy = Pod::default();
        busy.metadata
            .annotations
            .insert(JOB_COMPLETION_INDEX.into(), "2".into());
        let pending = first_pending_indexes(&succeeded, [&busy].into_iter(), 3, 7);
        assert_eq!(pending, [3, 5, 6]);
        assert_eq!(
            first_pending_indexes(&succeeded, std::iter::empty(), 10, 5),
            [2, 3]
        );
    }
}
