//! The worker loop every client-go controller repeats (`processNextWorkItem`): take a key,
//! reconcile it against the cache, forget it on success, re-add it rate-limited on failure
//! (dropping it after `max_retries` where the controller has such a limit), and always mark it
//! done. Factored here so each controller only writes its reconcile function.

use super::workqueue::WorkQueue;
use crate::clock::Timestamp;

/// What a successful reconcile asks for next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Requeue {
    /// Nothing: the key is forgotten.
    No,
    /// Check again after this many ms (`queue.AddAfter`, e.g. minReadySeconds), forgetting
    /// the failure count.
    After(u64),
}

/// How one key was handled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkOutcome<E> {
    /// Reconciled; forgotten (and maybe re-added after a delay).
    Synced(Requeue),
    /// Failed; re-added with the rate limiter's delay (this was failure `requeues`).
    Retrying { error: E, requeues: u32 },
    /// Failed `max_retries` times already: dropped from the queue (client-go logs it with
    /// `utilruntime.HandleError` and calls `Forget`).
    Dropped { error: E },
}

/// Processes one ready key at `now`; `None` if no key is ready. `max_retries` is the
/// controller's limit (client-go's Deployment controller uses 15; the ReplicaSet controller
/// retries forever, `None`).
pub fn process_next_work_item<T: Clone + Ord, E>(
    queue: &mut WorkQueue<T>,
    now: Timestamp,
    max_retries: Option<u32>,
    reconcile: impl FnOnce(&T) -> Result<Requeue, E>,
) -> Option<(T, WorkOutcome<E>)> {
    let key = queue.get(now)?;
    let outcome = match reconcile(&key) {
        Ok(requeue) => {
            queue.forget(&key);
            if let Requeue::After(ms) = requeue {
                queue.add_after(key.clone(), ms, now);
            }
            WorkOutcome::Synced(requeue)
        }
        Err(error) if max_retries.is_none_or(|max| queue.num_requeues(&key) < max) => {
            queue.add_rate_limited(key.clone(), now);
            WorkOutcome::Retrying {
                error,
                requeues: queue.num_requeues(&key),
            }
        }
        Err(error) => {
            queue.forget(&key);
            WorkOutcome::Dropped { error }
        }
    };
    queue.done(&key);
    Some((key, outcome))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn success_forgets_failure_requeues_then_drops() {
        let mut q: WorkQueue<&str> = WorkQueue::default();
        let mut now = Timestamp::ZERO;
        q.add("default/web");
        let mut outcomes = Vec::new();
        for _ in 0..3 {
            let (_, out) =
                process_next_work_item(&mut q, now, Some(2), |_| Err::<Requeue, _>("conflict"))
                    .unwrap();
            outcomes.push(out);
            now = q.next_ready_at().unwrap_or(now);
        }
        assert_eq!(
            outcomes,
            [
                WorkOutcome::Retrying {
                    error: "conflict",
                    requeues: 1
                },
                WorkOutcome::Retrying {
                    error: "conflict",
                    requeues: 2
                },
                WorkOutcome::Dropped { error: "conflict" },
            ]
        );
        assert_eq!(q.num_requeues(&"default/web"), 0);
        assert!(q.get(now.plus_secs(10)).is_none(), "dropped");
        q.add("default/web");
        let (_, out) =
            process_next_work_item(&mut q, now, None, |_| Ok::<_, ()>(Requeue::After(1000)))
                .unwrap();
        assert_eq!(out, WorkOutcome::Synced(Requeue::After(1000)));
        assert_eq!(q.next_ready_at(), Some(now.plus_millis(1000)));
        assert!(process_next_work_item(&mut q, now, None, |_| Ok::<_, ()>(Requeue::No)).is_none());
    }

    #[test]
    fn a_key_readded_during_reconcile_comes_back_once() {
        let mut q: WorkQueue<u32> = WorkQueue::default();
        q.add(7);
        let key = q.get(Timestamp::ZERO).unwrap();
        q.add(7); // an informer event while the worker is busy with 7
        q.add(7);
        q.done(&key);
        let (k, _) =
            process_next_work_item(&mut q, Timestamp::ZERO, None, |_| Ok::<_, ()>(Requeue::No))
                .unwrap();
        assert_eq!(k, 7);
        assert!(q.is_empty());
    }
}
